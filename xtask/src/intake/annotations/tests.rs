//! The scanner and the edits on text, on the fixture crate
//! (`xtask/tests/fixtures/toycipher`) and, where the registry holds them,
//! on the published crates issue 31 names.

use super::*;
use std::path::{Path, PathBuf};

/// `rustc --print cfg` on x86_64-unknown-linux-gnu.
const X86_64: &str = r#"debug_assertions
panic="unwind"
target_abi=""
target_arch="x86_64"
target_endian="little"
target_env="gnu"
target_family="unix"
target_feature="fxsr"
target_feature="sse"
target_feature="sse2"
target_has_atomic="16"
target_has_atomic="32"
target_has_atomic="64"
target_has_atomic="8"
target_has_atomic="ptr"
target_os="linux"
target_pointer_width="64"
target_vendor="unknown"
unix
"#;

fn x86_64(features: &[&str]) -> Cfg {
    Cfg::from_rustc_print(X86_64, features).expect("cfg")
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/toycipher")
}

/// A package in a temporary directory: `Cargo.toml` and the given files.
fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = "[package]\nname = \"t\"\nversion = \"0.0.0\"\nedition = \"2024\"\n";
    std::fs::write(dir.path().join("Cargo.toml"), manifest).expect("write");
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    dir
}

fn scan_lib(lib: &str) -> Scan {
    let dir = package(&[("src/lib.rs", lib)]);
    scan(dir.path(), &x86_64(&[])).expect("scan")
}

/// One annotation in a line: `line attr function path place flags cfg`.
fn summary(a: &Annotation) -> String {
    let mut flags = String::new();
    if a.place.in_macro_body {
        flags.push('M');
    }
    if a.place.in_cfg_if {
        flags.push('I');
    }
    if a.in_cfg_attr {
        flags.push('A');
    }
    format!(
        "{}:{} {:?} {} {:?}{} [{}]",
        a.file.display(),
        a.line,
        a.attr,
        a.path,
        a.place.kind,
        if flags.is_empty() {
            String::new()
        } else {
            format!(" {flags}")
        },
        a.cfg
    )
}

// ---- cfg ----

fn pred(text: &str) -> Pred {
    let tokens: Vec<proc_macro2::TokenTree> = text
        .parse::<proc_macro2::TokenStream>()
        .expect("lex")
        .into_iter()
        .collect();
    Pred::parse(&tokens)
}

#[test]
fn cfg_evaluates_all_any_not_names_and_values() {
    let cfg = x86_64(&["std"]);
    let cases = [
        ("unix", Some(true)),
        ("windows", Some(false)),
        ("target_arch = \"x86_64\"", Some(true)),
        ("target_arch = \"aarch64\"", Some(false)),
        ("feature = \"std\"", Some(true)),
        ("feature = \"alloc\"", Some(false)),
        ("all(unix, target_pointer_width = \"64\")", Some(true)),
        ("all(unix, windows)", Some(false)),
        ("any(windows, target_endian = \"little\")", Some(true)),
        ("not(any(windows, miri))", Some(true)),
        ("all()", Some(true)),
        ("any()", Some(false)),
        ("true", Some(true)),
        // Custom cfgs are false unless set.
        ("aes_force_soft", Some(false)),
        ("aes_backend = \"soft\"", Some(false)),
        ("not(aes_backend_soft = \"compact\")", Some(true)),
        // Unreadable: undecided unless the rest decides.
        ("version(\"1.80\")", None),
        ("any(unix, version(\"1.80\"))", Some(true)),
        ("all(windows, version(\"1.80\"))", Some(false)),
        ("not(version(\"1.80\"))", None),
    ];
    for (text, expected) in cases {
        assert_eq!(cfg.eval(&pred(text)), expected, "{text}");
    }
    assert_eq!(
        pred("all(unix, not(feature = \"x\"))").to_string(),
        "all(unix, not(feature = \"x\"))"
    );
}

#[test]
fn a_cfg_line_that_is_not_one_is_an_error() {
    assert!(Cfg::from_rustc_print("target_arch=x86_64", &[] as &[&str]).is_err());
    assert!(Cfg::from_rustc_print("two words", &[] as &[&str]).is_err());
}

