//! The `tcrypt` binary: bad input is one line naming the allowed values and
//! exit code 2; good input prints tcrypt's lines and writes JSON.

use std::process::{Command, Output};

fn tcrypt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tcrypt"))
        .args(args)
        .output()
        .expect("tcrypt runs")
}

/// Bad input: exit 2, no panic, a first line of stderr that contains
/// `expected`, and a hint line.
fn check_usage(args: &[&str], expected: &str) {
    let out = tcrypt(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    let mut lines = stderr.lines();
    let first = lines.next().unwrap_or_default();
    assert!(first.starts_with("tcrypt: "), "{args:?}: {stderr}");
    assert!(
        first.contains(expected),
        "{args:?}: `{first}` lacks `{expected}`"
    );
    assert!(
        lines.next().unwrap_or_default().starts_with("hint: "),
        "{args:?}: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
}

#[test]
fn bad_input() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["ecb(cast7)"],
            "unknown algorithm `ecb(cast7)`; expected one of: ecb(aes), cbc(aes)",
        ),
        (
            &["ecb(cast6)", "--variant", "sometimes"],
            "unknown variant `sometimes` of ecb(cast6); expected one of: always, never, hint, auto, rustcrypto",
        ),
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
    let dir = std::env::temp_dir().join(format!("tcrypt-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
    std::fs::remove_dir_all(&dir).unwrap();
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
    assert!(stdout.contains("xts(cast6)         variants: always, never, hint, auto; peer: rustcrypto; key bytes: 32, 64"));
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
