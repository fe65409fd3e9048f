//! Who is built, sized and timed: a variant or a peer, from this tree or
//! from the base tree (`gate --against`), and how far it got.

use crate::env::flags::{FlagSet, SEPARATOR};
use crate::env::tree::{Source, Tree};
use crate::select::artifact::Artifact;
use bench_harness::registry::{CipherEntry, Library, NotOffered, Peer};
use bench_harness::sampling::Case;
use std::path::{Path, PathBuf};

/// What a contender is.
#[derive(Clone, Copy)]
pub enum Kind {
    /// One of our variants, by name: `never`.
    Variant(&'static str),
    /// A peer crate (RustCrypto's, or `crc32c`).
    Peer(&'static Peer),
    /// The A/A control: a copy, under another file name, of the built
    /// artifact of this variant (the reference), timed as a contender of
    /// its own. Never built: see [`control`].
    Control(&'static str),
}

/// Which tree a contender is built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The tree being measured.
    Current,
    /// The base tree `gate --against REV` compares with.
    Base,
}

impl Origin {
    /// What its contenders' names end with: `never@base`.
    fn suffix(self) -> &'static str {
        match self {
            Origin::Current => "",
            Origin::Base => "@base",
        }
    }
}

/// How far a contender got.
#[derive(Debug)]
pub enum State {
    /// Not built yet.
    Pending,
    /// Built and sized, and so far sound.
    Built(Built),
    /// Not built, or built and then failed (`built` keeps what was built).
    Failed { why: String, built: Option<Built> },
    /// Built, and still running at the deadline of the process that ran
    /// it (measuring or counting), which was killed: a failure of its own
    /// kind (an artifact that loops), reported as `hung`.
    Hung { why: String, built: Option<Built> },
    /// Built, but it cannot run here (this CPU, or a library peer's
    /// provider that would not load): reported, not a failure.
    Unavailable { why: String, built: Option<Built> },
    /// Built, sized and left out of the full run by the screen (`why`
    /// holds the evidence).
    Screened { why: String, built: Built },
}

/// A built, sized artifact.
#[derive(Debug)]
pub struct Built {
    pub so: PathBuf,
    pub artifact: Artifact,
    /// The hot path's normalized machine code (`code.rs`), compared to
    /// find variants with the same code.
    pub hot_path: Option<Vec<u8>>,
    /// The key schedule's normalized machine code (what `inlinelab_set_key`
    /// reaches), compared likewise.
    pub key_schedule: Option<Vec<u8>>,
    /// The fingerprint of the file the measuring process loaded.
    pub loaded: Option<String>,
}

/// One thing built, sized and timed.
pub struct Contender {
    /// The module of `variants` that declares the cipher.
    pub module: &'static str,
    pub kind: Kind,
    pub origin: Origin,
    /// Unique in a run: `never`, `rustcrypto`, `never@base`.
    pub name: String,
    /// `cast6-never`, `cast6 0.2 (RustCrypto)`.
    pub label: String,
    pub tree: Tree,
    pub state: State,
}

impl Contender {
    /// What its artifact holds.
    pub fn selection(&self) -> Selection<'_> {
        match self.kind {
            Kind::Variant(variant) | Kind::Control(variant) => Selection::Variant {
                module: self.module,
                variant,
            },
            Kind::Peer(p) => Selection::Peer(p),
        }
    }

    /// The crate whose symbols are the cipher's.
    pub fn crate_name(&self) -> &str {
        match (self.kind, &self.tree.source) {
            (Kind::Variant(_) | Kind::Control(_), Source::Shim { lib }) => lib,
            (Kind::Variant(_) | Kind::Control(_), Source::Workspace) => "variants",
            (Kind::Peer(p), _) => p.crate_name,
        }
    }

    /// The C library a library peer comes from.
    pub fn library(&self) -> Option<Library> {
        match self.kind {
            Kind::Peer(p) => p.library,
            Kind::Variant(_) | Kind::Control(_) => None,
        }
    }

    /// Whether it runs `case`, or why not: a library peer runs only what
    /// its declaration says it offers ([`Library::offers`]); everything
    /// else runs every case.
    pub fn offers(&self, case: &Case) -> Result<(), NotOffered> {
        match self.library() {
            Some(l) => l.offers(case.mode, case.key_bytes),
            None => Ok(()),
        }
    }

