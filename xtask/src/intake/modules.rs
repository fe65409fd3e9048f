//! Which backends a crate may run: the modules of its functions that its
//! hot path reaches as published (a crate that detects the CPU at run time
//! reaches each of its backends through the dispatch), and the
//! instruction-set extensions this CPU has among those such crates choose
//! by. Which one ran is the crate's choice at run time; callgrind runs on
//! a CPU of its own (no AVX-512), where the choice may differ.

use crate::report::ran::{ByCrate, CrateCount, FamilyRan, ModuleCount};
use crate::report::{Family, Operation};

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

/// The distinct modules of the crate `lib`'s functions among `hot`
/// (demangled names), in order of first appearance ([`module_of`]).
pub fn modules(lib: &str, hot: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for module in hot.iter().filter_map(|name| module_of(lib, name)) {
        if !out.contains(&module) {
            out.push(module);
        }
    }
    out
}

/// The module of a function of the crate `lib` (its demangled name): the
/// function's path less its last segment, and less an `impl`'s `<..>`;
/// `None` for a function of another crate.
pub fn module_of(lib: &str, name: &str) -> Option<String> {
    if !in_crate(lib, name) {
        return None;
    }
    let own = name.trim_start_matches('<');
    // `aes::x86_aes::Aes128Enc as cipher::..>::encrypt_block`: the path
    // before ` as ` or `>`, then its module.
    let path = own.split([' ', '>']).next().unwrap_or(own);
    let segments: Vec<&str> = path.split("::").collect();
    let module_len = segments
        .iter()
        .position(|s| s.starts_with(|c: char| c.is_ascii_uppercase()))
        .unwrap_or(segments.len().saturating_sub(1));
    Some(segments[..module_len.max(1)].join("::"))
}

/// Whether a function (its demangled name) is the crate `lib`'s: its path,
/// or its `impl`'s type's (`<aes::Aes128 as ...>::f`), starts with `lib`
/// as a whole segment (`aes_gcm::f` is not `aes`'s).
pub fn in_crate(lib: &str, name: &str) -> bool {
    let own = name.trim_start_matches('<');
    (own.strip_prefix(lib)).is_some_and(|rest| rest.starts_with("::"))
}

/// A crate whose functions a case's instructions are attributed to: its
/// package's name (`aes-gcm`) and its library's (`aes_gcm`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Library {
    pub krate: String,
    pub lib: String,
}

/// Where the weights of one case went by crate: each weight to the first
/// of `crates` whose library the function is in ([`in_crate`]), else to
/// the other (as is a weight outside every known function).
pub fn by_crate<'a>(
    crates: &[Library],
    weights: impl IntoIterator<Item = (Option<&'a str>, u64)>,
) -> ByCrate {
    let mut out = ByCrate {
        crates: (crates.iter())
            .map(|c| CrateCount {
                krate: c.krate.clone(),
                lib: c.lib.clone(),
                count: 0,
            })
            .collect(),
        other: 0,
    };
    for (name, weight) in weights {
        let slot = name.and_then(|n| out.crates.iter_mut().find(|c| in_crate(&c.lib, n)));
        match slot {
            Some(c) => c.count = c.count.saturating_add(weight),
            None => out.other = out.other.saturating_add(weight),
        }
    }
    out
}

