//! What a crate's cipher, hash or MAC type is, asked of the compiler rather
//! than read from names: a scratch program that depends on the crate checks
//! which of its root's type names (and the type `--type` names, with its
//! generic parameters) implement `cipher` 0.5's `KeyInit +
//! BlockCipherEncrypt + BlockCipherDecrypt` or `KeyIvInit + StreamCipher`,
//! `digest` 0.11's `Default + Update + FixedOutput`, or the traits its
//! `Mac` is implemented over, keyed (`KeyInit + Update + FixedOutput +
//! Clone`): the candidates `--type` chooses among; a name the compiler says
//! lacks its generic parameters is generic. For the chosen one, it prints
//! its block size and every key length its `new_from_slice` takes, or its
//! digest's length (a MAC, both), or a stream cipher's nonce length and
//! every key length its `new_from_slices` takes with such a nonce.

use crate::error::{Error, Result};
use crate::intake::fetch::{self, Package};
use crate::intake::shim;
use crate::intake::spec::With;
use bench_harness::crates::{Kind, Primitive};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The traits a block cipher is measured through.
const BOUND: &str = "cipher::KeyInit + cipher::BlockCipherEncrypt + cipher::BlockCipherDecrypt";

/// The traits a stream cipher is measured through: a block cipher
/// implements neither, so no name is both.
const STREAM_BOUND: &str = "cipher::KeyIvInit + cipher::StreamCipher";

/// The traits a hash is measured through.
const HASH_BOUND: &str = "Default + digest::Update + digest::FixedOutput";

/// The traits a MAC is measured through: what `digest::Mac` is implemented
/// over (its marker trait, behind digest's `mac` feature, left out), keyed.
const MAC_BOUND: &str = "digest::common::KeyInit + digest::Update + digest::FixedOutput + Clone";

/// The traits a universal hash is measured through: `universal-hash`
/// 0.6's, keyed, `Clone`d for a fresh tag under the same key.
const UHASH_BOUND: &str = "universal_hash::KeyInit + universal_hash::UniversalHash + Clone";

/// The traits an AEAD is measured through: `aead` 0.6's, keyed, with its
/// detached in-place and out-of-place operations.
const AEAD_BOUND: &str = "aead::KeyInit + aead::AeadInOut";

/// The kinds in the order the probe's lines check them: a name is the
/// first it implements. A universal hash's only of a crate that depends on
/// `universal-hash`, an AEAD's only of one that depends on `aead`
/// ([`Probe::kinds`]), so that no other probe needs them.
const KINDS: [(Kind, &str); 6] = [
    (Kind::BlockCipher, BOUND),
    (Kind::StreamCipher, STREAM_BOUND),
    (Kind::Hash, HASH_BOUND),
    (Kind::Mac, MAC_BOUND),
    (Kind::UniversalHash, UHASH_BOUND),
    (Kind::Aead, AEAD_BOUND),
];

/// The compiler's code for a generic type named without its parameters.
const MISSING_GENERICS: &str = "E0107";

/// A type at the crate's root that the harness can measure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub kind: Kind,
}

/// Where and how the probe builds.
pub struct Probe<'a> {
    pub package: &'a Package,
    /// The package's copy the probe depends on (the published one).
    pub copy: &'a Path,
    pub features: &'a [String],
    /// The crates `--with` adds (what a generic type's parameter names).
    pub with: &'a [With],
    pub lock: &'a str,
    pub dir: &'a Path,
    pub target: &'a Path,
    pub offline: bool,
}

/// What the probe found among the crate's names.
#[derive(Debug, Default)]
pub struct Found {
    /// The names that are block ciphers, hashes or MACs, sorted by name.
    pub candidates: Vec<Candidate>,
    /// The names the compiler says are generic (named without their
    /// parameters), sorted.
    pub generic: Vec<String>,
    /// For a type `--type` named with parameters that is none of them:
    /// the compiler's first error about it.
    pub why_not: Option<String>,
}

