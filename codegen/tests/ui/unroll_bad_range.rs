#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    pub fn g(mut x: u32, n: u32) -> u32 {
        #[unroll]
        for i in 0..n {
            x = f(x) + i;
        }
        #[unroll]
        for i in [1, 2] {
            x = f(x) + i;
        }
        x
    }

}

fn main() {}
