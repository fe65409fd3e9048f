//! Expansion snapshots on a tiny module, one per variant policy, plus the
//! error path. Update with `UPDATE_EXPECT=1 cargo test -p codegen`.

use expect_test::{Expect, expect};
use quote::quote;

/// Expands `#[variants(<args>)]` on `input` and compares the pretty-printed
/// result with `expected`.
fn check(args: proc_macro2::TokenStream, input: proc_macro2::TokenStream, expected: Expect) {
    let out = crate::expand::variants(args, input);
    let file: syn::File = syn::parse2(out).expect("the expansion parses as a file");
    expected.assert_eq(&prettyplease::unparse(&file));
}

fn tiny() -> proc_macro2::TokenStream {
    quote! {
        pub mod tiny {
            use crate::tables::S;
            static T: [u8; 2] = [1, 2];
            #[round]
            fn f(x: u8) -> u8 { S[x as usize] ^ T[0] }
            fn helper(x: u8) -> u8 { f(x) }
            pub struct C;
            impl C {
                #[round]
                fn g(&self, x: u8) -> u8 { helper(x) }
            }
        }
    }
}

#[test]
fn always() {
    check(
        quote!(always),
        tiny(),
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            pub mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "always";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["always"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f", "C::g"];
                use crate::tables::S;
                static T: [u8; 2] = [1, 2];
                /// Variant `always`: every `#[round]` function has `#[inline(always)]`.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::always"))]
                pub mod always {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "always";
                    #[inline(always)]
                    fn f(x: u8) -> u8 {
                        S[x as usize] ^ T[0]
                    }
                    fn helper(x: u8) -> u8 {
                        f(x)
                    }
                    pub struct C;
                    impl C {
                        #[inline(always)]
                        fn g(&self, x: u8) -> u8 {
                            helper(x)
                        }
                    }
                }
            }
        "##]],
    );
}

#[test]
fn never() {
    check(
        quote!(never),
        tiny(),
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            pub mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "never";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["never"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f", "C::g"];
                use crate::tables::S;
                static T: [u8; 2] = [1, 2];
                /// Variant `never`: every `#[round]` function has `#[inline(never)]`.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::never"))]
                pub mod never {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "never";
                    #[inline(never)]
                    fn f(x: u8) -> u8 {
                        S[x as usize] ^ T[0]
                    }
                    fn helper(x: u8) -> u8 {
                        f(x)
                    }
                    pub struct C;
                    impl C {
                        #[inline(never)]
                        fn g(&self, x: u8) -> u8 {
                            helper(x)
                        }
                    }
                }
            }
        "##]],
    );
}

#[test]
fn hint() {
    check(
        quote!(hint),
        tiny(),
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            pub mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "hint";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["hint"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f", "C::g"];
                use crate::tables::S;
                static T: [u8; 2] = [1, 2];
                /// Variant `hint`: every `#[round]` function has `#[inline]`.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::hint"))]
                pub mod hint {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "hint";
                    #[inline]
                    fn f(x: u8) -> u8 {
                        S[x as usize] ^ T[0]
                    }
                    fn helper(x: u8) -> u8 {
                        f(x)
                    }
                    pub struct C;
                    impl C {
                        #[inline]
                        fn g(&self, x: u8) -> u8 {
                            helper(x)
                        }
                    }
                }
            }
        "##]],
    );
}

#[test]
fn auto() {
    check(
        quote!(auto),
        tiny(),
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            pub mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "auto";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["auto"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f", "C::g"];
                use crate::tables::S;
                static T: [u8; 2] = [1, 2];
                /// Variant `auto`: every `#[round]` function has no inline attribute (the compiler decides).
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::auto"))]
                pub mod auto {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "auto";
                    fn f(x: u8) -> u8 {
                        S[x as usize] ^ T[0]
                    }
                    fn helper(x: u8) -> u8 {
                        f(x)
                    }
                    pub struct C;
                    impl C {
                        fn g(&self, x: u8) -> u8 {
                            helper(x)
                        }
                    }
                }
            }
        "##]],
    );
}

/// `cipher = Type` exports the callback macros other crates derive their
/// lists from; every module and variant is gated on the selection cfgs.
#[test]
fn callbacks_and_selection() {
    check(
        quote!(never, auto, cipher = Tiny),
        quote! { mod tiny { #[round] fn f() {} pub struct Tiny; } },
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "auto";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["never", "auto"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f"];
                /// Variant `never`: every `#[round]` function has `#[inline(never)]`.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::never"))]
                pub mod never {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "never";
                    #[inline(never)]
                    fn f() {}
                    pub struct Tiny;
                }
                /// Variant `auto`: every `#[round]` function has no inline attribute (the compiler decides).
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::auto"))]
                pub mod auto {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "auto";
                    fn f() {}
                    pub struct Tiny;
                }
            }
            /// Calls `$cb! { cipher: tiny, kind: ..., variants: [...] }` with every variant of `tiny`.
            #[macro_export]
            macro_rules! tiny_variants {
                ($cb:ident) => {
                    $cb ! { cipher : tiny, kind : cipher(Tiny), variants : [never auto] }
                };
                (@ chain[$cb:ident] [$($done:tt)*] [$next:ident $($rest:ident)*]) => {
                    $crate:: $next ! { @ chain[$cb] [$($done)*] [$($rest)*] }
                };
                (@ chain[$cb:ident] [$($done:tt)*] []) => {
                    $cb ! { $($done)* }
                };
            }
            /// Calls `$cb! { cipher, kind, variant }` with the one variant this build selected.
            #[cfg(inlinelab_variant = "tiny::never")]
            #[macro_export]
            macro_rules! selected {
                ($cb:ident) => {
                    $cb ! { cipher : tiny, kind : cipher(Tiny), variant : never }
                };
            }
            /// Calls `$cb! { cipher, kind, variant }` with the one variant this build selected.
            #[cfg(inlinelab_variant = "tiny::auto")]
            #[macro_export]
            macro_rules! selected {
                ($cb:ident) => {
                    $cb ! { cipher : tiny, kind : cipher(Tiny), variant : auto }
                };
            }
        "##]],
    );
}

/// `#[method]` modules: a grouped axis, each method with its own policies,
/// named `<method>_<policy>`; `super` inside a method means the module in
/// the source and in every variant alike; `reference` overrides the default.
#[test]
fn methods() {
    check(
        quote!(checksum, reference = fast_auto),
        quote! {
            mod sum {
                static T: [u8; 2] = [1, 2];
                fn finish(x: u8) -> u8 { !x }
                #[method(always, never)]
                mod slow {
                    use super::T;
                    #[round]
                    fn step(x: u8) -> u8 { T[0] ^ x }
                    pub fn sum(d: &[u8]) -> u8 { finish(d.iter().fold(0, |s, &b| step(s ^ b))) }
                }
                #[method(auto)]
                mod fast {
                    #[round]
                    fn step2(x: u8) -> u8 { x }
                    pub fn sum(d: &[u8]) -> u8 { finish(step2(d.len() as u8)) }
                }
            }
        },
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "sum"))]
            mod sum {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "fast_auto";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["slow_always", "slow_never", "fast_auto"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["step", "step2"];
                static T: [u8; 2] = [1, 2];
                /// Variant `slow_always`: every `#[round]` function has `#[inline(always)]`.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "sum::slow_always"))]
                pub mod slow_always {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "slow_always";
                    fn finish(x: u8) -> u8 {
                        !x
                    }
                    use super::T;
                    #[inline(always)]
                    fn step(x: u8) -> u8 {
                        T[0] ^ x
                    }
                    pub fn sum(d: &[u8]) -> u8 {
                        finish(d.iter().fold(0, |s, &b| step(s ^ b)))
                    }
                }
                /// Variant `slow_never`: every `#[round]` function has `#[inline(never)]`.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "sum::slow_never"))]
                pub mod slow_never {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "slow_never";
                    fn finish(x: u8) -> u8 {
                        !x
                    }
                    use super::T;
                    #[inline(never)]
                    fn step(x: u8) -> u8 {
                        T[0] ^ x
                    }
                    pub fn sum(d: &[u8]) -> u8 {
                        finish(d.iter().fold(0, |s, &b| step(s ^ b)))
                    }
                }
                /// Variant `fast_auto`: every `#[round]` function has no inline attribute (the compiler decides).
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "sum::fast_auto"))]
                pub mod fast_auto {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "fast_auto";
                    fn finish(x: u8) -> u8 {
                        !x
                    }
                    fn step2(x: u8) -> u8 {
                        x
                    }
                    pub fn sum(d: &[u8]) -> u8 {
                        finish(step2(d.len() as u8))
                    }
                }
            }
            /// Calls `$cb! { cipher: sum, kind: ..., variants: [...] }` with every variant of `sum`.
            #[macro_export]
            macro_rules! sum_variants {
                ($cb:ident) => {
                    $cb ! { cipher : sum, kind : checksum, variants : [slow_always slow_never
                    fast_auto] }
                };
                (@ chain[$cb:ident] [$($done:tt)*] [$next:ident $($rest:ident)*]) => {
                    $crate:: $next ! { @ chain[$cb] [$($done)*] [$($rest)*] }
                };
                (@ chain[$cb:ident] [$($done:tt)*] []) => {
                    $cb ! { $($done)* }
                };
            }
            /// Calls `$cb! { cipher, kind, variant }` with the one variant this build selected.
            #[cfg(inlinelab_variant = "sum::slow_always")]
            #[macro_export]
            macro_rules! selected {
                ($cb:ident) => {
                    $cb ! { cipher : sum, kind : checksum, variant : slow_always }
                };
            }
            /// Calls `$cb! { cipher, kind, variant }` with the one variant this build selected.
            #[cfg(inlinelab_variant = "sum::slow_never")]
            #[macro_export]
            macro_rules! selected {
                ($cb:ident) => {
                    $cb ! { cipher : sum, kind : checksum, variant : slow_never }
                };
            }
            /// Calls `$cb! { cipher, kind, variant }` with the one variant this build selected.
            #[cfg(inlinelab_variant = "sum::fast_auto")]
            #[macro_export]
            macro_rules! selected {
                ($cb:ident) => {
                    $cb ! { cipher : sum, kind : checksum, variant : fast_auto }
                };
            }
        "##]],
    );
}

