//! The measuring core that xtask's measuring processes call: the [`Case`]s
//! an engine is timed on, the check of an engine against an oracle
//! ([`check_against`]), and the timing of a set of engines on a set of
//! cases, interleaved round-robin so that machine drift hits all of them
//! alike ([`interleaved`], by the loop precise mode uses too:
//! [`crate::interleave`]). The engines are whatever the caller loaded (a
//! variant's or a peer's built `.so`, [`crate::so::SoCipher`]). The result
//! keeps every round's raw [`Sample`], so that medians and intervals can be
//! computed again from a report.

use crate::clock::{self, Counter};
use crate::engine::{self, Digest, Dir, Engine, EngineError, HashEngine, Mode};
use crate::interleave::{self, Batches, Schedule, Workload};
use crate::placement;
use serde::{Deserialize, Serialize};

pub use crate::interleave::{OBSERVED_AT_LEAST, QUIET, criterion, is_quiet};

/// What one operation of a [`Case`] is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CaseKind {
    /// `crypt` of `block_bytes` bytes (a digest for [`Mode::Digest`]) under
    /// a key set before the batch.
    #[default]
    Crypt,
    /// Key setup: one [`Engine::set_key`] of a `key_bytes` key of 0xff bytes
    /// in the case's mode, replacing the previous key (for a loaded artifact,
    /// `inlinelab_clear` of the old context, then `inlinelab_set_key`).
    /// `dir` is unused (`encrypt`) and `block_bytes` is 0.
    SetKey,
}

impl CaseKind {
    pub fn is_crypt(&self) -> bool {
        *self == CaseKind::Crypt
    }
}

/// One measured configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Case {
    pub mode: Mode,
    pub dir: Dir,
    pub key_bytes: usize,
    pub block_bytes: usize,
    /// Left out of JSON when `crypt`, so that older specs and baselines
    /// read as before.
    #[serde(default, skip_serializing_if = "CaseKind::is_crypt")]
    pub kind: CaseKind,
}

impl Case {
    /// `block_bytes` bytes in `mode` and `dir` under a `key_bytes` key.
    pub fn crypt(mode: Mode, dir: Dir, key_bytes: usize, block_bytes: usize) -> Case {
        Case {
            mode,
            dir,
            key_bytes,
            block_bytes,
            kind: CaseKind::Crypt,
        }
    }

    /// Key setup of a `key_bytes` key for `mode` (see [`CaseKind::SetKey`]).
    pub fn set_key(mode: Mode, key_bytes: usize) -> Case {
        Case {
            mode,
            dir: Dir::Encrypt,
            key_bytes,
            block_bytes: 0,
            kind: CaseKind::SetKey,
        }
    }

    /// `ecb(cast6)` for this case's mode (`crc32c` for a digest).
    pub fn alg(&self, cipher: &str) -> String {
        self.mode.alg(cipher)
    }

    /// `encrypt`, `decrypt`, `digest`, or `setkey`.
    pub fn dir_name(&self) -> &'static str {
        match (self.kind, self.mode) {
            (CaseKind::SetKey, _) => "setkey",
            (CaseKind::Crypt, Mode::Digest) => "digest",
            (CaseKind::Crypt, _) => self.dir.name(),
        }
    }
}

/// Checks `engine` against `oracle` in each of `modes` (ECB and CBC for a
/// cipher, digest for a checksum), both directions, on seeded data under
/// each key size; the first difference is the error.
pub fn check_against(
    engine: &mut dyn Engine,
    oracle: &mut dyn Engine,
    key_sizes: &[usize],
    modes: &[Mode],
) -> Result<(), String> {
    let keyed: Vec<(Mode, Vec<usize>)> = (modes.iter()).map(|&m| (m, key_sizes.to_vec())).collect();
    check_each(engine, oracle, &keyed, &CHECK_BLOCKS)
}

/// The block counts [`check_against`] checks at.
pub const CHECK_BLOCKS: [usize; 4] = [1, 3, 64, 1027];

