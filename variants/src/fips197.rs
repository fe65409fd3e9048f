//! AES, [FIPS-197], three ways: with "T-tables", the classic software
//! design the kernel's `aes_generic` uses, on the AES-NI instructions, a
//! round each, and on VAES, the same rounds on two blocks a register (the
//! loop-AES question of the seeds, today: the hardware against the
//! tables). Every table is computed at
//! compile time from the standard's definitions (section 5.1.1 for the
//! S-box, 4.2 for multiplication in GF(2^8)), so none is typed in by hand.
//!
//! [FIPS-197]: https://csrc.nist.gov/pubs/fips/197/final

/// Multiplication by `x` in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1
/// (FIPS-197 section 4.2.1, `xtime`).
const fn xtime(b: u8) -> u8 {
    (b << 1) ^ if b & 0x80 != 0 { 0x1b } else { 0 }
}

/// Multiplication in GF(2^8) (FIPS-197 section 4.2).
const fn gmul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        a = xtime(a);
        b >>= 1;
    }
    p
}

/// FIPS-197 section 5.1.1: the S-box is the multiplicative inverse in
/// GF(2^8) (0 maps to 0) followed by the affine transformation
/// `b'_i = b_i ^ b_(i+4) ^ b_(i+5) ^ b_(i+6) ^ b_(i+7) ^ c_i`, c = 0x63.
/// The inverses are found by walking the powers of the generator 3 and of
/// its inverse together.
const fn sbox() -> [u8; 256] {
    let mut s = [0u8; 256];
    let (mut p, mut q) = (1u8, 1u8);
    loop {
        p = p ^ xtime(p); // p * 3
        q ^= q << 1; // q / 3
        q ^= q << 2;
        q ^= q << 4;
        if q & 0x80 != 0 {
            q ^= 0x09;
        }
        let affine = q ^ q.rotate_left(1) ^ q.rotate_left(2) ^ q.rotate_left(3) ^ q.rotate_left(4);
        s[p as usize] = affine ^ 0x63;
        if p == 1 {
            break;
        }
    }
    s[0] = 0x63;
    s
}

const fn inverse(s: &[u8; 256]) -> [u8; 256] {
    let mut inv = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        inv[s[i] as usize] = i as u8;
        i += 1;
    }
    inv
}

/// A T-table: for each byte, `box` applied and the column `coefficients`
/// multiplied in, as a big-endian word, rotated right by `rot` bytes.
const fn table(sbox: &[u8; 256], coefficients: [u8; 4], rot: u32) -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let s = sbox[i];
        let w = u32::from_be_bytes([
            gmul(s, coefficients[0]),
            gmul(s, coefficients[1]),
            gmul(s, coefficients[2]),
            gmul(s, coefficients[3]),
        ]);
        t[i] = w.rotate_right(8 * rot);
        i += 1;
    }
    t
}

/// FIPS-197 Figure 7, the S-box.
static SBOX: [u8; 256] = sbox();
/// FIPS-197 Figure 14, the inverse S-box.
static INV_SBOX: [u8; 256] = inverse(&sbox());
/// SubBytes and MixColumns (section 5.1.3, column {02, 01, 01, 03}) in one
/// lookup per byte: Te0..Te3.
static TE: [[u32; 256]; 4] = {
    let c = [2, 1, 1, 3];
    [
        table(&SBOX, c, 0),
        table(&SBOX, c, 1),
        table(&SBOX, c, 2),
        table(&SBOX, c, 3),
    ]
};
/// InvSubBytes and InvMixColumns (section 5.3.3, column {0e, 09, 0d, 0b}):
/// Td0..Td3.
static TD: [[u32; 256]; 4] = {
    let c = [0x0e, 0x09, 0x0d, 0x0b];
    let s = inverse(&sbox());
    [
        table(&s, c, 0),
        table(&s, c, 1),
        table(&s, c, 2),
        table(&s, c, 3),
    ]
};

/// Nr, the number of rounds, for each key length (FIPS-197 Figure 4:
/// Nr = Nk + 6 for a key of Nk 32-bit words). An enum, so that the
/// compiler knows Nr is at most 14 and the round keys `0..=Nr` are in
/// range without a bounds check (a panic path) in the rounds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rounds {
    /// AES-128, Nk = 4.
    Ten = 10,
    /// AES-192, Nk = 6.
    Twelve = 12,
    /// AES-256, Nk = 8.
    Fourteen = 14,
}

impl Rounds {
    /// Nr.
    const fn nr(self) -> usize {
        self as usize
    }

    /// Nk, the key's length in 32-bit words.
    const fn nk(self) -> usize {
        self.nr() - 6
    }

    /// The key's length in bytes.
    const fn key_len(self) -> usize {
        4 * self.nk()
    }

    /// The rounds of a key of `len` bytes, if AES takes one that long.
    fn of_key(len: usize) -> Option<Rounds> {
        [Rounds::Ten, Rounds::Twelve, Rounds::Fourteen]
            .into_iter()
            .find(|r| r.key_len() == len)
    }
}

/// FIPS-197 section 5.2, KeyExpansion, into `w` (the words `0..4*(Nr+1)`):
///
/// ```text
/// w[i] = key word i, for i < Nk
/// for i = Nk .. 4*(Nr+1)-1:
///     temp = w[i-1]
///     if i mod Nk = 0:            temp = SubWord(RotWord(temp)) xor Rcon[i/Nk]
///     else if Nk > 6, i mod Nk = 4: temp = SubWord(temp)
///     w[i] = w[i-Nk] xor temp
/// ```
///
/// `key` is `rounds.key_len()` bytes long (a longer one is cut there, a
/// shorter one padded with zero words). The caller zeroizes `w`.
fn key_expansion(key: &[u8], rounds: Rounds, w: &mut [u32; 60]) {
    let nk = rounds.nk();
    let total = 4 * (rounds.nr() + 1);
    for (wi, chunk) in w.iter_mut().zip(key.as_chunks::<4>().0).take(nk) {
        *wi = u32::from_be_bytes(*chunk);
    }
    let sub_word = |x: u32| {
        let [a, b, c, d] = x.to_be_bytes();
        u32::from_be_bytes([
            SBOX[usize::from(a)],
            SBOX[usize::from(b)],
            SBOX[usize::from(c)],
            SBOX[usize::from(d)],
        ])
    };
    let mut rcon = 1u8;
    // `i mod Nk` kept as a counter: Nk is known only at run time, and a
    // division per word would cost more than the rest of the word's work.
    let mut j = 0;
    // `total` is at most 60 and `nk` at least 4: every index is in range,
    // as the compiler sees from `Rounds`.
    for i in nk..total {
        let mut temp = w[i - 1];
        if j == 0 {
            temp = sub_word(temp.rotate_left(8)) ^ (u32::from(rcon) << 24);
            rcon = xtime(rcon);
        } else if nk > 6 && j == 4 {
            temp = sub_word(temp);
        }
        w[i] = w[i - nk] ^ temp;
        j = if j + 1 == nk { 0 } else { j + 1 };
    }
}

