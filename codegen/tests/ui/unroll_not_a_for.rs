#[codegen::variants(never_unrolled)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    pub fn g(mut x: u32) -> u32 {
        #[unroll]
        while x < 10 {
            x = f(x);
        }
        #[unroll]
        for i in 0..2 {
            x = f(x) + i;
        }
        x
    }

}

fn main() {}
