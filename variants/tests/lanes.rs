//! Every cipher variant's lane count is what its name says (`_xN`, one lane
//! without), as the `ParBlocksSize` through which `cipher` and the mode
//! crates hand it blocks, and as `LANES` states of one block each or, in a
//! method whose states hold several (`lane_blocks`), as many states as fit;
//! and every declared algorithm has its own test file (ARCHITECTURE.md,
//! "Adding a cipher", place 3).

use cipher::ParBlocksSizeUser;
use cipher::typenum::Unsigned;

/// `(cipher::variant, LANES, LANE_BLOCKS, ParBlocksSize)` of every variant
/// of a cipher.
macro_rules! lanes {
    (cipher: $c:ident, kind: cipher($ty:ident), variants: [$($v:ident)*]) => {
        vec![$((
            concat!(stringify!($c), "::", stringify!($v)),
            variants::$c::$v::LANES,
            variants::$c::$v::LANE_BLOCKS,
            <variants::$c::$v::$ty as ParBlocksSizeUser>::ParBlocksSize::USIZE,
        )),*]
    };
}

/// `lanes!` of every declared cipher (each `entry` of kind `cipher`), in
/// declaration order.
macro_rules! ciphers {
    ($($role:ident { cipher: $c:ident, kind: $kind:ident $(($ty:ident))?, variants: $v:tt, $($facts:tt)* })*) => {{
        let mut all: Vec<(&str, usize, usize, usize)> = Vec::new();
        $(all.extend(ciphers!(@$role $c [$kind $(($ty))?] $v));)*
        all
    }};
    (@entry $c:ident [cipher($ty:ident)] [$($v:ident)*]) => {
        lanes!(cipher: $c, kind: cipher($ty), variants: [$($v)*])
    };
    (@$role:ident $c:ident $kind:tt $v:tt) => {
        Vec::<(&str, usize, usize, usize)>::new()
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
    let mut wide = 0;
    for (name, lanes, per_state, par) in all {
        assert_eq!(par, named(name), "{name}: ParBlocksSize");
        assert_eq!(lanes * per_state, par, "{name}: LANES x LANE_BLOCKS");
        wide += usize::from(per_state > 1);
        counts.insert(par);
    }
    // VAES holds two blocks a register.
    assert!(wide > 0, "no variant whose lane state holds several blocks");
    // The counts every cipher is searched over; CAST6 adds 6.
    for n in [1, 2, 3, 4, 8] {
        assert!(counts.contains(&n), "no variant with {n} lanes: {counts:?}");
    }
}

/// The module of every algorithm declared with `entry(...)` (a cipher or
/// a checksum; not the calibration algorithms), in declaration order.
macro_rules! entries {
    ($($role:ident { cipher: $c:ident, $($facts:tt)* })*) => {{
        let mut all: Vec<&str> = Vec::new();
        $(if stringify!($role) == "entry" { all.push(stringify!($c)); })*
        all
    }};
}

/// Every declared cipher or checksum has `tests/<module>.rs`, which tests
/// the variants its declaration lists (`variants::<module>_variants!`):
/// its specification's vectors and its differential. A new cipher whose
/// test file was left out fails here, not in silence.
#[test]
fn every_declared_algorithm_has_its_test_file() {
    let modules = variants::all_algorithms!(entries);
    assert!(modules.len() >= 5, "{modules:?}");
    for module in modules {
        let path = format!("{}/tests/{module}.rs", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!("variants::{module} is declared but has no test file: {path}: {e}")
        });
        let callback = format!("variants::{module}_variants!(");
        assert!(
            text.contains(&callback),
            "{path}: does not test the declared variants (`{callback}...)`)"
        );
    }
}
