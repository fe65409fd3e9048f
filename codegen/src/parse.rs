//! Token streams in, model out. Every error is spanned at the tokens it is
//! about; errors found together are reported together.

use crate::errors::Errors;
use crate::forms::Form;
use crate::items::{self, Place};
use crate::markers::Marker;
use crate::model::{
    Args, Axes, Declaration, Kind, MAX_LANES, Marked, Method, Module, Policy, Role, Variant,
};
use proc_macro2::{Ident, Span, TokenStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Item, Meta, Token};

/// Parses `always, never, ..., cipher = Type` (or `checksum`), or the same
/// variants as axes, `policy(always, never), lanes(1, 4), cipher = Type`.
pub(crate) fn args(tokens: TokenStream) -> syn::Result<Args> {
    let metas =
        syn::parse::Parser::parse2(Punctuated::<Meta, Token![,]>::parse_terminated, tokens)?;
    let mut list = VariantList::new(None);
    let mut kind = None;
    let mut reference = None;
    let mut declaration = None;
    let mut errors = Errors::default();
    for meta in metas {
        match meta {
            Meta::List(list) if list.path.get_ident().and_then(|i| Role::from_name(&i.to_string())).is_some() => {
                let role = list.path.get_ident().and_then(|i| Role::from_name(&i.to_string()));
                match (role, &declaration) {
                    (Some(role), None) => {
                        declaration = Some((role, syn::spanned::Spanned::span(&list), list.tokens))
                    }
                    _ => errors.push(syn::Error::new_spanned(
                        &list,
                        "one declaration per module: `entry(...)` or `calibration(...)`",
                    )),
                }
            }
            Meta::Path(path) if path.is_ident("checksum") => kind = Some(Kind::Checksum),
            Meta::NameValue(nv) if nv.path.is_ident("cipher") => match &nv.value {
                Expr::Path(p) if p.path.get_ident().is_some() => {
                    kind = p.path.get_ident().cloned().map(Kind::Cipher);
                }
                other => errors.push(syn::Error::new_spanned(
                    other,
                    "`cipher` takes the name of the type each variant defines, e.g. `cipher = Cast6`",
                )),
            },
            Meta::NameValue(nv) if nv.path.is_ident("reference") => match &nv.value {
                Expr::Path(p) if p.path.get_ident().is_some() => {
                    reference = p.path.get_ident().cloned();
                }
                other => errors.push(syn::Error::new_spanned(
                    other,
                    "`reference` takes the name of one of the variants, e.g. `reference = auto`",
                )),
            },
            other => {
                if let Some(other) = list.item(other, &[], &mut errors) {
                    errors.push(syn::Error::new_spanned(
                        &other,
                        format!(
                            "expected a variant name ({}), axes (`policy(...)`, `form(...)`, `lanes(...)`, `unroll(...)`), `cipher = Type`, `checksum`, `reference = variant`, `entry(...)` or `calibration(...)`",
                            Policy::allowed()
                        ),
                    ));
                }
            }
        }
    }
    let (variants, axes) = list.finish(&[], &mut errors);
    let declaration = match (declaration, &kind) {
        (Some((role, span, _)), None) => {
            errors.push(syn::Error::new(
                span,
                format!(
                    "`{}(...)` declares a cipher or a checksum: add `cipher = Type` or `checksum`",
                    role.name()
                ),
            ));
            None
        }
        (Some((role, span, tokens)), Some(kind)) => {
            match crate::declaration::parse(role, tokens, kind, span) {
                Ok(facts) => Some(Declaration {
                    role,
                    facts: facts.to_tokens(),
                }),
                Err(e) => {
                    errors.push(e);
                    None
                }
            }
        }
        (None, _) => None,
    };
    errors.finish()?;
    Ok(Args {
        variants,
        axes,
        kind,
        reference,
        declaration,
    })
}

