//! The free `#[lanes]` functions a `#[lanes]` body may call on all its
//! lanes at once, and how each holds its parameters.

use super::scope::{Held, held};
use crate::items::{self, Place};
use crate::markers::Marker;
use std::collections::HashMap;
use syn::{FnArg, Item, Type};

/// The free `#[lanes]` functions of a module that a `#[lanes]` body calls
/// on all its lanes at once (see the `lanes` module docs), by name: how the copy
/// holds each parameter, `None` for one that is not `#[lane]`.
#[derive(Default)]
pub(crate) struct Callees(HashMap<String, Vec<Option<Held>>>);

impl Callees {
    /// The callees among `items`: the free `#[lanes]` functions with no
    /// `&mut` parameter but their `#[lane]` ones (a `&mut` shared by all
    /// lanes would see the copy's once-run statements once, not per lane).
    pub(crate) fn of<'a>(all: impl IntoIterator<Item = &'a Item>) -> Self {
        let mut callees = HashMap::new();
        for f in all.into_iter().flat_map(items::fns) {
            if !matches!(f.place, Place::Free) || !Marker::Lanes.on(f.attrs) {
                continue;
            }
            let params: Option<Vec<Option<Held>>> = f
                .sig
                .inputs
                .iter()
                .map(|input| match input {
                    FnArg::Typed(t) if Marker::Lane.on(&t.attrs) => Some(Some(held(&t.ty).0)),
                    FnArg::Typed(t) => match &*t.ty {
                        Type::Reference(r) if r.mutability.is_some() => None,
                        _ => Some(None),
                    },
                    FnArg::Receiver(_) => None,
                })
                .collect();
            if let Some(params) = params {
                callees.insert(f.sig.ident.to_string(), params);
            }
        }
        Callees(callees)
    }

    /// How the callee `name`'s copy holds each of its parameters.
    pub(super) fn params(&self, name: &str) -> Option<&[Option<Held>]> {
        self.0.get(name).map(Vec::as_slice)
    }
}
