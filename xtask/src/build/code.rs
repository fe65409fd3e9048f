//! The code an artifact runs: the functions reachable from one of its
//! exported entries (`inlinelab_crypt`, `inlinelab_set_key`), found by
//! walking the call graph inside the `.so`, and a normalized form of their
//! machine code in which no address appears, so that two artifacts whose
//! hot path is the same machine code compare equal byte for byte.
//!
//! The walk decodes every instruction of a function (x86-64, with
//! `iced-x86`) and follows each reference in it: a near call, jump or
//! conditional jump (`rel8`/`rel32`), and a RIP-relative memory operand
//! (`lea`, `mov`, `call [rip+X]`). A reference to a function is followed; one
//! to a GOT slot is resolved through the slot's dynamic relocation (a
//! `R_X86_64_RELATIVE` slot holds a function of the file: followed; a
//! symbol's slot names an import). In the normalized form each reference's
//! bytes (the `rel32` or displacement) are zeroed and replaced by a token
//! that does not depend on where things were placed: a branch inside the
//! function by its offset from the function's start, a function by its
//! ordinal in the walk (the order references are met, which the code alone
//! decides), a data symbol by its name (hash and variant module left out)
//! and offset, an import by its name, and data without a symbol (jump
//! tables, constants) by its section and offset in that section, which
//! differs when the data before it differs: then the code is reported as
//! different, never wrongly as the same. A function that does not decode,
//! or any architecture other than x86-64, gives no normalized form.

use iced_x86::{Decoder, DecoderOptions, OpKind};
use object::{
    Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationTarget, SectionFlags,
    SymbolKind,
};
use std::collections::{HashMap, VecDeque};

/// The export whose reach is the hot path.
pub const CRYPT: &str = abi::symbol::CRYPT;
/// The export whose reach (less the hot path) is the key schedule.
pub const SET_KEY: &str = abi::symbol::SET_KEY;

/// What a reference points at, as the normalized form names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// Inside the function itself, at this offset from its start.
    Local(u64),
    /// The walk's `n`th function.
    Function(usize),
    /// A data symbol (name without hash or variant module) and offset.
    Data(String, u64),
    /// An imported symbol (through the GOT).
    Import(String),
    /// Data without a symbol (a jump table, a string, a panic location):
    /// its section, its bytes up to the next place anything refers to (at
    /// most [`WINDOW`]), and what the relocations among them hold.
    Constant(String, Vec<u8>, Vec<(u64, Token)>),
    /// A GOT slot whose relocation holds `Token`.
    Slot(Box<Token>),
    /// Data further from the code than [`DEPTH`] references.
    Far(String),
}

/// The most bytes of a constant compared.
pub const WINDOW: u64 = 256;

/// How many references deep from the code data is compared.
pub const DEPTH: usize = 3;

fn put(out: &mut Vec<u8>, tag: u8, s: &str, n: u64) {
    out.push(tag);
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s.as_bytes());
    out.extend(n.to_le_bytes());
}

impl Token {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Token::Local(o) => put(out, 1, "", *o),
            Token::Function(n) => put(out, 2, "", *n as u64),
            Token::Data(s, o) => put(out, 3, s, *o),
            Token::Import(s) => put(out, 4, s, 0),
            Token::Constant(s, bytes, slots) => {
                put(out, 5, s, bytes.len() as u64);
                out.extend(bytes);
                out.extend((slots.len() as u64).to_le_bytes());
                for (at, t) in slots {
                    out.extend(at.to_le_bytes());
                    t.encode(out);
                }
            }
            Token::Slot(t) => {
                out.push(6);
                t.encode(out);
            }
            Token::Far(s) => put(out, 7, s, 0),
        }
    }
}

