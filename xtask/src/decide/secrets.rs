//! The security screen: what a variant does with its secrets, against the
//! reference. A variant that branches on a secret, or indexes memory by
//! one, where the reference does neither of that kind, is left out of the
//! verdict: faster code that leaks is not a better variant. Counts are of
//! code locations, which unrolling multiplies, so the rule compares kinds,
//! not counts: SUPERCOP's `constbranchindex` either holds or it does not.

/// Where a contender's branches and memory addresses depend on a secret,
/// counted in code locations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dependence {
    pub branches: usize,
    pub indexes: usize,
}

/// What a variant adds that the reference does not have: a kind of
/// secret-dependence, and how many locations of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leak {
    Branches(usize),
    Indexes(usize),
}

/// What `variant` adds over `reference`, the branches first; nothing when
/// it has no kind the reference lacks.
pub fn leak(variant: Dependence, reference: Dependence) -> Option<Leak> {
    if variant.branches > 0 && reference.branches == 0 {
        Some(Leak::Branches(variant.branches))
    } else if variant.indexes > 0 && reference.indexes == 0 {
        Some(Leak::Indexes(variant.indexes))
    } else {
        None
    }
}

impl Leak {
    /// In words, against the reference `reference` (inline code).
    pub fn words(self, reference: &str) -> String {
        let (what, n) = match self {
            Leak::Branches(n) => ("branches on", n),
            Leak::Indexes(n) => ("indexes memory by", n),
        };
        format!(
            "leaks: it {what} a secret in {n} place{} (memcheck) where {reference} does in none",
            if n == 1 { "" } else { "s" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(branches: usize, indexes: usize) -> Dependence {
        Dependence { branches, indexes }
    }

    #[test]
    fn a_kind_the_reference_lacks_leaks_more_of_a_kind_it_has_does_not() {
        // S-box forms against an S-box reference: more locations, same kind.
        assert_eq!(leak(d(0, 80), d(0, 12)), None);
        // A table form against a constant-time reference.
        assert_eq!(leak(d(0, 52), d(0, 0)), Some(Leak::Indexes(52)));
        // A branch on the key, the first kind said.
        assert_eq!(leak(d(1, 4), d(0, 0)), Some(Leak::Branches(1)));
        assert_eq!(leak(d(2, 4), d(3, 4)), None);
        assert_eq!(leak(d(0, 0), d(1, 1)), None);
        assert_eq!(
            Leak::Branches(1).words("`auto`"),
            "leaks: it branches on a secret in 1 place (memcheck) where `auto` does in none"
        );
    }
}