/// The default reference variant is the first with the `auto` policy.
#[test]
fn reference_defaults_to_auto() {
    let out = crate::expand::variants(
        quote!(never_factored, auto_factored, auto_duplicated),
        quote! { mod m { #[round] fn f() {} #[shape] fn g(c: bool) { if c { f(); } else { f(); } } } },
    );
    let text = out.to_string();
    assert!(
        text.contains(r#"pub const REFERENCE : & str = "auto_factored""#),
        "{text}"
    );
}

#[test]
fn error_keeps_input_without_markers() {
    check(
        quote!(sometimes),
        quote! { mod tiny { #[round] fn f() {} } },
        expect![[r#"
            mod tiny {
                fn f() {}
            }
            ::core::compile_error! {
                "unknown variant `sometimes`: expected `policy[_form][_xN][_unrolled]`: a policy (always, never, hint, auto), optionally followed by a branch form (factored, duplicated), a lane count (`x2` to `x64`) and `unrolled`, each after `_`, e.g. `never`, `never_factored` or `auto_x4_unrolled`"
            }
        "#]],
    );
}

/// Applies `form` to the body of `input` (a function) and compares the
/// pretty-printed function, or the error message, with `expected`.
fn check_form(form: crate::forms::Form, input: proc_macro2::TokenStream, expected: Expect) {
    let mut f: syn::ItemFn = syn::parse2(input).expect("a function");
    let out = match form.apply(&mut f.block) {
        Ok(()) => prettyplease::unparse(&syn::File {
            shebang: None,
            attrs: Vec::new(),
            items: vec![syn::Item::Fn(f)],
        }),
        Err(e) => format!("error: {e}\n"),
    };
    expected.assert_eq(&out);
}

use crate::forms::Form::{Duplicated, Factored};

#[test]
fn factored_shared_prefix_and_suffix() {
    check_form(
        Factored,
        quote! {
            fn f(&self, l: &mut u32, r: &mut u32) {
                if self.rounds == 12 {
                    *l ^= g(*r, 0);
                    *r ^= g(*l, 1);
                    out(l, r);
                } else {
                    *l ^= g(*r, 0);
                    *r ^= g(*l, 1);
                    *l ^= g(*r, 2);
                    out(l, r);
                }
            }
        },
        expect![[r#"
            fn f(&self, l: &mut u32, r: &mut u32) {
                *l ^= g(*r, 0);
                *r ^= g(*l, 1);
                if self.rounds == 12 {} else {
                    *l ^= g(*r, 2);
                };
                out(l, r);
            }
        "#]],
    );
}

#[test]
fn factored_refuses_a_condition_with_side_effects() {
    check_form(
        Factored,
        quote! {
            fn f() {
                if next() { a(); b(); } else { a(); c(); }
            }
        },
        expect![[r#"
            error: cannot hoist the statements every branch starts with above this condition: it may have side effects (a call, macro or assignment), which must not be reordered with the moved statements
        "#]],
    );
}

#[test]
fn factored_refuses_a_condition_the_prefix_changes() {
    check_form(
        Factored,
        quote! {
            fn f(mut n: u32) {
                if n > 3 { n += 1; b(); } else { n += 1; c(); }
            }
        },
        expect![[r#"
            error: cannot hoist the statements every branch starts with above this condition: it reads `n`, which the moved statements change or bind
        "#]],
    );
}

#[test]
fn factored_refuses_a_suffix_using_branch_bindings() {
    check_form(
        Factored,
        quote! {
            fn f(c: bool) {
                if c { let x = 1; use_it(x); } else { let x = 2; use_it(x); }
            }
        },
        expect![[r#"
            error: cannot hoist the statements every branch ends with below the `if`: they use `x`, which a branch binds
        "#]],
    );
}

#[test]
fn factored_nested_and_without_else() {
    check_form(
        Factored,
        quote! {
            fn f(a: bool, b: bool) {
                if a {
                    if b { x(); z(); } else { y(); z(); }
                } else {
                    w();
                }
                if a { only(); }
            }
        },
        expect![[r#"
            fn f(a: bool, b: bool) {
                if a {
                    if b {
                        x();
                    } else {
                        y();
                    };
                    z();
                } else {
                    w();
                }
                if a {
                    only();
                }
            }
        "#]],
    );
}

#[test]
fn duplicated_moves_following_and_preceding() {
    check_form(
        Duplicated,
        quote! {
            fn f(&self, l: &mut u32, r: &mut u32) -> u32 {
                *l ^= g(*r, 0);
                *r ^= g(*l, 1);
                if self.rounds == 16 {
                    *l ^= g(*r, 2);
                }
                out(l, r);
                *l
            }
        },
        expect![[r#"
            fn f(&self, l: &mut u32, r: &mut u32) -> u32 {
                if self.rounds == 16 {
                    *l ^= g(*r, 0);
                    *r ^= g(*l, 1);
                    *l ^= g(*r, 2);
                    out(l, r);
                    *l
                } else {
                    *l ^= g(*r, 0);
                    *r ^= g(*l, 1);
                    out(l, r);
                    *l
                }
            }
        "#]],
    );
}

#[test]
fn duplicated_keeps_side_effects_in_place() {
    check_form(
        Duplicated,
        quote! {
            fn f() {
                a();
                if next() { b(); } else { c(); }
                d();
            }
        },
        expect![[r#"
            fn f() {
                a();
                if next() {
                    b();
                    d();
                } else {
                    c();
                    d();
                };
            }
        "#]],
    );
}

#[test]
fn duplicated_nested_ifs() {
    check_form(
        Duplicated,
        quote! {
            fn f(a: bool, b: bool) {
                if a { x(); }
                if b { y(); }
                z();
            }
        },
        expect![[r#"
            fn f(a: bool, b: bool) {
                if a {
                    if b {
                        x();
                        y();
                        z();
                    } else {
                        x();
                        z();
                    };
                } else {
                    if b {
                        y();
                        z();
                    } else {
                        z();
                    };
                };
            }
        "#]],
    );
}

#[test]
fn duplicated_refuses_a_shadowing_branch() {
    check_form(
        Duplicated,
        quote! {
            fn f(c: bool, x: u32) {
                if c { let x = 1; use_it(x); }
                use_it(x);
            }
        },
        expect![[r#"
            error: cannot move these statements into the branches of the `if` before them: they use `x`, which a branch binds
        "#]],
    );
}

#[test]
fn macro_with_a_form() {
    check(
        quote!(never_factored, auto_duplicated),
        quote! {
            mod tiny {
                #[round]
                fn g(x: u32) -> u32 { x }
                #[shape]
                fn f(c: bool, x: &mut u32) {
                    if c { *x = g(*x); *x += 1; } else { *x = g(*x); }
                }
            }
        },
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "auto_duplicated";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["never_factored", "auto_duplicated"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["g"];
                /// Variant `never_factored`: every `#[round]` function has `#[inline(never)]`; `#[shape]` functions have statements shared by every branch hoisted out (factored).
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::never_factored"))]
                pub mod never_factored {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "never_factored";
                    #[inline(never)]
                    fn g(x: u32) -> u32 {
                        x
                    }
                    fn f(c: bool, x: &mut u32) {
                        *x = g(*x);
                        if c {
                            *x += 1;
                        } else {}
                    }
                }
                /// Variant `auto_duplicated`: every `#[round]` function has no inline attribute (the compiler decides); `#[shape]` functions have statements around each `if` moved into every branch (duplicated).
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::auto_duplicated"))]
                pub mod auto_duplicated {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "auto_duplicated";
                    fn g(x: u32) -> u32 {
                        x
                    }
                    fn f(c: bool, x: &mut u32) {
                        if c {
                            *x = g(*x);
                            *x += 1;
                        } else {
                            *x = g(*x);
                        }
                    }
                }
            }
        "##]],
    );
}

/// The lanes axis: each `#[lanes]` function (a free function and a method)
/// keeps its one-block form and gains a `_lanes` copy, rewritten statement
/// by statement; `LANES` and, for a cipher, `Lanes` in every variant.
#[test]
fn lanes() {
    check(
        quote!(policy(never), lanes(1, 2), cipher = Tiny),
        quote! {
            mod tiny {
                #[round]
                fn f(x: u32, k: u32) -> u32 { x ^ k }
                #[lanes]
                fn mix(#[lane] a: &mut u32, key: u32) { *a = f(*a, key); }
                pub struct Tiny { k: [u32; 2] }
                impl Tiny {
                    /// One block.
                    #[lanes]
                    fn encrypt(&self, #[lane] s: &mut [u32; 2], #[lane] t: u32) -> u32 {
                        let k = self.k[0];
                        let mut x: u32 = s[0] ^ t;
                        for i in 0..2 {
                            let k = self.k[i];
                            x = f(x, k);
                            s[1] ^= x;
                            mix(&mut s[0], k);
                        }
                        if k > 3 {
                            s[0] = x;
                        }
                        x.wrapping_add(k)
                    }
                }
            }
        },
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "never";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["never", "never_x2"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f"];
                /// Variant `never`: every `#[round]` function has `#[inline(never)]`.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::never"))]
                pub mod never {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "never";
                    /// How many lane states the `_lanes` copies of `#[lanes]` functions take at once.
                    pub const LANES: usize = 1;
                    /// How many blocks one lane's state holds: the copies take `LANES * LANE_BLOCKS` blocks.
                    pub const LANE_BLOCKS: usize = 1;
                    /// The blocks the `_lanes` copies take at once, as a type: the
                    /// `ParBlocksSize` of this variant's cipher.
                    pub type Lanes = ::cipher::consts::U1;
                    /// Its input where this variant has more than two lanes, else
                    /// nothing: `cipher_traits!`'s `tail_pairs`.
                    #[allow(unused_macros)]
                    macro_rules! over_two_lanes {
                        ($($t:tt)*) => {};
                    }
                    #[inline(never)]
                    fn f(x: u32, k: u32) -> u32 {
                        x ^ k
                    }
                    #[inline(always)]
                    fn mix(a: &mut u32, key: u32) {
                        *a = f(*a, key);
                    }
                    /// `mix` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    fn mix_lanes(a: &mut [u32; LANES], key: u32) {
                        for lane in 0..LANES {
                            a[lane] = f(a[lane], key);
                        }
                    }
                    /// `mix` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    #[allow(dead_code)]
                    fn mix_lanes_n<const LANES: usize>(a: &mut [u32; LANES], key: u32) {
                        for lane in 0..LANES {
                            a[lane] = f(a[lane], key);
                        }
                    }
                    pub struct Tiny {
                        k: [u32; 2],
                    }
                    impl Tiny {
                        /// One block.
                        #[inline(always)]
                        fn encrypt(&self, s: &mut [u32; 2], t: u32) -> u32 {
                            let k = self.k[0];
                            let mut x: u32 = s[0] ^ t;
                            for i in 0..2 {
                                let k = self.k[i];
                                x = f(x, k);
                                s[1] ^= x;
                                mix(&mut s[0], k);
                            }
                            if k > 3 {
                                s[0] = x;
                            }
                            x.wrapping_add(k)
                        }
                        /// `encrypt` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                        fn encrypt_lanes(
                            &self,
                            s: &mut [[u32; 2]; LANES],
                            t: [u32; LANES],
                        ) -> [u32; LANES] {
                            let k = self.k[0];
                            let mut x: [u32; LANES] = ::core::array::from_fn(|lane| {
                                s[lane][0] ^ t[lane]
                            });
                            for i in 0..2 {
                                let k = self.k[i];
                                for lane in 0..LANES {
                                    x[lane] = f(x[lane], k);
                                }
                                for lane in 0..LANES {
                                    s[lane][1] ^= x[lane];
                                }
                                for lane in 0..LANES {
                                    mix(&mut s[lane][0], k);
                                }
                            }
                            if k > 3 {
                                for lane in 0..LANES {
                                    s[lane][0] = x[lane];
                                }
                            }
                            ::core::array::from_fn(|lane| x[lane].wrapping_add(k))
                        }
                        /// `encrypt` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                        #[allow(dead_code)]
                        fn encrypt_lanes_n<const LANES: usize>(
                            &self,
                            s: &mut [[u32; 2]; LANES],
                            t: [u32; LANES],
                        ) -> [u32; LANES] {
                            let k = self.k[0];
                            let mut x: [u32; LANES] = ::core::array::from_fn(|lane| {
                                s[lane][0] ^ t[lane]
                            });
                            for i in 0..2 {
                                let k = self.k[i];
                                for lane in 0..LANES {
                                    x[lane] = f(x[lane], k);
                                }
                                for lane in 0..LANES {
                                    s[lane][1] ^= x[lane];
                                }
                                for lane in 0..LANES {
                                    mix(&mut s[lane][0], k);
                                }
                            }
                            if k > 3 {
                                for lane in 0..LANES {
                                    s[lane][0] = x[lane];
                                }
                            }
                            ::core::array::from_fn(|lane| x[lane].wrapping_add(k))
                        }
                    }
                }
                /// Variant `never_x2`: every `#[round]` function has `#[inline(never)]`; the `_lanes` copies of `#[lanes]` functions take 2 blocks at once.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::never_x2"))]
                pub mod never_x2 {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "never_x2";
                    /// How many lane states the `_lanes` copies of `#[lanes]` functions take at once.
                    pub const LANES: usize = 2;
                    /// How many blocks one lane's state holds: the copies take `LANES * LANE_BLOCKS` blocks.
                    pub const LANE_BLOCKS: usize = 1;
                    /// The blocks the `_lanes` copies take at once, as a type: the
                    /// `ParBlocksSize` of this variant's cipher.
                    pub type Lanes = ::cipher::consts::U2;
                    /// Its input where this variant has more than two lanes, else
                    /// nothing: `cipher_traits!`'s `tail_pairs`.
                    #[allow(unused_macros)]
                    macro_rules! over_two_lanes {
                        ($($t:tt)*) => {};
                    }
                    #[inline(never)]
                    fn f(x: u32, k: u32) -> u32 {
                        x ^ k
                    }
                    #[inline(always)]
                    fn mix(a: &mut u32, key: u32) {
                        *a = f(*a, key);
                    }
                    /// `mix` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    fn mix_lanes(a: &mut [u32; LANES], key: u32) {
                        for lane in 0..LANES {
                            a[lane] = f(a[lane], key);
                        }
                    }
                    /// `mix` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    #[allow(dead_code)]
                    fn mix_lanes_n<const LANES: usize>(a: &mut [u32; LANES], key: u32) {
                        for lane in 0..LANES {
                            a[lane] = f(a[lane], key);
                        }
                    }
                    pub struct Tiny {
                        k: [u32; 2],
                    }
                    impl Tiny {
                        /// One block.
                        #[inline(always)]
                        fn encrypt(&self, s: &mut [u32; 2], t: u32) -> u32 {
                            let k = self.k[0];
                            let mut x: u32 = s[0] ^ t;
                            for i in 0..2 {
                                let k = self.k[i];
                                x = f(x, k);
                                s[1] ^= x;
                                mix(&mut s[0], k);
                            }
                            if k > 3 {
                                s[0] = x;
                            }
                            x.wrapping_add(k)
                        }
                        /// `encrypt` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                        fn encrypt_lanes(
                            &self,
                            s: &mut [[u32; 2]; LANES],
                            t: [u32; LANES],
                        ) -> [u32; LANES] {
                            let k = self.k[0];
                            let mut x: [u32; LANES] = ::core::array::from_fn(|lane| {
                                s[lane][0] ^ t[lane]
                            });
                            for i in 0..2 {
                                let k = self.k[i];
                                for lane in 0..LANES {
                                    x[lane] = f(x[lane], k);
                                }
                                for lane in 0..LANES {
                                    s[lane][1] ^= x[lane];
                                }
                                for lane in 0..LANES {
                                    mix(&mut s[lane][0], k);
                                }
                            }
                            if k > 3 {
                                for lane in 0..LANES {
                                    s[lane][0] = x[lane];
                                }
                            }
                            ::core::array::from_fn(|lane| x[lane].wrapping_add(k))
                        }
                        /// `encrypt` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                        #[allow(dead_code)]
                        fn encrypt_lanes_n<const LANES: usize>(
                            &self,
                            s: &mut [[u32; 2]; LANES],
                            t: [u32; LANES],
                        ) -> [u32; LANES] {
                            let k = self.k[0];
                            let mut x: [u32; LANES] = ::core::array::from_fn(|lane| {
                                s[lane][0] ^ t[lane]
                            });
                            for i in 0..2 {
                                let k = self.k[i];
                                for lane in 0..LANES {
                                    x[lane] = f(x[lane], k);
                                }
                                for lane in 0..LANES {
                                    s[lane][1] ^= x[lane];
                                }
                                for lane in 0..LANES {
                                    mix(&mut s[lane][0], k);
                                }
                            }
                            if k > 3 {
                                for lane in 0..LANES {
                                    s[lane][0] = x[lane];
                                }
                            }
                            ::core::array::from_fn(|lane| x[lane].wrapping_add(k))
                        }
                    }
                }
            }
            /// Calls `$cb! { cipher: tiny, kind: ..., variants: [...] }` with every variant of `tiny`.
            #[macro_export]
            macro_rules! tiny_variants {
                ($cb:ident) => {
                    $cb ! { cipher : tiny, kind : cipher(Tiny), variants : [never never_x2] }
                };
                (@ chain[$cb:ident] [$($done:tt)*] [$next:ident $($rest:ident)*]) => {
                    $crate:: $next ! { @ chain[$cb] [$($done)*] [$($rest)*] }
                };
                (@ chain[$cb:ident] [$($done:tt)*] []) => {
                    $cb ! { $($done)* }
                };
            }
            /// Calls `$cb! { cipher, kind, variant }` with the one variant this build selected.
            #[cfg(inlinelab_variant = "tiny::never")]
            #[macro_export]
            macro_rules! selected {
                ($cb:ident) => {
                    $cb ! { cipher : tiny, kind : cipher(Tiny), variant : never }
                };
            }
            /// Calls `$cb! { cipher, kind, variant }` with the one variant this build selected.
            #[cfg(inlinelab_variant = "tiny::never_x2")]
            #[macro_export]
            macro_rules! selected {
                ($cb:ident) => {
                    $cb ! { cipher : tiny, kind : cipher(Tiny), variant : never_x2 }
                };
            }
        "##]],
    );
}

/// The unroll axis: rolled, a marked loop is the loop as written; unrolled,
/// a block per iteration binding the loop variable (with the range's
/// suffix), in the range's order.
#[test]
fn unroll() {
    check(
        quote!(never, never_unrolled),
        quote! {
            mod tiny {
                #[round]
                fn f(x: u32, k: u8) -> u32 { x ^ u32::from(k) }
                pub fn g(mut x: u32) -> u32 {
                    #[unroll]
                    for i in 0..3 {
                        x = f(x, i);
                    }
                    #[unroll]
                    for _ in (1u8..=2).rev() {
                        for j in 0..4 {
                            if j == 2 { break; }
                            x += 1;
                        }
                    }
                    x
                }
            }
        },
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "never";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["never", "never_unrolled"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f"];
                /// Variant `never`: every `#[round]` function has `#[inline(never)]`.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::never"))]
                pub mod never {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "never";
                    #[inline(never)]
                    fn f(x: u32, k: u8) -> u32 {
                        x ^ u32::from(k)
                    }
                    pub fn g(mut x: u32) -> u32 {
                        for i in 0..3 {
                            x = f(x, i);
                        }
                        for _ in (1u8..=2).rev() {
                            for j in 0..4 {
                                if j == 2 {
                                    break;
                                }
                                x += 1;
                            }
                        }
                        x
                    }
                }
                /// Variant `never_unrolled`: every `#[round]` function has `#[inline(never)]`; `#[unroll]` loops are unrolled.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::never_unrolled"))]
                pub mod never_unrolled {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "never_unrolled";
                    #[inline(never)]
                    fn f(x: u32, k: u8) -> u32 {
                        x ^ u32::from(k)
                    }
                    pub fn g(mut x: u32) -> u32 {
                        {
                            let i = 0;
                            x = f(x, i);
                        }
                        {
                            let i = 1;
                            x = f(x, i);
                        }
                        {
                            let i = 2;
                            x = f(x, i);
                        }
                        {
                            for j in 0..4 {
                                if j == 2 {
                                    break;
                                }
                                x += 1;
                            }
                        }
                        {
                            for j in 0..4 {
                                if j == 2 {
                                    break;
                                }
                                x += 1;
                            }
                        }
                        x
                    }
                }
            }
        "##]],
    );
}

/// Both axes, as a cross product: the `#[unroll]` loop of a `#[lanes]`
/// function is unrolled before the copy is made, so each iteration's
/// statements run for every lane in turn.
#[test]
fn lanes_and_unroll() {
    check(
        quote!(policy(auto), lanes(4), unroll(unrolled)),
        quote! {
            mod tiny {
                #[round]
                fn f(x: u32, k: u32) -> u32 { x ^ k }
                #[lanes]
                pub fn g(#[lane] x: u32, k: &[u32; 2]) -> u32 {
                    let mut y = x;
                    #[unroll]
                    for i in 0..2 {
                        y = f(y, k[i]);
                    }
                    y
                }
            }
        },
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "auto_x4_unrolled";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["auto_x4_unrolled"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f"];
                /// Variant `auto_x4_unrolled`: every `#[round]` function has no inline attribute (the compiler decides); the `_lanes` copies of `#[lanes]` functions take 4 blocks at once; `#[unroll]` loops are unrolled.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::auto_x4_unrolled"))]
                pub mod auto_x4_unrolled {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "auto_x4_unrolled";
                    /// How many lane states the `_lanes` copies of `#[lanes]` functions take at once.
                    pub const LANES: usize = 4;
                    /// How many blocks one lane's state holds: the copies take `LANES * LANE_BLOCKS` blocks.
                    pub const LANE_BLOCKS: usize = 1;
                    fn f(x: u32, k: u32) -> u32 {
                        x ^ k
                    }
                    #[inline(always)]
                    pub fn g(x: u32, k: &[u32; 2]) -> u32 {
                        let mut y = x;
                        for i in 0..2 {
                            y = f(y, k[i]);
                        }
                        y
                    }
                    /// `g` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    pub fn g_lanes(x: [u32; LANES], k: &[u32; 2]) -> [u32; LANES] {
                        let mut y: [_; LANES] = ::core::array::from_fn(|lane| x[lane]);
                        {
                            let i = 0;
                            for lane in 0..LANES {
                                y[lane] = f(y[lane], k[i]);
                            }
                        }
                        {
                            let i = 1;
                            for lane in 0..LANES {
                                y[lane] = f(y[lane], k[i]);
                            }
                        }
                        ::core::array::from_fn(|lane| y[lane])
                    }
                    /// `g` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    #[allow(dead_code)]
                    pub fn g_lanes_n<const LANES: usize>(
                        x: [u32; LANES],
                        k: &[u32; 2],
                    ) -> [u32; LANES] {
                        let mut y: [_; LANES] = ::core::array::from_fn(|lane| x[lane]);
                        {
                            let i = 0;
                            for lane in 0..LANES {
                                y[lane] = f(y[lane], k[i]);
                            }
                        }
                        {
                            let i = 1;
                            for lane in 0..LANES {
                                y[lane] = f(y[lane], k[i]);
                            }
                        }
                        ::core::array::from_fn(|lane| y[lane])
                    }
                }
            }
        "##]],
    );
}

/// An entry with `#[target_feature]` (a round on AES-NI) gets `#[inline]`,
/// not `#[inline(always)]`, which Rust refuses there; its `_lanes` copy
/// keeps the target features, and a `hint` round gets `#[inline]` beside
/// its own.
#[test]
fn target_feature_entry() {
    check(
        quote!(policy(hint), lanes(2)),
        quote! {
            mod tiny {
                #[round]
                #[target_feature(enable = "aes")]
                fn f(x: u32) -> u32 { x }
                #[lanes]
                #[target_feature(enable = "aes")]
                fn g(#[lane] x: &mut u32) {
                    *x = f(*x);
                }
            }
        },
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "hint_x2";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["hint_x2"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f"];
                /// Variant `hint_x2`: every `#[round]` function has `#[inline]`; the `_lanes` copies of `#[lanes]` functions take 2 blocks at once.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::hint_x2"))]
                pub mod hint_x2 {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "hint_x2";
                    /// How many lane states the `_lanes` copies of `#[lanes]` functions take at once.
                    pub const LANES: usize = 2;
                    /// How many blocks one lane's state holds: the copies take `LANES * LANE_BLOCKS` blocks.
                    pub const LANE_BLOCKS: usize = 1;
                    #[target_feature(enable = "aes")]
                    #[inline]
                    fn f(x: u32) -> u32 {
                        x
                    }
                    #[target_feature(enable = "aes")]
                    #[inline]
                    fn g(x: &mut u32) {
                        *x = f(*x);
                    }
                    /// `g` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    #[target_feature(enable = "aes")]
                    fn g_lanes(x: &mut [u32; LANES]) {
                        for lane in 0..LANES {
                            x[lane] = f(x[lane]);
                        }
                    }
                    /// `g` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    #[target_feature(enable = "aes")]
                    #[allow(dead_code)]
                    fn g_lanes_n<const LANES: usize>(x: &mut [u32; LANES]) {
                        for lane in 0..LANES {
                            x[lane] = f(x[lane]);
                        }
                    }
                }
            }
        "##]],
    );
}

/// A method whose lane states hold two blocks each (`lane_blocks = 2`):
/// its name and `Lanes` (the cipher's `ParBlocksSize`) count blocks, its
/// `LANES` states.
#[test]
fn lane_blocks_count_states() {
    check(
        quote!(cipher = Tiny),
        quote! {
            mod tiny {
                #[method(policy(auto), lanes(4), lane_blocks = 2)]
                mod wide {
                    #[round]
                    fn f(x: u64) -> u64 { x }
                    #[lanes]
                    fn g(#[lane] x: &mut u64) {
                        *x = f(*x);
                    }
                }
            }
        },
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "wide_auto_x4";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["wide_auto_x4"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f"];
                /// Variant `wide_auto_x4`: every `#[round]` function has no inline attribute (the compiler decides); the `_lanes` copies of `#[lanes]` functions take 4 blocks at once, 2 states of 2.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::wide_auto_x4"))]
                pub mod wide_auto_x4 {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "wide_auto_x4";
                    /// How many lane states the `_lanes` copies of `#[lanes]` functions take at once.
                    pub const LANES: usize = 2;
                    /// How many blocks one lane's state holds: the copies take `LANES * LANE_BLOCKS` blocks.
                    pub const LANE_BLOCKS: usize = 2;
                    /// The blocks the `_lanes` copies take at once, as a type: the
                    /// `ParBlocksSize` of this variant's cipher.
                    pub type Lanes = ::cipher::consts::U4;
                    /// Its input where this variant has more than two lanes, else
                    /// nothing: `cipher_traits!`'s `tail_pairs`.
                    #[allow(unused_macros)]
                    macro_rules! over_two_lanes {
                        ($($t:tt)*) => {
                            $($t)*
                        };
                    }
                    fn f(x: u64) -> u64 {
                        x
                    }
                    #[inline(always)]
                    fn g(x: &mut u64) {
                        *x = f(*x);
                    }
                    /// `g` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    fn g_lanes(x: &mut [u64; LANES]) {
                        for lane in 0..LANES {
                            x[lane] = f(x[lane]);
                        }
                    }
                    /// `g` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    #[allow(dead_code)]
                    fn g_lanes_n<const LANES: usize>(x: &mut [u64; LANES]) {
                        for lane in 0..LANES {
                            x[lane] = f(x[lane]);
                        }
                    }
                }
            }
            /// Calls `$cb! { cipher: tiny, kind: ..., variants: [...] }` with every variant of `tiny`.
            #[macro_export]
            macro_rules! tiny_variants {
                ($cb:ident) => {
                    $cb ! { cipher : tiny, kind : cipher(Tiny), variants : [wide_auto_x4] }
                };
                (@ chain[$cb:ident] [$($done:tt)*] [$next:ident $($rest:ident)*]) => {
                    $crate:: $next ! { @ chain[$cb] [$($done)*] [$($rest)*] }
                };
                (@ chain[$cb:ident] [$($done:tt)*] []) => {
                    $cb ! { $($done)* }
                };
            }
            /// Calls `$cb! { cipher, kind, variant }` with the one variant this build selected.
            #[cfg(inlinelab_variant = "tiny::wide_auto_x4")]
            #[macro_export]
            macro_rules! selected {
                ($cb:ident) => {
                    $cb ! { cipher : tiny, kind : cipher(Tiny), variant : wide_auto_x4 }
                };
            }
        "##]],
    );
}

/// A cross product's names: axes joined by `_`, outermost (slowest) first,
/// defaults (one lane, rolled) left out; the reference is the first `auto`
/// with one lane and rolled loops.
#[test]
fn cross_product_names() {
    let out = crate::expand::variants(
        quote!(
            policy(never, auto),
            form(factored),
            lanes(2, 1),
            unroll(unrolled, rolled)
        ),
        quote! {
            mod m {
                #[round] fn f() {}
                #[shape] fn g(c: bool) { if c { f(); } else { f(); } }
                #[lanes] fn h(#[lane] x: u8) -> u8 {
                    #[unroll] for _ in 0..2 { f(); }
                    x
                }
            }
        },
    );
    let text = out.to_string();
    assert!(
        text.contains(
            r#"pub const VARIANTS : & [& str] = & ["never_factored_x2_unrolled" , "never_factored_x2" , "never_factored_unrolled" , "never_factored" , "auto_factored_x2_unrolled" , "auto_factored_x2" , "auto_factored_unrolled" , "auto_factored"] ;"#
        ),
        "{text}"
    );
    assert!(
        text.contains(r#"pub const REFERENCE : & str = "auto_factored""#),
        "{text}"
    );
}

/// The same variants by name are the same modules.
#[test]
fn names_with_new_axes() {
    let out = crate::expand::variants(
        quote!(never_x8, auto_factored_x3_unrolled, hint_unrolled),
        quote! {
            mod m {
                #[round] fn f() {}
                #[shape] fn g(c: bool) { if c { f(); } else { f(); } }
                #[lanes] fn h(#[lane] x: u8) -> u8 {
                    #[unroll] for _ in 0..2 { f(); }
                    x
                }
            }
        },
    );
    let text = out.to_string();
    for want in [
        r#"pub const VARIANTS : & [& str] = & ["never_x8" , "auto_factored_x3_unrolled" , "hint_unrolled"] ;"#,
        "pub mod never_x8",
        "pub const LANES : usize = 8 ;",
        "pub const LANES : usize = 3 ;",
        r#"pub const REFERENCE : & str = "auto_factored_x3_unrolled""#,
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
}

/// A `#[lanes]` body calls another free `#[lanes]` function's copy once
/// for all lanes when every argument fits (a statement, an assignment to a
/// whole lane value, a `let`, the value), and per lane when one does not:
/// an argument with a call in it, a lane value's part, a callee taking
/// another `&mut`.
#[test]
fn lanes_call_lanes() {
    check(
        quote!(policy(auto), lanes(2)),
        quote! {
            mod tiny {
                #[round]
                #[lanes]
                fn q(#[lane] s: &mut [u32; 2], k: &[u32; 2]) {
                    s[0] ^= s[1].rotate_left(k[0]);
                }
                #[lanes]
                fn r(#[lane] x: u32, k: u32) -> u32 {
                    x ^ k
                }
                #[lanes]
                fn t(#[lane] x: u32, n: &mut u32) -> u32 {
                    *n += 1;
                    x
                }
                #[lanes]
                fn g(#[lane] s: &mut [u32; 2], #[lane] mut v: u32, k: &[[u32; 2]; 2], n: &mut u32) -> u32 {
                    q(s, &k[0]);
                    q(s, &k[1 + 0]);
                    q(s, &k[n.count_ones() as usize]);
                    v = r(v, k[0][1]);
                    let w = r(v, 3);
                    let u = r(s[0], 1);
                    let z = t(w, n);
                    r(z ^ u, 2)
                }
            }
        },
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "auto_x2";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["auto_x2"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["q"];
                /// Variant `auto_x2`: every `#[round]` function has no inline attribute (the compiler decides); the `_lanes` copies of `#[lanes]` functions take 2 blocks at once.
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::auto_x2"))]
                pub mod auto_x2 {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "auto_x2";
                    /// How many lane states the `_lanes` copies of `#[lanes]` functions take at once.
                    pub const LANES: usize = 2;
                    /// How many blocks one lane's state holds: the copies take `LANES * LANE_BLOCKS` blocks.
                    pub const LANE_BLOCKS: usize = 1;
                    fn q(s: &mut [u32; 2], k: &[u32; 2]) {
                        s[0] ^= s[1].rotate_left(k[0]);
                    }
                    /// `q` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    fn q_lanes(s: &mut [[u32; 2]; LANES], k: &[u32; 2]) {
                        for lane in 0..LANES {
                            s[lane][0] ^= s[lane][1].rotate_left(k[0]);
                        }
                    }
                    /// `q` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    #[allow(dead_code)]
                    fn q_lanes_n<const LANES: usize>(s: &mut [[u32; 2]; LANES], k: &[u32; 2]) {
                        for lane in 0..LANES {
                            s[lane][0] ^= s[lane][1].rotate_left(k[0]);
                        }
                    }
                    #[inline(always)]
                    fn r(x: u32, k: u32) -> u32 {
                        x ^ k
                    }
                    /// `r` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    fn r_lanes(x: [u32; LANES], k: u32) -> [u32; LANES] {
                        ::core::array::from_fn(|lane| x[lane] ^ k)
                    }
                    /// `r` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    #[allow(dead_code)]
                    fn r_lanes_n<const LANES: usize>(x: [u32; LANES], k: u32) -> [u32; LANES] {
                        ::core::array::from_fn(|lane| x[lane] ^ k)
                    }
                    #[inline(always)]
                    fn t(x: u32, n: &mut u32) -> u32 {
                        *n += 1;
                        x
                    }
                    /// `t` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    fn t_lanes(x: [u32; LANES], n: &mut u32) -> [u32; LANES] {
                        *n += 1;
                        ::core::array::from_fn(|lane| x[lane])
                    }
                    /// `t` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    #[allow(dead_code)]
                    fn t_lanes_n<const LANES: usize>(x: [u32; LANES], n: &mut u32) -> [u32; LANES] {
                        *n += 1;
                        ::core::array::from_fn(|lane| x[lane])
                    }
                    #[inline(always)]
                    fn g(s: &mut [u32; 2], mut v: u32, k: &[[u32; 2]; 2], n: &mut u32) -> u32 {
                        q(s, &k[0]);
                        q(s, &k[1 + 0]);
                        q(s, &k[n.count_ones() as usize]);
                        v = r(v, k[0][1]);
                        let w = r(v, 3);
                        let u = r(s[0], 1);
                        let z = t(w, n);
                        r(z ^ u, 2)
                    }
                    /// `g` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    fn g_lanes(
                        s: &mut [[u32; 2]; LANES],
                        mut v: [u32; LANES],
                        k: &[[u32; 2]; 2],
                        n: &mut u32,
                    ) -> [u32; LANES] {
                        q_lanes(s, &k[0]);
                        q_lanes(s, &k[1 + 0]);
                        for lane in 0..LANES {
                            q(&mut s[lane], &k[n.count_ones() as usize]);
                        }
                        v = r_lanes(v, k[0][1]);
                        let w: [_; LANES] = r_lanes(v, 3);
                        let u: [_; LANES] = ::core::array::from_fn(|lane| r(s[lane][0], 1));
                        let z: [_; LANES] = ::core::array::from_fn(|lane| t(w[lane], n));
                        ::core::array::from_fn(|lane| r(z[lane] ^ u[lane], 2))
                    }
                    /// `g` on `LANES` lanes at once (generated by `#[lanes]`): each statement that reads a lane value runs for every lane before the next statement.
                    #[allow(dead_code)]
                    fn g_lanes_n<const LANES: usize>(
                        s: &mut [[u32; 2]; LANES],
                        mut v: [u32; LANES],
                        k: &[[u32; 2]; 2],
                        n: &mut u32,
                    ) -> [u32; LANES] {
                        q_lanes_n(s, &k[0]);
                        q_lanes_n(s, &k[1 + 0]);
                        for lane in 0..LANES {
                            q(&mut s[lane], &k[n.count_ones() as usize]);
                        }
                        v = r_lanes_n(v, k[0][1]);
                        let w: [_; LANES] = r_lanes_n(v, 3);
                        let u: [_; LANES] = ::core::array::from_fn(|lane| r(s[lane][0], 1));
                        let z: [_; LANES] = ::core::array::from_fn(|lane| t(w[lane], n));
                        ::core::array::from_fn(|lane| r(z[lane] ^ u[lane], 2))
                    }
                }
            }
        "##]],
    );
}

/// A declaration rides on the `@chain` arms of the callback, verbatim,
/// after the module's name, kind and variants.
#[test]
fn declaration_in_the_chain() {
    let out = crate::expand::variants(
        quote!(never, cipher = Tiny, entry(modes: [Ecb: [16]], peers: [])),
        quote! { mod tiny { #[round] fn f() {} pub struct Tiny; } },
    );
    let file: syn::File = syn::parse2(out).expect("the expansion parses as a file");
    let chain = file
        .items
        .iter()
        .find_map(|i| match i {
            syn::Item::Macro(m) if m.ident.as_ref().is_some_and(|n| n == "tiny_variants") => {
                Some(m.mac.tokens.to_string())
            }
            _ => None,
        })
        .expect("tiny_variants! is exported");
    let decl = "entry { cipher : tiny , kind : cipher (Tiny) , variants : [never] , modes : [Ecb : [16]] , peers : [] , libraries : [] }";
    assert!(
        chain.contains(&format!("[$ ($ done) * {decl}] [$ ($ rest) *]")),
        "{chain}"
    );
    assert!(
        chain.contains(&format!("$ cb ! {{ $ ($ done) * {decl} }}")),
        "{chain}"
    );
}

/// `algorithms!` starts the chain at the first module and names the rest.
#[test]
fn algorithms_chain() {
    let out = crate::expand::algorithms(quote!(aes cast6 null)).expect("a list of modules");
    let file: syn::File = syn::parse2(out).expect("the expansion parses as a file");
    expect![[r#"
        /// Calls `$cb! { ROLE { cipher: NAME, kind: ..., variants: [...], FACTS } ... }`
        /// once, with the declaration of every algorithm that has one, in
        /// the order the crate lists them: every other crate's list of
        /// ciphers derives from it.
        #[macro_export]
        macro_rules! all_algorithms {
            ($cb:ident) => {
                $crate::aes_variants! { @ chain[$cb] [] [cast6_variants null_variants] }
            };
        }
    "#]]
    .assert_eq(&prettyplease::unparse(&file));
    let err = crate::expand::algorithms(quote!(aes, cast6)).err();
    assert!(err.is_some(), "modules are listed by name, with no commas");
}

/// Byte extraction by shifts: an array pattern of names bound to
/// `.to_be_bytes()` or `.to_le_bytes()` becomes shifts (with the original
/// kept, unused, as the type check); anything else is left as written.
#[test]
fn byte_extraction() {
    check(
        quote!(auto),
        quote! {
            mod tiny {
                #[round]
                fn f(x: u32, y: u16) -> u32 {
                    let [a, _, c, d] = x.rotate_left(3).to_be_bytes();
                    let [lo, hi] = y.to_le_bytes();
                    let whole = x.to_be_bytes();
                    let [p, q @ .., r] = whole;
                    u32::from(a ^ c ^ d ^ lo ^ hi ^ p ^ r) + u32::from(q.len() as u8)
                }
            }
        },
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "auto";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["auto"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f"];
                /// Variant `auto`: every `#[round]` function has no inline attribute (the compiler decides).
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::auto"))]
                pub mod auto {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "auto";
                    fn f(x: u32, y: u16) -> u32 {
                        let [a, _, c, d] = {
                            let word = x.rotate_left(3);
                            let _: [u8; 4] = word.to_be_bytes();
                            [(word >> 24) as u8, (word >> 16) as u8, (word >> 8) as u8, word as u8]
                        };
                        let [lo, hi] = {
                            let word = y;
                            let _: [u8; 2] = word.to_le_bytes();
                            [word as u8, (word >> 8) as u8]
                        };
                        let whole = x.to_be_bytes();
                        let [p, q @ .., r] = whole;
                        u32::from(a ^ c ^ d ^ lo ^ hi ^ p ^ r) + u32::from(q.len() as u8)
                    }
                }
            }
        "##]],
    );
}

/// Table lookups outermost first: a pure expression's lookups are bound
/// before it, nearest the root first (ties in source order); one already in
/// that order, or one that calls a function, is left as written.
#[test]
fn lookups_outermost_first() {
    check(
        quote!(auto),
        quote! {
            mod tiny {
                #[round]
                fn f(a: usize, b: usize, c: usize, d: usize) -> u32 {
                    let outer = S[0][a] ^ (S[1][b] ^ S[2][c]);
                    let called = (S[0][a] ^ S[1][b]) ^ g(S[2][c]);
                    ((S[0][a] ^ S[1][b]).wrapping_sub(S[2][usize::from(c as u8)]))
                        .wrapping_add(S[3][d])
                        ^ outer
                        ^ called
                }
            }
        },
        expect![[r##"
            #[cfg(any(not(inlinelab_one), inlinelab_cipher = "tiny"))]
            mod tiny {
                /// The variant ratios are taken against unless told otherwise.
                pub const REFERENCE: &str = "auto";
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["auto"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f"];
                /// Variant `auto`: every `#[round]` function has no inline attribute (the compiler decides).
                #[cfg(any(not(inlinelab_one), inlinelab_variant = "tiny::auto"))]
                pub mod auto {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "auto";
                    fn f(a: usize, b: usize, c: usize, d: usize) -> u32 {
                        let outer = S[0][a] ^ (S[1][b] ^ S[2][c]);
                        let called = (S[0][a] ^ S[1][b]) ^ g(S[2][c]);
                        {
                            let lookup0 = S[3][d];
                            let lookup1 = S[2][usize::from(c as u8)];
                            let lookup2 = S[0][a];
                            let lookup3 = S[1][b];
                            ((lookup2 ^ lookup3).wrapping_sub(lookup1)).wrapping_add(lookup0) ^ outer
                                ^ called
                        }
                    }
                }
            }
        "##]],
    );
}

/// A peer crate several declarations name is selected once: `cfg_peer!`
/// leaves out a crate among those seen before.
#[test]
fn cfg_peer_once_per_crate() {
    let first = crate::expand::cfg_peer(quote!(blowfish [cast6] type Selected = u8;)).unwrap();
    assert_eq!(
        first.to_string(),
        quote!(
            #[cfg(feature = "peer-blowfish")]
            type Selected = u8;
        )
        .to_string()
    );
    let again =
        crate::expand::cfg_peer(quote!(blowfish [cast6 blowfish] type Selected = u8;)).unwrap();
    assert!(again.is_empty(), "{again}");
}

/// A declaration is handed on in one fixed form: every part present,
/// `builds` and `hash` as lists, no trailing commas.
#[test]
fn declaration_fixed_form() {
    use crate::declaration::parse;
    use crate::model::{Kind, Role};
    let span = proc_macro2::Span::call_site();
    let cipher = Kind::Cipher(syn::parse_quote!(Tiny));
    let entry = parse(
        Role::Entry,
        quote!(
            peers: [
                "rustcrypto" { keyed: by_length(16 => A, 32 => B,), krate: tiny, label: "t", },
            ],
            modes: [Ecb: [16, 32,], Cbc: [16],],
        ),
        &cipher,
        span,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        entry.to_tokens().to_string(),
        quote!(
            modes: [Ecb: [16, 32], Cbc: [16]],
            peers: ["rustcrypto" { label: "t", krate: tiny, keyed: by_length(16 => A, 32 => B), builds: [] }],
            libraries: []
        )
        .to_string()
    );
    let builds = parse(
        Role::Entry,
        quote!(
            modes: [Ecb: [16]],
            peers: ["rustcrypto" { label: "t", krate: tiny, keyed: cipher(A), builds: [
                "soft" { rustflags: "--cfg soft", label: "s" },
                "zeroize" { label: "z", features: ["zeroize", "std",], },
            ] }],
        ),
        &cipher,
        span,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        builds.to_tokens().to_string(),
        quote!(
            modes: [Ecb: [16]],
            peers: ["rustcrypto" { label: "t", krate: tiny, keyed: cipher(A), builds: [
                "soft" { label: "s", rustflags: ["--cfg soft"], features: [] },
                "zeroize" { label: "z", rustflags: [], features: ["zeroize", "std"] }
            ] }],
            libraries: []
        )
        .to_string()
    );
    let libraries = parse(
        Role::Entry,
        quote!(
            modes: [Ecb: [16], Cbc: [16]],
            peers: [],
            libraries: [
                "libgcrypt" { algorithm: "TINY", library: libgcrypt, label: "g", },
                "openssl" {
                    label: "o", library: openssl, provider: legacy, modes: [Cbc,],
                    algorithm: by_length(16 => "TINY-128", 20..=32 => "TINY-256",),
                },
            ],
        ),
        &cipher,
        span,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        libraries.to_tokens().to_string(),
        quote!(
            modes: [Ecb: [16], Cbc: [16]],
            peers: [],
            libraries: [
                "libgcrypt" {
                    label: "g", library: libgcrypt, algorithm: [0 ..= 1024 => "TINY"],
                    modes: [Ecb, Cbc], provider: []
                },
                "openssl" {
                    label: "o", library: openssl,
                    algorithm: [16 ..= 16 => "TINY-128", 20 ..= 32 => "TINY-256"],
                    modes: [Cbc], provider: [legacy]
                }
            ]
        )
        .to_string()
    );
    let calibration = parse(
        Role::Calibration,
        quote!(kernel: cipher_null, modes: [Ecb: [16]]),
        &cipher,
        span,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        calibration.to_tokens().to_string(),
        quote!(kernel: cipher_null, modes: [Ecb: [16]], hash: []).to_string()
    );
}

/// A library peer the grammar reads but cannot stand: a library of no
/// known kind, one library twice, a name already a peer's, an algorithm's
/// name that is no name, a key length twice, a checksum's; each said at its
/// place.
#[test]
fn library_peers_are_checked() {
    use crate::declaration::parse;
    use crate::model::{Kind, Role};
    let span = proc_macro2::Span::call_site();
    let cipher = Kind::Cipher(syn::parse_quote!(Tiny));
    let error = |kind: &Kind, tokens| match parse(Role::Entry, tokens, kind, span) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect::<Vec<_>>(),
    };
    let lib = |decl| quote!(modes: [Ecb: [16]], peers: [], libraries: [#decl]);
    for (decl, expected) in [
        (
            quote!("x" { label: "x", library: nss, algorithm: "TINY" }),
            "a library peer comes from one of: libgcrypt, openssl",
        ),
        (
            quote!(
                "a" { label: "a", library: openssl, algorithm: "TINY" },
                "b" { label: "b", library: openssl, algorithm: "TINY" }
            ),
            "one peer per library in a declaration",
        ),
        (
            quote!(
                "a" { label: "a", library: openssl, algorithm: "TINY" },
                "a" { label: "b", library: libgcrypt, algorithm: "TINY" }
            ),
            "this name is given twice",
        ),
        (
            quote!("x" { label: "x", library: openssl, algorithm: "TI NY" }),
            "an algorithm's name is letters, digits and `-`",
        ),
        (
            quote!("x" { label: "x", library: openssl, algorithm: by_length(16 => "A", 16 => "B") }),
            "this key length is given twice",
        ),
        (
            quote!("x" { label: "x", library: openssl, algorithm: by_length(16 => "A", 5..=16 => "B") }),
            "this key length is given twice",
        ),
        (
            quote!("x" { label: "x", library: openssl, algorithm: by_length(16..=5 => "A") }),
            "a key length is a whole number of bytes up to 1024",
        ),
        (
            quote!("x" { label: "x", library: openssl, algorithm: "A", modes: [Ctr] }),
            "a library offers modes of the entry's `modes`",
        ),
        (
            quote!("x" { label: "x", library: openssl, algorithm: "A", modes: [Ecb, Ecb] }),
            "this mode is given twice",
        ),
        (
            quote!("x" { label: "x", library: openssl, algorithm: "A", modes: [] }),
            "`modes` names at least one mode the library offers",
        ),
        (
            quote!("x" { label: "x", library: libgcrypt, algorithm: "A", provider: legacy }),
            "a provider is OpenSSL's",
        ),
        (
            quote!("x" { label: "x", library: openssl, algorithm: "A", provider: fips }),
            "a provider is one of: legacy",
        ),
        (
            quote!("x" { label: "x", library: openssl, algorithm: by_length() }),
            "`by_length` names at least one algorithm",
        ),
        (
            quote!("x" { label: "x", library: openssl, algorithm: cipher(A) }),
            "expected the library's name",
        ),
    ] {
        let errors = error(&cipher, lib(decl));
        assert!(
            errors.iter().any(|e| e.contains(expected)),
            "{expected}: {errors:?}"
        );
    }
    let errors = error(
        &Kind::Checksum,
        lib(quote!("x" { label: "x", library: openssl, algorithm: "TINY" })),
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("a library peer is a cipher's")),
        "{errors:?}"
    );
}
