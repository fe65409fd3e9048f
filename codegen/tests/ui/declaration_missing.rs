// A declaration's grammar is checked at the declaration: a missing key.
#[codegen::variants(never, cipher = Tiny, entry(modes: [Ecb: [16]]))]
mod tiny {
    #[round]
    fn f() {}
}

fn main() {}
