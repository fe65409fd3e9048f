#[codegen::variants(never, never_factored)]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