/// One function's machine code with every reference's bytes zeroed, then
/// each reference's place in the code and its token. `ip` is the address
/// of `bytes`; `resolve(target)` names what an address outside the function
/// is. `None` when an instruction does not decode.
pub fn normalize(bytes: &[u8], ip: u64, resolve: &mut dyn FnMut(u64) -> Token) -> Option<Vec<u8>> {
    let mut code = bytes.to_vec();
    let mut tokens = Vec::new();
    let end = ip + bytes.len() as u64;
    let mut decoder = Decoder::with_ip(64, bytes, ip, DecoderOptions::NONE);
    while decoder.can_decode() {
        let start = (decoder.ip() - ip) as usize;
        let instr = decoder.decode();
        if instr.is_invalid() {
            return None;
        }
        let offsets = decoder.get_constant_offsets(&instr);
        let mut field = |at: usize, size: usize, target: u64| {
            let at = start + at;
            code[at..at + size].fill(0);
            let token = if (ip..end).contains(&target) {
                Token::Local(target - ip)
            } else {
                resolve(target)
            };
            tokens.push((at as u64, token));
        };
        let branch = (0..instr.op_count()).any(|i| {
            matches!(
                instr.op_kind(i),
                OpKind::NearBranch16 | OpKind::NearBranch32 | OpKind::NearBranch64
            )
        });
        if branch && offsets.has_immediate() {
            field(
                offsets.immediate_offset(),
                offsets.immediate_size(),
                instr.near_branch_target(),
            );
        }
        if instr.is_ip_rel_memory_operand() && offsets.has_displacement() {
            field(
                offsets.displacement_offset(),
                offsets.displacement_size(),
                instr.ip_rel_memory_address(),
            );
        }
    }
    let mut out = Vec::with_capacity(code.len() + 16 * tokens.len() + 8);
    out.extend((code.len() as u64).to_le_bytes());
    out.extend(code);
    for (at, token) in tokens {
        out.extend(at.to_le_bytes());
        token.encode(&mut out);
    }
    Some(out)
}

/// A function of the file.
struct Function {
    name: String,
    addr: u64,
    size: u64,
}

/// What a GOT slot holds.
enum Slot {
    /// The address of something in the file.
    Relative(u64),
    /// An import.
    Symbol(String),
}

/// The parts of a `.so` the walk needs.
pub struct Image<'a> {
    file: &'a object::File<'a>,
    functions: Vec<Function>,
    data: Vec<Function>,
    slots: HashMap<u64, Slot>,
    /// Where something starts: symbols, sections, GOT slots and what they
    /// hold, and every address the code refers to; a constant ends at the
    /// next one.
    boundaries: Vec<u64>,
    /// The variant's module name, left out of data symbol names.
    variant: Option<String>,
}

/// Where a reference was met: how many references from the code (0: in
/// it), and the range of the function whose code it is.
#[derive(Clone, Copy)]
struct Place {
    depth: usize,
    function: Option<(u64, u64)>,
}

impl Place {
    fn deeper(self) -> Place {
        Place {
            depth: self.depth + 1,
            function: None,
        }
    }
}

/// What a walk from one entry found.
pub struct Walk {
    /// The functions reached, entry first, in the walk's order: (shortened
    /// demangled name, bytes).
    pub functions: Vec<(String, u64)>,
    /// Their demangled names in full (`<aes::ni::Aes128Enc as
    /// cipher::..::BlockCipherEncBackend>::encrypt_block`), in that order:
    /// what tells apart functions of one name in different modules.
    pub full_names: Vec<String>,
    /// Their addresses, to tell one walk's functions from another's.
    addrs: Vec<u64>,
    /// The normalized code of them all, in order; `None` when some function
    /// did not decode (or the file is not x86-64).
    pub normalized: Option<Vec<u8>>,
}

impl Walk {
    pub fn bytes(&self) -> u64 {
        self.functions.iter().map(|f| f.1).sum()
    }

    /// Bytes of the functions reached here and not in `other`.
    pub fn bytes_not_in(&self, other: &Walk) -> u64 {
        self.addrs
            .iter()
            .zip(&self.functions)
            .filter(|(a, _)| !other.addrs.contains(a))
            .map(|(_, f)| f.1)
            .sum()
    }
}

