// A declaration's grammar is checked at the declaration: an unknown key.
#[codegen::variants(never, cipher = Tiny, entry(modes: [Ecb: [16]], peer: []))]
mod tiny {
    #[round]
    fn f() {}
}

fn main() {}
