//! The ciphers of inlinelab, each written once and expanded by
//! `#[codegen::variants]` into every variant. Every variant is a RustCrypto
//! `cipher` 0.5 implementation, so it drops into the mode crates (`ecb`,
//! `cbc`, `ctr`, `xts-mode`); a checksum's variants hold functions.
//!
//! Source files are named after the specification they implement:
//! `rfc2612.rs` is CAST-256 (`cast6`), `rfc2144.rs` CAST-128 (`cast5`),
//! `fips197.rs` AES, `rfc3720.rs` CRC32C, `schneier93.rs` Blowfish;
//! `null_def.rs` holds `ecb(cipher_null)` and `digest_null`, which do no
//! work and measure the harness itself. [`modes`] (the `inlinelab-modes`
//! crate, re-exported) holds the block-mode loops that the harness and the
//! built artifacts share: a crate's artifact takes them without this crate,
//! and so without compiling `codegen` and `syn`.
//!
//! A cipher's variants are named in its `#[codegen::variants]` module and
//! nowhere else: the macro exports `<cipher>_variants!`, the callback every
//! other list is derived from, and [`DECLARED`] lists them all. A build
//! with `INLINELAB_VARIANT=cipher::variant` (see [`SELECT_ENV`]) compiles
//! that one variant alone and defines `selected!` for it.
//!
//! Beside its variants, each module declares what the harness and the
//! artifact need to know of it (`entry(...)`: its modes and key sizes, its
//! peer crates; `calibration(...)` for the null algorithms), and
//! `all_algorithms!(cb)` hands every declaration, in the order below, to one
//! callback: the harness's registry and the artifact's peers derive from it.

#![no_std]
// `unsafe` only where the CPU's instructions are reached: the call into the
// SSE4.2 CRC32C code after the CPU was checked to have SSE4.2 (rfc3720.rs),
// AES-NI's calls, loads, stores and trap (fips197.rs, traits.rs), CBC's
// chain XOR of two `__m128i` (SSE2, traits.rs), and the
// empty `asm!` that keeps an XOR where the source put it (order.rs).
#![deny(unsafe_code)]
#![warn(missing_docs)]
// A build holding one variant leaves the others' shared tables unused (and
// `cipher_traits!` in a checksum's build).
#![cfg_attr(inlinelab_one, allow(dead_code, unused_imports, unused_macros))]

mod consts;
pub use modes;
mod order;
mod select;
// Before the ciphers: `cipher_traits!` is in scope in every module after it.
#[macro_use]
mod traits;

pub use select::{SELECT_ENV, is_selection};

/// For the artifact: items compiled only with the feature `peer-<krate>`.
#[doc(hidden)]
pub use codegen::cfg_peer;

/// Declares the algorithms: one line each, `file => module`. Each module is
/// re-exported at the crate root and listed in [`DECLARED`].
macro_rules! algorithms {
    ($($file:ident => $module:ident,)*) => {
        $(
            mod $file;
            pub use $file::*;
        )*

        /// Every algorithm with its variants, as declared (in a build that
        /// selects one variant, only that one's algorithm is compiled).
        #[cfg(not(inlinelab_one))]
        pub const DECLARED: &[(&str, &[&str])] = &[$((stringify!($module), $module::VARIANTS)),*];

        codegen::algorithms!($($module)*);
    };
}

algorithms! {
    fips197 => aes,
    rfc3720 => crc32c,
    rfc2144 => cast5,
    rfc2612 => cast6,
    null_def => null,
    schneier93 => blowfish,
}

/// With no variant selected, an artifact holds the null cipher, so that
/// workspace-wide builds (lints, tests) compile it.
#[cfg(not(inlinelab_one))]
#[macro_export]
macro_rules! selected {
    ($cb:ident) => {
        $cb! { cipher: null, kind: cipher(CipherNull), variant: auto }
    };
}

/// S1 to S4 of RFC 2144 (CAST-128, reused by CAST-256), for a form of the
/// rounds written outside the macro (`bench-harness`'s `cast6_forms`
/// bench). Not in a build of one variant, whose artifact it would change
/// (and last in this file for that reason: the artifacts' panic locations
/// hold line numbers).
#[cfg(not(inlinelab_one))]
#[doc(hidden)]
pub use consts::S as CAST_S1_TO_S4;
