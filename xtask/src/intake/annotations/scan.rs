//! The walk: the module tree from the library's root file, and in each
//! file the token trees, item by item, with what encloses each item (module,
//! macro, impl, trait, function, conditions) carried down.

use super::attrs::{self, Meta, Site};
use super::cfg::{Cfg, Pred};
use super::error::{Error, Result};
use super::lex::{self, Source, is_ident, is_punct};
use super::manifest::Manifest;
use super::model::{Annotation, FnKind, Function, Place, Scan};
use proc_macro2::{Delimiter, TokenTree};
use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// Finds every inline attribute and every function with a body in the
/// library of the package at `package_root`, following its module tree
/// from the lib target's root file (breadth first: each file in source
/// order, then the files it declares). `cfg` decides only one thing here: a
/// `mod` declaration whose file is missing is skipped (and noted in
/// [`Scan::skipped`]) when `cfg` does not compile it, and an error when it
/// does.
pub fn scan(package_root: &Path, cfg: &Cfg) -> Result<Scan> {
    let lib = Manifest::read(package_root)?.lib_path()?;
    let mut walker = Walker {
        root: package_root.to_path_buf(),
        cfg,
        scan: Scan::default(),
        seen: BTreeSet::new(),
        pending: VecDeque::new(),
    };
    let dir = lib.parent().map(Path::to_path_buf).unwrap_or_default();
    let ctx = Ctx {
        segments: Vec::new(),
        owner: Owner::None,
        conds: Vec::new(),
        in_macro: false,
        in_cfg_if: false,
        file_dir: dir.clone(),
        mod_dir: dir,
        in_inline_mod: false,
    };
    walker.pending.push_back((lib, ctx));
    while let Some((file, ctx)) = walker.pending.pop_front() {
        walker.file(&file, ctx)?;
    }
    Ok(walker.scan)
}

/// The item a function is directly inside.
#[derive(Clone, Debug)]
enum Owner {
    None,
    Impl { has_trait: bool },
    Trait,
}

/// What encloses the tokens being walked.
#[derive(Clone, Debug)]
struct Ctx {
    /// Path segments so far: modules, `name!` macros, impls, traits, fns.
    segments: Vec<String>,
    owner: Owner,
    conds: Vec<Pred>,
    in_macro: bool,
    in_cfg_if: bool,
    /// The directory of the file being walked (relative to the root).
    file_dir: PathBuf,
    /// Where `mod x;` looks for `x.rs` and `x/mod.rs`.
    mod_dir: PathBuf,
    /// Inside `mod x { .. }`: `#[path]` is then relative to `mod_dir`.
    in_inline_mod: bool,
}

impl Ctx {
    fn with(&self, segment: String, conds: &[Pred]) -> Ctx {
        let mut ctx = self.clone();
        ctx.segments.push(segment);
        ctx.conds.extend(conds.iter().cloned());
        ctx
    }

    fn path_of(&self, name: &str) -> String {
        let mut segments = self.segments.clone();
        segments.push(name.to_string());
        segments.join("::")
    }

    fn place(&self) -> Place {
        let kind = match self.owner {
            Owner::None => FnKind::FreeFn,
            Owner::Impl { has_trait: false } => FnKind::InherentMethod,
            Owner::Impl { has_trait: true } => FnKind::TraitImplMethod,
            Owner::Trait => FnKind::TraitMethod,
        };
        Place {
            kind,
            in_macro_body: self.in_macro,
            in_cfg_if: self.in_cfg_if,
        }
    }
}

struct Walker<'a> {
    root: PathBuf,
    cfg: &'a Cfg,
    scan: Scan,
    seen: BTreeSet<PathBuf>,
    /// Module files found and not read yet: a file is read whole before
    /// the modules it declares, so that each file's annotations are
    /// together and in source order.
    pending: VecDeque<(PathBuf, Ctx)>,
}

/// What an attribute is recorded against: the function (when it is on
/// one), the path, the function's index when it has a body.
struct Target<'a> {
    function: Option<&'a str>,
    path: &'a str,
    index: Option<usize>,
}

/// An outer attribute run and the item after it.
struct Item {
    sites: Vec<Site>,
    /// The item's own conditions (from its `#[cfg]`s).
    conds: Vec<Pred>,
    /// Index of the first token after the attributes.
    start: usize,
    /// Index of the item's keyword (after visibility and qualifiers).
    keyword: usize,
}

