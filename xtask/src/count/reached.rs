//! A library peer's code that its hot path and key schedule reached in the
//! library, measured dynamically: the library is stripped of its local
//! symbols, so its call graph cannot be walked as an artifact's is
//! (`build/code.rs`). The peer's artifact ran under callgrind in the
//! cases the report counts (`explain.rs`, with `--dump-instr=yes`); the
//! instructions that executed in the library's files (the library's, and
//! OpenSSL's provider module) are turned into the functions that hold them
//! (`build/ranges.rs`: `.eh_frame` FDEs, else sized `.dynsym` symbols).
//! The hot path is every function that executed in a crypt case, the key
//! schedule every one that executed in the key setup case and in no crypt
//! case, as "reached" is for an artifact. Other libraries they call (libc,
//! libgpg-error) are not the peer's, as they are not an artifact's.
//!
//! callgrind writes an object's addresses less its load bias, which are
//! the file's virtual addresses; that is checked, not assumed: the start
//! of some exported function callgrind names (its `.dynsym` address) must
//! be among the addresses that executed, else the figures are refused.
//! (Not every named address is inside its symbol: callgrind gives code
//! entered by a jump from a function, such as a stripped local one that
//! an exported wrapper tail-calls, that function's name.)

use crate::build::ranges::Ranges;
use crate::count::executed::Executed;
use crate::select::artifact::{LibraryCode, LibraryFunction};
use bench_harness::sampling::{Case, CaseKind};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What a library peer reached in its library: the functions of its hot
/// path and of its key schedule, and whether a key setup case was counted.
#[derive(Debug, Default, PartialEq)]
pub struct Reached {
    pub hot_path: Vec<LibraryFunction>,
    pub key_schedule: Vec<LibraryFunction>,
    pub key_setup_counted: bool,
}

/// Records in `code` what [`reached`] measured, or why it could not.
pub fn record(code: &mut LibraryCode, measured: Result<Reached, String>) {
    match measured {
        Ok(r) => {
            code.hot_path = r.hot_path;
            code.key_schedule = r.key_schedule;
            code.key_setup_counted = r.key_setup_counted;
            code.unmeasured = None;
        }
        Err(why) => {
            code.hot_path.clear();
            code.key_schedule.clear();
            code.key_setup_counted = false;
            code.unmeasured = Some(why);
        }
    }
}

/// The library's functions that executed in `executed` (one dump per case
/// of `cases`, in order) in `files` (the library's files, as
/// `env/library.rs` found them), each file's functions read from it.
pub fn reached(
    files: &[PathBuf],
    cases: &[Case],
    executed: &[Executed],
) -> Result<Reached, String> {
    let read: Vec<(PathBuf, Ranges)> = (files.iter())
        .map(|f| Ok((real(f), Ranges::read(f)?)))
        .collect::<Result<_, String>>()?;
    reached_in(&read, cases, executed)
}

/// [`reached`], with each file's functions given (`(real path, functions)`).
pub fn reached_in(
    files: &[(PathBuf, Ranges)],
    cases: &[Case],
    executed: &[Executed],
) -> Result<Reached, String> {
    if executed.len() != cases.len() {
        return Err(format!(
            "callgrind's file has {} dumps of instructions where {} cases were counted",
            executed.len(),
            cases.len()
        ));
    }
    let (mut hot, mut key) = (BTreeSet::new(), BTreeSet::new());
    // Whether an exported function's start executed, and one that did not
    // (for the refusal).
    let (mut confirmed, mut unconfirmed) = (false, None);
    for (case, dump) in cases.iter().zip(executed) {
        let into = match case.kind {
            CaseKind::Crypt => &mut hot,
            CaseKind::SetKey => &mut key,
        };
        for (object, ran) in dump {
            let object = real(Path::new(object));
            let Some((path, ranges)) = files.iter().find(|(f, _)| *f == object) else {
                continue;
            };
            let file = file_name(path);
            for name in &ran.named {
                let mut starts = ranges.starts_of(name).peekable();
                if starts.peek().is_none() {
                    continue;
                }
                if starts.any(|s| ran.addresses.contains(&s)) {
                    confirmed = true;
                } else {
                    unconfirmed.get_or_insert_with(|| format!("{file}'s `{name}`"));
                }
            }
            let mut outside = 0usize;
            for &a in &ran.addresses {
                match ranges.function_at(a) {
                    Some(r) => {
                        into.insert(LibraryFunction {
                            file: file.clone(),
                            start: r.start,
                            bytes: r.bytes,
                        });
                    }
                    None if ranges.in_stub(a) => {}
                    None => outside += 1,
                }
            }
            if outside > 0 {
                return Err(format!(
                    "{outside} instructions that ran in {file} are in no function its .eh_frame or .dynsym states"
                ));
            }
        }
    }
    if let (false, Some(named)) = (confirmed, unconfirmed) {
        return Err(format!(
            "callgrind's addresses are not the library's: {named} ran, but not at its start"
        ));
    }
    if hot.is_empty() {
        return Err("no instruction of the library ran in a crypt case under callgrind".into());
    }
    Ok(Reached {
        key_schedule: key.difference(&hot).cloned().collect(),
        hot_path: hot.into_iter().collect(),
        key_setup_counted: cases.iter().any(|c| c.kind == CaseKind::SetKey),
    })
}

