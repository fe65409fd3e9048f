//! Sizes of a built artifact, read with the `object` crate: the file, its
//! sections, its footprint, the code reachable from its entries (see
//! `code.rs`), and each function of the cipher.

use crate::build::code;
use crate::select::artifact::{Artifact, Function, LibraryCode};
use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};
use std::path::Path;

/// An artifact's sizes, and its hot path's normalized code (compared, not
/// stored).
pub struct Sized {
    pub artifact: Artifact,
    pub hot_path: Option<Vec<u8>>,
    /// What `inlinelab_set_key` reaches, normalized as the hot path is.
    pub key_schedule: Option<Vec<u8>>,
}

/// Reads `so` (`rlib_bytes` is the size of the cipher crate's `.rlib`).
/// Functions are those whose demangled path starts in `crate_name`; `rounds` are looked for among them as
/// `<module>::<variant>::<round>` (any variant module when `variant` is `None`).
pub fn read(
    so: &Path,
    rlib_bytes: u64,
    crate_name: &str,
    variant: Option<&str>,
    rounds: &[&str],
) -> Result<Sized, String> {
    let data = std::fs::read(so).map_err(|e| format!("{}: {e}", so.display()))?;
    let file = object::File::parse(&*data).map_err(|e| format!("{}: {e}", so.display()))?;
    let section = |name: &str| file.section_by_name(name).map_or(0, |s| s.size());
    let (functions, rounds_out_of_line) = cipher_functions(&file, crate_name, variant, rounds);
    let image = code::Image::new(&file, variant);
    // Compared: everything the entry reaches. Counted: not the panic
    // machinery, which a call that does not panic never runs.
    let same = image
        .walk(code::CRYPT, &|_| false)
        .and_then(|w| w.normalized);
    let same_key = image
        .walk(code::SET_KEY, &|_| false)
        .and_then(|w| w.normalized);
    let hot = image.walk(code::CRYPT, &code::is_panic);
    let key = image.walk(code::SET_KEY, &code::is_panic);
    let (text_bytes, rodata_bytes, data_bytes) =
        (section(".text"), section(".rodata"), section(".data"));
    let artifact = Artifact {
        path: so
            .strip_prefix(crate::env::workspace::root())
            .unwrap_or(so)
            .display()
            .to_string(),
        fingerprint: bench_harness::so::fingerprint(so)
            .map_err(|e| format!("{}: {e}", so.display()))?,
        so_bytes: data.len() as u64,
        text_bytes,
        rodata_bytes,
        data_bytes,
        footprint_bytes: text_bytes + rodata_bytes + data_bytes,
        hot_path_bytes: hot.as_ref().map(|w| w.bytes()),
        key_schedule_bytes: key
            .as_ref()
            .map(|k| hot.as_ref().map_or(k.bytes(), |h| k.bytes_not_in(h))),
        hot_path_code: same.as_deref().map(code::hash),
        hot_path: hot.as_ref().map_or(Vec::new(), |w| {
            w.functions
                .iter()
                .map(|(name, bytes)| Function {
                    name: name.clone(),
                    bytes: *bytes,
                })
                .collect()
        }),
        rlib_bytes,
        functions,
        rounds_out_of_line,
        inlining: Vec::new(),
        inlining_shared: None,
        library: None,
    };
    Ok(Sized {
        artifact,
        hot_path: same,
        key_schedule: same_key,
    })
}

/// The functions whose demangled path starts in `crate_name`, largest
/// first, and which of `rounds` are among them (see [`read`]).
fn cipher_functions(
    file: &object::File<'_>,
    crate_name: &str,
    variant: Option<&str>,
    rounds: &[&str],
) -> (Vec<Function>, Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    let mut full_names = Vec::new();
    let mut functions = Vec::new();
    for sym in file.symbols() {
        if sym.kind() != SymbolKind::Text || sym.size() == 0 || !seen.insert(sym.address()) {
            continue;
        }
        let Ok(raw) = sym.name() else { continue };
        let name = format!("{:#}", rustc_demangle::demangle(raw));
        let bare = name.trim_start_matches('<');
        if !bare.starts_with(&format!("{crate_name}::")) {
            continue;
        }
        functions.push(Function {
            name: code::shorten(&name),
            bytes: sym.size(),
        });
        full_names.push(name.replace(['<', '>'], ""));
    }
    functions.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.name.cmp(&b.name)));
    let rounds_out_of_line = rounds
        .iter()
        .filter(|r| {
            full_names.iter().any(|n| match variant {
                // Every variant is a child module `<cipher>::<variant>`.
                Some(v) => n.ends_with(&format!("::{v}::{r}")),
                None => n.ends_with(&format!("::{r}")),
            })
        })
        .map(|r| r.to_string())
        .collect();
    (functions, rounds_out_of_line)
}

/// A library peer's sizes: its artifact's own sections with the sections
/// of the library's files added (the code and data a process that links
/// the library maps; the library's, then its provider module's); what
/// the hot path and the key schedule reach in those files, which the walk
/// of the artifact cannot follow into the library, is measured under
/// callgrind later (`count/reached.rs`): until then the artifact's own
/// are kept in `library` and its figures are unknown.
pub fn add_library(a: &mut Artifact, files: &[std::path::PathBuf]) -> Result<(), String> {
    for library in files {
        let data = std::fs::read(library).map_err(|e| format!("{}: {e}", library.display()))?;
        let file =
            object::File::parse(&*data).map_err(|e| format!("{}: {e}", library.display()))?;
        let section = |name: &str| file.section_by_name(name).map_or(0, |s| s.size());
        let (text, rodata, data) = (section(".text"), section(".rodata"), section(".data"));
        a.text_bytes += text;
        a.rodata_bytes += rodata;
        a.data_bytes += data;
        a.footprint_bytes += text + rodata + data;
    }
    a.library = Some(LibraryCode {
        own_hot_path_bytes: a.hot_path_bytes.take(),
        own_key_schedule_bytes: a.key_schedule_bytes.take(),
        unmeasured: Some("not counted under callgrind".into()),
        ..LibraryCode::default()
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::build::code::shorten;

    #[test]
    fn shortens_paths() {
        let check = |full: &str, short: &str| assert_eq!(shorten(full), short);
        check("variants::rfc2612::cast6::never::f1", "f1");
        check(
            "<variants::rfc2612::cast6::never::Cast6 as cipher::block::backends::BlockCipherEncBackend>::encrypt_block",
            "<Cast6 as BlockCipherEncBackend>::encrypt_block",
        );
        check(
            "<variants::rfc2612::cast6::never::Cast6>::key_schedule",
            "<Cast6>::key_schedule",
        );
        check("cast6::forward_quad", "forward_quad");
    }
}