impl Walker<'_> {
    /// Reads, lexes and walks one module file.
    fn file(&mut self, rel: &Path, ctx: Ctx) -> Result<()> {
        let rel = normalize(rel);
        if !self.seen.insert(rel.clone()) {
            self.scan
                .skipped
                .push(format!("{}: already read", rel.display()));
            return Ok(());
        }
        let text = super::error::read(&self.root.join(&rel))?;
        let source = Source::lex(rel.clone(), text)?;
        self.scan.files.push(rel);
        let tokens = source.tokens.clone();
        self.tokens(&source, &tokens, ctx)
    }

    /// Walks a list of token trees as a sequence of items (which is also
    /// what a block, a macro body or a macro's input is, near enough).
    fn tokens(&mut self, source: &Source, tokens: &[TokenTree], mut ctx: Ctx) -> Result<()> {
        let mut i = 0;
        while i < tokens.len() {
            // Inner attributes: a `#![cfg]` conditions the rest of the list.
            if let Some((site, len, true)) = attrs::at(source, tokens, i) {
                ctx.conds.extend(site.item_conds());
                self.orphans(source, &site, &ctx, &[]);
                i += len;
                continue;
            }
            let item = self.item_at(source, tokens, i);
            let keyword = tokens.get(item.keyword);
            let next = if is_ident(keyword, "fn") && name_at(tokens, item.keyword + 1).is_some() {
                self.function(source, tokens, &item, &ctx)?
            } else if is_ident(keyword, "mod") && name_at(tokens, item.keyword + 1).is_some() {
                self.module(source, tokens, &item, &ctx)?
            } else if is_ident(keyword, "impl") {
                self.owner(source, tokens, &item, &ctx, true)?
            } else if is_ident(keyword, "trait") && name_at(tokens, item.keyword + 1).is_some() {
                self.owner(source, tokens, &item, &ctx, false)?
            } else if let Some(body) = macro_call(tokens, item.keyword) {
                self.macro_call(source, tokens, &item, body, &ctx)?
            } else {
                self.other(source, tokens, &item, &ctx)?
            };
            i = next.max(i + 1);
        }
        Ok(())
    }

    /// The outer attributes at `at` and where the item after them starts.
    fn item_at(&self, source: &Source, tokens: &[TokenTree], at: usize) -> Item {
        let mut sites = Vec::new();
        let mut i = at;
        while let Some((site, len, false)) = attrs::at(source, tokens, i) {
            sites.push(site);
            i += len;
        }
        let conds = sites.iter().flat_map(Site::item_conds).collect();
        Item {
            sites,
            conds,
            start: i,
            keyword: skip_qualifiers(tokens, i),
        }
    }

    /// `fn NAME ..`: the function, its annotations, then its body.
    fn function(
        &mut self,
        source: &Source,
        tokens: &[TokenTree],
        item: &Item,
        ctx: &Ctx,
    ) -> Result<usize> {
        let (name, after_name) = name_at(tokens, item.keyword + 1).unwrap_or_default();
        // The body: the first `{..}` before a `;` (none: a declaration).
        let mut body = None;
        let mut end = tokens.len();
        for (k, token) in tokens.iter().enumerate().skip(after_name) {
            if is_punct(Some(token), ';') {
                end = k + 1;
                break;
            }
            if matches!(token, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace) {
                body = Some(k);
                end = k + 1;
                break;
            }
        }
        // A macro body may write the body as a fragment: `fn $name() $body`.
        let has_body = body.is_some() || (ctx.in_macro && end == tokens.len());
        let mut fn_conds = ctx.conds.clone();
        fn_conds.extend(item.conds.iter().cloned());
        let index = has_body.then_some(self.scan.functions.len());
        let path = ctx.path_of(&name);
        if let Some(first) = tokens.get(item.start)
            && has_body
        {
            let at = first.span().start();
            self.scan.functions.push(Function {
                file: source.rel.clone(),
                line: at.line,
                column: at.column + 1,
                name: name.clone(),
                path: path.clone(),
                place: ctx.place(),
                cfg: Pred::all(fn_conds.clone()),
                insert_at: source.offset(at),
                first_token: lex::render(std::slice::from_ref(first)),
                annotations: Vec::new(),
                index: self.scan.functions.len(),
                target_feature: item.sites.iter().any(Site::target_feature),
            });
        }
        for site in &item.sites {
            let target = Target {
                function: Some(&name),
                path: &path,
                index,
            };
            self.annotate(source, site, ctx, &item.conds, target);
        }
        if let Some(body) = body.and_then(|b| lex::group(tokens.get(b), Delimiter::Brace)) {
            let mut inner = ctx.with(name, &item.conds);
            inner.owner = Owner::None;
            self.tokens(source, &body, inner)?;
        }
        Ok(end)
    }

    /// `mod NAME;` (the file, found as rustc finds it) or `mod NAME { .. }`.
    fn module(
        &mut self,
        source: &Source,
        tokens: &[TokenTree],
        item: &Item,
        ctx: &Ctx,
    ) -> Result<usize> {
        let (name, after) = name_at(tokens, item.keyword + 1).unwrap_or_default();
        self.orphans_of(source, item, ctx);
        let dir_name = name.strip_prefix("r#").unwrap_or(&name).to_string();
        let mut inner = ctx.with(name.clone(), &item.conds);
        inner.owner = Owner::None;
        inner.mod_dir = ctx.mod_dir.join(&dir_name);
        if let Some(body) = lex::group(tokens.get(after), Delimiter::Brace) {
            inner.in_inline_mod = true;
            self.tokens(source, &body, inner)?;
            return Ok(after + 1);
        }
        if !is_punct(tokens.get(after), ';') {
            return Ok(after);
        }
        let path = item.sites.iter().find_map(Site::path);
        let tried: Vec<PathBuf> = match path {
            Some(path) if ctx.in_inline_mod => vec![ctx.mod_dir.join(path)],
            Some(path) => vec![ctx.file_dir.join(path)],
            None => vec![
                ctx.mod_dir.join(format!("{dir_name}.rs")),
                ctx.mod_dir.join(&dir_name).join("mod.rs"),
            ],
        };
        let Some(found) = tried.iter().find(|p| self.root.join(p).is_file()).cloned() else {
            let line = tokens[item.keyword].span().start().line;
            if self.cfg.eval(&Pred::all(inner.conds.clone())) == Some(false) {
                self.scan.skipped.push(format!(
                    "{}:{line}: mod {name}: no file, not compiled on this target",
                    source.rel.display()
                ));
                return Ok(after + 1);
            }
            return Err(Error::ModuleNotFound {
                file: source.rel.clone(),
                line,
                tried,
            });
        };
        inner.file_dir = found.parent().map(Path::to_path_buf).unwrap_or_default();
        if path.is_some() {
            // A file loaded by `#[path]` owns its directory, as a mod.rs.
            inner.mod_dir = inner.file_dir.clone();
        }
        inner.in_inline_mod = false;
        inner.in_macro = false;
        inner.in_cfg_if = false;
        // The same file declared again, not read yet (sha1's `mod soft;` in
        // two branches of a `cfg_if!`): compiled where any of its
        // declarations is.
        let again = normalize(&found);
        if let Some((_, first)) = (self.pending.iter_mut()).find(|(p, _)| normalize(p) == again) {
            let conds = std::mem::take(&mut first.conds);
            first.conds = vec![Pred::Any(vec![Pred::all(conds), Pred::all(inner.conds)])];
            return Ok(after + 1);
        }
        self.pending.push_back((found, inner));
        Ok(after + 1)
    }

    /// `impl .. { .. }` or `trait NAME .. { .. }`: its body, with the item
    /// as it is written as the path segment.
    fn owner(
        &mut self,
        source: &Source,
        tokens: &[TokenTree],
        item: &Item,
        ctx: &Ctx,
        is_impl: bool,
    ) -> Result<usize> {
        self.orphans_of(source, item, ctx);
        let Some(brace) = (item.keyword + 1..tokens.len()).find(|&k| {
            matches!(&tokens[k], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace)
                || is_punct(tokens.get(k), ';')
        }) else {
            return Ok(tokens.len());
        };
        let Some(body) = lex::group(tokens.get(brace), Delimiter::Brace) else {
            return Ok(brace + 1);
        };
        let header = &tokens[item.keyword + 1..brace];
        let (segment, owner) = if is_impl {
            let (trait_, self_ty) = impl_header(header);
            let segment = match &trait_ {
                Some(t) => format!("<{} as {}>", lex::render(self_ty), lex::render(t)),
                None => lex::render(self_ty),
            };
            let has_trait = trait_.is_some();
            (segment, Owner::Impl { has_trait })
        } else {
            let name = name_at(tokens, item.keyword + 1).unwrap_or_default().0;
            (name, Owner::Trait)
        };
        let mut inner = ctx.with(segment, &item.conds);
        inner.owner = owner;
        self.tokens(source, &body, inner)?;
        Ok(brace + 1)
    }

    /// `macro_rules! NAME { .. }`, `cfg_if! { .. }` or any other macro
    /// invocation `path!(..)`.
    fn macro_call(
        &mut self,
        source: &Source,
        tokens: &[TokenTree],
        item: &Item,
        (name, body_at): (String, usize),
        ctx: &Ctx,
    ) -> Result<usize> {
        self.orphans_of(source, item, ctx);
        let body: Vec<TokenTree> = match tokens.get(body_at) {
            Some(TokenTree::Group(g)) => g.stream().into_iter().collect(),
            _ => return Ok(body_at + 1),
        };
        if name == "include" && mentions(&body, "OUT_DIR") {
            let line = tokens[body_at].span().start().line;
            (self.scan.generated).push(format!("{}:{line}", source.rel.display()));
        }
        if name == "macro_rules" {
            // `macro_rules! NAME { .. }`: body_at is NAME's group.
            let macro_name = name_at(tokens, body_at - 1).unwrap_or_default().0;
            let mut inner = ctx.with(format!("{macro_name}!"), &item.conds);
            inner.in_macro = true;
            inner.owner = Owner::None;
            self.tokens(source, &body, inner)?;
        } else if name == "cfg_if" && self.cfg_if(source, &body, ctx, &item.conds)? {
            // Walked branch by branch.
        } else {
            let mut inner = ctx.clone();
            inner.conds.extend(item.conds.iter().cloned());
            self.tokens(source, &body, inner)?;
        }
        let next = body_at + 1;
        Ok(if is_punct(tokens.get(next), ';') {
            next + 1
        } else {
            next
        })
    }

    /// `if #[cfg(A)] { .. } else if #[cfg(B)] { .. } else { .. }`: each
    /// branch under its condition and the negation of those before it.
    /// False (nothing walked) when the tokens are not in that shape.
    fn cfg_if(
        &mut self,
        source: &Source,
        body: &[TokenTree],
        ctx: &Ctx,
        conds: &[Pred],
    ) -> Result<bool> {
        let mut branches: Vec<(Vec<Pred>, Vec<TokenTree>)> = Vec::new();
        let mut before: Vec<Pred> = Vec::new();
        let mut i = 0;
        while i < body.len() {
            if is_ident(body.get(i), "else") {
                i += 1;
            }
            let mut own = Vec::new();
            if is_ident(body.get(i), "if") {
                let Some((site, len, false)) = attrs::at(source, body, i + 1) else {
                    return Ok(false);
                };
                let Some(Meta::Cfg(pred)) = site.metas.first().map(|e| e.meta.clone()) else {
                    return Ok(false);
                };
                own.push(pred);
                i += 1 + len;
            }
            let Some(block) = lex::group(body.get(i), Delimiter::Brace) else {
                return Ok(false);
            };
            let mut branch: Vec<Pred> = before.iter().cloned().map(Pred::negate).collect();
            branch.extend(own.iter().cloned());
            branches.push((branch, block));
            before.extend(own);
            i += 1;
        }
        for (branch, block) in branches {
            let mut inner = ctx.clone();
            inner.conds.extend(conds.iter().cloned());
            inner.conds.extend(branch);
            inner.in_cfg_if = true;
            self.tokens(source, &block, inner)?;
        }
        Ok(true)
    }

    /// Anything else (a struct, a statement, an expression): walks the
    /// groups in it, under its attributes' conditions until its end (the
    /// first `;` or `{..}`), or the one token if it has no attributes.
    fn other(
        &mut self,
        source: &Source,
        tokens: &[TokenTree],
        item: &Item,
        ctx: &Ctx,
    ) -> Result<usize> {
        self.orphans_of(source, item, ctx);
        if item.sites.is_empty() {
            if let Some(TokenTree::Group(g)) = tokens.get(item.start) {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                self.tokens(source, &inner, ctx.clone())?;
            }
            return Ok(item.start + 1);
        }
        let mut inner = ctx.clone();
        inner.conds.extend(item.conds.iter().cloned());
        let mut k = item.start;
        while let Some(token) = tokens.get(k) {
            k += 1;
            if is_punct(Some(token), ';') {
                break;
            }
            if let TokenTree::Group(g) = token {
                let group: Vec<TokenTree> = g.stream().into_iter().collect();
                self.tokens(source, &group, inner.clone())?;
                if g.delimiter() == Delimiter::Brace {
                    break;
                }
            }
        }
        Ok(k)
    }

    /// Inline attributes on an item that is not a function.
    fn orphans_of(&mut self, source: &Source, item: &Item, ctx: &Ctx) {
        for site in &item.sites {
            self.orphans(source, site, ctx, &item.conds);
        }
    }

    fn orphans(&mut self, source: &Source, site: &Site, ctx: &Ctx, conds: &[Pred]) {
        let path = ctx.path_of(&format!("<line {}>", site.line));
        let target = Target {
            function: None,
            path: &path,
            index: None,
        };
        self.annotate(source, site, ctx, conds, target);
    }

    /// Records the inline metas of one attribute.
    fn annotate(
        &mut self,
        source: &Source,
        site: &Site,
        ctx: &Ctx,
        item_conds: &[Pred],
        target: Target<'_>,
    ) {
        let Target {
            function,
            path,
            index,
        } = target;
        for meta in &site.metas {
            let Meta::Inline(attr) = meta.meta else {
                continue;
            };
            let cfg = Pred::all(
                ctx.conds
                    .iter()
                    .chain(item_conds)
                    .chain(&meta.conds)
                    .cloned(),
            );
            let annotation = self.scan.annotations.len();
            if let Some(f) = index.and_then(|i| self.scan.functions.get_mut(i)) {
                f.annotations.push(annotation);
            }
            self.scan.annotations.push(Annotation {
                file: source.rel.clone(),
                line: site.line,
                column: site.column,
                attr,
                function: function.map(str::to_string),
                path: path.to_string(),
                place: ctx.place(),
                cfg,
                in_cfg_attr: !meta.conds.is_empty(),
                text: source.text[site.range.clone()].to_string(),
                attr_range: site.range.clone(),
                meta_range: meta.meta_range.clone(),
                removal: meta.removal.clone(),
                function_index: index,
            });
        }
    }
}

