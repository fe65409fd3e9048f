//! CRC32C (Castagnoli), the checksum of iSCSI: [RFC 3720] section 12.1 and
//! Appendix B.4. Reflected polynomial 0x82F63B78, initial value and final
//! XOR 0xFFFFFFFF; `crc32c("123456789") = e3069283`.
//!
//! Three ways to compute the same function, each in the inline policies
//! where they make sense: a table per byte (`bytewise`), eight tables eight
//! bytes at a time (`slice8`), and the SSE4.2 `crc32` instruction (`sse42`,
//! detected at run time; it cannot be `#[inline(always)]`, which Rust
//! forbids on a function with `#[target_feature]`). Each is a `#[method]`
//! of one `crc32c` module, so every variant is `crc32c::<method>_<policy>`
//! (`crc32c::slice8_never`), holding `crc32c(data)`,
//! `crc32c_append(crc, data)`, `available()` and `try_crc32c(data)` (what
//! an artifact calls: `None` where the CPU lacks the method, not a panic).
//!
//! [RFC 3720]: https://www.rfc-editor.org/rfc/rfc3720

/// The reflected Castagnoli polynomial (RFC 3720 section B.4).
const POLY: u32 = 0x82f6_3b78;

/// The CRC of every byte, and of every byte followed by 1..7 zero bytes:
/// `TABLES[0][b]` is the reflected CRC of `b`; `TABLES[k][b]` that of `b`
/// then `k` zero bytes (slicing-by-8).
const fn tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut bit = 0;
        while bit < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            bit += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            i += 1;
        }
        k += 1;
    }
    t
}

#[cfg(target_arch = "x86_64")]
cpufeatures::new!(sse42_cpuid, "sse4.2");

/// Whether this CPU has SSE4.2's `crc32` instruction.
fn sse42_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        sse42_cpuid::get()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// CRC32C in every method and the inline policies that make sense for it:
/// `crc32c::bytewise_never`, `crc32c::slice8_auto`, `crc32c::sse42_auto`, ...
#[codegen::variants(
    checksum,
    reference = slice8_auto,
    // Measured by `compare` as one digest of the whole buffer; tcrypt
    // measures it with the hash template.
    entry(
        modes: [Digest: [0]],
        peers: [
            "crate" {
                label: "crc32c 0.6 (the crc32c crate: SSE4.2 where the CPU has it)",
                krate: crc32c,
                keyed: digest(crc32c_append),
            },
        ],
    )
)]
pub mod crc32c {
    use super::{sse42_available, tables};

    /// The tables of every method that uses them, once.
    static TABLES: [[u32; 256]; 8] = tables();

    /// The CRC32C of `data` appended to data whose CRC32C was `crc`.
    ///
    /// # Panics
    /// Where [`available`] is false (`sse42` on a CPU without SSE4.2).
    pub fn crc32c_append(crc: u32, data: &[u8]) -> u32 {
        try_crc32c_append(crc, data).expect("crc32c: this CPU cannot run this method")
    }

    /// The CRC32C of `data`.
    ///
    /// # Panics
    /// Where [`available`] is false.
    pub fn crc32c(data: &[u8]) -> u32 {
        crc32c_append(0, data)
    }

    /// The CRC32C of `data`, or `None` where [`available`] is false: no
    /// panic path, so no source location in an artifact.
    pub fn try_crc32c(data: &[u8]) -> Option<u32> {
        try_crc32c_append(0, data)
    }

    /// A table lookup per byte, the classic software CRC.
    #[method(always, never, auto)]
    mod bytewise {
        use super::TABLES;

        /// One byte into the (inverted) state.
        #[round]
        fn step(state: u32, byte: u8) -> u32 {
            (state >> 8) ^ TABLES[0][((state ^ u32::from(byte)) & 0xff) as usize]
        }

        /// Always available.
        pub fn available() -> bool {
            true
        }

        /// The CRC32C of `data` appended to data whose CRC32C was `crc`;
        /// always `Some`.
        pub fn try_crc32c_append(crc: u32, data: &[u8]) -> Option<u32> {
            Some(!data.iter().fold(!crc, |s, &b| step(s, b)))
        }
    }

    /// Slicing-by-8: eight table lookups consume eight bytes at once.
    #[method(always, never, auto)]
    mod slice8 {
        use super::TABLES;

        /// Eight bytes into the (inverted) state: the first four are folded
        /// into it, and each byte's contribution comes from the table for the
        /// number of bytes that follow it.
        #[round]
        fn step8(state: u32, chunk: &[u8; 8]) -> u32 {
            let s = state ^ u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            TABLES[7][(s & 0xff) as usize]
                ^ TABLES[6][((s >> 8) & 0xff) as usize]
                ^ TABLES[5][((s >> 16) & 0xff) as usize]
                ^ TABLES[4][(s >> 24) as usize]
                ^ TABLES[3][usize::from(chunk[4])]
                ^ TABLES[2][usize::from(chunk[5])]
                ^ TABLES[1][usize::from(chunk[6])]
                ^ TABLES[0][usize::from(chunk[7])]
        }

        /// Always available.
        pub fn available() -> bool {
            true
        }

        /// The CRC32C of `data` appended to data whose CRC32C was `crc`;
        /// always `Some`.
        pub fn try_crc32c_append(crc: u32, data: &[u8]) -> Option<u32> {
            let (chunks, tail) = data.as_chunks::<8>();
            let s = chunks.iter().fold(!crc, step8);
            Some(!tail.iter().fold(s, |s, &b| {
                (s >> 8) ^ TABLES[0][((s ^ u32::from(b)) & 0xff) as usize]
            }))
        }
    }

    /// The SSE4.2 `crc32` instruction, eight bytes at a time. Where the CPU
    /// lacks it, `available()` is false, `try_crc32c` is `None` and the other
    /// functions panic rather than fall back to another method: a report
    /// must not time a substitute.
    #[method(never, auto)]
    mod sse42 {
        use super::sse42_available;

        /// Eight bytes into the (inverted) state with one `crc32` instruction.
        #[round]
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "sse4.2")]
        fn step8(state: u32, chunk: &[u8; 8]) -> u32 {
            core::arch::x86_64::_mm_crc32_u64(u64::from(state), u64::from_le_bytes(*chunk)) as u32
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "sse4.2")]
        fn append(state: u32, data: &[u8]) -> u32 {
            let (chunks, tail) = data.as_chunks::<8>();
            let s = chunks.iter().fold(state, |s, c| step8(s, c));
            tail.iter()
                .fold(s, |s, &b| core::arch::x86_64::_mm_crc32_u8(s, b))
        }

        /// Whether this CPU has the instruction.
        pub fn available() -> bool {
            sse42_available()
        }

        /// The CRC32C of `data` appended to data whose CRC32C was `crc`, or
        /// `None` where [`available`] is false.
        pub fn try_crc32c_append(crc: u32, data: &[u8]) -> Option<u32> {
            #[cfg(target_arch = "x86_64")]
            if available() {
                // SAFETY: `append` needs SSE4.2, which `available()` has just
                // confirmed this CPU has.
                #[allow(unsafe_code)]
                let s = unsafe { append(!crc, data) };
                return Some(!s);
            }
            let _ = (crc, data);
            None
        }
    }
}
