//! What a new cipher touches (ARCHITECTURE.md, "Adding a cipher": 4 files,
//! 4 places), proven by adding one: a sixth cipher, `blowfish2`, a copy of
//! `variants/src/schneier93.rs` under a new module name with its peer left
//! as it is (two declarations naming one peer crate, `blowfish`), its tests
//! a copy of `variants/tests/blowfish.rs`, and its line in README's list.
//!
//! The fixture is the edits below ([`places`]), made to this tree's files,
//! so that it cannot drift from the tree unnoticed:
//!
//! - [`the_fixture_touches_the_places_the_doc_lists`] (every `cargo test`,
//!   milliseconds): the places are the ones the section lists, in its
//!   order, as many as it says and as many of them new files, and each edit
//!   applies to this tree (the text it changes is there, once).
//! - [`a_new_cipher_builds_and_each_place_is_checked`] (ignored: it builds
//!   `variants` and `bench-harness` with their tests in a copy of the
//!   workspace, cold the first time, minutes on two cores; run it with
//!   `cargo test -p xtask --test it -- new_cipher --ignored`): with every place
//!   the registry's tests, the new cipher's tests and the lane test pass,
//!   and an artifact of one of its variants and its peer's artifact build;
//!   without any one place, the check named with it fails.

use crate::common::{copy_tree, root};

use std::path::Path;
use std::process::Command;

