//! A package's inline attributes, found and edited in place.
//!
//! [`scan`] follows the library's module tree from its root file and lexes
//! each file into token trees (`lex.rs`), so that it sees what an AST
//! hides: `macro_rules!` bodies, `cfg_if!` branches, other macro
//! invocations. Every `#[inline]`, `#[inline(always)]`, `#[inline(never)]`,
//! also inside `#[cfg_attr(..)]` (`attrs.rs`), becomes an [`Annotation`] with
//! the function it applies to, a path that tells functions of one name
//! apart, and the conjunction of every condition around it (`cfg.rs`), so
//! that [`Annotation::applies`] says whether a target compiles it. Every
//! function with a body is a [`Function`], with the place an attribute can
//! be added to it.
//!
//! [`apply`] and [`apply_under`] (`edit.rs`) remove, change or add
//! attributes without adding or removing a newline: a removed attribute
//! becomes spaces, so every other column and every other line of the file
//! is as it was, and a panic location compiled from the copy is the
//! registry crate's.

mod attrs;
mod cfg;
mod edit;
mod error;
mod lex;
mod manifest;
mod model;
mod scan;
#[cfg(test)]
mod tests;

pub use attrs::Attr;
pub use cfg::Cfg;
#[cfg(test)]
use cfg::Pred;
#[cfg(test)]
use edit::apply;
pub use edit::{Edit, apply_under};
#[cfg(test)]
use error::Error;
pub use manifest::Manifest;
pub use model::{Annotation, Function, Scan};
pub use scan::scan;