#[cfg(target_arch = "x86_64")]
cpufeatures::new!(aes_cpuid, "aes");
#[cfg(target_arch = "x86_64")]
cpufeatures::new!(aes_avx2_cpuid, "aes", "avx2");

/// Whether this CPU has the AES-NI instructions.
fn aesni_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        aes_cpuid::get()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The AES key schedule as the AES-NI instructions take it, shared by the
/// forms that run them (`aesni`, `vaes`): FIPS-197's KeyExpansion words,
/// each word's bytes in order, four words a round key, expanded with
/// `aeskeygenassist`, and the decryption keys of the equivalent inverse
/// cipher made with `aesimc`.
#[cfg(target_arch = "x86_64")]
mod ni {
    use super::Rounds;
    use core::arch::x86_64::{
        __m128i, _mm_aesimc_si128, _mm_aeskeygenassist_si128, _mm_castpd_si128, _mm_castsi128_pd,
        _mm_loadu_si128, _mm_set_epi64x, _mm_setzero_si128, _mm_shuffle_epi32, _mm_shuffle_pd,
        _mm_slli_si128, _mm_storeu_si128, _mm_unpacklo_epi64, _mm_xor_si128,
    };
    use zeroize::Zeroize;

    /// A key of 16, 24 or 32 bytes expanded for `Nr` rounds: 15
    /// encryption and 15 decryption round keys whatever the key size,
    /// `Nr + 1` of each used. Its owner zeroizes it when dropped
    /// ([`Schedule::wipe`], through `cipher_traits!`'s `zeroize`).
    #[derive(Clone)]
    pub(super) struct Schedule {
        /// Encryption round keys.
        pub(super) ek: [__m128i; 15],
        /// Decryption round keys of the equivalent inverse cipher.
        pub(super) dk: [__m128i; 15],
        /// Nr: 10, 12 or 14.
        pub(super) rounds: Rounds,
    }

    impl Schedule {
        /// FIPS-197 section 5.2, KeyExpansion, on AES-NI ([`expand128`],
        /// [`expand192`], [`expand256`]), and, for decryption,
        /// InvMixColumns (`aesimc`) of all but the first and last round
        /// keys, in reverse order (section 5.3.5, [`invert`]). `key` is
        /// `rounds.key_len()` bytes long (a longer one is cut there, a
        /// shorter one read as zeros).
        ///
        /// `runs` is the caller's `available()`: whether this CPU has every
        /// instruction its form runs.
        ///
        /// # Aborts
        /// Where `runs` is false or this CPU lacks AES-NI, with a trap
        /// (`ud2`, SIGILL), as `core::intrinsics::abort` does, before any
        /// AES-NI instruction: not a panic, whose message would embed a
        /// source location in every artifact (`verify` refuses those), and
        /// never undefined behaviour.
        #[inline]
        pub(super) fn new(key: &[u8], rounds: Rounds, runs: bool) -> Schedule {
            if !runs || !super::aesni_available() {
                // SAFETY: `ud2` raises an invalid-opcode trap and
                // returns nowhere; it reads and writes no memory.
                #[allow(unsafe_code)]
                unsafe {
                    core::arch::asm!("ud2", options(noreturn, nomem, nostack));
                }
            }
            // SAFETY: `expand` needs AES-NI, and this CPU has it (checked
            // above).
            #[allow(unsafe_code)]
            unsafe {
                Schedule::expand(key, rounds)
            }
        }

        /// The key's words straight from its bytes into registers: no
        /// copy of the key left in memory to zeroize. Built where it is
        /// returned (one value, written in place): no copy of the schedule
        /// to move or leave behind.
        #[target_feature(enable = "aes")]
        fn expand(key: &[u8], rounds: Rounds) -> Schedule {
            let zero = _mm_setzero_si128();
            let mut k = Schedule {
                ek: [zero; 15],
                dk: [zero; 15],
                rounds,
            };
            let lo = key.first_chunk::<16>().map_or(zero, load);
            let rest = key.get(16..).unwrap_or_default();
            let hi = match rest.first_chunk::<16>() {
                Some(hi) if rounds == Rounds::Fourteen => load(hi),
                _ => rest
                    .first_chunk::<8>()
                    .map_or(zero, |h| _mm_set_epi64x(0, i64::from_le_bytes(*h))),
            };
            match rounds {
                Rounds::Ten => {
                    expand128(lo, &mut k.ek);
                    invert::<10>(&k.ek, &mut k.dk);
                }
                Rounds::Twelve => {
                    expand192(lo, hi, &mut k.ek);
                    invert::<12>(&k.ek, &mut k.dk);
                }
                Rounds::Fourteen => {
                    expand256(lo, hi, &mut k.ek);
                    invert::<14>(&k.ek, &mut k.dk);
                }
            }
            k
        }

        /// The round keys, zeroized.
        pub(super) fn wipe(&mut self) {
            self.ek.zeroize();
            self.dk.zeroize();
        }
    }

    /// The decryption keys of the equivalent inverse cipher (FIPS-197
    /// section 5.3.5) from the `NR + 1` encryption keys: reversed, and
    /// InvMixColumns (`aesimc`) applied to all but the two ends.
    ///
    /// ```text
    /// dk[0] = ek[Nr];  dk[r] = InvMixColumns(ek[Nr - r]), 0 < r < Nr;  dk[Nr] = ek[0]
    /// ```
    #[target_feature(enable = "aes")]
    fn invert<const NR: usize>(ek: &[__m128i; 15], dk: &mut [__m128i; 15]) {
        dk[0] = ek[NR];
        for r in 1..NR {
            dk[r] = _mm_aesimc_si128(ek[NR - r]);
        }
        dk[NR] = ek[0];
    }

