//! The instructions of each function in each dump of a callgrind file:
//! which code got a case's instructions (the backend a crate ran under
//! valgrind), where `callgrind::dumps` reads only each dump's total.
//!
//! What is read of callgrind's format: a dump (part) begins with its
//! `desc: Trigger:` line; `positions:` says how many position columns a
//! cost line starts with, `events:` which column is `Ir`; `fn=` sets the
//! function the following cost lines are of; `calls=` says that the next
//! cost line is a call's inclusive cost (left out: it is the callee's,
//! counted in the callee's own records); function names may be compressed
//! (`fn=(7) name` defines 7, `fn=(7)` refers to it; `cfn=` shares the
//! table), and a function entered recursively is `name'2`.

use std::collections::HashMap;

/// One dump: each function's own instructions (its self cost), by name as
/// callgrind wrote it (mangled under `--demangle=no`), in order of first
/// appearance.
pub type Functions = Vec<(String, u64)>;

/// The functions of each dump that `--dump-before` triggered, in order (as
/// `callgrind.rs` orders their totals).
pub fn dump_functions(text: &str) -> Vec<Functions> {
    let mut reader = Reader::default();
    for line in text.lines() {
        reader.line(line);
    }
    reader.finish()
}

/// The state of a read through the file.
#[derive(Default)]
struct Reader {
    done: Vec<Functions>,
    /// The dump being read, if `--dump-before` triggered it.
    dump: Option<Functions>,
    /// Where each name is in `dump`.
    index: HashMap<String, usize>,
    /// Compressed function names: `(id)` to name.
    names: HashMap<String, String>,
    /// The function of the cost lines that follow.
    function: Option<String>,
    /// The next cost line is a call's inclusive cost.
    after_calls: bool,
    /// Position columns before the costs (`positions:`; `line` when not
    /// given).
    positions: usize,
    /// The column of `Ir` among the costs.
    ir: usize,
}

impl Reader {
    fn line(&mut self, line: &str) {
        if let Some(trigger) = line.strip_prefix("desc: Trigger:") {
            self.close();
            self.dump = trigger.contains("--dump-before").then(Vec::new);
            self.positions = 1;
            self.ir = 0;
        } else if let Some(p) = line.strip_prefix("positions:") {
            self.positions = p.split_whitespace().count();
        } else if let Some(e) = line.strip_prefix("events:") {
            self.ir = e.split_whitespace().position(|e| e == "Ir").unwrap_or(0);
        } else if let Some(f) = line.strip_prefix("fn=") {
            self.function = Some(self.name(f));
            self.after_calls = false;
        } else if let Some(f) = line.strip_prefix("cfn=") {
            // Defines a compressed name the calls' records may use later.
            self.name(f);
        } else if line.starts_with("calls=") {
            self.after_calls = true;
        } else if line.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '*')) {
            if std::mem::take(&mut self.after_calls) {
                return;
            }
            let cost = (line.split_whitespace().nth(self.positions + self.ir))
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0);
            self.add(cost);
        }
    }

    /// The name `field` gives (`(id) name`, `(id)` or `name`), recording a
    /// compressed one; a recursion level's mark (`'2`) left out.
    fn name(&mut self, field: &str) -> String {
        let field = field.trim();
        let name = match field.strip_prefix('(').and_then(|r| r.split_once(')')) {
            Some((id, "")) => self.names.get(id).cloned().unwrap_or_default(),
            Some((id, name)) => {
                let name = name.trim().to_string();
                self.names.insert(id.to_string(), name.clone());
                name
            }
            None => field.to_string(),
        };
        match name.rsplit_once('\'') {
            Some((base, level))
                if !level.is_empty() && level.bytes().all(|b| b.is_ascii_digit()) =>
            {
                base.to_string()
            }
            _ => name,
        }
    }

    /// Adds `cost` to the current function of the current dump.
    fn add(&mut self, cost: u64) {
        let (Some(dump), Some(f)) = (self.dump.as_mut(), self.function.as_ref()) else {
            return;
        };
        match self.index.get(f) {
            Some(&i) => dump[i].1 = dump[i].1.saturating_add(cost),
            None => {
                self.index.insert(f.clone(), dump.len());
                dump.push((f.clone(), cost));
            }
        }
    }

    /// Ends the dump being read.
    fn close(&mut self) {
        if let Some(d) = self.dump.take() {
            self.done.push(d);
        }
        self.index.clear();
        self.function = None;
        self.after_calls = false;
    }

    fn finish(mut self) -> Vec<Functions> {
        self.close();
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::dump_functions;

    /// Demangled as the sizer demangles.
    fn demangled(d: &[(String, u64)]) -> Vec<(String, u64)> {
        d.iter()
            .map(|(n, c)| (format!("{:#}", rustc_demangle::demangle(n)), *c))
            .collect()
    }

    /// callgrind 3.19's file of the toycipher fixture's three headline
    /// cases (ECB and CBC encryption of one block, key setup), counted as
    /// `count/by_module.rs` counts them (paths shortened): one set of
    /// functions per triggered dump, the one at termination left out; each
    /// function's own instructions, calls' inclusive costs left out, names
    /// compressed in an earlier dump resolved; they add up to each dump's
    /// total.
    #[test]
    fn self_cost_per_function_in_callgrinds_own_file() {
        let text = include_str!("../../tests/golden/callgrind-toycipher.out");
        let dumps = dump_functions(text);
        // The `totals:` of its three triggered dumps (`callgrind::dumps`).
        let totals = [1178, 1181, 1610];
        assert_eq!(dumps.len(), totals.len());
        for (d, total) in dumps.iter().zip(&totals) {
            assert_eq!(d.iter().map(|f| f.1).sum::<u64>(), *total, "{d:?}");
        }
        let mut first = demangled(&dumps[0]);
        first.sort();
        assert_eq!(
            first,
            [
                ("inlinelab_abi::Op::from_code".to_string(), 4),
                ("inlinelab_crypt".to_string(), 73),
                ("toycipher::round::encrypt".to_string(), 1101),
            ]
        );
    }

    /// What the fixture's file does not show: a recursion level's mark
    /// folded into its function, a position column compressed (`+2`, `*`),
    /// a name given uncompressed.
    #[test]
    fn recursion_and_compressed_positions() {
        let text = "\
desc: Trigger: --dump-before=inlinelab_count_end
positions: line
events: Ir
fn=(1) f
+2 7
cfn=(2) g'2
calls=1 0
* 100
fn=(2)
* 100
fn=h
-1 5
totals: 112
";
        let dumps = dump_functions(text);
        assert_eq!(
            dumps,
            [vec![
                ("f".to_string(), 7),
                ("g".to_string(), 100),
                ("h".to_string(), 5)
            ]]
        );
    }
}
