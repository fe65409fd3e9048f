//! CAST-256, the cipher the kernel calls `cast6`: [RFC 2612].
//!
//! The RFC's pseudocode sits above the code that implements it.
//!
//! [RFC 2612]: https://www.rfc-editor.org/rfc/rfc2612

/// RFC 2612 section 2.4, the masking (`Tm`) and rotation (`Tr`) constants of
/// the key schedule, generated as the RFC generates them:
///
/// ```text
/// Cm = 2^30 * sqrt(2) = 5A827999 (hex) = 1518500249 (decimal)
/// Mm = 2^30 * sqrt(3) = 6ED9EBA1 (hex) = 1859775393 (decimal)
/// Cr = 19
/// Mr = 17
/// for (i=0; i<24; i++)
/// {
///    for (j=0; j<8; j++)
///    {
///       Tmj_(i) = Cm
///       Cm = (Cm + Mm) mod 2^32
///       Trj_(i) = Cr
///       Cr = (Cr + Mr) mod 32
///    }
/// }
/// ```
const fn key_schedule_constants() -> ([[u32; 8]; 24], [[u8; 8]; 24]) {
    let mut tm = [[0u32; 8]; 24];
    let mut tr = [[0u8; 8]; 24];
    let (mut cm, mm) = (0x5A82_7999u32, 0x6ED9_EBA1u32);
    let (mut cr, mr) = (19u8, 17u8);
    let mut i = 0;
    while i < 24 {
        let mut j = 0;
        while j < 8 {
            tm[i][j] = cm;
            cm = cm.wrapping_add(mm);
            tr[i][j] = cr;
            cr = (cr + mr) % 32;
            j += 1;
        }
        i += 1;
    }
    (tm, tr)
}

/// `Tm`, RFC 2612 section 2.4.
static TM: [[u32; 8]; 24] = key_schedule_constants().0;
/// `Tr`, RFC 2612 section 2.4.
static TR: [[u8; 8]; 24] = key_schedule_constants().1;

/// CAST-256 in every variant: `cast6::never::Cast6`, `cast6::auto_x4_unrolled::Cast6`
/// and so on, the cross product of three axes:
///
/// - the inline policy of the round functions (f1, f2, f3, the quad-rounds
///   Q and QBAR and the key schedule's forward octave W): `always`, `never`
///   and `auto`. `hint` is left out: it inlines everything but W and gave
///   `always`'s instruction counts and speed (reports/cast6.md);
/// - lanes, 1, 2, 3, 4, 6 or 8 blocks encrypted together round by round
///   (`x2`...), through `cipher`'s parallel blocks (`ParBlocksSize`). Six
///   is there because on this position-independent build four lanes are
///   latency-bound and eight are the largest: six is the smallest count
///   that ran at the scalar throughput limit (reports/cast6.md);
/// - the quad-round loops as written or unrolled (`unrolled`).
///
/// The reference is `auto`, one lane, rolled: the code as written.
#[codegen::variants(
    policy(always, never, auto),
    lanes(1, 2, 3, 4, 6, 8),
    unroll(rolled, unrolled),
    cipher = Cast6,
    // tcrypt speed mode 210.
    entry(
        modes: [Ecb: [16, 32], Cbc: [16, 32], Ctr: [16, 32], Xts: [32, 64]],
        peers: [
            "rustcrypto" {
                label: "cast6 0.2 (RustCrypto)",
                krate: cast6,
                keyed: cipher(Cast6),
            },
        ],
    )
)]
pub mod cast6 {
    use super::{TM, TR};
    use crate::consts::S;
    use crate::traits::zero_padded;
    use cipher::InvalidLength;
    use cipher::consts::{U16, U32};
    use zeroize::Zeroize;

    /// Key sizes RFC 2612 allows, in bytes (128, 160, 192, 224 or 256 bits);
    /// a shorter key is padded with zero bytes to 256 bits (section 2.4).
    pub const KEY_SIZES: [usize; 5] = [16, 20, 24, 28, 32];

