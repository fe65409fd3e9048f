//! Branch forms: structural rewrites of the `if`/`else` in `#[shape]`
//! functions, as the 2010 cast5 patch did by hand.
//!
//! - `factored`: statements that every branch of an `if`/`else` chain starts
//!   with, or ends with, are hoisted out of the branches, so they appear once.
//! - `duplicated`: the inverse; statements that follow an `if` in the same
//!   block are moved into every branch (an `else` is added where there is
//!   none), and so are the statements before it that the condition does not
//!   depend on, so that each branch is one straight-line sequence.
//!
//! A rewrite must not change what the function computes. Moving statements
//! across a condition reorders them with its evaluation, so that is done
//! only when the condition has no side effects (paths, fields, literals,
//! indexing, arithmetic and comparisons; no calls, macros or assignments)
//! and reads no name the moved statements assign, bind, borrow mutably or
//! call a method on. Hoisted statements must not bind names used after the
//! `if`, and statements moved into a branch must not use names the branch
//! binds. `factored` refuses with a spanned error what it cannot hoist;
//! `duplicated` leaves such statements where they are. A condition is never
//! duplicated: it is evaluated once, as written.

use crate::items;
use crate::markers::Marker;
use crate::pure::is_assign_op;
use quote::ToTokens;
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Block, Expr, ExprIf, Item, Stmt};

/// Removes `#[shape]` from the functions of `item` it marks and, with a
/// form, rewrites their bodies.
pub(crate) fn apply(item: &mut Item, form: Option<Form>) -> syn::Result<()> {
    for f in items::fns_mut(item) {
        if Marker::Shape.take(f.attrs)
            && let Some(form) = form
        {
            form.apply(f.block)?;
        }
    }
    Ok(())
}

/// A branch form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    Factored,
    Duplicated,
}

impl Form {
    pub(crate) const ALL: [(&'static str, Form); 2] = [
        ("factored", Form::Factored),
        ("duplicated", Form::Duplicated),
    ];

    pub(crate) fn from_name(name: &str) -> Option<Form> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|&(_, f)| f)
    }

    pub(crate) fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("", |(n, _)| n)
    }

    pub(crate) fn allowed() -> String {
        let names: Vec<&str> = Self::ALL.iter().map(|(n, _)| *n).collect();
        names.join(", ")
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Form::Factored => "statements shared by every branch hoisted out (factored)",
            Form::Duplicated => "statements around each `if` moved into every branch (duplicated)",
        }
    }

    /// Rewrites `block` in place.
    pub(crate) fn apply(self, block: &mut Block) -> syn::Result<()> {
        match self {
            Form::Factored => factor(block),
            Form::Duplicated => duplicate(block),
        }
    }
}

/// The branches of an `if`/`else if`/`else` chain, and its conditions.
/// `None` when the chain has no final `else` or a branch is not a block.
fn chain(e: &ExprIf) -> Option<(Vec<&Expr>, Vec<&Block>)> {
    let mut conds = vec![&*e.cond];
    let mut blocks = vec![&e.then_branch];
    let mut next = e.else_branch.as_ref().map(|(_, b)| &**b);
    while let Some(b) = next {
        match b {
            Expr::If(inner) => {
                conds.push(&inner.cond);
                blocks.push(&inner.then_branch);
                next = inner.else_branch.as_ref().map(|(_, b)| &**b);
            }
            Expr::Block(eb) => {
                blocks.push(&eb.block);
                next = None;
            }
            _ => return None,
        }
    }
    (blocks.len() == conds.len() + 1).then_some((conds, blocks))
}

/// Every branch block of the chain, mutably, and whether it ends in `else`.
fn chain_blocks_mut(e: &mut ExprIf) -> (Vec<&mut Block>, bool) {
    let mut blocks = vec![&mut e.then_branch];
    let mut next = e.else_branch.as_mut().map(|(_, b)| &mut **b);
    let mut has_else = false;
    while let Some(b) = next {
        match b {
            Expr::If(inner) => {
                blocks.push(&mut inner.then_branch);
                next = inner.else_branch.as_mut().map(|(_, b)| &mut **b);
            }
            Expr::Block(eb) => {
                blocks.push(&mut eb.block);
                has_else = true;
                next = None;
            }
            _ => next = None,
        }
    }
    (blocks, has_else)
}

fn if_stmt(stmt: &Stmt) -> Option<&ExprIf> {
    match stmt {
        Stmt::Expr(Expr::If(e), _) => Some(e),
        _ => None,
    }
}

