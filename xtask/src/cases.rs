//! The cases measured: ECB and CBC (or a checksum's digest), both
//! directions, the kernel template's key sizes, the block sizes; and, for
//! compare, key setup at each key size.

use bench_harness::compare::Case;
use bench_harness::engine::{Dir, Mode};
use bench_harness::registry::CipherEntry;

/// The cases of `entry` at `sizes` (each rounded up to whole cipher
/// blocks); only each mode's first key size when `first_key_only`.
pub fn cases(entry: &CipherEntry, first_key_only: bool, sizes: &[usize]) -> Vec<Case> {
    let bs = entry.block_size;
    let sizes: Vec<usize> = sizes.iter().map(|s| s.div_ceil(bs) * bs).collect();
    let mut out = Vec::new();
    for &(mode, keys) in entry
        .modes
        .iter()
        .filter(|(m, _)| matches!(m, Mode::Ecb | Mode::Cbc | Mode::Digest))
    {
        let keys = if first_key_only { &keys[..1] } else { keys };
        let dirs: &[Dir] = if mode == Mode::Digest {
            &[Dir::Encrypt]
        } else {
            &Dir::BOTH
        };
        for &dir in dirs {
            for &key_bytes in keys {
                for &block_bytes in &sizes {
                    out.push(Case::crypt(mode, dir, key_bytes, block_bytes));
                }
            }
        }
    }
    out
}

/// Key setup of `entry`: one case per key size of its first block-cipher
/// mode's template (only the first when `first_key_only`); none for a
/// checksum, which has no key.
pub fn setkey(entry: &CipherEntry, first_key_only: bool) -> Vec<Case> {
    let Some(&(mode, keys)) = entry
        .modes
        .iter()
        .find(|(m, _)| matches!(m, Mode::Ecb | Mode::Cbc))
    else {
        return Vec::new();
    };
    let keys = if first_key_only { &keys[..1] } else { keys };
    keys.iter().map(|&k| Case::set_key(mode, k)).collect()
}
