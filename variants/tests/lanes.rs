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

/// `lanes!` of every declared cipher (each `entry` of kind `cipher`), in
/// declaration order.
macro_rules! ciphers {
    ($($role:ident { cipher: $c:ident, kind: $kind:ident $(($ty:ident))?, variants: $v:tt, $($facts:tt)* })*) => {{
        let mut all: Vec<(&str, usize, usize)> = Vec::new();
        $(all.extend(ciphers!(@$role $c [$kind $(($ty))?] $v));)*
        all
    }};
    (@entry $c:ident [cipher($ty:ident)] [$($v:ident)*]) => {
        lanes!(cipher: $c, kind: cipher($ty), variants: [$($v)*])
    };
    (@$role:ident $c:ident $kind:tt $v:tt) => {
        Vec::<(&str, usize, usize)>::new()
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
    let all = variants::all_algorithms!(ciphers);
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
