#[codegen::variants(never_x65, never_x0)]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
