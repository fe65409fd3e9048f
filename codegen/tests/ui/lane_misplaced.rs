#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    pub fn g(#[lane] x: u32) -> u32 {
        f(x)
    }

}

fn main() {}
