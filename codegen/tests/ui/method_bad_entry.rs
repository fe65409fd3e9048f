#[codegen::variants(checksum)]
mod m {
    #[round]
    fn f(x: u32) -> u32 {
        x + 1
    }

    #[method(never, speed = 1)]
    mod slow {
        pub fn g() {}
    }

}

fn main() {}
