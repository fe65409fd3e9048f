//! `variants::modes` against RustCrypto's mode crates, and its length errors.

mod common;

use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, BlockSizeUser, KeyInit, KeyIvInit};
use cipher::{StreamCipher, consts::U16};
use common::Dyn;
use variants::modes::{self, LengthError};

type Cipher = variants::cast6::auto::Cast6;

/// One seeded case: `blocks` blocks (plus `tail` bytes for CTR) under a random
/// key and IV, each mode of ours against the crate's.
fn check(seed: u64, blocks: usize, tail: usize) {
    check_with::<Cipher>(seed, blocks, tail);
}

fn check_with<C>(seed: u64, blocks: usize, tail: usize)
where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt + BlockSizeUser<BlockSize = U16> + Clone,
{
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut key = [0u8; 32];
    let mut iv = [0u8; 16];
    let mut data = vec![0u8; 16 * blocks];
    rng.fill(&mut key);
    rng.fill(&mut iv);
    rng.fill(&mut data);
    let c = C::new_from_slice(&key).unwrap();

    let (mut ours, mut theirs) = (data.clone(), data.clone());
    modes::ecb_encrypt(&c, &mut ours).unwrap();
    c.ecb_encrypt(&mut theirs);
    assert_eq!(ours, theirs, "ecb encrypt, seed {seed}");
    modes::ecb_decrypt(&c, &mut ours).unwrap();
    assert_eq!(ours, data, "ecb decrypt, seed {seed}");

    let (mut ours, mut theirs) = (data.clone(), data.clone());
    let mut chained = iv;
    modes::cbc_encrypt(&c, &mut chained, &mut ours).unwrap();
    c.cbc_encrypt(&iv, &mut theirs);
    assert_eq!(ours, theirs, "cbc encrypt, seed {seed}");
    if blocks > 0 {
        assert_eq!(chained[..], ours[ours.len() - 16..], "cbc chains its iv");
    }
    let mut chained = iv;
    modes::cbc_decrypt(&c, &mut chained, &mut ours).unwrap();
    assert_eq!(ours, data, "cbc decrypt, seed {seed}");
    if blocks > 0 {
        assert_eq!(
            chained[..],
            theirs[theirs.len() - 16..],
            "cbc decrypt chains its iv"
        );
    }

    data.extend((0..tail).map(|i| i as u8));
    let (mut ours, mut theirs) = (data.clone(), data.clone());
    let mut counter = iv;
    modes::ctr_apply(&c, &mut counter, &mut ours).unwrap();
    ctr::Ctr128BE::<C>::new(&key[..].try_into().unwrap(), &iv.into()).apply_keystream(&mut theirs);
    assert_eq!(ours, theirs, "ctr, seed {seed}");

    let data = &data[..16 * blocks];
    let k2 = C::new_from_slice(&key[..16]).unwrap();
    let xts = xts_mode::Xts128::new(c.clone(), k2.clone());
    let (mut ours, mut theirs) = (data.to_vec(), data.to_vec());
    modes::xts_encrypt(&c, &k2, &iv, &mut ours).unwrap();
    if blocks > 0 {
        xts.encrypt_sector(&mut theirs, iv.into());
    }
    assert_eq!(ours, theirs, "xts encrypt, seed {seed}");
    modes::xts_decrypt(&c, &k2, &iv, &mut ours).unwrap();
    assert_eq!(ours, data, "xts decrypt, seed {seed}");
}

#[test]
fn against_mode_crates() {
    for seed in 0..200 {
        check(seed, (seed % 9) as usize, (seed % 16) as usize);
    }
}

/// The loops hand a cipher with lanes whole chunks of `LANES` blocks and
/// the tail one by one; against the mode crates at every length to 20
/// blocks (the crates feed the same chunks, and are checked with one lane
/// above).
#[test]
fn against_mode_crates_with_lanes() {
    for seed in 0..60u64 {
        let (blocks, tail) = ((seed % 21) as usize, (seed % 16) as usize);
        check_with::<variants::cast6::always_x3::Cast6>(seed, blocks, tail);
        check_with::<variants::cast6::never_x8_unrolled::Cast6>(seed, blocks, tail);
        check_with::<variants::aes::tables_auto_x4::Aes>(seed, blocks, tail);
    }
}

#[test]
fn ctr_counter_carries_across_bytes() {
    // A counter ending in ff ff must carry into the byte before.
    check(7, 3, 0);
    let c = Cipher::new_from_slice(&[1u8; 16]).unwrap();
    let mut counter = [0u8; 16];
    counter[14] = 0xff;
    counter[15] = 0xff;
    modes::ctr_apply(&c, &mut counter, &mut [0u8; 16]).unwrap();
    assert_eq!(counter[13..], [1, 0, 0]);
    // All ones wraps to zero, through the lanes path too (8 blocks).
    let mut counter = [0xff; 16];
    modes::ctr_apply(&c, &mut counter, &mut [0u8; 16]).unwrap();
    assert_eq!(counter, [0; 16]);
    let lanes = variants::cast6::auto_x8::Cast6::new_from_slice(&[1u8; 16]).unwrap();
    let mut counter = [0xff; 16];
    counter[0] = 0;
    modes::ctr_apply(&lanes, &mut counter, &mut [0u8; 16 * 8]).unwrap();
    let mut want = [0u8; 16];
    want[0] = 1;
    want[15] = 7;
    assert_eq!(counter, want);
}