/// A list of variants as it is parsed: variant names, or the axes of a
/// cross product.
struct VariantList<'a> {
    /// The `#[method]` the variants belong to (its index and name).
    method: Option<(usize, &'a Ident)>,
    named: Vec<Variant>,
    policy: Option<(syn::MetaList, Vec<(Policy, Span)>)>,
    form: Option<(syn::MetaList, Vec<Form>)>,
    lanes: Option<(syn::MetaList, Vec<usize>)>,
    unroll: Option<(syn::MetaList, Vec<bool>)>,
    /// The first axis list, for errors about the axes as a whole.
    first_axis: Option<syn::MetaList>,
}

/// An axis of a cross product, which a user writes as a list,
/// `lanes(1, 2, 4)`.
#[derive(Clone, Copy)]
enum Axis {
    Policy,
    Form,
    Lanes,
    Unroll,
}

impl Axis {
    /// The axis a list of this path gives, if any.
    fn of(path: &syn::Path) -> Option<Axis> {
        [Axis::Policy, Axis::Form, Axis::Lanes, Axis::Unroll]
            .into_iter()
            .find(|a| path.is_ident(a.name()))
    }

    /// The name of its list.
    fn name(self) -> &'static str {
        match self {
            Axis::Policy => "policy",
            Axis::Form => "form",
            Axis::Lanes => "lanes",
            Axis::Unroll => "unroll",
        }
    }

    fn example(self) -> &'static str {
        match self {
            Axis::Policy => "policy(never, auto)",
            Axis::Form => "form(factored, duplicated)",
            Axis::Lanes => "lanes(1, 2, 4)",
            Axis::Unroll => "unroll(rolled, unrolled)",
        }
    }
}

/// The values of one axis list, as parsed: only the axis's own is filled.
#[derive(Default)]
struct AxisValues {
    policies: Vec<(Policy, Span)>,
    forms: Vec<Form>,
    lanes: Vec<usize>,
    unroll: Vec<bool>,
}

impl AxisValues {
    /// Parses `value`, written `text`, as a value of `axis`.
    fn push(&mut self, axis: Axis, value: &Expr, text: &str) -> syn::Result<()> {
        let ident = match value {
            Expr::Path(p) => p.path.get_ident(),
            _ => None,
        };
        let name = axis.name();
        let unknown = |allowed: String| {
            syn::Error::new_spanned(
                value,
                format!("unknown value `{text}` in `{name}(...)`: expected one of {allowed}"),
            )
        };
        match axis {
            Axis::Policy => match ident.and_then(|i| Policy::from_name(&i.to_string())) {
                Some(p) => self
                    .policies
                    .push((p, ident.map_or(Span::call_site(), Ident::span))),
                None => return Err(unknown(Policy::allowed())),
            },
            Axis::Form => match ident.and_then(|i| Form::from_name(&i.to_string())) {
                Some(f) => self.forms.push(f),
                None => return Err(unknown(Form::allowed())),
            },
            Axis::Lanes => match lane_count(value) {
                Some(n) => self.lanes.push(n),
                None => {
                    return Err(syn::Error::new_spanned(
                        value,
                        format!(
                            "`lanes(...)` takes lane counts, integers from 1 to {MAX_LANES}, e.g. `lanes(1, 2, 4)`"
                        ),
                    ));
                }
            },
            Axis::Unroll => match ident.map(|i| i.to_string()).as_deref() {
                Some("rolled") => self.unroll.push(false),
                Some("unrolled") => self.unroll.push(true),
                _ => return Err(unknown("rolled, unrolled".to_string())),
            },
        }
        Ok(())
    }
}