    /// The words of a block, `BETA = ABCD` (RFC 2612 section 2.3): `beta[A]`
    /// is A.
    const A: usize = 0;
    const B: usize = 1;
    const C: usize = 2;
    const D: usize = 3;

    /// RFC 2612 section 2.2, round function type 1:
    ///
    /// ```text
    /// I = ((Kmi + D) <<< Kri)
    /// f = ((S1[Ia] ^ S2[Ib]) - S3[Ic]) + S4[Id]
    /// ```
    #[round]
    fn f1(d: u32, kr: u8, km: u32) -> u32 {
        let [ia, ib, ic, id] = km.wrapping_add(d).rotate_left(u32::from(kr)).to_be_bytes();
        (S[0][usize::from(ia)] ^ S[1][usize::from(ib)])
            .wrapping_sub(S[2][usize::from(ic)])
            .wrapping_add(S[3][usize::from(id)])
    }

    /// RFC 2612 section 2.2, round function type 2:
    ///
    /// ```text
    /// I = ((Kmi ^ D) <<< Kri)
    /// f = ((S1[Ia] - S2[Ib]) + S3[Ic]) ^ S4[Id]
    /// ```
    #[round]
    fn f2(d: u32, kr: u8, km: u32) -> u32 {
        let [ia, ib, ic, id] = (km ^ d).rotate_left(u32::from(kr)).to_be_bytes();
        (S[0][usize::from(ia)].wrapping_sub(S[1][usize::from(ib)])).wrapping_add(S[2][usize::from(ic)])
            ^ S[3][usize::from(id)]
    }

    /// RFC 2612 section 2.2, round function type 3:
    ///
    /// ```text
    /// I = ((Kmi - D) <<< Kri)
    /// f = ((S1[Ia] + S2[Ib]) ^ S3[Ic]) - S4[Id]
    /// ```
    #[round]
    fn f3(d: u32, kr: u8, km: u32) -> u32 {
        let [ia, ib, ic, id] = km.wrapping_sub(d).rotate_left(u32::from(kr)).to_be_bytes();
        ((S[0][usize::from(ia)].wrapping_add(S[1][usize::from(ib)])) ^ S[2][usize::from(ic)])
            .wrapping_sub(S[3][usize::from(id)])
    }

    /// RFC 2612 section 2.3, the forward quad-round `BETA <- Qi(BETA)`:
    ///
    /// ```text
    /// C = C ^ f1(D, Kr0_(i), Km0_(i))
    /// B = B ^ f2(C, Kr1_(i), Km1_(i))
    /// A = A ^ f3(B, Kr2_(i), Km2_(i))
    /// D = D ^ f1(A, Kr3_(i), Km3_(i))
    /// ```
    ///
    /// With lanes, `q_lanes` applies each of the four lines to every block
    /// before the next line, and `Subkeys::crypt_lanes` calls it once.
    #[round]
    #[lanes]
    fn q(#[lane] beta: &mut [u32; 4], kr: &[u8; 4], km: &[u32; 4]) {
        beta[C] ^= f1(beta[D], kr[0], km[0]);
        beta[B] ^= f2(beta[C], kr[1], km[1]);
        beta[A] ^= f3(beta[B], kr[2], km[2]);
        beta[D] ^= f1(beta[A], kr[3], km[3]);
    }

    /// RFC 2612 section 2.3, the reverse quad-round `BETA <- QBARi(BETA)`:
    ///
    /// ```text
    /// D = D ^ f1(A, Kr3_(i), Km3_(i))
    /// A = A ^ f3(B, Kr2_(i), Km2_(i))
    /// B = B ^ f2(C, Kr1_(i), Km1_(i))
    /// C = C ^ f1(D, Kr0_(i), Km0_(i))
    /// ```
    #[round]
    #[lanes]
    fn qbar(#[lane] beta: &mut [u32; 4], kr: &[u8; 4], km: &[u32; 4]) {
        beta[D] ^= f1(beta[A], kr[3], km[3]);
        beta[A] ^= f3(beta[B], kr[2], km[2]);
        beta[B] ^= f2(beta[C], kr[1], km[1]);
        beta[C] ^= f1(beta[D], kr[0], km[0]);
    }