/// `NAME` or `$NAME` at `at`: the name as written and the index after it.
fn name_at(tokens: &[TokenTree], at: usize) -> Option<(String, usize)> {
    match tokens.get(at) {
        Some(TokenTree::Ident(name)) => Some((name.to_string(), at + 1)),
        Some(TokenTree::Punct(p)) if p.as_char() == '$' => match tokens.get(at + 1) {
            Some(TokenTree::Ident(name)) => Some((format!("${name}"), at + 2)),
            _ => None,
        },
        _ => None,
    }
}

/// The index of the first token after visibility and qualifiers (`pub`,
/// `pub(crate)`, `const`, `unsafe`, `extern "C"`, `async`, `default`,
/// `safe`, and in a macro body `$vis` and `$(..)*`).
fn skip_qualifiers(tokens: &[TokenTree], mut i: usize) -> usize {
    const WORDS: [&str; 7] = [
        "pub", "const", "unsafe", "extern", "async", "default", "safe",
    ];
    loop {
        match tokens.get(i) {
            Some(TokenTree::Ident(word)) if WORDS.iter().any(|w| word == w) => {
                // `const NAME:` and `default` as a name are not qualifiers.
                let next = tokens.get(i + 1);
                let qualifies = match word.to_string().as_str() {
                    "pub" => true,
                    "extern" => true,
                    _ => matches!(next, Some(TokenTree::Ident(_))),
                };
                if !qualifies {
                    return i;
                }
                i += 1;
                match (word.to_string().as_str(), tokens.get(i)) {
                    ("pub", Some(TokenTree::Group(g)))
                        if g.delimiter() == Delimiter::Parenthesis =>
                    {
                        i += 1
                    }
                    ("extern", Some(TokenTree::Literal(_))) => i += 1,
                    _ => {}
                }
            }
            Some(TokenTree::Punct(p)) if p.as_char() == '$' => match tokens.get(i + 1) {
                // `$vis fn`, but not `fn $name`.
                Some(TokenTree::Ident(_)) => i += 2,
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
                    i += 2;
                    // An optional separator, then `*`, `+` or `?`.
                    for _ in 0..2 {
                        if matches!(tokens.get(i), Some(TokenTree::Punct(p)) if "*+?".contains(p.as_char()))
                        {
                            i += 1;
                            break;
                        }
                        if matches!(tokens.get(i), Some(TokenTree::Punct(_))) {
                            i += 1;
                        }
                    }
                }
                _ => return i,
            },
            _ => return i,
        }
    }
}

