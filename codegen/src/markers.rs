//! The markers the macro reads, `#[round]`, `#[shape]`, `#[lanes]`,
//! `#[lane]`, `#[unroll]` and `#[method]`: the one place that knows
//! attribute names, where each marker means something, and how all of them
//! are taken out of an input that failed.

use crate::items::{self, Place};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Attribute, FnArg, Item};

/// An attribute the macro reads and removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    /// `#[round]`: a function whose inline attribute each variant sets.
    Round,
    /// `#[shape]`: a function whose `if`/`else` branch forms rewrite.
    Shape,
    /// `#[lanes]`: a function that gets a `_lanes` copy on `LANES` lanes.
    Lanes,
    /// `#[lane]`: a parameter of a `#[lanes]` function that holds one
    /// block's value.
    Lane,
    /// `#[unroll]`: a `for` loop a variant may unroll.
    Unroll,
    /// `#[method(...)]`: an inline module that is one way to compute the
    /// function, with its own variants.
    Method,
}

impl Marker {
    fn name(self) -> &'static str {
        match self {
            Marker::Round => "round",
            Marker::Shape => "shape",
            Marker::Lanes => "lanes",
            Marker::Lane => "lane",
            Marker::Unroll => "unroll",
            Marker::Method => "method",
        }
    }

    /// Whether `attr` is this marker.
    pub(crate) fn is(self, attr: &Attribute) -> bool {
        attr.path().is_ident(self.name())
    }

    /// Whether `attrs` hold this marker.
    pub(crate) fn on(self, attrs: &[Attribute]) -> bool {
        attrs.iter().any(|a| self.is(a))
    }

    /// The first of `attrs` that is this marker.
    pub(crate) fn find(self, attrs: &[Attribute]) -> Option<&Attribute> {
        attrs.iter().find(|a| self.is(a))
    }

    /// Removes every copy of this marker from `attrs`; whether there was one.
    pub(crate) fn take(self, attrs: &mut Vec<Attribute>) -> bool {
        let had = self.on(attrs);
        attrs.retain(|a| !self.is(a));
        had
    }

    /// Whether this marker, on `attrs` of a function at `place`, marks the
    /// function: `#[round]` and `#[shape]` on any function of an item,
    /// `#[lanes]` on a free function or a method of an inherent `impl`.
    pub(crate) fn marks(self, attrs: &[Attribute], place: Place<'_>) -> bool {
        let here = match self {
            Marker::Round | Marker::Shape => true,
            Marker::Lanes => !matches!(
                place,
                Place::Method {
                    inherent: false,
                    ..
                }
            ),
            Marker::Lane | Marker::Unroll | Marker::Method => false,
        };
        here && self.on(attrs)
    }

    /// What a misplaced marker is told, or `None` for one that is not
    /// looked for outside its place (`#[method]`).
    pub(crate) fn misplaced(self) -> Option<&'static str> {
        Some(match self {
            Marker::Round | Marker::Shape => {
                "`#[round]` and `#[shape]` go on a function at the top level of the module or on a method of an `impl` block in it"
            }
            Marker::Lanes => {
                "`#[lanes]` goes on a function at the top level of the module or on a method of an inherent `impl` block in it (its copy `<name>_lanes` is added beside it)"
            }
            Marker::Lane => {
                "`#[lane]` marks a parameter of a `#[lanes]` function: the value of one block, which its copy takes per lane"
            }
            Marker::Unroll => {
                "`#[unroll]` goes on a `for` loop over a range of integer literals, e.g. `#[unroll] for i in 0..12 { ... }`"
            }
            Marker::Method => return None,
        })
    }

    /// The marker `attr` is, if any.
    pub(crate) fn of(attr: &Attribute) -> Option<Marker> {
        const ALL: [Marker; 6] = [
            Marker::Round,
            Marker::Shape,
            Marker::Lanes,
            Marker::Lane,
            Marker::Unroll,
            Marker::Method,
        ];
        ALL.into_iter().find(|m| m.is(attr))
    }
}

/// `#[inline(...)]`, which each variant sets on a `#[round]` function.
pub(crate) fn is_inline(attr: &Attribute) -> bool {
    attr.path().is_ident("inline")
}

/// `#[target_feature(...)]`, on which Rust refuses `#[inline(always)]`.
pub(crate) fn is_target_feature(attr: &Attribute) -> bool {
    attr.path().is_ident("target_feature")
}

/// `#[doc = "..."]`, a doc comment.
pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

/// The markers in `item` that are where they mean something: `#[round]`,
/// `#[shape]` and `#[lanes]` where they mark a function of the item
/// ([`Marker::marks`]), `#[lane]` on the parameters of a `#[lanes]`
/// function, `#[unroll]` on any `for` loop. Any other marker in `item`
/// (but `#[method]`) is misplaced.
pub(crate) fn placed(item: &Item) -> Vec<&Attribute> {
    let mut placed = Vec::new();
    for f in items::fns(item) {
        for marker in [Marker::Round, Marker::Shape] {
            if marker.marks(f.attrs, f.place) {
                placed.extend(f.attrs.iter().filter(|a| marker.is(a)));
            }
        }
        if Marker::Lanes.marks(f.attrs, f.place) {
            placed.extend(f.attrs.iter().filter(|a| Marker::Lanes.is(a)));
            for input in &f.sig.inputs {
                let attrs = match input {
                    FnArg::Typed(t) => &t.attrs,
                    FnArg::Receiver(r) => &r.attrs,
                };
                placed.extend(attrs.iter().filter(|a| Marker::Lane.is(a)));
            }
        }
    }
    struct Loops<'a>(Vec<&'a Attribute>);
    impl<'a> Visit<'a> for Loops<'a> {
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            self.0
                .extend(f.attrs.iter().filter(|a| Marker::Unroll.is(a)));
            syn::visit::visit_expr_for_loop(self, f);
        }
    }
    let mut loops = Loops(placed);
    loops.visit_item(item);
    loops.0
}

/// Removes every marker from `items`, inside `#[method]` modules too, for
/// the error path: `#[round]`, `#[shape]` and `#[method]` where the macro
/// reads them (on an item and on its functions), `#[lanes]`, `#[lane]` and
/// `#[unroll]` wherever they are.
pub(crate) fn strip_all(items: &mut [Item]) {
    for item in items.iter_mut() {
        for f in items::fns_mut(item) {
            Marker::Round.take(f.attrs);
            Marker::Shape.take(f.attrs);
        }
        AnyMarker.visit_item_mut(item);
        if let Item::Mod(m) = item
            && let Some((_, inner)) = &mut m.content
        {
            strip_all(inner);
        }
        if let Some(attrs) = items::attrs_mut(item) {
            for marker in [Marker::Round, Marker::Shape, Marker::Method] {
                marker.take(attrs);
            }
        }
    }
}

/// Removes the markers of the lanes and unroll axes wherever they are.
struct AnyMarker;

impl VisitMut for AnyMarker {
    fn visit_attributes_mut(&mut self, attrs: &mut Vec<Attribute>) {
        for marker in [Marker::Lanes, Marker::Lane, Marker::Unroll] {
            marker.take(attrs);
        }
    }
}