    /// `x`'s words each XORed with every word below it,
    /// `[x0, x0^x1, x0^x1^x2, x0^x1^x2^x3]` (lowest first): the chain
    /// `w[i] = w[i-Nk] ^ w[i-1]` run along four words at once.
    #[target_feature(enable = "aes")]
    fn prefix_xor(x: __m128i) -> __m128i {
        let x = _mm_xor_si128(x, _mm_slli_si128::<4>(x));
        _mm_xor_si128(x, _mm_slli_si128::<8>(x))
    }

    /// Four words of KeyExpansion (FIPS-197 section 5.2) from the four
    /// `Nk` words before them, `prev`, and `temp` made from `last`:
    /// `aeskeygenassist` holds `SubWord(RotWord(last_1)) ^ Rcon` in its
    /// second word and `SubWord(last_2)`, `SubWord(RotWord(last_3)) ^
    /// Rcon` in its third and fourth; `PICK` broadcasts one of them.
    ///
    /// ```text
    /// next(prev, last) = prefix_xor(prev) ^ [temp, temp, temp, temp]
    /// ```
    #[target_feature(enable = "aes")]
    fn next<const RCON: i32, const PICK: i32>(prev: __m128i, last: __m128i) -> __m128i {
        let temp = _mm_shuffle_epi32::<PICK>(_mm_aeskeygenassist_si128::<RCON>(last));
        _mm_xor_si128(prefix_xor(prev), temp)
    }

    /// AES-128 (Nk = 4): each round key is one step,
    /// `SubWord(RotWord(w[i-1])) ^ Rcon` at its first word.
    #[target_feature(enable = "aes")]
    fn expand128(key: __m128i, ek: &mut [__m128i; 15]) {
        let mut k = key;
        ek[0] = k;
        macro_rules! steps {
            ($($i:literal: $rcon:literal),*) => {$(
                k = next::<$rcon, 0xff>(k, k);
                ek[$i] = k;
            )*};
        }
        steps!(1: 0x01, 2: 0x02, 3: 0x04, 4: 0x08, 5: 0x10, 6: 0x20, 7: 0x40, 8: 0x80, 9: 0x1b, 10: 0x36);
    }

    /// AES-256 (Nk = 8): round keys in pairs, the first with
    /// `SubWord(RotWord(.)) ^ Rcon`, the second with `SubWord(.)`
    /// (`i mod Nk = 4`).
    #[target_feature(enable = "aes")]
    fn expand256(lo: __m128i, hi: __m128i, ek: &mut [__m128i; 15]) {
        let (mut a, mut b) = (lo, hi);
        ek[0] = a;
        ek[1] = b;
        macro_rules! steps {
            ($($i:literal: $rcon:literal),*) => {$(
                a = next::<$rcon, 0xff>(a, b);
                ek[$i] = a;
                b = next::<0, 0xaa>(b, a);
                ek[$i + 1] = b;
            )*};
        }
        steps!(2: 0x01, 4: 0x02, 6: 0x04, 8: 0x08, 10: 0x10, 12: 0x20);
        ek[14] = next::<0x40, 0xff>(a, b);
    }

    /// AES-192 (Nk = 6): a step makes six words, four in `a` and two
    /// in the low half of `b`; round keys are four words, so every
    /// two steps give three of them.
    ///
    /// ```text
    /// a' = prefix_xor(a) ^ [t, t, t, t], t = SubWord(RotWord(b_1)) ^ Rcon
    /// b' = [b_0 ^ a'_3, b_0 ^ b_1 ^ a'_3]
    /// round keys: a_0, [b_0 a_1.lo], [a_1.hi b_1], a_2, [b_2 a_3.lo], ...
    /// ```
    #[target_feature(enable = "aes")]
    // The last step's `b` is past the 52nd word: made, never read.
    #[allow(unused_assignments)]
    fn expand192(lo: __m128i, hi: __m128i, ek: &mut [__m128i; 15]) {
        let (mut a, mut b) = (lo, hi);
        ek[0] = a;
        macro_rules! step {
            ($rcon:literal) => {
                a = next::<$rcon, 0x55>(a, b);
                b = _mm_xor_si128(
                    _mm_xor_si128(b, _mm_slli_si128::<4>(b)),
                    _mm_shuffle_epi32::<0xff>(a),
                );
            };
        }
        // `[x.hi, y.lo]`, in 64-bit halves.
        let across = |x: __m128i, y: __m128i| {
            _mm_castpd_si128(_mm_shuffle_pd::<1>(_mm_castsi128_pd(x), _mm_castsi128_pd(y)))
        };
        macro_rules! pairs {
            ($($i:literal: $r1:literal $r2:literal),*) => {$(
                let before = b;
                step!($r1);
                ek[$i] = _mm_unpacklo_epi64(before, a);
                ek[$i + 1] = across(a, b);
                step!($r2);
                ek[$i + 2] = a;
            )*};
        }
        pairs!(1: 0x01 0x02, 4: 0x04 0x08, 7: 0x10 0x20, 10: 0x40 0x80);
    }

    /// A block as the instructions take it.
    #[inline]
    pub(super) fn load(block: &[u8; 16]) -> __m128i {
        // SAFETY: `block` is 16 readable bytes, and `loadu` takes any
        // alignment; SSE2 is in every x86-64 CPU.
        #[allow(unsafe_code)]
        unsafe {
            _mm_loadu_si128(block.as_ptr().cast())
        }
    }

    #[inline]
    pub(super) fn store(s: &__m128i, block: &mut [u8; 16]) {
        // SAFETY: `block` is 16 writable bytes, and `storeu` takes any
        // alignment; SSE2 is in every x86-64 CPU.
        #[allow(unsafe_code)]
        unsafe {
            _mm_storeu_si128(block.as_mut_ptr().cast(), *s)
        }
    }
}

