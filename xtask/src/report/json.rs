//! The JSON layout of a report file ([`to_json`]).

use crate::report::Report;

/// A report as JSON: indented, except that each element of an array named
/// in [`ONE_LINE_EACH`] (a speed entry with its samples' columns, a
/// function) takes one line. Ends with a line break.
pub fn to_json(report: &Report) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Layout::default());
    serde::Serialize::serialize(&report.with_lists_shared(), &mut ser)
        .expect("a report serializes");
    let mut s = String::from_utf8(out).expect("serde_json writes UTF-8");
    s.push('\n');
    s
}

/// The arrays whose elements take a line each: the bulk of a report, which
/// indented would be most of its bytes in whitespace.
const ONE_LINE_EACH: [&str; 7] = [
    "speed",
    "hot_path",
    "functions",
    "inlining",
    "gone",
    "branches",
    "indexes",
];

/// How a container is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Pretty,
    /// An array named in [`ONE_LINE_EACH`]: indented, its elements on one
    /// line each.
    Elements,
    /// On one line, without spaces: `{"a":1,"b":[2,3]}`.
    Line,
}

/// serde_json's pretty formatter, with the elements of the arrays named in
/// [`ONE_LINE_EACH`] on one line each.
#[derive(Default)]
struct Layout {
    pretty: serde_json::ser::PrettyFormatter<'static>,
    stack: Vec<Mode>,
    in_key: bool,
    key: String,
}

impl Layout {
    fn line(&self) -> bool {
        self.stack.last() == Some(&Mode::Line)
    }

    /// The mode of a container opened now.
    fn open(&mut self, array: bool) -> Mode {
        let mode = match self.stack.last() {
            Some(Mode::Line | Mode::Elements) => Mode::Line,
            _ if array && ONE_LINE_EACH.contains(&self.key.as_str()) => Mode::Elements,
            _ => Mode::Pretty,
        };
        self.key.clear();
        self.stack.push(mode);
        mode
    }
}

type Io = std::io::Result<()>;

impl serde_json::ser::Formatter for Layout {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        match self.open(true) {
            Mode::Line => w.write_all(b"["),
            _ => self.pretty.begin_array(w),
        }
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        match self.stack.pop() {
            Some(Mode::Line) => w.write_all(b"]"),
            _ => self.pretty.end_array(w),
        }
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> Io {
        if self.line() {
            w.write_all(if first { b"" } else { b"," })
        } else {
            self.pretty.begin_array_value(w, first)
        }
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        if self.line() {
            Ok(())
        } else {
            self.pretty.end_array_value(w)
        }
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        match self.open(false) {
            Mode::Line => w.write_all(b"{"),
            _ => self.pretty.begin_object(w),
        }
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        match self.stack.pop() {
            Some(Mode::Line) => w.write_all(b"}"),
            _ => self.pretty.end_object(w),
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> Io {
        self.in_key = true;
        self.key.clear();
        if self.line() {
            w.write_all(if first { b"" } else { b"," })
        } else {
            self.pretty.begin_object_key(w, first)
        }
    }

    fn end_object_key<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> Io {
        self.in_key = false;
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(&mut self, w: &mut W, s: &str) -> Io {
        if self.in_key {
            self.key.push_str(s);
        }
        w.write_all(s.as_bytes())
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        if self.line() {
            w.write_all(b":")
        } else {
            self.pretty.begin_object_value(w)
        }
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> Io {
        if self.line() {
            Ok(())
        } else {
            self.pretty.end_object_value(w)
        }
    }
}

#[cfg(test)]
mod tests {
    /// Each speed entry, with its samples' columns, on a line of its own;
    /// everything else as serde_json's pretty printer writes it; the same
    /// value either way (as written: lists shared within a same-code group).
    #[test]
    fn speed_entries_take_a_line_each() {
        let r = crate::report::fixture::report();
        let json = super::to_json(&r);
        assert!(json.contains("\"speed\": [\n"), "{json:.2000}");
        let line = json
            .lines()
            .find(|l| l.contains("\"samples\":{\"ticks_per_op\":["))
            .unwrap();
        assert!(
            line.trim_start().starts_with("{\"alg\":") && line.contains("\"process_runs\":[["),
            "{line}"
        );
        let a: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(a, serde_json::to_value(r.with_lists_shared()).unwrap());
    }
}