/// Whether a function is the panic machinery's way in: a function of
/// `core::panicking`, or a `core` function named `*_fail` (the slice and
/// string index failures, which call it). What only they reach runs only
/// on a call that panics: it is compared, but not counted as hot path or
/// key schedule.
pub fn is_panic(name: &str) -> bool {
    let bare = name.trim_start_matches('<');
    bare.starts_with("core::panicking::")
        || (bare.starts_with("core::")
            && bare
                .split("::")
                .last()
                .is_some_and(|f| f.ends_with("_fail")))
}

/// Whether a section occupies memory when the file is loaded (ELF's
/// `SHF_ALLOC`; elsewhere, a nonzero address).
fn allocated(s: &object::Section<'_, '_>) -> bool {
    match s.flags() {
        SectionFlags::Elf { sh_flags, .. } => sh_flags.contains(object::elf::SHF_ALLOC),
        _ => s.address() != 0,
    }
}

impl<'a> Image<'a> {
    /// The functions, data symbols and GOT slots of `file`; `variant` is the
    /// variant module whose name is left out of data symbol names.
    pub fn new(file: &'a object::File<'a>, variant: Option<&str>) -> Image<'a> {
        let mut functions = Vec::new();
        let mut data = Vec::new();
        for sym in file.symbols() {
            let Ok(name) = sym.name() else { continue };
            let f = Function {
                name: name.to_string(),
                addr: sym.address(),
                size: sym.size(),
            };
            match sym.kind() {
                SymbolKind::Text if f.size > 0 => functions.push(f),
                SymbolKind::Data if f.size > 0 => data.push(f),
                _ => {}
            }
        }
        // Aliases (one address, several names): the first name found.
        functions.sort_by_key(|f| f.addr);
        functions.dedup_by_key(|f| f.addr);
        data.sort_by_key(|f| f.addr);
        let mut image = Image {
            file,
            functions,
            data,
            slots: slots(file),
            boundaries: Vec::new(),
            variant: variant.map(str::to_string),
        };
        image.boundaries = image.find_boundaries();
        image
    }

    fn find_boundaries(&self) -> Vec<u64> {
        let mut b: Vec<u64> = self
            .functions
            .iter()
            .chain(&self.data)
            .map(|f| f.addr)
            .collect();
        // Allocated sections only: the others (`.strtab`, `.symtab`, debug
        // sections) sit at address 0, and their sizes (which follow symbol
        // names, so the path a crate was built from) would cut constants
        // near the start of the image at places that are not boundaries.
        for s in self.file.sections().filter(allocated) {
            b.extend([s.address(), s.address() + s.size()]);
        }
        for (place, slot) in &self.slots {
            b.push(*place);
            if let Slot::Relative(t) = slot {
                b.push(*t);
            }
        }
        if self.file.architecture() == object::Architecture::X86_64 {
            for i in 0..self.functions.len() {
                if let Some(bytes) = self.bytes_of(i) {
                    normalize(bytes, self.functions[i].addr, &mut |t| {
                        b.push(t);
                        Token::Local(0)
                    });
                }
            }
        }
        b.sort_unstable();
        b.dedup();
        b
    }

    fn function_at(&self, addr: u64) -> Option<usize> {
        self.functions.binary_search_by_key(&addr, |f| f.addr).ok()
    }

    fn function_by_name(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.name == name)
    }

    /// The bytes of function `i`, from its section.
    fn bytes_of(&self, i: usize) -> Option<&'a [u8]> {
        let f = &self.functions[i];
        let (s, data) = self.section_of(f.addr)?;
        let from = (f.addr - s.address()) as usize;
        data.get(from..from + f.size as usize)
    }

    /// The section holding `addr`, and its bytes (empty when it has none
    /// in the file).
    fn section_of(&self, addr: u64) -> Option<(object::Section<'a, 'a>, &'a [u8])> {
        self.file.sections().find_map(|s| {
            let contains = s.address() <= addr && addr < s.address() + s.size();
            contains.then(|| {
                let data = s.data().unwrap_or(&[]);
                (s, data)
            })
        })
    }

    /// A demangled name without hash, with the variant module left out.
    fn clean(&self, raw: &str) -> String {
        let name = format!("{:#}", rustc_demangle::demangle(raw));
        match &self.variant {
            Some(v) => name.replace(&format!("::{v}::"), "::_::"),
            None => name,
        }
    }

    /// The token of an address outside the current function, `depth`
    /// references from the code; functions are numbered through `number`.
    fn token(&self, addr: u64, at: Place, number: &mut dyn FnMut(usize) -> usize) -> Token {
        let depth = at.depth;
        if let Some(i) = self.function_at(addr) {
            return Token::Function(number(i));
        }
        let Some((section, data)) = self.section_of(addr) else {
            return Token::Far("?".into());
        };
        let name = section.name().unwrap_or("?").to_string();
        if depth >= DEPTH {
            return Token::Far(name);
        }
        match self.slots.get(&addr) {
            Some(Slot::Relative(target)) => {
                return Token::Slot(Box::new(self.token(*target, at.deeper(), number)));
            }
            Some(Slot::Symbol(s)) => return Token::Import(self.clean(s)),
            None => {}
        }
        let symbol = self
            .data
            .iter()
            .rev()
            .find(|d| d.addr <= addr && addr < d.addr + d.size);
        if let Some(d) = symbol {
            return Token::Data(self.clean(&d.name), addr - d.addr);
        }
        if data.is_empty() {
            return Token::Data(format!("{name}+"), addr - section.address());
        }
        self.constant(name, (section.address(), data), addr, at, number)
    }

    /// A constant at `addr` of the section `name` whose address and bytes
    /// are `(base, data)`: its bytes to the next boundary; a jump table of
    /// the function that refers to it (32-bit entries relative to the table
    /// that land in that function, as rustc emits for a `match`) as local
    /// offsets, and the slots among them zeroed and named by what they hold.
    fn constant(
        &self,
        name: String,
        (base, data): (u64, &[u8]),
        addr: u64,
        at: Place,
        number: &mut dyn FnMut(usize) -> usize,
    ) -> Token {
        let next = self.boundaries[self.boundaries.partition_point(|&b| b <= addr)..]
            .first()
            .copied()
            .unwrap_or(u64::MAX);
        let end = next.min(addr + WINDOW).min(base + data.len() as u64);
        let mut bytes = data[(addr - base) as usize..(end - base) as usize].to_vec();
        let mut held = Vec::new();
        if let (0, Some((start, stop))) = (at.depth, at.function) {
            for k in (0..bytes.len() / 4).map(|k| 4 * k) {
                let entry = i32::from_le_bytes(bytes[k..k + 4].try_into().expect("4 bytes"));
                let target = addr.wrapping_add_signed(i64::from(entry));
                if !(start..stop).contains(&target) {
                    break;
                }
                bytes[k..k + 4].fill(0);
                held.push((k as u64, Token::Local(target - start)));
            }
        }
        let mut places: Vec<u64> = self
            .slots
            .keys()
            .copied()
            .filter(|p| (addr..end).contains(p))
            .collect();
        places.sort_unstable();
        for p in places {
            let off = (p - addr) as usize;
            let stop = (off + 8).min(bytes.len());
            bytes[off..stop].fill(0);
            let token = match &self.slots[&p] {
                Slot::Relative(t) => self.token(*t, at.deeper(), number),
                Slot::Symbol(s) => Token::Import(self.clean(s)),
            };
            held.push((p - addr, token));
        }
        Token::Constant(name, bytes, held)
    }

    /// Every function reachable from the exported function `entry`, walked
    /// breadth first, not entering those `stop` names (demangled); `None`
    /// when there is no such function.
    pub fn walk(&self, entry: &str, stop: &dyn Fn(&str) -> bool) -> Option<Walk> {
        let first = self.function_by_name(entry)?;
        let mut ordinal: HashMap<usize, usize> = HashMap::from([(first, 0)]);
        let mut order = vec![first];
        let mut queue = VecDeque::from([first]);
        let decodes = self.file.architecture() == object::Architecture::X86_64;
        let mut normalized = decodes.then(Vec::new);
        while let Some(i) = queue.pop_front() {
            let mut number = |j: usize| {
                let next = ordinal.len();
                *ordinal.entry(j).or_insert_with(|| {
                    if !stop(&self.clean(&self.functions[j].name)) {
                        order.push(j);
                        queue.push_back(j);
                    }
                    next
                })
            };
            let code = self.bytes_of(i).and_then(|bytes| {
                let f = &self.functions[i];
                let at = Place {
                    depth: 0,
                    function: Some((f.addr, f.addr + f.size)),
                };
                normalize(bytes, f.addr, &mut |t| self.token(t, at, &mut number))
            });
            match (code, &mut normalized) {
                (Some(code), Some(all)) => all.extend(code),
                _ => normalized = None,
            }
            if !decodes {
                break;
            }
        }
        Some(Walk {
            functions: order
                .iter()
                .map(|&i| {
                    let f = &self.functions[i];
                    (shorten(&self.clean(&f.name)), f.size)
                })
                .collect(),
            full_names: (order.iter())
                .map(|&i| self.clean(&self.functions[i].name))
                .collect(),
            addrs: order.iter().map(|&i| self.functions[i].addr).collect(),
            normalized,
        })
    }
}

