#[codegen::variants(never, feature_gate = 3, speed = "fast")]
mod m {
    #[round]
    fn f() {}
}

fn main() {}
