//! git, the one way this tool runs it: in a given directory, with no pager,
//! no prompt and no optional locks (a status or rev-parse may otherwise
//! refresh the index: a write into `.git`); a revision a user gave is
//! resolved after `--end-of-options`, so that it is never read as an
//! option.

use std::path::Path;
use std::process::Command;

/// `git` in `dir`, ready for its arguments.
pub fn command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .arg("--no-pager");
    cmd
}

/// What git prints for `args` in `dir`, trimmed, when it succeeds.
pub fn output(dir: &Path, args: &[&str]) -> Option<String> {
    command(dir)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// The commit `rev` names in the repository at `dir` (40 hex digits);
/// `None` when it names none.
pub fn resolve(dir: &Path, rev: &str) -> Option<String> {
    let spec = format!("{rev}^{{commit}}");
    output(
        dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &spec,
        ],
    )
    .filter(|c| c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// A revision that looks like an option is a revision, not an option;
    /// HEAD resolves to a full hash.
    #[test]
    fn a_revision_is_never_an_option() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        assert!(super::resolve(&root, "--help").is_none());
        assert!(super::resolve(&root, "--output=/tmp/x").is_none());
        if let Some(head) = super::resolve(&root, "HEAD") {
            assert_eq!(head.len(), 40);
        }
    }
}