fn same(a: &Stmt, b: &Stmt) -> bool {
    a.to_token_stream().to_string() == b.to_token_stream().to_string()
}

/// `factored`, bottom-up: inner blocks first, then each `if` of this block.
fn factor(block: &mut Block) -> syn::Result<()> {
    for stmt in &mut block.stmts {
        NestedBlocks::each(stmt, &mut factor)?;
    }
    let mut i = 0;
    while i < block.stmts.len() {
        let Some((conds, blocks)) = if_stmt(&block.stmts[i]).and_then(chain) else {
            i += 1;
            continue;
        };
        let shortest = blocks.iter().map(|b| b.stmts.len()).min().unwrap_or(0);
        let prefix = (0..shortest)
            .take_while(|&k| {
                blocks
                    .iter()
                    .all(|b| same(&b.stmts[k], &blocks[0].stmts[k]))
            })
            .count();
        let suffix = (0..shortest - prefix)
            .take_while(|&k| {
                let last = blocks[0].stmts.len() - 1 - k;
                blocks
                    .iter()
                    .all(|b| same(&b.stmts[b.stmts.len() - 1 - k], &blocks[0].stmts[last]))
            })
            .count();
        if prefix == 0 && suffix == 0 {
            i += 1;
            continue;
        }
        let later = Names::used(&block.stmts[i + 1..]);
        let head: Vec<Stmt> = blocks[0].stmts[..prefix].to_vec();
        let tail: Vec<Stmt> = blocks[0].stmts[blocks[0].stmts.len() - suffix..].to_vec();
        if prefix > 0 {
            check_move_across(
                &conds,
                &head,
                "hoist the statements every branch starts with above",
            )?;
            check_no_leak(&head, &later, &block.stmts[i])?;
        }
        if suffix > 0 {
            let rest_bound: HashSet<String> = blocks
                .iter()
                .flat_map(|b| Names::bound(&b.stmts[prefix..b.stmts.len() - suffix]))
                .chain(conds.iter().flat_map(|c| Names::bound_in_expr(c)))
                .collect();
            if let Some(name) = Names::used(&tail).iter().find(|n| rest_bound.contains(*n)) {
                return Err(syn::Error::new(
                    tail[0].span(),
                    format!(
                        "cannot hoist the statements every branch ends with below the `if`: they use `{name}`, which a branch binds"
                    ),
                ));
            }
            check_no_leak(&tail, &later, &block.stmts[i])?;
        }
        let Stmt::Expr(Expr::If(e), semi) = &mut block.stmts[i] else {
            unreachable!("checked above")
        };
        let (mut branches, _) = chain_blocks_mut(e);
        for b in branches.iter_mut() {
            let n = b.stmts.len();
            b.stmts.truncate(n - suffix);
            b.stmts.drain(..prefix);
        }
        // The `if` becomes a statement of its own; what it ended with follows.
        if suffix > 0 && semi.is_none() {
            *semi = Some(Default::default());
        }
        let moved = head.len();
        block.stmts.splice(i..i, head);
        block.stmts.splice(i + moved + 1..i + moved + 1, tail);
        i += moved + 1 + suffix;
    }
    Ok(())
}

/// `duplicated`, top-down: the first `if` of this block takes in what
/// follows it and what precedes it (as far as safe), then its branches are
/// processed the same way.
fn duplicate(block: &mut Block) -> syn::Result<()> {
    let Some(i) = block.stmts.iter().position(|s| if_stmt(s).is_some()) else {
        for stmt in &mut block.stmts {
            NestedBlocks::each(stmt, &mut duplicate)?;
        }
        return Ok(());
    };
    let following: Vec<Stmt> = block.stmts.split_off(i + 1);
    let Some(Stmt::Expr(Expr::If(mut e), semi)) = block.stmts.pop() else {
        unreachable!("position found an if")
    };
    let start = movable_start(&block.stmts, &e);
    let preceding: Vec<Stmt> = block.stmts.split_off(start);
    for stmt in &mut block.stmts {
        NestedBlocks::each(stmt, &mut duplicate)?;
    }
    check_following(&mut e, &following)?;
    let (branches, has_else) = chain_blocks_mut(&mut e);
    let add_else = !has_else;
    for b in branches {
        let mut stmts = preceding.clone();
        stmts.append(&mut b.stmts);
        stmts.extend(following.iter().cloned());
        b.stmts = stmts;
    }
    if add_else {
        let stmts: Vec<Stmt> = preceding.iter().chain(&following).cloned().collect();
        attach_else(
            &mut e,
            Block {
                brace_token: Default::default(),
                stmts,
            },
        );
    }
    for b in chain_blocks_mut(&mut e).0 {
        duplicate(b)?;
    }
    // What followed is now inside the branches: the `if` ends the block and
    // gives its value when what followed did.
    let value = following
        .last()
        .is_some_and(|s| matches!(s, Stmt::Expr(_, None)));
    let semi = if value || following.is_empty() && semi.is_none() {
        None
    } else {
        semi.or(Some(Default::default()))
    };
    block.stmts.push(Stmt::Expr(Expr::If(e), semi));
    Ok(())
}

