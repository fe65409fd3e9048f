#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    #[lanes]
    pub struct S(u32);
    pub trait T {
        fn g(&self, x: u32) -> u32;
    }
    impl T for S {
        #[lanes]
        fn g(&self, #[lane] x: u32) -> u32 {
            f(x + self.0)
        }
    }

}

fn main() {}
