//! A source file as token trees, and where each token is in its bytes.
//!
//! Lexing (not parsing into an AST) is what lets the scanner see inside
//! `macro_rules!` bodies and `cfg_if!` blocks, which are token trees to
//! any parser. proc-macro2's `span-locations` gives each token a line and a
//! column counted in chars; edits need byte offsets, so [`Source`] keeps the
//! start of every line and walks the chars of one line to convert.

use super::error::{Error, Result};
use proc_macro2::{Delimiter, LineColumn, Span, TokenStream, TokenTree};
use std::ops::Range;
use std::path::PathBuf;
use std::str::FromStr;

/// One file of the package: its text, its tokens and its line starts.
pub(super) struct Source {
    /// Relative to the package root.
    pub rel: PathBuf,
    pub text: String,
    pub tokens: Vec<TokenTree>,
    line_starts: Vec<usize>,
}

impl Source {
    /// Lexes `text`, the contents of the file `rel`.
    pub fn lex(rel: PathBuf, text: String) -> Result<Source> {
        // A shebang line is not a token: blank it (one space per char, so
        // that every column of the file stays where it is).
        let lexed = match shebang_len(&text) {
            0 => TokenStream::from_str(&text),
            n => {
                let blank: String = text[..n].chars().map(|_| ' ').collect();
                TokenStream::from_str(&format!("{blank}{}", &text[n..]))
            }
        };
        let stream = lexed.map_err(|e| Error::Lex {
            file: rel.clone(),
            line: e.span().start().line,
            cause: e.to_string(),
        })?;
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Ok(Source {
            rel,
            text,
            tokens: stream.into_iter().collect(),
            line_starts,
        })
    }

    /// The byte offset of a line (1-based) and column (0-based, in chars).
    pub fn offset(&self, at: LineColumn) -> usize {
        let Some(&start) = self.line_starts.get(at.line.saturating_sub(1)) else {
            return self.text.len();
        };
        let line = &self.text[start..];
        match line.char_indices().nth(at.column) {
            Some((i, _)) => start + i,
            None => self.text.len(),
        }
    }

    /// The bytes a span covers.
    pub fn range(&self, span: Span) -> Range<usize> {
        self.offset(span.start())..self.offset(span.end())
    }

    /// The bytes from the first token's start to the last one's end.
    pub fn range_of(&self, tokens: &[TokenTree]) -> Range<usize> {
        match (tokens.first(), tokens.last()) {
            (Some(first), Some(last)) => {
                self.offset(first.span().start())..self.offset(last.span().end())
            }
            _ => 0..0,
        }
    }
}

/// The length of a leading `#!...` line that is not an inner attribute.
fn shebang_len(text: &str) -> usize {
    let rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !rest.starts_with("#!") || rest[2..].trim_start().starts_with('[') {
        return 0;
    }
    let bom = text.len() - rest.len();
    bom + rest.find('\n').unwrap_or(rest.len())
}

/// Whether a token is the identifier `word`.
pub(super) fn is_ident(token: Option<&TokenTree>, word: &str) -> bool {
    matches!(token, Some(TokenTree::Ident(i)) if i == word)
}

/// Whether a token is the punctuation `ch`.
pub(super) fn is_punct(token: Option<&TokenTree>, ch: char) -> bool {
    matches!(token, Some(TokenTree::Punct(p)) if p.as_char() == ch)
}

/// The group's tokens when a token is a group with that delimiter.
pub(super) fn group(token: Option<&TokenTree>, delimiter: Delimiter) -> Option<Vec<TokenTree>> {
    match token {
        Some(TokenTree::Group(g)) if g.delimiter() == delimiter => {
            Some(g.stream().into_iter().collect())
        }
        _ => None,
    }
}

/// The tokens split at top-level commas; an empty trailing part is dropped.
pub(super) fn split_commas(tokens: &[TokenTree]) -> Vec<&[TokenTree]> {
    let mut parts: Vec<&[TokenTree]> = tokens
        .split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .collect();
    if parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
}

/// The value of a string literal token (`"x"` or `r"x"`, `r#"x"#`), escapes
/// left as written (cfg values and module paths have none in practice).
pub(super) fn string_value(token: Option<&TokenTree>) -> Option<String> {
    let Some(TokenTree::Literal(lit)) = token else {
        return None;
    };
    let text = lit.to_string();
    let body = text.strip_prefix('r').map(|raw| raw.trim_matches('#'));
    let quoted = body.unwrap_or(&text);
    let inner = quoted.strip_prefix('"')?.strip_suffix('"')?;
    Some(inner.to_string())
}

/// Tokens written back compactly, close to how they are written in source:
/// `Aes<RK>`, `<$name as BlockCipherEncBackend>`, `Blowfish<T>`.
pub(super) fn render(tokens: &[TokenTree]) -> String {
    let mut out = String::new();
    render_into(tokens, &mut out);
    out
}

fn render_into(tokens: &[TokenTree], out: &mut String) {
    for token in tokens {
        match token {
            TokenTree::Ident(_) | TokenTree::Literal(_) => {
                let word = token.to_string();
                let joins = out.ends_with(|c: char| c.is_alphanumeric() || c == '_')
                    && word.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '"');
                if joins {
                    out.push(' ');
                }
                out.push_str(&word);
            }
            TokenTree::Punct(p) => {
                out.push(p.as_char());
                let spaced = p.as_char() == ',' || (p.as_char() == ':' && !out.ends_with("::"));
                if spaced && p.spacing() == proc_macro2::Spacing::Alone {
                    out.push(' ');
                }
            }
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                render_into(&inner, out);
                out.push_str(close);
            }
        }
    }
}
