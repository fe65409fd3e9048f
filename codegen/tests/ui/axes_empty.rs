#[codegen::variants(policy(never), unroll())]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
