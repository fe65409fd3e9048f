//! A cross-machine report ([`crate::report::merged`]) rendered: its
//! markdown (`markdown.rs`) and its chart (`svg.rs`); the tests run the
//! merge and its portable rule on synthetic reports and read both.

pub mod markdown;
pub mod svg;

#[cfg(test)]
mod tests;
