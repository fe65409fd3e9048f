//! `tcrypt --list`: every algorithm the registry has, as lines.

use crate::registry::{self, Alg};

/// `--list`: every algorithm, its variants and its template key sizes.
pub fn list() -> Vec<String> {
    registry::all()
        .iter()
        .map(|alg| {
            let mut variants = alg.variant_names().join(", ");
            match alg {
                Alg::Cipher { keys, entry, .. } => {
                    let peers: Vec<&str> = entry
                        .peers
                        .iter()
                        .filter(|p| p.make.is_some())
                        .map(|p| p.name)
                        .collect();
                    if !peers.is_empty() {
                        variants.push_str(&format!("; peer: {}", peers.join(", ")));
                    }
                    let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
                    format!(
                        "{:<18} variants: {variants}; key bytes: {}",
                        alg.name(),
                        keys.join(", ")
                    )
                }
                Alg::Hash(_) => format!(
                    "{:<18} variants: {variants}; hash template: block/update bytes 16/16 .. 8192/8192",
                    alg.name()
                ),
            }
        })
        .collect()
}
