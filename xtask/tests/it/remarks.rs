//! `-Cremark=inline`, which every artifact build passes so that LLVM's
//! decisions come from the build measured, changes no code: one of this
//! workspace's variants built with and without it, in one scratch target
//! directory, is the same `.so` byte for byte. (A crate's shim builds the
//! same way: `build/artifacts.rs` passes the flag to both.)

use crate::common::{root, scratch};
use std::process::Command;

/// The artifact of `cast6::auto_x4` built into `target`, with `flags` as
/// the compiler's extra flags: its bytes.
fn built(target: &std::path::Path, flags: &str) -> Vec<u8> {
    let out = Command::new(env!("CARGO"))
        .current_dir(root())
        .args([
            "build",
            "--profile",
            "artifact",
            "--package",
            "inlinelab-artifact",
            "--no-default-features",
            "--message-format=json",
        ])
        .arg("--target-dir")
        .arg(target)
        .env("INLINELAB_VARIANT", "cast6::auto_x4")
        .env_remove("RUSTFLAGS")
        .env("CARGO_ENCODED_RUSTFLAGS", flags)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !flags.is_empty() {
        assert!(
            stdout.contains("inline (success)"),
            "the flag printed no remark"
        );
    }
    std::fs::read(target.join("artifact/libinlinelab_artifact.so")).expect("the artifact")
}

#[test]
#[ignore = "CI tier: builds a variant twice from an empty target directory; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn the_remarks_flag_changes_no_code() {
    let dir = scratch("remarks");
    let with = built(dir.path(), "-Cremark=inline");
    let without = built(dir.path(), "");
    assert!(with.len() > 10_000, "{} bytes", with.len());
    assert!(with == without, "the artifact differs with -Cremark=inline");
}
