//! The crate's modules import only downward: each module of `src/lib.rs`
//! names in its code (comments aside) only the crate root and modules
//! declared before it in `lib.rs`, and each file of a module folder only
//! its siblings declared before it in the folder's `mod.rs`. So no two
//! files import each other, directly or round a circle.

use std::path::{Path, PathBuf};

/// The modules a `mod.rs` or `lib.rs` declares, in order.
fn declared(parent: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(parent).expect("the parent module reads");
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            l.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_string)
        })
        .collect()
}

/// The Rust files of module `name` in `dir`: `name.rs`, or every file
/// under `name/`.
fn files(dir: &Path, name: &str) -> Vec<PathBuf> {
    let single = dir.join(format!("{name}.rs"));
    if single.is_file() {
        return vec![single];
    }
    let mut out = Vec::new();
    let mut stack = vec![dir.join(name)];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("a module folder reads") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The names that follow `prefix` (`crate::`, `super::`) in `path`'s code,
/// comment lines left out.
fn named_after(path: &Path, prefix: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("a source file reads");
    let mut names = Vec::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut rest = line;
        while let Some(i) = rest.find(prefix) {
            rest = &rest[i + prefix.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            names.push(name);
        }
    }
    names
}

/// Every import of a module declared at or after its own place in
/// `order`, as `file -> module`.
fn upward(files_of: &[(usize, Vec<PathBuf>)], order: &[String], prefix: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for (own, files) in files_of {
        for file in files {
            for name in named_after(file, prefix) {
                if order.iter().position(|m| *m == name) > Some(*own) {
                    bad.push(format!("{} -> {name}", file.display()));
                }
            }
        }
    }
    bad
}

#[test]
fn modules_import_only_those_declared_before_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let order = declared(&src.join("lib.rs"));
    assert!(
        order.len() > 10,
        "lib.rs declares the crate's modules: {order:?}"
    );
    let top: Vec<(usize, Vec<PathBuf>)> = (order.iter().enumerate())
        .map(|(i, m)| (i, files(&src, m)))
        .collect();
    let mut bad = upward(&top, &order, "crate::");
    // Inside a folder, between the children of its `mod.rs`.
    for m in &order {
        let folder = src.join(m);
        if !folder.join("mod.rs").is_file() {
            continue;
        }
        let children = declared(&folder.join("mod.rs"));
        let kids: Vec<(usize, Vec<PathBuf>)> = (children.iter().enumerate())
            .map(|(i, c)| (i, files(&folder, c)))
            .collect();
        bad.extend(upward(&kids, &children, "super::"));
    }
    assert!(bad.is_empty(), "imports that do not go down: {bad:#?}");
}
