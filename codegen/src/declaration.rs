//! A module's declaration, `entry(...)` or `calibration(...)`: parsed once,
//! here, into a typed model with spans, validated, and emitted in one fixed
//! grammar ([`Facts::to_tokens`]) that the harness's registry and the
//! artifact's peer selection match with `macro_rules!` without parsing it
//! again. A malformed declaration is an error at the declaration.
//!
//! ```text
//! entry(
//!     modes: [Ecb: [16, 32], Cbc: [16, 32], ...],  // a mode each, with the template's key sizes
//!     peers: [
//!         "rustcrypto" {                           // the peer's name among the variants
//!             label: "cast6 0.2 (RustCrypto)",     // shown in reports
//!             krate: cast6,                        // the crate (feature `peer-cast6` of the artifact)
//!             keyed: cipher(Cast6),                // or by_length(16 => Aes128, ...), or digest(crc32c_append)
//!             builds: [                            // optional: the same crate built again, with
//!                 "rustcrypto-soft" { label: "...", rustflags: "..." },    // RUSTFLAGS,
//!                 "rustcrypto-zeroize" { label: "...", features: ["zeroize"] }, // its features, or both
//!             ],
//!         },
//!     ],
//!     libraries: [                                 // optional: a C library's own implementation and
//!                                                  // what it offers (the cases it runs; the others are
//!                                                  // left out of its row, said: ARCHITECTURE.md)
//!         "libgcrypt" {                            // its name among the variants
//!             label: "libgcrypt 1.10 (its assembler)",
//!             library: libgcrypt,                  // or openssl (feature `peer-<library>`)
//!             algorithm: "CAST5",                  // the library's name for every key length, or
//!                                                  // by_length(16 => "AES", 5..=16 => "CAST5", ...):
//!                                                  // the key lengths it takes, a length or a range
//!             modes: [Ecb, Cbc],                   // optional: the modes it offers (every mode of `modes`)
//!             provider: legacy,                    // optional, openssl only: the provider it is in
//!         },
//!     ],
//! )
//! calibration(kernel: cipher_null, modes: [Ecb: [16]], hash: digest_null(init, update, final))
//! ```
//!
//! The emitted form has every part present and no trailing commas:
//! `modes: [M: [k, ...], ...], peers: ["name" { label: "..", krate: c,
//! keyed: cipher(T), builds: ["b" { label: "..", rustflags: [".."], features:
//! ["f", ...] }, ...] },
//! ...], libraries: ["name" { label: "..", library: l, algorithm: [lo ..= hi
//! => "NAME", ...], modes: [M, ...], provider: [p] }, ...]` (`0 ..= 1024 =>`
//! for every key length, a length `n` as `n ..= n`; the entry's modes when
//! none are given; `provider: []` without one; `libraries: []` without
//! one), and for a calibration `kernel: k, modes: [...], hash: [h(i, u, f)]`
//! (`hash: []` without one); a build's `rustflags: []` when it gives none.
//! The mode names are the harness's `Mode`s,
//! checked where the registry names them (their spans kept).

use crate::errors::Errors;
use crate::model::{Kind, Role};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{ParseStream, Parser};
use syn::{Ident, LitInt, LitStr, Token, braced, bracketed, parenthesized};

/// The facts of a declaration, by role.
pub(crate) enum Facts {
    Entry(Entry),
    Calibration(Calibration),
}

/// `entry(modes: ..., peers: ..., libraries: ...)`.
pub(crate) struct Entry {
    pub(crate) modes: Vec<Modes>,
    pub(crate) peers: Vec<Peer>,
    libraries: Vec<LibraryPeer>,
}

/// `calibration(kernel: ..., modes: ..., hash: ...)`.
pub(crate) struct Calibration {
    kernel: Ident,
    modes: Vec<Modes>,
    hash: Option<Hash>,
}

/// `Mode: [key sizes]`.
pub(crate) struct Modes {
    mode: Ident,
    keys: Vec<LitInt>,
}

