#[codegen::variants(never)]
mod m {
    #[round]
    static TABLE: [u8; 2] = [0, 1];
    #[round]
    fn f() -> u8 {
        TABLE[0]
    }
}

fn main() {}
