// A declaration is for a cipher or a checksum; a second one is refused.
#[codegen::variants(never, entry(modes: [Ecb: [16]], peers: []), calibration())]
mod tiny {
    #[round]
    fn f() {}
}

fn main() {}
