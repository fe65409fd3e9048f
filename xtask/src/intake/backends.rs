//! Which backends a crate may run: the modules of its functions that its
//! hot path reaches as published (a crate that detects the CPU at run time
//! reaches each of its backends through the dispatch), and the
//! instruction-set extensions this CPU has among those such crates choose
//! by. Which one ran is the crate's choice at run time; callgrind runs on
//! a CPU of its own (no AVX-512), where the choice may differ.

/// The extensions crates pick backends by, as `/proc/cpuinfo` names them.
const FEATURES: [&str; 9] = [
    "aes",
    "vaes",
    "pclmulqdq",
    "vpclmulqdq",
    "avx512f",
    "avx2",
    "sse4_2",
    "ssse3",
    "sha_ni",
];

/// The distinct modules (a function's path less its last segment, and less
/// an `impl`'s `<..>`) of the crate `lib`'s functions among `hot`
/// (demangled names), in order of first appearance.
pub fn modules(lib: &str, hot: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in hot {
        let own = name.trim_start_matches('<');
        if !own.starts_with(&format!("{lib}::")) {
            continue;
        }
        // `aes::x86_aes::Aes128Enc as cipher::..>::encrypt_block`: the
        // path before ` as ` or `>`, then its module.
        let path = own.split([' ', '>']).next().unwrap_or(own);
        let segments: Vec<&str> = path.split("::").collect();
        let module_len = segments
            .iter()
            .position(|s| s.starts_with(|c: char| c.is_ascii_uppercase()))
            .unwrap_or(segments.len().saturating_sub(1));
        let module = segments[..module_len.max(1)].join("::");
        if !out.contains(&module) {
            out.push(module);
        }
    }
    out
}

/// The extensions of [`FEATURES`] this CPU has (none where `/proc/cpuinfo`
/// cannot be read).
pub fn cpu_features() -> Vec<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags: Vec<&str> = text
        .lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, f)| f.split_whitespace().collect())
        .unwrap_or_default();
    (FEATURES.iter())
        .filter(|f| flags.contains(f))
        .map(|f| f.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_modules_a_hot_path_reaches() {
        let hot = [
            "inlinelab_crypt",
            "<aes::autodetect::Aes128 as cipher::block::BlockCipherEncrypt>::encrypt_with_backend",
            "aes::soft::fixslice::aes128_encrypt",
            "<aes::x86_aes::Aes128Enc as cipher::block::BlockCipherEncBackend>::encrypt_block",
            "aes::soft::fixslice::sub_bytes",
            "cipher::block::backends::helper",
        ]
        .map(String::from);
        assert_eq!(
            super::modules("aes", &hot),
            ["aes::autodetect", "aes::soft::fixslice", "aes::x86_aes"]
        );
    }
}
