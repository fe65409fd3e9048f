// Byte extraction by shifts keeps the original's type check: two names for
// the four bytes of a u32 fail to compile, as they would have unrewritten.
#![allow(unexpected_cfgs)]

#[codegen::variants(policy(auto))]
mod tiny {
    #[round]
    pub fn f(x: u32) -> u8 {
        let [a, b] = x.to_be_bytes();
        a ^ b
    }
}

fn main() {}
