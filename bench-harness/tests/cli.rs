//! The `tcrypt` binary: bad input is one line naming the allowed values and
//! exit code 2; good input prints tcrypt's lines and writes JSON. The parser
//! itself ([`cli::parse`]) is driven with generated argument vectors.

use bench_harness::cli::{self, Parsed};
use bench_harness::measure::Timing;
use proptest::prelude::*;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::process::{Command, Output};

fn tcrypt(args: &[&str]) -> Output {
    tcrypt_os(&args.iter().map(OsStr::new).collect::<Vec<_>>())
}

fn tcrypt_os(args: &[&OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tcrypt"))
        .args(args)
        .output()
        .expect("tcrypt runs")
}

/// Bad input: exit 2, no panic, stderr exactly two lines: a cause that
/// contains `expected`, and a hint.
fn check_usage(args: &[&str], expected: &str) {
    check_usage_os(&args.iter().map(OsStr::new).collect::<Vec<_>>(), expected);
}

fn check_usage_os(args: &[&OsStr], expected: &str) {
    let out = tcrypt_os(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{args:?}: {stderr}");
    assert!(lines[0].starts_with("tcrypt: "), "{args:?}: {stderr}");
    assert!(
        lines[0].contains(expected),
        "{args:?}: `{}` lacks `{expected}`",
        lines[0]
    );
    assert!(lines[1].starts_with("hint: "), "{args:?}: {stderr}");
    for bad in ["panicked", "memory allocation", "RUST_BACKTRACE"] {
        assert!(!stderr.contains(bad), "{args:?}: {stderr}");
    }
    assert!(out.stdout.is_empty(), "{args:?}: stdout not empty");
}

#[test]
fn block_sizes_are_bounded() {
    for size in [
        "99999999999",
        "18446744073709551615",
        "18446744073709551600",
        "18446744073709551616",
        "1048577",
        "16,1048577",
    ] {
        check_usage(
            &["ecb(cast6)", "--sizes", size],
            "--sizes takes positive whole numbers up to 1048576 separated by commas, at most 64 of them",
        );
    }
    // A hash takes the same bounds.
    check_usage(
        &["crc32c", "--sizes", "18446744073709551615"],
        "--sizes takes positive whole numbers up to 1048576",
    );
}

#[test]
fn size_lists_are_bounded_and_not_empty() {
    let many = vec!["16"; cli::MAX_LIST + 1].join(",");
    for list in [many.as_str(), "", ",", "16,", "0,16", "1.5", "0x10"] {
        check_usage(
            &["ecb(cast6)", "--sizes", list],
            "--sizes takes positive whole numbers",
        );
    }
}

#[test]
fn key_sizes_are_bounded() {
    for key in ["99999999999", "18446744073709551615", "257", "0", ""] {
        check_usage(
            &["ecb(cast6)", "--keys", key],
            "--keys takes positive whole numbers up to 256 separated by commas, at most 64 of them",
        );
    }
    // Within the bound, the cipher's own check names its sizes.
    check_usage(
        &["ecb(cast6)", "--keys", "256"],
        "ecb(cast6) does not take a 256-byte key; it takes 16, 20, 24, 28, 32 bytes",
    );
}

#[test]
fn seconds_are_bounded() {
    for sec in [
        "1e10", "1e308", "1e309", "inf", "-inf", "nan", "0", "-0", "-1", "3600.5", "",
    ] {
        check_usage(
            &["ecb(cast6)", "--sec", sec],
            "--sec takes a positive number of seconds up to 3600",
        );
    }
}

#[test]
fn rounds_are_one_whole_number_in_bounds() {
    for rounds in [
        "5,6",
        "2",
        "0",
        "-3",
        "1001",
        "18446744073709551616",
        "5.0",
        "",
    ] {
        check_usage(
            &["ecb(cast6)", "--precise", "--rounds", rounds],
            "--rounds must be at least 3 and at most 1000, one whole number",
        );
    }
}

#[test]
fn rounds_need_precise_mode() {
    check_usage(
        &["ecb(cast6)", "--rounds", "5"],
        "--rounds sets the rounds of precise mode; add --precise",
    );
    check_usage(
        &["ecb(cast6)", "--rounds", "5", "--sec", "1"],
        "--rounds sets the rounds of precise mode; add --precise",
    );
}

#[test]
fn non_utf8_arguments_are_usage_errors() {
    let ff = OsStr::from_bytes(b"\xff");
    let alg = OsStr::new("ecb(cast6)");
    let not_utf8 = "an argument is not valid UTF-8";
    check_usage_os(&[ff], not_utf8);
    check_usage_os(&[alg, OsStr::new("--variant"), ff], not_utf8);
    check_usage_os(&[alg, OsStr::new("--sizes"), ff], not_utf8);
    check_usage_os(&[alg, OsStr::from_bytes(b"--\xff")], "unknown option `--");
}

#[test]
fn repeated_options_are_errors() {
    for (flag, a, b) in [
        ("--variant", "never", "always"),
        ("--sizes", "16", "32"),
        ("--keys", "16", "32"),
        ("--sec", "1", "2"),
        ("--json", "a.json", "b.json"),
    ] {
        check_usage(
            &["ecb(cast6)", flag, a, flag, b],
            &format!("{flag} is given twice; give it once"),
        );
    }
    check_usage(
        &["ecb(cast6)", "--precise", "--precise"],
        "--precise is given twice; give it once",
    );
}

#[test]
fn so_is_a_path_and_excludes_variant() {
    check_usage(
        &["ecb(cast6)", "--so", ""],
        "--so takes a path, not an empty string",
    );
    check_usage(
        &["ecb(cast6)", "--json", ""],
        "--json takes a path, not an empty string",
    );
    for args in [
        ["ecb(cast6)", "--so", "x.so", "--variant", "never"],
        ["ecb(cast6)", "--variant", "never", "--so", "x.so"],
    ] {
        check_usage(
            &args,
            "--so times a built artifact instead of a variant; give --so or --variant, not both",
        );
    }
}

#[test]
fn option_values_and_unknown_options() {
    check_usage(&["ecb(cast6)", "--variant"], "--variant needs a value");
    check_usage(&["ecb(cast6)", "--so"], "--so needs a value");
    check_usage(
        &["ecb(cast6)", "--list=yes"],
        "unexpected value 'yes' for '--list' found",
    );
    check_usage(
        &["ecb(cast6)", "-x"],
        "unknown option `-x`; expected one of: --list, --variant, --so, --sec, --precise, --rounds, --keys, --sizes, --setkey, --json, --help, --version",
    );
    // A newline in a value is shown escaped: the cause stays one line.
    check_usage(&["ecb(cast6)", "--sizes", "1\n2"], "not `1\\n2`");
}

#[test]
fn help_names_every_flag_and_bound() {
    for flag in ["--help", "-h"] {
        let out = tcrypt(&[flag]);
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stderr.is_empty());
        let stdout = String::from_utf8_lossy(&out.stdout);
        for name in [
            "ALG",
            "--list",
            "--variant <NAME>",
            "--so <PATH>",
            "--sec <N>",
            "--precise",
            "--rounds <N>",
            "--keys <LIST>",
            "--sizes <LIST>",
            "--setkey",
            "--json <PATH>",
            "-h, --help",
            "-V, --version",
        ] {
            assert!(stdout.contains(name), "{name} missing:\n{stdout}");
        }
        // The bounds the prose states are the ones enforced.
        let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        for bound in [
            format!("from {} to {}", cli::MIN_ROUNDS, cli::MAX_ROUNDS),
            format!("[default: {}]", cli::DEFAULT_ROUNDS),
            format!("at most {}", cli::MAX_SECONDS),
            format!(
                "each at most {}, at most {} of them",
                cli::MAX_KEY,
                cli::MAX_LIST
            ),
            format!(
                "each from 1 to {} (1 MiB), at most {} of them",
                cli::MAX_BLOCK,
                cli::MAX_LIST
            ),
            "[default: 16,64,256,1024,1420,4096,8192]".to_string(),
        ] {
            assert!(flat.contains(&bound), "{bound} missing:\n{stdout}");
        }
    }
    let out = tcrypt(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("tcrypt "));
}

fn config(args: &[&str]) -> cli::Config {
    match cli::parse(args) {
        Ok(Parsed::Run(c)) => c,
        other => panic!("{args:?}: {other:?}"),
    }
}

#[test]
fn the_bounds_themselves_are_accepted() {
    let c = config(&[
        "ecb(cast6)",
        "--sizes",
        "1,1048576",
        "--keys",
        "1,256",
        "--sec",
        "3600",
    ]);
    assert_eq!(c.sizes, Some(vec![1, 1 << 20]));
    assert_eq!(c.keys, Some(vec![1, 256]));
    assert_eq!(c.timing, Timing::Seconds(3600.0));
    let c = config(&["ecb(cast6)", "--precise", "--rounds", "1000"]);
    assert_eq!(c.timing, Timing::Precise { rounds: 1000 });
    let c = config(&["ecb(cast6)", "--precise", "--rounds", "3"]);
    assert_eq!(c.timing, Timing::Precise { rounds: 3 });
    let c = config(&["ecb(cast6)", "--precise"]);
    assert_eq!(
        c.timing,
        Timing::Precise {
            rounds: cli::DEFAULT_ROUNDS
        }
    );
    // Not given is the template (`None`), even for a hash.
    let c = config(&["crc32c"]);
    assert_eq!((c.sizes, c.keys, c.timing), (None, None, Timing::Cycles));
    let c = config(&["--list"]);
    assert!(c.list && c.algs.is_empty());
    let sizes = vec!["8192"; cli::MAX_LIST].join(",");
    assert_eq!(
        config(&["x", "--sizes", &sizes]).sizes.unwrap().len(),
        cli::MAX_LIST
    );
}

/// One generated argument: a flag, a value (huge, empty, negative,
/// fractional, unicode, not UTF-8) or an algorithm name.
fn arg() -> impl Strategy<Value = OsString> {
    let flags = prop::sample::select(vec![
        "--list",
        "--variant",
        "--so",
        "--sec",
        "--precise",
        "--rounds",
        "--keys",
        "--sizes",
        "--setkey",
        "--json",
        "-h",
        "--help",
        "-V",
        "--version",
        "--",
        "-",
        "--fast",
        "--sizes=",
        "--sec=1",
        "--rounds=",
        "-x",
    ])
    .prop_map(OsString::from);
    let names = prop::sample::select(vec![
        "ecb(cast6)",
        "xts(cast6)",
        "crc32c",
        "digest_null",
        "all",
        "never",
        "rustcrypto",
        "",
    ])
    .prop_map(OsString::from);
    let numbers = prop::sample::select(vec![
        "0",
        "1",
        "3",
        "16",
        "25",
        "1000",
        "1001",
        "3600",
        "8192",
        "1048576",
        "1048577",
        "99999999999",
        "18446744073709551600",
        "18446744073709551615",
        "18446744073709551616",
        "-1",
        "-16",
        "0.5",
        "1e10",
        "1e308",
        "1e-300",
        "inf",
        "-inf",
        "nan",
        "NaN",
        "+16",
        " 16",
        "16,",
        ",16",
        "16,,64",
        "5,6",
        "16,32,64",
    ])
    .prop_map(OsString::from);
    let lists = prop::collection::vec(any::<u64>(), 0..80)
        .prop_map(|v| OsString::from(v.iter().map(u64::to_string).collect::<Vec<_>>().join(",")));
    let floats = any::<f64>().prop_map(|f| OsString::from(f.to_string()));
    let text = any::<String>().prop_map(OsString::from);
    let bytes = prop::collection::vec(any::<u8>(), 0..12).prop_map(OsString::from_vec);
    prop_oneof![
        4 => flags,
        2 => names,
        3 => numbers,
        1 => lists,
        1 => floats,
        1 => text,
        1 => bytes,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Whatever the arguments: no panic, and either a config within every
    /// bound, clap's help or version, or a one-line usage error.
    #[test]
    fn parse_never_panics(args in prop::collection::vec(arg(), 0..8)) {
        match cli::parse(args.clone()) {
            Ok(Parsed::Run(c)) => {
                prop_assert!(!c.algs.is_empty() || c.list);
                for s in c.sizes.iter().flatten() {
                    prop_assert!((1..=cli::MAX_BLOCK).contains(s), "{args:?}");
                }
                for k in c.keys.iter().flatten() {
                    prop_assert!((1..=cli::MAX_KEY).contains(k), "{args:?}");
                }
                prop_assert!(c.sizes.as_ref().is_none_or(|v| (1..=cli::MAX_LIST).contains(&v.len())));
                prop_assert!(c.keys.as_ref().is_none_or(|v| (1..=cli::MAX_LIST).contains(&v.len())));
                match c.timing {
                    Timing::Cycles => {}
                    Timing::Seconds(s) => prop_assert!(s > 0.0 && s <= cli::MAX_SECONDS),
                    Timing::Precise { rounds } => {
                        prop_assert!((cli::MIN_ROUNDS..=cli::MAX_ROUNDS).contains(&rounds))
                    }
                }
            }
            Ok(Parsed::Show(_)) => {}
            Err(e) => {
                prop_assert!(!e.0.is_empty(), "{args:?}");
                prop_assert!(!e.0.contains('\n') && !e.0.contains('\r'), "{args:?}: {e}");
            }
        }
    }
}

#[test]
fn bad_input() {
    let unknown_variant = format!(
        "unknown variant `sometimes` of ecb(cast6); expected one of: {}, rustcrypto",
        variants::cast6::VARIANTS.join(", ")
    );
    let cases: &[(&[&str], &str)] = &[
        (
            &["ecb(cast7)"],
            "unknown algorithm `ecb(cast7)`; expected one of: ecb(aes), cbc(aes)",
        ),
        (&["ecb(cast6)", "--variant", "sometimes"], &unknown_variant),
        (
            &["ecb(cast6)", "--keys", "17"],
            "ecb(cast6) does not take a 17-byte key; it takes 16, 20, 24, 28, 32 bytes",
        ),
        (
            &["xts(cast6)", "--keys", "16"],
            "xts(cast6) does not take a 16-byte key; it takes 32, 40, 48, 56, 64 bytes",
        ),
        (
            &["ecb(cast6)", "--sizes", "0"],
            "--sizes takes positive whole numbers",
        ),
        (
            &["ecb(cast6)", "--sizes", "-16"],
            "--sizes takes positive whole numbers",
        ),
        (
            &["ecb(cast6)", "--sizes", "16,,64"],
            "--sizes takes positive whole numbers",
        ),
        (
            &["ecb(cast6)", "--keys", "sixteen"],
            "--keys takes positive whole numbers",
        ),
        (
            &["ecb(cast6)", "--sec", "0"],
            "--sec takes a positive number of seconds",
        ),
        (
            &["ecb(cast6)", "--sec", "-1"],
            "--sec takes a positive number of seconds",
        ),
        (
            &["ecb(cast6)", "--sec", "soon"],
            "--sec takes a positive number of seconds",
        ),
        (&["ecb(cast6)", "--sec"], "--sec needs a value"),
        (
            &["ecb(cast6)", "--sec", "1", "--precise"],
            "--sec and --precise are different modes",
        ),
        (
            &["ecb(cast6)", "--rounds", "2", "--precise"],
            "--rounds must be at least 3",
        ),
        (&["ecb(cast6)", "--fast"], "unknown option `--fast`"),
        (&[], "no algorithm given"),
        (
            &["digest_null", "--keys", "16"],
            "digest_null is a hash and takes no --keys",
        ),
        (
            &["ecb(cast6)", "--so", "/nonexistent/lib.so"],
            "/nonexistent/lib.so",
        ),
    ];
    for (args, expected) in cases {
        check_usage(args, expected);
    }
}

#[test]
fn cycles_mode_prints_tcrypt_lines() {
    let out = tcrypt(&["ecb(cast6)", "--variant", "never", "--sizes", "16,20"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("cycle counter: "), "{stdout}");
    assert_eq!(
        lines[1],
        "testing speed of ecb(cast6) (cast6-never) encryption"
    );
    // 20 rounds up to 32; numbering runs on across key sizes (16 and 32 bytes).
    let shapes = [
        "test 0 (128 bit key, 16 byte blocks): 1 operation in ",
        "test 1 (128 bit key, 32 byte blocks): 1 operation in ",
        "test 2 (256 bit key, 16 byte blocks): 1 operation in ",
        "test 3 (256 bit key, 32 byte blocks): 1 operation in ",
    ];
    for (line, shape) in lines[2..6].iter().zip(shapes) {
        assert!(line.starts_with(shape), "{line}");
        assert!(line.ends_with(" bytes)"), "{line}");
    }
    assert_eq!(
        lines[6],
        "testing speed of ecb(cast6) (cast6-never) decryption"
    );
    assert_eq!(lines.len(), 11, "{stdout}");
}

#[test]
fn json_holds_every_measurement() {
    let dir_tmp = scratch("json");
    let dir = dir_tmp.path();
    let path = dir.join("out.json");
    let out = tcrypt(&[
        "ecb(cipher_null)",
        "digest_null",
        "--sec",
        "0.01",
        "--sizes",
        "16,64",
        "--json",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(json["schema_version"], 1);
    assert_eq!(json["generated_by"], bench_harness::cli::JSON_WRITER);
    // Its own earlier output, tcrypt replaces.
    let again = tcrypt(&[
        "ecb(cipher_null)",
        "--sec",
        "0.01",
        "--sizes",
        "16",
        "--json",
        path.to_str().unwrap(),
    ]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(json["cycles_are"].as_str().unwrap().len() > 5);
    let ms = json["measurements"].as_array().unwrap();
    // cipher_null: 2 directions x 1 key x 2 sizes; digest_null: 2 sizes.
    assert_eq!(ms.len(), 6);
    for m in ms {
        for field in [
            "alg",
            "variant",
            "dir",
            "key_bits",
            "block_bytes",
            "operations",
            "seconds",
            "cycles",
            "bytes_per_sec",
            "cycles_per_byte",
        ] {
            assert!(!m[field].is_null(), "{field} missing in {m}");
        }
        assert!(m["operations"].as_u64().unwrap() > 0);
    }
    assert_eq!(ms[4]["alg"], "digest_null");
    assert_eq!(ms[4]["dir"], "digest");
}

/// Drift: every variant each module of `variants` declares is listed, for
/// every algorithm that module implements, and every module has one.
#[test]
fn list_holds_every_declared_variant() {
    let out = tcrypt(&["--list"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    for (module, declared) in variants::DECLARED {
        let algs: Vec<_> = bench_harness::registry::all()
            .into_iter()
            .filter(|a| a.module() == *module)
            .collect();
        assert!(
            !algs.is_empty(),
            "variants::{module} is not in tcrypt --list"
        );
        for alg in algs {
            let name = alg.name();
            let line = stdout
                .lines()
                .find(|l| l.split_whitespace().next() == Some(name.as_str()))
                .unwrap_or_else(|| panic!("{name} missing:\n{stdout}"));
            let listed = format!("variants: {};", declared.join(", "));
            assert!(line.contains(&listed), "{name}: `{line}` lacks `{listed}`");
        }
    }
}

#[test]
fn list_names_every_algorithm() {
    let out = tcrypt(&["--list"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    for alg in [
        "ecb(aes)",
        "cbc(aes)",
        "ctr(aes)",
        "xts(aes)",
        "ecb(cast5)",
        "cbc(cast5)",
        "ctr(cast5)",
        "ecb(cast6)",
        "cbc(cast6)",
        "ctr(cast6)",
        "xts(cast6)",
        "ecb(cipher_null)",
        "crc32c",
        "digest_null",
    ] {
        assert!(
            stdout.lines().any(|l| l.starts_with(alg)),
            "{alg} missing:\n{stdout}"
        );
    }
    let xts = format!(
        "xts(cast6)         variants: {}; peer: rustcrypto; key bytes: 32, 64",
        variants::cast6::VARIANTS.join(", ")
    );
    assert!(stdout.contains(&xts), "{stdout}");
}

/// CRC32C through the kernel's hash template: one header per variant, a
/// line per template entry in tcrypt's hash format.
#[test]
fn crc32c_uses_the_hash_template() {
    let out = tcrypt(&["crc32c", "--variant", "slice8_auto", "--sec", "0.01"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[1], "testing speed of crc32c (crc32c-slice8_auto)");
    // The 22 entries of the template, 16/16 to 8192/8192.
    assert_eq!(lines.len(), 2 + 22, "{stdout}");
    assert!(
        lines[2].starts_with("test  0 (   16 byte blocks,   16 bytes per update,   1 updates): "),
        "{stdout}"
    );
    assert!(
        lines[23].starts_with("test 21 ( 8192 byte blocks, 8192 bytes per update,   1 updates): "),
        "{stdout}"
    );
    assert!(lines[23].ends_with(" bytes/sec"), "{stdout}");
}

/// `--setkey`: a header per variant, then one line per key size, numbered
/// from 0, in the cipher line's shape without block size and bytes.
#[test]
fn setkey_prints_a_line_per_key_size() {
    let out = tcrypt(&["ecb(cast6)", "--variant", "never", "--setkey"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("cycle counter: "), "{stdout}");
    assert_eq!(
        lines[1],
        "testing speed of ecb(cast6) (cast6-never) key setup"
    );
    // The template's key sizes: 16 and 32 bytes.
    for (line, shape) in lines[2..].iter().zip([
        "test 0 (128 bit key): 1 operation in ",
        "test 1 (256 bit key): 1 operation in ",
    ]) {
        assert!(line.starts_with(shape), "{line}");
        assert!(line.ends_with(" cycles"), "{line}");
    }
    assert_eq!(lines.len(), 4, "{stdout}");

    // Seconds mode, given key sizes, every variant, and the JSON records.
    let dir_tmp = scratch("setkey");
    let dir = dir_tmp.path();
    let path = dir.join("out.json");
    let out = tcrypt(&[
        "cbc(cast5)",
        "--setkey",
        "--keys",
        "5,8,16",
        "--sec",
        "0.01",
        "--json",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let headers = stdout
        .lines()
        .filter(|l| l.starts_with("testing speed of cbc(cast5) (") && l.ends_with(") key setup"))
        .count();
    let tests: Vec<&str> = stdout.lines().filter(|l| l.starts_with("test ")).collect();
    assert!(headers >= 1, "{stdout}");
    assert_eq!(tests.len(), 3 * headers, "{stdout}");
    for (i, line) in tests.iter().enumerate() {
        let bits = [40, 64, 128][i % 3];
        let shape = format!("test {} ({bits} bit key): ", i % 3);
        assert!(line.starts_with(&shape), "{line}");
        assert!(line.ends_with(" operations in 0.01 seconds"), "{line}");
    }
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let ms = json["measurements"].as_array().unwrap();
    assert_eq!(ms.len(), tests.len());
    for m in ms {
        assert_eq!(m["dir"], "setkey");
        assert_eq!(m["block_bytes"], 0);
        assert_eq!(m["bytes_per_sec"], 0.0);
        assert!(m["ops_per_sec"].as_f64().unwrap() > 0.0, "{m}");
        assert!(m["operations"].as_u64().unwrap() > 0);
    }
    assert_eq!(json["quiet"], bench_harness::interleave::QUIET);
    assert!(json["quiet_criterion"].as_str().unwrap().contains("quiet"));
    assert!(json["machine"]["kernel"].is_string());
}

#[test]
fn setkey_bad_combinations() {
    check_usage(
        &["ecb(cast6)", "--setkey", "--sizes", "16"],
        "--setkey times key setup, which has no block size; drop --sizes",
    );
    check_usage(
        &["ecb(cast6)", "--sizes", "16", "--setkey"],
        "--setkey times key setup, which has no block size; drop --sizes",
    );
    check_usage(
        &["crc32c", "--setkey"],
        "crc32c is a hash and has no key to set up; --setkey times block ciphers",
    );
    check_usage(
        &["ecb(cast6)", "--setkey", "--setkey"],
        "--setkey is given twice; give it once",
    );
    check_usage(
        &["ecb(cast6)", "--setkey=yes"],
        "unexpected value 'yes' for '--setkey' found",
    );
    check_usage(
        &["ecb(cast6)", "--setkey", "--keys", "17"],
        "ecb(cast6) does not take a 17-byte key",
    );
    check_usage(&["--setkey"], "no algorithm given");
    // Accepted with either mode.
    assert!(config(&["ecb(cast6)", "--setkey", "--precise"]).setkey);
    assert!(config(&["ecb(cast6)", "--setkey", "--sec", "1"]).setkey);
    assert!(!config(&["ecb(cast6)"]).setkey);
}

fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("tcrypt-{name}-"))
        .tempdir()
        .unwrap()
}

/// Temporaries (`.NAME.PID.N.tmp`, or the `NAME.tmp` of earlier versions).
fn temporaries(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect()
}

/// `--json` is written only as a regular file, by rename: a directory, a
/// device, a symbolic link, a path in a missing directory are refused
/// before anything is measured (nothing on stdout), left as they were, and
/// no temporary is left beside them (`--json DIR` once left `DIR.tmp`).
#[test]
fn json_paths_are_checked_before_the_run() {
    let dir_tmp = scratch("json-paths");
    let dir = dir_tmp.path();
    let target = dir.join("target.json");
    std::fs::write(&target, b"kept").unwrap();
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let sub = dir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    for (path, why) in [
        (s(&sub), "is a directory".to_string()),
        ("/dev/null".to_string(), "is not a regular file".to_string()),
        (s(&link), "is a symbolic link".to_string()),
        (
            s(&dir.join("missing/out.json")),
            format!(
                "directory {}: No such file or directory",
                s(&dir.join("missing"))
            ),
        ),
        (
            s(&target.join("out.json")),
            format!("{} is not a directory", s(&target)),
        ),
        (
            format!("{}/", s(dir)),
            "names a directory, not a file".to_string(),
        ),
        // A file tcrypt did not write (no `generated_by` of its own).
        (
            s(&target),
            "exists and was not written by tcrypt --json".to_string(),
        ),
    ] {
        check_usage(
            &[
                "ecb(cast6)",
                "--variant",
                "never",
                "--sizes",
                "16",
                "--json",
                &path,
            ],
            &format!("--json {path}: {why}"),
        );
    }
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&target).unwrap(), b"kept");
    assert!(temporaries(dir).is_empty(), "{:?}", temporaries(dir));
    assert!(temporaries(&sub).is_empty());
}

/// `--so` is inspected before `dlopen`: not a regular file, not a shared
/// object, a truncated one (which `dlopen` maps and dies of SIGBUS on), a
/// shared object that exports no ABI: each a one-line usage error.
#[test]
fn so_files_are_inspected_before_loading() {
    let dir_tmp = scratch("so-files");
    let dir = dir_tmp.path();
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let libc = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| p.contains("libc.so") || p.contains("libc-"))
        .expect("libc is mapped")
        .to_string();
    let bytes = std::fs::read(&libc).unwrap();
    let cut = dir.join("cut.so");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let text = dir.join("text.so");
    std::fs::write(&text, b"hello\n").unwrap();
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    for (path, why) in [
        ("/dev/null".to_string(), "not a regular file"),
        (s(dir), "not a regular file"),
        (
            s(&cut),
            "not an ELF shared object the loader can read, or truncated",
        ),
        (s(&text), "not an ELF shared object"),
        (libc.clone(), "not an inlinelab artifact (no inlinelab_abi,"),
        (s(&dir.join("missing.so")), "No such file or directory"),
    ] {
        check_usage(&["ecb(cast6)", "--so", &path], &format!("{path}: {why}"));
    }
    // A bare name is the file in the current directory, not one the
    // dynamic loader would find in its search path.
    let out = Command::new(env!("CARGO_BIN_EXE_tcrypt"))
        .args(["ecb(cast6)", "--so", "libc.so.6"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("tcrypt: libc.so.6: No such file or directory"),
        "{stderr}"
    );
}

/// `all` is every algorithm the other options fit: `--variant auto` leaves
/// out AES, CAST5 and CRC32C (whose variants are named by method or form:
/// `tables_auto`, `auto_factored`, `slice8_auto`), saying so once.
#[test]
fn all_is_every_algorithm_the_options_fit() {
    let plans = |args: &[&str]| cli::plan(&config(args));
    let p = plans(&["all", "--variant", "auto"]).unwrap();
    let names: Vec<String> = p.plans.iter().map(|p| p.alg.name()).collect();
    assert!(names.contains(&"ecb(cast6)".to_string()), "{names:?}");
    assert!(names.contains(&"digest_null".to_string()), "{names:?}");
    assert!(
        !names
            .iter()
            .any(|n| n.contains("cast5") || n.contains("(aes)") || n == "crc32c"),
        "{names:?}"
    );
    assert_eq!(
        p.notes,
        [
            "all: skipping ecb(aes), cbc(aes), ctr(aes), xts(aes), ecb(cast5), cbc(cast5), ctr(cast5), crc32c (no variant `auto`)"
        ]
    );
    for plan in &p.plans {
        assert_eq!(plan.engines.len(), 1, "{}", plan.alg.name());
        assert_eq!(plan.engines[0].0, "auto");
    }
    // --setkey: the block ciphers; --keys: those that take the sizes.
    let p = plans(&["all", "--setkey", "--keys", "16"]).unwrap();
    assert!(p.plans.iter().all(|p| !p.alg.name().starts_with("xts")));
    assert_eq!(p.notes.len(), 2, "{:?}", p.notes);
    // Without --variant every algorithm, with nothing to say.
    let p = plans(&["all"]).unwrap();
    assert_eq!(p.plans.len(), bench_harness::registry::all().len());
    assert!(p.notes.is_empty());
    // Fitting nothing is an error; a named algorithm that does not fit
    // still is one.
    let e = plans(&["all", "--variant", "sometimes"]).err().unwrap();
    assert_eq!(
        e.0,
        "no algorithm has a variant `sometimes`; --list shows each algorithm's variants"
    );
    assert!(plans(&["ecb(cast5)", "--variant", "auto"]).is_err());

    let out = tcrypt(&[
        "all",
        "--variant",
        "auto",
        "--sizes",
        "16",
        "--sec",
        "0.001",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr.lines().filter(|l| l.contains("skipping")).count(),
        1,
        "{stderr}"
    );
}

/// A reader that has gone (`tcrypt --list | head -1`) is no panic.
#[test]
fn a_closed_stdout_is_no_panic() {
    for args in [&["--list"][..], &["ecb(cipher_null)", "--sizes", "16"]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_tcrypt"))
            .args(args)
            .stdout(writer)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}
