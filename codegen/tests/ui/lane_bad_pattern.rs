#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    #[lanes]
    pub fn g(#[lane] [a, b]: [u32; 2]) -> u32 {
        f(a) + b
    }

}

fn main() {}
