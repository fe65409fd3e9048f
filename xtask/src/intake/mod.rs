//! Taking in a crate this workspace did not write (`compare --crate`,
//! `gate --crate`): its front door (`door/`: the crate taken in, from a
//! spec or a revision's exported tree, to its variants made and its
//! contenders ready, the steps below in order), what
//! the spec names (`spec.rs`), where cargo has its source (`fetch.rs`), a
//! copy to edit (`copy.rs`), its inline attributes found and edited in
//! place (`annotations/`), the variants those edits make (`axes.rs`), its
//! feature sets, an axis of them (`features.rs`), the compiler asked which
//! of its types are block ciphers (and what keys they take) or hashes (and
//! how long their digest is) (`probe.rs`), the one measured
//! (`identify.rs`), the shim each variant is built through (`shim.rs`),
//! the backends its hot path holds and the CPU's features, and a case's
//! samples or instructions by module
//! (`modules.rs`), an artifact's functions by address (`symbols.rs`),
//! the report's table of attributes (`table.rs`), and the pick written as
//! a patch against the crate's source (`patch.rs`).

pub mod annotations;
pub mod axes;
pub mod copy;
pub mod door;
pub mod features;
pub mod fetch;
pub mod identify;
pub mod modules;
pub mod patch;
pub mod probe;
pub mod shim;
pub mod spec;
pub mod symbols;
pub mod table;
