//! CAST-128, the cipher the kernel calls `cast5`: [RFC 2144].
//!
//! Keys of 80 bits or less take 12 rounds, longer keys 16 (section 2.5), so
//! encryption and decryption branch on the key length. The source is written
//! the way the kernel's cast5 was before 2010, each branch spelling out all
//! of its rounds (here the two six-round periods, f1 f2 f3 on L, R, L then
//! R, L, R, as a loop); the branch forms of `#[codegen::variants]` make the
//! other shapes: `factored` hoists the rounds both branches share (what the
//! 2010 patch did by hand, 26688 to 24336 bytes), `duplicated` moves the
//! loads and stores around the `if` into both branches.
//!
//! [RFC 2144]: https://www.rfc-editor.org/rfc/rfc2144

/// CAST-128 in every variant: `cast5::never_factored::Cast5`,
/// `cast5::auto_duplicated_x4_unrolled::Cast5` and so on, the cross product
/// of four axes:
///
/// - the inline policy of the round functions f1, f2, f3: `never` and
///   `auto`. `always` (and `hint`) is left out: `auto` already inlines all
///   three, and `always` built to the same code, byte for byte in size
///   (reports/cast5.md);
/// - the branch form of encryption and decryption (`#[shape]`):
///   `factored` and `duplicated`;
/// - lanes, 1, 2, 3, 4 or 8 blocks encrypted together round by round
///   (`x2`...), through `cipher`'s parallel blocks (`ParBlocksSize`);
/// - the six-round period loops as written or unrolled (`unrolled`).
///
/// The reference is `auto_factored`, one lane, rolled.
#[codegen::variants(
    policy(never, auto),
    form(factored, duplicated),
    lanes(1, 2, 3, 4, 8),
    unroll(rolled, unrolled),
    cipher = Cast5,
    // tcrypt speed mode 209.
    entry(
        modes: [Ecb: [8, 16], Cbc: [8, 16], Ctr: [8, 16]],
        peers: [
            "rustcrypto" {
                label: "cast5 0.12 (RustCrypto)",
                krate: cast5,
                keyed: cipher(Cast5),
                // Ours zeroize their key schedules: so does this build.
                builds: [
                    "rustcrypto-zeroize" {
                        label: "cast5 0.12 (RustCrypto, its zeroize feature on)",
                        features: ["zeroize"],
                    },
                ],
            },
        ],
        libraries: [
            // libgcrypt's CAST5 takes 128-bit keys only (cast5_setkey:
            // GPG_ERR_INV_KEYLEN otherwise): the 8-byte cases are not
            // offered, and said so.
            "libgcrypt" {
                label: "libgcrypt (the system's, its amd64 assembler; sizes with the whole library)",
                library: libgcrypt,
                algorithm: by_length(16 => "CAST5"),
            },
            // OpenSSL 3 keeps CAST5 in its legacy provider, in ECB, CBC,
            // CFB and OFB (no CTR); CAST_set_key takes 5 to 16 bytes as
            // RFC 2144 does (and cuts a longer key to 16).
            "openssl" {
                label: "OpenSSL libcrypto (the system's, its legacy provider; sizes with the whole library and the provider)",
                library: openssl,
                algorithm: by_length(5..=16 => "CAST5"),
                modes: [Ecb, Cbc],
                provider: legacy,
            },
        ],
    )
)]
pub mod cast5 {
    use crate::consts::{S, S5, S6, S7, S8};
    use crate::traits::{bytes, put_bytes, wipe, zero_padded};
    use cipher::InvalidLength;
    use cipher::consts::{U8, U16};

    /// Key sizes RFC 2144 allows, in bytes: 40 to 128 bits in 8-bit steps.
    pub const KEY_SIZES: core::ops::RangeInclusive<usize> = 5..=16;

    /// RFC 2144 section 2.2, round function type 1 (rounds 1, 4, 7, 10, 13, 16):
    ///
    /// ```text
    /// I = ((Kmi + D) <<< Kri)
    /// f = ((S1[Ia] ^ S2[Ib]) - S3[Ic]) + S4[Id]
    /// ```
    #[round]
    fn f1(d: u32, km: u32, kr: u8) -> u32 {
        let [ia, ib, ic, id] = km.wrapping_add(d).rotate_left(u32::from(kr)).to_be_bytes();
        (S[0][usize::from(ia)] ^ S[1][usize::from(ib)])
            .wrapping_sub(S[2][usize::from(ic)])
            .wrapping_add(S[3][usize::from(id)])
    }

