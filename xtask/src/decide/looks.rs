//! The looks a run takes at its verdict: the first pass's, then one after
//! each racing round; how many, and how many processes a round holds.
//! Each look costs confidence ([`crate::decide::paired::confidence`]).

/// The looks of racing's first rounds: the first pass's, then two racing
/// rounds of [`PER_LOOK`] processes each.
pub const FIRST_LOOKS: usize = 3;

/// The most looks a run takes. Past [`FIRST_LOOKS`], while the budget
/// allows and a step the verdict hinges on still straddles its bar, a
/// round holds as many processes as the run has had ([`per_look`]): the
/// interval narrows by about `1/sqrt(2)` while the look's confidence (look
/// j at `1 - ALPHA/2^j`) widens it by less (a tenth at the fourth look, a
/// twelfth at the fifth). The looks' alphas sum to less than `ALPHA`
/// whatever their number (the union bound), so identical code is still
/// declared different less than 5% of the time over all of them; `cargo
/// xtask calibrate` measures it with the same loop.
pub const MAX_LOOKS: usize = 5;

/// The racing processes of one of the first rounds: all of them run
/// before the next look.
pub const PER_LOOK: usize = 4;

/// The racing processes of the round after `looks` looks, of a run whose
/// rounds so far came from `processes` processes: [`PER_LOOK`] in the
/// first rounds, then as many as the run has had.
pub fn per_look(looks: usize, processes: usize) -> usize {
    if looks < FIRST_LOOKS {
        PER_LOOK
    } else {
        processes.max(PER_LOOK)
    }
}

/// The most measuring processes a run's rounds come from: the first pass's
/// (`--processes`, [`crate::cli::PROCESSES`]), [`PER_LOOK`] for each of
/// the first rounds, then doubling at each later look.
pub const MAX_PROCESSES: usize =
    (*crate::cli::PROCESSES.end() + (FIRST_LOOKS - 1) * PER_LOOK) << (MAX_LOOKS - FIRST_LOOKS);
