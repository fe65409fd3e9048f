//! The variants of a crate: its inline attributes edited, each variant a
//! list of edits of a copy (`annotations::Edit`), named for what it
//! changed. Whole-crate policies (`none`, `inline`, `always`, `never`) and
//! one attribute at a time (`drop_N` removes the crate's N-th attribute,
//! `never_N` turns an `always` into `never`), N counting the attributes a
//! build for this target compiles, in the order the module tree reaches
//! them (the report's table lists them with their file and line).

use crate::intake::annotations::{Annotation, Attr, Cfg, Edit, Function, Scan};

/// The reference: the crate as published, no edit.
pub const PUBLISHED: &str = "published";

/// What one variant changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing: the crate as published.
    Published,
    /// Every inline attribute removed.
    None,
    /// Every function given this attribute (an attribute written
    /// replaced by it, one added where there is none).
    Every(Attr),
    /// The attribute (an index into [`Scan::annotations`]) removed.
    Drop(usize),
    /// The attribute set to another.
    Set(usize, Attr),
    /// `#[inline(always)]` given to a function (an index into
    /// [`Scan::functions`]) that the published build leaves out of line on
    /// the hot path: its attribute set to `always`, or one added.
    Always(usize),
    /// Several of the above at once (`suggested`: what each one-at-a-time
    /// variant showed, settled together); where one gives a function
    /// `always` and another removes its attribute, `always` stays.
    Combined(Vec<Change>),
    /// Of `of`'s edits, those at the indices `kept` (into [`edits`] of
    /// `of`, in its order): a set with the edits no build reaches left out
    /// ([`reached`]).
    Only { of: Box<Change>, kept: Vec<usize> },
    /// `change` made to a dependency's copy instead (`--also`: `dep` an
    /// index into the taken crate's dependencies), the crate itself as
    /// published: the crate's own [`edits`] of it are none.
    Dependency { dep: usize, change: Box<Change> },
}

impl Change {
    /// The dependency this change edits (an index into the taken crate's
    /// `--also` dependencies) and its change there; `None` for a change of
    /// the crate itself.
    pub fn dependency(&self) -> Option<(usize, &Change)> {
        match self {
            Change::Dependency { dep, change } => Some((*dep, change)),
            _ => None,
        }
    }
}

/// One variant: its name and change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub name: String,
    pub change: Change,
}

/// The attributes a build for `cfg` compiles, with their index in the
/// scan, numbered from 1 in that order.
pub fn numbered<'a>(scan: &'a Scan, cfg: &'a Cfg) -> Vec<(usize, &'a Annotation)> {
    (scan.annotations.iter().enumerate())
        .filter(|(_, a)| a.applies(cfg))
        .collect()
}

/// Every variant of the crate scanned as `scan` for `cfg`: `published`
/// first (the reference), the whole-crate policies, one attribute at a
/// time, then `add_K`: `always` for each function of `hot` (indices into
/// [`Scan::functions`], the published build's out-of-line hot functions).
pub fn variants(scan: &Scan, cfg: &Cfg, hot: &[usize]) -> Vec<Variant> {
    let mut out = vec![
        Variant {
            name: PUBLISHED.into(),
            change: Change::Published,
        },
        Variant {
            name: "none".into(),
            change: Change::None,
        },
    ];
    for (name, attr) in [
        ("inline", Attr::Inline),
        ("always", Attr::Always),
        ("never", Attr::Never),
    ] {
        out.push(Variant {
            name: name.into(),
            change: Change::Every(attr),
        });
    }
    for (n, (i, a)) in numbered(scan, cfg).into_iter().enumerate() {
        out.push(Variant {
            name: drop_name(n),
            change: Change::Drop(i),
        });
        if a.attr == Attr::Always {
            out.push(Variant {
                name: format!("never_{}", n + 1),
                change: Change::Set(i, Attr::Never),
            });
        }
    }
    for (k, &f) in hot.iter().enumerate() {
        out.push(Variant {
            name: format!("add_{}", k + 1),
            change: Change::Always(f),
        });
    }
    out
}