#[test]
fn the_host_cfg_comes_from_rustc() {
    let cfg = Cfg::from_rustc(None, &["std"]).expect("rustc --print cfg");
    let arch = std::env::consts::ARCH;
    assert_eq!(
        cfg.eval(&pred(&format!("target_arch = {arch:?}"))),
        Some(true)
    );
    assert_eq!(cfg.eval(&pred("feature = \"std\"")), Some(true));
}

#[test]
fn default_features_follow_the_features_table() {
    let dir = package(&[(
        "Cargo.toml",
        "[package]\nname = \"t\"\nversion = \"0.0.0\"\n\
         [features]\ndefault = [\"std\"]\nstd = [\"alloc\", \"dep:x\", \"cipher/std\"]\nalloc = []\nhazmat = []\n",
    )]);
    let manifest = Manifest::read(dir.path()).expect("manifest");
    let on: Vec<String> = manifest.features(&[], false).into_iter().collect();
    assert_eq!(on, ["alloc", "default", "std"]);
    let on: Vec<String> = manifest.features(&["hazmat"], true).into_iter().collect();
    assert_eq!(on, ["hazmat"]);
    assert_eq!(manifest.lib_path().expect("lib"), Path::new("src/lib.rs"));
}

// ---- lexing and offsets ----

#[test]
fn offsets_count_chars_as_bytes_after_non_ascii_text() {
    let text = "\u{feff}// é\nconst É: &str = \"ü\"; #[inline] fn f() {}\n";
    let scan = scan_lib(text);
    let [a] = &scan.annotations[..] else {
        panic!("{:?}", scan.annotations)
    };
    assert_eq!(&text[a.attr_range.clone()], "#[inline]");
    assert_eq!(a.text, "#[inline]");
    assert_eq!((a.line, a.column), (2, 22));
    let f = &scan.functions[0];
    assert!(text[f.insert_at..].starts_with("fn f()"));
}

#[test]
fn a_file_that_does_not_lex_is_an_error_naming_it() {
    let dir = package(&[("src/lib.rs", "fn f() { \"unterminated }\n")]);
    let err = scan(dir.path(), &x86_64(&[])).expect_err("lex error");
    assert!(err.to_string().starts_with("src/lib.rs:"), "{err}");
}

#[test]
fn a_missing_module_file_is_an_error_unless_not_compiled() {
    let dir = package(&[("src/lib.rs", "mod gone;\n")]);
    let err = scan(dir.path(), &x86_64(&[])).expect_err("missing");
    assert!(err.to_string().contains("src/gone.rs"), "{err}");
    let dir = package(&[("src/lib.rs", "#[cfg(windows)]\nmod gone;\n")]);
    let scan = scan(dir.path(), &x86_64(&[])).expect("skipped");
    assert_eq!(scan.skipped.len(), 1, "{:?}", scan.skipped);
}

// ---- scanning ----

#[test]
fn finds_each_place_with_its_function_and_path() {
    let scan = scan_lib(
        r#"
#[inline] pub(crate) const unsafe extern "C" fn free() {}
struct S;
impl<T: Into<u8>> S {
    #[inline(always)]
    #[must_use]
    pub fn inherent(&self) -> u8 { 0 }
}
impl<const N: usize> core::fmt::Debug for Wrap<N> where Wrap<N>: Copy {
    #[inline(never)]
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result { Ok(()) }
}
trait Tr {
    #[inline]
    fn provided(&self) {}
    fn required(&self);
}
fn outer() {
    #[inline]
    fn nested() {}
    let _c = #[inline] || 1;
}
"#,
    );
    let got: Vec<String> = scan.annotations.iter().map(summary).collect();
    let expected = [
        "src/lib.rs:2 Inline free FreeFn [all()]",
        "src/lib.rs:5 Always S::inherent InherentMethod [all()]",
        "src/lib.rs:10 Never <Wrap<N> as core::fmt::Debug>::fmt TraitImplMethod [all()]",
        "src/lib.rs:14 Inline Tr::provided TraitMethod [all()]",
        "src/lib.rs:19 Inline outer::nested FreeFn [all()]",
        "src/lib.rs:21 Inline outer::<line 21> FreeFn [all()]",
    ];
    assert_eq!(got, expected);
    assert_eq!(scan.annotations[5].function, None);
    // Functions with a body: not `required`.
    let names: Vec<&str> = scan.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["free", "inherent", "fmt", "provided", "outer", "nested"]
    );
    let free = &scan.functions[0];
    assert_eq!(free.first_token, "pub");
    assert_eq!(free.annotations, [0]);
    assert_eq!(scan.annotations[0].function_index, Some(0));
}

