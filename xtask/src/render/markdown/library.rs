//! The sizes table's note on library peers: what their hot path and key
//! schedule are (measured dynamically, `count/reached.rs`), each peer's
//! parts, or why they are unknown.

use super::cells::{bytes, opt_bytes};
use crate::env::escape::{md_code, md_text};
use crate::report::Report;
use crate::select::artifact::{LibraryCode, LibraryFunction};
use std::fmt::Write;

/// The note under the sizes table; empty when no peer is a library's.
pub fn sizes_note(r: &Report) -> String {
    let peers: Vec<(&str, &LibraryCode)> = (r.entries())
        .filter_map(|e| Some((e.name.as_str(), e.artifact.as_ref()?.library.as_ref()?)))
        .collect();
    if peers.is_empty() {
        return String::new();
    }
    let mut w = String::from(
        "A library's hot path and key schedule are its artifact's own (the functions its entries reach, as a variant's) and the bytes of the library's functions (by its `.eh_frame`, else its `.dynsym`) that executed under callgrind in the counted cases (the instructions columns' cases: key setup's for the key schedule, and not the crypt cases'): measured dynamically, not by reachability, which a library stripped of its local symbols does not allow; the functions are in the JSON (`artifact.library`).\n\n",
    );
    for (name, code) in peers {
        let _ = match &code.unmeasured {
            Some(why) => writeln!(
                w,
                "- {}: hot path and key schedule unknown: {}.",
                md_code(name),
                md_text(why)
            ),
            None => writeln!(
                w,
                "- {}: hot path {} of its artifact and {}; key schedule {} of its artifact and {}.",
                md_code(name),
                opt_bytes(code.own_hot_path_bytes),
                functions(&code.hot_path),
                opt_bytes(code.own_key_schedule_bytes),
                if code.key_setup_counted {
                    functions(&code.key_schedule)
                } else {
                    "unknown of its library (no key setup case was counted)".into()
                }
            ),
        };
    }
    w
}

/// `functions` said: their bytes and how many, by file.
fn functions(functions: &[LibraryFunction]) -> String {
    let mut files: Vec<(&str, usize, u64)> = Vec::new();
    for f in functions {
        match files.iter_mut().find(|(name, ..)| *name == f.file) {
            Some((_, n, b)) => {
                *n += 1;
                *b = b.saturating_add(f.bytes);
            }
            None => files.push((&f.file, 1, f.bytes)),
        }
    }
    if files.is_empty() {
        return "none of its library".into();
    }
    let said: Vec<String> = (files.iter())
        .map(|(file, n, b)| {
            let s = if *n == 1 { "" } else { "s" };
            format!("{} in {n} function{s} of {}", bytes(*b), md_code(file))
        })
        .collect();
    said.join(" and ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_by_file() {
        let f = |file: &str, start, bytes| LibraryFunction {
            file: file.into(),
            start,
            bytes,
        };
        let said = functions(&[
            f("libcrypto.so.3", 0x10, 1000),
            f("legacy.so", 0x20, 24),
            f("libcrypto.so.3", 0x30, 500),
        ]);
        assert_eq!(
            said,
            "1,500 in 2 functions of `libcrypto.so.3` and 24 in 1 function of `legacy.so`"
        );
        assert_eq!(functions(&[]), "none of its library");
    }
}