/// Where the statements before the `if` `e` (the last of `before`) that
/// can move behind its conditions start: the longest run ending right
/// before it.
fn movable_start(before: &[Stmt], e: &ExprIf) -> usize {
    let mut conds = vec![&*e.cond];
    let mut next = e.else_branch.as_ref().map(|(_, b)| &**b);
    while let Some(Expr::If(inner)) = next {
        conds.push(&*inner.cond);
        next = inner.else_branch.as_ref().map(|(_, b)| &**b);
    }
    let mut start = before.len();
    while start > 0 {
        let candidate = &before[start - 1..];
        if matches!(before[start - 1], Stmt::Item(_))
            || check_move_across(&conds, candidate, "move").is_err()
        {
            break;
        }
        start -= 1;
    }
    start
}

/// Errs when the statements `following` the `if` `e` use a name one of its
/// branches binds: moved into the branch, they would see that binding.
fn check_following(e: &mut ExprIf, following: &[Stmt]) -> syn::Result<()> {
    if following.is_empty() {
        return Ok(());
    }
    let used = Names::used(following);
    let (branches, _) = chain_blocks_mut(e);
    for b in branches {
        if let Some(name) = Names::bound(&b.stmts).iter().find(|n| used.contains(*n)) {
            return Err(syn::Error::new(
                following[0].span(),
                format!(
                    "cannot move these statements into the branches of the `if` before them: they use `{name}`, which a branch binds"
                ),
            ));
        }
    }
    Ok(())
}

fn attach_else(e: &mut ExprIf, block: Block) {
    match &mut e.else_branch {
        Some((_, next)) => {
            if let Expr::If(inner) = &mut **next {
                attach_else(inner, block);
            }
        }
        None => {
            e.else_branch = Some((
                Default::default(),
                Box::new(Expr::Block(syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block,
                })),
            ));
        }
    }
}

/// Errs unless `stmts` can run before (or after) `conds` is evaluated
/// without changing anything: the conditions are free of side effects and
/// read no name the statements change or bind.
fn check_move_across(conds: &[&Expr], stmts: &[Stmt], what: &str) -> syn::Result<()> {
    for cond in conds {
        if let Some(impure) = Impure::find(cond) {
            return Err(syn::Error::new_spanned(
                impure,
                format!(
                    "cannot {what} this condition: it may have side effects (a call, macro or assignment), which must not be reordered with the moved statements"
                ),
            ));
        }
        let reads = Names::used_in_expr(cond);
        let touched = Names::touched(stmts);
        if let Some(name) = reads.iter().find(|n| touched.contains(*n)) {
            return Err(syn::Error::new(
                cond.span(),
                format!(
                    "cannot {what} this condition: it reads `{name}`, which the moved statements change or bind"
                ),
            ));
        }
    }
    Ok(())
}

/// Errs when hoisted statements bind a name that code after the `if` uses
/// (it would now see the hoisted binding).
fn check_no_leak(hoisted: &[Stmt], later: &HashSet<String>, at: &Stmt) -> syn::Result<()> {
    match Names::bound(hoisted)
        .into_iter()
        .find(|n| later.contains(n))
    {
        Some(name) => Err(syn::Error::new(
            at.span(),
            format!(
                "cannot hoist the shared statements out of this `if`: they bind `{name}`, which the code after it also uses"
            ),
        )),
        None => Ok(()),
    }
}

/// Calls `f` on every block nested in a statement (branches, loop bodies,
/// blocks), but not in closures or items.
struct NestedBlocks<'f>(
    &'f mut dyn FnMut(&mut Block) -> syn::Result<()>,
    syn::Result<()>,
);

impl NestedBlocks<'_> {
    fn each(stmt: &mut Stmt, f: &mut dyn FnMut(&mut Block) -> syn::Result<()>) -> syn::Result<()> {
        let mut v = NestedBlocks(f, Ok(()));
        syn::visit_mut::VisitMut::visit_stmt_mut(&mut v, stmt);
        v.1
    }
}

