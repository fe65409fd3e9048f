//! Where the CPU time of some work goes: the instruction pointer sampled
//! every `interval` of this process's CPU time (`setitimer(ITIMER_PROF)`)
//! by a `SIGPROF` handler, which reads it from the interrupted context
//! (`SA_SIGINFO`'s `ucontext_t`) into a preallocated buffer of atomics:
//! no lock, no allocation, nothing but async-signal-safe stores. These
//! machines have no hardware performance counters for `perf`; a CPU-time
//! timer needs none. For a process of its own (`__sample`): the handler
//! stays installed until the process exits, and only one sampling runs at
//! a time.
//!
//! x86-64 Linux only (the context's layout); elsewhere [`sample`] says it
//! is not available.

use std::time::Duration;

/// How many samples one sampling keeps at most (those past it are counted,
/// not kept).
pub const CAPACITY: usize = 1 << 14;

/// What one sampling gave.
#[derive(Debug)]
pub struct Sampled {
    /// The instruction pointers, in the order taken.
    pub addresses: Vec<u64>,
    /// Samples taken but not kept (past [`CAPACITY`], or a slot not yet
    /// written when read).
    pub lost: u64,
}

/// Runs `work` again and again, sampling the instruction pointer every
/// `interval` of CPU time, until `enough` samples are taken or `limit`
/// (wall clock) has passed; stops at `work`'s first error.
pub fn sample<E: std::fmt::Display>(
    interval: Duration,
    enough: usize,
    limit: Duration,
    work: &mut dyn FnMut() -> Result<(), E>,
) -> Result<Sampled, String> {
    imp::sample(interval, enough.min(CAPACITY), limit, work)
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod imp {
    use super::{CAPACITY, Sampled};
    use std::ffi::{c_int, c_void};
    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    /// The samples of the sampling running: slot `i` is written by the
    /// `i`th signal (0: not written).
    static SLOTS: [AtomicU64; CAPACITY] = [const { AtomicU64::new(0) }; CAPACITY];
    /// Signals taken since the sampling started, kept or not.
    static TAKEN: AtomicUsize = AtomicUsize::new(0);
    /// Whether a sampling is running: the handler records only then.
    static ARMED: AtomicBool = AtomicBool::new(false);
    static INSTALL: Once = Once::new();
    static INSTALLED: AtomicBool = AtomicBool::new(false);

    /// The `SIGPROF` handler: atomics only (async-signal-safe).
    extern "C" fn on_sigprof(_signal: c_int, _info: *mut libc::siginfo_t, context: *mut c_void) {
        if !ARMED.load(Ordering::Acquire) || context.is_null() {
            return;
        }
        // SAFETY: the handler is installed with SA_SIGINFO, so the kernel
        // passes the interrupted thread's context as a `ucontext_t` (x86-64
        // Linux layout, this module's cfg), valid for the handler's duration;
        // it is only read.
        let rip = unsafe {
            (*context.cast::<libc::ucontext_t>()).uc_mcontext.gregs[libc::REG_RIP as usize]
        };
        let i = TAKEN.fetch_add(1, Ordering::AcqRel);
        if let Some(slot) = SLOTS.get(i) {
            slot.store(rip as u64, Ordering::Release);
        }
    }

    /// Installs [`on_sigprof`] for `SIGPROF`, once per process.
    fn install() -> Result<(), String> {
        INSTALL.call_once(|| {
            // SAFETY: an all-zero `sigaction` is a valid value of this plain
            // C struct (no handler, empty mask, no flags); its fields are set
            // below before it is used.
            let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
            let handler: extern "C" fn(c_int, *mut libc::siginfo_t, *mut c_void) = on_sigprof;
            action.sa_sigaction = handler as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
            // SAFETY: `action.sa_mask` is a valid `sigset_t` to initialise;
            // `sigaction` reads `action` (a handler that only touches atomics)
            // and writes nothing (null old action).
            let ok = unsafe {
                libc::sigemptyset(&mut action.sa_mask) == 0
                    && libc::sigaction(libc::SIGPROF, &action, std::ptr::null_mut()) == 0
            };
            INSTALLED.store(ok, Ordering::Release);
        });
        if INSTALLED.load(Ordering::Acquire) {
            Ok(())
        } else {
            Err(format!(
                "installing a SIGPROF handler: {}",
                std::io::Error::last_os_error()
            ))
        }
    }

    /// Sets the profiling timer to fire every `interval` (zero: disarmed).
    fn set_timer(interval: Duration) -> Result<(), String> {
        let every = libc::timeval {
            tv_sec: interval.as_secs() as libc::time_t,
            tv_usec: libc::suseconds_t::from(interval.subsec_micros()),
        };
        let value = libc::itimerval {
            it_interval: every,
            it_value: every,
        };
        // SAFETY: `value` is a valid `itimerval`; no old value is asked for.
        if unsafe { libc::setitimer(libc::ITIMER_PROF, &value, std::ptr::null_mut()) } == 0 {
            Ok(())
        } else {
            Err(format!("setitimer: {}", std::io::Error::last_os_error()))
        }
    }

    pub fn sample<E: std::fmt::Display>(
        interval: Duration,
        enough: usize,
        limit: Duration,
        work: &mut dyn FnMut() -> Result<(), E>,
    ) -> Result<Sampled, String> {
        install()?;
        for slot in &SLOTS {
            slot.store(0, Ordering::Relaxed);
        }
        TAKEN.store(0, Ordering::Release);
        ARMED.store(true, Ordering::Release);
        let started = Instant::now();
        let ran = set_timer(interval.max(Duration::from_micros(1))).and_then(|()| {
            while TAKEN.load(Ordering::Acquire) < enough && started.elapsed() < limit {
                work().map_err(|e| e.to_string())?;
            }
            Ok(())
        });
        // Disarmed before the samples are read: a signal pending when the
        // timer stops is handled before `setitimer` returns, and one handled
        // on another thread after this finds the handler disarmed.
        let stopped = set_timer(Duration::ZERO);
        ARMED.store(false, Ordering::Release);
        ran?;
        stopped?;
        let taken = TAKEN.load(Ordering::Acquire);
        let addresses: Vec<u64> = (SLOTS[..taken.min(CAPACITY)].iter())
            .map(|s| s.load(Ordering::Acquire))
            .filter(|&a| a != 0)
            .collect();
        Ok(Sampled {
            lost: (taken - addresses.len()) as u64,
            addresses,
        })
    }
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
mod imp {
    use super::Sampled;
    use std::time::Duration;

    pub fn sample<E: std::fmt::Display>(
        _interval: Duration,
        _enough: usize,
        _limit: Duration,
        _work: &mut dyn FnMut() -> Result<(), E>,
    ) -> Result<Sampled, String> {
        Err(super::NOT_AVAILABLE.to_string())
    }
}

/// Why there is no sampling off x86-64 Linux.
pub const NOT_AVAILABLE: &str =
    "not available: sampling the instruction pointer is implemented for x86-64 Linux only";

/// Whether [`sample`] works on this target.
pub const AVAILABLE: bool = cfg!(all(target_os = "linux", target_arch = "x86_64"));
