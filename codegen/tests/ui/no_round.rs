#[codegen::variants(never)]
mod m {
    fn f() {}
}

fn main() {}
