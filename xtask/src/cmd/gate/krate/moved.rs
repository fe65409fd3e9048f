//! What moved on the hot path between the base revision and the head: the
//! functions `inlinelab_crypt` reaches out of line in one artifact and not
//! in the other (the sizer's call graph, `build/code.rs`, with full
//! demangled paths). A function the head reaches and the base does not was
//! inlined at base (or is new) and is a call now: block-ciphers#598's
//! shape; the other way, it was a call and is inlined now. Names are
//! compared as a multiset: a generic function's instances share its name.

use crate::env::escape::{md_code, md_text};
use std::collections::HashMap;

/// One function out of line on one side only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moving {
    /// Its demangled path in full.
    pub name: String,
    /// Its bytes where it is out of line.
    pub bytes: u64,
}

/// The functions that moved, each list in its side's walk order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Moved {
    /// Out of line at head and not at base: stopped being inlined.
    pub outlined: Vec<Moving>,
    /// Out of line at base and not at head: inlined now.
    pub inlined: Vec<Moving>,
}

/// What moved from `base` to `head` (each a hot path's functions, full
/// name and bytes, in walk order).
pub fn moved(base: &[(String, u64)], head: &[(String, u64)]) -> Moved {
    Moved {
        outlined: only_in(head, base),
        inlined: only_in(base, head),
    }
}

/// The functions of `a` beyond as many of the same name as `b` has.
fn only_in(a: &[(String, u64)], b: &[(String, u64)]) -> Vec<Moving> {
    let mut left: HashMap<&str, usize> = HashMap::new();
    for (name, _) in b {
        *left.entry(name.as_str()).or_default() += 1;
    }
    let mut out = Vec::new();
    for (name, bytes) in a {
        match left.get_mut(name.as_str()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(Moving {
                name: name.clone(),
                bytes: *bytes,
            }),
        }
    }
    out
}

/// One counted case's instructions per operation at base and at head.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseCount {
    /// `ecb(aes) encrypt 128-bit`, `ecb(aes) setkey 128-bit`.
    pub case: String,
    /// Bytes per operation (0 for key setup).
    pub bytes: usize,
    pub base: f64,
    pub head: f64,
}

/// The comment's first line when functions stopped being inlined (`None`
/// when none did): their full paths, then the change of instructions per
/// operation in every case that changed, the sizes of one mode, direction
/// and key length together (`16/1424/8192 B +81.0%/+95.1%/+95.3%`), and
/// how many did not.
pub fn first_line(moved: &Moved, base: &str, counts: &[CaseCount]) -> Option<String> {
    if moved.outlined.is_empty() {
        return None;
    }
    let names: Vec<String> = (moved.outlined.iter()).map(|m| md_code(&m.name)).collect();
    let mut groups: Vec<(&str, Vec<&CaseCount>)> = Vec::new();
    let mut unchanged = 0;
    for c in counts {
        if c.base == c.head {
            unchanged += 1;
            continue;
        }
        match groups.iter_mut().find(|(case, _)| *case == c.case) {
            Some((_, list)) => list.push(c),
            None => groups.push((&c.case, vec![c])),
        }
    }
    let figures: Vec<String> = (groups.iter())
        .map(|(case, list)| {
            let change = |c: &&CaseCount| format!("{:+.1}%", (c.head / c.base - 1.0) * 100.0);
            let changes: Vec<String> = list.iter().map(change).collect();
            let sizes: Vec<String> = (list.iter())
                .filter(|c| c.bytes > 0)
                .map(|c| c.bytes.to_string())
                .collect();
            let sizes = if sizes.is_empty() {
                String::new()
            } else {
                format!(" {} B", sizes.join("/"))
            };
            format!("{}{sizes} {}", md_text(case), changes.join("/"))
        })
        .collect();
    let tail = match (figures.is_empty(), unchanged) {
        (true, _) => "no case changed".to_string(),
        (false, 0) => figures.join("; "),
        (false, n) => format!("{}; {n} case(s) unchanged", figures.join("; ")),
    };
    Some(format!(
        "**Stopped being inlined** (inlined into the hot path at {}, a call at head): {}. Instructions per operation, base to head: {tail}.",
        md_code(base),
        names.join(", ")
    ))
}

