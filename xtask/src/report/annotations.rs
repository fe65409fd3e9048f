//! A crate's inline attributes (`compare --crate`): which variant removed
//! each one, and which gave `always` to each hot function left out of
//! line. What each did is decided from the report's own entries at render
//! time (`render/worth.rs`), never stored.

use serde::{Deserialize, Serialize};

/// The attributes of the crate a report measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Annotations {
    /// The package: `cast6`.
    #[serde(rename = "crate")]
    pub krate: String,
    pub version: String,
    /// The type measured: `Cast6`.
    #[serde(rename = "type")]
    pub ty: String,
    /// Every inline attribute written in the crate, compiled on this target
    /// or not.
    pub written: usize,
    /// Those this target compiles, in the order the module tree reaches
    /// them.
    pub rows: Vec<Annotated>,
    /// The functions the published build leaves out of line on the hot
    /// path, each given `#[inline(always)]` in a variant (`add_K`).
    #[serde(default)]
    pub added: Vec<Added>,
    /// The crate's modules its hot path reaches as published (`aes::soft`,
    /// `aes::x86_aes`): where it holds several, it picks one at run time.
    #[serde(default)]
    pub backends: Vec<String>,
    /// The instruction-set extensions this CPU has among those a crate
    /// picks a backend by (`aes`, `vaes`, `avx512f`, ...).
    #[serde(default)]
    pub cpu_features: Vec<String>,
    /// Which of those modules ran, per mode family: sampled on this CPU
    /// and counted by callgrind (absent in a report written before they
    /// were observed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran: Option<crate::report::backends::Ran>,
    /// The verdict's pick written as a patch against the crate's source
    /// (`NAME.patch` beside the report); absent when the pick is the crate
    /// as published, or when the run wrote none (its notes say why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<Patch>,
}

/// The pick's edits as a patch file: each attribute as published and as
/// the patch leaves it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Patch {
    /// The file beside the report: `cast6.patch`.
    pub file: String,
    /// The variant it writes out, measured whole in the run.
    pub variant: String,
    pub edits: Vec<PatchEdit>,
}

/// One edit of a patch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PatchEdit {
    /// The function's path.
    pub path: String,
    /// `file:line` in the package.
    pub location: String,
    /// Its attribute as published (`inline`, ...), or none.
    pub published: Option<String>,
    /// Its attribute with the patch, or none.
    pub patched: Option<String>,
}

/// A hot function out of line as published, and the variant that gives it
/// `#[inline(always)]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Added {
    /// From 1: the `K` of `add_K`.
    pub number: usize,
    pub function: String,
    pub path: String,
    /// `file:line` of the function.
    pub location: String,
    /// Its inline attribute as published (`inline`, ...), if any.
    pub attr: Option<String>,
    pub variant: String,
}

/// One attribute and the variant without it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Annotated {
    /// From 1: the `N` of `drop_N`.
    pub number: usize,
    /// The function it applies to (`$name` in a macro body).
    pub function: String,
    /// The function's path (module, `impl`, macro).
    pub path: String,
    /// `file:line` in the package.
    pub location: String,
    /// As published: `inline`, `inline(always)`, `inline(never)`.
    pub attr: String,
    /// The variant that removes it.
    pub variant: String,
}
