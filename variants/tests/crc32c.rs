//! CRC32C: every variant against the check value and vectors, and against
//! the `crc32c` crate at every length and every split point.

use variants::crc32c;

type Crc = fn(&[u8]) -> u32;
type Append = fn(u32, &[u8]) -> u32;

/// Every variant that this CPU can run, by name.
fn registry() -> Vec<(&'static str, Crc, Append)> {
    macro_rules! registry {
        (cipher: crc32c, kind: checksum, variants: [$($v:ident)*]) => {
            vec![$((stringify!($v), crc32c::$v::crc32c as Crc, crc32c::$v::crc32c_append as Append, crc32c::$v::available())),*]
        };
    }
    let all = variants::crc32c_variants!(registry);
    all.into_iter()
        .filter(|(name, .., available)| {
            *available || {
                eprintln!("{name}: unavailable on this CPU");
                false
            }
        })
        .map(|(n, c, a, _)| (n, c, a))
        .collect()
}

/// The check value of "123456789" and the vectors of RFC 3720 B.4.
#[test]
fn check_values() {
    for (variant, crc, _) in registry() {
        assert_eq!(crc(b"123456789"), 0xe306_9283, "{variant}");
        assert_eq!(crc(&[0u8; 32]), 0x8a91_36aa, "{variant}: 32 zero bytes");
        assert_eq!(
            crc(&[0xffu8; 32]),
            0x62a8_ab43,
            "{variant}: 32 bytes of 0xff"
        );
        assert_eq!(crc(b""), 0, "{variant}: empty");
    }
}

/// Every variant against the `crc32c` crate on the first `len` bytes of
/// `bytes` seeded data from `seed`, for each `len` that `keep` keeps.
fn against_the_crate(bytes: usize, seed: u64, keep: impl Fn(usize) -> bool) {
    let mut data = vec![0u8; bytes];
    fastrand::Rng::with_seed(seed).fill(&mut data);
    let lengths: Vec<usize> = (0..=bytes).filter(|&n| keep(n)).collect();
    for (variant, crc, _) in registry() {
        for &len in &lengths {
            assert_eq!(
                crc(&data[..len]),
                ::crc32c::crc32c(&data[..len]),
                "{variant}: {len} bytes"
            );
        }
    }
}

/// The `crc32c` crate's answer at every length 0..=1024 of seeded data.
#[test]
fn every_length_against_the_crate() {
    against_the_crate(1024, 3720, |_| true);
}

/// Buffers of several rounds of each size the three-stream form cuts
/// (`sse42x3`: three parts of 256, then of 64 bytes), every remainder of a
/// word and of a round after them.
#[test]
fn long_buffers_against_the_crate() {
    against_the_crate(3 * 256 * 11 + 3 * 64 * 3 + 64, 3721, |n| {
        n % 97 == 0 || n % 768 < 9 || n % 192 < 9
    });
}

/// Appending: every split point of a 300-byte input gives the whole's CRC.
#[test]
fn every_split_point() {
    let mut data = vec![0u8; 300];
    fastrand::Rng::with_seed(300).fill(&mut data);
    let whole = ::crc32c::crc32c(&data);
    for (variant, crc, append) in registry() {
        for split in 0..=300 {
            let (a, b) = data.split_at(split);
            assert_eq!(append(crc(a), b), whole, "{variant}: split at {split}");
        }
    }
}

/// The SSE4.2 variants (one stream and three) say whether the CPU can run them, as CPUID does.
#[test]
fn sse42_availability_is_the_cpus() {
    #[cfg(target_arch = "x86_64")]
    let has = std::arch::is_x86_feature_detected!("sse4.2");
    #[cfg(not(target_arch = "x86_64"))]
    let has = false;
    assert_eq!(crc32c::sse42_never::available(), has);
    assert_eq!(crc32c::sse42_auto::available(), has);
    assert_eq!(crc32c::sse42x3_never::available(), has);
    assert_eq!(crc32c::sse42x3_auto::available(), has);
}