    /// The indices of the cases of `cases` it does not run.
    pub fn not_offered(&self, cases: &[Case]) -> Vec<usize> {
        (0..cases.len())
            .filter(|&c| self.offers(&cases[c]).is_err())
            .collect()
    }

    /// The variant's name, for a variant.
    pub fn variant(&self) -> Option<&'static str> {
        match self.kind {
            Kind::Variant(v) => Some(v),
            Kind::Peer(_) | Kind::Control(_) => None,
        }
    }

    pub fn is_control(&self) -> bool {
        matches!(self.kind, Kind::Control(_))
    }

    pub fn is_peer(&self) -> bool {
        matches!(self.kind, Kind::Peer(_))
    }

    /// Its artifact while it is sound (built, not failed).
    pub fn live(&self) -> Option<&Built> {
        match &self.state {
            State::Built(b) => Some(b),
            _ => None,
        }
    }

    /// What was built, whatever happened after.
    pub fn built(&self) -> Option<&Built> {
        match &self.state {
            State::Built(b) => Some(b),
            State::Failed { built, .. }
            | State::Hung { built, .. }
            | State::Unavailable { built, .. } => built.as_ref(),
            State::Screened { built, .. } => Some(built),
            State::Pending => None,
        }
    }

    /// Leaves it out of the full run, keeping what was built.
    pub fn screen_out(&mut self, why: impl Into<String>) {
        if let Some(built) = self.take_built() {
            self.state = State::Screened {
                why: why.into(),
                built,
            };
        }
    }

    /// Marks it failed, keeping what was built.
    pub fn fail(&mut self, why: impl Into<String>) {
        let built = self.take_built();
        self.state = State::Failed {
            why: why.into(),
            built,
        };
    }

    /// Marks it hung (its process killed at the deadline), keeping what
    /// was built.
    pub fn hang(&mut self, why: impl Into<String>) {
        let built = self.take_built();
        self.state = State::Hung {
            why: why.into(),
            built,
        };
    }

    /// Marks it unavailable on this CPU, keeping what was built.
    pub fn unavailable(&mut self, why: impl Into<String>) {
        let built = self.take_built();
        self.state = State::Unavailable {
            why: why.into(),
            built,
        };
    }

    fn take_built(&mut self) -> Option<Built> {
        match std::mem::replace(&mut self.state, State::Pending) {
            State::Built(b) => Some(b),
            State::Failed { built, .. }
            | State::Hung { built, .. }
            | State::Unavailable { built, .. } => built,
            State::Screened { built, .. } => Some(built),
            State::Pending => None,
        }
    }
}