impl<'a> VariantList<'a> {
    fn new(method: Option<(usize, &'a Ident)>) -> Self {
        VariantList {
            method,
            named: Vec::new(),
            policy: None,
            form: None,
            lanes: None,
            unroll: None,
            first_axis: None,
        }
    }

    /// Takes a variant name or an axis list; gives back any other item.
    fn item(&mut self, meta: Meta, earlier: &[&Variant], errors: &mut Errors) -> Option<Meta> {
        match meta {
            Meta::Path(path) => {
                let seen: Vec<&Variant> = earlier.iter().copied().chain(&self.named).collect();
                if let Some(v) = variant(&path, self.method, &seen, errors) {
                    self.named.push(v);
                }
                None
            }
            Meta::List(list) => match Axis::of(&list.path) {
                Some(axis) => {
                    self.axis(axis, list, errors);
                    None
                }
                None => Some(Meta::List(list)),
            },
            other => Some(other),
        }
    }

    /// Parses one axis list, `lanes(1, 2, 4)`.
    fn axis(&mut self, axis: Axis, list: syn::MetaList, errors: &mut Errors) {
        let name = axis.name();
        let values = match list.parse_args_with(Punctuated::<Expr, Token![,]>::parse_terminated) {
            Ok(values) => values,
            Err(e) => {
                errors.push(e);
                return;
            }
        };
        if values.is_empty() {
            errors.push(syn::Error::new_spanned(
                &list,
                format!(
                    "`{name}()` lists at least one value, e.g. `{}`",
                    axis.example()
                ),
            ));
            return;
        }
        let given_twice = match axis {
            Axis::Policy => self.policy.is_some(),
            Axis::Form => self.form.is_some(),
            Axis::Lanes => self.lanes.is_some(),
            Axis::Unroll => self.unroll.is_some(),
        };
        if given_twice {
            errors.push(syn::Error::new_spanned(
                &list.path,
                format!("`{name}(...)` is given twice: list all its values in one"),
            ));
            return;
        }
        let mut seen: Vec<String> = Vec::new();
        let mut parsed = AxisValues::default();
        for value in &values {
            let text = quote::ToTokens::to_token_stream(value).to_string();
            if seen.contains(&text) {
                errors.push(syn::Error::new_spanned(
                    value,
                    format!("duplicate value `{text}` in `{name}(...)`: each value is listed once"),
                ));
                continue;
            }
            if let Err(e) = parsed.push(axis, value, &text) {
                errors.push(e);
            }
            seen.push(text);
        }
        if self.first_axis.is_none() {
            self.first_axis = Some(list.clone());
        }
        match axis {
            Axis::Policy => self.policy = Some((list, parsed.policies)),
            Axis::Form => self.form = Some((list, parsed.forms)),
            Axis::Lanes => self.lanes = Some((list, parsed.lanes)),
            Axis::Unroll => self.unroll = Some((list, parsed.unroll)),
        }
    }

    /// The variants: the names as listed or, with axes, their cross
    /// product, outermost axis first (the policy varies slowest).
    fn finish(self, earlier: &[&Variant], errors: &mut Errors) -> (Vec<Variant>, Option<Axes>) {
        let Some(first_axis) = self.first_axis else {
            return (self.named, None);
        };
        if !self.named.is_empty() {
            errors.push(syn::Error::new_spanned(
                &first_axis,
                "give the variants either by name (`never`, `auto_x4`) or as axes (`policy(...)`, `lanes(...)`), not both",
            ));
            return (self.named, None);
        }
        let Some((_, policies)) = self.policy else {
            errors.push(syn::Error::new_spanned(
                &first_axis,
                format!(
                    "the axes need `policy(...)`, the inline policies to cross them with ({}), e.g. `policy(never, auto)`",
                    Policy::allowed()
                ),
            ));
            return (Vec::new(), None);
        };
        let forms: Vec<Option<Form>> = match &self.form {
            Some((_, f)) => f.iter().copied().map(Some).collect(),
            None => vec![None],
        };
        let lanes = self.lanes.as_ref().map_or(vec![1], |(_, l)| l.clone());
        let unroll = self.unroll.as_ref().map_or(vec![false], |(_, u)| u.clone());
        let mut variants: Vec<Variant> = Vec::new();
        for &(policy, span) in &policies {
            for &form in &forms {
                for &n in &lanes {
                    for &unrolled in &unroll {
                        let name =
                            Variant::name_of(self.method.map(|m| m.1), policy, form, n, unrolled);
                        let name = Ident::new(&name, span);
                        if earlier.iter().any(|v| v.name == name) {
                            errors.push(syn::Error::new(
                                span,
                                format!(
                                    "duplicate variant `{name}`: each variant is asked for once"
                                ),
                            ));
                            continue;
                        }
                        variants.push(Variant {
                            name,
                            policy,
                            form,
                            lanes: n,
                            lane_blocks: 1,
                            unrolled,
                            method: self.method.map(|m| m.0),
                        });
                    }
                }
            }
        }
        let axes = Axes {
            form: self.form.map(|(l, _)| l),
            lanes: self.lanes.map(|(l, _)| l),
            unroll: self.unroll.map(|(l, _)| l),
        };
        (variants, Some(axes))
    }
}

/// A lane count: an integer literal from 1 to [`MAX_LANES`].
fn lane_count(e: &Expr) -> Option<usize> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) if i.suffix().is_empty() => i
            .base10_parse::<usize>()
            .ok()
            .filter(|n| (1..=MAX_LANES).contains(n)),
        _ => None,
    }
}

