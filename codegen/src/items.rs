//! What the macro needs to know of Rust items: every function of an item,
//! free or a method in an `impl` (the one walker over them), and an item's
//! attributes.

use syn::{Attribute, Block, ImplItem, Item, Signature, Type};

/// Where a function of an item sits.
#[derive(Clone, Copy)]
pub(crate) enum Place<'a> {
    /// The item itself, `fn name(...)`.
    Free,
    /// A method of an `impl` block for `self_ty`; `inherent`: not an `impl`
    /// of a trait.
    Method { self_ty: &'a Type, inherent: bool },
}

/// A function of an item.
pub(crate) struct Func<'a> {
    pub(crate) attrs: &'a [Attribute],
    pub(crate) sig: &'a Signature,
    pub(crate) block: &'a Block,
    pub(crate) place: Place<'a>,
}

/// A function of an item, to change in place.
pub(crate) struct FuncMut<'a> {
    pub(crate) attrs: &'a mut Vec<Attribute>,
    pub(crate) sig: &'a mut Signature,
    pub(crate) block: &'a mut Block,
    pub(crate) place: Place<'a>,
}

/// The body of a function made beside another: its attributes, signature
/// and block (its visibility is the other's).
pub(crate) type Made = (Vec<Attribute>, Signature, Block);

/// Every function of `item`, in source order: the item itself if it is a
/// function, or the methods of an `impl` block. Functions nested deeper
/// (in bodies, modules or traits) are not the item's.
pub(crate) fn fns(item: &Item) -> impl Iterator<Item = Func<'_>> {
    let (free, imp) = match item {
        Item::Fn(f) => (Some(f), None),
        Item::Impl(imp) => (None, Some(imp)),
        _ => (None, None),
    };
    let free = free.into_iter().map(|f| Func {
        attrs: &f.attrs,
        sig: &f.sig,
        block: &f.block,
        place: Place::Free,
    });
    let methods = imp.into_iter().flat_map(|imp| {
        let place = Place::Method {
            self_ty: &imp.self_ty,
            inherent: imp.trait_.is_none(),
        };
        imp.items.iter().filter_map(move |ii| match ii {
            ImplItem::Fn(f) => Some(Func {
                attrs: &f.attrs,
                sig: &f.sig,
                block: &f.block,
                place,
            }),
            _ => None,
        })
    });
    free.chain(methods)
}

/// Every function of `item`, as [`fns`] has them, to change in place.
pub(crate) fn fns_mut(item: &mut Item) -> impl Iterator<Item = FuncMut<'_>> {
    let (free, imp) = match item {
        Item::Fn(f) => (Some(f), None),
        Item::Impl(imp) => (None, Some(imp)),
        _ => (None, None),
    };
    let free = free.into_iter().map(|f| FuncMut {
        attrs: &mut f.attrs,
        sig: &mut f.sig,
        block: &mut f.block,
        place: Place::Free,
    });
    let methods = imp.into_iter().flat_map(|imp| {
        let syn::ItemImpl {
            self_ty,
            trait_,
            items,
            ..
        } = imp;
        let self_ty: &Type = self_ty;
        let place = Place::Method {
            self_ty,
            inherent: trait_.is_none(),
        };
        items.iter_mut().filter_map(move |ii| match ii {
            ImplItem::Fn(f) => Some(FuncMut {
                attrs: &mut f.attrs,
                sig: &mut f.sig,
                block: &mut f.block,
                place,
            }),
            _ => None,
        })
    });
    free.chain(methods)
}

/// Puts beside every function of `item` ([`fns`]) the function `make`
/// makes of it, if any, with the same visibility: a method's follows it in
/// its `impl`; a free function's is returned, to follow `item`.
pub(crate) fn add_beside(
    item: &mut Item,
    mut make: impl FnMut(Func<'_>) -> syn::Result<Option<Made>>,
) -> syn::Result<Option<Item>> {
    match item {
        Item::Fn(f) => {
            let made = make(Func {
                attrs: &f.attrs,
                sig: &f.sig,
                block: &f.block,
                place: Place::Free,
            })?;
            Ok(made.map(|(attrs, sig, block)| {
                Item::Fn(syn::ItemFn {
                    attrs,
                    vis: f.vis.clone(),
                    sig,
                    block: Box::new(block),
                })
            }))
        }
        Item::Impl(imp) => {
            let old = std::mem::take(&mut imp.items);
            let place = Place::Method {
                self_ty: &imp.self_ty,
                inherent: imp.trait_.is_none(),
            };
            let mut items = Vec::with_capacity(old.len());
            for ii in old {
                let made = match &ii {
                    ImplItem::Fn(f) => make(Func {
                        attrs: &f.attrs,
                        sig: &f.sig,
                        block: &f.block,
                        place,
                    })?
                    .map(|(attrs, sig, block)| {
                        ImplItem::Fn(syn::ImplItemFn {
                            attrs,
                            vis: f.vis.clone(),
                            defaultness: f.defaultness,
                            sig,
                            block,
                        })
                    }),
                    _ => None,
                };
                items.push(ii);
                items.extend(made);
            }
            imp.items = items;
            Ok(None)
        }
        _ => Ok(None),
    }
}

/// The attribute list of an item taken by `&` or `&mut` (`None` for a
/// verbatim item), written once for [`attrs`] and [`attrs_mut`].
macro_rules! attrs_of {
    ($item:expr, $($borrow:tt)+) => {
        match $item {
            Item::Const(i) => Some($($borrow)+ i.attrs),
            Item::Enum(i) => Some($($borrow)+ i.attrs),
            Item::ExternCrate(i) => Some($($borrow)+ i.attrs),
            Item::Fn(i) => Some($($borrow)+ i.attrs),
            Item::ForeignMod(i) => Some($($borrow)+ i.attrs),
            Item::Impl(i) => Some($($borrow)+ i.attrs),
            Item::Macro(i) => Some($($borrow)+ i.attrs),
            Item::Mod(i) => Some($($borrow)+ i.attrs),
            Item::Static(i) => Some($($borrow)+ i.attrs),
            Item::Struct(i) => Some($($borrow)+ i.attrs),
            Item::Trait(i) => Some($($borrow)+ i.attrs),
            Item::TraitAlias(i) => Some($($borrow)+ i.attrs),
            Item::Type(i) => Some($($borrow)+ i.attrs),
            Item::Union(i) => Some($($borrow)+ i.attrs),
            Item::Use(i) => Some($($borrow)+ i.attrs),
            _ => None,
        }
    };
}

/// The attributes of an item (none for a verbatim one).
pub(crate) fn attrs(item: &Item) -> &[Attribute] {
    attrs_of!(item, &).map_or(&[], Vec::as_slice)
}

/// The attributes of an item, to change (`None` for a verbatim one).
pub(crate) fn attrs_mut(item: &mut Item) -> Option<&mut Vec<Attribute>> {
    attrs_of!(item, &mut)
}
