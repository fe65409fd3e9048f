//! The backend counted: which of a crate's modules got the instructions
//! callgrind counted in each case (`count/functions.rs` per function,
//! `intake/modules.rs` per module). Valgrind's CPU is not this one (it has
//! no AVX-512), so a crate that picks its backend at run time may be
//! counted on another backend than the one it is timed on
//! (`child/which_ran.rs` says which that is).

use crate::count::callgrind::{self, Count};
use crate::count::functions::Functions;
use crate::intake::modules::{self, Library};
use crate::report::ran::Observed;
use crate::report::{Family, Operation};
use bench_harness::sampling::Case;
use std::path::Path;

/// Counts the artifact `so` (of the cipher `cipher`, a crate whose library
/// is `lib`) in `cases` with callgrind, in `dir` (scratch), and attributes
/// each case's instructions to the crate's modules, and to `crates` (with
/// `--also`: the crate and its dependencies; none, no attribution by
/// crate): one per case, each of its own family (the first case of a
/// family kept).
pub fn counted(
    cipher: &str,
    so: &Path,
    cases: &[Case],
    lib: &str,
    crates: &[Library],
    dir: &Path,
) -> Observed {
    if callgrind::check().is_err() {
        return Observed::Unavailable("valgrind is not installed".into());
    }
    let dir = dir.join("backend-counted");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return Observed::Unavailable(format!("{}: {e}", dir.display()));
    }
    let name =
        (so.file_stem()).map_or_else(|| "artifact".into(), |s| s.to_string_lossy().into_owned());
    let artifacts = [(name, so.to_path_buf())];
    match callgrind::count_functions(&artifacts, cases, &dir).pop() {
        Some((Count::Counted(_), functions)) => attribute(cipher, lib, crates, cases, &functions),
        Some((Count::Unavailable(why) | Count::Failed(why) | Count::Hung(why), _)) => {
            Observed::Unavailable(why)
        }
        None => Observed::Unavailable("nothing counted".into()),
    }
}

/// Each case's instructions per function (`functions`, in case order, as
/// [`callgrind::count_functions`] gives them) by the crate's modules, and
/// by `crates` unless there are none, one case per family (the first).
pub fn attribute(
    cipher: &str,
    lib: &str,
    crates: &[Library],
    cases: &[Case],
    functions: &[Functions],
) -> Observed {
    let mut out = Vec::new();
    for (case, dump) in cases.iter().zip(functions) {
        let alg = case.alg(cipher);
        let dir = Operation::of(case);
        let family = Family::of_case(&alg, dir, case.key_bytes * 8);
        if out
            .iter()
            .any(|r: &crate::report::ran::FamilyRan| r.family == family)
        {
            continue;
        }
        let names: Vec<(String, u64)> = (dump.iter())
            .map(|(raw, n)| (format!("{:#}", rustc_demangle::demangle(raw)), *n))
            .collect();
        let weights = || names.iter().map(|(n, c)| (Some(n.as_str()), *c));
        let mut ran = modules::attribute(
            lib,
            family,
            (&alg, dir, case.key_bytes * 8, case.block_bytes),
            weights(),
        );
        if !crates.is_empty() {
            ran.by_crate = Some(modules::by_crate(crates, weights()));
        }
        out.push(ran);
    }
    out.sort_by_key(|r| Family::ALL.iter().position(|&f| f == r.family));
    Observed::Families(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_harness::engine::{Dir, Mode};

    /// Each case's instructions by the crate's modules, demangled, a case
    /// per family: under valgrind, aes's parallel case counts in
    /// `x86_aes`.
    #[test]
    fn instructions_by_module_per_family() {
        let cases = [
            Case::crypt(Mode::Ecb, Dir::Encrypt, 16, 8192),
            Case::crypt(Mode::Ecb, Dir::Decrypt, 16, 8192),
            Case::set_key(Mode::Ecb, 16),
        ];
        let f = |v: &[(&str, u64)]| -> Functions {
            v.iter().map(|&(n, c)| (n.to_string(), c)).collect()
        };
        let functions = [
            f(&[
                ("inlinelab_crypt", 40),
                ("_ZN3aes8backends7x86_aes7encrypt17h0123456789abcdefE", 9000),
                ("_ZN6cipher5block6helper17h0123456789abcdefE", 60),
            ]),
            f(&[("_ZN3aes8backends7x86_aes7decrypt17h0123456789abcdefE", 1)]),
            f(&[(
                "_ZN3aes8backends7x86_aes6expand3new17h0123456789abcdefE",
                700,
            )]),
        ];
        let Observed::Families(r) = attribute("aes", "aes", &[], &cases, &functions) else {
            panic!("families");
        };
        assert_eq!(r.len(), 2, "one per family: {r:?}");
        assert_eq!(r[0].family, Family::Parallel);
        assert_eq!(r[0].alg, "ecb(aes)");
        assert_eq!(r[0].total, 9100);
        assert_eq!(r[0].backend().map(|b| b.0), Some("aes::backends::x86_aes"));
        assert_eq!(r[1].family, Family::Setkey);
        assert_eq!(
            r[1].backend().map(|b| b.0),
            Some("aes::backends::x86_aes::expand")
        );
        assert!(r.iter().all(|f| f.by_crate.is_none()), "no --also: {r:?}");
        // With `--also`, each family's count by crate too, summing to its
        // total.
        let crates = [
            Library {
                krate: "aes".into(),
                lib: "aes".into(),
            },
            Library {
                krate: "cipher".into(),
                lib: "cipher".into(),
            },
        ];
        let Observed::Families(r) = attribute("aes", "aes", &crates, &cases, &functions) else {
            panic!("families");
        };
        let by = r[0].by_crate.as_ref().expect("by crate");
        let counts: Vec<u64> = by.crates.iter().map(|c| c.count).collect();
        assert_eq!((counts.as_slice(), by.other), ([9000, 60].as_slice(), 40));
        assert_eq!(r[1].by_crate.as_ref().map(|b| b.crates[0].count), Some(700));
    }

    /// callgrind's own file (the toycipher fixture's three cases, one per
    /// family): each family's instructions by module, counts kept.
    #[test]
    fn the_fixtures_file_by_module() {
        let text = include_str!("../../tests/golden/callgrind-toycipher.out");
        let functions = crate::count::functions::dump_functions(text);
        let cases = [
            Case::crypt(Mode::Ecb, Dir::Encrypt, 16, 16),
            Case::crypt(Mode::Cbc, Dir::Encrypt, 16, 16),
            Case::set_key(Mode::Ecb, 16),
        ];
        let Observed::Families(r) = attribute("toycipher", "toycipher", &[], &cases, &functions)
        else {
            panic!("families");
        };
        let families: Vec<Family> = r.iter().map(|f| f.family).collect();
        assert_eq!(families, [Family::Parallel, Family::Serial, Family::Setkey]);
        assert_eq!(r[0].total, 1178);
        assert_eq!(r[0].modules.len(), 1, "{r:?}");
        assert_eq!(
            (r[0].modules[0].module.as_str(), r[0].modules[0].count),
            ("toycipher::round", 1101)
        );
        for f in &r {
            assert!(
                f.backend().is_some_and(|b| b.0.starts_with("toycipher")),
                "{f:?}"
            );
        }
    }
}
