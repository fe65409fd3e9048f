#[codegen::variants(never)]
fn f() {}

fn main() {}
