//! The instructions that executed in each dump of a callgrind file written
//! with `--dump-instr=yes`: by object (the file callgrind found them in),
//! their addresses, and the functions callgrind names by a symbol. What a library peer's code reached is read from them
//! (`reached.rs`).
//!
//! What is read of callgrind's format (beyond `functions.rs`'s): with
//! `positions: instr` (first), a cost line's first column is an
//! instruction's address: `0x…` absolute, `+N`/`-N` relative to the
//! previous cost line's, `*` the same; a call's target (`calls=`) does not
//! move it. An object's addresses are written less its load bias (callgrind's
//! `obj->offset`): for a shared object, the file's virtual addresses.
//! `ob=` sets the object of the records that follow; names are compressed
//! per kind (`ob=(3) path` defines 3, `ob=(3)` and `cob=(3)` refer to it;
//! `fn=`, `cfn=` share another table).

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What executed in one object during one dump.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InObject {
    /// The address of every instruction that executed.
    pub addresses: BTreeSet<u64>,
    /// The functions callgrind named by a symbol (not by an address) that
    /// some of them were in.
    pub named: BTreeSet<String>,
}

/// One dump: what executed, by object path as callgrind wrote it.
pub type Executed = BTreeMap<String, InObject>;

/// What executed in each dump that `--dump-before` triggered, in order (as
/// `callgrind::dumps` orders their totals); empty dumps where the file has
/// no instruction positions.
pub fn dump_executed(text: &str) -> Vec<Executed> {
    let mut reader = Reader::default();
    for line in text.lines() {
        reader.line(line);
    }
    reader.close();
    reader.done
}

/// The state of a read through the file.
#[derive(Default)]
struct Reader {
    done: Vec<Executed>,
    /// The dump being read, if `--dump-before` triggered it.
    dump: Option<Executed>,
    /// Compressed object names.
    objects: HashMap<String, String>,
    /// Compressed function names.
    functions: HashMap<String, String>,
    object: Option<String>,
    function: Option<String>,
    /// Whether the first position column is an instruction's address.
    instr: bool,
    /// The previous cost line's address.
    last: u64,
}

impl Reader {
    fn line(&mut self, line: &str) {
        if let Some(trigger) = line.strip_prefix("desc: Trigger:") {
            self.close();
            self.dump = trigger.contains("--dump-before").then(Executed::new);
        } else if let Some(p) = line.strip_prefix("positions:") {
            self.instr = p.split_whitespace().next() == Some("instr");
        } else if let Some(o) = line.strip_prefix("ob=") {
            self.object = Some(name(&mut self.objects, o));
        } else if let Some(o) = line.strip_prefix("cob=") {
            name(&mut self.objects, o);
        } else if let Some(f) = line.strip_prefix("fn=") {
            self.function = Some(name(&mut self.functions, f));
        } else if let Some(f) = line.strip_prefix("cfn=") {
            name(&mut self.functions, f);
        } else if self.instr
            && line.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '*'))
        {
            let mut columns = line.split_whitespace();
            let Some(address) = columns.next().and_then(|p| self.position(p)) else {
                return;
            };
            self.last = address;
            // Executed: some cost on it (a line of zeros is not).
            if columns.any(|c| c.parse::<u64>().is_ok_and(|n| n > 0)) {
                self.add(address);
            }
        }
    }

    /// The address a position column gives.
    fn position(&self, p: &str) -> Option<u64> {
        if p == "*" {
            Some(self.last)
        } else if let Some(hex) = p.strip_prefix("0x") {
            u64::from_str_radix(hex, 16).ok()
        } else if let Some(n) = p.strip_prefix('+') {
            self.last.checked_add(n.parse().ok()?)
        } else if let Some(n) = p.strip_prefix('-') {
            self.last.checked_sub(n.parse().ok()?)
        } else {
            p.parse().ok()
        }
    }

    /// Records `address` as executed in the current object and function.
    fn add(&mut self, address: u64) {
        let (Some(dump), Some(object)) = (self.dump.as_mut(), self.object.as_ref()) else {
            return;
        };
        let o = dump.entry(object.clone()).or_default();
        o.addresses.insert(address);
        if let Some(f) = self.function.as_ref().filter(|f| !f.starts_with("0x")) {
            o.named.insert(f.clone());
        }
    }

    /// Ends the dump being read.
    fn close(&mut self) {
        if let Some(d) = self.dump.take() {
            self.done.push(d);
        }
        self.function = None;
        self.object = None;
    }
}

