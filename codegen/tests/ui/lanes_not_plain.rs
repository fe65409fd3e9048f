#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    #[lanes]
    pub const fn g(#[lane] x: u32) -> u32 {
        x
    }

}

fn main() {}