    /// RFC 2144 section 2.2, round function type 2 (rounds 2, 5, 8, 11, 14):
    ///
    /// ```text
    /// I = ((Kmi ^ D) <<< Kri)
    /// f = ((S1[Ia] - S2[Ib]) + S3[Ic]) ^ S4[Id]
    /// ```
    #[round]
    fn f2(d: u32, km: u32, kr: u8) -> u32 {
        let [ia, ib, ic, id] = (km ^ d).rotate_left(u32::from(kr)).to_be_bytes();
        (S[0][usize::from(ia)].wrapping_sub(S[1][usize::from(ib)])).wrapping_add(S[2][usize::from(ic)])
            ^ S[3][usize::from(id)]
    }

    /// RFC 2144 section 2.2, round function type 3 (rounds 3, 6, 9, 12, 15):
    ///
    /// ```text
    /// I = ((Kmi - D) <<< Kri)
    /// f = ((S1[Ia] + S2[Ib]) ^ S3[Ic]) - S4[Id]
    /// ```
    #[round]
    fn f3(d: u32, km: u32, kr: u8) -> u32 {
        let [ia, ib, ic, id] = km.wrapping_sub(d).rotate_left(u32::from(kr)).to_be_bytes();
        ((S[0][usize::from(ia)].wrapping_add(S[1][usize::from(ib)])) ^ S[2][usize::from(ic)])
            .wrapping_sub(S[3][usize::from(id)])
    }

    /// The CAST-128 block cipher (64-bit blocks) with its expanded key. The
    /// key schedule is zeroized when the value is dropped.
    #[derive(Clone)]
    pub struct Cast5 {
        /// `Km1..Km16`, the masking subkeys.
        km: [u32; 16],
        /// `Kr1..Kr16`, the rotation subkeys (5 bits each).
        kr: [u8; 16],
        /// 12 for keys of 80 bits or less, else 16 (section 2.5).
        rounds: u8,
    }

    /// The key schedule's 128-bit values `x` and `z` as four big-endian
    /// words, `x0x1x2x3` first: the words the specification XORs are
    /// registers, and its bytes `xi` are shifted out of them ([`byte`]).
    ///
    /// Every helper below is `#[inline(always)]`: each is called with
    /// constant byte positions, which only inlining keeps constant. Left
    /// to LLVM, `z_from_x`, `x_from_z` and `four` (four calls each) stay
    /// out of line and every byte becomes a shift by a count computed at
    /// run time; `cargo xtask compare cast5` shows both in its key setup
    /// row and instruction counts.
    type Quad = [u32; 4];

    /// One 32-bit word of a quad: `x0x1x2x3` is `word(x, 0)`.
    #[inline(always)]
    fn word(t: &Quad, at: usize) -> u32 {
        t[(at / 4) % 4]
    }

    #[inline(always)]
    fn set(t: &mut Quad, at: usize, w: u32) {
        t[(at / 4) % 4] = w;
    }

    /// Byte `i` of a quad, `xi`: `x0` is the first word's most significant.
    /// Every `i` of the key schedule is a hex digit, for which `% 16` is
    /// the identity: it shows the index in range, where a bounds check
    /// would be a panic path.
    #[inline(always)]
    fn byte(t: &Quad, i: usize) -> usize {
        let i = i % 16;
        ((t[i / 4] >> (24 - 8 * (i % 4))) & 0xff) as usize
    }

    /// `S[t_i]`, a lookup of byte `i` of `t`.
    #[inline(always)]
    fn lookup(s: &[u32; 256], t: &Quad, i: usize) -> u32 {
        s[byte(t, i)]
    }

    /// `S5[a] ^ S6[b] ^ S7[c] ^ S8[d]`, the four lookups every line of the
    /// key schedule starts with.
    #[inline(always)]
    fn s5678(t: &Quad, [a, b, c, d]: [usize; 4]) -> u32 {
        lookup(&S5, t, a) ^ lookup(&S6, t, b) ^ lookup(&S7, t, c) ^ lookup(&S8, t, d)
    }