/// A peer: `"name" { label, krate, keyed, builds }`.
pub(crate) struct Peer {
    name: LitStr,
    label: LitStr,
    pub(crate) krate: Ident,
    keyed: Keyed,
    builds: Vec<Build>,
}

/// A C library's implementation: `"name" { label, library, algorithm,
/// modes, provider }`: what it offers is declared here, once (the key
/// lengths its algorithm names, the modes), and a case outside it is left
/// out of its row, said so.
struct LibraryPeer {
    name: LitStr,
    label: LitStr,
    library: Ident,
    /// The library's name for the algorithm, for every key length (`None`)
    /// or by key lengths (a length, or a range of them).
    algorithm: Vec<(Option<Lengths>, LitStr)>,
    /// The modes it offers, where not every mode of the entry.
    modes: Option<Vec<Ident>>,
    /// The provider (OpenSSL's) the algorithm is in, where not the default.
    provider: Option<Ident>,
}

/// Key lengths in bytes: `16`, or `5..=16`.
struct Lengths {
    shortest: LitInt,
    longest: Option<LitInt>,
}

impl Lengths {
    /// `(shortest, longest)`, where both parse.
    fn bounds(&self) -> Option<(u64, u64)> {
        let lo = self.shortest.base10_parse::<u64>().ok()?;
        let hi = match &self.longest {
            Some(hi) => hi.base10_parse::<u64>().ok()?,
            None => lo,
        };
        Some((lo, hi))
    }

    fn span(&self) -> Span {
        self.shortest.span()
    }
}

/// The C libraries a peer may come from (the artifact's `peer-<library>`
/// features).
const LIBRARIES: [&str; 2] = ["libgcrypt", "openssl"];

/// The providers an OpenSSL peer may name (OpenSSL 3 keeps CAST5, Blowfish
/// and other old ciphers in its legacy provider).
const PROVIDERS: [&str; 1] = ["legacy"];

/// How a peer's type is keyed.
enum Keyed {
    /// `cipher(Type)`.
    Cipher(Ident),
    /// `by_length(16 => Aes128, ...)`.
    ByLength(Vec<(LitInt, Ident)>),
    /// `digest(function)`: a checksum's append function, `function(sum so
    /// far, bytes) -> u32`, `function(0, bytes)` the checksum of `bytes`.
    Digest(Ident),
}

/// `"name" { label, rustflags, features }`: the peer's crate built again
/// with other `RUSTFLAGS`, or with features of its own turned on (at least
/// one of the two).
struct Build {
    name: LitStr,
    label: LitStr,
    rustflags: Option<LitStr>,
    features: Vec<LitStr>,
}

/// `hash: name(init, update, finish)`.
struct Hash {
    name: Ident,
    init: Ident,
    update: Ident,
    finish: Ident,
}

/// The largest key a template may give, in bytes.
const MAX_KEY_BYTES: u64 = 1024;

/// Parses the tokens inside `entry(...)` or `calibration(...)`, then
/// [`validate`]s them against the module's `kind`.
/// `span` is the declaration's, for what it lacks.
pub(crate) fn parse(
    role: Role,
    tokens: TokenStream,
    kind: &Kind,
    span: Span,
) -> syn::Result<Facts> {
    let facts = match role {
        Role::Entry => Facts::Entry(Parser::parse2(|s: ParseStream| entry(s, span), tokens)?),
        Role::Calibration => Facts::Calibration(Parser::parse2(
            |s: ParseStream| calibration(s, span),
            tokens,
        )?),
    };
    validate(&facts, kind, span)?;
    Ok(facts)
}