#[test]
fn sees_inside_macro_bodies_and_invocations() {
    let scan = scan_lib(
        r#"
macro_rules! backend {
    ($name:ident, $vis:vis) => {
        impl $name {
            #[inline]
            $vis fn $name(&self) {}
            #[inline(always)] $(#[$meta])* pub fn fixed() {}
        }
    };
}
other::wrap! {
    #[inline(never)]
    fn wrapped() {}
}
"#,
    );
    let got: Vec<String> = scan.annotations.iter().map(summary).collect();
    let expected = [
        "src/lib.rs:5 Inline backend!::$name::$name InherentMethod M [all()]",
        "src/lib.rs:7 Always backend!::$name::fixed InherentMethod M [all()]",
        "src/lib.rs:12 Never wrapped FreeFn [all()]",
    ];
    assert_eq!(got, expected);
    assert_eq!(scan.annotations[0].function.as_deref(), Some("$name"));
}

#[test]
fn cfg_if_branches_negate_the_ones_before() {
    let scan = scan_lib(
        r#"
#[cfg(feature = "fast")]
cpubits::cfg_if! {
    if #[cfg(target_arch = "aarch64")] {
        #[inline] fn a() {}
    } else if #[cfg(unix)] {
        #[inline] fn b() {}
    } else {
        #[inline] fn c() {}
    }
}
"#,
    );
    let got: Vec<String> = scan.annotations.iter().map(summary).collect();
    let expected = [
        "src/lib.rs:5 Inline a FreeFn I [all(feature = \"fast\", target_arch = \"aarch64\")]",
        "src/lib.rs:7 Inline b FreeFn I [all(feature = \"fast\", not(target_arch = \"aarch64\"), unix)]",
        "src/lib.rs:9 Inline c FreeFn I [all(feature = \"fast\", not(target_arch = \"aarch64\"), not(unix))]",
    ];
    assert_eq!(got, expected);
    let applies =
        |cfg: &Cfg| -> Vec<bool> { scan.annotations.iter().map(|a| a.applies(cfg)).collect() };
    assert_eq!(applies(&x86_64(&[])), [false, false, false]);
    assert_eq!(applies(&x86_64(&["fast"])), [false, true, false]);
}

/// A module file declared in two branches (sha1's `mod soft;`, the
/// backend chosen by a `cfg` and the fallback of the `else`) is compiled
/// where either declaration is: its attributes apply when any does.
#[test]
fn a_module_declared_in_two_branches_applies_where_either_does() {
    let dir = package(&[
        (
            "src/lib.rs",
            r#"
cfg_if::cfg_if! {
    if #[cfg(backend = "soft")] {
        mod soft;
    } else if #[cfg(target_arch = "aarch64")] {
        mod neon;
    } else {
        mod soft;
    }
}
"#,
        ),
        ("src/soft.rs", "#[inline(always)] fn round() {}\n"),
        ("src/neon.rs", "#[inline] fn round() {}\n"),
    ]);
    let scan = scan(dir.path(), &x86_64(&[])).expect("scan");
    let applies: Vec<(String, bool)> = (scan.annotations.iter())
        .map(|a| (a.location(), a.applies(&x86_64(&[]))))
        .collect();
    assert_eq!(
        applies,
        [
            ("src/soft.rs:1".to_string(), true),
            ("src/neon.rs:1".to_string(), false)
        ]
    );
}