#[test]
fn length_errors() {
    let c = Cipher::new_from_slice(&[1u8; 16]).unwrap();
    let partial = LengthError::PartialBlock { len: 17, block: 16 };
    assert_eq!(modes::ecb_encrypt(&c, &mut [0u8; 17]), Err(partial));
    assert_eq!(modes::ecb_decrypt(&c, &mut [0u8; 17]), Err(partial));
    let bad_iv = LengthError::Iv { len: 8, block: 16 };
    assert_eq!(
        modes::cbc_encrypt(&c, &mut [0u8; 8], &mut [0u8; 16]),
        Err(bad_iv)
    );
    assert_eq!(
        modes::cbc_decrypt(&c, &mut [0u8; 8], &mut [0u8; 16]),
        Err(bad_iv)
    );
    assert_eq!(
        modes::ctr_apply(&c, &mut [0u8; 8], &mut [0u8; 16]),
        Err(bad_iv)
    );
    assert_eq!(
        partial.to_string(),
        "17 bytes is not a whole number of 16-byte blocks"
    );
}

/// The library is built with `test = false` and `doctest = false`
/// (Cargo.toml): a unit test or a doc example written in `src/` would never
/// run. So there is none: every test goes in `tests/`, every fenced block
/// in a doc comment is `text`.
#[test]
fn the_library_holds_no_test_that_would_not_run() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for e in std::fs::read_dir(&src).unwrap() {
        let path = e.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut in_block = false;
        for (n, line) in text.lines().enumerate() {
            let at = format!("{}:{}", path.display(), n + 1);
            let code = line.trim_start();
            assert!(
                !code.starts_with("#[test]") && !code.starts_with("#[cfg(test)]"),
                "{at}: a unit test in variants/src never runs (the library has test = false): move it to tests/"
            );
            let fence = code
                .trim_start_matches("//!")
                .trim_start_matches("///")
                .trim();
            if fence.starts_with("```") {
                assert!(
                    in_block || fence == "```text",
                    "{at}: a doc example in variants/src never runs (doctest = false): make it `text` or a test in tests/"
                );
                in_block = !in_block;
            }
        }
    }
}

/// Every variant's own CBC loop (`modes::cbc_encrypt_chained`, what the
/// artifacts run) against the shared one (checked against the `cbc` crate
/// above and in each cipher's tests): every length from 0 to 40 blocks,
/// the chained IV too.
#[test]
fn each_variants_own_cbc_loop_is_cbc() {
    macro_rules! chained {
        (cipher: $c:ident, kind: cipher($ty:ident), variants: [$($v:ident)*]) => {
            $(
                if variants::$c::$v::$ty::available() {
                    own_loop_is_cbc::<variants::$c::$v::$ty>(concat!(
                        stringify!($c),
                        "::",
                        stringify!($v)
                    ));
                }
            )*
        };
    }
    variants::cast6_variants!(chained);
    variants::cast5_variants!(chained);
    variants::blowfish_variants!(chained);
    variants::aes_variants!(chained);
}

fn own_loop_is_cbc<C: KeyInit + modes::CbcChain>(name: &str) {
    let bs = C::block_size();
    let mut rng = fastrand::Rng::with_seed(bs as u64);
    let mut key = [0u8; 16];
    rng.fill(&mut key);
    let c = C::new_from_slice(&key).unwrap_or_else(|e| panic!("{name}: {e}"));
    for blocks in 0..=40 {
        let mut data = vec![0u8; bs * blocks];
        let mut iv = vec![0u8; bs];
        rng.fill(&mut data);
        rng.fill(&mut iv);
        let (mut own, mut shared) = (data.clone(), data);
        let (mut own_iv, mut shared_iv) = (iv.clone(), iv);
        modes::cbc_encrypt_chained(&c, &mut own_iv, &mut own).unwrap();
        modes::cbc_encrypt(&c, &mut shared_iv, &mut shared).unwrap();
        assert_eq!(own, shared, "{name}: {blocks} blocks");
        assert_eq!(own_iv, shared_iv, "{name}: the chained iv, {blocks} blocks");
    }
    let mut iv = vec![0u8; bs + 1];
    assert_eq!(
        modes::cbc_encrypt_chained(&c, &mut iv, &mut [0u8; 4]),
        Err(LengthError::Iv {
            len: bs + 1,
            block: bs
        }),
        "{name}"
    );
}