    /// RFC 2612 section 2.4, the forward octave `KAPPA <- Wi(KAPPA)`:
    ///
    /// ```text
    /// G = G ^ f1(H, Tr0_(i), Tm0_(i))
    /// F = F ^ f2(G, Tr1_(i), Tm1_(i))
    /// E = E ^ f3(F, Tr2_(i), Tm2_(i))
    /// D = D ^ f1(E, Tr3_(i), Tm3_(i))
    /// C = C ^ f2(D, Tr4_(i), Tm4_(i))
    /// B = B ^ f3(C, Tr5_(i), Tm5_(i))
    /// A = A ^ f1(B, Tr6_(i), Tm6_(i))
    /// H = H ^ f2(A, Tr7_(i), Tm7_(i))
    /// ```
    #[round]
    fn w(kappa: &mut [u32; 8], tr: &[u8; 8], tm: &[u32; 8]) {
        let [a, b, c, d, e, f, g, h] = kappa;
        *g ^= f1(*h, tr[0], tm[0]);
        *f ^= f2(*g, tr[1], tm[1]);
        *e ^= f3(*f, tr[2], tm[2]);
        *d ^= f1(*e, tr[3], tm[3]);
        *c ^= f2(*d, tr[4], tm[4]);
        *b ^= f3(*c, tr[5], tm[5]);
        *a ^= f1(*b, tr[6], tm[6]);
        *h ^= f2(*a, tr[7], tm[7]);
    }

    /// The subkeys of one direction, in the order its rounds use them:
    /// `Kr_(i)`, the 12 quad-rounds' rotation keys (5 bits each), and
    /// `Km_(i)`, their masking keys.
    #[derive(Clone)]
    struct Subkeys {
        kr: [[u8; 4]; 12],
        km: [[u32; 4]; 12],
    }

    impl Subkeys {
        /// RFC 2612 section 2.5, encryption, on `BETA`, with these subkeys:
        ///
        /// ```text
        /// BETA = 128bits of plaintext
        /// for (i=0; i<6; i++)  BETA <- Qi(BETA)
        /// for (i=6; i<12; i++) BETA <- QBARi(BETA)
        /// 128bits of ciphertext = BETA
        /// ```
        ///
        /// Decryption is this with the subkeys in reverse order (section
        /// 2.5: "the rounds (and therefore the subkey indices) are
        /// reversed"), so both directions run this one function: one copy
        /// of the rounds for many blocks (`crypt_lanes`); for one block the
        /// macro inlines it into each direction's block backend (the
        /// serial path, codegen's `entry.rs`).
        #[lanes]
        fn crypt(&self, #[lane] beta: &mut [u32; 4]) {
            #[unroll]
            for i in 0..6 {
                q(beta, &self.kr[i], &self.km[i]);
            }
            #[unroll]
            for i in 6..12 {
                qbar(beta, &self.kr[i], &self.km[i]);
            }
        }
    }

    /// The CAST-256 block cipher (128-bit blocks) with its expanded key, in
    /// encryption's order and in decryption's. The key schedule is zeroized
    /// when the value is dropped.
    #[derive(Clone)]
    pub struct Cast6 {
        enc: Subkeys,
        dec: Subkeys,
    }

