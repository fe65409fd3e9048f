#[codegen::variants(policy(never, sometimes), unroll(rolled, unwound))]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
