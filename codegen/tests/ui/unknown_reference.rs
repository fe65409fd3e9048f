#[codegen::variants(never, auto, reference = always)]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