    /// RFC 2144 section 2.4:
    ///
    /// ```text
    /// z0z1z2z3 = x0x1x2x3 ^ S5[xD] ^ S6[xF] ^ S7[xC] ^ S8[xE] ^ S7[x8]
    /// z4z5z6z7 = x8x9xAxB ^ S5[z0] ^ S6[z2] ^ S7[z1] ^ S8[z3] ^ S8[xA]
    /// z8z9zAzB = xCxDxExF ^ S5[z7] ^ S6[z6] ^ S7[z5] ^ S8[z4] ^ S5[x9]
    /// zCzDzEzF = x4x5x6x7 ^ S5[zA] ^ S6[z9] ^ S7[zB] ^ S8[z8] ^ S6[xB]
    /// ```
    #[inline(always)]
    fn z_from_x(x: &Quad, z: &mut Quad) {
        set(
            z,
            0,
            word(x, 0) ^ s5678(x, [0xD, 0xF, 0xC, 0xE]) ^ S7[byte(x, 0x8)],
        );
        set(
            z,
            4,
            word(x, 8) ^ s5678(z, [0x0, 0x2, 0x1, 0x3]) ^ S8[byte(x, 0xA)],
        );
        set(
            z,
            8,
            word(x, 12) ^ s5678(z, [0x7, 0x6, 0x5, 0x4]) ^ S5[byte(x, 0x9)],
        );
        set(
            z,
            12,
            word(x, 4) ^ s5678(z, [0xA, 0x9, 0xB, 0x8]) ^ S6[byte(x, 0xB)],
        );
    }

    /// RFC 2144 section 2.4:
    ///
    /// ```text
    /// x0x1x2x3 = z8z9zAzB ^ S5[z5] ^ S6[z7] ^ S7[z4] ^ S8[z6] ^ S7[z0]
    /// x4x5x6x7 = z0z1z2z3 ^ S5[x0] ^ S6[x2] ^ S7[x1] ^ S8[x3] ^ S8[z2]
    /// x8x9xAxB = z4z5z6z7 ^ S5[x7] ^ S6[x6] ^ S7[x5] ^ S8[x4] ^ S5[z1]
    /// xCxDxExF = zCzDzEzF ^ S5[xA] ^ S6[x9] ^ S7[xB] ^ S8[x8] ^ S6[z3]
    /// ```
    #[inline(always)]
    fn x_from_z(z: &Quad, x: &mut Quad) {
        set(
            x,
            0,
            word(z, 8) ^ s5678(z, [0x5, 0x7, 0x4, 0x6]) ^ S7[byte(z, 0x0)],
        );
        set(
            x,
            4,
            word(z, 0) ^ s5678(x, [0x0, 0x2, 0x1, 0x3]) ^ S8[byte(z, 0x2)],
        );
        set(
            x,
            8,
            word(z, 4) ^ s5678(x, [0x7, 0x6, 0x5, 0x4]) ^ S5[byte(z, 0x1)],
        );
        set(
            x,
            12,
            word(z, 12) ^ s5678(x, [0xA, 0x9, 0xB, 0x8]) ^ S6[byte(z, 0x3)],
        );
    }

    /// Four subkeys from `t`: line `j` is `S5[a] ^ S6[b] ^ S7[c] ^ S8[d]`
    /// then one more lookup, in S5, S6, S7, S8 for j = 0, 1, 2, 3.
    #[inline(always)]
    fn four(t: &Quad, [l0, l1, l2, l3]: [[usize; 5]; 4]) -> [u32; 4] {
        // Written out, not `from_fn`: each line's byte positions are then
        // constants, and a byte of a word is a shift, not a shift by a
        // count computed at run time.
        let line = |[a, b, c, d, e]: [usize; 5], last: &[u32; 256]| {
            s5678(t, [a, b, c, d]) ^ lookup(last, t, e)
        };
        [line(l0, &S5), line(l1, &S6), line(l2, &S7), line(l3, &S8)]
    }

