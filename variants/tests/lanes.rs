//! Every cipher variant's lane count is what its name says (`_xN`, one lane
//! without), as `LANES` and as the `ParBlocksSize` through which `cipher`
//! and the mode crates hand it blocks.

use cipher::ParBlocksSizeUser;
use cipher::typenum::Unsigned;

/// `(cipher::variant, LANES, ParBlocksSize)` of every variant of a cipher.
macro_rules! lanes {
    (cipher: $c:ident, kind: cipher($ty:ident), variants: [$($v:ident)*]) => {
        vec![$((
            concat!(stringify!($c), "::", stringify!($v)),
            variants::$c::$v::LANES,
            <variants::$c::$v::$ty as ParBlocksSizeUser>::ParBlocksSize::USIZE,
        )),*]
    };
}

/// The lane count a variant's name gives: `N` of `_xN`, else 1.
fn named(name: &str) -> usize {
    name.split(['_', ':'])
        .find_map(|part| part.strip_prefix('x').and_then(|n| n.parse().ok()))
        .unwrap_or(1)
}

#[test]
fn names_lanes_and_par_blocks_agree() {
    let mut all = variants::cast6_variants!(lanes);
    all.extend(variants::cast5_variants!(lanes));
    all.extend(variants::blowfish_variants!(lanes));
    all.extend(variants::aes_variants!(lanes));
    let mut counts = std::collections::BTreeSet::new();
    for (name, lanes, par) in all {
        assert_eq!(lanes, named(name), "{name}: LANES");
        assert_eq!(par, lanes, "{name}: ParBlocksSize");
        counts.insert(lanes);
    }
    // The counts every cipher is searched over; CAST6 adds 6.
    for n in [1, 2, 3, 4, 8] {
        assert!(counts.contains(&n), "no variant with {n} lanes: {counts:?}");
    }
}