/// Whether this CPU has VAES on 256-bit registers, and AVX2 and AES-NI:
/// CPUID leaf 7's ECX bit 9 beside `cpufeatures`' `aes` and `avx2` (which
/// check that the OS keeps the YMM registers). Not `cpufeatures`' `vaes`,
/// which asks for the AVX-512 (ZMM) state too and so says no where VAES
/// runs on 256-bit registers only (AMD Zen 3). Asked once, then cached.
fn vaes_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use core::sync::atomic::{AtomicU8, Ordering};
        /// 0 or 1 once asked.
        static VAES: AtomicU8 = AtomicU8::new(u8::MAX);
        match VAES.load(Ordering::Relaxed) {
            u8::MAX => {
                // Leaf 7 exists where AVX2 does (its flag is in leaf 7).
                let has = aes_avx2_cpuid::get()
                    && core::arch::x86_64::__cpuid_count(7, 0).ecx & (1 << 9) != 0;
                VAES.store(u8::from(has), Ordering::Relaxed);
                has
            }
            known => known == 1,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// AES in every variant: `aes::tables_never::{Aes, Aes128, Aes192, Aes256}`,
/// `aes::aesni_auto_x8::Aes` and so on. Three ways to compute it, each a
/// `#[method]`, each crossed with the axes it can take:
///
/// - `tables`: the T-table rounds (FIPS-197 section 5.1.3's lookup form),
///   in plain Rust, on any CPU;
/// - `aesni`: the AES-NI instructions, one per round (`aesenc`,
///   `aesenclast`, `aesdec`, `aesdeclast`, `aesimc` for the decryption
///   keys), where the CPU has them: key setup checks, and `available()`
///   says whether it would pass;
/// - `vaes`: the same instructions on 256-bit registers, two blocks in
///   each, where the CPU has VAES and AVX2, checked the same way.
///
/// The axes:
/// - the inline policy of the round functions (a full round and the last
///   round, each way): `never` and `auto` for `tables` (`always` and
///   `hint` built to the same code as `auto`, which inlines all four);
///   `never`, `hint` and `auto` for the hardware forms, whose
///   `#[target_feature]` rounds Rust refuses `always`;
/// - lanes, blocks encrypted together round by round (`x2`...), through
///   `cipher`'s parallel blocks (`ParBlocksSize`);
/// - the loop over the nine rounds every key size has as written or
///   unrolled (`unrolled`); the 0, 2 or 4 more rounds of longer keys stay
///   a loop, their count known only at run time.
///
/// The reference is `tables_auto`, one lane, rolled: the kernel's generic
/// C in Rust.
#[codegen::variants(
    cipher = Aes,
    reference = tables_auto,
    // tcrypt speed mode 200.
    entry(
        modes: [Ecb: [16, 24, 32], Cbc: [16, 24, 32], Ctr: [16, 24, 32], Xts: [32, 64]],
        peers: [
            "rustcrypto" {
                label: "aes 0.9 (RustCrypto, AES-NI where the CPU has it)",
                krate: aes,
                keyed: by_length(16 => Aes128, 24 => Aes192, 32 => Aes256),
                builds: [
                    "rustcrypto-soft" {
                        label: "aes 0.9 (RustCrypto, software backend)",
                        rustflags: "--cfg aes_backend=\"soft\"",
                    },
                    "rustcrypto-zeroize" {
                        label: "aes 0.9 (RustCrypto, AES-NI, its zeroize feature on)",
                        features: ["zeroize"],
                    },
                ],
            },
        ],
        libraries: [
            "libgcrypt" {
                label: "libgcrypt (the system's, AES-NI and VAES where the CPU has them; sizes with the whole library)",
                library: libgcrypt,
                algorithm: by_length(16 => "AES", 24 => "AES192", 32 => "AES256"),
            },
            "openssl" {
                label: "OpenSSL libcrypto (the system's, AES-NI and VAES where the CPU has them; sizes with the whole library)",
                library: openssl,
                algorithm: by_length(16 => "AES-128", 24 => "AES-192", 32 => "AES-256"),
            },
        ],
    )
)]
pub mod aes {
    use super::{Rounds, key_expansion};
    use cipher::InvalidLength;
    use cipher::consts::{U16, U24, U32};

    /// Key sizes FIPS-197 defines, in bytes (AES-128, AES-192, AES-256).
    pub const KEY_SIZES: [usize; 3] = [
        Rounds::Ten.key_len(),
        Rounds::Twelve.key_len(),
        Rounds::Fourteen.key_len(),
    ];

    /// The T-table rounds, the classic software design.
    #[method(policy(never, auto), lanes(1, 2, 3, 4, 8), unroll(rolled, unrolled))]
    mod tables {
        use super::super::{INV_SBOX, SBOX, TD, TE};
        use super::{Rounds, key_expansion};
        use crate::traits::wipe;
        use zeroize::Zeroize;

        fn byte(w: u32, n: u32) -> usize {
            ((w >> (24 - 8 * n)) & 0xff) as usize
        }

        /// One round (FIPS-197 section 5.1): SubBytes, ShiftRows, MixColumns and
        /// AddRoundKey, a T-table lookup per byte:
        ///
        /// ```text
        /// t_c = Te0[s_c >> 24] ^ Te1[s_(c+1) >> 16] ^ Te2[s_(c+2) >> 8] ^ Te3[s_(c+3)] ^ rk_c
        /// ```
        #[round]
        fn round(s: [u32; 4], rk: &[u32; 4]) -> [u32; 4] {
            core::array::from_fn(|c| {
                TE[0][byte(s[c], 0)]
                    ^ TE[1][byte(s[(c + 1) % 4], 1)]
                    ^ TE[2][byte(s[(c + 2) % 4], 2)]
                    ^ TE[3][byte(s[(c + 3) % 4], 3)]
                    ^ rk[c]
            })
        }

        /// The last round (section 5.1): SubBytes, ShiftRows, AddRoundKey; no
        /// MixColumns.
        #[round]
        fn last_round(s: [u32; 4], rk: &[u32; 4]) -> [u32; 4] {
            core::array::from_fn(|c| {
                u32::from_be_bytes([
                    SBOX[byte(s[c], 0)],
                    SBOX[byte(s[(c + 1) % 4], 1)],
                    SBOX[byte(s[(c + 2) % 4], 2)],
                    SBOX[byte(s[(c + 3) % 4], 3)],
                ]) ^ rk[c]
            })
        }

