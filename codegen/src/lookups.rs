//! Table lookups loaded outermost first, in every variant: in an expression
//! that computes a value from two or more table lookups (a `let`
//! initializer, a block's value or a closure's body) and does nothing else
//! (see [`pure`]), the lookups are bound first, the one nearest the
//! expression's root first (ties in source order), and the expression then
//! reads the bindings; one whose lookups are in that order already is left
//! as written:
//!
//! ```ignore
//! ((S[0][a] ^ S[1][b]).wrapping_sub(S[2][c])).wrapping_add(S[3][d])
//! // becomes
//! {
//!     let l0 = S[3][d];
//!     let l1 = S[2][c];
//!     let l2 = S[0][a];
//!     let l3 = S[1][b];
//!     ((l2 ^ l3).wrapping_sub(l1)).wrapping_add(l0)
//! }
//! ```
//!
//! The same value, computed by a shorter chain. The compiler re-associates
//! wrapping `+`/`-` (and `^`) chains, and it takes a load earlier in the
//! block to be available earlier, combining such operands first (LLVM's
//! `Reassociate` ranks loads by position). As written, the loads of CAST's
//! `f1` come in the order of the RFC's formula, so the operand it may move
//! (`S4`) ranks last and the chain stays `xor`, `sub`, `add` after the last
//! load. The table loads of a round issue together whatever their order, so
//! loading the outer operands first costs nothing, and then `S4 - S3` is
//! computed while `S1 ^ S2` waits on its loads: one operation less after the
//! last load, and in `f2` the state's `^ S4` moves off the chain too (two
//! less). On CAST6 that shortens the chain of the rounds that use `f1` and
//! `f2`: a few more instructions, fewer cycles (`cargo xtask compare cast6`,
//! "Instructions per block and IPC", CBC encryption). CRC32C's
//! slicing-by-8 step (an `^` chain of eight lookups, the four on the state
//! first, the four on the data after) folds the data's lookups while the
//! state's load (`cargo xtask compare crc32c`, beside the unchanged
//! byte-at-a-time code). Where
//! nothing re-associates (Blowfish's `F`, CAST's `f3`) the order changes
//! nothing.
//!
//! The expression must be [`pure`] with integer calls: it reads locals and
//! tables and computes with operators, casts, integer conversions and
//! integer methods such as `wrapping_add` (`pure.rs` lists them), so that
//! evaluating its lookups first changes nothing it computes (nor whether it
//! panics). Anything else (a call to another function, a macro, an
//! assignment, a branch) leaves the expression as written.

use crate::pure::{Calls, pure};
use proc_macro2::Span;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Item, Stmt};

/// Rewrites every qualifying expression of `item` by the rule above.
pub(crate) fn apply(item: &mut Item) {
    Hoist.visit_item_mut(item);
}

struct Hoist;

impl VisitMut for Hoist {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        if let Expr::Closure(closure) = expr {
            hoist(&mut closure.body);
        }
    }

    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        syn::visit_mut::visit_local_mut(self, local);
        if let Some(init) = &mut local.init
            && init.diverge.is_none()
        {
            hoist(&mut init.expr);
        }
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, block);
        if let Some(Stmt::Expr(tail, None)) = block.stmts.last_mut() {
            hoist(tail);
        }
    }
}

/// Binds the lookups of `expr` first, outermost first, if it is [`pure`]
/// and they are not in that order already.
fn hoist(expr: &mut Expr) {
    if !pure(expr, Calls::Integer) {
        return;
    }
    let mut found = Vec::new();
    collect(expr, 0, &mut found);
    // Already outermost first (or a single lookup): left as written.
    if found.windows(2).all(|w| w[0].0 <= w[1].0) {
        return;
    }
    // A stable sort: ties keep source order.
    found.sort_by_key(|(depth, _)| *depth);
    let mut lets = Vec::with_capacity(found.len());
    for (k, (_, slot)) in found.into_iter().enumerate() {
        let name = Ident::new(&format!("lookup{k}"), Span::mixed_site());
        let lookup = std::mem::replace(slot, syn::parse_quote!(#name));
        lets.push(quote::quote!(let #name = #lookup;));
    }
    *expr = syn::parse_quote!({ #(#lets)* #expr });
}

/// The lookups of `expr` in source order, each with its depth: the number
/// of operations between it and the root.
fn collect<'a>(expr: &'a mut Expr, depth: usize, found: &mut Vec<(usize, &'a mut Expr)>) {
    if lookup(expr) {
        found.push((depth, expr));
        return;
    }
    match expr {
        Expr::Paren(e) => collect(&mut e.expr, depth, found),
        Expr::Group(e) => collect(&mut e.expr, depth, found),
        // A comparison borrows its operands, which a binding would move
        // (an element that is not `Copy`): they stay.
        Expr::Binary(e) if comparison(&e.op) => {}
        Expr::Binary(e) => {
            collect(&mut e.left, depth + 1, found);
            // The right of `&&`/`||` may not be evaluated: its lookups stay.
            if !matches!(e.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) {
                collect(&mut e.right, depth + 1, found);
            }
        }
        // `*` reads through the element, which a binding would move.
        Expr::Unary(e) if matches!(e.op, syn::UnOp::Deref(_)) => {}
        Expr::Unary(e) => collect(&mut e.expr, depth + 1, found),
        Expr::Cast(e) => collect(&mut e.expr, depth + 1, found),
        Expr::MethodCall(e) => {
            collect(&mut e.receiver, depth + 1, found);
            e.args.iter_mut().for_each(|a| collect(a, depth + 1, found));
        }
        Expr::Call(e) => e.args.iter_mut().for_each(|a| collect(a, depth + 1, found)),
        _ => {}
    }
}

/// A table lookup: `path[i]` or `path[i][j]...`, indexing a named value.
fn lookup(expr: &Expr) -> bool {
    let mut e = expr;
    let mut indexed = false;
    while let Expr::Index(index) = e {
        indexed = true;
        e = &index.expr;
    }
    indexed && matches!(e, Expr::Path(_))
}

/// `==`, `!=`, `<`, `<=`, `>`, `>=`.
fn comparison(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(op, Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_))
}