/// The name `field` gives (`(id) name`, `(id)` or `name`) in `table`,
/// recording a compressed one; a recursion level's mark (`'2`) left out.
fn name(table: &mut HashMap<String, String>, field: &str) -> String {
    let field = field.trim();
    let name = match field.strip_prefix('(').and_then(|r| r.split_once(')')) {
        Some((id, "")) => table.get(id).cloned().unwrap_or_default(),
        Some((id, name)) => {
            let name = name.trim().to_string();
            table.insert(id.to_string(), name.clone());
            name
        }
        None => field.to_string(),
    };
    match name.rsplit_once('\'') {
        Some((base, level)) if !level.is_empty() && level.bytes().all(|b| b.is_ascii_digit()) => {
            base.to_string()
        }
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// callgrind 3.19's file (`--dump-instr=yes`) of libgcrypt's Blowfish
    /// peer in two cases (ECB encryption of 64 bytes, key setup; paths
    /// of the workspace made neutral): per triggered dump, the
    /// addresses that executed in each object, relative positions and `*`
    /// resolved, a call's target not taken for a position, the dump at
    /// termination left out, names compressed in an earlier dump resolved.
    #[test]
    fn addresses_per_object_in_callgrinds_own_file() {
        let text = include_str!("../../tests/golden/callgrind-libgcrypt.out");
        let dumps = dump_executed(text);
        assert_eq!(dumps.len(), 2);
        let lib = "/usr/lib/x86_64-linux-gnu/libgcrypt.so.20.4.1";
        let crypt = &dumps[0][lib];
        assert!(crypt.named.contains("gcry_cipher_encrypt"));
        assert!(crypt.addresses.contains(&0x106a0) && crypt.addresses.contains(&0x106a7));
        let key = &dumps[1][lib];
        assert!(key.named.contains("gcry_cipher_setkey") && key.addresses.contains(&0x102b0));
        assert!(!key.named.contains("gcry_cipher_encrypt"));
    }

    /// Positions: absolute, `+`, `-`, `*`; a call's inclusive line is the
    /// call's own address; a file without instruction positions gives no
    /// addresses.
    #[test]
    fn positions_and_objects() {
        let text = "\
desc: Trigger: --dump-before=inlinelab_count_end
positions: instr
events: Ir
ob=(1) /lib/a.so
fn=(1) f
0x100 1
+4 1
cob=(2) /lib/b.so
cfn=(2) g'2
calls=1 0x900
* 30
-2 1
ob=(2)
fn=(2)
0x900 30
fn=(3) 0x0000000000000950
+80 0
totals: 33
desc: Trigger: Program termination
ob=(1)
fn=(1)
0x700 5
";
        let dumps = dump_executed(text);
        assert_eq!(dumps.len(), 1);
        let a = &dumps[0]["/lib/a.so"];
        assert_eq!(
            a.addresses.iter().copied().collect::<Vec<_>>(),
            [0x100, 0x102, 0x104]
        );
        assert_eq!(a.named.iter().collect::<Vec<_>>(), ["f"]);
        let b = &dumps[0]["/lib/b.so"];
        assert_eq!(b.addresses.iter().copied().collect::<Vec<_>>(), [0x900]);
        assert_eq!(b.named.iter().collect::<Vec<_>>(), ["g"]);
        let lines = text.replace("positions: instr", "positions: line");
        assert!(dump_executed(&lines)[0].is_empty());
    }
}