#[test]
fn reads_cfg_attr_alone_mixed_and_nested() {
    let text = r#"
#[cfg_attr(unix, inline)]
fn alone() {}
#[cfg_attr(unix, must_use, inline(always))]
fn mixed() -> u8 { 0 }
#[cfg_attr(unix, cfg_attr(windows, inline), must_use)]
fn nested() -> u8 { 0 }
#[cfg_attr(unix, cfg(windows))]
#[inline]
fn gated() {}
"#;
    let scan = scan_lib(text);
    let got: Vec<String> = scan.annotations.iter().map(summary).collect();
    let expected = [
        "src/lib.rs:2 Inline alone FreeFn A [unix]",
        "src/lib.rs:4 Always mixed FreeFn A [unix]",
        "src/lib.rs:6 Inline nested FreeFn A [all(unix, windows)]",
        "src/lib.rs:9 Inline gated FreeFn [any(not(unix), windows)]",
    ];
    assert_eq!(got, expected);
    let removal = |i: usize| &text[scan.annotations[i].removal.clone()];
    assert_eq!(removal(0), "#[cfg_attr(unix, inline)]");
    assert_eq!(removal(1), ", inline(always)");
    assert_eq!(removal(2), "cfg_attr(windows, inline),");
    assert_eq!(removal(3), "#[inline]");
    let meta = |i: usize| &text[scan.annotations[i].meta_range.clone()];
    assert_eq!(meta(1), "inline(always)");
    let on_x86 = x86_64(&[]);
    let applies: Vec<bool> = scan
        .annotations
        .iter()
        .map(|a| a.applies(&on_x86))
        .collect();
    assert_eq!(applies, [true, true, false, false]);
}

#[test]
fn follows_the_module_tree_as_rustc_does() {
    let dir = package(&[
        (
            "Cargo.toml",
            "[package]\nname = \"t\"\nversion = \"0.0.0\"\n[lib]\npath = \"lib/root.rs\"\n",
        ),
        (
            "lib/root.rs",
            "#[cfg(unix)] mod a;\n#[path = \"elsewhere/b_impl.rs\"] mod b;\nmod c { mod d; }\n",
        ),
        ("lib/a.rs", "mod inner;\n#[inline] fn in_a() {}\n"),
        (
            "lib/a/inner.rs",
            "#![cfg(feature = \"x\")]\n#[inline] fn in_inner() {}\n",
        ),
        ("lib/elsewhere/b_impl.rs", "mod sub;\n"),
        ("lib/elsewhere/sub.rs", "#[inline] fn in_sub() {}\n"),
        ("lib/c/d.rs", "#[inline] fn in_d() {}\n"),
    ]);
    let scan = scan(dir.path(), &x86_64(&[])).expect("scan");
    let got: Vec<String> = scan.annotations.iter().map(summary).collect();
    // Breadth first: the files root.rs declares, then theirs.
    let expected = [
        "lib/a.rs:2 Inline a::in_a FreeFn [unix]",
        "lib/c/d.rs:1 Inline c::d::in_d FreeFn [all()]",
        "lib/a/inner.rs:2 Inline a::inner::in_inner FreeFn [all(unix, feature = \"x\")]",
        "lib/elsewhere/sub.rs:1 Inline b::sub::in_sub FreeFn [all()]",
    ];
    assert_eq!(got, expected);
}

// ---- the fixture ----

/// Every annotation of the fixture, and whether x86_64 compiles it.
const FIXTURE: [(&str, bool); 12] = [
    (
        "src/lib.rs:39 Inline Toy::expand InherentMethod [all()]",
        true,
    ),
    (
        "src/lib.rs:57 Never <Toy as KeyInit>::new TraitImplMethod [all()]",
        true,
    ),
    (
        "src/lib.rs:72 Inline <Toy as BlockCipherEncrypt>::encrypt_with_backend TraitImplMethod [all()]",
        true,
    ),
    (
        "src/lib.rs:79 Inline <Toy as BlockCipherDecrypt>::decrypt_with_backend TraitImplMethod [all()]",
        true,
    ),
    (
        "src/lib.rs:90 Always impl_backend!::<Toy as $backend>::$method TraitImplMethod M [all()]",
        true,
    ),
    (
        "src/arch.rs:11 Inline arch::whiten FreeFn I [not(target_arch = \"aarch64\")]",
        true,
    ),
    (
        "src/round.rs:30 Always round::f FreeFn A [not(feature = \"compact\")]",
        true,
    ),
    ("src/round.rs:40 Inline round::round FreeFn [all()]", true),
    ("src/round.rs:47 Inline round::unround FreeFn [all()]", true),
    (
        "src/round.rs:71 Inline round::load FreeFn A [target_endian = \"little\"]",
        true,
    ),
    (
        "src/round.rs:100 Inline round::store FreeFn A [all(target_pointer_width = \"64\", not(feature = \"compact\"))]",
        true,
    ),
    (
        "src/arch/aarch64.rs:5 Inline arch::aarch64::whiten FreeFn [target_arch = \"aarch64\"]",
        false,
    ),
];