        /// One round of the equivalent inverse cipher (section 5.3.5):
        /// InvSubBytes, InvShiftRows, InvMixColumns and AddRoundKey with a
        /// decryption key:
        ///
        /// ```text
        /// t_c = Td0[s_c >> 24] ^ Td1[s_(c+3) >> 16] ^ Td2[s_(c+2) >> 8] ^ Td3[s_(c+1)] ^ dk_c
        /// ```
        #[round]
        fn inv_round(s: [u32; 4], dk: &[u32; 4]) -> [u32; 4] {
            core::array::from_fn(|c| {
                TD[0][byte(s[c], 0)]
                    ^ TD[1][byte(s[(c + 3) % 4], 1)]
                    ^ TD[2][byte(s[(c + 2) % 4], 2)]
                    ^ TD[3][byte(s[(c + 1) % 4], 3)]
                    ^ dk[c]
            })
        }

        /// The last round of the inverse cipher: InvSubBytes, InvShiftRows,
        /// AddRoundKey.
        #[round]
        fn inv_last_round(s: [u32; 4], dk: &[u32; 4]) -> [u32; 4] {
            core::array::from_fn(|c| {
                u32::from_be_bytes([
                    INV_SBOX[byte(s[c], 0)],
                    INV_SBOX[byte(s[(c + 3) % 4], 1)],
                    INV_SBOX[byte(s[(c + 2) % 4], 2)],
                    INV_SBOX[byte(s[(c + 1) % 4], 3)],
                ]) ^ dk[c]
            })
        }

        /// AES with the key size chosen at run time, like the kernel's generic
        /// AES: a key of 16, 24 or 32 bytes, its schedule as FIPS-197's words.
        /// The key schedule is zeroized when the value is dropped.
        #[derive(Clone)]
        pub struct Aes {
            /// Encryption round keys, `Nr + 1` of them used.
            ek: [[u32; 4]; 15],
            /// Decryption round keys of the equivalent inverse cipher.
            dk: [[u32; 4]; 15],
            /// Nr: 10, 12 or 14.
            rounds: Rounds,
        }

        impl Aes {
            /// FIPS-197 section 5.2, KeyExpansion ([`key_expansion`]), and
            /// section 5.3.5 for the equivalent inverse cipher's keys:
            ///
            /// ```text
            /// dw: the round keys in reverse order, InvMixColumns applied to
            ///     all but the first and last
            /// ```
            fn expand(key: &[u8], rounds: Rounds) -> Aes {
                let mut w = [0u32; 60];
                key_expansion(key, rounds, &mut w);
                let mut ek = [[0u32; 4]; 15];
                for (rk, words) in ek.iter_mut().zip(w.as_chunks::<4>().0) {
                    *rk = *words;
                }
                // InvMixColumns of a word: Td[k][S[b]] undoes the S-box inside Td.
                let inv_mix = |x: u32| {
                    let [a, b, c, d] = x.to_be_bytes();
                    TD[0][usize::from(SBOX[usize::from(a)])]
                        ^ TD[1][usize::from(SBOX[usize::from(b)])]
                        ^ TD[2][usize::from(SBOX[usize::from(c)])]
                        ^ TD[3][usize::from(SBOX[usize::from(d)])]
                };
                let mut dk = [[0u32; 4]; 15];
                let used = rounds.nr() + 1;
                let reversed = ek.iter().take(used).rev();
                for (r, (d, src)) in dk.iter_mut().zip(reversed).enumerate() {
                    *d = if r == 0 || r == rounds.nr() {
                        *src
                    } else {
                        src.map(inv_mix)
                    };
                }
                wipe(&mut w);
                Aes { ek, dk, rounds }
            }

            /// FIPS-197 section 5.1, Cipher(), on the state's four columns:
            /// AddRoundKey, `Nr - 1` rounds (9 for every key size, then 2 or 4
            /// more for 192- and 256-bit keys), the last round.
            #[lanes]
            fn encrypt_state(&self, #[lane] s: &mut [u32; 4]) {
                for (x, k) in s.iter_mut().zip(&self.ek[0]) {
                    *x ^= k;
                }
                #[unroll]
                for r in 1..10 {
                    *s = round(*s, &self.ek[r]);
                }
                for rk in &self.ek[10..self.rounds.nr()] {
                    *s = round(*s, rk);
                }
                *s = last_round(*s, &self.ek[self.rounds.nr()]);
            }

            /// FIPS-197 section 5.3.5, EqInvCipher(), with the decryption keys.
            #[lanes]
            fn decrypt_state(&self, #[lane] s: &mut [u32; 4]) {
                for (x, k) in s.iter_mut().zip(&self.dk[0]) {
                    *x ^= k;
                }
                #[unroll]
                for r in 1..10 {
                    *s = inv_round(*s, &self.dk[r]);
                }
                for dk in &self.dk[10..self.rounds.nr()] {
                    *s = inv_round(*s, dk);
                }
                *s = inv_last_round(*s, &self.dk[self.rounds.nr()]);
            }
        }

        fn load(block: &[u8; 16]) -> [u32; 4] {
            core::array::from_fn(|c| {
                u32::from_be_bytes([
                    block[4 * c],
                    block[4 * c + 1],
                    block[4 * c + 2],
                    block[4 * c + 3],
                ])
            })
        }

        fn store(s: &[u32; 4], block: &mut [u8; 16]) {
            for (bytes, word) in block.chunks_exact_mut(4).zip(s) {
                bytes.copy_from_slice(&word.to_be_bytes());
            }
        }

        /// Always available.
        pub fn available() -> bool {
            true
        }

        impl Aes {
            /// The key schedule, zeroized (on drop).
            fn wipe(&mut self) {
                // Flat: one fill each, not one per row.
                self.ek.as_flattened_mut().zeroize();
                self.dk.as_flattened_mut().zeroize();
            }
        }

        aes_traits!();
    }