/// The comment's section on what moved: both directions, full paths with
/// their bytes; `None` when nothing did.
pub fn section(moved: &Moved, base: &str) -> Option<String> {
    if moved.outlined.is_empty() && moved.inlined.is_empty() {
        return None;
    }
    let mut md = String::from("### What moved on the hot path\n\n");
    let list = |md: &mut String, title: String, items: &[Moving]| {
        if items.is_empty() {
            return;
        }
        md.push_str(&format!("{title} ({}):\n\n", items.len()));
        for m in items {
            md.push_str(&format!("- {} ({} bytes)\n", md_code(&m.name), m.bytes));
        }
        md.push('\n');
    };
    list(
        &mut md,
        format!(
            "Inlined at {}, a call at head (out of line now, or new)",
            md_code(base)
        ),
        &moved.outlined,
    );
    list(
        &mut md,
        format!("A call at {}, inlined at head (or gone)", md_code(base)),
        &moved.inlined,
    );
    Some(md)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(names: &[&str]) -> Vec<(String, u64)> {
        names.iter().map(|n| (n.to_string(), 100)).collect()
    }

    /// A function out of line at head only stopped being inlined; one out
    /// of line at base only is inlined now; a generic function's instances
    /// are counted, not merged.
    #[test]
    fn both_directions_and_instances() {
        let base = walk(&["inlinelab_crypt", "cipher::helper", "aes::soft::f"]);
        let head = walk(&[
            "inlinelab_crypt",
            "cipher::helper",
            "cipher::helper",
            "aes::ni::encdec::encrypt1",
        ]);
        let m = moved(&base, &head);
        let names = |v: &[Moving]| v.iter().map(|m| m.name.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(&m.outlined),
            ["cipher::helper", "aes::ni::encdec::encrypt1"]
        );
        assert_eq!(names(&m.inlined), ["aes::soft::f"]);
        assert_eq!(moved(&base, &base), Moved::default());
    }

    /// The first line names the functions in full and gives every changed
    /// case, a mode's sizes together, and how many did not change.
    #[test]
    fn the_first_line_names_them_with_the_change_per_case() {
        let m = Moved {
            outlined: vec![Moving {
                name: "gatecipher::rounds::round".into(),
                bytes: 300,
            }],
            inlined: Vec::new(),
        };
        let case = |case: &str, bytes, base, head| CaseCount {
            case: case.into(),
            bytes,
            base,
            head,
        };
        let counts = [
            case("ecb(g) encrypt 128-bit", 16, 100.0, 150.0),
            case("ecb(g) encrypt 128-bit", 1424, 1000.0, 1200.0),
            case("ecb(g) decrypt 128-bit", 16, 100.0, 100.0),
            case("ecb(g) setkey 128-bit", 0, 50.0, 55.0),
        ];
        let line = first_line(&m, "HEAD~1", &counts).unwrap();
        assert!(!line.contains('\n'), "{line}");
        assert!(line.contains("`gatecipher::rounds::round`"), "{line}");
        assert!(
            line.contains("ecb(g) encrypt 128-bit 16/1424 B +50.0%/+20.0%"),
            "{line}"
        );
        assert!(line.contains("ecb(g) setkey 128-bit +10.0%"), "{line}");
        assert!(line.contains("1 case(s) unchanged"), "{line}");
        assert!(line.contains("at `HEAD~1`"), "{line}");
        assert_eq!(first_line(&Moved::default(), "HEAD~1", &counts), None);
    }

    /// A name that could break out of its code span, or its line, stays
    /// in it.
    #[test]
    fn names_reach_markdown_escaped() {
        let m = Moved {
            outlined: Vec::new(),
            inlined: vec![Moving {
                name: "x::`y`\n# z".into(),
                bytes: 1,
            }],
        };
        let md = section(&m, "main").unwrap();
        assert!(md.contains("- ``x::`y` # z`` (1 bytes)\n"), "{md}");
        assert!(
            !md.lines().any(|l| l.starts_with('#') && l.contains('z')),
            "{md}"
        );
    }
}
