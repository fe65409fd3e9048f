//! What a crate's cipher or hash type is, asked of the compiler rather than
//! read from names: a scratch program that depends on the crate checks which
//! of its root's type names implement `cipher` 0.5's `KeyInit +
//! BlockCipherEncrypt + BlockCipherDecrypt` or `digest` 0.11's `Default +
//! Update + FixedOutput` (the candidates `--type` chooses among), and, for
//! the chosen one, prints its block size and every key length its
//! `new_from_slice` takes, or its digest's length.

use crate::error::{Error, Result};
use crate::intake::fetch::{self, Package};
use bench_harness::crates::{Kind, Primitive};
use std::collections::BTreeSet;
use std::path::Path;

/// The traits a block cipher is measured through.
const BOUND: &str = "cipher::KeyInit + cipher::BlockCipherEncrypt + cipher::BlockCipherDecrypt";

/// The traits a hash is measured through.
const HASH_BOUND: &str = "Default + digest::Update + digest::FixedOutput";

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
    pub lock: &'a str,
    pub dir: &'a Path,
    pub target: &'a Path,
    pub offline: bool,
}

impl Probe<'_> {
    /// The type names at the crate's root that are block ciphers or
    /// hashes, sorted by name.
    pub fn candidates(&self) -> Result<Vec<Candidate>> {
        let names = type_names(self.copy);
        // Two lines per name (the block cipher's bound, then the hash's):
        // the lines the compiler refuses say which a name is not.
        let mut main =
            format!("fn check<T: {BOUND}>() {{}}\nfn check_hash<T: {HASH_BOUND}>() {{}}\n");
        let first_line = 3;
        for n in &names {
            main.push_str(&format!(
                "#[allow(dead_code)] fn c_{n}() {{ check::<::under_test::{n}>(); }}\n\
                 #[allow(dead_code)] fn h_{n}() {{ check_hash::<::under_test::{n}>(); }}\n"
            ));
        }
        main.push_str("fn main() {}\n");
        self.write(&main)?;
        let out = self
            .cargo("check")
            .output()
            .map_err(|e| Error::failed(format!("running cargo check: {e}")))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let mut failed = BTreeSet::new();
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
            match in_main.and_then(|s| s["line_start"].as_u64()) {
                Some(l) if l as usize >= first_line => {
                    failed.insert(l as usize - first_line);
                }
                _ => {
                    other = other.or_else(|| msg["message"]["message"].as_str().map(str::to_string))
                }
            }
        }
        if failed.is_empty() && !out.status.success() {
            return Err(self.build_failed(
                other.unwrap_or_else(|| fetch::first_error(&String::from_utf8_lossy(&out.stderr))),
            ));
        }
        Ok((names.into_iter().enumerate())
            .filter_map(|(i, name)| {
                let kind = if !failed.contains(&(2 * i)) {
                    Kind::BlockCipher
                } else if !failed.contains(&(2 * i + 1)) {
                    Kind::Hash
                } else {
                    return None;
                };
                Some(Candidate { name, kind })
            })
            .collect())
    }

    /// The block size and key lengths of `ty`, or its digest's length.
    pub fn learn(&self, ty: &Candidate) -> Result<Primitive> {
        let (kind, ty) = (ty.kind, ty.name.as_str());
        crate::intake::shim::select(ty, kind, "probe")?;
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
            Kind::Hash => format!(
                "use digest::typenum::Unsigned;\n\
                 fn probe<T: {HASH_BOUND}>() {{\n\
                 \x20   println!(\"output {{}}\", <T::OutputSize as Unsigned>::USIZE);\n\
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
        let manifest = format!(
            "[package]\nname = \"inlinelab-probe\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [[bin]]\nname = \"probe\"\npath = \"main.rs\"\n\n\
             [dependencies]\ncipher = {cipher}\ndigest = {digest}\n\
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

/// `block B` and `keys K,K,...`, or a hash's `output N`.
fn parse_learned(text: &str) -> Option<Primitive> {
    let mut block = None;
    let mut keys = None;
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("output ") {
            return Some(Primitive::Hash {
                digest_size: n.trim().parse().ok()?,
            });
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
            parse_learned("block 8\nkeys \n").unwrap().key_lengths(),
            &[] as &[usize]
        );
        assert_eq!(parse_learned("nothing"), None);
    }
}
