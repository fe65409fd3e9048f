//! CAST6: every variant against RFC 2612's vectors and against RustCrypto's
//! `cast6` crate, and every invalid key length refused.

mod common;

use common::{Dyn, New, constructors, hex, new, to_hex};
use variants::cast6;

/// Every variant of `cast6`, by name, as declared.
fn registry() -> Vec<(&'static str, New)> {
    variants::cast6_variants!(constructors)
}

/// RFC 2612 Appendix A: encrypting the all-zero block.
#[test]
fn rfc2612_appendix_a() {
    let check = |key: &str, ciphertext: &str| {
        for (variant, new) in registry() {
            let cipher = new(&hex(key)).unwrap();
            let mut block = [0u8; 16];
            cipher.encrypt_block(&mut block);
            assert_eq!(to_hex(&block), ciphertext, "{variant}: encrypt, key {key}");
            cipher.decrypt_block(&mut block);
            assert_eq!(block, [0u8; 16], "{variant}: decrypt, key {key}");
        }
    };
    check(
        "2342bb9efa38542c0af75647f29f615d",
        "c842a08972b43d20836c91d1b7530f6b",
    );
    check(
        "2342bb9efa38542cbed0ac83940ac298bac77a7717942863",
        "1b386c0210dcadcbdd0e41aa08a7a7e8",
    );
    check(
        "2342bb9efa38542cbed0ac83940ac2988d7c47ce264908461cc1b5137ae6b604",
        "4f6a2038286897b9c9870136553317fa",
    );
}

/// 10,000 seeded cases per variant over all five key lengths, one block to
/// eight, in ECB and CBC both ways, compared with RustCrypto `cast6` 0.2.
#[test]
fn against_rustcrypto_cast6() {
    let oracle: New = new::<::cast6::Cast6>;
    let check = |variant: &str, cipher: &dyn Dyn, reference: &dyn Dyn, case: usize| {
        let mut rng = fastrand::Rng::with_seed(case as u64);
        let blocks = if case.is_multiple_of(2) {
            1
        } else {
            rng.usize(2..=8)
        };
        let mut data = vec![0u8; 16 * blocks];
        let mut iv = [0u8; 16];
        rng.fill(&mut data);
        rng.fill(&mut iv);
        common::check_modes(
            &format!("{variant}, case {case}"),
            cipher,
            reference,
            &iv,
            &data,
        );
    };
    for (variant, new) in registry() {
        for case in 0..10_000 {
            let mut rng = fastrand::Rng::with_seed(1_000_000 + case as u64);
            let key_len = cast6::KEY_SIZES[case % cast6::KEY_SIZES.len()];
            let mut key = vec![0u8; key_len];
            rng.fill(&mut key);
            check(variant, &*new(&key).unwrap(), &*oracle(&key).unwrap(), case);
        }
    }
}

/// Every variant, through the whole-buffer APIs (`encrypt_blocks`, the
/// `ecb`, `cbc` and `ctr` crates, `variants::modes`), on every length from 1
/// to 40 blocks: each lane count's full chunks and every tail it leaves.
#[test]
fn every_length_through_every_mode() {
    let key = hex("2342bb9efa38542cbed0ac83940ac2988d7c47ce264908461cc1b5137ae6b604");
    let oracle = new::<::cast6::Cast6>(&key).unwrap();
    for (variant, new) in registry() {
        common::check_lengths(variant, &*new(&key).unwrap(), &*oracle, 6);
    }
}

/// Every key length from 0 to 40 bytes other than 16, 20, 24, 28 and 32 is
/// `InvalidLength`, and never a panic.
#[test]
fn invalid_key_lengths() {
    for (variant, new) in registry() {
        for len in 0..=40 {
            let valid = cast6::KEY_SIZES.contains(&len);
            assert_eq!(
                new(&vec![7u8; len]).is_ok(),
                valid,
                "{variant}: key of {len} bytes"
            );
        }
    }
}
