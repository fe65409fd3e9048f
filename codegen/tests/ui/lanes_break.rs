#[codegen::variants(never)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    #[lanes]
    pub fn g(#[lane] x: &mut u32) {
        for i in 0..4 {
            *x = f(*x);
            if *x > i {
                break;
            }
        }
    }

}

fn main() {}
