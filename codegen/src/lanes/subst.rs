//! The substitution: an expression run for one lane, each lane value read
//! as that lane's (`x[lane]`).

use super::scope::{Held, Scope, lane_of};
use proc_macro2::Ident;
use syn::visit_mut::VisitMut;
use syn::{Expr, Item};

/// `e` with every lane value read as one lane's: `x[lane]`, or
/// `&mut x[lane]` for a lane reference used as a value.
pub(super) fn subst(e: &Expr, scope: &Scope, lane: &Ident) -> Expr {
    let mut e = e.clone();
    Subst { scope, lane }.visit_expr_mut(&mut e);
    e
}

struct Subst<'a> {
    scope: &'a Scope,
    lane: &'a Ident,
}

impl Subst<'_> {
    /// `x[lane]` when `e` is the lane value `x`.
    fn index(&self, e: &Expr) -> Option<Expr> {
        let (x, _) = lane_of(e, self.scope)?;
        let lane = self.lane;
        Some(syn::parse_quote_spanned!(x.span()=> #x[#lane]))
    }
}

impl VisitMut for Subst<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            // Places of a lane reference: `*x`, `x.m()`, `x.f`, `x[i]`.
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                if let Some((_, Held::Ref { .. })) = lane_of(&u.expr, self.scope)
                    && let Some(place) = self.index(&u.expr)
                {
                    *e = place;
                    return;
                }
            }
            Expr::MethodCall(m) => {
                if let Some(place) = self.index(&m.receiver) {
                    *m.receiver = place;
                    for arg in &mut m.args {
                        self.visit_expr_mut(arg);
                    }
                    return;
                }
            }
            Expr::Field(f) => {
                if let Some(place) = self.index(&f.base) {
                    *f.base = place;
                    return;
                }
            }
            Expr::Index(i) => {
                if let Some(place) = self.index(&i.expr) {
                    *i.expr = place;
                    self.visit_expr_mut(&mut i.index);
                    return;
                }
            }
            Expr::Path(_) => {
                if let Some((x, held)) = lane_of(e, self.scope)
                    && let Some(place) = self.index(e)
                {
                    *e = match held {
                        Held::Value => place,
                        Held::Ref { mutable: true } => {
                            syn::parse_quote_spanned!(x.span()=> &mut #place)
                        }
                        Held::Ref { mutable: false } => {
                            syn::parse_quote_spanned!(x.span()=> &#place)
                        }
                    };
                    return;
                }
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    /// `S { x }` becomes `S { x: x[lane] }`.
    fn visit_field_value_mut(&mut self, fv: &mut syn::FieldValue) {
        if fv.colon_token.is_none() && lane_of(&fv.expr, self.scope).is_some() {
            fv.colon_token = Some(Default::default());
        }
        syn::visit_mut::visit_field_value_mut(self, fv);
    }

    fn visit_item_mut(&mut self, _: &mut Item) {}
}
