#[codegen::variants(never, auto, never)]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
