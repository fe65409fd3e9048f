//! The one-block path: a `#[lanes]` function that is not a `#[round]` (the
//! cipher's entry, `crypt`, `encrypt_state`) is kept for one block with
//! `#[inline(always)]`, in every variant, so that the block backend's
//! `encrypt_block` (`decrypt_block`) is the whole serial path in one
//! function: load, the entry's body with its rounds as the policy inlines
//! them, store. The `_lanes` copy is left to the compiler.
//!
//! Left out of line, the entry took its state through memory: the bytes were
//! swapped into words with vector shuffles and stored as one 16-byte value,
//! the entry read them as four words and stored four words back, and the
//! caller read those as one 16-byte value again, which the store buffer
//! cannot forward from four stores: a stall on every block of the serial
//! path (CBC encryption), which `cargo xtask compare cast6` shows against
//! RustCrypto's. An entry called from both directions (CAST6 runs one `crypt` with the
//! subkeys of each) is so in both; its size is in every variant's
//! footprint.
//!
//! In a variant with more than one lane, the entry's one-block copy keeps
//! its `#[unroll]` loops rolled (only the `_lanes` copy is unrolled): one
//! block's rounds run one after the other whatever the code's shape, so
//! unrolling them adds size and no overlap (an unrolled lanes variant would
//! inline every round into each direction; `cargo xtask compare cast6`
//! shows the footprints and the CBC encryption speeds). A variant with one lane is
//! unrolled as it says: its one-block path is its only one.
//!
//! An entry with `#[target_feature(...)]` gets `#[inline]` instead: Rust
//! refuses `#[inline(always)]` there, and LLVM inlines it only into a
//! function with those features (the block backend's body in one, as
//! `cipher_traits!`'s `target_feature` makes it), where the hint is what
//! there is.
//!
//! The attribute is the macro's: one written on an entry is refused
//! ([`crate::validate`]).

use crate::items;
use crate::markers::{self, Marker};
use syn::{Ident, Item};

/// `item`'s entries: its `#[lanes]` functions that are not `#[round]`s
/// (read before the markers are taken out).
pub(crate) fn entries(item: &Item) -> impl Iterator<Item = items::Func<'_>> {
    items::fns(item).filter(|f| Marker::Lanes.marks(f.attrs, f.place) && !Marker::Round.on(f.attrs))
}

/// The names of `item`'s [`entries`].
pub(crate) fn names(item: &Item) -> Vec<Ident> {
    entries(item).map(|f| f.sig.ident.clone()).collect()
}

/// Marks the functions of `item` named in `entries` `#[inline(always)]`
/// (`#[inline]` those with `#[target_feature]`): run after the `_lanes`
/// copies are made, which keep their own names and are left to the
/// compiler.
pub(crate) fn apply(item: &mut Item, entries: &[Ident]) {
    for f in items::fns_mut(item) {
        if entries.contains(&f.sig.ident) {
            f.attrs
                .push(if f.attrs.iter().any(markers::is_target_feature) {
                    syn::parse_quote!(#[inline])
                } else {
                    syn::parse_quote!(#[inline(always)])
                });
        }
    }
}
