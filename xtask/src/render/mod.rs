//! The report rendered: its markdown (`markdown.rs` and `markdown/`), its
//! chart (`chart.rs`), the views of several machines' reports (`merge/`),
//! and writing them with the JSON, and the index (`output.rs`).

pub mod chart;
pub mod markdown;
pub mod merge;
pub mod output;