/// `path` with its links followed, as `env/library.rs` gives a library's
/// files (itself when it cannot be).
fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The name of `path`'s file.
fn file_name(path: &Path) -> String {
    (path.file_name()).map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::executed::dump_executed;
    use bench_harness::engine::{Dir, Mode};

    /// The golden file's two cases: ECB encryption of 64 bytes, key setup.
    fn golden_cases() -> Vec<Case> {
        vec![
            Case::crypt(Mode::Ecb, Dir::Encrypt, 8, 64),
            Case::set_key(Mode::Ecb, 8),
        ]
    }

    const LIBGCRYPT: &str = "/usr/lib/x86_64-linux-gnu/libgcrypt.so.20.4.1";

    /// libgcrypt's Blowfish peer under callgrind (the golden file) against
    /// a synthetic list of functions: the FDEs that hold what ran make the
    /// hot path; the key schedule is what key setup ran and the crypt case
    /// did not; a function both ran counts in the hot path only; the
    /// artifact's own file and other libraries are not the library's.
    #[test]
    fn functions_reached_from_a_golden_file() {
        let executed = dump_executed(include_str!("../../tests/golden/callgrind-libgcrypt.out"));
        // gcry_cipher_encrypt's and gcry_cipher_setkey's ranges as
        // `nm -D` gives them, and every gap between them (up to past the
        // file's .text) a function of its own.
        let named = [
            ("gcry_cipher_setkey", 0x102b0, 0x80),
            ("gcry_cipher_encrypt", 0x106a0, 0xa0),
        ];
        let mut fdes = Vec::new();
        let mut at = 0;
        for &(_, start, bytes) in &named {
            fdes.extend([(at, start - at), (start, bytes)]);
            at = start + bytes;
        }
        fdes.push((at, 0x10_0000 - at));
        let ranges = Ranges::from_parts(&fdes, &named, &[]);
        let files = [(PathBuf::from(LIBGCRYPT), ranges)];
        let r = reached_in(&files, &golden_cases(), &executed).unwrap();
        let starts = |fs: &[LibraryFunction]| fs.iter().map(|f| f.start).collect::<Vec<_>>();
        assert!(starts(&r.hot_path).contains(&0x106a0), "{:?}", r.hot_path);
        assert!(r.key_setup_counted);
        assert!(
            starts(&r.key_schedule).contains(&0x102b0),
            "{:?}",
            r.key_schedule
        );
        assert!(!starts(&r.hot_path).contains(&0x102b0));
        for f in &r.key_schedule {
            assert!(!r.hot_path.contains(f), "{f:?} in both");
        }
        assert!(r.hot_path.iter().all(|f| f.file == "libgcrypt.so.20.4.1"));
    }

    /// Addresses that are not the file's (an in-memory address where a
    /// virtual one was expected) are refused, as is a count with no crypt
    /// case of the library or dumps out of step with the cases.
    #[test]
    fn refuses_what_it_cannot_attribute() {
        let executed = dump_executed(include_str!("../../tests/golden/callgrind-libgcrypt.out"));
        let moved = Ranges::from_parts(
            &[(0, u64::MAX)],
            &[("gcry_cipher_encrypt", 0x4_0000, 8)],
            &[],
        );
        let files = [(PathBuf::from(LIBGCRYPT), moved)];
        let e = reached_in(&files, &golden_cases(), &executed).unwrap_err();
        assert!(e.contains("not the library's"), "{e}");
        let few = Ranges::from_parts(
            &[(0x106a0, 0xa0)],
            &[("gcry_cipher_encrypt", 0x106a0, 0xa0)],
            &[],
        );
        let files = [(PathBuf::from(LIBGCRYPT), few)];
        let e = reached_in(&files, &golden_cases(), &executed).unwrap_err();
        assert!(e.contains("in no function"), "{e}");
        let none: [(PathBuf, Ranges); 0] = [];
        let e = reached_in(&none, &golden_cases(), &executed).unwrap_err();
        assert!(e.contains("no instruction"), "{e}");
        let e = reached_in(&none, &golden_cases()[..1], &executed).unwrap_err();
        assert!(e.contains("dumps"), "{e}");
    }

    /// The system's libgcrypt, where this machine has it: its FDEs hold
    /// every address the golden file ran in it (the file was written on a
    /// machine with the same library), and its exported functions agree
    /// with callgrind's addresses. Skipped without the library.
    #[test]
    fn the_system_library_holds_what_ran() {
        let path = Path::new(LIBGCRYPT);
        if !path.is_file() {
            eprintln!("skipped: {LIBGCRYPT} is not here");
            return;
        }
        let executed = dump_executed(include_str!("../../tests/golden/callgrind-libgcrypt.out"));
        let r = reached(&[path.to_path_buf()], &golden_cases(), &executed).unwrap();
        assert!(!r.hot_path.is_empty() && !r.key_schedule.is_empty());
        let encrypt = r.hot_path.iter().find(|f| f.start == 0x106a0);
        assert!(encrypt.is_some_and(|f| f.bytes > 0), "{:?}", r.hot_path);
    }
}