/// Whether `tokens` name `word`: an identifier, or a string that is it
/// (`env!("OUT_DIR")`).
fn mentions(tokens: &[TokenTree], word: &str) -> bool {
    tokens.iter().any(|t| match t {
        TokenTree::Ident(i) => i == word,
        TokenTree::Literal(l) => l.to_string() == format!("\"{word}\""),
        TokenTree::Group(g) => mentions(&g.stream().into_iter().collect::<Vec<_>>(), word),
        TokenTree::Punct(_) => false,
    })
}

/// A macro invocation at `at` (`name!`, `a::b::name!`, `$crate::name!`,
/// `::name!`, `macro_rules! NAME`): the macro's last segment and the index
/// of its group.
fn macro_call(tokens: &[TokenTree], at: usize) -> Option<(String, usize)> {
    let mut i = at;
    let last = loop {
        if is_punct(tokens.get(i), ':') && is_punct(tokens.get(i + 1), ':') {
            i += 2;
        }
        let name = if is_punct(tokens.get(i), '$') && is_ident(tokens.get(i + 1), "crate") {
            i += 2;
            "$crate".to_string()
        } else if let Some(TokenTree::Ident(name)) = tokens.get(i) {
            i += 1;
            name.to_string()
        } else {
            return None;
        };
        if !(is_punct(tokens.get(i), ':') && is_punct(tokens.get(i + 1), ':')) {
            break name;
        }
    };
    if !is_punct(tokens.get(i), '!') {
        return None;
    }
    if last == "macro_rules" {
        return match (tokens.get(i + 1), tokens.get(i + 2)) {
            (Some(TokenTree::Ident(_)), Some(TokenTree::Group(_))) => Some((last, i + 2)),
            _ => None,
        };
    }
    match tokens.get(i + 1) {
        Some(TokenTree::Group(_)) => Some((last, i + 1)),
        _ => None,
    }
}

