// A peer's builds, each at its token: one that differs from its peer in
// nothing, a feature name that is not one, empty rustflags.
#[codegen::variants(
    never,
    cipher = Tiny,
    entry(
        modes: [Ecb: [16]],
        peers: [
            "rustcrypto" {
                label: "x",
                krate: tiny_crate,
                keyed: cipher(T),
                builds: [
                    "same" { label: "the same build" },
                    "odd" { label: "a feature", features: ["zero ize"] },
                    "bare" { label: "no flags", rustflags: " " },
                ],
            },
        ],
    )
)]
mod tiny {
    #[round]
    fn f() {}
}

fn main() {}
