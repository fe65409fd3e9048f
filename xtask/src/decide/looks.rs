//! The looks a run takes at its verdict: the first pass's, then one after
//! each racing round; how many, and how many processes a round holds.
//! Each look costs confidence ([`crate::decide::paired::confidence`]).

/// The most looks a run takes: the first pass's, then at most two racing
/// rounds. Each look costs confidence (look j uses `1 - ALPHA/2^j`), so
/// more rounds of fewer processes would widen the intervals faster than
/// the processes narrow them.
pub const MAX_LOOKS: usize = 3;

/// The racing processes of one round: all of them run before the next look.
pub const PER_LOOK: usize = 4;

/// The most measuring processes a run's rounds come from: the first pass's
/// (`--processes`, [`crate::cli::PROCESSES`]), then [`PER_LOOK`] for each
/// look after the first.
pub const MAX_PROCESSES: usize = *crate::cli::PROCESSES.end() + (MAX_LOOKS - 1) * PER_LOOK;
