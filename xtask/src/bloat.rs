//! `cargo xtask bloat CIPHER [--variant V]`: cargo-bloat's per-function table
//! for each variant's artifact. cargo-bloat is installed into the target
//! directory on first use (`cargo install --root`).

pub fn run(_args: &[String]) -> crate::error::Result<()> {
    Err(crate::error::Error::failed("bloat: not built yet"))
}
