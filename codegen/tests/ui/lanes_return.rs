#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    #[lanes]
    pub fn g(#[lane] x: u32) -> u32 {
        if x > 3 {
            return 0;
        }
        f(x)
    }

}

fn main() {}
