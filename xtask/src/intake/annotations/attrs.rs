//! One attribute, `#[..]` or `#![..]`, read for what the scanner needs:
//! inline attributes (also inside `cfg_attr`, nested or beside others),
//! `cfg`, and `path`, each with the bytes an edit would change.

use super::cfg::Pred;
use super::lex::{self, Source, is_ident, is_punct};
use proc_macro2::{Delimiter, TokenTree};
use std::ops::Range;

/// An inline attribute's argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Attr {
    /// `#[inline]`
    Inline,
    /// `#[inline(always)]`
    Always,
    /// `#[inline(never)]`
    Never,
}

impl Attr {
    /// The attribute's text inside `#[..]`: `inline`, `inline(always)`.
    pub fn meta(self) -> &'static str {
        match self {
            Attr::Inline => "inline",
            Attr::Always => "inline(always)",
            Attr::Never => "inline(never)",
        }
    }
}

/// What one meta of an attribute is, once `cfg_attr`s are unwrapped.
#[derive(Clone, Debug)]
pub(super) enum Meta {
    Inline(Attr),
    Cfg(Pred),
    Path(String),
    /// `target_feature(enable = ..)`: rustc refuses `inline(always)` on
    /// such a function.
    TargetFeature,
    Other,
}

/// One meta of an attribute with the conditions of the `cfg_attr`s around
/// it (outermost first) and its bytes.
#[derive(Clone, Debug)]
pub(super) struct Effective {
    pub meta: Meta,
    pub conds: Vec<Pred>,
    /// The meta's own text (`inline(always)`).
    pub meta_range: Range<usize>,
    /// What to blank to remove it: the whole `#[..]` when nothing else is
    /// left in it, else the meta (or the innermost `cfg_attr` holding only
    /// it) and one comma beside it.
    pub removal: Range<usize>,
}

/// One `#[..]` or `#![..]`.
#[derive(Clone, Debug)]
pub(super) struct Site {
    /// From `#` to `]`.
    pub range: Range<usize>,
    pub line: usize,
    /// 1-based, in chars.
    pub column: usize,
    pub metas: Vec<Effective>,
}

impl Site {
    /// The condition this attribute puts on its item: each `cfg(P)`, and
    /// `cfg_attr(A, cfg(P))` as `any(not(A), P)`.
    pub fn item_conds(&self) -> Vec<Pred> {
        self.metas
            .iter()
            .filter_map(|e| match &e.meta {
                Meta::Cfg(p) if e.conds.is_empty() => Some(p.clone()),
                Meta::Cfg(p) => Some(Pred::Any(vec![
                    Pred::all(e.conds.iter().cloned()).negate(),
                    p.clone(),
                ])),
                _ => None,
            })
            .collect()
    }

    /// Whether it says `target_feature(..)` (under any `cfg_attr`).
    pub fn target_feature(&self) -> bool {
        self.metas
            .iter()
            .any(|e| matches!(e.meta, Meta::TargetFeature))
    }

    /// The `#[path = ".."]` value, if any.
    pub fn path(&self) -> Option<&str> {
        self.metas.iter().find_map(|e| match &e.meta {
            Meta::Path(p) => Some(p.as_str()),
            _ => None,
        })
    }
}

/// The attribute starting at `tokens[at]` (`#` then `[..]`, or `#`, `!`,
/// `[..]`): the site and how many tokens it takes, `inner` saying which.
pub(super) fn at(source: &Source, tokens: &[TokenTree], at: usize) -> Option<(Site, usize, bool)> {
    if !is_punct(tokens.get(at), '#') {
        return None;
    }
    let (inner, bracket) = if is_punct(tokens.get(at + 1), '!') {
        (true, at + 2)
    } else {
        (false, at + 1)
    };
    let body = lex::group(tokens.get(bracket), Delimiter::Bracket)?;
    let range = source.range_of(&tokens[at..=bracket]);
    let start = tokens[at].span().start();
    let mut metas = Vec::new();
    read_meta(source, &body, &[], range.clone(), &mut metas);
    let site = Site {
        range,
        line: start.line,
        column: start.column + 1,
        metas,
    };
    Some((site, bracket + 1 - at, inner))
}

/// Reads one meta (`inline`, `cfg(..)`, `cfg_attr(P, a, b)`, ...),
/// pushing what it holds; `removal` is what to blank if it alone goes.
fn read_meta(
    source: &Source,
    tokens: &[TokenTree],
    conds: &[Pred],
    removal: Range<usize>,
    out: &mut Vec<Effective>,
) {
    let meta_range = source.range_of(tokens);
    let args = lex::group(tokens.get(1), Delimiter::Parenthesis);
    let push = |meta, out: &mut Vec<Effective>| {
        out.push(Effective {
            meta,
            conds: conds.to_vec(),
            meta_range: meta_range.clone(),
            removal: removal.clone(),
        })
    };
    if is_ident(tokens.first(), "inline") {
        let attr = match (tokens.len(), args.as_deref()) {
            (1, _) => Some(Attr::Inline),
            (2, Some([TokenTree::Ident(arg)])) if arg == "always" => Some(Attr::Always),
            (2, Some([TokenTree::Ident(arg)])) if arg == "never" => Some(Attr::Never),
            _ => None,
        };
        push(attr.map_or(Meta::Other, Meta::Inline), out);
    } else if is_ident(tokens.first(), "cfg") && tokens.len() == 2 {
        match args {
            Some(args) => push(Meta::Cfg(Pred::parse(&args)), out),
            None => push(Meta::Other, out),
        }
    } else if is_ident(tokens.first(), "target_feature") {
        push(Meta::TargetFeature, out);
    } else if is_ident(tokens.first(), "path") && is_punct(tokens.get(1), '=') {
        match lex::string_value(tokens.get(2)) {
            Some(path) => push(Meta::Path(path), out),
            None => push(Meta::Other, out),
        }
    } else if is_ident(tokens.first(), "cfg_attr") && tokens.len() == 2 {
        let Some(args) = args else {
            return push(Meta::Other, out);
        };
        let parts = lex::split_commas(&args);
        let Some((pred, attrs)) = parts.split_first() else {
            return push(Meta::Other, out);
        };
        let mut conds = conds.to_vec();
        conds.push(Pred::parse(pred));
        let attrs: Vec<&[TokenTree]> = attrs.iter().copied().filter(|a| !a.is_empty()).collect();
        for (i, attr) in attrs.iter().enumerate() {
            let own = if attrs.len() == 1 {
                removal.clone()
            } else {
                with_comma(source, &args, attr, i + 1 == attrs.len())
            };
            read_meta(source, attr, &conds, own, out);
        }
    } else {
        push(Meta::Other, out);
    }
}

/// The bytes of `part` (one of `all`'s comma-separated parts) with the comma
/// after it, or, for the last part, with the comma before it (so that
/// `cfg_attr(P, cold, inline)` loses `, inline`).
fn with_comma(source: &Source, all: &[TokenTree], part: &[TokenTree], last: bool) -> Range<usize> {
    let own = source.range_of(part);
    let commas: Vec<Range<usize>> = all
        .iter()
        .filter(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .map(|t| source.range(t.span()))
        .collect();
    let after = commas.iter().find(|c| c.start >= own.end);
    let before = commas.iter().rev().find(|c| c.end <= own.start);
    match (last, after, before) {
        (false, Some(after), _) => own.start..after.end,
        (true, _, Some(before)) => before.start..own.end,
        (_, Some(after), _) => own.start..after.end,
        _ => own,
    }
}
