// `lane_blocks = N` on a `#[method]`: an integer from 2 up (1 is the
// default, left out), given once. The method that gets it right passes.
#[codegen::variants(cipher = Tiny)]
mod tiny {
    #[method(policy(never), lanes(2), lane_blocks = 1)]
    mod one {
        #[round]
        fn f() {}
        #[lanes]
        fn g(#[lane] x: &mut u32) {
            f();
            *x += 1;
        }
    }

    #[method(policy(never), lanes(4), lane_blocks = 2, lane_blocks = 4)]
    mod twice {
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
