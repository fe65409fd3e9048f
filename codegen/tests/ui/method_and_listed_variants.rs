#[codegen::variants(never, checksum)]
mod m {
    #[method(auto)]
    mod slow {
        #[round]
        fn f() {}
    }
}

fn main() {}