    impl Cast5 {
        /// RFC 2144 section 2.4, the key schedule, on a key padded to 128
        /// bits. The 32 subkeys come from four alternations of the `z` and
        /// `x` computations, twice:
        ///
        /// ```text
        /// [z from x]  K1  = S5[z8] ^ S6[z9] ^ S7[z7] ^ S8[z6] ^ S5[z2]
        ///             K2  = S5[zA] ^ S6[zB] ^ S7[z5] ^ S8[z4] ^ S6[z6]
        ///             K3  = S5[zC] ^ S6[zD] ^ S7[z3] ^ S8[z2] ^ S7[z9]
        ///             K4  = S5[zE] ^ S6[zF] ^ S7[z1] ^ S8[z0] ^ S8[zC]
        /// [x from z]  K5  = S5[x3] ^ S6[x2] ^ S7[xC] ^ S8[xD] ^ S5[x8]
        ///             K6  = S5[x1] ^ S6[x0] ^ S7[xE] ^ S8[xF] ^ S6[xD]
        ///             K7  = S5[x7] ^ S6[x6] ^ S7[x8] ^ S8[x9] ^ S7[x3]
        ///             K8  = S5[x5] ^ S6[x4] ^ S7[xA] ^ S8[xB] ^ S8[x7]
        /// [z from x]  K9  = S5[z3] ^ S6[z2] ^ S7[zC] ^ S8[zD] ^ S5[z9]
        ///             K10 = S5[z1] ^ S6[z0] ^ S7[zE] ^ S8[zF] ^ S6[zC]
        ///             K11 = S5[z7] ^ S6[z6] ^ S7[z8] ^ S8[z9] ^ S7[z2]
        ///             K12 = S5[z5] ^ S6[z4] ^ S7[zA] ^ S8[zB] ^ S8[z6]
        /// [x from z]  K13 = S5[x8] ^ S6[x9] ^ S7[x7] ^ S8[x6] ^ S5[x3]
        ///             K14 = S5[xA] ^ S6[xB] ^ S7[x5] ^ S8[x4] ^ S6[x7]
        ///             K15 = S5[xC] ^ S6[xD] ^ S7[x3] ^ S8[x2] ^ S7[x8]
        ///             K16 = S5[xE] ^ S6[xF] ^ S7[x1] ^ S8[x0] ^ S8[xD]
        /// [the same again, from the x reached]  K17 .. K32
        /// ```
        ///
        /// Section 2.4.1: `Km_i = K_i` and `Kr_i = K_(16+i)`, of which only
        /// the five low bits are used.
        fn key_schedule(key: &[u8; 16], rounds: u8) -> Self {
            let mut x: Quad = [0; 4];
            for (w, bytes) in x.iter_mut().zip(key.as_chunks::<4>().0) {
                *w = u32::from_be_bytes(*bytes);
            }
            let mut z: Quad = [0; 4];
            let mut k = [0u32; 32];
            for half in k.chunks_exact_mut(16) {
                z_from_x(&x, &mut z);
                half[0..4].copy_from_slice(&four(
                    &z,
                    [
                        [8, 9, 7, 6, 2],
                        [10, 11, 5, 4, 6],
                        [12, 13, 3, 2, 9],
                        [14, 15, 1, 0, 12],
                    ],
                ));
                x_from_z(&z, &mut x);
                half[4..8].copy_from_slice(&four(
                    &x,
                    [
                        [3, 2, 12, 13, 8],
                        [1, 0, 14, 15, 13],
                        [7, 6, 8, 9, 3],
                        [5, 4, 10, 11, 7],
                    ],
                ));
                z_from_x(&x, &mut z);
                half[8..12].copy_from_slice(&four(
                    &z,
                    [
                        [3, 2, 12, 13, 9],
                        [1, 0, 14, 15, 12],
                        [7, 6, 8, 9, 2],
                        [5, 4, 10, 11, 6],
                    ],
                ));
                x_from_z(&z, &mut x);
                half[12..16].copy_from_slice(&four(
                    &x,
                    [
                        [8, 9, 7, 6, 3],
                        [10, 11, 5, 4, 7],
                        [12, 13, 3, 2, 8],
                        [14, 15, 1, 0, 13],
                    ],
                ));
            }
            let mut km = [0u32; 16];
            let mut kr = [0u8; 16];
            km.copy_from_slice(&k[..16]);
            for (r, w) in kr.iter_mut().zip(&k[16..]) {
                *r = (w & 0x1f) as u8;
            }
            wipe(&mut x);
            wipe(&mut z);
            wipe(&mut k);
            Cast5 { km, kr, rounds }
        }

