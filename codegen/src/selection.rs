//! Which variants a build asks for, read where `variants/build.rs` reads it:
//! the environment variable of `variants/src/select.rs` (the one statement
//! of its name and grammar, included here and there). A build that holds one
//! variant compiles the others only to strip them by their `cfg`, so the
//! macro leaves out the children that `cfg` would strip: what rustc keeps is
//! the same, and an artifact's build expands one variant, not every one.
//! The callback macros and the `cfg`s are emitted as ever; the `cfg`s, set by
//! `build.rs` from the same variable, stay what decides.

include!("../../variants/src/select.rs");

/// The variants a build keeps.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Selection {
    /// Every variant (the variable unset, or a value `build.rs` refuses:
    /// that build fails there, with its message).
    Every,
    /// One variant, `cipher::variant`, or none at all (`none`).
    One(Option<(String, String)>),
}

impl Selection {
    /// The selection of this build's environment.
    pub(crate) fn current() -> Selection {
        Selection::of(std::env::var(SELECT_ENV).ok().as_deref())
    }

    pub(crate) fn of(value: Option<&str>) -> Selection {
        match value {
            Some(v) if is_selection(v) => Selection::One(
                v.split_once("::")
                    .map(|(c, n)| (c.to_string(), n.to_string())),
            ),
            _ => Selection::Every,
        }
    }

    /// Whether the build keeps `cipher`'s variant `name`, as the `cfg`s
    /// `inlinelab_cipher` and `inlinelab_variant` decide.
    pub(crate) fn keeps(&self, cipher: &str, name: &str) -> bool {
        match self {
            Selection::Every => true,
            Selection::One(one) => one.as_ref().is_some_and(|(c, n)| c == cipher && n == name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Selection;

    #[test]
    fn a_build_keeps_what_its_cfgs_keep() {
        let every = Selection::of(None);
        assert!(every.keeps("cast6", "never") && every.keeps("aes", "auto"));
        let one = Selection::of(Some("cast6::never"));
        assert!(one.keeps("cast6", "never"));
        assert!(!one.keeps("cast6", "always") && !one.keeps("cast5", "never"));
        let none = Selection::of(Some("none"));
        assert!(!none.keeps("cast6", "never"));
        // A value build.rs refuses fails the build there; here it keeps all.
        assert_eq!(Selection::of(Some("Cast6::never")), Selection::Every);
    }
}
