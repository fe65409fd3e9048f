/// The environment variable that makes a build of `variants` hold one
/// variant alone: `cipher::variant` (e.g. `cast6::never`), or `none` for no
/// variant at all (a peer's artifact). Unset, every variant is compiled.
/// Read by `build.rs` (which includes this file, and sets the `cfg`s that
/// decide) and by `codegen` (which includes it too, and leaves out the
/// children those `cfg`s would strip); set by `cargo xtask`.
pub const SELECT_ENV: &str = "INLINELAB_VARIANT";

/// Whether `value` is a selection `build.rs` accepts: `none`, or
/// `cipher::variant` in lowercase ASCII letters, digits and `_`.
pub fn is_selection(value: &str) -> bool {
    let word = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    };
    value == "none"
        || value
            .split_once("::")
            .is_some_and(|(c, v)| word(c) && word(v))
}
