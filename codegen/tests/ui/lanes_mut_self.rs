#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    pub struct S(u32);
    impl S {
        #[lanes]
        pub fn g(&mut self, #[lane] x: &mut u32) {
            *x = f(*x + self.0);
        }
    }

}

fn main() {}
