//! `#[codegen::variants(...)]`: write a cipher's round functions once, get
//! every inlining variant of them.
//!
//! ```ignore
//! #[codegen::variants(always, never, hint, auto, cipher = Cast6)]
//! pub mod cast6 {
//!     use crate::consts::S;
//!     #[round]
//!     fn f1(d: u32, kr: u8, km: u32) -> u32 { /* ... */ }
//!     pub struct Cast6 { /* ... */ }
//! }
//! ```
//!
//! expands to a module `cast6` that holds
//! - `pub const VARIANTS: &[&str]`: the variant names, in the order asked for;
//! - `pub const REFERENCE: &str`: the variant ratios are taken against,
//!   `reference = v` or the first `auto` with one lane and rolled loops;
//! - `pub const ROUNDS: &[&str]`: the names of the `#[round]` functions;
//! - the module's `use`, `static`, `const`, `extern crate` and `macro_rules!`
//!   items, once (so a table is in the binary once, whatever the variant count);
//! - one child module per variant (`cast6::never`, ...) that glob-imports its
//!   parent and holds its own copy of every other item, with each `#[round]`
//!   function given the variant's attribute: `always` -> `#[inline(always)]`,
//!   `never` -> `#[inline(never)]`, `hint` -> `#[inline]`, `auto` -> none; and
//!   `pub const VARIANT: &str`, the variant's own name.
//!
//! A variant name is its axes joined by `_`, outermost first, each axis's
//! default left out: `[method_]policy[_form][_xN][_unrolled]`.
//!
//! - A branch form, `never_factored` or `never_duplicated`: the functions
//!   marked `#[shape]` have their `if`/`else` rewritten (see `forms.rs`):
//!   `factored` hoists the statements every branch shares, `duplicated`
//!   moves the statements around an `if` into every branch. Either refuses
//!   (or leaves alone) what it cannot move without changing what the
//!   function computes.
//! - Lanes, `never_x4` (one lane by default): beside each function marked
//!   `#[lanes]`, whose parameters marked `#[lane]` hold one block's value, a
//!   copy `<name>_lanes` takes `LANES` lanes at once, rewritten statement
//!   by statement so that each step runs for every lane before the next
//!   (see `lanes/mod.rs`). A module with `#[lanes]` functions gives every
//!   variant `pub const LANES` and, with `cipher = Type`, `pub type Lanes`
//!   (a `cipher::consts` type, for `ParBlocksSize`). A `#[method]` whose
//!   lane state holds several blocks (a 256-bit register of two AES blocks)
//!   says so, `lane_blocks = 2`: its lane counts and names still count
//!   blocks (`x8`, `Lanes` 8), and `LANES` counts states (4).
//! - Unrolled loops, `never_unrolled` (as written by default): each `for`
//!   loop marked `#[unroll]` becomes a block per iteration (see `unroll.rs`).
//!
//! Three rewrites hold in every variant, for the one-block (serial) path
//! (see `entry.rs`, `bytes.rs` and `lookups.rs`): a `#[lanes]` function
//! that is not a `#[round]` (the cipher's entry) is `#[inline(always)]` for
//! one block, so the block backend runs load, rounds and store in one
//! function with the state in registers (an inline attribute written on it
//! is refused), and in a variant with lanes its `#[unroll]` loops stay
//! rolled there; `let [a, b, ..] = x.to_be_bytes()` (or `to_le_bytes`)
//! becomes shifts, which take each byte where it is instead of swapping the
//! word first; and in an expression that only computes on table lookups the
//! lookups are loaded outermost first, so that the compiler's
//! re-association combines the outer operands while the inner ones load,
//! which shortens a round's dependency chain.
//!
//! Instead of names, the variants may be given as axes, crossed:
//! `#[codegen::variants(policy(never, auto), form(factored), lanes(1, 4),
//! unroll(rolled, unrolled), cipher = Cast5)]` asks for every combination,
//! the policy varying slowest (`never_factored`, `never_factored_unrolled`,
//! `never_factored_x4`, ...). An axis on a module with nothing for it to
//! rewrite is an error.
//!
//! A module may instead hold `#[method(...)] mod name { ... }` modules, each
//! one way of computing the function with its own variants (named
//! `name_policy...`), flattened into each of them.
//!
//! `reference = v` names the reference variant. `cipher = Type` (each variant
//! defines a block cipher `Type`) or `checksum` turns on the callback macros,
//! exported at the crate root: `<module>_variants!(cb)` calls
//! `cb! { cipher: cast6, kind: cipher(Cast6), variants: [always never ...] }`,
//! and `selected!(cb)` calls `cb! { cipher: cast6, kind: ..., variant: v }`
//! in a build that selects one variant. Such a build sets the cfgs
//! `inlinelab_one`, `inlinelab_cipher = "cast6"` and
//! `inlinelab_variant = "cast6::v"`; the module is then compiled only if it is
//! that cipher, and of its children only `v`, so that the build holds
//! exactly one variant.
//!
//! `entry(...)` (a cipher compared against its peers) or `calibration(...)`
//! (what measures the harness itself) declares what the harness and the
//! artifact know of the algorithm besides its variants: its modes with their
//! key sizes, its peer crates. The macro passes it on verbatim through
//! `<module>_variants!(@chain ...)`, the links of `all_algorithms!(cb)`,
//! which [`algorithms!`] exports for the crate's list of modules; its grammar
//! is parsed and checked here, at the declaration (`declaration.rs`), and
//! `bench-harness/src/registry.rs` matches the one fixed form it is handed
//! on in.
//!
//! Misuse is a compile error that points at the offending tokens; the input is
//! still emitted (without its markers) so that one mistake does not
//! bury the crate under follow-on errors.

// The pipeline: tokens to the model, checks on it, the model to tokens.
mod declaration;
mod expand;
mod model;
mod parse;
mod validate;

// The structural axes, each rewriting what its marker marks.
mod bytes;
mod entry;
mod forms;
mod lanes;
mod lookups;
mod unroll;

// What the others share: the errors collected, the markers, the items.
mod errors;
mod items;
mod markers;
mod pure;
mod selection;

use proc_macro::TokenStream;

/// Emits one child module per requested inlining variant; see the crate docs.
#[proc_macro_attribute]
pub fn variants(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::variants(args.into(), input.into()).into()
}

/// `codegen::algorithms!(aes cast6 ...)`: every module of the crate marked
/// `#[codegen::variants]`, by name, in order; exports `all_algorithms!(cb)`,
/// which calls `cb!` once with the `entry(...)` or `calibration(...)`
/// declaration of each (see `expand::algorithms`).
#[proc_macro]
pub fn algorithms(input: TokenStream) -> TokenStream {
    expand::algorithms(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `cfg_peer!(krate [seen ...] items...)`: each item compiled only with
/// the cargo feature `peer-<krate>` (a `cfg` takes a literal, which
/// `macro_rules!` cannot build from the crate's name), and left out when
/// `krate` is among the crates `seen` before: how the artifact selects the
/// peer a declaration names, once per crate.
#[proc_macro]
pub fn cfg_peer(input: TokenStream) -> TokenStream {
    expand::cfg_peer(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

#[cfg(test)]
mod tests;
