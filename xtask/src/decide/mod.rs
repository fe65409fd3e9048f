//! The decision: the estimator of a speed ratio and its interval over the
//! measuring processes, with the confidence of each look racing takes
//! (`paired.rs`), how many looks and processes racing may take
//! (`looks.rs`), and the rule that turns the ratios, sizes and the A/A
//! control into the verdict (`verdict.rs`). Below timing (racing decides
//! after each look) and below the report, which records what they decide.

pub mod looks;
pub mod paired;
pub mod verdict;
