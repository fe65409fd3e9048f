#[codegen::variants(checksum)]
mod m {
    #[method()]
    mod slow {
        #[round]
        fn f() {}
    }
}

fn main() {}
