#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    #[lanes]
    pub fn g(#[lane] x: &mut u32) -> u32 {
        let mut sum = 0;
        for _ in 0..2 {
            *x = f(*x);
            sum += *x;
        }
        sum
    }

}

fn main() {}
