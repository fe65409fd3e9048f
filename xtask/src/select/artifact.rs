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
    /// LLVM's inlining decisions for calls to the functions of the crate
    /// the artifact holds (a crate's, a peer's, `variants`), from the build
    /// that made it (`-Cremark=inline`; empty in a file written before
    /// they were read).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inlining: Vec<Inlining>,
    /// In a file only: `inlining` holds just the decisions that differ
    /// from those of another entry's artifact, which are the rest
    /// (`report/shared_lists.rs`); `None` once read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inlining_shared: Option<SharedInlining>,
    /// A library peer's: its library's code that the hot path and the key
    /// schedule reached, beside the artifact's own (`None` for every other
    /// artifact, and in a file written before it was measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<LibraryCode>,
}

/// A library peer's hot path and key schedule: the artifact's own (its
/// walk from the entries, `build/code.rs`, which stops at the library's
/// functions) and the library's functions that executed under callgrind
/// in the counted cases (`count/reached.rs`): measured dynamically, not by
/// reachability (the library is stripped of its local symbols). The
/// artifact's `hot_path_bytes` and `key_schedule_bytes` are their sums
/// ([`LibraryCode::hot_path_bytes`]), `None` while the library's are not
/// measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LibraryCode {
    /// What the artifact's own hot path reaches.
    #[serde(default)]
    pub own_hot_path_bytes: Option<u64>,
    /// What the artifact's own key schedule reaches and its hot path does
    /// not.
    #[serde(default)]
    pub own_key_schedule_bytes: Option<u64>,
    /// The library's functions that executed in the crypt cases counted.
    #[serde(default)]
    pub hot_path: Vec<LibraryFunction>,
    /// Those that executed in the key setup case counted and in no crypt
    /// case.
    #[serde(default)]
    pub key_schedule: Vec<LibraryFunction>,
    /// Whether a key setup case was counted (else the key schedule is
    /// unknown).
    #[serde(default)]
    pub key_setup_counted: bool,
    /// Why the library's functions were not measured (`None` once they
    /// were).
    #[serde(default)]
    pub unmeasured: Option<String>,
}

/// A function of a library that executed: its file (the name, not the
/// directory), where it starts (the file's virtual address) and its bytes
/// (its `.eh_frame` FDE's range, else its `.dynsym` symbol's:
/// `build/ranges.rs`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LibraryFunction {
    pub file: String,
    pub start: u64,
    pub bytes: u64,
}

impl LibraryCode {
    /// The hot path: the artifact's own and the library's functions, once
    /// both are known.
    pub fn hot_path_bytes(&self) -> Option<u64> {
        let own = self.own_hot_path_bytes?;
        self.measured()
            .then(|| own.saturating_add(sum(&self.hot_path)))
    }

    /// The key schedule: the artifact's own and the library's functions,
    /// once both are known.
    pub fn key_schedule_bytes(&self) -> Option<u64> {
        let own = self.own_key_schedule_bytes?;
        (self.measured() && self.key_setup_counted)
            .then(|| own.saturating_add(sum(&self.key_schedule)))
    }

    /// Whether the library's functions were measured.
    pub fn measured(&self) -> bool {
        self.unmeasured.is_none()
    }
}

/// The bytes of `functions`.
fn sum(functions: &[LibraryFunction]) -> u64 {
    functions.iter().fold(0, |n, f| n.saturating_add(f.bytes))
}

/// Where an artifact's LLVM decisions are written as differences: the
/// entry whose decisions they differ from, and the calls (callee, caller)
/// it has that this artifact's build did not decide on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedInlining {
    pub base: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gone: Vec<(String, String)>,
}

/// One function of the cipher.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// Demangled, with paths shortened to their last segment.
    pub name: String,
    pub bytes: u64,
}

/// One of LLVM's inlining decisions for a call from `caller` to `callee`,
/// a function of the crate measured, as `-Cremark=inline` printed it in
/// the build that made the artifact (`crate::build::remarks`). Names are
/// demangled, hashes dropped, paths shortened to their last segment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inlining {
    pub callee: String,
    pub caller: String,
    pub decision: Decision,
}

impl Inlining {
    /// Whether the call was inlined.
    pub fn inlined(&self) -> bool {
        self.decision.inlines()
    }
}

impl Decision {
    /// Whether the call is inlined.
    pub fn inlines(&self) -> bool {
        matches!(self, Decision::Always | Decision::Cheap { .. })
    }
}

/// Why LLVM inlined a call or left it a call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Decision {
    /// Inlined: the callee is `#[inline(always)]`.
    Always,
    /// Inlined: its cost was under the call site's threshold.
    Cheap { cost: i64, threshold: i64 },
    /// A call: the callee is `#[inline(never)]` (LLVM's `noinline`).
    Never,
    /// A call: the callee's body is not available where the caller is
    /// compiled (another crate's function without `#[inline]`, too large
    /// for rustc's automatic cross-crate inlining).
    Unavailable,
    /// A call: its cost was over the call site's threshold.
    TooCostly { cost: i64, threshold: i64 },
    /// A call: caller and callee have attributes that forbid it (their
    /// target features differ).
    Conflicting,
    /// A call, for a reason LLVM words otherwise.
    Other { text: String },
}