#[test]
fn the_fixture_has_the_annotations_expected_on_x86_64() {
    let cfg = x86_64(&[]);
    let scan = scan(&fixture(), &cfg).expect("scan");
    let got: Vec<(String, bool)> = scan
        .annotations
        .iter()
        .map(|a| (summary(a), a.applies(&cfg)))
        .collect();
    let expected: Vec<(String, bool)> = FIXTURE.iter().map(|(s, b)| (s.to_string(), *b)).collect();
    assert_eq!(got, expected);
    // The compact feature leaves two of them out.
    let compact = x86_64(&["compact"]);
    assert_eq!(scan.applying(&compact).count(), 9);
    // Every annotation is on a function with a body, which lists it.
    for (i, a) in scan.annotations.iter().enumerate() {
        let f = &scan.functions[a.function_index.expect("function")];
        assert!(f.annotations.contains(&i), "{}", a.path);
        assert_eq!(Some(&f.name), a.function.as_ref());
    }
    // The functions no attribute names: the rounds loops, the impls of
    // Debug and AlgorithmName, and the branch on a key bit.
    let bare: Vec<&str> = (scan.functions.iter())
        .filter(|f| f.annotations.is_empty())
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(
        bare,
        [
            "<Toy as fmt::Debug>::fmt",
            "<Toy as AlgorithmName>::write_alg_name",
            "round::encrypt",
            "round::decrypt",
            "round::tweak",
        ]
    );
}

/// Reads a fixture's annotation by line, from a fresh scan.
fn fixture_scan() -> Scan {
    scan(&fixture(), &x86_64(&[])).expect("scan")
}

fn find<'a>(scan: &'a Scan, file: &str, line: usize) -> &'a Annotation {
    (scan.annotations.iter())
        .find(|a| a.file == Path::new(file) && a.line == line)
        .expect("annotation")
}

