//! Which file of a crate each file imports. The modules are found from the
//! crate root by following `mod x;` (a declaration is containment, not an
//! import); every `use` and every path in code (`crate::a::b`, `super::x`,
//! `self::y`, a child module's name, a name a `use` bound, in expressions,
//! types, patterns and the arguments of macros that parse as expressions)
//! is read with `syn` and resolved to the file that holds the module it
//! names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::punctuated::Punctuated;
use syn::visit::Visit;

/// A module's path from the crate root, `[]` being the root.
pub type Module = Vec<String>;

/// One import: the file that names, the file named, the path as written.
#[derive(Debug, Clone)]
pub struct Import {
    pub from: PathBuf,
    pub to: PathBuf,
    pub path: String,
}

/// A path named in a module, as written.
struct Named {
    file: PathBuf,
    module: Module,
    segments: Vec<String>,
}

/// What one file says: its paths, its `use`s (also bound names) and its
/// inline modules.
#[derive(Default)]
struct Reader {
    module: Module,
    paths: Vec<(Module, Vec<String>)>,
    uses: Vec<(Module, Vec<String>, Use)>,
    inline: Vec<Module>,
    declared: Vec<Module>,
}

#[derive(Clone, PartialEq)]
enum Use {
    /// `use a::b;` or `use a::b as c;`: binds a name.
    Name(String),
    /// `use a::*;`
    Glob,
}