fn read(root: &Path, relative: &str) -> String {
    std::fs::read_to_string(root.join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// `text` with its one `from` replaced by `to` (none or several: the
/// fixture no longer fits the tree, which is a failure).
fn once(text: &str, from: &str, to: &str, what: &str) -> String {
    let n = text.matches(from).count();
    assert_eq!(n, 1, "{what}: `{from}` found {n} times, not once");
    text.replacen(from, to, 1)
}

/// One place a new cipher touches.
struct Place {
    /// The file as ARCHITECTURE.md names it.
    doc: &'static str,
    /// The file in the fixture.
    path: &'static str,
    new: bool,
    /// The file's text with the place added, made from the tree at `root`.
    text: fn(&Path) -> String,
    /// What fails without it: a cargo command's arguments, and what its
    /// output says.
    without: (&'static [&'static str], &'static str),
}

const REGISTRY_TEST: &[&str] = &[
    "test",
    "-p",
    "bench-harness",
    "--lib",
    "registry::tests::dependency_lines_match_declarations",
];

/// The four places, in the order ARCHITECTURE.md lists them.
fn places() -> [Place; 4] {
    [
        Place {
            doc: "variants/src/<spec>.rs",
            path: "variants/src/schneier93_twin.rs",
            new: true,
            text: |root| {
                let spec = read(root, "variants/src/schneier93.rs");
                once(
                    &spec,
                    "pub mod blowfish {",
                    "pub mod blowfish2 {",
                    "schneier93.rs",
                )
            },
            // `mod schneier93_twin;` without its file.
            without: (
                &["test", "-p", "variants", "--test", "lanes"],
                "error[E0583]: file not found for module `schneier93_twin`",
            ),
        },
        Place {
            doc: "variants/src/lib.rs",
            path: "variants/src/lib.rs",
            new: false,
            text: |root| {
                let lib = read(root, "variants/src/lib.rs");
                once(
                    &lib,
                    "    schneier93 => blowfish,\n",
                    "    schneier93 => blowfish,\n    schneier93_twin => blowfish2,\n",
                    "variants/src/lib.rs, algorithms!",
                )
            },
            // README lists a cipher the registry does not have.
            without: (REGISTRY_TEST, "README.md's list of ciphers"),
        },
        Place {
            doc: "variants/tests/<cipher>.rs",
            path: "variants/tests/blowfish2.rs",
            new: true,
            text: |root| {
                let tests = read(root, "variants/tests/blowfish.rs");
                let tests = once(
                    &tests,
                    "use variants::blowfish;",
                    "use variants::blowfish2 as blowfish;",
                    "tests/blowfish.rs",
                );
                once(
                    &tests,
                    "variants::blowfish_variants!(",
                    "variants::blowfish2_variants!(",
                    "tests/blowfish.rs",
                )
            },
            without: (
                &[
                    "test",
                    "-p",
                    "variants",
                    "--test",
                    "lanes",
                    "every_declared_algorithm_has_its_test_file",
                ],
                "variants::blowfish2 is declared but has no test file",
            ),
        },
        Place {
            doc: "README.md",
            path: "README.md",
            new: false,
            text: |root| {
                let readme = read(root, "README.md");
                once(
                    &readme,
                    "CAST6, Blowfish)",
                    "CAST6, Blowfish, Blowfish2)",
                    "README.md, compare all's list",
                )
            },
            without: (REGISTRY_TEST, "README.md's list of ciphers"),
        },
    ]
}

/// ARCHITECTURE.md's "Adding a cipher": how many files and places it
/// says, how many new, and each numbered item's file.
fn documented() -> (usize, usize, usize, Vec<(String, bool)>) {
    let doc = read(&root(), "ARCHITECTURE.md");
    let (_, section) = doc
        .split_once("\n## Adding a cipher\n")
        .expect("ARCHITECTURE.md: ## Adding a cipher");
    let section = section.split("\n## ").next().unwrap();
    let number = |before: &str| -> usize {
        let at = section
            .find(before)
            .unwrap_or_else(|| panic!("no `{before}`"));
        let digits: String = section[..at]
            .chars()
            .rev()
            .skip_while(|c| c.is_whitespace() || *c == '*')
            .take_while(char::is_ascii_digit)
            .collect();
        digits.chars().rev().collect::<String>().parse().unwrap()
    };
    let (files, places, new) = (
        number(" files,"),
        number(" places**"),
        number(" of them new"),
    );
    let mut items = Vec::new();
    for line in section.lines() {
        let Some((n, rest)) = line.split_once(". `") else {
            continue;
        };
        if n.parse::<usize>().is_ok_and(|n| n == items.len() + 1) {
            let (path, after) = rest.split_once('`').unwrap();
            items.push((path.to_string(), after.starts_with(" (new)")));
        }
    }
    (files, places, new, items)
}

#[test]
fn the_fixture_touches_the_places_the_doc_lists() {
    let (files, places, new, items) = documented();
    let fixture = self::places();
    let listed: Vec<(String, bool)> = (fixture.iter())
        .map(|p| (p.doc.to_string(), p.new))
        .collect();
    assert_eq!(items, listed, "ARCHITECTURE.md's numbered places");
    assert_eq!(places, fixture.len(), "the places it counts");
    let mut distinct: Vec<&str> = fixture.iter().map(|p| p.path).collect();
    distinct.dedup();
    assert_eq!(files, distinct.len(), "the files it counts");
    assert_eq!(new, fixture.iter().filter(|p| p.new).count(), "new files");
    for p in &fixture {
        // Each edit applies to this tree, and adds something.
        let text = (p.text)(&root());
        if !p.new {
            assert_ne!(text, read(&root(), p.path), "{}", p.path);
        }
    }
}

/// `cargo ARGS` in the workspace `ws`, building into `target`: whether it
/// passed, and its output.
fn cargo(ws: &Path, target: &Path, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(args)
        .current_dir(ws)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("INLINELAB_VARIANT")
        .env_remove("RUSTFLAGS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("cargo runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
#[ignore = "builds variants and bench-harness with their tests in a copy of the workspace (minutes); \
            the cheap test checks the fixture against ARCHITECTURE.md and the tree"]
fn a_new_cipher_builds_and_each_place_is_checked() {
    let root = root();
    // Kept between runs, so that a second run builds only what changed.
    let scratch = root.join("target/new-cipher");
    let ws = scratch.join("ws");
    let target = scratch.join("target");
    let _ = std::fs::remove_dir_all(&ws);
    copy_tree(&root, &ws);
    let places = places();
    let texts: Vec<String> = places.iter().map(|p| (p.text)(&root)).collect();
    // Every place added, or all but `left_out`; a file written only when
    // it changes (cargo rebuilds on a newer file).
    let set = |left_out: Option<usize>| {
        for (i, (p, text)) in places.iter().zip(&texts).enumerate() {
            let path = ws.join(p.path);
            let want = match (Some(i) == left_out, p.new) {
                (false, _) => Some(text.clone()),
                (true, true) => None,
                (true, false) => Some(read(&root, p.path)),
            };
            let now = std::fs::read_to_string(&path).ok();
            match want {
                Some(text) if now.as_ref() != Some(&text) => std::fs::write(&path, text).unwrap(),
                None if now.is_some() => std::fs::remove_file(&path).unwrap(),
                _ => {}
            }
        }
    };
    let must_pass = |args: &[&str], env: &[(&str, &str)]| {
        let (ok, out) = cargo(&ws, &target, args, env);
        assert!(
            ok,
            "with every place, `cargo {}` fails:\n{out}",
            args.join(" ")
        );
        out
    };

    set(None);
    must_pass(&["test", "-p", "bench-harness", "--lib", "registry"], &[]);
    let out = must_pass(
        &[
            "test",
            "-p",
            "variants",
            "--test",
            "blowfish2",
            "--test",
            "lanes",
        ],
        &[],
    );
    assert!(
        out.contains("every_declared_algorithm_has_its_test_file ... ok"),
        "{out}"
    );
    // One of its variants alone in an artifact, and the peer two
    // declarations name, once.
    must_pass(
        &["check", "-p", "inlinelab-artifact"],
        &[("INLINELAB_VARIANT", "blowfish2::auto_x4")],
    );
    must_pass(
        &[
            "check",
            "-p",
            "inlinelab-artifact",
            "--features",
            "peer-blowfish",
        ],
        &[("INLINELAB_VARIANT", "none")],
    );

    // Each place left out, the cheapest rebuild first.
    for i in [2, 3, 1, 0] {
        let p = &places[i];
        set(Some(i));
        let (args, says) = p.without;
        let (ok, out) = cargo(&ws, &target, args, &[]);
        assert!(
            !ok && out.contains(says),
            "without {} (place {}), `cargo {}` should fail saying `{says}`:\n{out}",
            p.path,
            i + 1,
            args.join(" ")
        );
    }
}
