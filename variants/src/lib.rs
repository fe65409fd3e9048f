//! The ciphers of inlinelab, each written once and expanded by
//! `#[codegen::variants]` into every inlining variant. Every variant is a
//! RustCrypto `cipher` 0.5 implementation, so it drops into the mode crates
//! (`ecb`, `cbc`, `ctr`, `xts-mode`).
//!
//! Source files are named after the specification they implement:
//! `rfc2612.rs` is CAST-256 (`cast6`), `rfc2144.rs` CAST-128 (`cast5`), `fips197.rs` AES, `rfc3720.rs` CRC32C; `null.rs` holds `ecb(cipher_null)` and
//! `digest_null`, which do no work and measure the harness itself.
//! `modes.rs` holds the block-mode loops that the harness and the built
//! artifacts share.

#![no_std]
// One `unsafe` block in the crate: the call into the SSE4.2 CRC32C code,
// after the CPU was checked to have SSE4.2 (rfc3720.rs).
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod consts;
#[cfg(feature = "aes")]
mod fips197;
pub mod modes;
#[cfg(feature = "null")]
mod null_def;
#[cfg(feature = "cast5")]
mod rfc2144;
#[cfg(feature = "cast6")]
mod rfc2612;
#[cfg(feature = "crc32c")]
mod rfc3720;

#[cfg(feature = "aes")]
pub use fips197::aes;
#[cfg(feature = "null")]
pub use null_def::null;
#[cfg(feature = "cast5")]
pub use rfc2144::cast5;
#[cfg(feature = "cast6")]
pub use rfc2612::cast6;
#[cfg(feature = "crc32c")]
pub use rfc3720::crc32c;
