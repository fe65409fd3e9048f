//! CAST-256's rounds in the vector shapes the macro does not build, timed
//! interleaved against every CAST6 variant and cast6 0.2 (RustCrypto) in
//! one process: the evidence for what bounds CAST6's ECB speed on the
//! machine it runs on. `cargo bench -p bench-harness --bench cast6_forms`.
//!
//! The shapes (x86-64, where the CPU has AVX for the first and AVX2 for the
//! others; each checked against cast6 0.2 before it is timed):
//!
//! - `xmm_xN`: the kernel's `cast6-avx-x86_64-asm_64.S` shape. Word A, B, C
//!   and D of four blocks each in one 128-bit register, so that a lane's
//!   state never leaves the registers; the key mixing, the rotation and the
//!   XOR into the state run on four blocks an instruction, and the four
//!   S-box lookups of each word run on general registers (the index words
//!   moved out 64 bits at a time, the results moved back the same way).
//!   `N` is the blocks in flight: 8 (the kernel's) and 16.
//! - `gather_xN`: the same with eight blocks to a 256-bit register and the
//!   S-box lookups done by `vpgatherdd`, so that no word leaves the vector
//!   registers.
//! - `hybrid_8+16`: eight blocks in the scalar shape the macro builds
//!   (`q_lanes`) beside sixteen gathered, round by round, in case the two
//!   use different parts of the core.
//!
//! The harness's interleaving loop (`interleave::interleave`) times a batch
//! of ECB encryptions of one buffer by each shape, variant and peer in turn,
//! round after round; a shape's level is the median over rounds of its
//! ticks per block, its speed the median over rounds of cast6 0.2's ticks
//! over its own in that round.
//!
//! RFC 2612 section 2.2 (the round functions, whose lookups and combining
//! every shape here computes as the variants do):
//!
//! ```text
//! f1: I = ((Kmi + D) <<< Kri); f = ((S1[Ia] ^ S2[Ib]) - S3[Ic]) + S4[Id]
//! f2: I = ((Kmi ^ D) <<< Kri); f = ((S1[Ia] - S2[Ib]) + S3[Ic]) ^ S4[Id]
//! f3: I = ((Kmi - D) <<< Kri); f = ((S1[Ia] + S2[Ib]) ^ S3[Ic]) - S4[Id]
//! ```

