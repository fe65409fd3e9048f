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
        expect![[r#"
            pub mod tiny {
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["always"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f", "C::g"];
                use crate::tables::S;
                static T: [u8; 2] = [1, 2];
                /// Variant `always`: every `#[round]` function has `#[inline(always)]`.
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
        "#]],
    );
}

#[test]
fn never() {
    check(
        quote!(never),
        tiny(),
        expect![[r#"
        pub mod tiny {
            /// The variants of this module, in the order asked for; each names a child module.
            pub const VARIANTS: &[&str] = &["never"];
            /// The `#[round]` functions, whose inline attribute differs between variants.
            pub const ROUNDS: &[&str] = &["f", "C::g"];
            use crate::tables::S;
            static T: [u8; 2] = [1, 2];
            /// Variant `never`: every `#[round]` function has `#[inline(never)]`.
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
    "#]],
    );
}

#[test]
fn hint() {
    check(
        quote!(hint),
        tiny(),
        expect![[r#"
        pub mod tiny {
            /// The variants of this module, in the order asked for; each names a child module.
            pub const VARIANTS: &[&str] = &["hint"];
            /// The `#[round]` functions, whose inline attribute differs between variants.
            pub const ROUNDS: &[&str] = &["f", "C::g"];
            use crate::tables::S;
            static T: [u8; 2] = [1, 2];
            /// Variant `hint`: every `#[round]` function has `#[inline]`.
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
    "#]],
    );
}

#[test]
fn auto() {
    check(
        quote!(auto),
        tiny(),
        expect![[r#"
        pub mod tiny {
            /// The variants of this module, in the order asked for; each names a child module.
            pub const VARIANTS: &[&str] = &["auto"];
            /// The `#[round]` functions, whose inline attribute differs between variants.
            pub const ROUNDS: &[&str] = &["f", "C::g"];
            use crate::tables::S;
            static T: [u8; 2] = [1, 2];
            /// Variant `auto`: every `#[round]` function has no inline attribute (the compiler decides).
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
    "#]],
    );
}

#[test]
fn feature_gate() {
    check(
        quote!(never, auto, feature_gate = "tiny"),
        quote! { mod tiny { #[round] fn f() {} } },
        expect![[r#"
            mod tiny {
                /// The variants of this module, in the order asked for; each names a child module.
                pub const VARIANTS: &[&str] = &["never", "auto"];
                /// The `#[round]` functions, whose inline attribute differs between variants.
                pub const ROUNDS: &[&str] = &["f"];
                /// Variant `never`: every `#[round]` function has `#[inline(never)]`.
                #[cfg(any(feature = "all-variants", feature = "tiny-never"))]
                pub mod never {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "never";
                    #[inline(never)]
                    fn f() {}
                }
                /// Variant `auto`: every `#[round]` function has no inline attribute (the compiler decides).
                #[cfg(any(feature = "all-variants", feature = "tiny-auto"))]
                pub mod auto {
                    #![allow(unused_imports)]
                    use super::*;
                    /// This variant's name, as listed in `VARIANTS`.
                    pub const VARIANT: &str = "auto";
                    fn f() {}
                }
            }
        "#]],
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
                "unknown variant `sometimes`: expected one of always, never, hint, auto"
            }
        "#]],
    );
}