/// Where the weights of one case went: `weights` are (function, weight)
/// pairs, the function's demangled name or `None` where the weight fell
/// outside every known function (a sample in the harness); each weight
/// counts in the total, and in its module's count when the function is
/// the crate `lib`'s ([`module_of`]). Modules the most first, ties by name.
pub fn attribute<'a>(
    lib: &str,
    family: Family,
    case: (&str, Operation, usize, usize),
    weights: impl IntoIterator<Item = (Option<&'a str>, u64)>,
) -> FamilyRan {
    let mut total = 0u64;
    let mut modules: Vec<ModuleCount> = Vec::new();
    for (name, weight) in weights {
        total = total.saturating_add(weight);
        let Some(module) = name.and_then(|n| module_of(lib, n)) else {
            continue;
        };
        match modules.iter_mut().find(|m| m.module == module) {
            Some(m) => m.count = m.count.saturating_add(weight),
            None => modules.push(ModuleCount {
                module,
                count: weight,
            }),
        }
    }
    modules.retain(|m| m.count > 0);
    modules.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.module.cmp(&b.module)));
    let (alg, dir, key_bits, block_bytes) = case;
    FamilyRan {
        family,
        alg: alg.to_string(),
        dir,
        key_bits,
        block_bytes,
        total,
        modules,
        by_crate: None,
    }
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

    /// Each weight counts in the total; the crate's functions' in their
    /// module's count, the most first; another crate's, or none, only in
    /// the total.
    #[test]
    fn weights_to_modules() {
        use crate::report::{Family, Operation};
        let weights = [
            (Some("aes::backends::x86_vaes512::Aes<_>::encrypt"), 90),
            (
                Some("<aes::Aes128 as cipher::block::BlockCipherEncrypt>::encrypt_with_backend"),
                3,
            ),
            (Some("aes::backends::x86_vaes512::encdec::batch_encrypt"), 5),
            (Some("<cipher::block::backends::helper>::f"), 1),
            (Some("aesx::other"), 4),
            (None, 2),
            (Some("aes::backends::x86_aes::encrypt"), 0),
        ];
        let r = super::attribute(
            "aes",
            Family::Parallel,
            ("ecb(aes)", Operation::Encrypt, 128, 8192),
            weights,
        );
        assert_eq!(r.total, 105);
        let got: Vec<(&str, u64)> = (r.modules.iter())
            .map(|m| (m.module.as_str(), m.count))
            .collect();
        assert_eq!(
            got,
            [
                ("aes::backends::x86_vaes512", 90),
                ("aes::backends::x86_vaes512::encdec", 5),
                ("aes", 3)
            ]
        );
        let (module, share) = r.backend().unwrap();
        assert_eq!(module, "aes::backends::x86_vaes512");
        assert!((share - 90.0 / 105.0).abs() < 1e-12);
    }

    /// By crate (`--also aes,ghash` of aes-gcm): a function is the crate's
    /// whose path, or whose `impl`'s type's, starts with its library as a
    /// whole segment (`aes_gcm` is not `aes`); polyval, not named, and
    /// `core`, the shim and no function at all are other; the counts sum
    /// to the total.
    #[test]
    fn weights_to_crates() {
        let lib = |krate: &str, lib: &str| super::Library {
            krate: krate.into(),
            lib: lib.into(),
        };
        let crates = [
            lib("aes-gcm", "aes_gcm"),
            lib("aes", "aes"),
            lib("ghash", "ghash"),
        ];
        let weights = [
            (Some("aes::soft::fixslice::aes128_encrypt"), 700),
            (
                Some("<aes::Aes128 as cipher::block::BlockCipherEncrypt>::encrypt_with_backend"),
                20,
            ),
            (
                Some(
                    "<aes_gcm::AesGcm<aes::Aes128, typenum::U12> as aead::AeadInOut>::encrypt_inout_detached",
                ),
                50,
            ),
            (Some("aes_gcm::AesGcm<_, _>::init_ctr"), 5),
            (Some("ghash::GHash::new"), 10),
            (
                Some("<ghash::GHash as universal_hash::UniversalHash>::update_padded"),
                30,
            ),
            (Some("polyval::backend::clmul::Polyval::mul"), 300),
            (Some("core::ptr::copy_nonoverlapping"), 4),
            (Some("aesx::f"), 1),
            (Some("inlinelab_crypt"), 2),
            (None, 3),
        ];
        let total: u64 = weights.iter().map(|w| w.1).sum();
        let r = super::by_crate(&crates, weights);
        let got: Vec<(&str, &str, u64)> = (r.crates.iter())
            .map(|c| (c.krate.as_str(), c.lib.as_str(), c.count))
            .collect();
        assert_eq!(
            got,
            [
                ("aes-gcm", "aes_gcm", 55),
                ("aes", "aes", 720),
                ("ghash", "ghash", 40)
            ]
        );
        assert_eq!(r.other, 310);
        assert_eq!(got.iter().map(|c| c.2).sum::<u64>() + r.other, total);
        assert_eq!(r.heaviest().map(|c| c.krate.as_str()), Some("aes"));
        assert!(super::in_crate("aes", "aes::f") && !super::in_crate("aes", "aes"));
    }
}
