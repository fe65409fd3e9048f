#[codegen::variants()]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
