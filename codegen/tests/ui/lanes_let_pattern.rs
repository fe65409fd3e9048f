#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    #[lanes]
    pub fn g(#[lane] x: [u32; 2]) -> u32 {
        let [a, b] = x;
        f(a) ^ b
    }

}

fn main() {}
