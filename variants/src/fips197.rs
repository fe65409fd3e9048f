//! AES, the generic table-driven way: [FIPS-197] with "T-tables", the classic
//! software design the kernel's `aes_generic` uses. Every table is computed
//! at compile time from the standard's definitions (section 5.1.1 for the
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

/// AES in every variant: `aes::never::{Aes, Aes128, Aes192, Aes256}`,
/// `aes::auto_x4_unrolled::Aes` and so on, the cross product of three axes:
///
/// - the inline policy of the round functions (a full round and the last
///   round, each way): `never` and `auto`. `always` and `hint` are left
///   out: they built to the same code as `auto`, which inlines all four
///   (reports/aes.md: 9866 bytes of .text each);
/// - lanes, 1, 2, 3, 4 or 8 blocks encrypted together round by round
///   (`x2`...), through `cipher`'s parallel blocks (`ParBlocksSize`);
/// - the loop over the nine rounds every key size has as written or
///   unrolled (`unrolled`); the 0, 2 or 4 more rounds of longer keys stay
///   a loop, their count known only at run time.
///
/// The reference is `auto`, one lane, rolled.
#[codegen::variants(
    policy(never, auto),
    lanes(1, 2, 3, 4, 8),
    unroll(rolled, unrolled),
    cipher = Aes,
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
                ],
            },
        ],
    )
)]
pub mod aes {
    use super::{INV_SBOX, Rounds, SBOX, TD, TE, xtime};
    use cipher::InvalidLength;
    use cipher::consts::{U16, U24, U32};
    use zeroize::Zeroize;

    /// Key sizes FIPS-197 defines, in bytes (AES-128, AES-192, AES-256).
    pub const KEY_SIZES: [usize; 3] = [
        Rounds::Ten.key_len(),
        Rounds::Twelve.key_len(),
        Rounds::Fourteen.key_len(),
    ];

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
    /// AES: a key of 16, 24 or 32 bytes. The key schedule is zeroized when
    /// the value is dropped.
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
        /// FIPS-197 section 5.2, KeyExpansion, and section 5.3.5 for the
        /// equivalent inverse cipher's keys:
        ///
        /// ```text
        /// w[i] = key word i, for i < Nk
        /// for i = Nk .. 4*(Nr+1)-1:
        ///     temp = w[i-1]
        ///     if i mod Nk = 0:            temp = SubWord(RotWord(temp)) xor Rcon[i/Nk]
        ///     else if Nk > 6, i mod Nk = 4: temp = SubWord(temp)
        ///     w[i] = w[i-Nk] xor temp
        /// dw: the round keys in reverse order, InvMixColumns applied to
        ///     all but the first and last
        /// ```
        ///
        /// `key` is `rounds.key_len()` bytes long (a longer one is cut
        /// there, a shorter one padded with zero words).
        fn expand(key: &[u8], rounds: Rounds) -> Aes {
            let nk = rounds.nk();
            let total = 4 * (rounds.nr() + 1);
            let mut w = [0u32; 60];
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
            // `total` is at most 60 and `nk` at least 4: every index is in
            // range, as the compiler sees from `Rounds`.
            for i in nk..total {
                let mut temp = w[i - 1];
                if i % nk == 0 {
                    temp = sub_word(temp.rotate_left(8)) ^ (u32::from(rcon) << 24);
                    rcon = xtime(rcon);
                } else if nk > 6 && i % nk == 4 {
                    temp = sub_word(temp);
                }
                w[i] = w[i - nk] ^ temp;
            }
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
            w.zeroize();
            Aes { ek, dk, rounds }
        }

        /// The key schedule of `key` for `rounds`, if `key` is as long as
        /// those rounds take.
        fn sized(key: &[u8], rounds: Rounds) -> Result<Aes, InvalidLength> {
            if key.len() != rounds.key_len() {
                return Err(InvalidLength);
            }
            Ok(Aes::expand(key, rounds))
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
            zeroize: |a| {
                // Flat, each is one loop of volatile writes, not one per row.
                a.ek.as_flattened_mut().zeroize();
                a.dk.as_flattened_mut().zeroize();
            },
        }
    }

    /// `$ty(Aes)`, AES with one key size: `$size` bytes, `$rounds` rounds.
    /// Dropping its `Aes` zeroizes the key schedule.
    macro_rules! aes_sized {
        ($(#[$doc:meta])* $ty:ident, $name:literal, $size:ty, $rounds:ident) => {
            $(#[$doc])*
            #[derive(Clone)]
            pub struct $ty(Aes);

            cipher_traits! {
                $ty {
                    name: $name,
                    key_size: $size,
                    block_size: U16,
                    new: |key| $ty(Aes::expand(key.as_slice(), Rounds::$rounds)),
                    new_from_slice: |key| Aes::sized(key, Rounds::$rounds).map($ty),
                    load: load,
                    store: store,
                    encrypt: |a, s| a.0.encrypt_state(s),
                    encrypt_lanes: |a, s| a.0.encrypt_state_lanes(s),
                    decrypt: |a, s| a.0.decrypt_state(s),
                    decrypt_lanes: |a, s| a.0.decrypt_state_lanes(s),
                }
            }
        };
    }

    aes_sized!(
        /// AES-128: a 16-byte key, 10 rounds.
        Aes128, "aes128-", U16, Ten
    );
    aes_sized!(
        /// AES-192: a 24-byte key, 12 rounds.
        Aes192, "aes192-", U24, Twelve
    );
    aes_sized!(
        /// AES-256: a 32-byte key, 14 rounds.
        Aes256, "aes256-", U32, Fourteen
    );
}
