//! What `tcrypt --json` writes, and how a later run knows a file as its own.

use crate::clock::Counter;
use crate::measure::Measurement;

/// The JSON that `--json` writes.
#[derive(serde::Serialize)]
pub struct Report<'a> {
    pub schema_version: u32,
    /// The generated marker: [`JSON_WRITER`], so that a later `--json` run
    /// knows the file as one it may replace.
    pub generated_by: &'static str,
    pub counter: &'a Counter,
    /// The machine the figures come from.
    pub machine: &'a crate::machine::Machine,
    /// Precise mode's quiet criterion: [`crate::interleave::QUIET`], and in
    /// words.
    pub quiet: f64,
    pub quiet_criterion: String,
    /// What the `cycles` fields count.
    pub cycles_are: &'static str,
    pub timing: &'static str,
    pub measurements: &'a [Measurement],
    pub fits: &'a [crate::measure::Fit],
}

/// What a `--json` file names as its writer.
pub const JSON_WRITER: &str = "tcrypt --json";

/// Whether an existing file is a `--json` output of tcrypt (a JSON object
/// whose `generated_by` is [`JSON_WRITER`]): only such a file is replaced.
pub fn owns_json(bytes: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Head {
        generated_by: String,
    }
    serde_json::from_slice::<Head>(bytes).is_ok_and(|h| h.generated_by == JSON_WRITER)
}

/// The owner of a `--json` file ([`owns_json`]).
pub fn json_owner() -> crate::outfile::Owner<'static> {
    crate::outfile::Owner {
        writer: JSON_WRITER,
        owns: &owns_json,
    }
}
