#[codegen::variants(never)]
mod m {
    #[round]
    pub struct S;
    #[round]
    fn f() {}
}

fn main() {}
