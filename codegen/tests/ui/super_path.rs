const K: u8 = 1;

#[codegen::variants(never)]
mod m {
    #[round]
    fn f() -> u8 {
        super::K
    }
}

fn main() {}