fn main() {
    #[cfg(target_arch = "x86_64")]
    x86::run();
    #[cfg(not(target_arch = "x86_64"))]
    println!("cast6_forms: the vector shapes are x86-64's; nothing to time here");
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use bench_harness::clock::Counter;
    use bench_harness::engine::{Dir, Engine, EngineError, Mode};
    use bench_harness::interleave::{Schedule, Workload, interleave};
    use bench_harness::registry::{self, Alg};
    use bench_harness::stats::median;
    use cipher::{Array, BlockCipherEncrypt, KeyInit};
    use core::arch::x86_64::{
        __m128i, __m256i, _mm_add_epi32, _mm_cvtsi32_si128, _mm_cvtsi64_si128, _mm_cvtsi128_si64,
        _mm_extract_epi64, _mm_insert_epi64, _mm_or_si128, _mm_set_epi8, _mm_set1_epi32,
        _mm_shuffle_epi8, _mm_sll_epi32, _mm_srl_epi32, _mm_sub_epi32, _mm_unpackhi_epi32,
        _mm_unpackhi_epi64, _mm_unpacklo_epi32, _mm_unpacklo_epi64, _mm_xor_si128,
        _mm256_add_epi32, _mm256_and_si256, _mm256_castsi256_si128, _mm256_extracti128_si256,
        _mm256_i32gather_epi32, _mm256_or_si256, _mm256_set_m128i, _mm256_set1_epi32,
        _mm256_sll_epi32, _mm256_srl_epi32, _mm256_srli_epi32, _mm256_sub_epi32, _mm256_xor_si256,
    };
    use variants::CAST_S1_TO_S4 as S;
    use variants::cast6::auto::Cast6 as Keyed;

    /// Bytes encrypted a round: a multiple of every shape's blocks in
    /// flight (8, 16, 24 and 32 blocks of 16 bytes).
    const BYTES: usize = 6144;
    const BLOCKS: usize = BYTES / 16;
    /// Interleaved rounds, and the timed work of one batch.
    const ROUNDS: usize = 31;
    const BATCH_SECONDS: f64 = 0.01;

    /// The quad-rounds' subkeys, `Kr_(i)` and `Km_(i)`, in encryption's order.
    struct Subkeys {
        kr: [[u8; 4]; 12],
        km: [[u32; 4]; 12],
    }

    const A: usize = 0;
    const B: usize = 1;
    const C: usize = 2;
    const D: usize = 3;

    /// RFC 2612 section 2.3: quad-round `i`'s four lines, forward (`Q`:
    /// `C ^= f1(D)`, `B ^= f2(C)`, `A ^= f3(B)`, `D ^= f1(A)`) for the first
    /// six, reversed (`QBAR`) for the last six, each line `line!(f, target,
    /// source, key index)`.
    macro_rules! quad_rounds {
        ($k:expr, $line:ident) => {
            for i in 0..12 {
                let (kr, km) = (&$k.kr[i], &$k.km[i]);
                if i < 6 {
                    $line!(1, C, D, kr[0], km[0]);
                    $line!(2, B, C, kr[1], km[1]);
                    $line!(3, A, B, kr[2], km[2]);
                    $line!(1, D, A, kr[3], km[3]);
                } else {
                    $line!(1, D, A, kr[3], km[3]);
                    $line!(3, A, B, kr[2], km[2]);
                    $line!(2, B, C, kr[1], km[1]);
                    $line!(1, C, D, kr[0], km[0]);
                }
            }
        };
    }

    /// The lookups and combining of `f`, on the rotated `I`.
    #[inline(always)]
    fn lookups<const F: u8>(i: u32) -> u32 {
        let [a, b, c, d] = i.to_be_bytes().map(usize::from);
        let (s1, s2, s3, s4) = (S[0][a], S[1][b], S[2][c], S[3][d]);
        match F {
            1 => (s1 ^ s2).wrapping_sub(s3).wrapping_add(s4),
            2 => s1.wrapping_sub(s2).wrapping_add(s3) ^ s4,
            _ => (s1.wrapping_add(s2) ^ s3).wrapping_sub(s4),
        }
    }

    /// `f` on one word, the scalar shape.
    #[inline(always)]
    fn scalar<const F: u8>(d: u32, kr: u8, km: u32) -> u32 {
        let i = match F {
            1 => km.wrapping_add(d),
            2 => km ^ d,
            _ => km.wrapping_sub(d),
        };
        lookups::<F>(i.rotate_left(u32::from(kr)))
    }

    /// `f` on four blocks' words: mixing and rotation in the register, the
    /// lookups on general registers, 64 bits (two words) moved at a time.
    #[target_feature(enable = "avx")]
    #[inline]
    fn xmm_f<const F: u8>(d: __m128i, kr: u8, km: u32) -> __m128i {
        let km = _mm_set1_epi32(km as i32);
        let i = match F {
            1 => _mm_add_epi32(km, d),
            2 => _mm_xor_si128(km, d),
            _ => _mm_sub_epi32(km, d),
        };
        let left = _mm_cvtsi32_si128(i32::from(kr));
        let right = _mm_cvtsi32_si128(32 - i32::from(kr));
        let i = _mm_or_si128(_mm_sll_epi32(i, left), _mm_srl_epi32(i, right));
        let pair = |x: i64| {
            let x = x as u64;
            u64::from(lookups::<F>(x as u32)) | u64::from(lookups::<F>((x >> 32) as u32)) << 32
        };
        let lo = pair(_mm_cvtsi128_si64(i));
        let hi = pair(_mm_extract_epi64::<1>(i));
        _mm_insert_epi64::<1>(_mm_cvtsi64_si128(lo as i64), hi as i64)
    }

    /// `f` on eight blocks' words, the lookups gathered.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn gather_f<const F: u8>(d: __m256i, kr: u8, km: u32) -> __m256i {
        let km = _mm256_set1_epi32(km as i32);
        let i = match F {
            1 => _mm256_add_epi32(km, d),
            2 => _mm256_xor_si256(km, d),
            _ => _mm256_sub_epi32(km, d),
        };
        let left = _mm_cvtsi32_si128(i32::from(kr));
        let right = _mm_cvtsi32_si128(32 - i32::from(kr));
        let i = _mm256_or_si256(_mm256_sll_epi32(i, left), _mm256_srl_epi32(i, right));
        let byte = _mm256_set1_epi32(0xff);
        // Indexes into S1..S4 as one table of 1024 words.
        let ia = _mm256_srli_epi32::<24>(i);
        let ib = _mm256_add_epi32(
            _mm256_and_si256(_mm256_srli_epi32::<16>(i), byte),
            _mm256_set1_epi32(256),
        );
        let ic = _mm256_add_epi32(
            _mm256_and_si256(_mm256_srli_epi32::<8>(i), byte),
            _mm256_set1_epi32(512),
        );
        let id = _mm256_add_epi32(_mm256_and_si256(i, byte), _mm256_set1_epi32(768));
        let base = S.as_ptr().cast::<i32>();
        // SAFETY: `S` is 4 * 256 contiguous `u32`s and every index is below
        // 1024 (a byte plus 0, 256, 512 or 768), so each of the 32 reads is
        // inside it; AVX2 is enabled on this function.
        let [s1, s2, s3, s4] =
            unsafe { [ia, ib, ic, id].map(|index| _mm256_i32gather_epi32::<4>(base, index)) };
        match F {
            1 => _mm256_add_epi32(_mm256_sub_epi32(_mm256_xor_si256(s1, s2), s3), s4),
            2 => _mm256_xor_si256(_mm256_add_epi32(_mm256_sub_epi32(s1, s2), s3), s4),
            _ => _mm256_sub_epi32(_mm256_xor_si256(_mm256_add_epi32(s1, s2), s3), s4),
        }
    }

    /// Sixteen bytes from `block`.
    fn read(block: &[u8]) -> [u8; 16] {
        let mut b = [0; 16];
        b.copy_from_slice(&block[..16]);
        b
    }

    /// Four blocks as four registers of words (`[A, B, C, D]`, lane `j` of
    /// each from block `j`), each word read big-endian.
    #[target_feature(enable = "avx")]
    fn load4(bytes: &[u8]) -> [__m128i; 4] {
        let swap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
        let r: [__m128i; 4] = core::array::from_fn(|j| {
            let block = read(&bytes[16 * j..]);
            // SAFETY: `[u8; 16]` and `__m128i` have the same size and every
            // bit pattern is valid for both.
            _mm_shuffle_epi8(
                unsafe { core::mem::transmute::<[u8; 16], __m128i>(block) },
                swap,
            )
        });
        transpose(r)
    }

    /// [`load4`] undone.
    #[target_feature(enable = "avx")]
    fn store4(s: [__m128i; 4], bytes: &mut [u8]) {
        let swap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
        for (j, r) in transpose(s).into_iter().enumerate() {
            // SAFETY: as in `load4`.
            let block =
                unsafe { core::mem::transmute::<__m128i, [u8; 16]>(_mm_shuffle_epi8(r, swap)) };
            bytes[16 * j..16 * j + 16].copy_from_slice(&block);
        }
    }

    /// A 4x4 transpose of 32-bit words.
    #[target_feature(enable = "avx")]
    fn transpose(r: [__m128i; 4]) -> [__m128i; 4] {
        let t0 = _mm_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm_unpacklo_epi32(r[2], r[3]);
        let t2 = _mm_unpackhi_epi32(r[0], r[1]);
        let t3 = _mm_unpackhi_epi32(r[2], r[3]);
        [
            _mm_unpacklo_epi64(t0, t1),
            _mm_unpackhi_epi64(t0, t1),
            _mm_unpacklo_epi64(t2, t3),
            _mm_unpackhi_epi64(t2, t3),
        ]
    }

    /// ECB with `N` sets of four blocks in 128-bit registers.
    #[target_feature(enable = "avx")]
    #[inline(never)]
    fn xmm_ecb<const N: usize>(k: &Subkeys, buf: &mut [u8]) {
        for chunk in buf.chunks_exact_mut(64 * N) {
            let mut s: [[__m128i; 4]; N] = core::array::from_fn(|j| load4(&chunk[64 * j..]));
            macro_rules! line {
                ($f:literal, $t:ident, $src:ident, $kr:expr, $km:expr) => {
                    for b in &mut s {
                        b[$t] = _mm_xor_si128(b[$t], xmm_f::<$f>(b[$src], $kr, $km));
                    }
                };
            }
            quad_rounds!(k, line);
            for (j, s) in s.into_iter().enumerate() {
                store4(s, &mut chunk[64 * j..]);
            }
        }
    }

    /// ECB with `M` blocks in the scalar shape (`M` may be 0) beside `N`
    /// sets of eight in 256-bit registers, round by round.
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    fn gather_ecb<const M: usize, const N: usize>(k: &Subkeys, buf: &mut [u8]) {
        for chunk in buf.chunks_exact_mut(16 * M + 128 * N) {
            let (scalar_bytes, vector_bytes) = chunk.split_at_mut(16 * M);
            let mut x: [[u32; 4]; M] = core::array::from_fn(|j| {
                let block = read(&scalar_bytes[16 * j..]);
                core::array::from_fn(|w| u32::from_be_bytes([0, 1, 2, 3].map(|b| block[4 * w + b])))
            });
            let mut s: [[__m256i; 4]; N] = core::array::from_fn(|j| {
                let lo = load4(&vector_bytes[128 * j..]);
                let hi = load4(&vector_bytes[128 * j + 64..]);
                core::array::from_fn(|w| _mm256_set_m128i(hi[w], lo[w]))
            });
            macro_rules! line {
                ($f:literal, $t:ident, $src:ident, $kr:expr, $km:expr) => {
                    for b in &mut s {
                        b[$t] = _mm256_xor_si256(b[$t], gather_f::<$f>(b[$src], $kr, $km));
                    }
                    for b in &mut x {
                        b[$t] ^= scalar::<$f>(b[$src], $kr, $km);
                    }
                };
            }
            quad_rounds!(k, line);
            for (j, b) in x.iter().enumerate() {
                for (w, word) in b.iter().enumerate() {
                    scalar_bytes[16 * j + 4 * w..16 * j + 4 * w + 4]
                        .copy_from_slice(&word.to_be_bytes());
                }
            }
            for (j, s) in s.into_iter().enumerate() {
                store4(
                    s.map(|r| _mm256_castsi256_si128(r)),
                    &mut vector_bytes[128 * j..],
                );
                store4(
                    s.map(|r| _mm256_extracti128_si256::<1>(r)),
                    &mut vector_bytes[128 * j + 64..],
                );
            }
        }
    }

    /// A shape timed here: its name and one ECB encryption of a buffer.
    type Shape = (&'static str, fn(&Subkeys, &mut [u8]));

    fn shapes() -> Vec<Shape> {
        let mut shapes: Vec<Shape> = Vec::new();
        if std::is_x86_feature_detected!("avx") {
            // SAFETY (each call below): the CPU has AVX (checked above).
            shapes.push(("xmm_x8", |k, b| unsafe { xmm_ecb::<2>(k, b) }));
            shapes.push(("xmm_x16", |k, b| unsafe { xmm_ecb::<4>(k, b) }));
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY (each call below): the CPU has AVX2 (checked above).
            shapes.push(("gather_x16", |k, b| unsafe { gather_ecb::<0, 2>(k, b) }));
            shapes.push(("gather_x32", |k, b| unsafe { gather_ecb::<0, 4>(k, b) }));
            shapes.push(("hybrid_8+16", |k, b| unsafe { gather_ecb::<8, 2>(k, b) }));
        }
        shapes
    }

    /// What is timed: a shape (`0..shapes.len()`) or an engine (after
    /// them), one ECB encryption of `buf` an operation.
    struct Timed {
        shapes: Vec<Shape>,
        engines: Vec<(String, Box<dyn Engine>)>,
        subkeys: Subkeys,
        buf: Vec<u8>,
    }

    impl Workload for Timed {
        type Error = EngineError;

        fn run(&mut self, engine: usize, _case: usize, count: u64) -> Result<(), EngineError> {
            for _ in 0..count {
                match self.shapes.get(engine) {
                    Some((_, shape)) => shape(&self.subkeys, &mut self.buf),
                    None => {
                        let (_, e) = &mut self.engines[engine - self.shapes.len()];
                        e.crypt(Mode::Ecb, Dir::Encrypt, &mut [0; 16], &mut self.buf)?;
                    }
                }
            }
            Ok(())
        }
    }

    pub fn run() {
        let key: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(29).wrapping_add(7));
        let keyed = Keyed::new(&Array::from(key));
        let (kr, km) = keyed.encryption_subkeys();
        let subkeys = Subkeys { kr: *kr, km: *km };
        let plain: Vec<u8> = (0..BYTES)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(5))
            .collect();
        let peer = cast6::Cast6::new(&Array::from(key));
        let mut want = plain.clone();
        for block in want.chunks_exact_mut(16) {
            let block: &mut [u8; 16] = block.try_into().expect("16 bytes");
            peer.encrypt_block(block.into());
        }
        let shapes = shapes();
        for (name, shape) in &shapes {
            let mut got = plain.clone();
            shape(&subkeys, &mut got);
            assert!(
                got == want,
                "{name} does not compute cast6 0.2's ciphertext"
            );
        }
        let Some(Alg::Cipher { mode, entry, .. }) = registry::all()
            .into_iter()
            .find(|a| a.name() == "ecb(cast6)")
        else {
            panic!("the registry has no ecb(cast6)");
        };
        assert!(mode == Mode::Ecb, "ecb(cast6) is ECB");
        let mut engines: Vec<(String, Box<dyn Engine>)> = entry
            .variants
            .iter()
            .filter_map(|(v, make)| Some((v.to_string(), make.as_ref()?())))
            .chain(
                entry
                    .peers
                    .iter()
                    .filter_map(|p| Some((p.label.to_string(), p.make?()))),
            )
            .collect();
        for (name, engine) in &mut engines {
            engine.set_key(mode, &key).expect("a 32-byte key");
            let mut got = plain.clone();
            engine
                .crypt(mode, Dir::Encrypt, &mut [0; 16], &mut got)
                .expect("whole blocks");
            assert!(
                got == want,
                "{name} does not compute cast6 0.2's ciphertext"
            );
        }
        // The first peer, cast6 0.2, after the shapes and the variants.
        let peer_at = shapes.len()
            + entry
                .variants
                .iter()
                .filter(|(_, make)| make.is_some())
                .count();
        let names: Vec<String> = shapes
            .iter()
            .map(|(n, _)| n.to_string())
            .chain(engines.iter().map(|(n, _)| n.clone()))
            .collect();
        let mut timed = Timed {
            shapes,
            engines,
            subkeys,
            buf: plain,
        };
        let schedule = Schedule::new(
            &Counter::calibrate(),
            ROUNDS,
            BATCH_SECONDS,
            BATCH_SECONDS * 10.0,
        );
        eprintln!(
            "cast6_forms: timing {} shapes and variants, {ROUNDS} interleaved rounds",
            names.len()
        );
        let run = interleave(names.len(), 1, &schedule, &mut timed, &mut |_, _| {})
            .expect("whole blocks");
        // Each round's batch of each, the rounds in step (every cell runs
        // once a round).
        let per_op =
            |e: usize| -> Vec<f64> { run.batches[e][0].iter().map(|b| b.per_op).collect() };
        let peer = per_op(peer_at);
        let mut rows: Vec<(&str, f64, f64)> = names
            .iter()
            .enumerate()
            .map(|(e, name)| {
                let t = per_op(e);
                let ratios: Vec<f64> = peer.iter().zip(&t).map(|(p, t)| p / t).collect();
                let speed = median(&ratios);
                (name.as_str(), median(&t) / BLOCKS as f64, speed)
            })
            .collect();
        rows.sort_by(|a, b| b.2.total_cmp(&a.2));
        println!(
            "cast6_forms: ECB encryption of {BYTES} bytes, {} interleaved rounds",
            peer.len()
        );
        println!(
            "{:<40} {:>12} {:>10}",
            "shape or variant", "ticks/block", "speed"
        );
        for (name, per_block, speed) in rows {
            println!("{name:<40} {per_block:>12.1} {speed:>9.2}x");
        }
    }
}
