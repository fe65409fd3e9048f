//! What a built artifact is, as every stage after the build sees it: its
//! file, fingerprint and sizes (`crate::build::size` reads them), in a
//! contender's state and in the report.

use serde::{Deserialize, Serialize};

/// What an artifact weighs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Artifact {
    /// Where the `.so` was, relative to the workspace root.
    pub path: String,
    /// Length and hash of the `.so` that was sized.
    pub fingerprint: String,
    pub so_bytes: u64,
    pub text_bytes: u64,
    pub rodata_bytes: u64,
    pub data_bytes: u64,
    /// `.text` + `.rodata` + `.data`: what loading the module costs, and
    /// the size the verdict's rule compares.
    pub footprint_bytes: u64,
    /// The functions reachable from `inlinelab_crypt` (the hot path),
    /// `inlinelab_crypt` included, the panic machinery not (see
    /// `code::is_panic`).
    pub hot_path_bytes: Option<u64>,
    /// The functions reachable from `inlinelab_set_key` and not from
    /// `inlinelab_crypt` (a function both reach counts in the hot path).
    pub key_schedule_bytes: Option<u64>,
    /// A hash of the hot path's normalized machine code (`code.rs`): equal
    /// for the same code wherever it was placed.
    pub hot_path_code: Option<String>,
    /// The hot path's functions, in the walk's order (in a file, left out
    /// where they are those of the entry `same_code_as` names:
    /// `report/shared_lists.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hot_path: Vec<Function>,
    pub rlib_bytes: u64,
    /// The cipher's own functions (its crate's symbols), largest first
    /// (left out in a file as `hot_path` is).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<Function>,
    /// The round functions found as functions of their own.
    pub rounds_out_of_line: Vec<String>,
}

/// One function of the cipher.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// Demangled, with paths shortened to their last segment.
    pub name: String,
    pub bytes: u64,
}
