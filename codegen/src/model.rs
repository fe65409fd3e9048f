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

    pub(crate) fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, p)| *p == self)
            .map_or("", |(n, _)| n)
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

/// The most lanes a variant may ask for (`x64`); also the most iterations
/// an `#[unroll]` loop may have.
pub(crate) const MAX_LANES: usize = 64;

/// One requested variant: its name (a child module's name), its policy, its
/// branch form, its lane count, whether its `#[unroll]` loops are unrolled
/// and, in a module with `#[method]` modules, its method. The name is the
/// axes joined by `_`, outermost first, each axis's default left out:
/// `[method_]policy[_form][_xN][_unrolled]` (`never`, `never_factored`,
/// `slice8_never`, `auto_x4_unrolled`).
pub(crate) struct Variant {
    pub(crate) name: Ident,
    pub(crate) policy: Policy,
    pub(crate) form: Option<crate::forms::Form>,
    /// How many blocks the `_lanes` copies of `#[lanes]` functions take (1
    /// by default): the `xN` of its name and its cipher's `ParBlocksSize`.
    pub(crate) lanes: usize,
    /// How many blocks one lane's state holds (`lane_blocks = N` on its
    /// `#[method]`, 1 by default): the copies take `lanes / lane_blocks`
    /// states, its `LANES`.
    pub(crate) lane_blocks: usize,
    /// Whether `#[unroll]` loops are unrolled (`rolled`, as written, by
    /// default).
    pub(crate) unrolled: bool,
    /// Index into [`Module::methods`].
    pub(crate) method: Option<usize>,
}

impl Variant {
    /// How many lane states its `_lanes` copies take: `LANES`.
    pub(crate) fn states(&self) -> usize {
        self.lanes / self.lane_blocks
    }

    /// The name of a variant of these axes, `[method_]policy[_form][_xN][_unrolled]`.
    pub(crate) fn name_of(
        method: Option<&Ident>,
        policy: Policy,
        form: Option<crate::forms::Form>,
        lanes: usize,
        unrolled: bool,
    ) -> String {
        let mut parts: Vec<String> = Vec::new();
        parts.extend(method.map(|m| m.to_string()));
        parts.push(policy.name().to_string());
        parts.extend(form.map(|f| f.name().to_string()));
        if lanes != 1 {
            parts.push(format!("x{lanes}"));
        }
        if unrolled {
            parts.push("unrolled".to_string());
        }
        parts.join("_")
    }
}

/// The axes of a variant list written as a cross product,
/// `policy(...), form(...), lanes(...), unroll(...)`: each list as written,
/// for errors about the axis as a whole.
#[derive(Default)]
pub(crate) struct Axes {
    pub(crate) form: Option<syn::MetaList>,
    pub(crate) lanes: Option<syn::MetaList>,
    pub(crate) unroll: Option<syn::MetaList>,
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
    /// The axes, when the variants are written as a cross product.
    pub(crate) axes: Option<Axes>,
    pub(crate) kind: Option<Kind>,
    /// `reference = v`: the variant ratios are taken against by default.
    pub(crate) reference: Option<Ident>,
    /// `entry(...)` or `calibration(...)`: what the harness and the
    /// artifact know of the algorithm besides its variants.
    pub(crate) declaration: Option<Declaration>,
}

/// The role an algorithm's declaration gives it in the harness.
#[derive(Clone, Copy)]
pub(crate) enum Role {
    /// `entry(...)`: compared and gated against its peers.
    Entry,
    /// `calibration(...)`: measures the harness itself (tcrypt lists it).
    Calibration,
}

impl Role {
    pub(crate) fn from_name(name: &str) -> Option<Role> {
        match name {
            "entry" => Some(Role::Entry),
            "calibration" => Some(Role::Calibration),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Role::Entry => "entry",
            Role::Calibration => "calibration",
        }
    }
}

/// `entry(...)` or `calibration(...)`: the role and its facts, parsed and
/// validated by [`crate::declaration`], which states their grammar, and
/// written in the fixed grammar the consumers match.
pub(crate) struct Declaration {
    pub(crate) role: Role,
    pub(crate) facts: TokenStream,
}

/// One `#[method(...)] mod name { ... }` of the module: another way to
/// compute the same function, with the variants asked for it.
pub(crate) struct Method {
    pub(crate) ident: Ident,
    /// Its items, copied into each of its variants (after the parent's
    /// per-variant items); round functions still carry `#[round]`.
    pub(crate) items: Vec<syn::Item>,
    /// Its variants, named `<method>_<policy>[_<form>][_xN][_unrolled]`.
    pub(crate) variants: Vec<Variant>,
    /// The axes, when its variants are written as a cross product.
    pub(crate) axes: Option<Axes>,
    /// Its own `#[shape]` functions, `#[lanes]` functions and `#[unroll]` loops.
    pub(crate) marked: Marked,
}

/// The functions and loops of a module (or a `#[method]` module) that the
/// structural axes rewrite.
#[derive(Default)]
pub(crate) struct Marked {
    /// Names of the `#[shape]` functions, which branch forms rewrite.
    pub(crate) shapes: Vec<String>,
    /// Names of the `#[lanes]` functions, which get a `_lanes` copy.
    pub(crate) lanes: Vec<String>,
    /// How many `#[unroll]` loops there are.
    pub(crate) unrolls: usize,
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
    /// The `#[shape]` and `#[lanes]` functions and `#[unroll]` loops outside
    /// method modules.
    pub(crate) marked: Marked,
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
    /// attribute) that has one lane and rolled loops, else the first `auto`,
    /// else the first.
    pub(crate) fn reference<'a>(&'a self, args: &'a Args) -> Option<&'a Ident> {
        let variants = self.variants(args);
        args.reference.as_ref().or_else(|| {
            let auto = |v: &&&Variant| v.policy == Policy::Auto;
            variants
                .iter()
                .filter(auto)
                .find(|v| v.lanes == 1 && !v.unrolled)
                .or_else(|| variants.iter().find(auto))
                .or(variants.first())
                .map(|v| &v.name)
        })
    }

    /// Whether variant `v` has `#[lanes]` functions: the module's or its
    /// method's.
    pub(crate) fn has_lanes(&self, v: &Variant) -> bool {
        !self.marked.lanes.is_empty()
            || v.method
                .is_some_and(|i| !self.methods[i].marked.lanes.is_empty())
    }
}
