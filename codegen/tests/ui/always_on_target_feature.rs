// `always` on a method whose `#[round]` has `#[target_feature]`: Rust
// refuses `#[inline(always)]` there, so the macro says which policy to
// leave out, at the function's attribute. The other method and the
// policies Rust takes pass.
#[codegen::variants(cipher = Tiny)]
mod tiny {
    #[method(always, never)]
    mod plain {
        #[round]
        fn f() {}
    }

    #[method(policy(always, hint, auto))]
    mod simd {
        #[round]
        #[target_feature(enable = "sse4.2")]
        fn g() {}
    }

    #[method(never, hint, auto)]
    mod fine {
        #[round]
        #[target_feature(enable = "sse4.2")]
        fn h() {}
    }
}

fn main() {}
