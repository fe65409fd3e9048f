//! Every diagnostic of `#[codegen::variants]` has a case here. Regenerate the
//! expected output with `TRYBUILD=overwrite cargo test -p codegen --test ui`
//! and read the diff. The cases in `tests/pass/` compile and run: what the
//! rewrites make is checked against what they were made from.

#[test]
#[ignore = "CI tier: compiles every case as a crate of its own; .ci/run runs it (see ARCHITECTURE.md, Tests)"]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/pass/*.rs");
}
