//! An operation kept where the source wrote it. LLVM re-associates a chain
//! of XORs by its own ranking of the operands, not by when each is ready:
//! Blowfish's `(xR ^ Pi+1) ^ F(xL)` came out as `(F(xL) ^ Pi+1) ^ xR`,
//! both XORs after F on the round's chain. [`pinned`] hands a value through
//! an empty `asm!` that LLVM cannot see into, so the XOR that made it is
//! not merged into the one that uses it.

/// `x`, unchanged, opaque to LLVM's re-association (an empty `asm!` on the
/// targets that have it; `x` itself elsewhere).
#[inline(always)]
pub(crate) fn pinned(mut x: u32) -> u32 {
    #[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
    #[allow(unsafe_code)]
    // SAFETY: the template is a comment: it reads and writes only `x`'s
    // register and touches no memory, stack or flags (as its options say).
    unsafe {
        core::arch::asm!("/* {0:e} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    #[cfg(target_arch = "aarch64")]
    #[allow(unsafe_code)]
    // SAFETY: as above.
    unsafe {
        core::arch::asm!("/* {0:w} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}
