#[codegen::variants(policy(never), unroll(rolled, unrolled))]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