/// Applies edits to a fixture file and checks that no line moved: same
/// count, and every line but `edited` identical. Gives the edited lines.
fn edit_lines(scan: &Scan, file: &str, edits: &[Edit<'_>], edited: &[usize]) -> Vec<String> {
    let before = std::fs::read_to_string(fixture().join(file)).expect("read");
    let after = apply(&before, edits).expect("apply");
    let (old, new): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
    assert_eq!(old.len(), new.len(), "line count");
    assert_eq!(before.matches('\n').count(), after.matches('\n').count());
    for (n, (o, a)) in old.iter().zip(&new).enumerate() {
        if !edited.contains(&(n + 1)) {
            assert_eq!(o, a, "{file}:{} changed", n + 1);
        }
    }
    let _ = scan;
    edited.iter().map(|&n| new[n - 1].to_string()).collect()
}

#[test]
fn removing_blanks_the_attribute_and_keeps_every_column() {
    let scan = fixture_scan();
    let lines = edit_lines(
        &scan,
        "src/lib.rs",
        &[
            Edit::Remove(find(&scan, "src/lib.rs", 39)),
            Edit::Remove(find(&scan, "src/lib.rs", 90)),
        ],
        &[39, 90],
    );
    assert_eq!(lines, [" ".repeat(13), " ".repeat(29)]);
    let blank = |line: &str| " ".repeat(line.len());
    let lines = edit_lines(
        &scan,
        "src/round.rs",
        &[
            Edit::Remove(find(&scan, "src/round.rs", 30)),
            Edit::Remove(find(&scan, "src/round.rs", 71)),
            Edit::Remove(find(&scan, "src/round.rs", 100)),
        ],
        &[30, 71, 100, 101, 102, 103],
    );
    assert_eq!(
        lines[0],
        blank("#[cfg_attr(not(feature = \"compact\"), inline(always))]")
    );
    assert_eq!(
        lines[1],
        "#[cfg_attr(target_endian = \"little\", must_use        )]"
    );
    // The nested cfg_attr, written over four lines, holds nothing else:
    // all of it goes, its newlines stay.
    let before: Vec<String> = std::fs::read_to_string(fixture().join("src/round.rs"))
        .expect("read")
        .lines()
        .skip(99)
        .take(4)
        .map(blank)
        .collect();
    assert_eq!(lines[2..], before);
}

#[test]
fn setting_rewrites_only_the_inline_meta() {
    let scan = fixture_scan();
    let lines = edit_lines(
        &scan,
        "src/lib.rs",
        &[
            Edit::Set(find(&scan, "src/lib.rs", 57), Attr::Always),
            Edit::Set(find(&scan, "src/lib.rs", 90), Attr::Never),
            Edit::Set(find(&scan, "src/lib.rs", 72), Attr::Inline),
        ],
        &[57, 90],
    );
    assert_eq!(
        lines,
        ["    #[inline(always)]", "            #[inline(never)]"]
    );
    let lines = edit_lines(
        &scan,
        "src/round.rs",
        &[Edit::Set(find(&scan, "src/round.rs", 30), Attr::Never)],
        &[30],
    );
    assert_eq!(
        lines,
        ["#[cfg_attr(not(feature = \"compact\"), inline(never))]"]
    );
}

#[test]
fn adding_inserts_on_the_functions_own_line() {
    let scan = fixture_scan();
    let encrypt = (scan.functions.iter())
        .find(|f| f.path == "round::encrypt")
        .expect("encrypt");
    let line = encrypt.line;
    let lines = edit_lines(
        &scan,
        "src/round.rs",
        &[Edit::Add(encrypt, Attr::Always, 0)],
        &[line],
    );
    assert_eq!(
        lines,
        [
            "#[inline(always)] pub(crate) fn encrypt(keys: &RoundKeys, mut state: [u32; 4]) -> [u32; 4] {"
        ]
    );
    // A function that has one already: set it instead, or remove it too.
    let round = (scan.functions.iter())
        .find(|f| f.path == "round::round")
        .expect("round");
    let text = std::fs::read_to_string(fixture().join("src/round.rs")).expect("read");
    let err = apply(&text, &[Edit::Add(round, Attr::Always, 0)]).expect_err("second attribute");
    assert!(err.to_string().contains("set that one instead"), "{err}");
    // One this build compiles out (a `cfg_attr` whose predicate is false,
    // as the caller evaluated it) stays, and the new one is added.
    let both = apply(&text, &[Edit::Add(round, Attr::Always, 1)]).expect("one compiled out");
    assert_eq!(
        both.matches("#[inline(always)] ").count(),
        1 + text.matches("#[inline(always)] ").count()
    );
    let own = &scan.annotations[round.annotations[0]];
    let lines = edit_lines(
        &scan,
        "src/round.rs",
        &[Edit::Remove(own), Edit::Add(round, Attr::Never, 0)],
        &[40, 41],
    );
    assert_eq!(lines[0], " ".repeat(9));
    assert!(
        lines[1].starts_with("#[inline(never)] pub(crate) fn round("),
        "{}",
        lines[1]
    );
}

#[test]
fn conflicting_or_stale_edits_are_errors() {
    let scan = fixture_scan();
    let a = find(&scan, "src/lib.rs", 39);
    let text = std::fs::read_to_string(fixture().join("src/lib.rs")).expect("read");
    let both = apply(&text, &[Edit::Remove(a), Edit::Set(a, Attr::Never)]);
    assert!(matches!(both, Err(Error::Conflict { .. })), "{both:?}");
    let stale = apply(&format!("\n{text}"), &[Edit::Remove(a)]);
    assert!(matches!(stale, Err(Error::Stale { .. })), "{stale:?}");
    let other = find(&scan, "src/round.rs", 40);
    let mixed = apply(&text, &[Edit::Remove(a), Edit::Remove(other)]);
    assert!(matches!(mixed, Err(Error::Conflict { .. })), "{mixed:?}");
}

/// Copies a package's files (not `target/`) into `to`.
fn copy_package(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).into_iter().flatten() {
        let rel = entry.path().strip_prefix(from).expect("under");
        if rel.starts_with("target") {
            continue;
        }
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy");
        }
    }
}