impl Probe<'_> {
    /// The type names at the crate's root that are block ciphers, hashes
    /// or MACs, with `given` (`--type`, when it is a path or has generic
    /// parameters, which no name of the sources is) among them.
    pub fn candidates(&self, given: Option<&str>) -> Result<Found> {
        let mut names = type_names(self.copy);
        let given = given.filter(|g| !names.iter().any(|n| n == g));
        if let Some(g) = given {
            // Checked before it is written into the program.
            shim::type_name(g)?;
            names.push(g.to_string());
        }
        // A line per name and kind (the block cipher's bound, the hash's,
        // the MAC's): the lines the compiler refuses say which a name is
        // not.
        let kinds = self.kinds();
        let mut main = String::new();
        for (k, (_, bound)) in kinds.iter().enumerate() {
            main.push_str(&format!("fn check_{k}<T: {bound}>() {{}}\n"));
        }
        let first_line = kinds.len() + 1;
        for (i, n) in names.iter().enumerate() {
            for k in 0..kinds.len() {
                main.push_str(&format!(
                    "#[allow(dead_code)] fn c_{i}_{k}() {{ check_{k}::<::under_test::{n}>(); }}\n"
                ));
            }
        }
        main.push_str("fn main() {}\n");
        self.write(&main)?;
        let out = self
            .cargo("check")
            .output()
            .map_err(|e| Error::failed(format!("running cargo check: {e}")))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let mut failed = BTreeSet::new();
        let mut generic = BTreeSet::new();
        let mut first_error: BTreeMap<usize, String> = BTreeMap::new();
        let mut other = None;
        for line in stdout.lines() {
            let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if msg["reason"] != "compiler-message" || msg["message"]["level"] != "error" {
                continue;
            }
            let spans = msg["message"]["spans"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let in_main = spans.iter().find(|s| {
                s["file_name"]
                    .as_str()
                    .is_some_and(|f| f.ends_with("main.rs"))
            });
            let text = msg["message"]["message"].as_str().map(str::to_string);
            match in_main.and_then(|s| s["line_start"].as_u64()) {
                Some(l) if l as usize >= first_line => {
                    let at = l as usize - first_line;
                    failed.insert(at);
                    let name = at / kinds.len();
                    if msg["message"]["code"]["code"] == MISSING_GENERICS {
                        generic.insert(name);
                    }
                    if let Some(t) = text {
                        first_error.entry(name).or_insert(t);
                    }
                }
                _ => other = other.or(text),
            }
        }
        if failed.is_empty() && !out.status.success() {
            return Err(self.build_failed(
                other.unwrap_or_else(|| fetch::first_error(&String::from_utf8_lossy(&out.stderr))),
            ));
        }
        let kind_of = |i: usize| {
            (kinds.iter().enumerate())
                .find(|(k, _)| !failed.contains(&(kinds.len() * i + k)))
                .map(|(_, (kind, _))| *kind)
        };
        let why_not = given.and_then(|_| {
            let i = names.len() - 1;
            kind_of(i).is_none().then(|| {
                (first_error.get(&i).cloned()).unwrap_or_else(|| {
                    "it is no block cipher, hash, MAC, universal hash, stream cipher or AEAD".into()
                })
            })
        });
        Ok(Found {
            candidates: (names.iter().enumerate())
                .filter_map(|(i, name)| {
                    Some(Candidate {
                        name: name.clone(),
                        kind: kind_of(i)?,
                    })
                })
                .collect(),
            generic: generic.into_iter().map(|i| names[i].clone()).collect(),
            why_not,
        })
    }

    /// Whether the crate depends on `universal-hash` (its lock file or
    /// manifest names it): only then are its types asked whether they are
    /// universal hashes, and the probe depends on it too.
    fn uhash(&self) -> bool {
        self.depends_on("universal-hash")
    }

    /// Whether the crate depends on `aead`, likewise: only then are its
    /// types asked whether they are AEADs.
    fn aead(&self) -> bool {
        self.depends_on("aead")
    }

    /// Whether the crate's lock file or manifest names the package `name`.
    fn depends_on(&self, name: &str) -> bool {
        let manifest = std::fs::read_to_string(self.copy.join("Cargo.toml")).unwrap_or_default();
        self.lock.contains(&format!("name = \"{name}\"")) || manifest.contains(name)
    }

    /// The kinds this crate's types are asked about ([`KINDS`]).
    fn kinds(&self) -> Vec<(Kind, &'static str)> {
        (KINDS.into_iter())
            .filter(|(k, _)| match k {
                Kind::UniversalHash => self.uhash(),
                Kind::Aead => self.aead(),
                _ => true,
            })
            .collect()
    }

    /// The block size and key lengths of `ty`, or its digest's length (a
    /// MAC's, and its key lengths; a universal hash's block, and its key
    /// lengths; a stream cipher's nonce length and key lengths; an AEAD's
    /// nonce and tag lengths and key lengths).
    pub fn learn(&self, ty: &Candidate) -> Result<Primitive> {
        let (kind, ty) = (ty.kind, ty.name.as_str());
        shim::select(ty, kind, "probe")?;
        let main = match kind {
            Kind::BlockCipher => format!(
                "use cipher::typenum::Unsigned;\n\
             fn probe<T: {BOUND}>() {{\n\
             \x20   let keys: Vec<String> = (1..=64usize)\n\
             \x20       .filter(|&n| <T as cipher::KeyInit>::new_from_slice(&vec![0x5a; n]).is_ok())\n\
             \x20       .map(|n| n.to_string())\n\
             \x20       .collect();\n\
             \x20   println!(\"block {{}}\", <T::BlockSize as Unsigned>::USIZE);\n\
             \x20   println!(\"keys {{}}\", keys.join(\",\"));\n\
             }}\n\
             fn main() {{ probe::<::under_test::{ty}>(); }}\n"
            ),
            Kind::StreamCipher => format!(
                "use cipher::typenum::Unsigned;\n\
                 fn probe<T: {STREAM_BOUND}>() {{\n\
                 \x20   let iv = <T::IvSize as Unsigned>::USIZE;\n\
                 \x20   let keys: Vec<String> = (1..=64usize)\n\
                 \x20       .filter(|&n| <T as cipher::KeyIvInit>::new_from_slices(&vec![0x5a; n], &vec![0; iv]).is_ok())\n\
                 \x20       .map(|n| n.to_string())\n\
                 \x20       .collect();\n\
                 \x20   println!(\"stream {{iv}}\");\n\
                 \x20   println!(\"keys {{}}\", keys.join(\",\"));\n\
                 }}\n\
                 fn main() {{ probe::<::under_test::{ty}>(); }}\n"
            ),
            Kind::Aead => format!(
                "use aead::array::typenum::Unsigned;\n\
                 fn probe<T: {AEAD_BOUND}>() {{\n\
                 \x20   let keys: Vec<String> = (1..=64usize)\n\
                 \x20       .filter(|&n| <T as aead::KeyInit>::new_from_slice(&vec![0x5a; n]).is_ok())\n\
                 \x20       .map(|n| n.to_string())\n\
                 \x20       .collect();\n\
                 \x20   println!(\"aead {{}} {{}}\", <T::NonceSize as Unsigned>::USIZE, <T::TagSize as Unsigned>::USIZE);\n\
                 \x20   println!(\"keys {{}}\", keys.join(\",\"));\n\
                 }}\n\
                 fn main() {{ probe::<::under_test::{ty}>(); }}\n"
            ),
            Kind::Hash => format!(
                "use digest::typenum::Unsigned;\n\
                 fn probe<T: {HASH_BOUND}>() {{\n\
                 \x20   println!(\"output {{}}\", <T::OutputSize as Unsigned>::USIZE);\n\
                 }}\n\
                 fn main() {{ probe::<::under_test::{ty}>(); }}\n"
            ),
            Kind::Mac => format!(
                "use digest::typenum::Unsigned;\n\
                 fn probe<T: {MAC_BOUND}>() {{\n\
                 \x20   let keys: Vec<String> = (1..=64usize)\n\
                 \x20       .filter(|&n| <T as digest::common::KeyInit>::new_from_slice(&vec![0x5a; n]).is_ok())\n\
                 \x20       .map(|n| n.to_string())\n\
                 \x20       .collect();\n\
                 \x20   println!(\"tag {{}}\", <T::OutputSize as Unsigned>::USIZE);\n\
                 \x20   println!(\"keys {{}}\", keys.join(\",\"));\n\
                 }}\n\
                 fn main() {{ probe::<::under_test::{ty}>(); }}\n"
            ),
            Kind::UniversalHash => format!(
                "use universal_hash::typenum::Unsigned;\n\
                 fn probe<T: {UHASH_BOUND}>() {{\n\
                 \x20   let keys: Vec<String> = (1..=64usize)\n\
                 \x20       .filter(|&n| <T as universal_hash::KeyInit>::new_from_slice(&vec![0x5a; n]).is_ok())\n\
                 \x20       .map(|n| n.to_string())\n\
                 \x20       .collect();\n\
                 \x20   println!(\"uhash {{}}\", <T::BlockSize as Unsigned>::USIZE);\n\
                 \x20   println!(\"keys {{}}\", keys.join(\",\"));\n\
                 }}\n\
                 fn main() {{ probe::<::under_test::{ty}>(); }}\n"
            ),
        };
        self.write(&main)?;
        let out = self
            .cargo("run")
            .output()
            .map_err(|e| Error::failed(format!("running cargo run: {e}")))?;
        if !out.status.success() {
            return Err(
                self.build_failed(fetch::first_error(&String::from_utf8_lossy(&out.stderr)))
            );
        }
        parse_learned(&String::from_utf8_lossy(&out.stdout))
            .ok_or_else(|| Error::failed(format!("the probe of {ty} printed nothing readable")))
    }

    fn build_failed(&self, why: String) -> Error {
        Error::usage(
            format!(
                "{} {} does not build here: {why}",
                self.package.name, self.package.version
            ),
            "a crate whose own build fails cannot be measured; try another version, or --features",
        )
    }

    fn write(&self, main: &str) -> Result<()> {
        let fail =
            |e: &dyn std::fmt::Display| Error::failed(format!("{}: {e}", self.dir.display()));
        std::fs::create_dir_all(self.dir).map_err(|e| fail(&e))?;
        let cipher = crate::intake::shim::workspace_dependency("cipher")?;
        let digest = crate::intake::shim::workspace_dependency("digest")?;
        let features = (self.features.iter())
            .map(|f| format!("\"{}\"", f.replace(['"', '\\'], "")))
            .collect::<Vec<_>>()
            .join(", ");
        let mut with: String = (self.with.iter())
            .map(|w| format!("{} = {}\n", w.name, w.dependency()))
            .collect();
        if self.uhash() {
            let dep = shim::workspace_dependency("universal-hash")?;
            with.push_str(&format!("universal-hash = {dep}\n"));
        }
        if self.aead() {
            let dep = shim::workspace_dependency("aead")?;
            with.push_str(&format!("aead = {dep}\n"));
        }
        let manifest = format!(
            "[package]\nname = \"inlinelab-probe\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [[bin]]\nname = \"probe\"\npath = \"main.rs\"\n\n\
             [dependencies]\ncipher = {cipher}\ndigest = {digest}\n{with}\
             under_test = {{ package = \"{}\", path = \"{}\", features = [{features}] }}\n\n[workspace]\n",
            self.package.name,
            self.copy.display()
        );
        std::fs::write(self.dir.join("Cargo.toml"), manifest).map_err(|e| fail(&e))?;
        std::fs::write(self.dir.join("Cargo.lock"), self.lock).map_err(|e| fail(&e))?;
        std::fs::write(self.dir.join("main.rs"), main).map_err(|e| fail(&e))
    }

    fn cargo(&self, verb: &str) -> std::process::Command {
        let mut cmd = crate::env::workspace::cargo();
        cmd.current_dir(self.dir)
            .args([verb, "--quiet", "--manifest-path"])
            .arg(self.dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(self.target);
        match verb {
            "check" => cmd.arg("--message-format=json"),
            _ => cmd.arg("--release"),
        };
        if self.offline {
            cmd.arg("--offline");
        }
        cmd
    }
}

/// `block B` and `keys K,K,...`, a hash's `output N`, a MAC's `tag N`
/// and `keys K,K,...`, a universal hash's `uhash N` and `keys K,K,...`, or
/// a stream cipher's `stream N` (its nonce's length) and `keys K,K,...`.
fn parse_learned(text: &str) -> Option<Primitive> {
    let mut block = None;
    let mut tag = None;
    let mut uhash = None;
    let mut stream = None;
    let mut aead = None;
    let mut keys = None;
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("output ") {
            return Some(Primitive::Hash {
                digest_size: n.trim().parse().ok()?,
            });
        } else if let Some(n) = line.strip_prefix("tag ") {
            tag = Some(n.trim().parse().ok()?);
        } else if let Some(n) = line.strip_prefix("uhash ") {
            uhash = Some(n.trim().parse().ok()?);
        } else if let Some(n) = line.strip_prefix("stream ") {
            stream = Some(n.trim().parse().ok()?);
        } else if let Some(sizes) = line.strip_prefix("aead ") {
            let (nonce, tag) = sizes.trim().split_once(' ')?;
            aead = Some((nonce.parse().ok()?, tag.parse().ok()?));
        } else if let Some(b) = line.strip_prefix("block ") {
            block = b.trim().parse().ok();
        } else if let Some(k) = line.strip_prefix("keys ") {
            keys = Some(
                k.split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::parse)
                    .collect::<std::result::Result<Vec<usize>, _>>()
                    .ok()?,
            );
        }
    }
    if let Some((nonce_size, tag_size)) = aead {
        return Some(Primitive::Aead {
            key_lengths: keys?,
            nonce_size,
            tag_size,
        });
    }
    if let Some(iv_size) = stream {
        return Some(Primitive::StreamCipher {
            key_lengths: keys?,
            iv_size,
        });
    }
    if let Some(digest_size) = uhash {
        return Some(Primitive::UniversalHash {
            digest_size,
            key_lengths: keys?,
        });
    }
    if let Some(digest_size) = tag {
        return Some(Primitive::Mac {
            digest_size,
            key_lengths: keys?,
        });
    }
    Some(Primitive::BlockCipher {
        block_size: block?,
        key_lengths: keys?,
    })
}