    impl Cast6 {
        /// RFC 2612 section 2.4, the key schedule, on a key already padded
        /// to 256 bits:
        ///
        /// ```text
        /// KAPPA = ABCDEFGH = 256 bits of the (padded) key
        /// for (i=0; i<12; i++)
        /// {
        ///    KAPPA <- W2i(KAPPA)
        ///    KAPPA <- W2i+1(KAPPA)
        ///    Kr_(i) <- 5LSB(A, C, E, G)
        ///    Km_(i) <- (H, F, D, B)
        /// }
        /// ```
        fn key_schedule(key: &[u8; 32]) -> Self {
            let mut kappa = [0u32; 8];
            for (word, bytes) in kappa.iter_mut().zip(key.chunks_exact(4)) {
                *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            }
            let empty = Subkeys {
                kr: [[0u8; 4]; 12],
                km: [[0u32; 4]; 12],
            };
            let (mut enc, mut dec) = (empty.clone(), empty);
            // The RFC's two octaves per quad-round as one loop over the 24,
            // so that W has one call site (`cargo xtask bloat cast6`: its size).
            for octave in 0..24 {
                w(&mut kappa, &TR[octave], &TM[octave]);
                if octave % 2 == 1 {
                    let i = octave / 2;
                    let [a, b, c, d, e, f, g, h] = kappa;
                    // Only the five low bits of A, C, E and G are a rotation.
                    let kr = [a, c, e, g].map(|x| (x & 0x1f) as u8);
                    let km = [h, f, d, b];
                    (enc.kr[i], enc.km[i]) = (kr, km);
                    // Decryption takes the quad-rounds' subkeys in reverse.
                    (dec.kr[11 - i], dec.km[11 - i]) = (kr, km);
                }
            }
            kappa.zeroize();
            Cast6 { enc, dec }
        }
    }

    /// ABCD, four big-endian 32-bit words of a block (RFC 2612 section 1).
    fn load(block: &[u8; 16]) -> [u32; 4] {
        let mut beta = [0u32; 4];
        for (word, bytes) in beta.iter_mut().zip(block.chunks_exact(4)) {
            *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        beta
    }

    fn store(beta: &[u32; 4], block: &mut [u8; 16]) {
        for (bytes, word) in block.chunks_exact_mut(4).zip(beta) {
            bytes.copy_from_slice(&word.to_be_bytes());
        }
    }

    cipher_traits! {
        Cast6 {
            name: "cast6-",
            key_size: U32,
            block_size: U16,
            new: |key| Self::key_schedule(key.as_ref()),
            // Accepts 16, 20, 24, 28 or 32 bytes, padded with zero bytes to
            // 32 (section 2.4); any other length is `InvalidLength`.
            new_from_slice: |key| {
                if !KEY_SIZES.contains(&key.len()) {
                    return Err(InvalidLength);
                }
                Ok(Self::key_schedule(&*zero_padded(key)?))
            },
            load: load,
            store: store,
            encrypt: |c, beta| c.enc.crypt(beta),
            encrypt_lanes: |c, beta| c.enc.crypt_lanes(beta),
            decrypt: |c, beta| c.dec.crypt(beta),
            decrypt_lanes: |c, beta| c.dec.crypt_lanes(beta),
            tail_pairs: |c, beta| c.enc.crypt_lanes_n(beta), |c, beta| c.dec.crypt_lanes_n(beta),
            zeroize: |c| {
                // Flat, each is one loop of volatile writes, not one per row.
                for keys in [&mut c.enc, &mut c.dec] {
                    keys.kr.as_flattened_mut().zeroize();
                    keys.km.as_flattened_mut().zeroize();
                }
            },
        }
    }

    // Last in the module, so that no line of the rounds moves: an artifact
    // holds its panic locations' line numbers.
    #[cfg(not(inlinelab_one))]
    impl Cast6 {
        /// Encryption's quad-round subkeys, `(Kr_(i), Km_(i))` for `i` in
        /// `0..12`: for a form of the rounds written outside the macro
        /// (`bench-harness`'s `cast6_forms` bench, the kernel's vector
        /// shapes), which checks its output against cast6 0.2's. Not in a
        /// build of one variant, whose artifact it would change.
        #[doc(hidden)]
        pub fn encryption_subkeys(&self) -> (&[[u8; 4]; 12], &[[u32; 4]; 12]) {
            (&self.enc.kr, &self.enc.km)
        }
    }
}