/// What a variant name, `policy[_form][_xN][_unrolled]`, says.
enum Name {
    Variant(Policy, Option<Form>, usize, bool),
    /// A name that spells out an axis's default (`never_x1`, `never_rolled`).
    Default(String),
    /// `xN` with N outside 1..=64.
    LaneCount,
    Unknown,
}

fn parse_name(text: &str) -> Name {
    let mut parts = text.split('_');
    let Some(policy) = parts.next().and_then(Policy::from_name) else {
        return Name::Unknown;
    };
    let (mut form, mut lanes, mut unrolled) = (None, 1, false);
    // Each axis at most once, in order: the stage is the next axis allowed.
    let mut stage = 0;
    for part in parts {
        let count = part
            .strip_prefix('x')
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
        if stage == 0
            && let Some(f) = Form::from_name(part)
        {
            form = Some(f);
            stage = 1;
        } else if stage <= 1
            && let Some(digits) = count
        {
            match digits.parse::<usize>() {
                Ok(1) => return Name::Default(part.to_string()),
                Ok(n) if (2..=MAX_LANES).contains(&n) => lanes = n,
                _ => return Name::LaneCount,
            }
            stage = 2;
        } else if stage <= 2 && part == "unrolled" {
            unrolled = true;
            stage = 3;
        } else if stage <= 2 && part == "rolled" {
            return Name::Default(part.to_string());
        } else {
            return Name::Unknown;
        }
    }
    Name::Variant(policy, form, lanes, unrolled)
}

/// Parses a variant name, `policy[_form][_xN][_unrolled]`, as the variant of
/// `method` (its index and name) if given; `None` after pushing the error.
fn variant(
    path: &syn::Path,
    method: Option<(usize, &Ident)>,
    seen: &[&Variant],
    errors: &mut Errors,
) -> Option<Variant> {
    let Some(name) = path.get_ident() else {
        errors.push(syn::Error::new_spanned(
            path,
            format!("expected a variant name: {}", Policy::allowed()),
        ));
        return None;
    };
    let text = name.to_string();
    let (policy, form, lanes, unrolled) = match parse_name(&text) {
        Name::Variant(p, f, n, u) => (p, f, n, u),
        Name::Default(part) => {
            let canonical = text
                .split('_')
                .filter(|p| *p != part)
                .collect::<Vec<_>>()
                .join("_");
            errors.push(syn::Error::new_spanned(
                name,
                format!(
                    "`{part}` is the default and is left out of variant names (one lane, loops as written): write `{canonical}`"
                ),
            ));
            return None;
        }
        Name::LaneCount => {
            errors.push(syn::Error::new_spanned(
                name,
                format!("a lane count in a variant name is `x2` to `x{MAX_LANES}` (one lane is the default, left out)"),
            ));
            return None;
        }
        Name::Unknown => {
            errors.push(syn::Error::new_spanned(
                name,
                format!(
                    "unknown variant `{name}`: expected `policy[_form][_xN][_unrolled]`: a policy ({}), optionally followed by a branch form ({}), a lane count (`x2` to `x{MAX_LANES}`) and `unrolled`, each after `_`, e.g. `never`, `never_factored` or `auto_x4_unrolled`",
                    Policy::allowed(),
                    Form::allowed()
                ),
            ));
            return None;
        }
    };
    let full = match method {
        Some((_, m)) => Ident::new(&format!("{m}_{name}"), name.span()),
        None => name.clone(),
    };
    if seen.iter().any(|v| v.name == full) {
        errors.push(syn::Error::new_spanned(
            name,
            format!("duplicate variant `{name}`: each variant is asked for once"),
        ));
        return None;
    }
    Some(Variant {
        name: full,
        policy,
        form,
        lanes,
        lane_blocks: 1,
        unrolled,
        method: method.map(|(i, _)| i),
    })
}