/// Checks `engine` against `oracle` in each mode under each of its key
/// sizes, both directions, on seeded data of each of `blocks` blocks (and
/// IV); the first difference is the error.
pub fn check_each(
    engine: &mut dyn Engine,
    oracle: &mut dyn Engine,
    keyed: &[(Mode, Vec<usize>)],
    blocks: &[usize],
) -> Result<(), String> {
    let bs = oracle.block_size();
    if engine.block_size() != bs {
        return Err(format!(
            "block size {} where {} has {bs}",
            engine.block_size(),
            oracle.name()
        ));
    }
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as u8
    };
    for (mode, key_sizes) in keyed {
        let mode = *mode;
        for &k in key_sizes {
            let key: Vec<u8> = (0..k).map(|_| next()).collect();
            engine
                .set_key(mode, &key)
                .map_err(|e| format!("set_key: {e}"))?;
            oracle
                .set_key(mode, &key)
                .map_err(|e| format!("oracle set_key: {e}"))?;
            for dir in Dir::BOTH {
                for &blocks in blocks {
                    let data: Vec<u8> = (0..bs * blocks).map(|_| next()).collect();
                    let iv: Vec<u8> = (0..bs).map(|_| next()).collect();
                    let (mut got, mut want) = (data.clone(), data);
                    let (mut iv1, mut iv2) = (iv.clone(), iv);
                    engine
                        .crypt(mode, dir, &mut iv1, &mut got)
                        .map_err(|e| format!("{} {}: {e}", mode.name(), dir.name()))?;
                    oracle
                        .crypt(mode, dir, &mut iv2, &mut want)
                        .map_err(|e| format!("oracle: {e}"))?;
                    if got != want || iv1 != iv2 {
                        return Err(format!(
                            "wrong output: {} {} of {} bytes under a {k}-byte key differs from {}",
                            mode.name(),
                            dir.name(),
                            bs * blocks,
                            oracle.name()
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The longest message [`check_hash`] hashes whole: every length from 0
/// to this, so that every tail a hash's block buffer can hold (64 or 128
/// bytes) is met more than twice.
pub const HASH_CHECK_LENGTHS: usize = 300;

/// Checks the hash `engine` against `oracle`: the same digest length; the
/// digest of seeded messages of every length from 0 to
/// [`HASH_CHECK_LENGTHS`] bytes (init, update, final); and a message
/// streamed in chunks of random lengths (empty ones among them), through
/// `engine` and `oracle` alike, against `oracle`'s digest of it whole. The
/// first difference is the error.
pub fn check_hash(engine: &mut dyn HashEngine, oracle: &mut dyn HashEngine) -> Result<(), String> {
    if engine.output_size() != oracle.output_size() {
        return Err(format!(
            "a digest of {} bytes where {} has {}",
            engine.output_size(),
            oracle.name(),
            oracle.output_size()
        ));
    }
    // Random chunks, and messages, in every process; the seed in an error
    // draws them again (`placement::Rng::with_seed`).
    let seed = placement::Rng::new().next_u64();
    let mut rng = placement::Rng::with_seed(seed);
    let message: Vec<u8> = (0..4 * HASH_CHECK_LENGTHS)
        .map(|_| rng.below(256) as u8)
        .collect();
    let oracle_name = oracle.name().to_string();
    let differs = |what: String| {
        format!("wrong output: the digest of {what} differs from {oracle_name}'s (seed {seed:#x})")
    };
    for len in 0..=HASH_CHECK_LENGTHS {
        let data = &message[..len];
        let got = engine
            .digest(data)
            .map_err(|e| format!("digest of {len} bytes: {e}"))?;
        let want = oracle.digest(data).map_err(|e| format!("oracle: {e}"))?;
        if got != want {
            return Err(differs(format!("{len} bytes ({got:?}, not {want:?})")));
        }
    }
    for round in 0..8 {
        let want = oracle
            .digest(&message)
            .map_err(|e| format!("oracle: {e}"))?;
        // Short chunks, or some across several blocks; some empty.
        let most = if round % 2 == 0 { 70 } else { 300 };
        let mut chunks = Vec::new();
        let mut at = 0;
        while at < message.len() {
            let n = rng.below(most + 1).min(message.len() - at);
            chunks.push(&message[at..at + n]);
            at += n;
        }
        let by_engine = stream(engine, &chunks);
        let by_oracle = stream(oracle, &chunks);
        for (streamed, who) in [(by_engine, "engine"), (by_oracle, "oracle")] {
            let streamed = streamed.map_err(|err| format!("streamed ({who}): {err}"))?;
            if streamed != want {
                return Err(differs(format!(
                    "{} bytes streamed by the {who} in {} updates of 0 to {most} bytes ({streamed:?}, not {want:?})",
                    message.len(),
                    chunks.len()
                )));
            }
        }
    }
    Ok(())
}

/// Checks a MAC, `engine`, against `oracle` under each of `key_lengths`:
/// both keyed with the same seeded bytes, then the tag of every length
/// from 0 to [`HASH_CHECK_LENGTHS`] bytes and of a message streamed in
/// random chunks, as a hash is ([`check_hash`]). The first difference is
/// the error, with the key's length.
pub fn check_mac<A, B>(engine: &mut A, oracle: &mut B, key_lengths: &[usize]) -> Result<(), String>
where
    A: Engine + HashEngine,
    B: Engine + HashEngine,
{
    let mut rng = placement::Rng::with_seed(0x5eed_4ac5);
    for &k in key_lengths {
        let key: Vec<u8> = (0..k).map(|_| rng.below(256) as u8).collect();
        Engine::set_key(engine, Mode::Digest, &key).map_err(|e| format!("set_key: {e}"))?;
        Engine::set_key(oracle, Mode::Digest, &key).map_err(|e| format!("oracle set_key: {e}"))?;
        check_hash(engine, oracle).map_err(|e| format!("{e}, under a {k}-byte key"))?;
    }
    Ok(())
}

/// Checks a universal hash, `engine`, against `oracle` under each of
/// `key_lengths`, as a MAC is ([`check_mac`]: every length from 0 to
/// [`HASH_CHECK_LENGTHS`] bytes in one call, a long message streamed in
/// random chunks), and besides every one of those lengths streamed in
/// random chunks of 0 to 40 bytes: a universal hash takes whole blocks, so
/// its artifact buffers a partial block between updates and pads the last
/// one with zeros (the digest of a message is the tag of the message
/// zero-padded to whole blocks), and each tail a block can leave is met
/// streamed. The first difference is the error, with the key's length.
pub fn check_uhash<A, B>(
    engine: &mut A,
    oracle: &mut B,
    key_lengths: &[usize],
) -> Result<(), String>
where
    A: Engine + HashEngine,
    B: Engine + HashEngine,
{
    let mut rng = placement::Rng::with_seed(0x5eed_0b10c);
    for &k in key_lengths {
        let key: Vec<u8> = (0..k).map(|_| rng.below(256) as u8).collect();
        Engine::set_key(engine, Mode::Digest, &key).map_err(|e| format!("set_key: {e}"))?;
        Engine::set_key(oracle, Mode::Digest, &key).map_err(|e| format!("oracle set_key: {e}"))?;
        let under = |e: String| format!("{e}, under a {k}-byte key");
        check_hash(engine, oracle).map_err(under)?;
        let message: Vec<u8> = (0..HASH_CHECK_LENGTHS)
            .map(|_| rng.below(256) as u8)
            .collect();
        for len in 0..=HASH_CHECK_LENGTHS {
            let data = &message[..len];
            let want = oracle.digest(data).map_err(|e| format!("oracle: {e}"))?;
            let mut chunks = Vec::new();
            let mut at = 0;
            while at < len {
                let n = rng.below(41).min(len - at);
                chunks.push(&data[at..at + n]);
                at += n;
            }
            let got = stream(engine, &chunks).map_err(|e| under(format!("streamed: {e}")))?;
            if got != want {
                return Err(under(format!(
                    "wrong output: the digest of {len} bytes streamed in {} updates of 0 to 40 bytes differs from {}'s ({got:?}, not {want:?})",
                    chunks.len(),
                    HashEngine::name(oracle)
                )));
            }
        }
    }
    Ok(())
}

/// Checks a stream cipher, `engine`, against `oracle` under each of
/// `key_lengths`, with one fixed nonce of `iv_size` bytes (seeded, as the
/// key is): the keystream applied to every length from 0 to
/// [`HASH_CHECK_LENGTHS`] bytes in one call, in each direction, must
/// equal `oracle`'s, and decryption of the encryption must give the input
/// back. Each call starts the keystream at position 0 (a fresh cipher from
/// key and nonce: the ABI has no streamed stream-cipher operation), so a
/// message applied in chunks is not checked; every length in one call is,
/// so every tail a keystream block (ChaCha20's 64 bytes) can leave is met.
/// The first difference is the error, with the key's length.
pub fn check_stream(
    engine: &mut dyn Engine,
    oracle: &mut dyn Engine,
    key_lengths: &[usize],
    iv_size: usize,
) -> Result<(), String> {
    let mut rng = placement::Rng::with_seed(0x5eed_c4a2);
    let nonce: Vec<u8> = (0..iv_size).map(|_| rng.below(256) as u8).collect();
    let message: Vec<u8> = (0..HASH_CHECK_LENGTHS)
        .map(|_| rng.below(256) as u8)
        .collect();
    for &k in key_lengths {
        let key: Vec<u8> = (0..k).map(|_| rng.below(256) as u8).collect();
        engine
            .set_key(Mode::Stream, &key)
            .map_err(|e| format!("set_key: {e}"))?;
        oracle
            .set_key(Mode::Stream, &key)
            .map_err(|e| format!("oracle set_key: {e}"))?;
        let under = |e: String| format!("{e}, under a {k}-byte key");
        for len in 0..=HASH_CHECK_LENGTHS {
            let data = &message[..len];
            for dir in Dir::BOTH {
                let (mut got, mut want) = (data.to_vec(), data.to_vec());
                let (mut iv1, mut iv2) = (nonce.clone(), nonce.clone());
                engine
                    .crypt(Mode::Stream, dir, &mut iv1, &mut got)
                    .map_err(|e| under(format!("{} of {len} bytes: {e}", dir.name())))?;
                oracle
                    .crypt(Mode::Stream, dir, &mut iv2, &mut want)
                    .map_err(|e| format!("oracle: {e}"))?;
                if got != want {
                    return Err(under(format!(
                        "wrong output: the {} of {len} bytes differs from {}'s",
                        dir.noun(),
                        oracle.name()
                    )));
                }
            }
            let mut back = data.to_vec();
            let mut iv = nonce.clone();
            engine
                .crypt(Mode::Stream, Dir::Encrypt, &mut iv, &mut back)
                .and_then(|()| engine.crypt(Mode::Stream, Dir::Decrypt, &mut iv, &mut back))
                .map_err(|e| under(format!("{len} bytes: {e}")))?;
            if back != data {
                return Err(under(format!(
                    "wrong output: the decryption of the encryption of {len} bytes is not the input"
                )));
            }
        }
    }
    Ok(())
}

/// The associated data lengths [`check_aead`] takes each message length
/// with: none, tcrypt's 8 bytes, and lengths about a 16-byte block's
/// edges and across several.
pub const AEAD_CHECK_AAD: [usize; 6] = [0, 1, 8, 15, 16, 33];

/// Checks an AEAD, `engine`, against `oracle` under each of `key_lengths`,
/// with one fixed nonce of `nonce_size` bytes (seeded, as the key is): at
/// every length from 0 to [`HASH_CHECK_LENGTHS`] bytes, with associated
/// data of each of [`AEAD_CHECK_AAD`]'s lengths, in place
/// ([`Engine::aead`]):
/// - the encryption and its `tag_size`-byte tag equal `oracle`'s;
/// - the decryption of it gives the input back;
/// - a decryption with the tag's byte flipped, or the ciphertext's (where
///   there is one), or the associated data's, is refused
///   ([`EngineError::Tag`]);
///
/// then, at a few lengths, the timed path ([`Engine::crypt`] in
/// [`Mode::Aead`], out of place) encrypts and decrypts without error, its
/// tag matching. The first difference is the error, with the key's length.
pub fn check_aead(
    engine: &mut dyn Engine,
    oracle: &mut dyn Engine,
    key_lengths: &[usize],
    nonce_size: usize,
    tag_size: usize,
) -> Result<(), String> {
    let mut rng = placement::Rng::with_seed(0x5eed_aead);
    let nonce: Vec<u8> = (0..nonce_size).map(|_| rng.below(256) as u8).collect();
    let message: Vec<u8> = (0..HASH_CHECK_LENGTHS)
        .map(|_| rng.below(256) as u8)
        .collect();
    let aad_all: Vec<u8> = (0..64).map(|_| rng.below(256) as u8).collect();
    let oracle_name = oracle.name().to_string();
    for &k in key_lengths {
        let key: Vec<u8> = (0..k).map(|_| rng.below(256) as u8).collect();
        engine
            .set_key(Mode::Aead, &key)
            .map_err(|e| format!("set_key: {e}"))?;
        oracle
            .set_key(Mode::Aead, &key)
            .map_err(|e| format!("oracle set_key: {e}"))?;
        let under = |e: String| format!("{e}, under a {k}-byte key");
        for len in 0..=HASH_CHECK_LENGTHS {
            let data = &message[..len];
            for a in AEAD_CHECK_AAD {
                let aad = &aad_all[..a];
                let of = format!("{len} bytes with {a} bytes of associated data");
                let (mut got, mut want) = (data.to_vec(), data.to_vec());
                let (mut tag, mut want_tag) = (vec![0; tag_size], vec![0; tag_size]);
                engine
                    .aead(Dir::Encrypt, &nonce, aad, &mut got, &mut tag)
                    .map_err(|e| under(format!("encryption of {of}: {e}")))?;
                oracle
                    .aead(Dir::Encrypt, &nonce, aad, &mut want, &mut want_tag)
                    .map_err(|e| format!("oracle: {e}"))?;
                if got != want {
                    return Err(under(format!(
                        "wrong output: the encryption of {of} differs from {oracle_name}'s"
                    )));
                }
                if tag != want_tag {
                    return Err(under(format!(
                        "wrong output: the tag of {of} differs from {oracle_name}'s"
                    )));
                }
                let mut back = got.clone();
                engine
                    .aead(Dir::Decrypt, &nonce, aad, &mut back, &mut tag)
                    .map_err(|e| under(format!("decryption of {of}: {e}")))?;
                if back != data {
                    return Err(under(format!(
                        "wrong output: the decryption of the encryption of {of} is not the input"
                    )));
                }
                // Tampered: one bit of the tag, of the ciphertext, of the
                // associated data, each at a place that moves with the length.
                let mut tampered = Vec::new();
                let mut bad_tag = tag.clone();
                if let Some(b) = bad_tag.get_mut(len % tag_size.max(1)) {
                    *b ^= 1 << (len % 8);
                    tampered.push(("tag", got.clone(), aad.to_vec(), bad_tag));
                }
                if len > 0 {
                    let mut bad = got.clone();
                    bad[(len * 7) % len] ^= 0x80;
                    tampered.push(("ciphertext", bad, aad.to_vec(), tag.clone()));
                }
                if a > 0 {
                    let mut bad = aad.to_vec();
                    bad[len % a] ^= 0x01;
                    tampered.push(("associated data", got.clone(), bad, tag.clone()));
                }
                for (what, mut ct, aad, mut t) in tampered {
                    match engine.aead(Dir::Decrypt, &nonce, &aad, &mut ct, &mut t) {
                        Err(EngineError::Tag) => {}
                        Ok(()) => {
                            return Err(under(format!(
                                "wrong output: the decryption of {of} with its {what} tampered was not refused"
                            )));
                        }
                        Err(e) => {
                            return Err(under(format!(
                                "the decryption of {of} with its {what} tampered failed otherwise than by its tag: {e}"
                            )));
                        }
                    }
                }
            }
        }
        // The timed path: out of place, a decryption's tag its own.
        for len in [0, 16, 300] {
            let mut buf = message[..len].to_vec();
            let mut iv = nonce.clone();
            for dir in [Dir::Encrypt, Dir::Decrypt, Dir::Decrypt, Dir::Encrypt] {
                engine
                    .crypt(Mode::Aead, dir, &mut iv, &mut buf)
                    .map_err(|e| under(format!("timed {} of {len} bytes: {e}", dir.noun())))?;
            }
        }
    }
    Ok(())
}

/// The digest of `chunks` streamed through `engine`: init, an update per
/// chunk, final.
fn stream(engine: &mut dyn HashEngine, chunks: &[&[u8]]) -> Result<Digest, EngineError> {
    engine.init()?;
    for c in chunks {
        engine.update(c)?;
    }
    engine.finish()
}

/// How long to measure: a fixed number of rounds, each a batch of every
/// engine on every case. No round is waited for: which batches count is
/// not part of the plan, and each sample says whether it was quiet (the one
/// criterion [`QUIET`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Rounds run: every engine times every case this many times.
    pub rounds: usize,
    /// Seconds of timed work one batch lasts, about (each cell is sized
    /// from a brief run: [`crate::interleave::SIZING_SHARE`]).
    pub batch_seconds: f64,
}

/// One engine's batch of one case in one round, as a report keeps it: enough
/// to compute medians and intervals again, or to apply another threshold.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Counter ticks per operation (see the counter's description).
    pub ticks_per_op: f64,
    /// Whether the round was quiet: every engine's batch of this case in
    /// this round met the criterion, [`interleave::is_quiet`]`(probe_rate,
    /// waited_ns)`. The same for every engine of a case in a round.
    pub quiet: bool,
    /// The reference probes' rate over this batch, as a fraction of the
    /// fastest reference rate seen in the run (1 where there is no
    /// reference loop).
    pub probe_rate: f64,
    /// The share of this batch's span that the probes observed (see
    /// [`OBSERVED_AT_LEAST`]; 0 where there is no reference loop).
    pub observed: f64,
    /// Nanoseconds the thread waited on a run queue during this batch;
    /// `null` where the kernel does not say.
    pub waited_ns: Option<u64>,
}

/// Every engine's samples: `[engine][case][round]`.
pub type Samples = Vec<Vec<Vec<Sample>>>;

/// Times every engine on every case, interleaved ([`interleave::interleave`]):
/// for each round, for each case, each engine in turn (the order of cases
/// and engines rotated each round), one batch. Before every batch (and
/// before it is sized) `marker(engine index)` is called, so that a caller can
/// tell which engine was running if the process dies. `progress` gets a
/// line at most once a second. The run is `plan.rounds` rounds, quiet or
/// not. An engine does not run the cases `not_offered[engine]` names (a
/// library peer runs only what it offers): those have no samples. On an
/// engine error, returns that engine's index with it.
pub fn interleaved(
    engines: &mut [Box<dyn Engine>],
    cases: &[Case],
    not_offered: &[Vec<usize>],
    plan: Plan,
    counter: &Counter,
    marker: &mut dyn FnMut(usize),
    progress: &mut dyn FnMut(&str),
) -> Result<Samples, (usize, EngineError)> {
    let n = engines.len();
    // No patience: the loop stops after `plan.rounds` rounds.
    let schedule = Schedule::new(counter, plan.rounds, plan.batch_seconds, 0.0);
    // Each buffer at a random offset, allocated in a random engine order
    // (`placement`): where they sit differs from process to process.
    let sizes: Vec<Vec<usize>> = (engines.iter())
        .map(|_| cases.iter().map(|c| c.block_bytes).collect())
        .collect();
    let (bufs, _padding) = placement::buffers(&sizes, &mut placement::Rng::new());
    let mut w = Grid {
        bufs,
        ivs: engines.iter().map(|e| vec![0xff; e.block_size()]).collect(),
        keys: (cases.iter())
            .map(|c| engine::timing_key(c.mode, c.key_bytes))
            .collect(),
        engines,
        cases,
        not_offered,
        marker,
    };
    let mut next_progress = 0;
    let mut report = |round: usize, _quiet: usize| {
        if clock::read() >= next_progress {
            next_progress = clock::read() + counter.hz as u64;
            progress(&format!("round {round} of {}", plan.rounds));
        }
    };
    let run = interleave::interleave(n, cases.len(), &schedule, &mut w, &mut report)?;
    Ok(samples(&run))
}

/// The workload of [`interleaved`]: engine `e` on case `c`.
struct Grid<'a> {
    engines: &'a mut [Box<dyn Engine>],
    cases: &'a [Case],
    bufs: Vec<Vec<Vec<u8>>>,
    ivs: Vec<Vec<u8>>,
    keys: Vec<Vec<u8>>,
    not_offered: &'a [Vec<usize>],
    marker: &'a mut dyn FnMut(usize),
}

impl Workload for Grid<'_> {
    type Error = (usize, EngineError);

    fn runs(&self, e: usize, c: usize) -> bool {
        self.not_offered.get(e).is_none_or(|n| !n.contains(&c))
    }

    fn prepare(&mut self, e: usize, c: usize) -> Result<(), Self::Error> {
        (self.marker)(e);
        let case = self.cases[c];
        if case.kind == CaseKind::Crypt {
            self.engines[e]
                .set_key(case.mode, &self.keys[c])
                .map_err(|err| (e, err))?;
        }
        Ok(())
    }

    fn run(&mut self, e: usize, c: usize, count: u64) -> Result<(), Self::Error> {
        let case = self.cases[c];
        let engine = &mut self.engines[e];
        match case.kind {
            CaseKind::Crypt => {
                for _ in 0..count {
                    engine
                        .crypt(case.mode, case.dir, &mut self.ivs[e], &mut self.bufs[e][c])
                        .map_err(|err| (e, err))?;
                }
            }
            CaseKind::SetKey => {
                for _ in 0..count {
                    engine
                        .set_key(case.mode, &self.keys[c])
                        .map_err(|err| (e, err))?;
                }
            }
        }
        Ok(())
    }
}

/// A run's batches as [`Samples`]: each batch's ticks per operation, its
/// probes' rate relative to the run's level, its observed share, and
/// whether it was quiet (each batch on its own: a ratio of two engines
/// pairs the rounds in which both were).
pub fn samples(run: &Batches) -> Samples {
    run.batches
        .iter()
        .map(|engine| {
            engine
                .iter()
                .map(|rounds| {
                    rounds
                        .iter()
                        .map(|b| Sample {
                            ticks_per_op: b.per_op,
                            quiet: b.quiet,
                            probe_rate: b.reference / run.level,
                            observed: b.observed,
                            waited_ns: b.waited_ns,
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// The rounds of case `c` in which every engine's batch ran quiet (of the
/// engines that run it: one that does not has no samples of it).
pub fn quiet_rounds(samples: &Samples, c: usize) -> Vec<usize> {
    let runs = || samples.iter().filter(|e| !e[c].is_empty());
    let rounds = runs().map(|e| e[c].len()).min().unwrap_or(0);
    (0..rounds)
        .filter(|&r| runs().all(|e| e[c][r].quiet))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::StaticCipher;
    use crate::interleave::Batch;

    /// A toy MAC as an engine: its tag a 64-bit FNV-1a of the key and the
    /// message; `keyless_at` a key length under which it forgets its key
    /// (a wrong variant).
    struct ToyMac {
        key: Vec<u8>,
        message: Vec<u8>,
        keyless_at: Option<usize>,
    }

    impl ToyMac {
        fn new(keyless_at: Option<usize>) -> ToyMac {
            ToyMac {
                key: Vec::new(),
                message: Vec::new(),
                keyless_at,
            }
        }

        fn tag(&self, message: &[u8]) -> Digest {
            let key: &[u8] = if Some(self.key.len()) == self.keyless_at {
                &[]
            } else {
                &self.key
            };
            let mut h = 0xcbf2_9ce4_8422_2325u64;
            for b in key.iter().chain([&0xff]).chain(message) {
                h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
            }
            Digest::new(&h.to_le_bytes()).unwrap()
        }
    }

    impl Engine for ToyMac {
        fn name(&self) -> &str {
            "toymac"
        }
        fn block_size(&self) -> usize {
            1
        }
        fn set_key(&mut self, _: Mode, key: &[u8]) -> Result<(), EngineError> {
            self.key = key.to_vec();
            Ok(())
        }
        fn crypt(
            &mut self,
            _: Mode,
            _: Dir,
            _: &mut [u8],
            buf: &mut [u8],
        ) -> Result<(), EngineError> {
            let tag = self.tag(buf);
            crate::engine::fold_digest(buf, &tag);
            Ok(())
        }
    }

    impl HashEngine for ToyMac {
        fn name(&self) -> &str {
            "toymac"
        }
        fn output_size(&self) -> usize {
            8
        }
        fn init(&mut self) -> Result<(), EngineError> {
            self.message.clear();
            Ok(())
        }
        fn update(&mut self, data: &[u8]) -> Result<(), EngineError> {
            self.message.extend_from_slice(data);
            Ok(())
        }
        fn finish(&mut self) -> Result<Digest, EngineError> {
            let tag = self.tag(&self.message);
            self.message.clear();
            Ok(tag)
        }
    }

    /// A MAC is checked under every key length given: one that forgets its
    /// key under one length is refused, naming it; the same MAC agrees with
    /// itself.
    #[test]
    fn a_mac_that_forgets_its_key_is_refused() {
        let keys: Vec<usize> = (1..=10).collect();
        let (mut right, mut oracle) = (ToyMac::new(None), ToyMac::new(None));
        assert_eq!(check_mac(&mut right, &mut oracle, &keys), Ok(()));
        let mut wrong = ToyMac::new(Some(7));
        let err = check_mac(&mut wrong, &mut oracle, &keys).unwrap_err();
        assert!(
            err.starts_with("wrong output: the digest of 0 bytes"),
            "{err}"
        );
        assert!(err.ends_with(", under a 7-byte key"), "{err}");
        assert_eq!(check_mac(&mut wrong, &mut oracle, &[1, 8]), Ok(()));
    }

    /// A toy universal hash of 16-byte blocks: its digest is that of the
    /// message zero-padded to whole blocks; `forgets_tail` loses a partial
    /// block an update leaves when the next update comes (a buffer that is
    /// not kept), which only streaming shows.
    struct ToyUhash {
        mac: ToyMac,
        forgets_tail: bool,
    }

    impl ToyUhash {
        fn new(forgets_tail: bool) -> ToyUhash {
            ToyUhash {
                mac: ToyMac::new(None),
                forgets_tail,
            }
        }

        fn padded(message: &[u8]) -> Vec<u8> {
            let mut m = message.to_vec();
            m.resize(message.len().div_ceil(16) * 16, 0);
            m
        }
    }

    impl Engine for ToyUhash {
        fn name(&self) -> &str {
            "toyuhash"
        }
        fn block_size(&self) -> usize {
            1
        }
        fn set_key(&mut self, mode: Mode, key: &[u8]) -> Result<(), EngineError> {
            Engine::set_key(&mut self.mac, mode, key)
        }
        fn crypt(
            &mut self,
            _: Mode,
            _: Dir,
            _: &mut [u8],
            buf: &mut [u8],
        ) -> Result<(), EngineError> {
            let tag = self.mac.tag(&ToyUhash::padded(buf));
            crate::engine::fold_digest(buf, &tag);
            Ok(())
        }
    }

    impl HashEngine for ToyUhash {
        fn name(&self) -> &str {
            "toyuhash"
        }
        fn output_size(&self) -> usize {
            8
        }
        fn init(&mut self) -> Result<(), EngineError> {
            self.mac.message.clear();
            Ok(())
        }
        fn update(&mut self, data: &[u8]) -> Result<(), EngineError> {
            let m = &mut self.mac.message;
            if self.forgets_tail {
                m.truncate(m.len() / 16 * 16);
            }
            m.extend_from_slice(data);
            Ok(())
        }
        fn finish(&mut self) -> Result<Digest, EngineError> {
            let tag = self.mac.tag(&ToyUhash::padded(&self.mac.message));
            self.mac.message.clear();
            Ok(tag)
        }
    }

    /// A universal hash is checked streamed at every length: one that
    /// loses a partial block between updates is refused, though each
    /// length in one call agrees; the right one agrees with itself.
    #[test]
    fn a_universal_hash_that_loses_a_partial_block_is_refused() {
        let (mut right, mut oracle) = (ToyUhash::new(false), ToyUhash::new(false));
        assert_eq!(check_uhash(&mut right, &mut oracle, &[16, 32]), Ok(()));
        let mut wrong = ToyUhash::new(true);
        let err = check_uhash(&mut wrong, &mut oracle, &[16]).unwrap_err();
        assert!(err.starts_with("wrong output: the digest of "), "{err}");
        assert!(err.contains("streamed"), "{err}");
        assert!(err.ends_with(", under a 16-byte key"), "{err}");
    }

    /// A toy stream cipher: its keystream byte `i` made of the key, the
    /// nonce and `i`; `wrong_from` a length from which its decryption
    /// spoils the last byte (a wrong variant that encryption alone, or one
    /// short length, would not show).
    struct ToyStream {
        key: Vec<u8>,
        wrong_from: Option<usize>,
    }

    impl Engine for ToyStream {
        fn name(&self) -> &str {
            "toystream"
        }
        fn block_size(&self) -> usize {
            1
        }
        fn set_key(&mut self, _: Mode, key: &[u8]) -> Result<(), EngineError> {
            self.key = key.to_vec();
            Ok(())
        }
        fn crypt(
            &mut self,
            _: Mode,
            dir: Dir,
            iv: &mut [u8],
            buf: &mut [u8],
        ) -> Result<(), EngineError> {
            for (i, b) in buf.iter_mut().enumerate() {
                let k = self.key[i % self.key.len()] ^ iv[i % iv.len()];
                *b ^= k.wrapping_add(i as u8);
            }
            let len = buf.len();
            if dir == Dir::Decrypt && self.wrong_from.is_some_and(|n| len >= n) {
                buf[len - 1] ^= 1;
            }
            Ok(())
        }
    }

    /// A stream cipher is checked at every length, both directions, under
    /// every key length: a right one agrees with itself; one whose
    /// decryption goes wrong from 200 bytes on is refused, naming the
    /// direction, the length and the key.
    #[test]
    fn a_stream_cipher_wrong_past_a_length_is_refused() {
        let toy = |wrong_from| ToyStream {
            key: Vec::new(),
            wrong_from,
        };
        let (mut right, mut oracle) = (toy(None), toy(None));
        assert_eq!(check_stream(&mut right, &mut oracle, &[16, 32], 12), Ok(()));
        let mut wrong = toy(Some(200));
        let err = check_stream(&mut wrong, &mut oracle, &[32], 12).unwrap_err();
        assert_eq!(
            err,
            "wrong output: the decryption of 200 bytes differs from toystream's, under a 32-byte key"
        );
        // Wrong alike, so in agreement: decryption does not undo encryption.
        let err = check_stream(&mut toy(Some(200)), &mut toy(Some(200)), &[16], 8).unwrap_err();
        assert_eq!(
            err,
            "wrong output: the decryption of the encryption of 200 bytes is not the input, under a 16-byte key"
        );
    }

    /// A toy AEAD: its keystream byte `i` made of the key, the nonce and
    /// `i`, its tag an FNV-1a of key, nonce, associated data and
    /// ciphertext; `flaw` what a wrong variant gets wrong.
    struct ToyAead {
        key: Vec<u8>,
        flaw: Option<AeadFlaw>,
    }

    #[derive(Clone, Copy)]
    enum AeadFlaw {
        /// Its tag leaves the associated data out.
        TagWithoutAad,
        /// Its encryption spoils the last byte from this length on.
        WrongFrom(usize),
    }

    impl ToyAead {
        fn tag(&self, nonce: &[u8], aad: &[u8], ct: &[u8], out: &mut [u8]) {
            let aad = match self.flaw {
                Some(AeadFlaw::TagWithoutAad) => &[][..],
                _ => aad,
            };
            let mut h = 0xcbf2_9ce4_8422_2325u64;
            for (i, b) in (self.key.iter().chain(nonce).chain(aad).chain(ct)).enumerate() {
                h = (h ^ u64::from(*b) ^ i as u64).wrapping_mul(0x100_0000_01b3);
            }
            for (i, t) in out.iter_mut().enumerate() {
                *t = (h >> (8 * (i % 8))) as u8 ^ i as u8;
            }
        }

        fn xor(&self, nonce: &[u8], buf: &mut [u8]) {
            for (i, b) in buf.iter_mut().enumerate() {
                *b ^= (self.key[i % self.key.len()] ^ nonce[i % nonce.len()]).wrapping_add(i as u8);
            }
        }
    }

    impl Engine for ToyAead {
        fn name(&self) -> &str {
            "toyaead"
        }
        fn block_size(&self) -> usize {
            1
        }
        fn set_key(&mut self, _: Mode, key: &[u8]) -> Result<(), EngineError> {
            self.key = key.to_vec();
            Ok(())
        }
        fn crypt(
            &mut self,
            _: Mode,
            _: Dir,
            iv: &mut [u8],
            buf: &mut [u8],
        ) -> Result<(), EngineError> {
            self.xor(iv, buf);
            Ok(())
        }
        fn aead(
            &mut self,
            dir: Dir,
            nonce: &[u8],
            aad: &[u8],
            buf: &mut [u8],
            tag: &mut [u8],
        ) -> Result<(), EngineError> {
            match dir {
                Dir::Encrypt => {
                    self.xor(nonce, buf);
                    let len = buf.len();
                    if let Some(AeadFlaw::WrongFrom(n)) = self.flaw
                        && len >= n
                    {
                        buf[len - 1] ^= 1;
                    }
                    self.tag(nonce, aad, buf, tag);
                }
                Dir::Decrypt => {
                    let mut want = vec![0; tag.len()];
                    self.tag(nonce, aad, buf, &mut want);
                    if want != tag {
                        return Err(EngineError::Tag);
                    }
                    self.xor(nonce, buf);
                }
            }
            Ok(())
        }
    }

    /// An AEAD is checked at every length, with associated data, both
    /// directions, under every key length: a right one agrees with itself;
    /// one whose tag leaves the associated data out is refused (a tampered
    /// associated data accepted), and one whose encryption goes wrong from
    /// 200 bytes on is refused, naming the length and the key.
    #[test]
    fn an_aead_that_accepts_tampering_or_differs_is_refused() {
        let toy = |flaw| ToyAead {
            key: Vec::new(),
            flaw,
        };
        let (mut right, mut oracle) = (toy(None), toy(None));
        assert_eq!(
            check_aead(&mut right, &mut oracle, &[16, 32], 12, 16),
            Ok(())
        );
        let err = check_aead(
            &mut toy(Some(AeadFlaw::TagWithoutAad)),
            &mut toy(Some(AeadFlaw::TagWithoutAad)),
            &[32],
            12,
            16,
        )
        .unwrap_err();
        assert_eq!(
            err,
            "wrong output: the decryption of 0 bytes with 1 bytes of associated data with its associated data tampered was not refused, under a 32-byte key"
        );
        let err = check_aead(
            &mut toy(Some(AeadFlaw::WrongFrom(200))),
            &mut oracle,
            &[16],
            8,
            16,
        )
        .unwrap_err();
        assert_eq!(
            err,
            "wrong output: the encryption of 200 bytes with 0 bytes of associated data differs from toyaead's, under a 16-byte key"
        );
    }

    fn batch(per_op: f64, reference: f64) -> Batch {
        Batch {
            per_op,
            ops: 8,
            reference,
            probes: 30,
            observed: 0.065,
            waited_ns: Some(0),
            quiet: false,
        }
    }

    /// The raw samples say, per engine, case and round, the ticks per
    /// operation, the probe rate relative to the run's level, and whether the
    /// round (every engine's batch) was quiet.
    #[test]
    fn samples_carry_round_quietness_and_relative_probe_rates() {
        let mut run = Batches {
            batches: vec![
                vec![vec![batch(100.0, 1.0), batch(101.0, 1.0)]],
                vec![vec![batch(90.0, 1.0), batch(91.0, 0.5)]],
            ],
            best: 1.0,
            level: 1.0,
        };
        interleave::classify(&mut run.batches, run.level);
        let s = samples(&run);
        assert_eq!(
            s[0][0][1],
            Sample {
                ticks_per_op: 101.0,
                quiet: true,
                probe_rate: 1.0,
                observed: 0.065,
                waited_ns: Some(0),
            }
        );
        assert_eq!(s[1][0][1].probe_rate, 0.5);
        assert!(s[0][0][0].quiet && s[1][0][0].quiet);
        assert!(!s[1][0][1].quiet);
        assert_eq!(quiet_rounds(&s, 0), vec![0]);
        // Anyone can apply the criterion again from the samples alone: each
        // batch on its own.
        for engine in &s {
            for sample in &engine[0] {
                let quiet = interleave::is_quiet(sample.probe_rate, sample.waited_ns);
                assert_eq!(sample.quiet, quiet);
            }
        }
    }

    #[test]
    fn samples_round_trip_through_json() {
        let s: Samples = vec![vec![vec![
            Sample {
                ticks_per_op: 1234.5,
                quiet: true,
                probe_rate: 0.998,
                observed: 0.0671,
                waited_ns: Some(0),
            },
            Sample {
                ticks_per_op: 2e-3,
                quiet: false,
                probe_rate: 0.5,
                observed: 0.0,
                waited_ns: None,
            },
        ]]];
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Samples>(&json).unwrap(), s);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let keys: Vec<&str> = v[0][0][0]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "observed",
                "probe_rate",
                "quiet",
                "ticks_per_op",
                "waited_ns"
            ]
        );
        assert!(v[0][0][1]["waited_ns"].is_null());
    }

    #[test]
    fn cases_in_json() {
        let crypt = Case::crypt(Mode::Cbc, Dir::Decrypt, 16, 256);
        let json = serde_json::to_string(&crypt).unwrap();
        // `kind` is left out for crypt, so older files read the same.
        assert_eq!(
            json,
            r#"{"mode":"cbc","dir":"decrypt","key_bytes":16,"block_bytes":256}"#
        );
        assert_eq!(serde_json::from_str::<Case>(&json).unwrap(), crypt);
        let setkey = Case::set_key(Mode::Ecb, 32);
        let json = serde_json::to_string(&setkey).unwrap();
        assert_eq!(
            json,
            r#"{"mode":"ecb","dir":"encrypt","key_bytes":32,"block_bytes":0,"kind":"setkey"}"#
        );
        assert_eq!(serde_json::from_str::<Case>(&json).unwrap(), setkey);
        assert_eq!(setkey.dir_name(), "setkey");
        assert_eq!(crypt.dir_name(), "decrypt");
        assert_eq!(
            Case::crypt(Mode::Digest, Dir::Encrypt, 0, 64).dir_name(),
            "digest"
        );
    }

    /// Two engines on a crypt case and a key-setup case: every engine, case
    /// and round has a sample, and the marker names both engines. No timing
    /// is asserted.
    #[test]
    fn interleaved_times_crypt_and_key_setup() {
        let mut engines: Vec<Box<dyn Engine>> = vec![
            Box::new(StaticCipher::<cast6::Cast6>::new("a")),
            Box::new(StaticCipher::<cast6::Cast6>::new("b")),
        ];
        let cases = [
            Case::crypt(Mode::Ecb, Dir::Encrypt, 16, 64),
            Case::set_key(Mode::Ecb, 32),
        ];
        let counter = Counter {
            kind: "tsc".into(),
            hz: 1e9,
            read_overhead: 0,
            core_hz: None,
            reference_best: clock::reference_rate().unwrap_or(1.0),
        };
        let plan = Plan {
            rounds: 3,
            batch_seconds: 0.000_2,
        };
        let mut marked = [false; 2];
        let s = interleaved(
            &mut engines,
            &cases,
            &[],
            plan,
            &counter,
            &mut |e| marked[e] = true,
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(marked, [true, true]);
        assert_eq!(s.len(), 2);
        // Exactly the plan's rounds: none is waited for.
        let rounds = s[0][0].len();
        assert_eq!(rounds, 3);
        for e in &s {
            assert_eq!(e.len(), 2);
            for c in e {
                assert_eq!(c.len(), rounds);
                assert!(c.iter().all(|x| x.ticks_per_op > 0.0 && x.probe_rate > 0.0));
            }
        }
        // A bad key size is the engine's error, with its index.
        let bad = [Case::set_key(Mode::Ecb, 7), cases[0]];
        let err = interleaved(
            &mut engines[1..],
            &bad,
            &[],
            plan,
            &counter,
            &mut |_| {},
            &mut |_| {},
        )
        .unwrap_err();
        assert_eq!(err, (0, EngineError::KeyLength(7)));
        // A case an engine does not run (a library peer's, not offered) is
        // never run: no error, no samples; the other cases and engines as
        // before.
        let s = interleaved(
            &mut engines,
            &bad,
            &[vec![0], vec![0]],
            plan,
            &counter,
            &mut |_| {},
            &mut |_| {},
        )
        .unwrap();
        for e in &s {
            assert!(e[0].is_empty(), "{e:?}");
            assert_eq!(e[1].len(), rounds);
        }
        let s = interleaved(
            &mut engines,
            &cases,
            &[vec![], vec![0]],
            plan,
            &counter,
            &mut |_| {},
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(
            (s[0][0].len(), s[1][0].len(), s[1][1].len()),
            (rounds, 0, rounds)
        );
        assert_eq!(
            quiet_rounds(&s, 0),
            (0..rounds)
                .filter(|&r| s[0][0][r].quiet)
                .collect::<Vec<_>>()
        );
    }
}
