//! The answer as a patch: the edits of the variant a crate's verdict picks
//! (measured whole in the run), written as a unified diff against the
//! crate's own source, paths relative to the package root, so that `git
//! apply` and `patch -p1` take it in a checkout of that version.
//!
//! The copies the run built are edited in place, no line moved (a removed
//! attribute leaves spaces, `annotations/edit.rs`); a patch is for a
//! person, so each edited line is written as one would write it: a line
//! left blank by a removal is deleted, and the spaces a removal left
//! within a line are closed up. Only edited lines change; the diff itself
//! is `similar`'s.

use similar::TextDiff;
use std::path::{Path, PathBuf};

/// One file of the package as published and as the pick has it.
pub struct File {
    /// Relative to the package root, `/`-separated.
    pub path: PathBuf,
    pub published: String,
    /// The copy's text, lines unmoved.
    pub edited: String,
    /// Comments to write above lines (numbered from 1, as published), each
    /// with that line's indentation (`--explain-in-source`).
    pub comments: Vec<(usize, String)>,
}

/// The file's text as the patch writes it: each line the edits changed
/// written as a person would ([`tidy_line`]), every other line as
/// published; each of `comments` on a line of its own above its line.
pub fn tidy(published: &str, edited: &str, comments: &[(usize, String)]) -> String {
    let old: Vec<&str> = published.split_inclusive('\n').collect();
    let new: Vec<&str> = edited.split_inclusive('\n').collect();
    if old.len() != new.len() {
        // Not an in-place edit: taken as it is.
        return edited.to_string();
    }
    let mut out = String::new();
    for (n, (o, l)) in old.iter().zip(&new).enumerate() {
        let (body, end) = split_end(l);
        for (_, text) in comments.iter().filter(|(at, _)| *at == n + 1) {
            let indent: String = body.chars().take_while(|c| c.is_whitespace()).collect();
            out.push_str(&format!("{indent}// {text}\n"));
        }
        if o == l {
            out.push_str(l);
            continue;
        }
        let (old_body, _) = split_end(o);
        if let Some(line) = tidy_line(old_body, body) {
            out.push_str(&format!("{line}{end}"));
        }
    }
    out
}

/// A line and its line ending.
fn split_end(line: &str) -> (&str, &str) {
    let body = line.trim_end_matches(['\n', '\r']);
    (body, &line[body.len()..])
}

/// An edited line as a person would write it: `None` when the edit left it
/// blank (it is deleted); the spaces a removal left closed up (the
/// indentation kept, one space between what stood either side); an
/// attribute inserted before an item on a line of its own above it (two
/// lines, then); a rewrite as it is.
pub fn tidy_line(published: &str, edited: &str) -> Option<String> {
    if edited.trim().is_empty() {
        return None;
    }
    let prefix = (published.char_indices().zip(edited.chars()))
        .find(|((_, a), b)| a != b)
        .map_or(published.len().min(edited.len()), |((i, _), _)| i);
    let suffix = (published[prefix..].chars().rev())
        .zip(edited[prefix..].chars().rev())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum::<usize>();
    let middle = &edited[prefix..edited.len() - suffix];
    let head = &edited[..prefix];
    let inserted = prefix + suffix == published.len();
    if inserted && head.trim().is_empty() && middle.starts_with("#[") {
        // An attribute inserted before an item: on a line of its own
        // above it, at its indentation.
        let rest = &edited[edited.len() - suffix..];
        return Some(format!("{head}{}\n{head}{rest}", middle.trim_end()));
    }
    if !middle.trim().is_empty() {
        return Some(edited.to_string());
    }
    let tail = edited[edited.len() - suffix..].trim_start();
    Some(if head.trim().is_empty() {
        format!("{head}{tail}")
    } else {
        format!("{} {tail}", head.trim_end())
    })
}

/// The unified diff of `files` (those the edits changed), each as `a/PATH`
/// and `b/PATH` with three lines of context; empty when nothing changed.
pub fn unified(files: &[File]) -> String {
    let mut out = String::new();
    for f in files {
        let after = tidy(&f.published, &f.edited, &f.comments);
        if after == f.published {
            continue;
        }
        let path = f.path.to_string_lossy().replace('\\', "/");
        let diff = TextDiff::from_lines(&f.published, &after);
        out.push_str(&format!("diff --git a/{path} b/{path}\n"));
        out.push_str(
            &diff
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{path}"), &format!("b/{path}"))
                .to_string(),
        );
    }
    out
}

