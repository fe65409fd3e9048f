//! Byte extraction by shifts, in every variant: a statement
//!
//! ```ignore
//! let [ia, ib, ic, id] = x.wrapping_add(d).to_be_bytes();
//! ```
//!
//! (a `let` whose pattern is an array of names or `_` and whose initializer
//! is a method call `.to_be_bytes()` or `.to_le_bytes()`) is emitted as
//!
//! ```ignore
//! let [ia, ib, ic, id] = {
//!     let word = x.wrapping_add(d);
//!     let _: [u8; 4] = word.to_be_bytes();
//!     [(word >> 24) as u8, (word >> 16) as u8, (word >> 8) as u8, word as u8]
//! };
//! ```
//!
//! The same bytes, but the compiler lowers the array form to a byte swap
//! followed by byte moves, one more instruction on every round's dependency
//! chain (`bswap` then `movzbl`), where the shifts take each byte where it
//! is (`shr`, `movzbl %ah`): one `bswap` per round on the serial path. The
//! shifts need a copy of the word the swap did not: in rolled lanes copies,
//! short of registers, they cost instructions where they save time. Both
//! show in `cargo xtask compare cast6` ("Instructions per block and IPC",
//! CBC encryption for the serial path). The unused
//! `to_be_bytes` keeps the original's type check: a pattern whose length is
//! not the word's size in bytes fails to compile as it would have; the
//! optimizer removes it.

use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, Item, Local, Pat};

/// Rewrites every byte extraction of `item` by the rule above.
pub(crate) fn apply(item: &mut Item) {
    Shifts.visit_item_mut(item);
}

struct Shifts;

impl VisitMut for Shifts {
    fn visit_local_mut(&mut self, local: &mut Local) {
        syn::visit_mut::visit_local_mut(self, local);
        if let Some(rewritten) = shifted(local)
            && let Some(init) = &mut local.init
        {
            *init.expr = rewritten;
        }
    }
}

/// The shifts for `local`, if it is a byte extraction.
fn shifted(local: &Local) -> Option<Expr> {
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let Pat::Slice(slice) = &local.pat else {
        return None;
    };
    if !slice.elems.iter().all(|p| {
        matches!(p, Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none())
            || matches!(p, Pat::Wild(_))
    }) {
        return None;
    }
    let Expr::MethodCall(call) = &*init.expr else {
        return None;
    };
    let big = match call.method.to_string().as_str() {
        "to_be_bytes" => true,
        "to_le_bytes" => false,
        _ => return None,
    };
    if !call.args.is_empty() || call.turbofish.is_some() {
        return None;
    }
    let n = slice.elems.len();
    if n < 2 {
        return None;
    }
    let receiver = &call.receiver;
    let method = &call.method;
    let bytes = (0..n).map(|i| {
        let shift = 8 * if big { n - 1 - i } else { i };
        if shift == 0 {
            quote!(word as u8)
        } else {
            let shift = proc_macro2::Literal::usize_unsuffixed(shift);
            quote!((word >> #shift) as u8)
        }
    });
    let len = proc_macro2::Literal::usize_unsuffixed(n);
    // Spanned at the call, so that a length mismatch points at it.
    let check = quote_spanned!(call.span()=> let _: [u8; #len] = word.#method(););
    Some(syn::parse_quote! {
        {
            let word = #receiver;
            #check
            [#(#bytes),*]
        }
    })
}
