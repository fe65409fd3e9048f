#[codegen::variants(never, policy(auto))]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
