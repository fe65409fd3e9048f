#[codegen::variants(never_folded)]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
