//! CRC32C (Castagnoli), the checksum of iSCSI: [RFC 3720] section 12.1 and
//! Appendix B.4. Reflected polynomial 0x82F63B78, initial value and final
//! XOR 0xFFFFFFFF; `crc32c("123456789") = e3069283`.
//!
//! Four ways to compute the same function, each in the inline policies
//! where they make sense: a table per byte (`bytewise`), eight tables eight
//! bytes at a time (`slice8`), and the SSE4.2 `crc32` instruction on one
//! stream (`sse42`) or on three at once, joined (`sse42x3`); both detected
//! at run time, neither `#[inline(always)]`, which Rust forbids on a
//! function with `#[target_feature]`. Each is a `#[method]`
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

/// The operator that appends `n` zero bytes to a (reflected, inverted) CRC
/// state, as four byte tables. Appending is linear over GF(2): for data
/// `A || B`, `crc(s, A || B) = zeros(|B|)(crc(s, A)) ^ crc(0, B)`, which is
/// what lets independent streams be computed apart and joined.
///
/// ```text
/// for each bit i of the state:   column[i] = 1 << i, then |B| times:
///                                column[i] = (column[i] >> 8) ^ TABLES[0][column[i] & 0xff]
/// Z[j][b] = XOR of column[8j + k] for each bit k set in byte b
/// zeros(s) = Z[0][s & 0xff] ^ Z[1][(s >> 8) & 0xff] ^ Z[2][(s >> 16) & 0xff] ^ Z[3][s >> 24]
/// ```
const fn zeros(n: usize) -> [[u32; 256]; 4] {
    let t0 = tables()[0];
    let mut column = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        let mut c = 1u32 << i;
        let mut k = 0;
        while k < n {
            c = (c >> 8) ^ t0[(c & 0xff) as usize];
            k += 1;
        }
        column[i] = c;
        i += 1;
    }
    let mut z = [[0u32; 256]; 4];
    let mut j = 0;
    while j < 4 {
        let mut b = 0;
        while b < 256 {
            let mut v = 0;
            let mut k = 0;
            while k < 8 {
                if b & (1 << k) != 0 {
                    v ^= column[8 * j + k];
                }
                k += 1;
            }
            z[j][b] = v;
            b += 1;
        }
        j += 1;
    }
    z
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

/// `append` (an SSE4.2 method's, on the inverted state) from `crc`, or
/// `None` where this CPU lacks SSE4.2: the one place that runs an
/// SSE4.2 method's code.
#[cfg(target_arch = "x86_64")]
fn on_sse42(crc: u32, data: &[u8], append: unsafe fn(u32, &[u8]) -> u32) -> Option<u32> {
    if !sse42_available() {
        return None;
    }
    // SAFETY: every caller passes its method's `append`, a function
    // with `#[target_feature(enable = "sse4.2")]` and no other
    // requirement, and this CPU has SSE4.2.
    #[allow(unsafe_code)]
    let s = unsafe { append(!crc, data) };
    Some(!s)
}

