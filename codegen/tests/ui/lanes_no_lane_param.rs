#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    #[lanes]
    pub fn g(x: &mut u32) {
        *x = f(*x);
    }

}

fn main() {}
