#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    pub fn g(mut x: u32) -> u32 {
        #[unroll]
        for i in 0..4 {
            if i == 2 {
                continue;
            }
            x = f(x);
        }
        x
    }

}

fn main() {}