/// CRC32C in every method and the inline policies that make sense for it:
/// `crc32c::bytewise_never`, `crc32c::slice8_auto`, `crc32c::sse42_auto`, ...
#[codegen::variants(
    checksum,
    reference = slice8_auto,
    // Measured by `compare` as one digest of the whole buffer; tcrypt
    // measures it with the hash template. No library peer: libgcrypt
    // 1.10's CRCs are CRC-32 (ISO 3309), RFC 1510's and RFC 2440's CRC-24,
    // and OpenSSL 3.0 has none; neither has CRC32C.
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
    #[cfg(target_arch = "x86_64")]
    use super::on_sse42;
    use super::{sse42_available, tables, zeros};

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
        #[cfg(target_arch = "x86_64")]
        use super::on_sse42;
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
            return on_sse42(crc, data, append);
            #[cfg(not(target_arch = "x86_64"))]
            {
                let _ = (crc, data);
                None
            }
        }
    }
    /// The bytes each of the three streams of one long round takes.
    const LONG: usize = 1024;
    /// The bytes each of the three streams of one short round takes.
    const SHORT: usize = 64;
    /// Appending [`LONG`] and [`SHORT`] zero bytes.
    static ZEROS_LONG: [[u32; 256]; 4] = zeros(LONG);
    static ZEROS_SHORT: [[u32; 256]; 4] = zeros(SHORT);

    /// The SSE4.2 `crc32` instruction on three independent streams at once:
    /// its latency is about three times its issue interval, so one stream
    /// leaves the unit idle two cycles in three. A buffer is cut into rounds
    /// of three equal parts (`LONG` bytes each while the buffer lasts,
    /// then `SHORT`), each part's CRC computed from zero beside the others,
    /// and the three joined with the zero-append operator ([`zeros`]):
    ///
    /// ```text
    /// a = crc(s, part 1); b = crc(0, part 2); c = crc(0, part 3)
    /// s = zeros(n)(zeros(n)(a) ^ b) ^ c
    /// ```
    ///
    /// What is left (under three `SHORT` parts) goes through one stream.
    /// Where the CPU lacks the instruction it is unavailable, like `sse42`.
    #[method(never, auto)]
    mod sse42x3 {
        #[cfg(target_arch = "x86_64")]
        use super::on_sse42;
        use super::{LONG, SHORT, ZEROS_LONG, ZEROS_SHORT, sse42_available};

        /// Eight bytes of each stream into its (inverted) state: three
        /// `crc32` instructions, none waiting for another.
        #[round]
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "sse4.2")]
        fn step8x3(s: [u32; 3], chunks: [&[u8; 8]; 3]) -> [u32; 3] {
            use core::arch::x86_64::_mm_crc32_u64;
            let word = |k: usize| u64::from_le_bytes(*chunks[k]);
            [
                _mm_crc32_u64(u64::from(s[0]), word(0)) as u32,
                _mm_crc32_u64(u64::from(s[1]), word(1)) as u32,
                _mm_crc32_u64(u64::from(s[2]), word(2)) as u32,
            ]
        }

        /// `s` after as many zero bytes as `z` appends.
        fn shift(z: &[[u32; 256]; 4], s: u32) -> u32 {
            z[0][(s & 0xff) as usize]
                ^ z[1][((s >> 8) & 0xff) as usize]
                ^ z[2][((s >> 16) & 0xff) as usize]
                ^ z[3][(s >> 24) as usize]
        }

        /// Rounds of three `part`-byte streams while `words` holds one, `z`
        /// appending `part` zero bytes; returns the state and what is left.
        /// A buffer too short for one round does not call [`run_rounds`].
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "sse4.2")]
        fn rounds<'a>(
            s: u32,
            words: &'a [[u8; 8]],
            part: usize,
            z: &[[u32; 256]; 4],
        ) -> (u32, &'a [[u8; 8]]) {
            if words.len() < 3 * (part / 8) {
                return (s, words);
            }
            run_rounds(s, words, part, z)
        }

        /// [`rounds`], never inlined: inlined, `part` is a constant, the
        /// compiler unrolls a round's loop whole and then emits the first
        /// stream's `crc32` chain before the other two, and a core whose
        /// scheduler for that port holds fewer entries than the chain (AMD
        /// Zen 3) runs the streams one after another. As a loop of unknown
        /// length each step keeps its three instructions together.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "sse4.2")]
        #[inline(never)]
        fn run_rounds<'a>(
            mut s: u32,
            mut words: &'a [[u8; 8]],
            part: usize,
            z: &[[u32; 256]; 4],
        ) -> (u32, &'a [[u8; 8]]) {
            let n = part / 8;
            while let Some((round, rest)) = words.split_at_checked(3 * n) {
                let (a, bc) = round.split_at(n);
                let (b, c) = bc.split_at(n);
                let mut st = [s, 0, 0];
                for k in 0..n {
                    st = step8x3(st, [&a[k], &b[k], &c[k]]);
                }
                s = shift(z, shift(z, st[0]) ^ st[1]) ^ st[2];
                words = rest;
            }
            (s, words)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "sse4.2")]
        fn append(state: u32, data: &[u8]) -> u32 {
            use core::arch::x86_64::{_mm_crc32_u8, _mm_crc32_u64};
            let (words, tail) = data.as_chunks::<8>();
            let (s, words) = rounds(state, words, LONG, &ZEROS_LONG);
            let (s, words) = rounds(s, words, SHORT, &ZEROS_SHORT);
            let s = (words.iter())
                .fold(s, |s, w| _mm_crc32_u64(u64::from(s), u64::from_le_bytes(*w)) as u32);
            tail.iter().fold(s, |s, &b| _mm_crc32_u8(s, b))
        }

        /// Whether this CPU has the instruction.
        pub fn available() -> bool {
            sse42_available()
        }

        /// The CRC32C of `data` appended to data whose CRC32C was `crc`, or
        /// `None` where [`available`] is false.
        pub fn try_crc32c_append(crc: u32, data: &[u8]) -> Option<u32> {
            #[cfg(target_arch = "x86_64")]
            return on_sse42(crc, data, append);
            #[cfg(not(target_arch = "x86_64"))]
            {
                let _ = (crc, data);
                None
            }
        }
    }
}