/// The variants of a dependency (`--also`, `dep` its index) scanned as
/// `scan` for `cfg`, named with `prefix` (`aes_never`, `aes_drop_3`): the
/// whole-crate policies and one attribute removed at a time, N counting
/// the attributes this target compiles as [`numbered`] does. No `never_N`
/// or `add_K` (the number of variants stays bounded: a dependency's hot
/// functions are not matched to its source).
pub fn dependency_variants(prefix: &str, dep: usize, scan: &Scan, cfg: &Cfg) -> Vec<Variant> {
    let of = |change: Change| Change::Dependency {
        dep,
        change: Box::new(change),
    };
    let mut out = vec![Variant {
        name: format!("{prefix}_none"),
        change: of(Change::None),
    }];
    for (name, attr) in [
        ("inline", Attr::Inline),
        ("always", Attr::Always),
        ("never", Attr::Never),
    ] {
        out.push(Variant {
            name: format!("{prefix}_{name}"),
            change: of(Change::Every(attr)),
        });
    }
    for (n, (i, _)) in numbered(scan, cfg).into_iter().enumerate() {
        out.push(Variant {
            name: format!("{prefix}_{}", drop_name(n)),
            change: of(Change::Drop(i)),
        });
    }
    out
}

/// The whole-crate policies' variant names, as [`variants`] makes them (a
/// dependency's with its prefix, [`dependency_variants`]: `aes_none`).
pub const POLICIES: [&str; 4] = ["none", "inline", "always", "never"];

/// The name of the variant that removes the `n`-th (from 0) attribute
/// [`numbered`] lists: `drop_1` for the first.
pub fn drop_name(n: usize) -> String {
    format!("drop_{}", n + 1)
}

/// The edits that make `change` of the crate scanned as `scan`.
pub fn edits<'a>(scan: &'a Scan, cfg: &Cfg, change: &Change) -> Vec<Edit<'a>> {
    let applying = |a: &&Annotation| a.applies(cfg);
    match change {
        Change::Published | Change::Dependency { .. } => Vec::new(),
        Change::None => scan
            .annotations
            .iter()
            .filter(applying)
            .map(Edit::Remove)
            .collect(),
        Change::Every(attr) => {
            let mut edits = Vec::new();
            // rustc refuses `always` on a `#[target_feature]` function:
            // those keep what they have ([`skipped`] says so).
            let allowed =
                |f: &&Function| f.applies(cfg) && !(*attr == Attr::Always && f.target_feature);
            for f in scan.functions.iter().filter(allowed) {
                let own: Vec<&Annotation> = (f.annotations.iter())
                    .map(|&i| &scan.annotations[i])
                    .filter(applying)
                    .collect();
                if own.is_empty() {
                    edits.push(Edit::Add(f, *attr, f.annotations.len()));
                } else {
                    edits.extend(
                        own.into_iter()
                            .filter(|a| a.attr != *attr)
                            .map(|a| Edit::Set(a, *attr)),
                    );
                }
            }
            edits
        }
        Change::Drop(i) => vec![Edit::Remove(&scan.annotations[*i])],
        Change::Set(i, attr) => vec![Edit::Set(&scan.annotations[*i], *attr)],
        Change::Always(f) => {
            let f = &scan.functions[*f];
            let own: Vec<&Annotation> = (f.annotations.iter())
                .map(|&i| &scan.annotations[i])
                .filter(applying)
                .collect();
            match own.as_slice() {
                [] => vec![Edit::Add(f, Attr::Always, f.annotations.len())],
                own => own.iter().map(|a| Edit::Set(a, Attr::Always)).collect(),
            }
        }
        Change::Only { of, kept } => (edits(scan, cfg, of).into_iter().enumerate())
            .filter(|(i, _)| kept.contains(i))
            .map(|(_, e)| e)
            .collect(),
        Change::Combined(parts) => {
            // One edit per attribute or function: a later part's edit
            // replaces an earlier one's (the evidence after a policy),
            // except that a removal never replaces a setting (`always`
            // stays).
            let mut out: Vec<Edit> = Vec::new();
            for e in parts.iter().flat_map(|c| edits(scan, cfg, c)) {
                match out.iter().position(|o| same_target(o, &e)) {
                    Some(i) if matches!(e, Edit::Remove(_)) && matches!(out[i], Edit::Set(..)) => {}
                    Some(i) => out[i] = e,
                    None => out.push(e),
                }
            }
            out
        }
    }
}

/// Whether two edits change the same attribute, or add to the same
/// function.
fn same_target(a: &Edit, b: &Edit) -> bool {
    match (a, b) {
        (Edit::Remove(x) | Edit::Set(x, _), Edit::Remove(y) | Edit::Set(y, _)) => {
            std::ptr::eq(*x, *y)
        }
        (Edit::Add(f, ..), Edit::Add(g, ..)) => std::ptr::eq(*f, *g),
        _ => false,
    }
}

/// What a change leaves as it is, and why: the `#[target_feature]`
/// functions `always` cannot be given.
pub fn skipped(scan: &Scan, cfg: &Cfg, change: &Change) -> Vec<String> {
    match change {
        Change::Only { of, .. } => skipped(scan, cfg, of),
        Change::Every(Attr::Always) => (scan.functions.iter())
            .filter(|f| f.applies(cfg) && f.target_feature)
            .map(|f| f.path.clone())
            .collect(),
        _ => Vec::new(),
    }
}

