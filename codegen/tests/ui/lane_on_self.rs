#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    pub struct S;
    impl S {
        #[lanes]
        pub fn g(#[lane] &self, #[lane] x: &mut u32) {
            *x = f(*x);
        }
    }

}

fn main() {}