/// An impl's header after `impl` and before `{`: the trait (if any) and the
/// self type, generics of the impl and its where clause left out.
fn impl_header(header: &[TokenTree]) -> (Option<&[TokenTree]>, &[TokenTree]) {
    let mut start = 0;
    if is_punct(header.first(), '<') {
        let mut depth = 0usize;
        for (k, token) in header.iter().enumerate() {
            if let TokenTree::Punct(p) = token {
                let arrow = p.as_char() == '>'
                    && k > 0
                    && matches!(&header[k - 1], TokenTree::Punct(q) if q.as_char() == '-');
                match p.as_char() {
                    '<' => depth += 1,
                    '>' if !arrow => depth = depth.saturating_sub(1),
                    _ => {}
                }
                if depth == 0 {
                    start = k + 1;
                    break;
                }
            }
        }
    }
    let header = &header[start..];
    let end = header
        .iter()
        .position(|t| is_ident(Some(t), "where"))
        .unwrap_or(header.len());
    let header = &header[..end];
    let mut depth = 0usize;
    for (k, token) in header.iter().enumerate() {
        match token {
            TokenTree::Punct(p) if p.as_char() == '<' => depth += 1,
            TokenTree::Punct(p) if p.as_char() == '>' => depth = depth.saturating_sub(1),
            TokenTree::Ident(i) if i == "for" && depth == 0 && k > 0 => {
                return (Some(&header[..k]), &header[k + 1..]);
            }
            _ => {}
        }
    }
    (None, header)
}

/// `a/./b/../c` as `a/c`, so that a file reached twice is seen once.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}
