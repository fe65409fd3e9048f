//! CAST5: every variant (each inline policy in each branch form) against
//! RFC 2144's vectors and against RustCrypto's `cast5` crate.

mod common;

use cipher::{BlockCipherEncrypt, KeyInit};
use common::{New, constructors, hex, new, to_hex};
use variants::cast5;

/// Every variant of `cast5`, by name, as declared.
fn registry() -> Vec<(&'static str, New)> {
    variants::cast5_variants!(constructors)
}

/// RFC 2144 Appendix B.1: 128-, 80- and 40-bit keys (16 and 12 rounds).
#[test]
fn rfc2144_b1() {
    let check = |key: &str, ciphertext: &str| {
        for (variant, new) in registry() {
            let cipher = new(&hex(key)).unwrap();
            let mut block = hex("0123456789abcdef");
            cipher.encrypt_block(&mut block);
            assert_eq!(to_hex(&block), ciphertext, "{variant}: encrypt, key {key}");
            cipher.decrypt_block(&mut block);
            assert_eq!(
                to_hex(&block),
                "0123456789abcdef",
                "{variant}: decrypt, key {key}"
            );
        }
    };
    check("0123456712345678234567893456789a", "238b4fe5847e44b2");
    check("01234567123456782345", "eb6a711a2c02271b");
    check("0123456712", "7ac816d16e9b302e");
}

/// RFC 2144 Appendix B.2, the full maintenance test (1,000,000
/// iterations), for one variant of each branch form.
#[test]
fn rfc2144_b2_maintenance() {
    fn run<C: KeyInit + BlockCipherEncrypt>() -> (String, String) {
        let mut a = hex("0123456712345678234567893456789a");
        let mut b = a.clone();
        for _ in 0..1_000_000 {
            let kb = C::new_from_slice(&b).unwrap();
            let (al, ar) = a.split_at_mut(8);
            kb.encrypt_block(al.try_into().unwrap());
            kb.encrypt_block(ar.try_into().unwrap());
            let ka = C::new_from_slice(&a).unwrap();
            let (bl, br) = b.split_at_mut(8);
            ka.encrypt_block(bl.try_into().unwrap());
            ka.encrypt_block(br.try_into().unwrap());
        }
        (to_hex(&a), to_hex(&b))
    }
    let want = (
        "eea9d0a249fd3ba6b3436fb89d6dca92".to_string(),
        "b2c95eb00c31ad7180ac05b8e83d696e".to_string(),
    );
    assert_eq!(
        run::<cast5::never_factored::Cast5>(),
        want,
        "never_factored"
    );
    assert_eq!(
        run::<cast5::never_duplicated::Cast5>(),
        want,
        "never_duplicated"
    );
}

/// 10,000 seeded cases per variant over every key length 5..=16, one block
/// to eight, in ECB and CBC both ways, compared with RustCrypto `cast5` 0.12.
#[test]
fn against_rustcrypto_cast5() {
    let oracle: New = new::<::cast5::Cast5>;
    for (variant, new) in registry() {
        for case in 0..10_000u64 {
            let mut rng = fastrand::Rng::with_seed(case);
            let key_len = 5 + (case as usize % 12);
            let mut key = vec![0u8; key_len];
            let blocks = rng.usize(1..=8);
            let mut data = vec![0u8; 8 * blocks];
            let mut iv = [0u8; 8];
            rng.fill(&mut key);
            rng.fill(&mut data);
            rng.fill(&mut iv);
            let (c, o) = (new(&key).unwrap(), oracle(&key).unwrap());
            common::check_modes(
                &format!("{variant}: {key_len}-byte key, case {case}"),
                &*c,
                &*o,
                &iv,
                &data,
            );
        }
    }
}

/// Every variant, through the whole-buffer APIs (`encrypt_blocks`, the
/// `ecb`, `cbc` and `ctr` crates, `variants::modes`), on every length from 1
/// to 40 blocks, with a 16-round (128-bit) and a 12-round (80-bit) key.
#[test]
fn every_length_through_every_mode() {
    for key in [
        hex("0123456712345678234567893456789a"),
        hex("01234567123456782345"),
    ] {
        let oracle = new::<::cast5::Cast5>(&key).unwrap();
        for (variant, new) in registry() {
            let what = format!("{variant}, {}-byte key", key.len());
            common::check_lengths(&what, &*new(&key).unwrap(), &*oracle, 5);
        }
    }
}

/// Every key length 0..=40 outside 5..=16 is `InvalidLength`.
#[test]
fn invalid_key_lengths() {
    for (variant, new) in registry() {
        for len in 0..=40 {
            assert_eq!(
                new(&vec![7u8; len]).is_ok(),
                (5..=16).contains(&len),
                "{variant}: {len} bytes"
            );
        }
    }
}
