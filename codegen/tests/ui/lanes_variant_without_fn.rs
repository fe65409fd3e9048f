#[codegen::variants(never, never_x2)]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
