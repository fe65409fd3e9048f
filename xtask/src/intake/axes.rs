//! The variants of a crate: its inline attributes edited, each variant a
//! list of edits of a copy (`annotations::Edit`), named for what it
//! changed. Whole-crate policies (`none`, `inline`, `always`, `never`) and
//! one attribute at a time (`drop_N` removes the crate's N-th attribute,
//! `never_N` turns an `always` into `never`), N counting the attributes a
//! build for this target compiles, in the order the module tree reaches
//! them (the report's table lists them with their file and line).

use crate::intake::annotations::{Annotation, Attr, Cfg, Edit, Scan};

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
/// first (the reference), the whole-crate policies, then one attribute at
/// a time.
pub fn variants(scan: &Scan, cfg: &Cfg) -> Vec<Variant> {
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
            name: format!("drop_{}", n + 1),
            change: Change::Drop(i),
        });
        if a.attr == Attr::Always {
            out.push(Variant {
                name: format!("never_{}", n + 1),
                change: Change::Set(i, Attr::Never),
            });
        }
    }
    out
}

/// The edits that make `change` of the crate scanned as `scan`.
pub fn edits<'a>(scan: &'a Scan, cfg: &Cfg, change: &Change) -> Vec<Edit<'a>> {
    let applying = |a: &&Annotation| a.applies(cfg);
    match change {
        Change::Published => Vec::new(),
        Change::None => scan
            .annotations
            .iter()
            .filter(applying)
            .map(Edit::Remove)
            .collect(),
        Change::Every(attr) => {
            let mut edits = Vec::new();
            for f in scan.functions.iter().filter(|f| f.applies(cfg)) {
                let own: Vec<&Annotation> = (f.annotations.iter())
                    .map(|&i| &scan.annotations[i])
                    .filter(applying)
                    .collect();
                if own.is_empty() {
                    edits.push(Edit::Add(f, *attr));
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
    }
}