    /// The AES-NI instructions (Intel's white paper "Advanced Encryption
    /// Standard (AES) New Instructions Set", 2010), a round each:
    ///
    /// ```text
    /// aesenc(s, k)     = MixColumns(ShiftRows(SubBytes(s))) ^ k
    /// aesenclast(s, k) = ShiftRows(SubBytes(s)) ^ k
    /// aesdec, aesdeclast: the rounds of the equivalent inverse cipher
    /// aesimc(k)        = InvMixColumns(k), its decryption keys
    /// ```
    ///
    /// The round keys are FIPS-197's KeyExpansion words as the
    /// instructions take them (each word's bytes in order, four words a
    /// key), expanded with `aeskeygenassist`. Every function that runs
    /// these instructions has
    /// `#[target_feature(enable = "aes")]`, and `always` is not among the
    /// policies: Rust refuses `#[inline(always)]` there. Key setup checks
    /// the CPU first (it aborts where the CPU lacks AES-NI, and
    /// `available()` says so beforehand): an `Aes` exists only where its
    /// instructions run, which is what makes the calls into them sound.
    ///
    /// Each block backend function runs its load, rounds and store inside
    /// a function with AES-NI enabled (`cipher_traits!`'s
    /// `target_feature`), so that the rounds inline there as the policy
    /// says.
    #[method(policy(never, hint, auto), lanes(1, 2, 4, 8))]
    mod aesni {
        use super::Rounds;
        use super::super::aesni_available;
        use super::super::ni::{Schedule, load, store};
        use core::arch::x86_64::{
            __m128i, _mm_aesdec_si128, _mm_aesdeclast_si128, _mm_aesenc_si128,
            _mm_aesenclast_si128, _mm_xor_si128,
        };

        /// One round: `aesenc`.
        #[round]
        #[target_feature(enable = "aes")]
        fn round(s: __m128i, rk: __m128i) -> __m128i {
            _mm_aesenc_si128(s, rk)
        }

        /// The last round: `aesenclast`.
        #[round]
        #[target_feature(enable = "aes")]
        fn last_round(s: __m128i, rk: __m128i) -> __m128i {
            _mm_aesenclast_si128(s, rk)
        }

        /// One round of the equivalent inverse cipher: `aesdec`.
        #[round]
        #[target_feature(enable = "aes")]
        fn inv_round(s: __m128i, dk: __m128i) -> __m128i {
            _mm_aesdec_si128(s, dk)
        }

        /// Its last round: `aesdeclast`.
        #[round]
        #[target_feature(enable = "aes")]
        fn inv_last_round(s: __m128i, dk: __m128i) -> __m128i {
            _mm_aesdeclast_si128(s, dk)
        }

        /// AES with the key size chosen at run time, on AES-NI: a key of 16,
        /// 24 or 32 bytes, its schedule as the instructions take it. Made
        /// only where the CPU has AES-NI. The key schedule is zeroized when
        /// the value is dropped.
        #[derive(Clone)]
        pub struct Aes(Schedule);

        impl Aes {
            /// The key schedule ([`Schedule::new`]), where this CPU has
            /// AES-NI; a trap where it does not.
            #[inline]
            fn expand(key: &[u8], rounds: Rounds) -> Aes {
                Aes(Schedule::new(key, rounds, available()))
            }

            /// FIPS-197 section 5.1, Cipher(): AddRoundKey, `Nr - 1`
            /// rounds (9 for every key size, then 2 or 4 more for 192- and
            /// 256-bit keys), the last round.
            #[lanes]
            #[target_feature(enable = "aes")]
            fn encrypt_aesni(&self, #[lane] s: &mut __m128i) {
                let k = &self.0;
                *s = _mm_xor_si128(*s, k.ek[0]);
                for r in 1..10 {
                    *s = round(*s, k.ek[r]);
                }
                for rk in &k.ek[10..k.rounds.nr()] {
                    *s = round(*s, *rk);
                }
                *s = last_round(*s, k.ek[k.rounds.nr()]);
            }

            /// FIPS-197 section 5.3.5, EqInvCipher(), with the decryption keys.
            #[lanes]
            #[target_feature(enable = "aes")]
            fn decrypt_aesni(&self, #[lane] s: &mut __m128i) {
                let k = &self.0;
                *s = _mm_xor_si128(*s, k.dk[0]);
                for r in 1..10 {
                    *s = inv_round(*s, k.dk[r]);
                }
                for dk in &k.dk[10..k.rounds.nr()] {
                    *s = inv_round(*s, *dk);
                }
                *s = inv_last_round(*s, k.dk[k.rounds.nr()]);
            }

            // The names `aes_traits!` calls. Each runs only inside a block
            // backend's `with_feature` (`cipher_traits!`'s
            // `target_feature`), which has AES-NI enabled: no `unsafe` here.
            #[target_feature(enable = "aes")]
            #[inline]
            fn encrypt_state(&self, s: &mut __m128i) {
                self.encrypt_aesni(s)
            }

            #[target_feature(enable = "aes")]
            #[inline]
            fn encrypt_state_lanes(&self, s: &mut [__m128i; LANES]) {
                self.encrypt_aesni_lanes(s)
            }

            #[target_feature(enable = "aes")]
            #[inline]
            fn decrypt_state(&self, s: &mut __m128i) {
                self.decrypt_aesni(s)
            }

            #[target_feature(enable = "aes")]
            #[inline]
            fn decrypt_state_lanes(&self, s: &mut [__m128i; LANES]) {
                self.decrypt_aesni_lanes(s)
            }

            /// The key schedule, zeroized (on drop).
            fn wipe(&mut self) {
                self.0.wipe();
            }
        }

        /// Whether this CPU has AES-NI.
        pub fn available() -> bool {
            aesni_available()
        }

        aes_traits!(target_feature: "aes",);
    }

    /// VAES: the AES-NI rounds on 256-bit registers, two blocks in each.
    /// `vaesenc` runs `aesenc` on each 128-bit half with that half of the
    /// round key, so every round key is broadcast to both halves as it is
    /// used:
    ///
    /// ```text
    /// vaesenc([a, b], [k, k]) = [aesenc(a, k), aesenc(b, k)]
    /// ```
    ///
    /// Lanes count blocks, as in every form, two to a register
    /// (`lane_blocks = 2`): `x8` keeps four registers in flight (`LANES`
    /// is 4, its `ParBlocksSize` 8). A single block (a buffer's tail, CBC
    /// encryption) runs on the 128-bit form of the same instructions: a
    /// 256-bit register would carry nothing in its high half, and measured
    /// slower at 16 bytes than `aesni_auto`. The key schedule is `aesni`'s (`ni::Schedule`).
    /// Where the CPU lacks VAES or AVX2 the type is unavailable and its key
    /// setup traps, as `aesni`'s does where AES-NI is missing.
    #[method(policy(never, hint, auto), lanes(2, 4, 8, 16), lane_blocks = 2)]
    mod vaes {
        use super::Rounds;
        use super::super::ni::{Schedule, load, store};
        use super::super::vaes_available;
        use core::arch::x86_64::{
            __m128i, __m256i, _mm256_aesdec_epi128, _mm256_aesdeclast_epi128, _mm256_aesenc_epi128,
            _mm256_aesenclast_epi128, _mm256_broadcastsi128_si256, _mm256_castsi256_si128,
            _mm256_extracti128_si256, _mm256_set_m128i, _mm256_setzero_si256, _mm256_xor_si256,
            _mm_aesdec_si128, _mm_aesdeclast_si128, _mm_aesenc_si128, _mm_aesenclast_si128,
            _mm_xor_si128,
        };