/// The GOT slots of `file`: each dynamic relocation's place and what it holds.
fn slots(file: &object::File<'_>) -> HashMap<u64, Slot> {
    let mut out = HashMap::new();
    let Some(relocations) = file.dynamic_relocations() else {
        return out;
    };
    let symbols = file.dynamic_symbol_table();
    for (place, r) in relocations {
        let slot = match r.target() {
            RelocationTarget::Symbol(index) => {
                let name = symbols
                    .as_ref()
                    .and_then(|t| t.symbol_by_index(index).ok())
                    .and_then(|s| s.name().ok().map(str::to_string));
                match name {
                    Some(n) if !n.is_empty() => Slot::Symbol(n),
                    _ => Slot::Relative(r.addend() as u64),
                }
            }
            _ => Slot::Relative(r.addend() as u64),
        };
        out.insert(place, slot);
    }
    out
}

/// The demangled names, in full, of the functions the built artifact `so`
/// reaches from `inlinelab_crypt` (the panic machinery not entered): the
/// hot path's functions left out of line.
pub fn hot_path_names(so: &std::path::Path) -> Result<Vec<String>, String> {
    let data = std::fs::read(so).map_err(|e| format!("{}: {e}", so.display()))?;
    let file = object::File::parse(&*data).map_err(|e| format!("{}: {e}", so.display()))?;
    let walk = Image::new(&file, None)
        .walk(CRYPT, &is_panic)
        .ok_or_else(|| format!("{}: no {CRYPT}", so.display()))?;
    Ok(walk.full_names)
}

