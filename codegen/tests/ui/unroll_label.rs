#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    pub fn g(mut x: u32) -> u32 {
        #[unroll]
        'rounds: for _ in 0..4 {
            if x > 3 {
                continue 'rounds;
            }
            x = f(x);
        }
        x
    }

}

fn main() {}
