#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    #[lanes]
    pub fn g(#[lane] x: &mut [u32]) {
        x[0] = f(x[0]);
    }

}

fn main() {}
