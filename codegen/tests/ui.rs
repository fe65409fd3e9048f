//! Every diagnostic of `#[codegen::variants]` has a case here. Regenerate the
//! expected output with `TRYBUILD=overwrite cargo test -p codegen --test ui`
//! and read the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