impl Reader {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                let mut full = prefix.clone();
                let bound = if name == "self" {
                    prefix.last().cloned().unwrap_or_default()
                } else {
                    full.push(name.clone());
                    name
                };
                self.uses
                    .push((self.module.clone(), full, Use::Name(bound)));
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                let bound = Use::Name(r.rename.to_string());
                self.uses.push((self.module.clone(), full, bound));
            }
            syn::UseTree::Glob(_) => {
                self.uses
                    .push((self.module.clone(), prefix.clone(), Use::Glob));
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Reader {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.module.push(m.ident.to_string());
        if m.content.is_some() {
            self.inline.push(self.module.clone());
            syn::visit::visit_item_mod(self, m);
        } else {
            self.declared.push(self.module.clone());
        }
        self.module.pop();
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if u.leading_colon.is_none() {
            self.use_tree(&mut Vec::new(), &u.tree);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        // `x` alone names a value or a type: what a `use` bound is an
        // import already, and a module is no value.
        if p.leading_colon.is_none() && p.segments.len() > 1 {
            let segments = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.paths.push((self.module.clone(), segments));
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        syn::visit::visit_macro(self, m);
        // `format!("{}", crate::a::b())`, `assert!(..)`, `vec![..]`: the
        // arguments, where they parse as expressions or statements.
        let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(args) = m.parse_body_with(parser) {
            for e in &args {
                self.visit_expr(e);
            }
        } else if let Ok(stmts) = m.parse_body_with(syn::Block::parse_within) {
            for s in &stmts {
                self.visit_stmt(s);
            }
        }
    }
}

/// A crate read from its root file: its modules, the file holding each, and
/// what each file names.
pub struct Crate {
    /// Module -> the file that holds it (an inline module, its file's).
    modules: BTreeMap<Module, PathBuf>,
    named: Vec<Named>,
    /// (module, bound name) -> the path it stands for.
    bound: BTreeMap<(Module, String), Vec<String>>,
    globs: BTreeMap<Module, Vec<Vec<String>>>,
}

/// The folder a file's `mod x;` declarations are found in: the crate
/// root's and a `mod.rs`'s own, else the one named after the file.
fn children_dir(file: &Path, root: bool) -> PathBuf {
    let dir = file.parent().expect("a file has a folder").to_path_buf();
    let stem = file.file_stem().expect("a file name").to_string_lossy();
    if root || stem == "mod" {
        dir
    } else {
        dir.join(stem.as_ref())
    }
}

impl Crate {
    /// Every module reachable from `root` by `mod` declarations.
    pub fn read(root: &Path) -> Crate {
        let mut c = Crate {
            modules: BTreeMap::new(),
            named: Vec::new(),
            bound: BTreeMap::new(),
            globs: BTreeMap::new(),
        };
        let mut todo = vec![(Vec::new(), root.to_path_buf())];
        while let Some((module, file)) = todo.pop() {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let ast = syn::parse_file(&text)
                .unwrap_or_else(|e| panic!("{} does not parse: {e}", file.display()));
            let mut r = Reader {
                module: module.clone(),
                ..Reader::default()
            };
            r.visit_file(&ast);
            c.modules.insert(module.clone(), file.clone());
            for m in r.inline {
                c.modules.insert(m, file.clone());
            }
            for m in r.declared {
                // Nested below inline modules: one folder per level.
                let mut dir = children_dir(&file, module.is_empty());
                for seg in &m[module.len()..m.len() - 1] {
                    dir.push(seg);
                }
                let name = m.last().expect("a declared module has a name");
                let single = dir.join(format!("{name}.rs"));
                let folder = dir.join(name).join("mod.rs");
                let child = if single.is_file() { single } else { folder };
                assert!(child.is_file(), "{}: mod {name}; not found", file.display());
                todo.push((m, child));
            }
            for (m, segments) in r.paths {
                c.named.push(Named {
                    file: file.clone(),
                    module: m,
                    segments,
                });
            }
            for (m, segments, u) in r.uses {
                c.named.push(Named {
                    file: file.clone(),
                    module: m.clone(),
                    segments: segments.clone(),
                });
                match u {
                    Use::Name(n) => {
                        c.bound.insert((m, n), segments);
                    }
                    Use::Glob => c.globs.entry(m).or_default().push(segments),
                }
            }
        }
        c
    }

    /// The files of the crate.
    pub fn files(&self) -> BTreeSet<PathBuf> {
        self.modules.values().cloned().collect()
    }

    /// `name` as the first segment of a path in `module`: a child module,
    /// a name a `use` bound there, or one a glob brought in.
    fn lookup(&self, module: &Module, name: &str, depth: usize) -> Option<Module> {
        let mut child = module.clone();
        child.push(name.to_string());
        if self.modules.contains_key(&child) {
            return Some(child);
        }
        if depth > 4 {
            return None;
        }
        if let Some(path) = self.bound.get(&(module.clone(), name.to_string())) {
            return self.absolute(module, path, depth + 1);
        }
        for glob in self.globs.get(module).into_iter().flatten() {
            if let Some(g) = self.absolute(module, glob, depth + 1)
                && let Some(found) = self.lookup(&g, name, depth + 1)
            {
                return Some(found);
            }
        }
        None
    }

    /// `segments` written in `module`, from the crate root; `None` for a
    /// path outside the crate (another crate, a local name).
    fn absolute(&self, module: &Module, segments: &[String], depth: usize) -> Option<Module> {
        let (first, rest) = segments.split_first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => module.clone(),
            "super" => {
                let mut m = module.clone();
                m.pop()?;
                let mut rest = rest;
                while rest.first().is_some_and(|s| s == "super") {
                    m.pop()?;
                    rest = &rest[1..];
                }
                m.extend(rest.iter().cloned());
                return Some(m);
            }
            "Self" => return None,
            name => {
                let mut found = self.lookup(module, name, depth)?;
                found.extend(rest.iter().cloned());
                return Some(found);
            }
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file that holds the longest module `path` starts with.
    fn file_of(&self, path: &[String]) -> &PathBuf {
        (0..=path.len())
            .rev()
            .find_map(|n| self.modules.get(&path[..n]))
            .expect("the crate root is a module")
    }

    /// Every import between two different files of the crate.
    pub fn imports(&self) -> Vec<Import> {
        let mut out = Vec::new();
        for n in &self.named {
            let Some(path) = self.absolute(&n.module, &n.segments, 0) else {
                continue;
            };
            let to = self.file_of(&path);
            if *to != n.file {
                out.push(Import {
                    from: n.file.clone(),
                    to: to.clone(),
                    path: n.segments.join("::"),
                });
            }
        }
        out
    }
}
