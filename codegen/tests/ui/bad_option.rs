#[codegen::variants(never, cipher = 3, speed = "fast")]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
