//! A library's functions by address, for a file stripped of its local
//! symbols (Debian's libgcrypt and libcrypto): each function's range from
//! its `.eh_frame` FDE (which unwinding needs, so every compiled function
//! and the hand-written assembler that states its CFI has one, read with
//! `gimli`), else from a sized function symbol of `.dynsym`; the linker's
//! call stubs (`.plt`, `.plt.got`, `.plt.sec`) are no function of the
//! library. Addresses are the file's virtual addresses, as callgrind
//! writes an object's instructions (`count/reached.rs`).

use gimli::UnwindSection;
use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};
use std::path::Path;

/// A function of a library: where it starts and how many bytes it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Range {
    pub start: u64,
    pub bytes: u64,
}

impl Range {
    fn holds(&self, address: u64) -> bool {
        address >= self.start && address - self.start < self.bytes
    }
}

/// A library's functions, and its exported ones by name (the check that
/// addresses are the file's: [`Ranges::starts_of`]).
#[derive(Debug, Default)]
pub struct Ranges {
    /// From `.eh_frame`, sorted by start.
    fdes: Vec<Range>,
    /// Sized function symbols of `.dynsym`, sorted by start.
    symbols: Vec<Range>,
    /// The same symbols by name.
    named: Vec<(String, Range)>,
    /// The linker's stubs: no function's.
    stubs: Vec<Range>,
}

impl Ranges {
    /// Reads the library at `path`.
    pub fn read(path: &Path) -> Result<Ranges, String> {
        let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = object::File::parse(&*data).map_err(|e| format!("{}: {e}", path.display()))?;
        Ranges::of(&file).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The functions of a parsed ELF file.
    pub fn of(file: &object::File<'_>) -> Result<Ranges, String> {
        let mut named: Vec<(String, Range)> = (file.dynamic_symbols())
            .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
            .filter_map(|s| {
                let name = s.name().ok()?.to_string();
                Some((
                    name,
                    Range {
                        start: s.address(),
                        bytes: s.size(),
                    },
                ))
            })
            .collect();
        named.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
        let mut symbols: Vec<Range> = named.iter().map(|(_, r)| *r).collect();
        symbols.dedup();
        let stubs = (file.sections())
            .filter(|s| matches!(s.name(), Ok(".plt" | ".plt.got" | ".plt.sec")))
            .map(|s| Range {
                start: s.address(),
                bytes: s.size(),
            })
            .collect();
        let fdes = match file.section_by_name(".eh_frame") {
            Some(section) => {
                let data = section.data().map_err(|e| format!(".eh_frame: {e}"))?;
                let text = file.section_by_name(".text").map_or(0, |s| s.address());
                let got = file.section_by_name(".got").map_or(0, |s| s.address());
                fdes(data, section.address(), text, got, file.is_64())?
            }
            None => Vec::new(),
        };
        Ok(Ranges {
            fdes,
            symbols,
            named,
            stubs,
        })
    }

    /// From a list of FDE ranges and exported functions (tests).
    #[cfg(test)]
    pub fn from_parts(
        fdes: &[(u64, u64)],
        named: &[(&str, u64, u64)],
        stubs: &[(u64, u64)],
    ) -> Ranges {
        let range = |&(start, bytes): &(u64, u64)| Range { start, bytes };
        let mut ranges = Ranges {
            fdes: fdes.iter().map(range).collect(),
            named: (named.iter())
                .map(|&(n, start, bytes)| (n.to_string(), Range { start, bytes }))
                .collect(),
            stubs: stubs.iter().map(range).collect(),
            ..Ranges::default()
        };
        ranges.fdes.sort();
        ranges.named.sort_by_key(|a| a.1);
        ranges.symbols = ranges.named.iter().map(|(_, r)| *r).collect();
        ranges
    }

    /// The function `address` is in: its FDE's range, else its exported
    /// symbol's; `None` in a linker stub ([`Ranges::in_stub`]) or outside
    /// every known function.
    pub fn function_at(&self, address: u64) -> Option<Range> {
        if self.in_stub(address) {
            return None;
        }
        containing(&self.fdes, address).or_else(|| containing(&self.symbols, address))
    }

    /// Whether `address` is in one of the linker's call stubs.
    pub fn in_stub(&self, address: u64) -> bool {
        self.stubs.iter().any(|s| s.holds(address))
    }

    /// Where the exported functions named `name` start (none when the
    /// library exports no sized function so named).
    pub fn starts_of<'a>(&'a self, name: &'a str) -> impl Iterator<Item = u64> + 'a {
        (self.named.iter())
            .filter(move |(n, _)| n == name)
            .map(|(_, r)| r.start)
    }
}

/// The range of `sorted` (by start, not overlapping) that holds `address`.
fn containing(sorted: &[Range], address: u64) -> Option<Range> {
    let after = sorted.partition_point(|r| r.start <= address);
    let r = *sorted.get(after.checked_sub(1)?)?;
    r.holds(address).then_some(r)
}

/// Every FDE of the `.eh_frame` section `data` (at address `at`), sorted
/// by start; an empty one (a zero length) left out.
fn fdes(data: &[u8], at: u64, text: u64, got: u64, is_64: bool) -> Result<Vec<Range>, String> {
    let mut eh_frame = gimli::EhFrame::new(data, gimli::LittleEndian);
    eh_frame.set_address_size(if is_64 { 8 } else { 4 });
    let bases = gimli::BaseAddresses::default()
        .set_eh_frame(at)
        .set_text(text)
        .set_got(got);
    let mut entries = eh_frame.entries(&bases);
    let mut ranges = Vec::new();
    loop {
        let entry = entries.next().map_err(|e| format!(".eh_frame: {e}"))?;
        match entry {
            None => break,
            Some(gimli::CieOrFde::Cie(_)) => {}
            Some(gimli::CieOrFde::Fde(partial)) => {
                let fde = partial
                    .parse(|section, bases, offset| section.cie_from_offset(bases, offset))
                    .map_err(|e| format!(".eh_frame: {e}"))?;
                if fde.len() > 0 {
                    ranges.push(Range {
                        start: fde.initial_address(),
                        bytes: fde.len(),
                    });
                }
            }
        }
    }
    ranges.sort();
    ranges.dedup();
    Ok(ranges)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An address finds its FDE's function, else its exported symbol's; a
    /// gap between functions or a linker stub (which has an FDE) finds none; an exported function's start is found by its
    /// symbol.
    #[test]
    fn functions_by_address() {
        let r = Ranges::from_parts(
            &[(0x20, 0x40), (0x100, 0x40), (0x200, 0x10)],
            &[("exported", 0x300, 8)],
            &[(0x20, 0x40)],
        );
        let at = |a| r.function_at(a).map(|f| (f.start, f.bytes));
        assert_eq!(at(0x100), Some((0x100, 0x40)));
        assert_eq!(at(0x13f), Some((0x100, 0x40)));
        assert_eq!(at(0x140), None);
        assert_eq!(at(0x20f), Some((0x200, 0x10)));
        assert_eq!(at(0x304), Some((0x300, 8)));
        assert_eq!(at(0x50), None);
        assert!(r.in_stub(0x50) && !r.in_stub(0x140));
        assert_eq!(r.starts_of("exported").collect::<Vec<_>>(), [0x300]);
        assert_eq!(r.starts_of("local").count(), 0);
    }
}
