#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    #[lanes]
    pub fn g(#[lane] x: &mut [u32; 2]) {
        let first = &mut x[0];
        *first = f(*first);
    }
}

fn main() {}
