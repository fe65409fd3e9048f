#[codegen::variants(policy(never), lanes(1, 0, 65, two))]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