        /// RFC 2144 section 2.1, encryption. Rounds alternate halves in
        /// place (round i: `L ^= f(R)` or `R ^= f(L)`), so after an even
        /// number of rounds the ciphertext is `(R, L)`:
        ///
        /// ```text
        /// (L0,R0) <-- (m1...m64)
        /// for i = 1..16 (1..12 for keys of 80 bits or less):
        ///     Li = Ri-1;  Ri = Li-1 ^ f(Ri-1,Kmi,Kri)
        /// c1...c64 <-- (R16,L16)
        /// ```
        ///
        /// Round i uses f1, f2, f3 for i = 1, 2, 3 (mod 3) and alternates
        /// halves, so six rounds make a period: rounds 1-6 and 7-12, then
        /// rounds 13-16 with longer keys.
        #[shape]
        #[lanes]
        fn encrypt(&self, #[lane] block: &mut [u8; 8]) {
            let km = &self.km;
            let kr = &self.kr;
            let mut l = u32::from_be_bytes([block[0], block[1], block[2], block[3]]);
            let mut r = u32::from_be_bytes([block[4], block[5], block[6], block[7]]);
            if self.rounds == 12 {
                #[unroll]
                for p in 0..2 {
                    let k = 6 * p;
                    l ^= f1(r, km[k], kr[k]);
                    r ^= f2(l, km[k + 1], kr[k + 1]);
                    l ^= f3(r, km[k + 2], kr[k + 2]);
                    r ^= f1(l, km[k + 3], kr[k + 3]);
                    l ^= f2(r, km[k + 4], kr[k + 4]);
                    r ^= f3(l, km[k + 5], kr[k + 5]);
                }
            } else {
                #[unroll]
                for p in 0..2 {
                    let k = 6 * p;
                    l ^= f1(r, km[k], kr[k]);
                    r ^= f2(l, km[k + 1], kr[k + 1]);
                    l ^= f3(r, km[k + 2], kr[k + 2]);
                    r ^= f1(l, km[k + 3], kr[k + 3]);
                    l ^= f2(r, km[k + 4], kr[k + 4]);
                    r ^= f3(l, km[k + 5], kr[k + 5]);
                }
                l ^= f1(r, km[12], kr[12]);
                r ^= f2(l, km[13], kr[13]);
                l ^= f3(r, km[14], kr[14]);
                r ^= f1(l, km[15], kr[15]);
            }
            block[..4].copy_from_slice(&r.to_be_bytes());
            block[4..].copy_from_slice(&l.to_be_bytes());
        }

        /// RFC 2144 section 2.1, decryption: the encryption with the subkeys
        /// used in reverse order.
        #[shape]
        #[lanes]
        fn decrypt(&self, #[lane] block: &mut [u8; 8]) {
            let km = &self.km;
            let kr = &self.kr;
            let mut r = u32::from_be_bytes([block[0], block[1], block[2], block[3]]);
            let mut l = u32::from_be_bytes([block[4], block[5], block[6], block[7]]);
            if self.rounds == 12 {
                #[unroll]
                for p in (0..2).rev() {
                    let k = 6 * p;
                    r ^= f3(l, km[k + 5], kr[k + 5]);
                    l ^= f2(r, km[k + 4], kr[k + 4]);
                    r ^= f1(l, km[k + 3], kr[k + 3]);
                    l ^= f3(r, km[k + 2], kr[k + 2]);
                    r ^= f2(l, km[k + 1], kr[k + 1]);
                    l ^= f1(r, km[k], kr[k]);
                }
            } else {
                r ^= f1(l, km[15], kr[15]);
                l ^= f3(r, km[14], kr[14]);
                r ^= f2(l, km[13], kr[13]);
                l ^= f1(r, km[12], kr[12]);
                #[unroll]
                for p in (0..2).rev() {
                    let k = 6 * p;
                    r ^= f3(l, km[k + 5], kr[k + 5]);
                    l ^= f2(r, km[k + 4], kr[k + 4]);
                    r ^= f1(l, km[k + 3], kr[k + 3]);
                    l ^= f3(r, km[k + 2], kr[k + 2]);
                    r ^= f2(l, km[k + 1], kr[k + 1]);
                    l ^= f1(r, km[k], kr[k]);
                }
            }
            block[..4].copy_from_slice(&l.to_be_bytes());
            block[4..].copy_from_slice(&r.to_be_bytes());
        }
    }

    cipher_traits! {
        Cast5 {
            name: "cast5-",
            key_size: U16,
            block_size: U8,
            new: |key| Self::key_schedule(key.as_ref(), 16),
            // Accepts 5 to 16 bytes, padding shorter keys with zero bytes
            // (section 2.5); any other length is `InvalidLength`.
            new_from_slice: |key| {
                if !KEY_SIZES.contains(&key.len()) {
                    return Err(InvalidLength);
                }
                let rounds = if key.len() <= 10 { 12 } else { 16 };
                Ok(Self::key_schedule(&*zero_padded(key)?, rounds))
            },
            load: bytes,
            store: put_bytes,
            encrypt: |c, block| c.encrypt(block),
            encrypt_lanes: |c, blocks| c.encrypt_lanes(blocks),
            decrypt: |c, block| c.decrypt(block),
            decrypt_lanes: |c, blocks| c.decrypt_lanes(blocks),
            tail_pairs: |c, blocks| c.encrypt_lanes_n(blocks), |c, blocks| c.decrypt_lanes_n(blocks),
            zeroize: |c| {
                wipe(&mut c.km);
                wipe(&mut c.kr);
            },
        }
    }
}
