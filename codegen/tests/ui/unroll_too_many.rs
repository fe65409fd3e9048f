#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    pub fn g(mut x: u32) -> u32 {
        #[unroll]
        for _ in 0..=64 {
            x = f(x);
        }
        x
    }

}

fn main() {}