/// `cargo build --offline` of a package in its own temporary target dir;
/// the compiler's errors when it fails.
fn build(package: &Path, target: &Path) -> std::result::Result<(), String> {
    let output = std::process::Command::new(env!("CARGO"))
        .args(["build", "--offline", "--quiet", "--lib"])
        .current_dir(package)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .output()
        .map_err(|e| e.to_string())?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// Slow (builds `cipher` and the fixture): every edit at once, then every
/// removal, each in a copy that must still compile.
#[test]
fn the_fixture_edited_still_compiles() {
    let scan = fixture_scan();
    let tmp = tempfile::tempdir().expect("tempdir");
    let target = tmp.path().join("target");
    // One of each edit: remove the cfg_attrs and the macro body's, flip the
    // rest, add `always` to the functions without one.
    let mut edits = Vec::new();
    for a in &scan.annotations {
        edits.push(match (a.in_cfg_attr || a.place.in_macro_body, a.attr) {
            (true, _) => Edit::Remove(a),
            (false, Attr::Never) => Edit::Set(a, Attr::Always),
            (false, _) => Edit::Set(a, Attr::Never),
        });
    }
    for f in scan.functions.iter().filter(|f| f.annotations.is_empty()) {
        edits.push(Edit::Add(f, Attr::Always, 0));
    }
    let removals: Vec<Edit<'_>> = scan.annotations.iter().map(Edit::Remove).collect();
    for (name, edits) in [("mixed", &edits), ("none", &removals)] {
        let copy = tmp.path().join(name);
        copy_package(&fixture(), &copy);
        let changed = apply_under(&copy, edits).expect("apply");
        assert!(changed.len() >= 3, "{changed:?}");
        if let Err(errors) = build(&copy, &target) {
            panic!("{name}: the edited copy does not build:\n{errors}");
        }
        let again = super::scan(&copy, &x86_64(&[])).expect("scan");
        let left = if name == "none" {
            0
        } else {
            scan.annotations.len() - 4
        };
        let added = scan
            .functions
            .iter()
            .filter(|f| f.annotations.is_empty())
            .count();
        let added = if name == "none" { 0 } else { added };
        assert_eq!(again.annotations.len(), left + added, "{name}");
    }
}

// ---- the published crates (issue 31), where the registry has them ----

/// `~/.cargo/registry/src/*/NAME-VERSION`, if cargo has unpacked it.
fn registry_package(name_version: &str) -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let src = std::fs::read_dir(home.join("registry/src")).ok()?;
    src.flatten()
        .map(|index| index.path().join(name_version))
        .find(|p| p.join("Cargo.toml").is_file())
}

/// Counts of a scan: total, compiled on x86_64 (default features), in
/// macro bodies, in cfg_if branches, in cfg_attr, compiled only on aarch64.
fn counts(package: &Path) -> [usize; 6] {
    let manifest = Manifest::read(package).expect("manifest");
    let features: Vec<String> = manifest.features(&[], false).into_iter().collect();
    let cfg = x86_64(&features.iter().map(String::as_str).collect::<Vec<_>>());
    let scan = scan(package, &cfg).expect("scan");
    let on = |a: &Annotation, arch: &str| {
        cfg.eval(&a.cfg) != Some(false) || {
            let mut other = X86_64.replace("x86_64", arch);
            other.push('\n');
            let cfg = Cfg::from_rustc_print(&other, &features).expect("cfg");
            a.applies(&cfg)
        }
    };
    let aarch64_only = (scan.annotations.iter())
        .filter(|a| !a.applies(&cfg) && on(a, "aarch64"))
        .count();
    let a = &scan.annotations;
    [
        a.len(),
        scan.applying(&cfg).count(),
        a.iter().filter(|a| a.place.in_macro_body).count(),
        a.iter().filter(|a| a.place.in_cfg_if).count(),
        a.iter().filter(|a| a.in_cfg_attr).count(),
        aarch64_only,
    ]
}

