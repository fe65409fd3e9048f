#[codegen::variants(policy(never), lanes(1, 2, 1))]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
