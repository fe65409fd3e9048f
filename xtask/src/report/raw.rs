//! The report's raw output: tcrypt's cycles-mode lines (the hash lines for
//! a digest, `tcrypt --setkey`'s for key setup) from per-case median ticks.

use bench_harness::engine::{Dir, Mode};
use bench_harness::format;
use bench_harness::sampling::{Case, CaseKind};

/// The lines of one engine, `driver`, of cipher `cipher`; `median(c)` is its
/// median ticks per operation in case `c`.
pub fn lines(cipher: &str, cases: &[Case], driver: &str, median: impl Fn(usize) -> f64) -> String {
    let mut out = String::new();
    let mut last: Option<(Mode, Dir, CaseKind)> = None;
    let mut test = 0;
    for (ci, c) in cases.iter().enumerate() {
        if last != Some((c.mode, c.dir, c.kind)) {
            let header = match (c.kind, c.mode) {
                (CaseKind::SetKey, _) => format::setkey_header(&c.alg(cipher), driver),
                (_, Mode::Digest) => format::hash_header(&c.alg(cipher), driver),
                _ => format::cipher_header(&c.alg(cipher), driver, c.dir),
            };
            out.push_str(&header);
            out.push('\n');
            last = Some((c.mode, c.dir, c.kind));
            test = 0;
        }
        let ticks = median(ci);
        let line = match (c.kind, c.mode) {
            (CaseKind::SetKey, _) => format::setkey_cycles(test, c.key_bytes, ticks.round() as u64),
            (_, Mode::Digest) => format::hash_cycles(
                test,
                c.block_bytes,
                c.block_bytes,
                (ticks * 8.0).round() as u64,
            ),
            _ => format::cipher_cycles(test, c.key_bytes, c.block_bytes, ticks.round() as u64),
        };
        out.push_str(&line);
        out.push('\n');
        test += 1;
    }
    out
}
