//! The cycle counter: reading it, measuring the rate it ticks at, and the
//! cost of reading it (which cycles mode subtracts).
//!
//! On x86-64 the counter is `rdtsc`: it ticks at a constant rate that can
//! differ from the core clock (on these machines 2.1 GHz while cores turbo to
//! about 3 GHz), so every figure called "cycles" here is counter ticks, and
//! the output says so. Elsewhere the counter is the monotonic clock in
//! nanoseconds, and the output says that instead.

use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Reads the counter, ordered so that earlier work has finished first.
#[inline(always)]
pub fn read() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_lfence, _rdtsc};
        // SAFETY: `lfence` and `rdtsc` are baseline x86-64 instructions with
        // no memory effects; the fences keep the read from being reordered
        // with the work it brackets.
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            t
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

/// What the counter is and how fast it ticks, measured on this machine.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Counter {
    /// `"tsc"` (x86-64 time-stamp counter) or `"ns"` (monotonic clock).
    pub kind: String,
    /// Ticks per second, measured against the monotonic clock.
    pub hz: f64,
    /// Median cost of one bracketed reading, in ticks; cycles mode subtracts
    /// it from every bracketed operation.
    pub read_overhead: u64,
    /// The core clock, estimated from a loop of one-cycle dependent
    /// iterations (libgcrypt bench-slope's method), where available.
    pub core_hz: Option<f64>,
    /// The best rate of the reference burst ([`reference_rate`]) seen while
    /// calibrating: where a quiet core runs it. Contention checks start from it.
    pub reference_best: f64,
}

impl Counter {
    /// Measures the counter: about 0.2 s.
    pub fn calibrate() -> Counter {
        let kind = if cfg!(target_arch = "x86_64") {
            "tsc"
        } else {
            "ns"
        }
        .to_string();
        let mut rates: Vec<f64> = (0..3).map(|_| rate(Duration::from_millis(50))).collect();
        rates.sort_by(f64::total_cmp);
        // Reference bursts spread over 100 ms, for the best rate a quiet
        // core reaches.
        let t0 = Instant::now();
        let mut reference_best = 0.0f64;
        while t0.elapsed() < Duration::from_millis(100) {
            reference_best = reference_best.max(reference_rate().unwrap_or(1.0));
            std::thread::sleep(Duration::from_micros(200));
        }
        let hz = rates[1];
        Counter {
            kind,
            hz,
            read_overhead: read_overhead(),
            // At full capacity the reference loop runs one iteration per core
            // cycle, so its best rate per tick gives the core clock.
            core_hz: core_hz().map(|loop_hz| loop_hz.max(reference_best * hz)),
            reference_best,
        }
    }

    /// One line that says what "cycles" means in the output that follows.
    pub fn describe(&self) -> String {
        let core = match self.core_hz {
            Some(hz) => format!("; core clock about {:.2} GHz", hz / 1e9),
            None => String::new(),
        };
        match self.kind.as_str() {
            "tsc" => format!(
                "cycle counter: tsc at {:.3} GHz (measured){core}; \"cycles\" below are counter ticks, not core cycles; each reading's own cost ({} ticks) is subtracted",
                self.hz / 1e9,
                self.read_overhead
            ),
            _ => format!(
                "cycle counter: none on this CPU; \"cycles\" below are nanoseconds of the monotonic clock{core}; each reading's own cost ({} ns) is subtracted",
                self.read_overhead
            ),
        }
    }

    /// Converts counter ticks to seconds.
    pub fn seconds(&self, ticks: f64) -> f64 {
        ticks / self.hz
    }
}

/// Counter ticks per second over one busy interval of about `span`.
fn rate(span: Duration) -> f64 {
    let (t0, c0) = (Instant::now(), read());
    while t0.elapsed() < span {
        std::hint::spin_loop();
    }
    let (t1, c1) = (Instant::now(), read());
    (c1 - c0) as f64 / (t1 - t0).as_secs_f64()
}

fn read_overhead() -> u64 {
    let mut deltas: Vec<u64> = (0..2001)
        .map(|_| {
            let t0 = read();
            let t1 = read();
            t1 - t0
        })
        .collect();
    deltas.sort_unstable();
    deltas[deltas.len() / 2]
}

/// Iterations of one reference burst ([`probe`]): a few microseconds (about
/// 7 µs at 3 GHz, 10 µs at 2 GHz), long enough that the counter readings
/// around it cost well under 1% of it.
pub const PROBE_ITERATIONS: u64 = 20_000;

/// One reference burst: how fast it ran and how long it took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    /// Iterations per counter tick.
    pub rate: f64,
    /// Counter ticks the burst lasted, readings included.
    pub ticks: u64,
}

/// Runs one burst of [`PROBE_ITERATIONS`] iterations of the one-cycle
/// reference loop; `None` where there is no such loop. On a shared machine
/// the core's capacity changes (a busy SMT sibling halves this loop's rate,
/// another task or an interrupt takes the core away), so work that ran while
/// the burst ran slow ran contended. The loop touches no memory: between two
/// chunks of timed work it leaves the caches as the work left them.
pub fn probe() -> Option<Probe> {
    #[cfg(target_arch = "x86_64")]
    {
        let t0 = read();
        countdown(PROBE_ITERATIONS);
        let ticks = (read() - t0).max(1);
        Some(Probe {
            rate: PROBE_ITERATIONS as f64 / ticks as f64,
            ticks,
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// The rate of one [`probe`], in iterations per counter tick; `None` where
/// there is no reference loop.
pub fn reference_rate() -> Option<f64> {
    probe().map(|p| p.rate)
}

/// Core clock from a loop whose iterations each take one core cycle: a
/// decrement and a macro-fused branch back, which every x86-64 core since
/// 2006 retires at one per cycle.
fn core_hz() -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        let iterations: u64 = 50_000_000;
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let t0 = Instant::now();
            countdown(iterations);
            best = best.min(t0.elapsed().as_secs_f64());
        }
        Some(iterations as f64 / best)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// The reference loop: `iterations` times a decrement and a macro-fused
/// branch back, which a core at full capacity retires at one per cycle.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn countdown(iterations: u64) {
    // SAFETY: the loop only decrements a register it owns until zero; it
    // touches no memory and no other register.
    unsafe {
        core::arch::asm!(
            "2:",
            "dec {n}",
            "jnz 2b",
            n = inout(reg) iterations => _,
            options(nomem, nostack),
        );
    }
}
