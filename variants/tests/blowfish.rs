//! Blowfish: every variant against Schneier's and Eric Young's vectors and
//! against RustCrypto's `blowfish` crate, every invalid key length refused,
//! and the initial P-array and S-boxes checked against pi computed here.

mod common;

use cipher::KeyInit;
use common::{Dyn, New, constructors, hex, new, to_hex};
use variants::blowfish;

/// Every variant of `blowfish`, by name, as declared.
fn registry() -> Vec<(&'static str, New)> {
    variants::blowfish_variants!(constructors)
}

/// Eric Young's ECB test set for Blowfish (the vectors Schneier publishes
/// with the algorithm), encrypting and decrypting one block.
#[test]
fn eric_young_ecb_vectors() {
    let vectors = [
        ("0000000000000000", "0000000000000000", "4ef997456198dd78"),
        ("ffffffffffffffff", "ffffffffffffffff", "51866fd5b85ecb8a"),
        ("3000000000000000", "1000000000000001", "7d856f9a613063f2"),
        ("1111111111111111", "1111111111111111", "2466dd878b963c9d"),
        ("0123456789abcdef", "1111111111111111", "61f9c3802281b096"),
        ("fedcba9876543210", "0123456789abcdef", "0aceab0fc6a0a28d"),
    ];
    for (variant, new) in registry() {
        for (key, plaintext, ciphertext) in vectors {
            let cipher = new(&hex(key)).unwrap();
            let mut block = hex(plaintext);
            cipher.encrypt_block(&mut block);
            assert_eq!(to_hex(&block), ciphertext, "{variant}: encrypt, key {key}");
            cipher.decrypt_block(&mut block);
            assert_eq!(to_hex(&block), plaintext, "{variant}: decrypt, key {key}");
        }
    }
}

/// The specification's remark on key cycling: "if A is a 64-bit key, then
/// AA, AAA, etc., are equivalent keys" (up to the 448-bit maximum), and
/// `KeyInit::new` on a full 56-byte key is `new_from_slice` on it.
#[test]
fn repeated_keys_are_equivalent() {
    let encrypt = |cipher: &dyn Dyn| {
        let mut block = [0x5au8; 8];
        cipher.encrypt_block(&mut block);
        block
    };
    let a = hex("0123456789abcdef");
    let reference = encrypt(&*new::<::blowfish::Blowfish>(&a).unwrap());
    for (variant, new) in registry() {
        for times in 1..=7 {
            let cipher = new(&a.repeat(times)).unwrap();
            assert_eq!(encrypt(&*cipher), reference, "{variant}: {times} copies");
        }
    }
    let full = a.repeat(7);
    let by_new = blowfish::always::Blowfish::new(full.as_slice().try_into().unwrap());
    assert_eq!(encrypt(&by_new), reference, "KeyInit::new");
}

/// 10,000 seeded cases per variant over every key length 4..=56, one block
/// to eight, in ECB and CBC both ways, compared with RustCrypto `blowfish`
/// 0.10 (`Blowfish`, big-endian halves, keys through `new_from_slice`). The
/// key schedule (521 encryptions) is most of the work: each case keys the
/// oracle once for all the variants, and the cases are shared out over
/// the cores (case `c` to thread `c % threads`).
#[test]
fn against_rustcrypto_blowfish() {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    std::thread::scope(|scope| {
        for t in 0..threads {
            scope.spawn(move || against_rustcrypto_blowfish_cases(t, threads));
        }
    });
}

/// The cases `first`, `first + step`, ... of [`against_rustcrypto_blowfish`].
fn against_rustcrypto_blowfish_cases(first: u64, step: u64) {
    let oracle: New = new::<::blowfish::Blowfish>;
    let lengths: Vec<usize> = blowfish::KEY_SIZES.collect();
    let variants = registry();
    for case in (first..10_000u64).step_by(step as usize) {
        let mut rng = fastrand::Rng::with_seed(2_000_000 + case);
        let key_len = lengths[case as usize % lengths.len()];
        let mut key = vec![0u8; key_len];
        let blocks = rng.usize(1..=8);
        let mut data = vec![0u8; 8 * blocks];
        let mut iv = [0u8; 8];
        rng.fill(&mut key);
        rng.fill(&mut data);
        rng.fill(&mut iv);
        let o = oracle(&key).unwrap();
        for (variant, new) in &variants {
            common::check_modes(
                &format!("{variant}: {key_len}-byte key, case {case}"),
                &*new(&key).unwrap(),
                &*o,
                &iv,
                &data,
            );
        }
    }
}