/// Whether `patch` applies to the package at `source` (the copy as
/// published): `git apply --check` in a temporary repository holding a
/// copy of it. `Err` says why not.
pub fn applies(source: &Path, patch: &str, scratch: &Path) -> Result<(), String> {
    let repo = scratch.join("apply-check");
    let _ = std::fs::remove_dir_all(&repo);
    crate::intake::copy::copy_package(source, &repo).map_err(|e| format!("{e:?}"))?;
    let file = scratch.join("check.patch");
    std::fs::write(&file, patch).map_err(|e| format!("{}: {e}", file.display()))?;
    let git = |args: &[&str]| {
        crate::env::git::command(&repo)
            .args(args)
            .output()
            .map_err(|e| format!("running git: {e}"))
    };
    let init = git(&["init", "-q"])?;
    if !init.status.success() {
        return Err(String::from_utf8_lossy(&init.stderr).trim().to_string());
    }
    let path = file.display().to_string();
    let check = git(&["apply", "--check", "--", &path])?;
    if check.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&check.stderr).trim().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edited_lines_are_written_as_a_person_would() {
        // A removal on a line of its own: the line goes.
        assert_eq!(tidy_line("    #[inline]", "             "), None);
        // Before the function on its line: the indentation kept.
        assert_eq!(
            tidy_line("    #[inline] fn f() {}", "              fn f() {}").as_deref(),
            Some("    fn f() {}")
        );
        // Within a cfg_attr holding others: one space where it was.
        assert_eq!(
            tidy_line(
                "#[cfg_attr(x, inline, cold)]",
                "#[cfg_attr(x,         cold)]"
            )
            .as_deref(),
            Some("#[cfg_attr(x, cold)]")
        );
        // A rewrite and an insertion stay as the edit wrote them.
        assert_eq!(
            tidy_line("    #[inline]", "    #[inline(never)]").as_deref(),
            Some("    #[inline(never)]")
        );
        assert_eq!(
            tidy_line("    fn f() {}", "    #[inline(always)] fn f() {}").as_deref(),
            Some("    #[inline(always)]\n    fn f() {}")
        );
        assert_eq!(
            tidy_line("    pub fn f() {}", "    #[inline] pub fn f() {}").as_deref(),
            Some("    #[inline]\n    pub fn f() {}")
        );
    }

    /// The diff holds only the edited lines, with context, and `git apply
    /// --check` takes it against the published files.
    #[test]
    fn a_patch_of_in_place_edits_applies() {
        let published =
            "fn a() {}\n\n#[inline]\nfn b() {}\n\n    #[inline] fn c() {}\n\n    pub fn d() {}\n";
        let edited = "fn a() {}\n\n         \nfn b() {}\n\n              fn c() {}\n\n    #[inline] pub fn d() {}\n";
        let files = [File {
            path: PathBuf::from("src/lib.rs"),
            published: published.into(),
            edited: edited.into(),
            comments: Vec::new(),
        }];
        let patch = unified(&files);
        assert!(
            patch.starts_with(
                "diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@"
            ),
            "{patch}"
        );
        assert!(patch.contains("\n-#[inline]\n"), "{patch}");
        assert!(
            patch.contains("\n-    #[inline] fn c() {}\n+    fn c() {}\n"),
            "{patch}"
        );
        let tmp = tempfile::tempdir().unwrap();
        let source = tmp.path().join("pkg");
        std::fs::create_dir_all(source.join("src")).unwrap();
        std::fs::write(source.join("src/lib.rs"), published).unwrap();
        applies(&source, &patch, tmp.path()).unwrap();
        // Against a source that drifted, it does not.
        std::fs::write(source.join("src/lib.rs"), "fn other() {}\n").unwrap();
        assert!(applies(&source, &patch, tmp.path()).is_err());
        // Nothing edited, nothing written.
        let same = [File {
            path: PathBuf::from("src/lib.rs"),
            published: published.into(),
            edited: published.into(),
            comments: Vec::new(),
        }];
        assert_eq!(unified(&same), "");
    }

    /// `--explain-in-source`: a comment on a line of its own above its
    /// line, indented as it is, above an inserted attribute too; the patch
    /// still applies.
    #[test]
    fn comments_go_above_their_lines() {
        let published = "#[inline]\nfn b() {}\n\n    fn c() {}\n";
        let edited = "#[inline]\nfn b() {}\n\n    #[inline] fn c() {}\n";
        let comments = vec![(1, "kept: it pays".to_string()), (4, "added".to_string())];
        assert_eq!(
            tidy(published, edited, &comments),
            "// kept: it pays\n#[inline]\nfn b() {}\n\n    // added\n    #[inline]\n    fn c() {}\n"
        );
        let files = [File {
            path: PathBuf::from("src/lib.rs"),
            published: published.into(),
            edited: edited.into(),
            comments,
        }];
        let tmp = tempfile::tempdir().unwrap();
        let source = tmp.path().join("pkg");
        std::fs::create_dir_all(source.join("src")).unwrap();
        std::fs::write(source.join("src/lib.rs"), published).unwrap();
        applies(&source, &unified(&files), tmp.path()).unwrap();
    }
}
