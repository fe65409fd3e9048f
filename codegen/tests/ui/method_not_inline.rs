#[codegen::variants(checksum)]
mod m {
    #[round]
    fn f() {}
    #[method(auto)]
    mod elsewhere;
}

fn main() {}
