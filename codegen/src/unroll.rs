//! The unroll axis: a loop marked `#[unroll]`,
//!
//! ```ignore
//! #[unroll]
//! for i in 0..3 { body }
//! ```
//!
//! is emitted as written (`rolled`, the default) or, in a variant named
//! `..._unrolled`, as one block per iteration, each binding the loop
//! variable to its value as a literal (with the range's suffix, if any):
//!
//! ```ignore
//! { let i = 0; body }
//! { let i = 1; body }
//! { let i = 2; body }
//! ```
//!
//! The range is `a..b` or `a..=b` of integer literals, or either reversed
//! with `.rev()`, of at most [`MAX_LANES`] iterations; the loop variable is
//! a name or `_`. A body that leaves an iteration early (`break` or
//! `continue` of this loop) or a labelled loop cannot be unrolled this way
//! and is refused with a spanned error; `break`/`continue` of an inner loop,
//! or with the label of an outer one, mean the same in the unrolled code and
//! are kept.

use crate::errors::Errors;
use crate::items;
use crate::markers::Marker;
use crate::model::MAX_LANES;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, ExprForLoop, Ident, Item, Stmt};

/// How many `for` loops in `item` are marked `#[unroll]`.
pub(crate) fn count(item: &Item) -> usize {
    struct Count(usize);
    impl<'a> Visit<'a> for Count {
        fn visit_expr_for_loop(&mut self, f: &'a ExprForLoop) {
            if Marker::Unroll.on(&f.attrs) {
                self.0 += 1;
            }
            syn::visit::visit_expr_for_loop(self, f);
        }
    }
    let mut c = Count(0);
    c.visit_item(item);
    c.0
}

/// Checks every `#[unroll]` loop of `item`, pushing what cannot be unrolled.
pub(crate) fn check(item: &Item, errors: &mut Errors) {
    struct Check<'e>(&'e mut Errors);
    impl<'a> Visit<'a> for Check<'_> {
        fn visit_expr_for_loop(&mut self, f: &'a ExprForLoop) {
            if Marker::Unroll.on(&f.attrs)
                && let Err(e) = iterations(f)
            {
                self.0.push(e);
            }
            syn::visit::visit_expr_for_loop(self, f);
        }
    }
    Check(errors).visit_item(item);
}

/// Removes `#[unroll]` from the loops it marks in `item` and, when
/// `unrolled`, replaces each loop by its iterations (inner loops first).
///
/// The functions of `item` named in `rolled` keep their loops as written
/// whatever `unrolled` says (their markers are still taken out): a lanes
/// variant's one-block entries, which run one block's rounds one after the
/// other, where unrolling adds size and no overlap (see `entry.rs`).
pub(crate) fn apply(item: &mut Item, unrolled: bool, rolled: &[Ident]) -> syn::Result<()> {
    let mut u = Unroll {
        unrolled,
        result: Ok(()),
    };
    if let Item::Fn(_) | Item::Impl(_) = item {
        for f in items::fns_mut(item) {
            u.unrolled = unrolled && !rolled.contains(&f.sig.ident);
            u.visit_block_mut(f.block);
        }
    } else {
        u.visit_item_mut(item);
    }
    u.result
}

struct Unroll {
    unrolled: bool,
    result: syn::Result<()>,
}

impl Unroll {
    /// The iteration blocks of a marked loop, its marker removed; `None`
    /// when the loop is not marked or stays rolled.
    fn take(&mut self, f: &mut ExprForLoop) -> Option<Vec<Block>> {
        if !Marker::Unroll.take(&mut f.attrs) || !self.unrolled {
            return None;
        }
        match iterations(f) {
            Ok(blocks) => Some(blocks),
            Err(e) => {
                if self.result.is_ok() {
                    self.result = Err(e);
                }
                None
            }
        }
    }
}

impl VisitMut for Unroll {
    /// A marked loop that is a statement becomes its iteration blocks, each
    /// a statement of the enclosing block.
    fn visit_block_mut(&mut self, b: &mut Block) {
        let mut stmts = Vec::with_capacity(b.stmts.len());
        for mut stmt in std::mem::take(&mut b.stmts) {
            match &mut stmt {
                // The loop's parts, not the loop: `visit_expr_mut` would
                // unroll it into a block of its own.
                Stmt::Expr(Expr::ForLoop(f), _) => {
                    syn::visit_mut::visit_expr_for_loop_mut(self, f);
                }
                other => self.visit_stmt_mut(other),
            }
            match stmt {
                Stmt::Expr(Expr::ForLoop(mut f), semi) => match self.take(&mut f) {
                    Some(blocks) => stmts.extend(blocks.into_iter().map(|block| {
                        Stmt::Expr(
                            Expr::Block(syn::ExprBlock {
                                attrs: Vec::new(),
                                label: None,
                                block,
                            }),
                            None,
                        )
                    })),
                    None => stmts.push(Stmt::Expr(Expr::ForLoop(f), semi)),
                },
                other => stmts.push(other),
            }
        }
        b.stmts = stmts;
    }

    /// A marked loop in any other place becomes one block holding its
    /// iteration blocks.
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        if let Expr::ForLoop(f) = e
            && let Some(blocks) = self.take(f)
        {
            let stmts = blocks
                .into_iter()
                .map(|block| {
                    Stmt::Expr(
                        Expr::Block(syn::ExprBlock {
                            attrs: Vec::new(),
                            label: None,
                            block,
                        }),
                        None,
                    )
                })
                .collect();
            *e = Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: Block {
                    brace_token: Default::default(),
                    stmts,
                },
            });
        }
    }
}

