#[codegen::variants(never_factored)]
mod m {
    fn next() -> bool {
        true
    }

    #[round]
    fn step(x: u32) -> u32 {
        x + 1
    }

    #[shape]
    pub fn f(mut x: u32) -> u32 {
        if next() {
            x = step(x);
            x * 2
        } else {
            x = step(x);
            x * 3
        }
    }
}

fn main() {}