/// Every name in the package's sources that could name a type: an
/// identifier in UpperCamelCase (a capital first, a small letter after).
/// The compiler decides which of them are block-cipher or hash types at
/// the root.
fn type_names(dir: &Path) -> Vec<String> {
    let mut names = BTreeSet::new();
    for file in walkdir::WalkDir::new(dir.join("src")).into_iter().flatten() {
        if file.path().extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(file.path()) else {
            continue;
        };
        for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            let mut chars = word.chars();
            if chars.next().is_some_and(|c| c.is_ascii_uppercase())
                && word.chars().any(|c| c.is_ascii_lowercase())
                && word.len() <= 64
            {
                names.insert(word.to_string());
            }
        }
    }
    names.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_says_block_and_keys() {
        assert_eq!(
            parse_learned("block 16\nkeys 16,20,24,28,32\n"),
            Some(Primitive::BlockCipher {
                block_size: 16,
                key_lengths: vec![16, 20, 24, 28, 32],
            })
        );
        assert_eq!(
            parse_learned("output 20\n"),
            Some(Primitive::Hash { digest_size: 20 })
        );
        assert_eq!(parse_learned("output x\n"), None);
        assert_eq!(
            parse_learned("tag 32\nkeys 1,2,64\n"),
            Some(Primitive::Mac {
                digest_size: 32,
                key_lengths: vec![1, 2, 64],
            })
        );
        assert_eq!(parse_learned("tag 32\n"), None, "a MAC's keys said");
        assert_eq!(
            parse_learned("uhash 16\nkeys 32\n"),
            Some(Primitive::UniversalHash {
                digest_size: 16,
                key_lengths: vec![32],
            })
        );
        assert_eq!(parse_learned("uhash 16\n"), None, "its keys said");
        assert_eq!(
            parse_learned("stream 12\nkeys 32\n"),
            Some(Primitive::StreamCipher {
                key_lengths: vec![32],
                iv_size: 12,
            })
        );
        assert_eq!(
            parse_learned("stream 8\n"),
            None,
            "a stream cipher's keys said"
        );
        assert_eq!(parse_learned("stream x\nkeys 32\n"), None);
        assert_eq!(
            parse_learned("aead 12 16\nkeys 16\n"),
            Some(Primitive::Aead {
                key_lengths: vec![16],
                nonce_size: 12,
                tag_size: 16,
            })
        );
        assert_eq!(parse_learned("aead 12 16\n"), None, "an AEAD's keys said");
        assert_eq!(parse_learned("aead 12\nkeys 16\n"), None, "its tag said");
        assert_eq!(
            parse_learned("block 8\nkeys \n").unwrap().key_lengths(),
            &[] as &[usize]
        );
        assert_eq!(parse_learned("nothing"), None);
    }
}