/// Parses the annotated item: it must be an inline module.
pub(crate) fn module(tokens: TokenStream) -> syn::Result<Module> {
    let item: Item = syn::parse2(tokens)?;
    let mut shell = match item {
        Item::Mod(m) if m.content.is_some() => m,
        Item::Mod(m) => {
            return Err(syn::Error::new_spanned(
                &m,
                "`#[codegen::variants]` needs an inline module `mod name { ... }`, not a module in another file",
            ));
        }
        other => {
            return Err(syn::Error::new_spanned(
                item_head(&other),
                "`#[codegen::variants]` goes on an inline module `mod name { ... }`",
            ));
        }
    };
    let items = shell
        .content
        .as_mut()
        .map(|(_, items)| std::mem::take(items));
    let mut shared = Vec::new();
    let mut per_variant = Vec::new();
    let mut methods = Vec::new();
    let mut names = Names::default();
    let mut errors = Errors::default();
    for item in items.unwrap_or_default() {
        if let Item::Mod(m) = &item
            && let Some(attr) = Marker::Method.find(&m.attrs)
        {
            let index = methods.len();
            if let Some(method) = method(m, attr, index, &methods, &mut names, &mut errors) {
                methods.push(method);
            }
            continue;
        }
        if is_shared(&item) {
            let function_markers = [Marker::Round, Marker::Shape, Marker::Lanes];
            if let Some(attr) = items::attrs(&item)
                .iter()
                .find(|a| function_markers.iter().any(|m| m.is(a)))
            {
                errors.push(syn::Error::new_spanned(
                    attr,
                    "`#[round]`, `#[shape]` and `#[lanes]` go on a function; `use`, `static`, `const` and macro items are shared by all variants",
                ));
            }
            shared.push(item);
            continue;
        }
        names.collect(&item);
        per_variant.push(item);
    }
    errors.finish()?;
    Ok(Module {
        shell,
        shared,
        per_variant,
        methods,
        rounds: names.rounds,
        marked: names.marked,
    })
}

/// The round, shape and lanes functions and unroll loops found so far.
#[derive(Default)]
struct Names {
    rounds: Vec<String>,
    marked: Marked,
}

