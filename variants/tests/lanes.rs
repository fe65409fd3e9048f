//! Every cipher variant's lane count is what its name says (`_xN`, one lane
//! without), as `LANES` and as the `ParBlocksSize` through which `cipher`
//! and the mode crates hand it blocks. The ciphers are every algorithm
//! `variants::all_variants!` declares, so that a new one is covered here
//! without a line of this file.

use cipher::ParBlocksSizeUser;
use cipher::typenum::Unsigned;

/// `(cipher::variant, LANES, ParBlocksSize)`.
type Lanes = (&'static str, usize, usize);

/// An algorithm's name and the [`Lanes`] of every variant (none for a
/// checksum).
macro_rules! lanes {
    (cipher: $c:ident, kind: cipher($ty:ident), variants: [$($v:ident)*]) => {
        (stringify!($c), vec![$((
            concat!(stringify!($c), "::", stringify!($v)),
            variants::$c::$v::LANES,
            <variants::$c::$v::$ty as ParBlocksSizeUser>::ParBlocksSize::USIZE,
        )),*])
    };
    (cipher: $c:ident, kind: checksum, variants: [$($v:ident)*]) => {
        (stringify!($c), Vec::new())
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
    let all: Vec<(&str, Vec<Lanes>)> = variants::all_variants!(lanes).into();
    let algorithms: Vec<&str> = all.iter().map(|(c, _)| *c).collect();
    let declared: Vec<&str> = variants::DECLARED.iter().map(|(c, _)| *c).collect();
    assert_eq!(algorithms, declared, "all_variants! and DECLARED");
    let mut counts = std::collections::BTreeSet::new();
    for (name, lanes, par) in all.into_iter().flat_map(|(_, v)| v) {
        assert_eq!(lanes, named(name), "{name}: LANES");
        assert_eq!(par, lanes, "{name}: ParBlocksSize");
        counts.insert(lanes);
    }
    // The counts every cipher is searched over; CAST6 adds 6.
    for n in [1, 2, 3, 4, 8] {
        assert!(counts.contains(&n), "no variant with {n} lanes: {counts:?}");
    }
}
