//! What the macro works on, once parsed: the variants asked for and the module
//! split into the items all variants share and the items each variant copies.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The inline attribute a variant puts on every `#[round]` function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Policy {
    Always,
    Never,
    Hint,
    Auto,
}

impl Policy {
    /// Every policy by the name a user writes, in documentation order.
    pub(crate) const ALL: [(&'static str, Policy); 4] = [
        ("always", Policy::Always),
        ("never", Policy::Never),
        ("hint", Policy::Hint),
        ("auto", Policy::Auto),
    ];

    pub(crate) fn from_name(name: &str) -> Option<Policy> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|&(_, p)| p)
    }

    /// The names a user may write, for error messages.
    pub(crate) fn allowed() -> String {
        let names: Vec<&str> = Self::ALL.iter().map(|(n, _)| *n).collect();
        names.join(", ")
    }

    /// The attribute this policy puts on a round function (none for `auto`).
    pub(crate) fn attribute(self) -> TokenStream {
        match self {
            Policy::Always => quote!(#[inline(always)]),
            Policy::Never => quote!(#[inline(never)]),
            Policy::Hint => quote!(#[inline]),
            Policy::Auto => TokenStream::new(),
        }
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Policy::Always => "`#[inline(always)]`",
            Policy::Never => "`#[inline(never)]`",
            Policy::Hint => "`#[inline]`",
            Policy::Auto => "no inline attribute (the compiler decides)",
        }
    }
}

/// One requested variant: its name (a child module's name), its policy and
/// its branch form (`never_factored`: `never`, `factored`).
pub(crate) struct Variant {
    pub(crate) name: Ident,
    pub(crate) policy: Policy,
    pub(crate) form: Option<crate::forms::Form>,
}

/// The macro's arguments.
pub(crate) struct Args {
    pub(crate) variants: Vec<Variant>,
    /// Feature prefix that gates each child module, if asked for.
    pub(crate) feature_gate: Option<String>,
}

/// The annotated module, split by what the variants do with each item.
pub(crate) struct Module {
    /// The module itself, with its items taken out.
    pub(crate) shell: syn::ItemMod,
    /// Items kept once in the parent module.
    pub(crate) shared: Vec<syn::Item>,
    /// Items every variant copies; round functions still carry `#[round]`.
    pub(crate) per_variant: Vec<syn::Item>,
    /// Names of the round functions (methods as `Type::method`).
    pub(crate) rounds: Vec<String>,
    /// Names of the `#[shape]` functions, which branch forms rewrite.
    pub(crate) shapes: Vec<String>,
}
