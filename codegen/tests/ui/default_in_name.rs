#[codegen::variants(never_x1, auto_rolled)]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