/// The iterations of a marked loop, one block each, or why it cannot be
/// unrolled.
fn iterations(f: &ExprForLoop) -> syn::Result<Vec<Block>> {
    if let Some(label) = &f.label {
        return Err(syn::Error::new_spanned(
            label,
            "an `#[unroll]` loop has no label: nothing can break out of or continue it once it is unrolled",
        ));
    }
    let (values, suffix, span) = range(&f.expr)?;
    let binding = match &*f.pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.clone()),
        syn::Pat::Wild(_) => None,
        other => {
            return Err(syn::Error::new_spanned(
                other,
                "an `#[unroll]` loop's variable is a name or `_`: each unrolled iteration binds it with `let`",
            ));
        }
    };
    if let Some(e) = Exits::find(&f.body) {
        return Err(e);
    }
    Ok(values
        .into_iter()
        .map(|v| {
            let mut stmts: Vec<Stmt> = Vec::new();
            if let Some(p) = &binding {
                // Where the range starts, but made by the macro: lints about
                // how a literal is written are not about this one.
                let span = proc_macro2::Span::call_site().located_at(span);
                let lit = syn::LitInt::new(&format!("{v}{suffix}"), span);
                stmts.push(syn::parse_quote!(let #p = #lit;));
            }
            stmts.extend(f.body.stmts.iter().cloned());
            Block {
                brace_token: f.body.brace_token,
                stmts,
            }
        })
        .collect())
}

/// The values a range of integer literals takes, in order, with the
/// literals' suffix and the span of its start.
fn range(e: &Expr) -> syn::Result<(Vec<i128>, String, proc_macro2::Span)> {
    let refuse = |tokens: &dyn quote::ToTokens| {
        syn::Error::new_spanned(
            tokens,
            format!(
                "`#[unroll]` needs a range of integer literals to unroll: `a..b`, `a..=b` or either with `.rev()`, of at most {MAX_LANES} iterations"
            ),
        )
    };
    let (inner, reversed) = match e {
        Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() && m.turbofish.is_none() => {
            (&*m.receiver, true)
        }
        other => (other, false),
    };
    let inner = match inner {
        Expr::Paren(p) => &*p.expr,
        other => other,
    };
    let Expr::Range(r) = inner else {
        return Err(refuse(e));
    };
    let literal = |bound: &Option<Box<Expr>>| match bound.as_deref() {
        Some(Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        })) => i
            .base10_parse::<i128>()
            .ok()
            .map(|v| (v, i.suffix().to_string(), i.span())),
        _ => None,
    };
    let (Some((start, s1, span)), Some((end, s2, _))) = (literal(&r.start), literal(&r.end)) else {
        return Err(refuse(e));
    };
    let suffix = if s1.is_empty() { s2 } else { s1 };
    let end = match r.limits {
        syn::RangeLimits::HalfOpen(_) => end,
        syn::RangeLimits::Closed(_) => end + 1,
    };
    let count = (end - start).max(0);
    if count > MAX_LANES as i128 {
        return Err(syn::Error::new_spanned(
            e,
            format!(
                "this loop has {count} iterations; `#[unroll]` unrolls at most {MAX_LANES}: unroll an inner loop instead"
            ),
        ));
    }
    let mut values: Vec<i128> = (start..end).collect();
    if reversed {
        values.reverse();
    }
    Ok((values, suffix, span))
}

/// The first `break` or `continue` of the loop being unrolled: one without
/// a label outside any inner loop or closure.
struct Exits(Option<syn::Error>, usize);

impl Exits {
    fn find(body: &Block) -> Option<syn::Error> {
        let mut v = Exits(None, 0);
        v.visit_block(body);
        v.0
    }

    fn inner_loop(&mut self, f: impl FnOnce(&mut Self)) {
        self.1 += 1;
        f(self);
        self.1 -= 1;
    }
}

impl<'a> Visit<'a> for Exits {
    fn visit_expr_break(&mut self, b: &'a syn::ExprBreak) {
        if self.1 == 0 && b.label.is_none() && self.0.is_none() {
            self.0 = Some(syn::Error::new_spanned(
                b,
                "cannot unroll a loop that `break`s out of itself: each iteration becomes a block of its own",
            ));
        }
        syn::visit::visit_expr_break(self, b);
    }

    fn visit_expr_continue(&mut self, c: &'a syn::ExprContinue) {
        if self.1 == 0 && c.label.is_none() && self.0.is_none() {
            self.0 = Some(syn::Error::new_spanned(
                c,
                "cannot unroll a loop that `continue`s itself: each iteration becomes a block of its own",
            ));
        }
    }

    fn visit_expr_for_loop(&mut self, f: &'a ExprForLoop) {
        self.visit_expr(&f.expr);
        self.inner_loop(|v| v.visit_block(&f.body));
    }

    fn visit_expr_while(&mut self, w: &'a syn::ExprWhile) {
        self.visit_expr(&w.cond);
        self.inner_loop(|v| v.visit_block(&w.body));
    }

    fn visit_expr_loop(&mut self, l: &'a syn::ExprLoop) {
        self.inner_loop(|v| v.visit_block(&l.body));
    }

    fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}

    fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}

    fn visit_item(&mut self, _: &'a Item) {}
}