/// The indices of the `edits` (of the crate scanned as `scan`) that touch
/// a function a build may reach: one that some name of `reached` (the
/// functions the builds' inlining remarks name as callee or caller, and
/// their hot paths' symbols, demangled or shortened) may be ([`may_be`]),
/// and every one this reader cannot name for sure: an attribute on no
/// function, a function in a `macro_rules!` body (written once, compiled
/// once per invocation under other names) or named by a metavariable. An
/// edit left out touches a function no call in those builds reaches;
/// whether leaving it out changes nothing is for a build of the set
/// without it to show.
pub fn reached<'a>(scan: &'a Scan, edits: &[Edit<'a>], reached: &[String]) -> Vec<usize> {
    fn function<'a>(scan: &'a Scan, e: &Edit<'a>) -> Option<&'a Function> {
        match e {
            Edit::Remove(a) | Edit::Set(a, _) => a.function_index.map(|i| &scan.functions[i]),
            Edit::Add(f, ..) => Some(*f),
        }
    }
    let ident = |n: &str| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_');
    (edits.iter().enumerate())
        .filter(|(_, e)| match function(scan, e) {
            None => true,
            Some(f) => {
                f.place.in_macro_body
                    || !ident(&f.name)
                    || reached.iter().any(|n| may_be(&f.path, n))
            }
        })
        .map(|(i, _)| i)
        .collect()
}

/// The functions a build reaches, as its inlining remarks (`calls`,
/// caller and callee) and its hot path (`hot`) name them: from every
/// caller that may be none of the crate's functions (the artifact's, the
/// traits' generic code, which call into the crate) and every function on
/// the hot path, each callee of a call whose caller is reached. A caller
/// no reached function calls (a `Display::fmt` LLVM compiled and inlined
/// into, never called but through the formatting machinery's pointers) is
/// not reached.
pub fn reachable(scan: &Scan, calls: &[(String, String)], hot: &[String]) -> Vec<String> {
    let own = |n: &str| scan.functions.iter().any(|f| may_be(&f.path, n));
    let mut reached: Vec<String> = hot.to_vec();
    for (caller, _) in calls {
        if !reached.contains(caller) && !own(caller) {
            reached.push(caller.clone());
        }
    }
    loop {
        let before = reached.len();
        for (caller, callee) in calls {
            if reached.contains(caller) && !reached.contains(callee) {
                reached.push(callee.clone());
            }
        }
        if reached.len() == before {
            return reached;
        }
    }
}

/// Whether the symbol or remark's function `name` may be the function at
/// `path` (as [`Annotation::path`]): the same last segment and, for a
/// trait's method (`<Aligned130 as fmt::Display>::fmt`), the type's and
/// the trait's names among its words (generic arguments, which the source
/// and the symbol spell differently, not compared). Never false for the
/// function it is; true for some it is not (two `State::new`s).
pub fn may_be(path: &str, name: &str) -> bool {
    if last_segment(path) != last_segment(name) {
        return false;
    }
    let Some((ty, tr)) = trait_impl(path) else {
        return true;
    };
    let words: Vec<&str> = (name.split(|c: char| !(c.is_alphanumeric() || c == '_')))
        .filter(|w| !w.is_empty())
        .collect();
    words.contains(&ty) && words.contains(&tr)
}

/// The type's and the trait's names of a trait method's path
/// (`Aligned130` and `Display` of `m::<Aligned130 as fmt::Display>::fmt`),
/// `None` for any other function.
fn trait_impl(path: &str) -> Option<(&str, &str)> {
    let head = path.strip_suffix(last_segment(path))?.strip_suffix("::")?;
    let close = head.strip_suffix('>')?;
    let mut depth = 0usize;
    let mut open = None;
    for (i, c) in close.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' if depth == 0 => {
                open = Some(i);
                break;
            }
            '<' => depth -= 1,
            _ => {}
        }
    }
    let inner = &close[open? + 1..];
    let (ty, tr) = inner.split_once(" as ")?;
    fn base(s: &str) -> Option<&str> {
        let s = s.split('<').next()?.trim();
        let last = s.rsplit("::").next()?;
        let last = last
            .trim_start_matches(['&', ' '])
            .trim_start_matches("dyn ");
        (!last.is_empty()).then_some(last)
    }
    Some((base(ty)?, base(tr)?))
}