        /// One round on two blocks: `vaesenc`.
        #[round]
        #[target_feature(enable = "vaes")]
        fn round(s: __m256i, rk: __m256i) -> __m256i {
            _mm256_aesenc_epi128(s, rk)
        }

        /// The last round: `vaesenclast`.
        #[round]
        #[target_feature(enable = "vaes")]
        fn last_round(s: __m256i, rk: __m256i) -> __m256i {
            _mm256_aesenclast_epi128(s, rk)
        }

        /// One round of the equivalent inverse cipher: `vaesdec`.
        #[round]
        #[target_feature(enable = "vaes")]
        fn inv_round(s: __m256i, dk: __m256i) -> __m256i {
            _mm256_aesdec_epi128(s, dk)
        }

        /// Its last round: `vaesdeclast`.
        #[round]
        #[target_feature(enable = "vaes")]
        fn inv_last_round(s: __m256i, dk: __m256i) -> __m256i {
            _mm256_aesdeclast_epi128(s, dk)
        }

        /// One round on one block: `vaesenc` on 128 bits, for a single
        /// block (the tail of a buffer, CBC encryption), where a 256-bit
        /// register would carry nothing in its high half.
        #[round]
        #[target_feature(enable = "vaes")]
        fn block_round(s: __m128i, rk: __m128i) -> __m128i {
            _mm_aesenc_si128(s, rk)
        }

        /// Its last round: `vaesenclast` on 128 bits.
        #[round]
        #[target_feature(enable = "vaes")]
        fn block_last_round(s: __m128i, rk: __m128i) -> __m128i {
            _mm_aesenclast_si128(s, rk)
        }

        /// One round of the equivalent inverse cipher on one block.
        #[round]
        #[target_feature(enable = "vaes")]
        fn block_inv_round(s: __m128i, dk: __m128i) -> __m128i {
            _mm_aesdec_si128(s, dk)
        }

        /// Its last round on one block.
        #[round]
        #[target_feature(enable = "vaes")]
        fn block_inv_last_round(s: __m128i, dk: __m128i) -> __m128i {
            _mm_aesdeclast_si128(s, dk)
        }

        /// A round key in both halves of a register.
        #[target_feature(enable = "vaes")]
        #[inline]
        fn both(k: &__m128i) -> __m256i {
            _mm256_broadcastsi128_si256(*k)
        }

        /// AES with the key size chosen at run time, on VAES: a key of 16, 24
        /// or 32 bytes, its schedule as the instructions take it. Made only
        /// where the CPU has VAES and AVX2. The key schedule is zeroized when
        /// the value is dropped.
        #[derive(Clone)]
        pub struct Aes(Schedule);

        impl Aes {
            /// The key schedule ([`Schedule::new`]), where this CPU has VAES
            /// and AVX2; a trap where it does not.
            #[inline]
            fn expand(key: &[u8], rounds: Rounds) -> Aes {
                Aes(Schedule::new(key, rounds, available()))
            }

            /// FIPS-197 section 5.1, Cipher(), on the two blocks of `s`,
            /// each round key in both halves. Written for one register, run
            /// as its `_lanes` copy only: one block takes
            /// [`Aes::encrypt_one`].
            #[allow(dead_code)]
            #[lanes]
            #[target_feature(enable = "vaes")]
            fn encrypt_vaes(&self, #[lane] s: &mut __m256i) {
                let k = &self.0;
                *s = _mm256_xor_si256(*s, both(&k.ek[0]));
                for r in 1..10 {
                    let rk = both(&k.ek[r]);
                    *s = round(*s, rk);
                }
                for rk in &k.ek[10..k.rounds.nr()] {
                    let rk = both(rk);
                    *s = round(*s, rk);
                }
                let rk = both(&k.ek[k.rounds.nr()]);
                *s = last_round(*s, rk);
            }

            /// FIPS-197 section 5.3.5, EqInvCipher(), on the two blocks of
            /// `s`, run as its `_lanes` copy only (one block: [`Aes::decrypt_one`]).
            #[allow(dead_code)]
            #[lanes]
            #[target_feature(enable = "vaes")]
            fn decrypt_vaes(&self, #[lane] s: &mut __m256i) {
                let k = &self.0;
                *s = _mm256_xor_si256(*s, both(&k.dk[0]));
                for r in 1..10 {
                    let dk = both(&k.dk[r]);
                    *s = inv_round(*s, dk);
                }
                for dk in &k.dk[10..k.rounds.nr()] {
                    let dk = both(dk);
                    *s = inv_round(*s, dk);
                }
                let dk = both(&k.dk[k.rounds.nr()]);
                *s = inv_last_round(*s, dk);
            }

            /// FIPS-197 section 5.1, Cipher(), on one block: the 128-bit
            /// rounds, each key as it is stored (no broadcast, no upper
            /// half to clear).
            #[target_feature(enable = "vaes")]
            #[inline]
            fn encrypt_one(&self, s: &mut __m128i) {
                let k = &self.0;
                *s = _mm_xor_si128(*s, k.ek[0]);
                for r in 1..10 {
                    *s = block_round(*s, k.ek[r]);
                }
                for rk in &k.ek[10..k.rounds.nr()] {
                    *s = block_round(*s, *rk);
                }
                *s = block_last_round(*s, k.ek[k.rounds.nr()]);
            }

