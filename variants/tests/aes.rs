//! AES: every variant against FIPS-197's vectors and RustCrypto's `aes`.

mod common;

use common::{Blocks, Dyn, New, NewBlocks, constructors, hex, new, new_blocks, to_hex};
use variants::aes;

/// Every variant's runtime-key-size `Aes`, by name.
fn registry() -> Vec<(&'static str, New)> {
    variants::aes_variants!(constructors)
}

/// Every variant's fixed-size types: (variant, key bytes, constructor).
/// Each wraps the variant's `Aes` and adds its own key setup and block
/// backend, seen here through its block API; the modes over that API are
/// the generic code `registry()`'s `Aes` goes through under every key size.
fn fixed() -> Vec<(&'static str, usize, NewBlocks)> {
    macro_rules! fixed {
        (cipher: aes, kind: cipher(Aes), variants: [$($v:ident)*]) => { vec![$(
            (stringify!($v), (16, new_blocks::<aes::$v::Aes128> as NewBlocks), aes::$v::Aes128::available()),
            (stringify!($v), (24, new_blocks::<aes::$v::Aes192> as NewBlocks), aes::$v::Aes192::available()),
            (stringify!($v), (32, new_blocks::<aes::$v::Aes256> as NewBlocks), aes::$v::Aes256::available()),
        )*] };
    }
    let all = common::runnable(variants::aes_variants!(fixed));
    all.into_iter()
        .map(|(v, (len, new))| (v, len, new))
        .collect()
}

/// FIPS-197 Appendix C.1, C.2, C.3: the same plaintext under 128-, 192- and
/// 256-bit keys, through `Aes` and through `Aes128`/`Aes192`/`Aes256`.
#[test]
fn fips197_appendix_c() {
    let pt = "00112233445566778899aabbccddeeff";
    let vectors = [
        (
            "000102030405060708090a0b0c0d0e0f",
            "69c4e0d86a7b0430d8cdb78070b4c55a",
        ),
        (
            "000102030405060708090a0b0c0d0e0f1011121314151617",
            "dda97ca4864cdfe06eaf70a0ec0d7191",
        ),
        (
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            "8ea2b7ca516745bfeafc49904b496089",
        ),
    ];
    let check = |name: &str, cipher: &dyn Blocks, key: &str, ct: &str| {
        let mut block = hex(pt);
        cipher.encrypt_block(&mut block);
        assert_eq!(to_hex(&block), ct, "{name}: encrypt, key {key}");
        cipher.decrypt_block(&mut block);
        assert_eq!(to_hex(&block), pt, "{name}: decrypt, key {key}");
    };
    for (key, ct) in vectors {
        for (variant, new) in registry() {
            check(variant, &*new(&hex(key)).unwrap(), key, ct);
        }
        for (variant, bytes, new) in fixed() {
            if bytes * 2 == key.len() {
                check(variant, &*new(&hex(key)).unwrap(), key, ct);
            }
        }
    }
}

/// 10,000 seeded cases per variant under every key size, in ECB and CBC
/// both ways, compared with RustCrypto `aes` 0.9 (whichever backend it picks
/// here).
#[test]
fn against_rustcrypto_aes() {
    for (variant, new) in registry() {
        for case in 0..10_000u64 {
            let mut rng = fastrand::Rng::with_seed(case);
            let key_len = aes::KEY_SIZES[case as usize % 3];
            let mut key = vec![0u8; key_len];
            let mut data = vec![0u8; 16 * rng.usize(1..=8)];
            let mut iv = [0u8; 16];
            rng.fill(&mut key);
            rng.fill(&mut data);
            rng.fill(&mut iv);
            let oracle: Box<dyn Dyn> = match key_len {
                16 => new_peer::<::aes::Aes128>(&key),
                24 => new_peer::<::aes::Aes192>(&key),
                _ => new_peer::<::aes::Aes256>(&key),
            };
            let c = new(&key).unwrap();
            common::check_modes(
                &format!("{variant}: {key_len}-byte key, case {case}"),
                &*c,
                &*oracle,
                &iv,
                &data,
            );
        }
    }
}

/// Every variant, through the whole-buffer APIs (`encrypt_blocks`, the
/// `ecb`, `cbc` and `ctr` crates, `variants::modes` with XTS), on every
/// length from 1 to 40 blocks, under each key size (10, 12 and 14 rounds);
/// its fixed-size types through their own block API at the same lengths.
#[test]
fn every_length_through_every_mode() {
    let key: Vec<u8> = (0..32).collect();
    for len in aes::KEY_SIZES {
        let key = &key[..len];
        let oracle: Box<dyn Dyn> = match len {
            16 => new_peer::<::aes::Aes128>(key),
            24 => new_peer::<::aes::Aes192>(key),
            _ => new_peer::<::aes::Aes256>(key),
        };
        for (variant, new) in registry() {
            let what = format!("{variant}, {len}-byte key");
            common::check_lengths(&what, &*new(key).unwrap(), &*oracle, 197);
        }
        for (variant, bytes, new) in fixed() {
            if bytes == len {
                let what = format!("{variant}, Aes{}", 8 * len);
                common::check_block_lengths(&what, &*new(key).unwrap(), &*oracle, 198);
            }
        }
    }
}

fn new_peer<C>(key: &[u8]) -> Box<dyn Dyn>
where
    C: cipher::KeyInit + cipher::BlockCipherEncrypt + cipher::BlockCipherDecrypt + Clone + 'static,
    C::BlockSize: common::Counter,
{
    new::<C>(key).expect("a valid key")
}

/// Every key length 0..=40 other than 16, 24 and 32 is `InvalidLength` for
/// `Aes`; each fixed type takes its one size only.
#[test]
fn invalid_key_lengths() {
    for len in 0..=40 {
        for (variant, new) in registry() {
            assert_eq!(
                new(&vec![7u8; len]).is_ok(),
                aes::KEY_SIZES.contains(&len),
                "{variant}: {len} bytes"
            );
        }
        for (variant, bytes, new) in fixed() {
            assert_eq!(
                new(&vec![7u8; len]).is_ok(),
                len == bytes,
                "{variant} {bytes}: {len} bytes"
            );
        }
    }
}

/// Every variant's types say whether this CPU can run them: the table
/// forms always, the AES-NI and VAES forms as CPUID says (and the tests
/// above ran them only because it said yes here).
#[test]
fn availability_is_the_cpus() {
    #[cfg(target_arch = "x86_64")]
    let (aesni, vaes) = (
        std::arch::is_x86_feature_detected!("aes"),
        std::arch::is_x86_feature_detected!("aes")
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("vaes"),
    );
    #[cfg(not(target_arch = "x86_64"))]
    let (aesni, vaes) = (false, false);
    macro_rules! each {
        (cipher: aes, kind: cipher(Aes), variants: [$($v:ident)*]) => {
            vec![$((
                stringify!($v),
                [aes::$v::Aes::available(), aes::$v::Aes128::available(), aes::$v::Aes192::available(), aes::$v::Aes256::available()],
            )),*]
        };
    }
    let all: Vec<(&str, [bool; 4])> = variants::aes_variants!(each);
    for form in ["tables_", "aesni_", "vaes_"] {
        assert!(
            all.iter().any(|(v, _)| v.starts_with(form)),
            "no {form} form declared"
        );
    }
    for (v, answers) in all {
        let expected = if v.starts_with("aesni_") {
            aesni
        } else if v.starts_with("vaes_") {
            vaes
        } else {
            true
        };
        assert_eq!(answers, [expected; 4], "{v}");
    }
}
