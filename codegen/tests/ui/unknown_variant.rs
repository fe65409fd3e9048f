#[codegen::variants(always, sometimes)]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
