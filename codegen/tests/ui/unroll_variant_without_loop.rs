#[codegen::variants(never, never_unrolled)]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
