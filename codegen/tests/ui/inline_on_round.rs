#[codegen::variants(always, never)]
mod m {
    #[round]
    #[inline]
    fn f() {}
}

fn main() {}