impl Names {
    /// Notes the `#[round]`, `#[shape]` and `#[lanes]` functions of `item`
    /// and counts its `#[unroll]` loops.
    fn collect(&mut self, item: &Item) {
        for f in items::fns(item) {
            let name = match f.place {
                Place::Free => f.sig.ident.to_string(),
                Place::Method { self_ty, .. } => {
                    let ty = quote::quote!(#self_ty).to_string().replace(' ', "");
                    format!("{ty}::{}", f.sig.ident)
                }
            };
            if Marker::Round.on(f.attrs) && !self.rounds.contains(&name) {
                self.rounds.push(name.clone());
            }
            if Marker::Shape.on(f.attrs) {
                self.marked.shapes.push(name.clone());
            }
            if Marker::Lanes.on(f.attrs) {
                self.marked.lanes.push(name);
            }
        }
        self.marked.unrolls += crate::unroll::count(item);
    }
}

/// `lane_blocks = N` on a `#[method]`: how many blocks one lane's state
/// holds (a 256-bit register of two AES blocks), so that `lanes(...)` and
/// the names count blocks, as every other method's do.
const LANE_BLOCKS: &str = "lane_blocks";

/// The `N` of `lane_blocks = N`: an integer from 2 to [`MAX_LANES`], given
/// once.
fn lane_blocks_of(nv: &syn::MetaNameValue, again: bool, errors: &mut Errors) -> Option<usize> {
    if again {
        errors.push(syn::Error::new_spanned(
            &nv.path,
            format!("`{LANE_BLOCKS}` is given twice: give it once"),
        ));
        return None;
    }
    let n = lane_count(&nv.value).filter(|&n| n > 1);
    if n.is_none() {
        errors.push(syn::Error::new_spanned(
            &nv.value,
            format!(
                "`{LANE_BLOCKS} = N` takes the blocks one lane's state holds, an integer from 2 to {MAX_LANES} (leave it out for 1)"
            ),
        ));
    }
    n
}

/// Parses `#[method(never, auto)] mod name { ... }`: its variants and items.
/// Its rounds join the module's; its shapes stay its own.
fn method(
    m: &syn::ItemMod,
    attr: &Attribute,
    index: usize,
    earlier: &[Method],
    names: &mut Names,
    errors: &mut Errors,
) -> Option<Method> {
    let Some((_, items)) = &m.content else {
        errors.push(syn::Error::new_spanned(
            &m.ident,
            "a `#[method]` module is written inline: `#[method(never)] mod name { ... }`",
        ));
        return None;
    };
    let metas = match attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) {
        Ok(metas) => metas,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let seen: Vec<&Variant> = earlier.iter().flat_map(|m| &m.variants).collect();
    let empty = metas.is_empty();
    let mut list = VariantList::new(Some((index, &m.ident)));
    let (mut lane_blocks, mut lane_blocks_seen) = (None, false);
    for meta in metas {
        let meta = match meta {
            Meta::NameValue(nv) if nv.path.is_ident(LANE_BLOCKS) => {
                lane_blocks = lane_blocks_of(&nv, lane_blocks_seen, errors).or(lane_blocks);
                lane_blocks_seen = true;
                continue;
            }
            other => other,
        };
        if let Some(other) = list.item(meta, &seen, errors) {
            errors.push(syn::Error::new_spanned(
                other,
                format!(
                    "expected a variant name ({}), axes (`policy(...)`, `form(...)`, `lanes(...)`, `unroll(...)`) or `{LANE_BLOCKS} = N`",
                    Policy::allowed()
                ),
            ));
        }
    }
    let (mut variants, axes) = list.finish(&seen, errors);
    for v in &mut variants {
        v.lane_blocks = lane_blocks.unwrap_or(1);
    }
    if empty {
        errors.push(syn::Error::new_spanned(
            attr,
            format!(
                "a `#[method]` names its variants: e.g. `#[method({})]`",
                Policy::allowed()
            ),
        ));
    }
    let mut own = Names::default();
    for item in items {
        match item {
            Item::Static(s) => errors.push(syn::Error::new_spanned(
                &s.ident,
                "a `static` in a `#[method]` module would exist once per variant: put it in the enclosing module, where it exists once",
            )),
            Item::Mod(inner) if Marker::Method.on(&inner.attrs) => {
                errors.push(syn::Error::new_spanned(
                    &inner.ident,
                    "`#[method]` modules do not nest: put this one beside the other",
                ))
            }
            _ => {}
        }
        own.collect(item);
    }
    for r in own.rounds {
        if !names.rounds.contains(&r) {
            names.rounds.push(r);
        }
    }
    Some(Method {
        ident: m.ident.clone(),
        items: items.clone(),
        variants,
        axes,
        marked: own.marked,
    })
}

/// Items kept once in the parent module rather than copied into each variant.
fn is_shared(item: &Item) -> bool {
    match item {
        Item::Use(_) | Item::Static(_) | Item::Const(_) | Item::ExternCrate(_) => true,
        Item::Macro(m) => m.ident.is_some(), // `macro_rules! name { ... }`
        _ => false,
    }
}

/// The tokens of an item's head (`fn name(...)`, `struct Name`), so that an
/// error on a wrongly annotated item does not underline its whole body.
fn item_head(item: &Item) -> TokenStream {
    use quote::ToTokens;
    match item {
        Item::Fn(f) => f.sig.to_token_stream(),
        Item::Struct(s) => s.ident.to_token_stream(),
        Item::Enum(e) => e.ident.to_token_stream(),
        Item::Trait(t) => t.ident.to_token_stream(),
        Item::Impl(i) => i.self_ty.to_token_stream(),
        other => other.to_token_stream(),
    }
}