/// The `variants` of `entry` (and its peers, when `peers`), from `tree`.
pub fn contenders(
    entry: &'static CipherEntry,
    variants: &[&'static str],
    peers: bool,
    tree: &Tree,
    origin: Origin,
) -> Vec<Contender> {
    let suffix = origin.suffix();
    let contender = |kind, name: String, label: String, tree: Tree| Contender {
        module: entry.module,
        kind,
        origin,
        name,
        label,
        tree,
        state: State::Pending,
    };
    let mut out: Vec<Contender> = variants
        .iter()
        .map(|&v| {
            contender(
                Kind::Variant(v),
                format!("{v}{suffix}"),
                format!("{}-{v}{suffix}", entry.name),
                tree.clone(),
            )
        })
        .collect();
    for peer in entry.peers.iter().filter(|_| peers) {
        let tree = match peer.rustflags {
            Some(flags) => tree.with_rustflags(peer.name, flags),
            None => tree.clone(),
        };
        out.push(contender(
            Kind::Peer(peer),
            format!("{}{suffix}", peer.name),
            format!("{}{suffix}", peer.label),
            tree,
        ));
    }
    out
}

/// Leaves out, before anything is built, each library peer among
/// `contenders` that offers none of `cases` (its declaration says what it
/// offers): unavailable in this run, saying so, never a failure. One that
/// offers some of them runs those, the others said left out of its row.
pub fn leave_out_unoffered(contenders: &mut [Contender], cases: &[Case]) {
    for c in contenders.iter_mut() {
        let Some(library) = c.library() else { continue };
        if !matches!(c.state, State::Pending) || cases.is_empty() {
            continue;
        }
        if cases.iter().all(|case| c.offers(case).is_err()) {
            let why = format!(
                "not offered by {}: none of this run's cases ({} offers {})",
                library.name.name(),
                library.name.name(),
                library.offered()
            );
            eprintln!("{}: left out: {why}", c.label);
            c.state = State::Unavailable { why, built: None };
        }
    }
}

/// `contenders` built under the flag set `set`: each in the tree with
/// those flags (a target directory of its own), named `NAME~SET` and
/// labelled likewise; unchanged under the profile's.
pub fn under(set: &FlagSet, contenders: Vec<Contender>) -> Vec<Contender> {
    if set.is_profile() {
        return contenders;
    }
    (contenders.into_iter())
        .map(|c| Contender {
            name: set.contender(&c.name),
            label: format!("{}{SEPARATOR}{}", c.label, set.name()),
            tree: c.tree.with_flags(set),
            ..c
        })
        .collect()
}

/// Every name a contender of `entries` can have under the flag sets
/// `sets`, in any command: each variant and peer as itself, from the base
/// tree (`@base`) and as the A/A control (`@control`). What a fault
/// (`INLINELAB_FAULT`) may name.
pub fn possible_names(entries: &[&'static CipherEntry], sets: &[FlagSet]) -> Vec<String> {
    let plain = entries.iter().flat_map(|entry| {
        (entry.variants.iter().map(|(v, _)| *v)).chain(entry.peers.iter().map(|p| p.name))
    });
    plain
        .flat_map(|n| sets.iter().map(move |s| s.contender(n)))
        .flat_map(|n| [format!("{n}@base"), format!("{n}@control"), n])
        .collect()
}

/// The names of `contenders`, as a fault may name them.
pub fn names(contenders: &[Contender]) -> Vec<String> {
    contenders.iter().map(|c| c.name.clone()).collect()
}

/// The A/A control of the variant named `reference` among `contenders`: its
/// built `.so` copied into `dir` under another name (the dynamic loader
/// hands back the same library for the same file, and for a hard link), as
/// a contender named `REFERENCE@control`. `None` when the reference was not
/// built, or the copy failed (said on stderr).
pub fn control(contenders: &[Contender], reference: &str, dir: &Path) -> Option<Contender> {
    let c = contenders
        .iter()
        .find(|c| c.name == reference && c.origin == Origin::Current)?;
    let (Kind::Variant(variant), Some(built)) = (c.kind, c.live()) else {
        return None;
    };
    let so = dir.join(format!("{reference}@control.so"));
    if let Err(e) = std::fs::copy(&built.so, &so) {
        eprintln!("    no A/A control: copying {}: {e}", built.so.display());
        return None;
    }
    let mut artifact = built.artifact.clone();
    artifact.path = so
        .strip_prefix(crate::env::workspace::root())
        .unwrap_or(&so)
        .display()
        .to_string();
    Some(Contender {
        module: c.module,
        kind: Kind::Control(variant),
        origin: c.origin,
        name: format!("{reference}@control"),
        label: format!("{} (A/A control)", c.label),
        tree: c.tree.clone(),
        state: State::Built(Built {
            so,
            artifact,
            hot_path: None,
            key_schedule: None,
            loaded: None,
        }),
    })
}

/// What an artifact holds.
#[derive(Clone, Copy)]
pub enum Selection<'a> {
    /// One of our variants: `module` of `variants` (`cast6`) and a name in
    /// its `VARIANTS`.
    Variant { module: &'a str, variant: &'a str },
    /// A peer crate.
    Peer(&'a Peer),
}

impl Selection<'_> {
    /// What `variants/build.rs` reads from `variants::SELECT_ENV`:
    /// `cast6::never`, or `none` for a peer (no variant compiled).
    pub fn variant_env(&self) -> String {
        match self {
            Selection::Variant { module, variant } => format!("{module}::{variant}"),
            Selection::Peer(_) => "none".into(),
        }
    }
}
