//! The decision: the estimator of a speed ratio and its interval over the
//! measuring processes, with the confidence of each look racing takes
//! (`paired.rs`), how many looks and processes racing may take
//! (`looks.rs`), the rule that turns the ratios, sizes and the A/A
//! control into the verdict (`verdict.rs`), what one attribute's removal
//! is worth (`worth.rs`), and whether attribute edits
//! applied together interact, by their instruction counts, with the search
//! for the sets that do not (`interaction.rs`), and whether a variant
//! depends on its secrets where the reference does not (`secrets.rs`). Below timing (racing decides
//! after each look) and below the report, which records what they decide.

pub mod interaction;
pub mod looks;
pub mod paired;
pub mod portable;
pub mod secrets;
pub mod verdict;
pub mod worth;