impl syn::visit_mut::VisitMut for NestedBlocks<'_> {
    fn visit_block_mut(&mut self, b: &mut Block) {
        if self.1.is_ok() {
            self.1 = (self.0)(b);
        }
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The first sub-expression of a condition that may have a side effect.
struct Impure(Option<proc_macro2::TokenStream>);

impl Impure {
    fn find(e: &Expr) -> Option<proc_macro2::TokenStream> {
        let mut v = Impure(None);
        v.visit_expr(e);
        v.0
    }
}

impl<'a> Visit<'a> for Impure {
    fn visit_expr(&mut self, e: &'a Expr) {
        if self.0.is_some() {
            return;
        }
        match e {
            Expr::Call(_)
            | Expr::MethodCall(_)
            | Expr::Macro(_)
            | Expr::Assign(_)
            | Expr::Let(_)
            | Expr::Closure(_)
            | Expr::Block(_)
            | Expr::Async(_)
            | Expr::Await(_)
            | Expr::Try(_)
            | Expr::Unsafe(_)
            | Expr::Loop(_)
            | Expr::While(_)
            | Expr::ForLoop(_)
            | Expr::If(_)
            | Expr::Match(_)
            | Expr::Yield(_) => self.0 = Some(e.to_token_stream()),
            Expr::Binary(b) if is_assign_op(&b.op) => self.0 = Some(e.to_token_stream()),
            Expr::Reference(r) if r.mutability.is_some() => self.0 = Some(e.to_token_stream()),
            _ => syn::visit::visit_expr(self, e),
        }
    }
}

/// Names in code: used, bound by patterns, or touched (assigned, bound,
/// borrowed mutably, a method receiver, or passed to a macro).
#[derive(Default)]
struct Names {
    used: HashSet<String>,
    bound: HashSet<String>,
    touched: HashSet<String>,
    opaque: bool,
}

impl Names {
    fn of(stmts: &[Stmt]) -> Names {
        let mut n = Names::default();
        for s in stmts {
            n.visit_stmt(s);
        }
        n
    }

    fn used(stmts: &[Stmt]) -> HashSet<String> {
        Names::of(stmts).used
    }

    fn bound(stmts: &[Stmt]) -> HashSet<String> {
        Names::of(stmts).bound
    }

    fn used_in_expr(e: &Expr) -> HashSet<String> {
        let mut n = Names::default();
        n.visit_expr(e);
        n.used
    }

    fn bound_in_expr(e: &Expr) -> HashSet<String> {
        let mut n = Names::default();
        n.visit_expr(e);
        n.bound
    }

    /// Names the statements may change. A macro hides what it does, so
    /// statements with one touch everything (`*`).
    fn touched(stmts: &[Stmt]) -> HashSet<String> {
        let n = Names::of(stmts);
        let mut t: HashSet<String> = n.touched.union(&n.bound).cloned().collect();
        if n.opaque {
            t.extend(n.used);
        }
        t
    }

    /// The variable at the root of a place expression: `x` of `x.a[i].b`.
    fn root(e: &Expr) -> Option<String> {
        match e {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            Expr::Field(f) => Names::root(&f.base),
            Expr::Index(i) => Names::root(&i.expr),
            Expr::Paren(p) => Names::root(&p.expr),
            Expr::Unary(u) => Names::root(&u.expr),
            _ => None,
        }
    }
}

impl<'a> Visit<'a> for Names {
    fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
        if let Some(first) = p.path.segments.first() {
            self.used.insert(first.ident.to_string());
        }
        syn::visit::visit_expr_path(self, p);
    }

    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        self.bound.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
        self.touched.extend(Names::root(&a.left));
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
        if is_assign_op(&b.op) {
            self.touched.extend(Names::root(&b.left));
        }
        syn::visit::visit_expr_binary(self, b);
    }

    fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
        if r.mutability.is_some() {
            self.touched.extend(Names::root(&r.expr));
        }
        syn::visit::visit_expr_reference(self, r);
    }

    fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
        self.touched.extend(Names::root(&m.receiver));
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_macro(&mut self, m: &'a syn::Macro) {
        self.opaque = true;
        // Names inside the macro's tokens count as used.
        for tt in m.tokens.clone() {
            if let proc_macro2::TokenTree::Ident(i) = tt {
                self.used.insert(i.to_string());
            }
        }
    }
}
