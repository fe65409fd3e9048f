// `lane_blocks = N` on a `#[method]`: the blocks one lane's state holds,
// so its lane counts are multiples of it; the variant that is not is
// named. The method that gets it right passes.
#[codegen::variants(cipher = Tiny)]
mod tiny {
    #[method(policy(never), lanes(2, 3), lane_blocks = 2)]
    mod odd {
        #[round]
        fn f() {}
        #[lanes]
        fn g(#[lane] x: &mut u32) {
            f();
            *x += 1;
        }
    }

    #[method(policy(auto), lanes(2, 8), lane_blocks = 2)]
    mod fine {
        #[round]
        fn f() {}
        #[lanes]
        fn g(#[lane] x: &mut u32) {
            f();
            *x += 1;
        }
    }
}

fn main() {}
