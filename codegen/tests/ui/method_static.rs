#[codegen::variants(checksum)]
mod m {
    #[method(never)]
    mod slow {
        static T: [u8; 1] = [0];
        #[round]
        fn f() -> u8 {
            T[0]
        }
    }
}

fn main() {}