/// A short hash of normalized code, for the report (FNV-1a, 64 bits).
pub fn hash(bytes: &[u8]) -> String {
    format!("{:016x}", bench_harness::so::fnv1a(bytes))
}

/// Shortens every path in a demangled name to its last segment:
/// `<variants::rfc2612::cast6::never::Cast6 as cipher::Trait>::f` becomes
/// `<Cast6 as Trait>::f`.
pub fn shorten(name: &str) -> String {
    let mut out = String::new();
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String| {
        if let Some(rest) = token.strip_prefix("::") {
            out.push_str("::");
            out.push_str(rest.rsplit("::").next().unwrap_or(rest));
        } else {
            out.push_str(token.rsplit("::").next().unwrap_or(token));
        }
        token.clear();
    };
    for ch in name.chars() {
        if ch.is_alphanumeric() || ch == '_' || ch == ':' {
            token.push(ch);
        } else {
            flush(&mut token, &mut out);
            out.push(ch);
        }
    }
    flush(&mut token, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `call rel32`, `lea rax, [rip+disp32]`, `jne rel8` back to the start,
    /// `ret`, assembled at `ip` with the call and the lea aimed at `call` and
    /// `data`, and `imm` in a `mov eax, imm32`.
    fn code(ip: u64, call: u64, data: u64, imm: u32) -> Vec<u8> {
        let mut v = vec![0xe8];
        v.extend(((call as i64 - (ip as i64 + 5)) as i32).to_le_bytes());
        v.extend([0x48, 0x8d, 0x05]);
        v.extend(((data as i64 - (ip as i64 + 12)) as i32).to_le_bytes());
        v.push(0xb8);
        v.extend(imm.to_le_bytes());
        v.extend([0x75, (-19i8) as u8]); // jne back to ip
        v.push(0xc3);
        v
    }

    /// Names the call target and the data by what they are, not where.
    fn resolver(call: u64, data: u64) -> impl FnMut(u64) -> Token {
        move |t| {
            if t == call {
                Token::Function(1)
            } else if t == data {
                Token::Data("TABLE".into(), 0)
            } else {
                Token::Far(".rodata".into())
            }
        }
    }

    fn norm(ip: u64, call: u64, data: u64, imm: u32) -> Vec<u8> {
        let bytes = code(ip, call, data, imm);
        normalize(&bytes, ip, &mut resolver(call, data)).expect("decodes")
    }

    #[test]
    fn the_same_code_elsewhere_is_the_same() {
        // Moved, with its callee and data elsewhere: the raw bytes differ,
        // the normalized ones do not.
        let a = (0x1000, 0x2000, 0x9000);
        let b = (0x5430, 0x1200, 0x8ff0);
        assert_ne!(code(a.0, a.1, a.2, 7), code(b.0, b.1, b.2, 7));
        assert_eq!(norm(a.0, a.1, a.2, 7), norm(b.0, b.1, b.2, 7));
    }

    #[test]
    fn a_different_immediate_is_different_code() {
        assert_ne!(
            norm(0x1000, 0x2000, 0x9000, 7),
            norm(0x1000, 0x2000, 0x9000, 8)
        );
    }

    #[test]
    fn a_different_target_is_different_code() {
        // The same bytes aimed at another function or other data.
        let bytes = code(0x1000, 0x2000, 0x9000, 7);
        let other_fn = normalize(&bytes, 0x1000, &mut |t| {
            if t == 0x2000 {
                Token::Function(2)
            } else {
                Token::Data("TABLE".into(), 0)
            }
        });
        assert_ne!(other_fn.unwrap(), norm(0x1000, 0x2000, 0x9000, 7));
        let other_data = normalize(&bytes, 0x1000, &mut |t| {
            if t == 0x2000 {
                Token::Function(1)
            } else {
                Token::Data("TABLE".into(), 4)
            }
        });
        assert_ne!(other_data.unwrap(), norm(0x1000, 0x2000, 0x9000, 7));
    }

    #[test]
    fn branches_inside_the_function_are_local() {
        let bytes = code(0x1000, 0x2000, 0x9000, 7);
        let mut outside = Vec::new();
        normalize(&bytes, 0x1000, &mut |t| {
            outside.push(t);
            Token::Far("?".into())
        })
        .unwrap();
        // The jne back to the start is not asked about.
        assert_eq!(outside, [0x2000, 0x9000]);
    }

    #[test]
    fn undecodable_code_has_no_normal_form() {
        // A lone prefix at the end of a function.
        assert!(normalize(&[0x90, 0x66], 0, &mut |_| Token::Local(0)).is_none());
    }

    /// Boundaries come from the sections loaded into memory only: the
    /// symbol names' string table (whose size follows the path a crate was
    /// built from) is not one, and none of its ends is a boundary unless an
    /// allocated section or a symbol puts one there.
    #[test]
    fn only_loaded_sections_bound_constants() {
        let bytes = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let file = object::File::parse(&*bytes).unwrap();
        let loaded = |name: &str| file.section_by_name(name).map(|s| allocated(&s));
        assert_eq!(loaded(".text"), Some(true));
        assert_eq!(loaded(".rodata"), Some(true));
        assert_eq!(loaded(".strtab"), Some(false));
        let image = Image::new(&file, None);
        let strtab = file.section_by_name(".strtab").unwrap();
        let end = strtab.address() + strtab.size();
        let placed_by_loaded = file
            .sections()
            .filter(allocated)
            .any(|s| s.address() == end || s.address() + s.size() == end)
            || image
                .functions
                .iter()
                .chain(&image.data)
                .any(|f| f.addr == end);
        assert!(placed_by_loaded || !image.boundaries.contains(&end));
    }
}