/// `key: value, ...` in any order, each key once, every key of `keys`
/// given unless it is `optional` (a missing one is said at `owner`, what
/// the fields belong to); `value` parses the value of one key.
fn fields(
    input: ParseStream,
    keys: &[&str],
    optional: &[&str],
    owner: Span,
    mut value: impl FnMut(&str, ParseStream) -> syn::Result<()>,
) -> syn::Result<()> {
    let mut seen: Vec<String> = Vec::new();
    while !input.is_empty() {
        let key: Ident = input.parse()?;
        let name = key.to_string();
        if !keys.contains(&name.as_str()) {
            return Err(syn::Error::new(
                key.span(),
                format!("expected one of `{}`", keys.join("`, `")),
            ));
        }
        if seen.contains(&name) {
            return Err(syn::Error::new(key.span(), format!("`{name}` given twice")));
        }
        input.parse::<Token![:]>()?;
        value(&name, input)?;
        seen.push(name);
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    let missing: Vec<&str> = (keys.iter().copied())
        .filter(|k| !optional.contains(k) && !seen.iter().any(|s| s == k))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(syn::Error::new(
            owner,
            format!("missing `{}`", missing.join("`, `")),
        ))
    }
}

/// Items separated by commas, a trailing one allowed.
fn comma_list<T>(
    input: ParseStream,
    mut item: impl FnMut(ParseStream) -> syn::Result<T>,
) -> syn::Result<Vec<T>> {
    let mut out = Vec::new();
    while !input.is_empty() {
        out.push(item(input)?);
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(out)
}

fn entry(input: ParseStream, span: Span) -> syn::Result<Entry> {
    let (mut modes, mut peers, mut libraries) = (Vec::new(), Vec::new(), Vec::new());
    fields(
        input,
        &["modes", "peers", "libraries"],
        &["libraries"],
        span,
        |key, v| {
            let inner;
            match key {
                "modes" => modes = mode_list(v)?,
                "peers" => {
                    bracketed!(inner in v);
                    peers = comma_list(&inner, peer)?;
                }
                _ => {
                    bracketed!(inner in v);
                    libraries = comma_list(&inner, library_peer)?;
                }
            }
            Ok(())
        },
    )?;
    Ok(Entry {
        modes,
        peers,
        libraries,
    })
}

fn calibration(input: ParseStream, span: Span) -> syn::Result<Calibration> {
    let (mut kernel, mut modes, mut hash) = (None, Vec::new(), None);
    fields(
        input,
        &["kernel", "modes", "hash"],
        &["hash"],
        span,
        |key, v| {
            match key {
                "kernel" => kernel = Some(v.parse()?),
                "modes" => modes = mode_list(v)?,
                _ => {
                    let name: Ident = v.parse()?;
                    let inner;
                    parenthesized!(inner in v);
                    let init = inner.parse()?;
                    inner.parse::<Token![,]>()?;
                    let update = inner.parse()?;
                    inner.parse::<Token![,]>()?;
                    let finish = inner.parse()?;
                    hash = Some(Hash {
                        name,
                        init,
                        update,
                        finish,
                    });
                }
            }
            Ok(())
        },
    )?;
    Ok(Calibration {
        kernel: kernel.expect("fields checked it is given"),
        modes,
        hash,
    })
}

/// `[Mode: [k, ...], ...]`.
fn mode_list(input: ParseStream) -> syn::Result<Vec<Modes>> {
    let inner;
    bracketed!(inner in input);
    comma_list(&inner, |s| {
        let mode: Ident = s.parse()?;
        s.parse::<Token![:]>()?;
        let keys;
        bracketed!(keys in s);
        Ok(Modes {
            mode,
            keys: comma_list(&keys, |k| k.parse())?,
        })
    })
}

fn peer(input: ParseStream) -> syn::Result<Peer> {
    let name: LitStr = input.parse()?;
    let inner;
    braced!(inner in input);
    let (mut label, mut krate, mut keyed, mut builds) = (None, None, None, Vec::new());
    fields(
        &inner,
        &["label", "krate", "keyed", "builds"],
        &["builds"],
        name.span(),
        |key, v| {
            match key {
                "label" => label = Some(v.parse()?),
                "krate" => krate = Some(v.parse()?),
                "keyed" => keyed = Some(keyed_by(v)?),
                _ => {
                    let list;
                    bracketed!(list in v);
                    builds = comma_list(&list, build)?;
                }
            }
            Ok(())
        },
    )?;
    Ok(Peer {
        name,
        label: label.expect("fields checked it is given"),
        krate: krate.expect("fields checked it is given"),
        keyed: keyed.expect("fields checked it is given"),
        builds,
    })
}

fn library_peer(input: ParseStream) -> syn::Result<LibraryPeer> {
    let name: LitStr = input.parse()?;
    let inner;
    braced!(inner in input);
    let (mut label, mut library, mut algorithm) = (None, None, Vec::new());
    let (mut modes, mut provider) = (None, None);
    fields(
        &inner,
        &["label", "library", "algorithm", "modes", "provider"],
        &["modes", "provider"],
        name.span(),
        |key, v| {
            match key {
                "label" => label = Some(v.parse()?),
                "library" => library = Some(v.parse()?),
                "provider" => provider = Some(v.parse()?),
                "modes" => {
                    let list;
                    bracketed!(list in v);
                    modes = Some(comma_list(&list, |m| m.parse::<Ident>())?);
                }
                _ if v.peek(LitStr) => algorithm = vec![(None, v.parse()?)],
                _ => {
                    let how: Ident = v.parse()?;
                    if how != "by_length" {
                        return Err(syn::Error::new(
                            how.span(),
                            "expected the library's name, \"NAME\", or `by_length(16 => \"NAME\", 5..=16 => \"NAME\", ...)`",
                        ));
                    }
                    let lengths;
                    parenthesized!(lengths in v);
                    algorithm = comma_list(&lengths, |s| {
                        let shortest: LitInt = s.parse()?;
                        let longest = if s.peek(Token![..=]) {
                            s.parse::<Token![..=]>()?;
                            Some(s.parse()?)
                        } else {
                            None
                        };
                        s.parse::<Token![=>]>()?;
                        Ok((Some(Lengths { shortest, longest }), s.parse()?))
                    })?;
                }
            }
            Ok(())
        },
    )?;
    Ok(LibraryPeer {
        name,
        label: label.expect("fields checked it is given"),
        library: library.expect("fields checked it is given"),
        algorithm,
        modes,
        provider,
    })
}

fn keyed_by(input: ParseStream) -> syn::Result<Keyed> {
    let how: Ident = input.parse()?;
    let inner;
    parenthesized!(inner in input);
    match how.to_string().as_str() {
        "cipher" => Ok(Keyed::Cipher(inner.parse()?)),
        "digest" => Ok(Keyed::Digest(inner.parse()?)),
        "by_length" => Ok(Keyed::ByLength(comma_list(&inner, |s| {
            let len: LitInt = s.parse()?;
            s.parse::<Token![=>]>()?;
            Ok((len, s.parse()?))
        })?)),
        _ => Err(syn::Error::new(
            how.span(),
            "expected `cipher(Type)`, `by_length(16 => Type, ...)` or `digest(function)`",
        )),
    }
}

fn build(input: ParseStream) -> syn::Result<Build> {
    let name: LitStr = input.parse()?;
    let inner;
    braced!(inner in input);
    let (mut label, mut rustflags, mut features) = (None, None, Vec::new());
    fields(
        &inner,
        &["label", "rustflags", "features"],
        &["rustflags", "features"],
        name.span(),
        |key, v| {
            match key {
                "label" => label = Some(v.parse()?),
                "rustflags" => rustflags = Some(v.parse()?),
                _ => {
                    let list;
                    bracketed!(list in v);
                    features = comma_list(&list, |f| f.parse::<LitStr>())?;
                }
            }
            Ok(())
        },
    )?;
    Ok(Build {
        name,
        label: label.expect("fields checked it is given"),
        rustflags,
        features,
    })
}

/// What the grammar cannot say: modes and key sizes present, distinct and
/// within bounds (0 for a keyless mode); peer names distinct plain names (`a-z`, `0-9`, `-`);
/// labels and flags not empty; one peer per crate in a declaration; a
/// checksum's peers keyed by `digest`, a cipher's by a type.
fn validate(facts: &Facts, kind: &Kind, span: Span) -> syn::Result<()> {
    let mut errors = Errors::default();
    let modes = match facts {
        Facts::Entry(e) => &e.modes,
        Facts::Calibration(c) => &c.modes,
    };
    check_modes(modes, span, &mut errors);
    if let Facts::Entry(e) = facts {
        check_peers(&e.peers, &e.libraries, kind, &mut errors);
        check_offers(&e.libraries, &e.modes, &mut errors);
    }
    errors.finish()
}

fn check_modes(modes: &[Modes], span: Span, errors: &mut Errors) {
    if modes.is_empty() {
        errors.push(syn::Error::new(span, "`modes` names at least one mode"));
    }
    for (i, m) in modes.iter().enumerate() {
        if modes[..i].iter().any(|o| o.mode == m.mode) {
            errors.push(syn::Error::new(m.mode.span(), "this mode is given twice"));
        }
        if m.keys.is_empty() {
            errors.push(syn::Error::new(
                m.mode.span(),
                "a mode takes at least one key size",
            ));
        }
        for (j, k) in m.keys.iter().enumerate() {
            match k.base10_parse::<u64>() {
                Ok(n) if n <= MAX_KEY_BYTES => {
                    if m.keys[..j]
                        .iter()
                        .any(|o| o.base10_digits() == k.base10_digits())
                    {
                        errors.push(syn::Error::new(k.span(), "this key size is given twice"));
                    }
                }
                _ => errors.push(syn::Error::new(
                    k.span(),
                    format!(
                        "a key size is a whole number of bytes from 0 (no key) to {MAX_KEY_BYTES}"
                    ),
                )),
            }
        }
    }
}

fn check_peers(peers: &[Peer], libraries: &[LibraryPeer], kind: &Kind, errors: &mut Errors) {
    let mut names: Vec<String> = Vec::new();
    let mut name = |lit: &LitStr, errors: &mut Errors| {
        let v = lit.value();
        let plain = !v.is_empty()
            && (v.bytes()).all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !plain {
            errors.push(syn::Error::new(
                lit.span(),
                "a peer's name is a plain name: a-z, 0-9 and `-`",
            ));
        } else if names.contains(&v) {
            errors.push(syn::Error::new(lit.span(), "this name is given twice"));
        }
        names.push(v);
    };
    let not_empty = |lit: &LitStr, what: &str, errors: &mut Errors| {
        if lit.value().trim().is_empty() {
            errors.push(syn::Error::new(lit.span(), format!("`{what}` is empty")));
        }
    };
    for (i, p) in peers.iter().enumerate() {
        name(&p.name, errors);
        not_empty(&p.label, "label", errors);
        if peers[..i].iter().any(|o| o.krate == p.krate) {
            errors.push(syn::Error::new(
                p.krate.span(),
                "one peer per crate: another build of it goes in that peer's `builds`",
            ));
        }
        check_keyed(&p.keyed, kind, p.krate.span(), errors);
        for b in &p.builds {
            name(&b.name, errors);
            not_empty(&b.label, "label", errors);
            if let Some(flags) = &b.rustflags {
                not_empty(flags, "rustflags", errors);
            }
            for f in &b.features {
                let v = f.value();
                let plain = (v.chars()).all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if v.is_empty() || !plain {
                    errors.push(syn::Error::new(
                        f.span(),
                        format!("`{v}` is not a feature name: letters, digits, `_` and `-`"),
                    ));
                }
            }
            if b.rustflags.is_none() && b.features.is_empty() {
                errors.push(syn::Error::new(
                    b.name.span(),
                    "a build differs from its peer: give it `rustflags`, `features` or both",
                ));
            }
        }
    }
    for (i, l) in libraries.iter().enumerate() {
        name(&l.name, errors);
        not_empty(&l.label, "label", errors);
        if !LIBRARIES.iter().any(|k| l.library == k) {
            errors.push(syn::Error::new(
                l.library.span(),
                format!("a library peer comes from one of: {}", LIBRARIES.join(", ")),
            ));
        }
        if libraries[..i].iter().any(|o| o.library == l.library) {
            errors.push(syn::Error::new(
                l.library.span(),
                "one peer per library in a declaration",
            ));
        }
        if let Kind::Checksum = kind {
            errors.push(syn::Error::new(
                l.name.span(),
                "a library peer is a cipher's (a checksum has none)",
            ));
        }
        if l.algorithm.is_empty() {
            errors.push(syn::Error::new(
                l.name.span(),
                "`by_length` names at least one algorithm",
            ));
        }
        for (j, (len, algo)) in l.algorithm.iter().enumerate() {
            let plain = (algo.value().bytes()).all(|b| b.is_ascii_alphanumeric() || b == b'-');
            if algo.value().is_empty() || !plain {
                errors.push(syn::Error::new(
                    algo.span(),
                    "an algorithm's name is letters, digits and `-`",
                ));
            }
            let Some(len) = len else { continue };
            let Some((lo, hi)) = len
                .bounds()
                .filter(|&(lo, hi)| lo <= hi && hi <= MAX_KEY_BYTES)
            else {
                errors.push(syn::Error::new(
                    len.span(),
                    format!(
                        "a key length is a whole number of bytes up to {MAX_KEY_BYTES}, a range `shortest..=longest`"
                    ),
                ));
                continue;
            };
            let twice = (l.algorithm[..j].iter())
                .filter_map(|(o, _)| o.as_ref()?.bounds())
                .any(|(olo, ohi)| lo <= ohi && olo <= hi);
            if twice {
                errors.push(syn::Error::new(
                    len.span(),
                    "this key length is given twice",
                ));
            }
        }
        if let Some(p) = &l.provider {
            if l.library != "openssl" {
                errors.push(syn::Error::new(
                    p.span(),
                    "a provider is OpenSSL's: only `library: openssl` names one",
                ));
            } else if !PROVIDERS.iter().any(|k| p == k) {
                errors.push(syn::Error::new(
                    p.span(),
                    format!("a provider is one of: {}", PROVIDERS.join(", ")),
                ));
            }
        }
    }
}

/// A library peer's `modes`: at least one, each once, each a mode of the
/// entry (a mode the entry does not measure is offered to no case).
fn check_offers(libraries: &[LibraryPeer], modes: &[Modes], errors: &mut Errors) {
    for l in libraries {
        let Some(offered) = &l.modes else { continue };
        if offered.is_empty() {
            errors.push(syn::Error::new(
                l.name.span(),
                "`modes` names at least one mode the library offers",
            ));
        }
        for (i, m) in offered.iter().enumerate() {
            if offered[..i].contains(m) {
                errors.push(syn::Error::new(m.span(), "this mode is given twice"));
            } else if !modes.iter().any(|e| e.mode == *m) {
                errors.push(syn::Error::new(
                    m.span(),
                    "a library offers modes of the entry's `modes`: this one is not among them",
                ));
            }
        }
    }
}

fn check_keyed(keyed: &Keyed, kind: &Kind, span: Span, errors: &mut Errors) {
    match (keyed, kind) {
        (Keyed::Digest(_), Kind::Cipher(_)) => errors.push(syn::Error::new(
            span,
            "a cipher's peer is keyed by a type: `cipher(Type)` or `by_length(...)`",
        )),
        (Keyed::Cipher(_) | Keyed::ByLength(_), Kind::Checksum) => errors.push(syn::Error::new(
            span,
            "a checksum's peer is keyed by its function: `digest(function)`",
        )),
        (Keyed::ByLength(lengths), _) => {
            if lengths.is_empty() {
                errors.push(syn::Error::new(span, "`by_length` names at least one type"));
            }
            for (i, (len, _)) in lengths.iter().enumerate() {
                if lengths[..i]
                    .iter()
                    .any(|(o, _)| o.base10_digits() == len.base10_digits())
                {
                    errors.push(syn::Error::new(
                        len.span(),
                        "this key length is given twice",
                    ));
                }
            }
        }
        _ => {}
    }
}

impl Facts {
    /// The fixed grammar the consumers match (see the module's doc).
    pub(crate) fn to_tokens(&self) -> TokenStream {
        match self {
            Facts::Entry(e) => {
                let modes = modes_tokens(&e.modes);
                let peers = e.peers.iter().map(Peer::to_tokens);
                let libraries = e.libraries.iter().map(|l| l.to_tokens(&e.modes));
                quote!(modes: #modes, peers: [#(#peers),*], libraries: [#(#libraries),*])
            }
            Facts::Calibration(c) => {
                let kernel = &c.kernel;
                let modes = modes_tokens(&c.modes);
                let hash = c.hash.as_ref().map(|h| {
                    let Hash {
                        name,
                        init,
                        update,
                        finish,
                    } = h;
                    quote!(#name(#init, #update, #finish))
                });
                quote!(kernel: #kernel, modes: #modes, hash: [#hash])
            }
        }
    }
}

fn modes_tokens(modes: &[Modes]) -> TokenStream {
    let each = modes.iter().map(|m| {
        let (mode, keys) = (&m.mode, &m.keys);
        quote!(#mode: [#(#keys),*])
    });
    quote!([#(#each),*])
}

impl LibraryPeer {
    /// Its fixed form, every part present: its modes, where it names none,
    /// are the entry's `modes`.
    fn to_tokens(&self, entry_modes: &[Modes]) -> TokenStream {
        let LibraryPeer {
            name,
            label,
            library,
            algorithm,
            modes,
            provider,
        } = self;
        let algorithm = algorithm.iter().map(|(len, algo)| match len {
            Some(Lengths {
                shortest,
                longest: Some(longest),
            }) => quote!(#shortest ..= #longest => #algo),
            Some(Lengths {
                shortest,
                longest: None,
            }) => quote!(#shortest ..= #shortest => #algo),
            None => {
                let every = LitInt::new(&MAX_KEY_BYTES.to_string(), algo.span());
                quote!(0 ..= #every => #algo)
            }
        });
        let modes: Vec<&Ident> = match modes {
            Some(modes) => modes.iter().collect(),
            None => entry_modes.iter().map(|m| &m.mode).collect(),
        };
        let provider = provider.iter();
        quote!(#name {
            label: #label,
            library: #library,
            algorithm: [#(#algorithm),*],
            modes: [#(#modes),*],
            provider: [#(#provider)*]
        })
    }
}

impl Peer {
    fn to_tokens(&self) -> TokenStream {
        let Peer {
            name,
            label,
            krate,
            keyed,
            builds,
        } = self;
        let keyed = match keyed {
            Keyed::Cipher(ty) => quote!(cipher(#ty)),
            Keyed::Digest(f) => quote!(digest(#f)),
            Keyed::ByLength(lengths) => {
                let each = lengths.iter().map(|(len, ty)| quote!(#len => #ty));
                quote!(by_length(#(#each),*))
            }
        };
        let builds = builds.iter().map(|b| {
            let Build {
                name,
                label,
                rustflags,
                features,
            } = b;
            let rustflags = rustflags.iter();
            quote!(#name { label: #label, rustflags: [#(#rustflags)*], features: [#(#features),*] })
        });
        quote!(#name { label: #label, krate: #krate, keyed: #keyed, builds: [#(#builds),*] })
    }
}
