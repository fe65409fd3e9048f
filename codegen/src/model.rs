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

/// One requested variant: its name (a child module's name), its policy, its
/// branch form and, in a module with `#[method]` modules, its method. The
/// name is the axes joined by `_`, outermost first: `[method_]policy[_form]`
/// (`never`, `never_factored`, `slice8_never`).
pub(crate) struct Variant {
    pub(crate) name: Ident,
    pub(crate) policy: Policy,
    pub(crate) form: Option<crate::forms::Form>,
    /// Index into [`Module::methods`].
    pub(crate) method: Option<usize>,
}

/// What each variant module exports, for the callback macros other crates
/// derive their lists from.
pub(crate) enum Kind {
    /// `cipher = Type`: each variant holds a block cipher type of that name.
    Cipher(Ident),
    /// `checksum`: each variant holds `crc32c`-style functions.
    Checksum,
}

/// The macro's arguments.
pub(crate) struct Args {
    /// The variants named in the arguments (none when the module has
    /// `#[method]` modules, which name their own).
    pub(crate) variants: Vec<Variant>,
    pub(crate) kind: Option<Kind>,
    /// `reference = v`: the variant ratios are taken against by default.
    pub(crate) reference: Option<Ident>,
}

/// One `#[method(...)] mod name { ... }` of the module: another way to
/// compute the same function, with the variants asked for it.
pub(crate) struct Method {
    pub(crate) ident: Ident,
    /// Its items, copied into each of its variants (after the parent's
    /// per-variant items); round functions still carry `#[round]`.
    pub(crate) items: Vec<syn::Item>,
    /// Its variants, named `<method>_<policy>[_<form>]`.
    pub(crate) variants: Vec<Variant>,
    pub(crate) shapes: Vec<String>,
}

/// The annotated module, split by what the variants do with each item.
pub(crate) struct Module {
    /// The module itself, with its items taken out.
    pub(crate) shell: syn::ItemMod,
    /// Items kept once in the parent module.
    pub(crate) shared: Vec<syn::Item>,
    /// Items every variant copies; round functions still carry `#[round]`.
    pub(crate) per_variant: Vec<syn::Item>,
    /// The `#[method]` modules, in source order.
    pub(crate) methods: Vec<Method>,
    /// Names of the round functions (methods as `Type::method`), of the
    /// module and of every method, each once.
    pub(crate) rounds: Vec<String>,
    /// Names of the `#[shape]` functions outside method modules, which
    /// branch forms rewrite.
    pub(crate) shapes: Vec<String>,
}

impl Module {
    /// Every variant, in the order asked for: the arguments' or, with
    /// `#[method]` modules, each method's in turn.
    pub(crate) fn variants<'a>(&'a self, args: &'a Args) -> Vec<&'a Variant> {
        if self.methods.is_empty() {
            args.variants.iter().collect()
        } else {
            self.methods.iter().flat_map(|m| &m.variants).collect()
        }
    }

    /// The reference variant: the one named by `reference = v`, else the
    /// first with the `auto` policy (the code as written, no inline
    /// attribute), else the first.
    pub(crate) fn reference<'a>(&'a self, args: &'a Args) -> Option<&'a Ident> {
        let variants = self.variants(args);
        args.reference.as_ref().or_else(|| {
            variants
                .iter()
                .find(|v| v.policy == Policy::Auto)
                .or(variants.first())
                .map(|v| &v.name)
        })
    }
}