            /// FIPS-197 section 5.3.5, EqInvCipher(), on one block, as
            /// [`Aes::encrypt_one`].
            #[target_feature(enable = "vaes")]
            #[inline]
            fn decrypt_one(&self, s: &mut __m128i) {
                let k = &self.0;
                *s = _mm_xor_si128(*s, k.dk[0]);
                for r in 1..10 {
                    *s = block_inv_round(*s, k.dk[r]);
                }
                for dk in &k.dk[10..k.rounds.nr()] {
                    *s = block_inv_round(*s, *dk);
                }
                *s = block_inv_last_round(*s, k.dk[k.rounds.nr()]);
            }

            // The names `aes_traits!` calls, each run only inside a block
            // backend's `with_feature`, which has VAES enabled. One block
            // runs on the 128-bit rounds, `LANE_BLOCKS * LANES` in `LANES` registers.
            #[target_feature(enable = "vaes")]
            #[inline]
            fn encrypt_state(&self, s: &mut __m128i) {
                self.encrypt_one(s)
            }

            #[target_feature(enable = "vaes")]
            #[inline]
            fn encrypt_state_lanes(&self, s: &mut [__m128i; LANE_BLOCKS * LANES]) {
                let mut r = pairs(s);
                self.encrypt_vaes_lanes(&mut r);
                unpair(&r, s);
            }

            #[target_feature(enable = "vaes")]
            #[inline]
            fn decrypt_state(&self, s: &mut __m128i) {
                self.decrypt_one(s)
            }

            #[target_feature(enable = "vaes")]
            #[inline]
            fn decrypt_state_lanes(&self, s: &mut [__m128i; LANE_BLOCKS * LANES]) {
                let mut r = pairs(s);
                self.decrypt_vaes_lanes(&mut r);
                unpair(&r, s);
            }

            /// The key schedule, zeroized (on drop).
            fn wipe(&mut self) {
                self.0.wipe();
            }
        }

        /// Blocks `2l` and `2l + 1` in the low and high halves of register `l`.
        #[target_feature(enable = "vaes")]
        #[inline]
        fn pairs(s: &[__m128i; LANE_BLOCKS * LANES]) -> [__m256i; LANES] {
            let mut r = [_mm256_setzero_si256(); LANES];
            for (r, [lo, hi]) in r.iter_mut().zip(s.as_chunks::<2>().0) {
                *r = _mm256_set_m128i(*hi, *lo);
            }
            r
        }

        /// [`pairs`] undone.
        #[target_feature(enable = "vaes")]
        #[inline]
        fn unpair(r: &[__m256i; LANES], s: &mut [__m128i; LANE_BLOCKS * LANES]) {
            for (pair, r) in s.as_chunks_mut::<2>().0.iter_mut().zip(r) {
                *pair = [_mm256_castsi256_si128(*r), _mm256_extracti128_si256::<1>(*r)];
            }
        }

        /// Whether this CPU has VAES, AVX2 and AES-NI.
        pub fn available() -> bool {
            vaes_available()
        }

        aes_traits!(target_feature: "vaes",);
    }

    /// The `cipher` traits of a method's `Aes` and of `Aes128`, `Aes192`
    /// and `Aes256` (each `$ty(Aes)`, one key size): every method ends
    /// with `aes_traits!(...)`, given `cipher_traits!`'s facts that differ
    /// between methods (where the rounds need target
    /// features: `target_feature: "aes"`). A method supplies `Aes` (its `expand`, `encrypt_state`,
    /// `decrypt_state`, their `_lanes` and `wipe`), `load`, `store` and
    /// `available`.
    macro_rules! aes_traits {
        ($($extra:tt)*) => {
            /// The key schedule of `key` for `rounds`, if `key` is as long as
            /// those rounds take.
            fn sized(key: &[u8], rounds: Rounds) -> Result<Aes, InvalidLength> {
                if key.len() != rounds.key_len() {
                    return Err(InvalidLength);
                }
                Ok(Aes::expand(key, rounds))
            }

            cipher_traits! {
                Aes {
                    name: "aes-",
                    key_size: U32,
                    block_size: U16,
                    new: |key| Aes::expand(key.as_slice(), Rounds::Fourteen),
                    new_from_slice: |key| {
                        let rounds = Rounds::of_key(key.len()).ok_or(InvalidLength)?;
                        Ok(Aes::expand(key, rounds))
                    },
                    load: load,
                    store: store,
                    encrypt: |a, s| a.encrypt_state(s),
                    encrypt_lanes: |a, s| a.encrypt_state_lanes(s),
                    decrypt: |a, s| a.decrypt_state(s),
                    decrypt_lanes: |a, s| a.decrypt_state_lanes(s),
                    $($extra)*
                    available: available,
                    zeroize: |a| {
                        a.wipe();
                    },
                }
            }

            aes_sized!(
                [$($extra)*]
                /// AES-128: a 16-byte key, 10 rounds.
                Aes128, "aes128-", U16, Ten
            );
            aes_sized!(
                [$($extra)*]
                /// AES-192: a 24-byte key, 12 rounds.
                Aes192, "aes192-", U24, Twelve
            );
            aes_sized!(
                [$($extra)*]
                /// AES-256: a 32-byte key, 14 rounds.
                Aes256, "aes256-", U32, Fourteen
            );
        };
    }

    /// `$ty(Aes)`, AES with one key size: `$size` bytes, `$rounds` rounds.
    /// Dropping its `Aes` zeroizes the key schedule.
    macro_rules! aes_sized {
        ([$($extra:tt)*] $(#[$doc:meta])* $ty:ident, $name:literal, $size:ty, $rounds:ident) => {
            $(#[$doc])*
            #[derive(Clone)]
            pub struct $ty(Aes);

            cipher_traits! {
                $ty {
                    name: $name,
                    key_size: $size,
                    block_size: U16,
                    new: |key| $ty(Aes::expand(key.as_slice(), Rounds::$rounds)),
                    new_from_slice: |key| sized(key, Rounds::$rounds).map($ty),
                    load: load,
                    store: store,
                    encrypt: |a, s| a.0.encrypt_state(s),
                    encrypt_lanes: |a, s| a.0.encrypt_state_lanes(s),
                    decrypt: |a, s| a.0.decrypt_state(s),
                    decrypt_lanes: |a, s| a.0.decrypt_state_lanes(s),
                    $($extra)*
                    available: available,
                }
            }
        };
    }
}
