//! What a scan finds: each inline attribute as written ([`Annotation`]),
//! each function with a body ([`Function`]), where they are written
//! ([`Place`]), and the whole ([`Scan`]).

use super::attrs::Attr;
use super::cfg::{Cfg, Pred};
use std::ops::Range;
use std::path::PathBuf;

/// What a function is to the item around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FnKind {
    /// A free function (in a module, or inside another function's body).
    FreeFn,
    /// A method of `impl Type { .. }`.
    InherentMethod,
    /// A method of `impl Trait for Type { .. }`.
    TraitImplMethod,
    /// A default method of `trait Trait { .. }`.
    TraitMethod,
}

/// Where a function (or an annotation's function) is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    pub kind: FnKind,
    /// Inside a `macro_rules!` body: one written attribute, as many
    /// compiled ones as the macro has invocations.
    pub in_macro_body: bool,
    /// Inside a branch of a `cfg_if!` invocation.
    pub in_cfg_if: bool,
}

/// One inline attribute as written in the package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Annotation {
    /// Relative to the package root.
    pub file: PathBuf,
    /// 1-based line of the attribute's `#`.
    pub line: usize,
    /// 1-based column of the `#`, in chars.
    pub column: usize,
    pub attr: Attr,
    /// The `fn` it applies to (`$name` as written in a macro body); `None`
    /// for an attribute on something else (a closure, a misplaced one).
    pub function: Option<String>,
    /// The module path from the crate root, then each enclosing macro
    /// (`impl_backend!`), `impl` (`<Aes<RK> as BlockCipherEncBackend>`,
    /// `Aes<RK>`), `trait` or function, then the function:
    /// `backends::x86_aes::<Aes<RK> as BlockCipherEncBackend>::encrypt_block`.
    pub path: String,
    pub place: Place,
    /// Every condition it is compiled under: the item's and the enclosing
    /// items' `#[cfg]`s, the `mod` declarations' and the files' `#![cfg]`s,
    /// the `cfg_if!` branch (an `else` negating the branches before it) and
    /// the `cfg_attr` predicates around the attribute.
    pub cfg: Pred,
    /// Written inside `#[cfg_attr(..)]`.
    pub in_cfg_attr: bool,
    /// The whole attribute as written: `#[inline]`, `#[cfg_attr(x, inline)]`.
    pub text: String,
    /// The bytes of `text` in the file.
    pub attr_range: Range<usize>,
    /// The bytes of the inline meta (`inline(always)`), what a
    /// [`Edit::Set`] rewrites.
    pub meta_range: Range<usize>,
    /// The bytes a [`Edit::Remove`] blanks: `attr_range`, or the meta and a
    /// comma when the `cfg_attr` holds other attributes.
    pub removal: Range<usize>,
    /// Index of the function in [`Scan::functions`], when it has a body.
    pub function_index: Option<usize>,
}

impl Annotation {
    /// Whether a build for `cfg` compiles this attribute: false when any
    /// condition around it is false; an undecided one (cfg syntax this
    /// reader does not know) counts as compiled.
    pub fn applies(&self, cfg: &Cfg) -> bool {
        cfg.eval(&self.cfg) != Some(false)
    }

    /// `file:line`, as a report names it.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file.display(), self.line)
    }
}

/// One `fn` with a body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub file: PathBuf,
    /// 1-based line of its first token after its attributes (`pub`, `fn`).
    pub line: usize,
    /// 1-based column of that token, in chars.
    pub column: usize,
    pub name: String,
    /// As [`Annotation::path`].
    pub path: String,
    pub place: Place,
    /// Every condition it is compiled under (the annotations' `cfg_attr`
    /// predicates aside).
    pub cfg: Pred,
    /// Where an attribute can be inserted: before its visibility and
    /// qualifiers, after its attributes, on the line of `fn`'s item.
    pub insert_at: usize,
    /// The token at `insert_at` (`pub`, `fn`, `$vis`), checked before an
    /// edit inserts there.
    pub first_token: String,
    /// Indices in [`Scan::annotations`] of its inline attributes.
    pub annotations: Vec<usize>,
    /// Its own index in [`Scan::functions`].
    pub index: usize,
    /// It has `#[target_feature(..)]`, on which rustc refuses
    /// `#[inline(always)]`.
    pub target_feature: bool,
}

impl Function {
    /// Whether a build for `cfg` compiles the function.
    pub fn applies(&self, cfg: &Cfg) -> bool {
        cfg.eval(&self.cfg) != Some(false)
    }
}

/// What [`scan`] found in a package.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// In module-tree order (files breadth first from the root file, each
    /// file in source order).
    pub annotations: Vec<Annotation>,
    pub functions: Vec<Function>,
    /// The files read, relative to the package root, in that order.
    pub files: Vec<PathBuf>,
    /// `mod` declarations not followed, with why (a missing file under a
    /// condition false on the target, a file already read).
    pub skipped: Vec<String>,
    /// Where the source includes code its build script generates
    /// (`include!` of a path under `OUT_DIR`), `file:line`: not in the
    /// package, so not read, and no edit can reach it in place.
    pub generated: Vec<String>,
}

impl Scan {
    /// The annotations a build for `cfg` compiles.
    pub fn applying<'a>(&'a self, cfg: &'a Cfg) -> impl Iterator<Item = &'a Annotation> + 'a {
        self.annotations.iter().filter(move |a| a.applies(cfg))
    }
}
