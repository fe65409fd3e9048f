#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    pub fn g(mut x: u32) -> u32 {
        #[unroll]
        for ref i in 0..4 {
            x = f(x) + i;
        }
        x
    }

}

fn main() {}
