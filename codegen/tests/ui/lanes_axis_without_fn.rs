#[codegen::variants(policy(never), lanes(1, 2))]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
