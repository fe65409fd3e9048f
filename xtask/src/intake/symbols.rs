//! An artifact's functions by address (its symbol table, read with
//! `object`), each demangled as the sizer demangles (`rustc_demangle`,
//! without hash): what an instruction pointer sampled in a process that
//! loaded the artifact was running.

use object::{Object, ObjectSymbol, SymbolKind};
use std::path::Path;

/// The functions of one artifact, by address.
#[derive(Debug)]
pub struct Symbols {
    /// `(start, end, demangled name)`, by start; no two overlapping.
    functions: Vec<(u64, u64, String)>,
}

impl Symbols {
    /// The function symbols of the shared object at `path`.
    pub fn read(path: &Path) -> Result<Symbols, String> {
        let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = object::File::parse(&*data).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut raw: Vec<(u64, u64, &str)> = Vec::new();
        for sym in file.symbols().chain(file.dynamic_symbols()) {
            let Ok(name) = sym.name() else { continue };
            if sym.kind() == SymbolKind::Text && sym.size() > 0 {
                raw.push((sym.address(), sym.size(), name));
            }
        }
        Ok(Symbols::from_raw(raw))
    }

    /// From `(address, size, mangled name)`: aliases (one address, several
    /// names) keep the first name; a function overlapping the one before
    /// is cut at its start.
    pub fn from_raw<'a>(raw: impl IntoIterator<Item = (u64, u64, &'a str)>) -> Symbols {
        let mut raw: Vec<(u64, u64, &str)> = raw.into_iter().collect();
        raw.sort_by_key(|&(addr, _, _)| addr);
        raw.dedup_by_key(|&mut (addr, _, _)| addr);
        let mut functions: Vec<(u64, u64, String)> = (raw.iter())
            .map(|&(addr, size, name)| {
                let demangled = format!("{:#}", rustc_demangle::demangle(name));
                (addr, addr.saturating_add(size), demangled)
            })
            .collect();
        for i in 1..functions.len() {
            let next = functions[i].0;
            let prev = &mut functions[i - 1];
            prev.1 = prev.1.min(next);
        }
        Symbols { functions }
    }

    /// The address of the function `name` (demangled), if there is one.
    pub fn address_of(&self, name: &str) -> Option<u64> {
        (self.functions.iter())
            .find(|(_, _, n)| n == name)
            .map(|&(addr, _, _)| addr)
    }

    /// The function whose code holds `addr` (an address in the file's own
    /// terms, the load base subtracted), if any.
    pub fn function_at(&self, addr: u64) -> Option<&str> {
        let i = self
            .functions
            .partition_point(|&(start, _, _)| start <= addr);
        let (_, end, name) = self.functions.get(i.checked_sub(1)?)?;
        (addr < *end).then_some(name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Symbols;

    /// An address maps to the function whose range holds it, demangled
    /// without hash; a gap, or outside every function, to none.
    #[test]
    fn addresses_to_functions() {
        let s = Symbols::from_raw([
            (
                0x2000,
                0x40,
                "_ZN3aes8backends11x86_vaes5127encrypt17h0123456789abcdefE",
            ),
            (0x1000, 0x10, "inlinelab_crypt"),
            (0x1000, 0x10, "an_alias"),
            (0x1010, 0x1000, "_ZN4core3ptr8overlaps17h0123456789abcdefE"),
        ]);
        assert_eq!(s.function_at(0xfff), None);
        assert_eq!(s.function_at(0x1000), Some("inlinelab_crypt"));
        assert_eq!(s.function_at(0x100f), Some("inlinelab_crypt"));
        assert_eq!(s.function_at(0x1010), Some("core::ptr::overlaps"));
        // Cut at the next function's start, though its size says more.
        assert_eq!(s.function_at(0x1fff), Some("core::ptr::overlaps"));
        assert_eq!(
            s.function_at(0x203f),
            Some("aes::backends::x86_vaes512::encrypt")
        );
        assert_eq!(s.function_at(0x2040), None);
        assert_eq!(s.address_of("inlinelab_crypt"), Some(0x1000));
        assert_eq!(s.address_of("an_alias"), None);
    }
}
