//! Where things sit, varied from one measuring process to the next, so
//! that a placement effect is noise between processes rather than a bias
//! that every process repeats. Identical code loaded second (one artifact
//! and its copy) measured 0.3-0.5% slower than the same code loaded first
//! in 7 of 10 calibration comparisons when the load order and the buffers'
//! addresses were the same in every process: the processes, the unit of
//! every interval, cannot see an effect they all share. A random load order
//! turned the bias into a coin flip (4 of 40 comparisons with every process
//! on one side); so the load order alternates instead (xtask's measuring
//! process loads last to first in every other process: for every two
//! artifacts, each is loaded first in half the processes), and each timed
//! buffer sits at a random offset (a random padding allocated before it),
//! allocated in a random engine order.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// A small random generator seeded from the process's own randomness (std's
/// `RandomState`, fresh keys per process): no dependency, and no claim to
/// be more than a shuffle needs.
pub struct Rng(u64);

impl Rng {
    pub fn new() -> Rng {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(std::process::id() as u64);
        Rng(h.finish() | 1)
    }

    /// A generator that draws what one seeded with `seed` draws, so that
    /// a draw can be made again (0 is taken as 1).
    pub fn with_seed(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next value (xorshift64*).
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value below `n` (0 for `n` 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// `0..n` in a random order (Fisher-Yates).
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
        v
    }
}

impl Default for Rng {
    fn default() -> Rng {
        Rng::new()
    }
}

/// Buffers of `sizes[e][c]` bytes of 0xff, allocated engine by engine in a
/// random order, each after a random padding of 0 to 4095 bytes (kept, so
/// that the allocator cannot hand its space back): `(buffers, padding)`.
pub fn buffers(sizes: &[Vec<usize>], rng: &mut Rng) -> (Vec<Vec<Vec<u8>>>, Vec<Vec<u8>>) {
    let mut bufs: Vec<Vec<Vec<u8>>> = sizes.iter().map(|_| Vec::new()).collect();
    let mut padding = Vec::new();
    for e in rng.permutation(sizes.len()) {
        for &n in &sizes[e] {
            padding.push(vec![0u8; rng.below(4096)]);
            bufs[e].push(vec![0xff; n]);
        }
    }
    (bufs, padding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_hold_every_index_once() {
        let mut rng = Rng::new();
        for n in [0, 1, 2, 7, 30] {
            let mut p = rng.permutation(n);
            p.sort_unstable();
            assert_eq!(p, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn buffers_have_their_sizes_in_engine_order() {
        let sizes = vec![vec![16, 8192], vec![16, 8192], vec![1424, 0]];
        let (bufs, padding) = buffers(&sizes, &mut Rng::new());
        for (e, row) in sizes.iter().enumerate() {
            let got: Vec<usize> = bufs[e].iter().map(Vec::len).collect();
            assert_eq!(&got, row);
            assert!(bufs[e].iter().flatten().all(|&b| b == 0xff));
        }
        assert_eq!(padding.len(), 6);
        assert!(padding.iter().all(|p| p.len() < 4096));
    }
}
