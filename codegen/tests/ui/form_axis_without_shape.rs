#[codegen::variants(policy(never), form(factored))]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