/// The functions of `scan` that the demangled hot-path symbols `hot` name
/// (those of the crate `lib`, out of line in the published build), each
/// once, in the order of `hot`; `#[target_feature]` functions are left out
/// (rustc refuses them `always`), and a symbol that names no function, or
/// several equally well, is left out with why.
pub fn out_of_line(scan: &Scan, cfg: &Cfg, lib: &str, hot: &[String]) -> (Vec<usize>, Vec<String>) {
    let mut found = Vec::new();
    let mut unmatched = Vec::new();
    for symbol in hot {
        let own = symbol.trim_start_matches('<');
        if !own.starts_with(&format!("{lib}::")) || symbol.contains("{{closure}}") {
            continue;
        }
        let name = last_segment(symbol);
        let words: Vec<&str> = symbol
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        let score = |f: &Function| {
            (f.path.split(|c: char| !(c.is_alphanumeric() || c == '_')))
                .filter(|w| !w.is_empty() && words.contains(w))
                .count()
        };
        let candidates: Vec<&Function> = (scan.functions.iter())
            .filter(|f| f.name == name && f.applies(cfg) && !f.target_feature)
            .collect();
        let best = candidates.iter().map(|f| score(f)).max();
        let top: Vec<&&Function> = candidates
            .iter()
            .filter(|f| Some(score(f)) == best)
            .collect();
        match top.as_slice() {
            [f] if !found.contains(&f.index) => found.push(f.index),
            [_] => {}
            [] => unmatched.push(format!("{symbol}: no function of that name in the source")),
            _ => unmatched.push(format!("{symbol}: {} functions could be it", top.len())),
        }
    }
    (found, unmatched)
}