/// Every variant, through the whole-buffer APIs (`encrypt_blocks`, the
/// `ecb`, `cbc` and `ctr` crates, `variants::modes`), on every length from 1
/// to 40 blocks: each lane count's full chunks and every tail it leaves.
#[test]
fn every_length_through_every_mode() {
    let key = hex("fedcba9876543210f0e1d2c3b4a59687");
    let oracle = new::<::blowfish::Blowfish>(&key).unwrap();
    for (variant, new) in registry() {
        common::check_lengths(variant, &*new(&key).unwrap(), &*oracle, 93);
    }
}

/// Every key length 0..=3 and 57..=100 is `InvalidLength`, and never a
/// panic; 4..=56 is accepted.
#[test]
fn invalid_key_lengths() {
    for (variant, new) in registry() {
        for len in 0..=100 {
            assert_eq!(
                new(&vec![7u8; len]).is_ok(),
                (4..=56).contains(&len),
                "{variant}: key of {len} bytes"
            );
        }
    }
}

/// Debug output names the type and holds no key material.
#[test]
fn debug_has_no_key_material() {
    let cipher = blowfish::always::Blowfish::new_from_slice(&[0xa5; 16]).unwrap();
    assert_eq!(format!("{cipher:?}"), "Blowfish { ... }");
}

/// The first `words` 32-bit words of pi's hexadecimal fraction, computed by
/// the Bailey-Borwein-Plouffe series
///
/// ```text
/// pi = sum over k >= 0 of 16^-k (4/(8k+1) - 2/(8k+4) - 1/(8k+5) - 1/(8k+6))
/// ```
///
/// in fixed point: word 0 the integer part, then the fraction, then two guard
/// words. Each term is a power of two divided by a small integer (a long
/// division); each division is short by less than one unit of the last word,
/// so the sum is within `4 * terms` units (below 2^16) of the truncated
/// series, whose tail is below one unit. The guard words must therefore not
/// be within 2^17 units of a carry into the words returned, which is checked.
fn pi_fraction_words(words: usize) -> Vec<u32> {
    let limbs = 1 + words + 2;
    let frac_bits = 32 * (limbs - 1);
    let mut acc = vec![0u32; limbs];
    let mut quotient = vec![0u32; limbs];
    let mut k = 0usize;
    while 4 * k < frac_bits {
        let shift = 4 * k;
        let (j, s) = (shift / 32, shift % 32);
        for (num, den, add) in [
            (4u64, 8 * k + 1, true),
            (2, 8 * k + 4, false),
            (1, 8 * k + 5, false),
            (1, 8 * k + 6, false),
        ] {
            let den = den as u64;
            // num * 2^-shift: limb j holds the high part of num << (32 - s),
            // limb j + 1 the low part, every later limb zero.
            let dividend = num << (32 - s);
            let mut rem = 0u64;
            for (i, q) in quotient.iter_mut().enumerate().skip(j) {
                let limb = match i - j {
                    0 => dividend >> 32,
                    1 => dividend & 0xffff_ffff,
                    _ => 0,
                };
                let cur = (rem << 32) | limb;
                *q = u32::try_from(cur / den).expect("rem < den keeps the quotient in a word");
                rem = cur % den;
            }
            let mut carry = 0i64;
            for i in (0..limbs).rev() {
                let q = if i >= j { i64::from(quotient[i]) } else { 0 };
                if i < j && carry == 0 {
                    break;
                }
                let t = i64::from(acc[i]) + if add { q } else { -q } + carry;
                acc[i] = t.rem_euclid(1 << 32) as u32;
                carry = t.div_euclid(1 << 32);
            }
        }
        k += 1;
    }
    assert_eq!(acc[0], 3, "the integer part of pi");
    let guard = (u64::from(acc[limbs - 2]) << 32) | u64::from(acc[limbs - 1]);
    assert!(
        (1 << 17..u64::MAX - (1 << 17)).contains(&guard),
        "guard words {guard:#x} too close to a carry: add guard words"
    );
    acc[1..=words].to_vec()
}

/// The initial P-array and S-boxes are pi's hexadecimal fraction "less the
/// initial 3", P1..P18 then S1..S4 in order (1042 words), recomputed here by
/// a different formula (BBP) than the one that generated the tables
/// (Machin's). Also the four words the specification quotes.
#[test]
fn initial_tables_are_pi() {
    let pi = pi_fraction_words(18 + 4 * 256);
    assert_eq!(
        pi[..4],
        [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
        "P1..P4 as the specification quotes them"
    );
    assert_eq!(blowfish::P_INIT[..], pi[..18], "P-array");
    for (b, sbox) in blowfish::S_INIT.iter().enumerate() {
        let at = 18 + 256 * b;
        assert_eq!(sbox[..], pi[at..at + 256], "S-box S{}", b + 1);
    }
}