#[test]
fn the_published_crates_have_the_counts_issues_31_and_32_state() {
    let expected = [
        ("cast6-0.2.0", 7, 7),
        ("blowfish-0.10.0", 4, 4),
        ("cast5-0.12.0", 5, 5),
        ("aes-0.9.4", 131, 98),
        // Issue 32's hashes: sha1's compression in a module two `cfg_if!`
        // branches declare, blake2's in `macro_rules!` bodies.
        ("sha1-0.11.0", 9, 9),
        ("md-5-0.11.0", 10, 10),
        ("blake2-0.11.0", 36, 33),
    ];
    for (name, total, x86) in expected {
        let Some(package) = registry_package(name) else {
            eprintln!("{name}: not in the registry's cache, skipped");
            continue;
        };
        let got = counts(&package);
        eprintln!("{name}: total, x86_64, macro, cfg_if, cfg_attr, aarch64 only = {got:?}");
        assert_eq!((got[0], got[1]), (total, x86), "{name}");
        if name.starts_with("blake2") {
            assert_eq!(got[4], 4, "{name}: in cfg_attr");
        }
        if name.starts_with("aes") {
            assert_eq!(
                (got[2], got[5]),
                (19, 26),
                "{name}: in macro bodies, aarch64 only"
            );
        }
    }
}

/// Slow, run by hand: a copy of cast6 and of aes with every inline
/// attribute removed still compiles.
#[test]
#[ignore = "builds cast6 and aes (minutes); run with --ignored"]
fn the_published_crates_without_attributes_still_compile() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let target = tmp.path().join("target");
    for name in ["cast6-0.2.0", "aes-0.9.4"] {
        let Some(package) = registry_package(name) else {
            eprintln!("{name}: not in the registry's cache, skipped");
            continue;
        };
        let scan = scan(&package, &x86_64(&[])).expect("scan");
        let copy = tmp.path().join(name);
        copy_package(&package, &copy);
        let removals: Vec<Edit<'_>> = scan.annotations.iter().map(Edit::Remove).collect();
        apply_under(&copy, &removals).expect("apply");
        // Built as a user gets it: a path dependency of a crate of its own
        // (the package's dev-dependencies, not cached, stay out of the
        // graph), pinned by the workspace's Cargo.lock.
        let crate_name = name.rsplit_once('-').map_or(name, |(n, _)| n);
        let shim = tmp.path().join(format!("shim-{name}"));
        std::fs::create_dir_all(shim.join("src")).expect("mkdir");
        let manifest = format!(
            "[package]\nname = \"shim\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             [dependencies]\n{crate_name} = {{ path = {:?} }}\n[workspace]\n",
            copy.display().to_string()
        );
        std::fs::write(shim.join("Cargo.toml"), manifest).expect("write");
        std::fs::write(shim.join("src/lib.rs"), format!("pub use {crate_name};\n")).expect("write");
        let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
        std::fs::copy(lock, shim.join("Cargo.lock")).expect("lock");
        if let Err(errors) = build(&shim, &target) {
            panic!("{name}: the copy without attributes does not build:\n{errors}");
        }
        // The copy is what was built: breaking it breaks the build.
        let lib = copy.join("src/lib.rs");
        let text = std::fs::read_to_string(&lib).expect("read");
        std::fs::write(&lib, format!("{text}\ncompile_error!(\"the copy\");\n")).expect("write");
        assert!(
            build(&shim, &target).is_err(),
            "{name}: the copy was not built"
        );
        std::fs::write(&lib, text).expect("write");
        if let Err(errors) = build(&shim, &target) {
            panic!("{name}: the copy without attributes does not build:\n{errors}");
        }
        assert_eq!(
            super::scan(&copy, &x86_64(&[]))
                .expect("scan")
                .annotations
                .len(),
            0
        );
    }
}

/// Code the build script generates, included from `OUT_DIR`
/// (`include!(concat!(env!("OUT_DIR"), "/x.rs"))`, in a module too), is
/// said where it is included; an `include!` of a file in the package is
/// not, whatever its name.
#[test]
fn generated_code_is_said_where_it_is_included() {
    let s = scan_lib(
        "#[inline]\nfn a() {}\ninclude!(concat!(env!(\"OUT_DIR\"), \"/tables.rs\"));\n\
         mod m { include!(concat!(env!(\"OUT_DIR\"), \"/m.rs\")); }\n\
         include!(\"OUT_DIR_notes.rs\");\n",
    );
    assert_eq!(s.generated, ["src/lib.rs:3", "src/lib.rs:4"]);
    assert_eq!(s.annotations.len(), 1);
}
