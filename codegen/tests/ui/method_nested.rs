#[codegen::variants(checksum)]
mod m {
    #[method(auto)]
    mod slow {
        #[round]
        fn f() {}
        #[method(never)]
        mod slower {}
    }
}

fn main() {}