/// `f` of `<a::B as c::D>::f` or `a::b::f` (generic arguments dropped).
fn last_segment(symbol: &str) -> &str {
    let mut depth = 0usize;
    let mut end = symbol.len();
    // Drop a trailing `<..>` (generic arguments of the function).
    for (i, c) in symbol.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    end = i;
                    break;
                }
            }
            _ if depth == 0 => break,
            _ => {}
        }
    }
    let s = symbol[..end].trim_end_matches("::");
    s.rsplit("::").next().unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// A combined change makes each part's edits, except a removal of an
    /// attribute another part sets to `always`: `always` stays.
    #[test]
    fn a_combined_change_is_its_parts_with_always_over_removal() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = "[package]\nname = \"t\"\nversion = \"0.0.0\"\nedition = \"2024\"\n";
        std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let lib = "#[inline]\npub fn a() {}\n#[inline]\npub fn b() {}\npub fn c() {}\n";
        std::fs::write(dir.path().join("src/lib.rs"), lib).unwrap();
        let cfg = Cfg::from_rustc::<&str>(None, &[]).unwrap();
        let scan = crate::intake::annotations::scan(dir.path(), &cfg).unwrap();
        let f = |name: &str| {
            (scan.functions.iter())
                .position(|f| f.name == name)
                .unwrap()
        };
        let change = Change::Combined(vec![
            Change::Drop(0),
            Change::Drop(1),
            Change::Always(f("b")),
            Change::Always(f("c")),
        ]);
        let edits = edits(&scan, &cfg, &change);
        assert_eq!(edits.len(), 3, "{edits:?}");
        crate::intake::annotations::apply_under(dir.path(), &edits).unwrap();
        let after = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
        let lines: Vec<&str> = after.lines().collect();
        assert_eq!(lines.len(), 5, "{after}");
        assert!(!lines[0].contains("inline"), "{after}");
        assert_eq!(lines[2], "#[inline(always)]", "{after}");
        assert!(
            lines[4].starts_with("#[inline(always)] pub fn c"),
            "{after}"
        );
    }

    /// An edit is kept when its function's name is reached, or when the
    /// function cannot be named for sure (in a macro body); a set of only
    /// those makes just their edits.
    #[test]
    fn edits_to_functions_no_build_reaches_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = "[package]\nname = \"t\"\nversion = \"0.0.0\"\nedition = \"2024\"\n";
        std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let lib = "#[inline]\npub fn a() {}\n#[inline]\npub fn fmt() {}\npub fn c() {}\nmacro_rules! m { ($n:ident) => { #[inline] pub fn $n() {} } }\nm!(d);\n";
        std::fs::write(dir.path().join("src/lib.rs"), lib).unwrap();
        let cfg = Cfg::from_rustc::<&str>(None, &[]).unwrap();
        let scan = crate::intake::annotations::scan(dir.path(), &cfg).unwrap();
        let always = Change::Every(Attr::Always);
        let all = edits(&scan, &cfg, &always);
        assert_eq!(all.len(), 4, "{all:?}");
        let names: Vec<String> = ["t::a", "c"].iter().map(|s| s.to_string()).collect();
        let kept = reached(&scan, &all, &names);
        // `fmt` is reached by no call: left out; the macro's function kept.
        assert_eq!(kept.len(), 3, "{kept:?}");
        let only = Change::Only {
            of: Box::new(always),
            kept: kept.clone(),
        };
        let trimmed = edits(&scan, &cfg, &only);
        assert_eq!(trimmed.len(), 3);
        crate::intake::annotations::apply_under(dir.path(), &trimmed).unwrap();
        let after = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
        let lines: Vec<&str> = after.lines().collect();
        assert_eq!(lines[0], "#[inline(always)]", "{after}");
        assert_eq!(lines[2], "#[inline]", "{after}");
        assert!(
            lines[4].starts_with("#[inline(always)] pub fn c"),
            "{after}"
        );
        assert!(lines[5].contains("#[inline(always)] pub fn $n"), "{after}");
        // Reached from a caller outside the crate or the hot path, through
        // the crate's calls; a caller no reached function calls is not.
        let calls: Vec<(String, String)> = [
            ("inlinelab_crypt", "a"),
            ("a", "c"),
            ("fmt", "c"),
            ("fmt", "d"),
        ]
        .iter()
        .map(|(x, y)| (x.to_string(), y.to_string()))
        .collect();
        let r = reachable(&scan, &calls, &["t::hot".to_string()]);
        assert_eq!(r, ["t::hot", "inlinelab_crypt", "a", "c"], "{r:?}");
        // A trait's method is its type's and trait's; generic arguments
        // are not compared.
        let fmt = "backend::helpers::<Aligned130 as fmt::Display>::fmt";
        assert!(may_be(fmt, "<Aligned130 as Display>::fmt"));
        assert!(!may_be(fmt, "<Aligned2x130 as Display>::fmt"));
        assert!(!may_be(fmt, "core::fmt::write"));
        let enc = "<Aes<RK> as BlockCipherEncBackend>::encrypt_block";
        assert!(may_be(
            enc,
            "<aes::Aes<U16> as cipher::BlockCipherEncBackend>::encrypt_block"
        ));
        assert!(may_be("backend::avx2::State::new", "new"));
        assert!(may_be(
            "helpers::<AdditionKey as Add<Aligned130>>::add::propagate_carry",
            "propagate_carry"
        ));
    }

    /// A dependency's variants are its policies and one drop per
    /// attribute compiled on this target, named with it; the crate's own
    /// edits of them are none (its copy stays as published).
    #[test]
    fn a_dependencys_variants_are_named_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = "[package]\nname = \"dep\"\nversion = \"0.0.0\"\nedition = \"2024\"\n";
        std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let lib = "#[inline]\npub fn a() {}\n#[inline(always)]\npub fn b() {}\n#[cfg(any())]\n#[inline]\npub fn c() {}\n";
        std::fs::write(dir.path().join("src/lib.rs"), lib).unwrap();
        let cfg = Cfg::from_rustc::<&str>(None, &[]).unwrap();
        let scan = crate::intake::annotations::scan(dir.path(), &cfg).unwrap();
        let all = dependency_variants("universal_hash", 1, &scan, &cfg);
        let names: Vec<&str> = all.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "universal_hash_none",
                "universal_hash_inline",
                "universal_hash_always",
                "universal_hash_never",
                "universal_hash_drop_1",
                "universal_hash_drop_2",
            ],
            "no never_N, no add_K, the attribute under cfg(any()) left out"
        );
        for v in &all {
            let (dep, change) = v.change.dependency().unwrap();
            assert_eq!(dep, 1);
            assert!(edits(&scan, &cfg, &v.change).is_empty(), "{}", v.name);
            assert!(!edits(&scan, &cfg, change).is_empty(), "{}", v.name);
            assert!(
                (v.name.chars()).all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            );
        }
        assert_eq!(
            edits(&scan, &cfg, all[5].change.dependency().unwrap().1)[0].file(),
            Path::new("src/lib.rs")
        );
    }

    #[test]
    fn the_function_a_symbol_names() {
        assert_eq!(
            super::last_segment("cast6::forward_octave"),
            "forward_octave"
        );
        assert_eq!(
            super::last_segment(
                "<cast6::Cast6 as cipher::block::BlockCipherEncBackend>::encrypt_block"
            ),
            "encrypt_block"
        );
        assert_eq!(
            super::last_segment("aes::soft::fixslice::aes128_encrypt::<u32>"),
            "aes128_encrypt"
        );
    }
}
