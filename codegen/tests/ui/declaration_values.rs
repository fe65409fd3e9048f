// What the grammar cannot say, each at its token: a mode and a key size given
// twice, a key size out of bounds, a peer name that is not plain, an empty
// label, a checksum's keying on a cipher, a second peer of one crate.
#[codegen::variants(
    never,
    cipher = Tiny,
    entry(
        modes: [Ecb: [16, 16, 2000], Ecb: [8]],
        peers: [
            "Rust Crypto" { label: "", krate: tiny_crate, keyed: digest(f) },
            "other" { label: "x", krate: tiny_crate, keyed: cipher(T) },
        ],
    )
)]
mod tiny {
    #[round]
    fn f() {}
}

fn main() {}
