#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    #[lanes]
    pub fn g(#[lane] x: u32) -> impl Copy {
        f(x)
    }

}

fn main() {}
