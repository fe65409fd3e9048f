//! Modules import only downward. In `xtask/src`, each folder imports only
//! the folders below it in the order ARCHITECTURE.md writes (so no two
//! folders import each other, directly or round a ring); in `xtask/src`,
//! `codegen/src` and `bench-harness/src`, no two files import each other,
//! directly or round a ring. Imports are read with `syn` (`layers/`): every
//! `use` and every path in code, `crate::report::Report` inside an
//! expression too. A `mod x;` declaration is containment, not an import, so
//! a `tests` child's `use super::*` is fine.

use crate::common::root;

mod cycles;
mod imports;

use cycles::{Graph, circles};
use imports::{Crate, Import};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// ARCHITECTURE.md's order of the folders of `xtask/src`, bottom to top:
/// the numbered list after the line that says "bottom to top", one
/// `` `NAME/` `` first on each item.
fn written_order() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mut lines = text.lines().skip_while(|l| !l.contains("bottom to top"));
    lines
        .next()
        .expect("ARCHITECTURE.md writes the folders bottom to top");
    lines
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let (n, rest) = l.trim().split_once(". ")?;
            n.parse::<u32>().ok()?;
            let name = rest.split('`').nth(1)?;
            Some(name.strip_suffix('/')?.to_string())
        })
        .collect()
}

/// What `file` is, relative to the workspace.
fn shown(file: &Path) -> String {
    let root = root();
    file.strip_prefix(&root)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// The folder of `xtask/src` a file is in, if it is in one.
fn folder(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts = rel.components();
    let first = parts.next()?;
    parts.next()?;
    Some(first.as_os_str().to_string_lossy().into_owned())
}

/// Each edge's first evidence, `a -> b` to the path that made it.
fn evidence<N: Ord + Clone>(imports: &[(N, N, &Import)]) -> BTreeMap<(N, N), String> {
    let mut out = BTreeMap::new();
    for (a, b, i) in imports {
        out.entry((a.clone(), b.clone()))
            .or_insert_with(|| format!("{} names {} ({})", shown(&i.from), i.path, shown(&i.to)));
    }
    out
}

/// A ring in words: its members, one circle through them and each step's
/// path.
fn circle_in_words<N: Ord + Clone + std::fmt::Display>(
    (members, circle): &(BTreeSet<N>, Vec<N>),
    why: &BTreeMap<(N, N), String>,
) -> String {
    let members = (members.iter().map(ToString::to_string))
        .collect::<Vec<_>>()
        .join(", ");
    let ring = (circle.iter().map(ToString::to_string))
        .collect::<Vec<_>>()
        .join(" -> ");
    let steps = circle
        .windows(2)
        .map(|w| format!("\n    {}", why[&(w[0].clone(), w[1].clone())]))
        .collect::<String>();
    format!("{ring}{steps}\n  (the ring: {members})")
}

/// Every circle among the files of the crate rooted at `root`.
fn file_circles(root: &Path) -> Vec<String> {
    let krate = Crate::read(root);
    let imports = krate.imports();
    let mut graph: Graph<String> = krate
        .files()
        .iter()
        .map(|f| (shown(f), Default::default()))
        .collect();
    let mut edges = Vec::new();
    for i in &imports {
        let (a, b) = (shown(&i.from), shown(&i.to));
        graph.entry(a.clone()).or_default().insert(b.clone());
        edges.push((a, b, i));
    }
    let why = evidence(&edges);
    circles(&graph)
        .iter()
        .map(|c| circle_in_words(c, &why))
        .collect()
}

#[test]
fn no_two_files_import_each_other() {
    let root = root();
    let mut found = Vec::new();
    for krate in [
        "xtask/src/main.rs",
        "codegen/src/lib.rs",
        "bench-harness/src/lib.rs",
        "bench-harness/src/bin/tcrypt.rs",
        "xtask/src/bin/under-valgrind.rs",
    ] {
        found.extend(file_circles(&root.join(krate)));
    }
    assert!(
        found.is_empty(),
        "files that import each other (a -> b: a imports b):\n{}",
        found.join("\n")
    );
}

#[test]
fn xtask_folders_import_only_downward() {
    let src = root().join("xtask/src");
    let order = written_order();
    // `bin/` holds another binary's root (`under-valgrind`), not a module
    // of `main.rs`: no layer.
    let mut here: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir() && e.file_name() != "bin")
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    here.sort();
    let mut written = order.clone();
    written.sort();
    assert_eq!(
        written, here,
        "ARCHITECTURE.md's order of the folders of xtask/src, bottom to top, names each folder once"
    );
    let krate = Crate::read(&src.join("main.rs"));
    let imports = krate.imports();
    let mut graph: Graph<String> = BTreeMap::new();
    let mut edges: Vec<(String, String, &Import)> = Vec::new();
    for i in &imports {
        if let (Some(a), Some(b)) = (folder(&src, &i.from), folder(&src, &i.to))
            && a != b
        {
            graph.entry(a.clone()).or_default().insert(b.clone());
            edges.push((a, b, i));
        }
    }
    let why = evidence(&edges);
    let mut bad: Vec<String> = circles(&graph)
        .iter()
        .map(|c| format!("folders in a ring: {}", circle_in_words(c, &why)))
        .collect();
    let place = |f: &str| order.iter().position(|o| o == f);
    for ((a, b), w) in &why {
        if place(b) > place(a) {
            bad.push(format!("{a}/ imports {b}/, which is above it: {w}"));
        }
    }
    assert!(
        bad.is_empty(),
        "the order bottom to top is {order:?}; imports against it:\n{}",
        bad.join("\n")
    );
}
