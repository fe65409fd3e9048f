//! Conditional compilation: a target's cfg set and the predicates of
//! `#[cfg(..)]`, `#[cfg_attr(..)]` and `cfg_if!`, to tell which annotations
//! a build on that target compiles.

use super::error::{Error, Result};
use super::lex::{self, is_punct};
use proc_macro2::{Delimiter, TokenTree};
use std::collections::BTreeSet;
use std::fmt;

/// A cfg predicate, as written in `#[cfg(..)]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pred {
    /// `all(..)`; the empty `all()` is true.
    All(Vec<Pred>),
    /// `any(..)`; the empty `any()` is false.
    Any(Vec<Pred>),
    /// `not(..)`.
    Not(Box<Pred>),
    /// `name`, e.g. `unix`, `miri`, `aes_force_soft`.
    Name(String),
    /// `name = "value"`, e.g. `target_arch = "x86_64"`, `feature = "std"`.
    Value(String, String),
    /// `true` or `false`.
    Bool(bool),
    /// Something that does not parse as a predicate, as written: undecided.
    Unknown(String),
}

impl Pred {
    /// The conjunction of `preds`, flattened (`all()` when there are none).
    pub fn all(preds: impl IntoIterator<Item = Pred>) -> Pred {
        let mut flat = Vec::new();
        for pred in preds {
            match pred {
                Pred::All(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        if flat.len() == 1 {
            flat.pop().unwrap_or(Pred::All(Vec::new()))
        } else {
            Pred::All(flat)
        }
    }

    /// `not(self)`.
    pub fn negate(self) -> Pred {
        match self {
            Pred::Not(inner) => *inner,
            other => Pred::Not(Box::new(other)),
        }
    }

    /// Parses the tokens inside `cfg(..)` (or a `cfg_attr`'s first
    /// argument). What does not parse is [`Pred::Unknown`], never an error:
    /// a stranger's crate may use cfg syntax newer than this reader.
    pub fn parse(tokens: &[TokenTree]) -> Pred {
        let unknown = || Pred::Unknown(lex::render(tokens));
        let Some(TokenTree::Ident(name)) = tokens.first() else {
            return unknown();
        };
        let name = name.to_string();
        match tokens.len() {
            1 => match name.as_str() {
                "true" => Pred::Bool(true),
                "false" => Pred::Bool(false),
                _ => Pred::Name(name),
            },
            2 => match lex::group(tokens.get(1), Delimiter::Parenthesis) {
                Some(inner) => {
                    let args: Vec<Pred> = lex::split_commas(&inner)
                        .into_iter()
                        .map(Pred::parse)
                        .collect();
                    match name.as_str() {
                        "all" => Pred::All(args),
                        "any" => Pred::Any(args),
                        "not" if args.len() == 1 => {
                            Pred::Not(Box::new(args.into_iter().next().unwrap_or_else(unknown)))
                        }
                        _ => unknown(),
                    }
                }
                None => unknown(),
            },
            3 if is_punct(tokens.get(1), '=') => match lex::string_value(tokens.get(2)) {
                Some(value) => Pred::Value(name, value),
                None => unknown(),
            },
            _ => unknown(),
        }
    }
}

impl fmt::Display for Pred {
    /// As it would be written in `#[cfg(..)]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, name: &str, preds: &[Pred]| {
            write!(f, "{name}(")?;
            for (i, p) in preds.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{p}")?;
            }
            f.write_str(")")
        };
        match self {
            Pred::All(preds) => list(f, "all", preds),
            Pred::Any(preds) => list(f, "any", preds),
            Pred::Not(pred) => write!(f, "not({pred})"),
            Pred::Name(name) => f.write_str(name),
            Pred::Value(name, value) => write!(f, "{name} = {value:?}"),
            Pred::Bool(b) => write!(f, "{b}"),
            Pred::Unknown(text) => f.write_str(text),
        }
    }
}

/// A target's cfg set: what `rustc --print cfg` prints for it, plus the
/// crate's enabled features (`feature = "x"`). A name not in the set is
/// false, custom cfgs (`aes_force_soft`, `aes_backend = "soft"`) included,
/// as in a build that does not pass `--cfg`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cfg {
    set: BTreeSet<(String, Option<String>)>,
}

impl Cfg {
    /// The set `rustc --print cfg` printed (one `name` or `name="value"` a
    /// line), with the crate features `features` enabled.
    pub fn from_rustc_print<S: AsRef<str>>(text: &str, features: &[S]) -> Result<Cfg> {
        let mut set = BTreeSet::new();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let entry = match line.split_once('=') {
                None => (line.to_string(), None),
                Some((name, value)) => {
                    let value = value.strip_prefix('"').and_then(|v| v.strip_suffix('"'));
                    match value {
                        Some(v) => (name.to_string(), Some(v.to_string())),
                        None => return Err(Error::CfgLine(line.to_string())),
                    }
                }
            };
            if entry.0.is_empty() || entry.0.contains(char::is_whitespace) {
                return Err(Error::CfgLine(line.to_string()));
            }
            set.insert(entry);
        }
        let mut cfg = Cfg { set };
        cfg.enable_features(features.iter().map(|f| f.as_ref()));
        Ok(cfg)
    }

    /// The host's set from `rustc --print cfg` (or `--target TARGET`),
    /// with `features` enabled.
    pub fn from_rustc<S: AsRef<str>>(target: Option<&str>, features: &[S]) -> Result<Cfg> {
        // The compiler cargo would run (RUSTC), else the one on PATH.
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let mut command = std::process::Command::new(rustc);
        command.args(["--print", "cfg"]);
        if let Some(target) = target {
            command.args(["--target", target]);
        }
        let io = |cause| Error::Io {
            path: "rustc --print cfg".into(),
            cause,
        };
        let output = command.output().map_err(io)?;
        if !output.status.success() {
            let cause = String::from_utf8_lossy(&output.stderr).trim().to_string();
            return Err(io(std::io::Error::other(cause)));
        }
        Cfg::from_rustc_print(&String::from_utf8_lossy(&output.stdout), features)
    }

    /// Turns on `feature = "NAME"` for each name.
    pub fn enable_features<'a>(&mut self, features: impl IntoIterator<Item = &'a str>) {
        for feature in features {
            self.set
                .insert(("feature".to_string(), Some(feature.to_string())));
        }
    }

    /// Whether the predicate holds on this target: `None` when part of it
    /// could not be read and the rest does not decide it.
    pub fn eval(&self, pred: &Pred) -> Option<bool> {
        match pred {
            Pred::All(preds) => {
                let values: Vec<Option<bool>> = preds.iter().map(|p| self.eval(p)).collect();
                if values.contains(&Some(false)) {
                    Some(false)
                } else if values.contains(&None) {
                    None
                } else {
                    Some(true)
                }
            }
            Pred::Any(preds) => {
                let values: Vec<Option<bool>> = preds.iter().map(|p| self.eval(p)).collect();
                if values.contains(&Some(true)) {
                    Some(true)
                } else if values.contains(&None) {
                    None
                } else {
                    Some(false)
                }
            }
            Pred::Not(pred) => self.eval(pred).map(|b| !b),
            Pred::Name(name) => Some(self.set.contains(&(name.clone(), None))),
            Pred::Value(name, value) => {
                Some(self.set.contains(&(name.clone(), Some(value.clone()))))
            }
            Pred::Bool(b) => Some(*b),
            Pred::Unknown(_) => None,
        }
    }
}
