//! Escaping, by context, in one place: every name, label, command or
//! reason that goes into a generated file goes through one of these, chosen
//! by where it lands. Markdown is GitHub's (GFM): a table cell, inline code
//! (inside a table cell or not), a fenced code block, plain text; XML: text,
//! an attribute value, a comment; and text handed to plotters, which
//! escapes markup itself; and text printed to a terminal ([`terminal`]).

/// Characters XML 1.0 cannot hold at all (controls other than tab, line
/// feed and carriage return), replaced by U+FFFD.
fn xml_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().map(|c| {
        if (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{fffe}' || c == '\u{ffff}' {
            '\u{fffd}'
        } else {
            c
        }
    })
}

/// Text content of an XML element: `&`, `<` and `>` as entities.
pub fn xml_text(s: &str) -> String {
    let mut out = String::new();
    for c in xml_chars(s) {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// An XML attribute value in double or single quotes: as text, plus both
/// quotes, and line breaks as character references (a parser would
/// otherwise turn them into spaces).
pub fn xml_attr(s: &str) -> String {
    xml_text(s)
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
        .replace('\t', "&#9;")
}

/// The inside of an XML comment, which cannot hold `--` nor end in `-`
/// (entities mean nothing there): a space goes between two hyphens and
/// after a last one; `<` and `>` are written as entities, as in
/// [`md_comment`].
pub fn xml_comment(s: &str) -> String {
    let mut out = String::new();
    for c in xml_chars(s) {
        match c {
            '-' if out.ends_with('-') => out.push_str(" -"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    if out.ends_with('-') {
        out.push(' ');
    }
    out
}

/// Text handed to plotters, which escapes `& < > " '` itself: only what
/// XML cannot hold is replaced.
pub fn plotters_text(s: &str) -> String {
    xml_chars(s).collect()
}

/// Line breaks as spaces: markdown inline content is one line.
pub fn one_line(s: &str) -> String {
    s.replace("\r\n", " ").replace(['\n', '\r'], " ")
}

/// Plain markdown text (a paragraph or a list item): HTML and the
/// characters markdown acts on (emphasis, links, code, headings, tables)
/// escaped, line breaks as spaces.
pub fn md_text(s: &str) -> String {
    let mut out = String::new();
    for c in one_line(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '!' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A markdown table cell of plain text: as [`md_text`] (which escapes `|`).
pub fn md_cell(s: &str) -> String {
    md_text(s)
}

/// A markdown table cell holding a markdown fragment made by this tool
/// (inline code, emphasis): only what would end the cell or the row, `|`
/// and line breaks, is escaped (GFM honours `\|` inside code spans too).
pub fn md_cell_fragment(s: &str) -> String {
    one_line(s).replace('|', "\\|")
}

/// Inline code: a backtick fence longer than any run of backticks inside,
/// with spaces inside it when the content starts or ends with a backtick
/// (or a space); line breaks as spaces. Code spans show HTML as it is.
pub fn md_code(s: &str) -> String {
    let s = one_line(s);
    let longest = longest_run(&s, '`');
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with(['`', ' ']) || s.ends_with(['`', ' ']) || s.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// Inline code inside a table cell: as [`md_code`], with `|` escaped.
pub fn md_code_cell(s: &str) -> String {
    md_cell_fragment(&md_code(s))
}

/// A fenced code block of `info` (e.g. `text`) holding `content`: a fence
/// of backticks longer than any run in the content, so that it cannot be
/// closed early. `content` keeps its lines; a final line break is added.
pub fn md_code_block(info: &str, content: &str) -> String {
    let fence = "`".repeat((longest_run(content, '`') + 1).max(3));
    let nl = if content.is_empty() || content.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    format!(
        "{fence}{}\n{content}{nl}{fence}\n",
        one_line(info).replace('`', "")
    )
}

/// The inside of an HTML comment in markdown, one line, with `<` and `>`
/// as entities (which mean nothing there, and so cannot end the comment
/// or start markup anywhere a careless reader of the file might paste it).
pub fn md_comment(s: &str) -> String {
    one_line(s).replace('<', "&lt;").replace('>', "&gt;")
}

/// A markdown table cell holding a fragment read from a report's JSON
/// that this tool wrote with names as inline code (a screened entry's
/// evidence): each code span (a run of backticks up to the next run of the
/// same length) is written again as [`md_code_cell`], with the text it
/// shows; everything between them is plain text ([`md_cell`]). Whatever
/// the file holds, the cell can make no HTML, link or emphasis, nor end
/// early.
pub fn md_fragment_cell(s: &str) -> String {
    let s = one_line(s);
    let mut out = String::new();
    let mut rest = s.as_str();
    while let Some(open) = rest.find('`') {
        let run = rest[open..].len() - rest[open..].trim_start_matches('`').len();
        let after = &rest[open + run..];
        let Some((content, close_len)) = code_span_end(after, run) else {
            break;
        };
        out.push_str(&md_cell(&rest[..open]));
        out.push_str(&md_code_cell(&span_text(&after[..content])));
        rest = &after[content + close_len..];
    }
    out.push_str(&md_cell(rest));
    out
}

/// Where the code span opened by a run of `run` backticks ends in `after`
/// (what follows the opening run): the length of its content and of the
/// closing run, which is a run of exactly `run` backticks.
fn code_span_end(after: &str, run: usize) -> Option<(usize, usize)> {
    let mut i = 0;
    while let Some(at) = after[i..].find('`') {
        let start = i + at;
        let len = after[start..].len() - after[start..].trim_start_matches('`').len();
        if len == run {
            return Some((start, len));
        }
        i = start + len;
    }
    None
}

/// The text a code span's content shows: one space stripped from each end
/// when both ends are spaces and it is not all spaces (CommonMark).
fn span_text(content: &str) -> String {
    if content.len() >= 2
        && content.starts_with(' ')
        && content.ends_with(' ')
        && !content.bytes().all(|b| b == b' ')
    {
        content[1..content.len() - 1].to_string()
    } else {
        content.to_string()
    }
}

/// A value from a file as a message shows it: control characters escaped
/// (one line) and cut short.
pub fn shown(s: &str) -> String {
    let escaped = terminal(s);
    match escaped.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &escaped[..i]),
        None => escaped,
    }
}

/// Text read from a file as a terminal shows it: control characters
/// (NUL, ESC, line breaks) escaped as Rust writes them (`\u{0}`, `\u{1b}`,
/// `\n`), so that a name can neither move the cursor nor split a line.
/// Every print of text from a report's JSON goes through it.
pub fn terminal(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for x in s.chars() {
        run = if x == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const NASTY: &str = "a|b<script>&`c`\n--> d-";

    #[test]
    fn xml() {
        assert_eq!(xml_text("a<b>&c"), "a&lt;b&gt;&amp;c");
        assert_eq!(xml_attr("\"x'\ny"), "&quot;x&apos;&#10;y");
        assert_eq!(xml_text("a\u{1}b"), "a\u{fffd}b");
        let c = xml_comment("cargo xtask compare cast6 --quick -->-");
        assert!(!c.contains("--") && !c.ends_with('-'), "{c}");
        assert_eq!(xml_comment("a---b"), "a- - -b");
        let doc = format!(
            "<!-- {} --><r a=\"{}\">{}</r>",
            xml_comment(NASTY),
            xml_attr(NASTY),
            xml_text(NASTY)
        );
        let parsed = roxmltree::Document::parse(&doc).expect("well-formed");
        assert_eq!(parsed.root_element().text(), Some(NASTY));
        assert_eq!(parsed.root_element().attribute("a"), Some(NASTY));
    }

    #[test]
    fn markdown_text_and_cells() {
        let t = md_text(NASTY);
        assert!(!t.contains('\n') && !t.contains("<script"), "{t}");
        assert_eq!(t.matches('|').count(), t.matches("\\|").count());
        assert_eq!(md_cell_fragment("`a|b`\nc"), "`a\\|b` c");
    }

    #[test]
    fn inline_code() {
        assert_eq!(md_code("never"), "`never`");
        assert_eq!(md_code("a`b"), "``a`b``");
        assert_eq!(md_code("`x"), "`` `x ``");
        assert_eq!(md_code("a\nb"), "`a b`");
        assert_eq!(md_code_cell("a|b"), "`a\\|b`");
    }

    #[test]
    fn code_blocks_cannot_be_closed_by_their_content() {
        let block = md_code_block("text", "x\n```\ny");
        assert!(block.starts_with("````text\n"), "{block}");
        assert!(block.ends_with("\n````\n"), "{block}");
        assert_eq!(md_code_block("text", "a\n"), "```text\na\n```\n");
    }

    /// Case 5: the tool's inline code kept, anything else in the text
    /// (HTML, a link, a pipe) escaped.
    #[test]
    fn fragments_keep_their_code_and_nothing_else() {
        let f = md_fragment_cell(
            "screened out: `never` is <img src=x onerror=alert(3)> [c](javascript:alert(2)) a|b",
        );
        assert!(f.starts_with("screened out: `never` is &lt;img"), "{f}");
        assert!(f.contains("\\[c\\](javascript:alert(2))"), "{f}");
        assert!(f.ends_with("a\\|b"), "{f}");
        assert_eq!(md_fragment_cell("``a`b|c``"), "``a`b\\|c``");
        assert_eq!(md_fragment_cell("`` `x` ``"), "`` `x` ``");
        // An unclosed run of backticks is text.
        assert_eq!(md_fragment_cell("a `b"), "a \\`b");
    }

    /// Case 7: control characters from a file are shown, not sent.
    #[test]
    fn terminal_text_is_one_line_without_controls() {
        assert_eq!(terminal("a\0b\u{1b}[31mc\nd"), "a\\u{0}b\\u{1b}[31mc\\nd");
        assert_eq!(terminal("never ±"), "never ±");
    }

    #[test]
    fn comments() {
        let c = md_comment("Generated by `cargo xtask compare x --quick` --> <b>\n");
        let want = "Generated by `cargo xtask compare x --quick` --&gt; &lt;b&gt; ";
        assert_eq!(c, want);
    }
}
