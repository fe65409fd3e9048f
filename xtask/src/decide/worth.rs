//! The rule for one attribute: what removing it (or giving a function
//! `always`) did, from the speed ratio without it over with it, its
//! interval, the footprint's change and the run's bar. `render/worth.rs`
//! applies it to a report's rows.

use bench_harness::stats::Ratio;

/// What removing an attribute did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Without it the crate is slower beyond the bar, or larger and no
    /// faster: it pays for itself.
    Keep,
    /// Without it the crate is smaller and no slower, or faster beyond
    /// the bar: it costs size (or speed) for nothing.
    Drop,
    /// The hot path's machine code is the same with and without it, or
    /// speed did not move past the noise and the footprint not past the
    /// floor ([`NO_EFFECT_BYTES`], [`NO_EFFECT_FRACTION`]).
    NoEffect,
    /// The interval straddles the bar: more processes would decide.
    Unsettled,
    /// Its variant was not timed in full (screened, failed, unavailable),
    /// or not built (`--variants` left it out).
    NotTimed,
    /// Given `always`, the function makes the crate faster past the bar
    /// (the size cost of its growth included): add it.
    Add,
    /// Given `always`, no gain past the bar.
    NoGain,
}

impl Outcome {
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Keep => "keep",
            Outcome::Drop => "drop",
            Outcome::NoEffect => "no effect",
            Outcome::Unsettled => "unsettled",
            Outcome::NotTimed => "not timed",
            Outcome::Add => "add",
            Outcome::NoGain => "no gain",
        }
    }
}

/// The least the footprint must move, in bytes, for an attribute whose
/// removal leaves speed within the noise to count: below it (or below
/// [`NO_EFFECT_FRACTION`] of the footprint) it is *no effect*, not a
/// saving nor a cost anyone could use.
pub const NO_EFFECT_BYTES: i64 = 64;

/// The least the footprint must move, as a fraction of it (0.5%), beside
/// [`NO_EFFECT_BYTES`].
pub const NO_EFFECT_FRACTION: f64 = 0.005;

/// The outcome of a speed ratio (without over with) and a size change (a
/// fraction, and `bytes`), against `bar` (the run's, `1 + max(threshold,
/// A/A deviation)`).
pub fn decide(speed: &Ratio, size_change: f64, bytes: i64, bar: f64) -> Outcome {
    if speed.high < 1.0 / bar {
        return Outcome::Keep;
    }
    if speed.low > bar {
        return Outcome::Drop;
    }
    let within = speed.low >= 1.0 / bar && speed.high <= bar;
    let moved = bytes.abs() >= NO_EFFECT_BYTES && size_change.abs() >= NO_EFFECT_FRACTION;
    match (within, size_change) {
        (false, _) => Outcome::Unsettled,
        (true, _) if !moved => Outcome::NoEffect,
        (true, s) if s < 0.0 => Outcome::Drop,
        (true, _) => Outcome::Keep,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(ratio: f64, low: f64, high: f64) -> Ratio {
        Ratio { ratio, low, high }
    }

    /// Each outcome from its side of the bar (1.02 here); the size
    /// changes are of a 20,000-byte footprint.
    #[test]
    fn outcomes_by_the_bar() {
        let bar = 1.02;
        let d = |speed: Ratio, change: f64| decide(&speed, change, (change * 20_000.0) as i64, bar);
        assert_eq!(
            d(r(0.80, 0.78, 0.82), 0.0),
            Outcome::Keep,
            "slower without it"
        );
        assert_eq!(
            d(r(1.10, 1.08, 1.12), 0.3),
            Outcome::Drop,
            "faster without it"
        );
        assert_eq!(
            d(r(1.00, 0.995, 1.005), -0.2),
            Outcome::Drop,
            "smaller, no slower"
        );
        assert_eq!(
            d(r(1.00, 0.995, 1.005), 0.2),
            Outcome::Keep,
            "larger without it"
        );
        assert_eq!(d(r(1.00, 0.995, 1.005), 0.0), Outcome::NoEffect);
        assert_eq!(
            d(r(0.98, 0.95, 1.01), -0.2),
            Outcome::Unsettled,
            "straddles 1/bar"
        );
    }

    /// A footprint that moves by less than the floor (64 bytes, or 0.5% of
    /// it) at the same speed is no effect, either way; past both, it
    /// counts.
    #[test]
    fn under_the_floor_is_no_effect() {
        let bar = 1.02;
        let same = r(1.00, 0.995, 1.005);
        // cast6 0.2.0's `encrypt_block`: +16 bytes (+0.1%) without it.
        assert_eq!(decide(&same, 16.0 / 22_046.0, 16, bar), Outcome::NoEffect);
        assert_eq!(
            decide(&same, -0.004, -88, bar),
            Outcome::NoEffect,
            "under 0.5%"
        );
        assert_eq!(
            decide(&same, 0.03, 48, bar),
            Outcome::NoEffect,
            "under 64 bytes"
        );
        assert_eq!(decide(&same, 0.006, 132, bar), Outcome::Keep);
        assert_eq!(decide(&same, -0.006, -132, bar), Outcome::Drop);
    }
}
