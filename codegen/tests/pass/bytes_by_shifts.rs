//! Byte extraction by shifts gives the bytes `to_be_bytes` and
//! `to_le_bytes` give, for every width the rewrite takes (u16, u32, u64),
//! on values with every byte distinct and at the edges.

// The selection cfgs are `variants`' own (its build script declares them).
#![allow(unexpected_cfgs)]

#[codegen::variants(policy(auto))]
mod m {
    #[round]
    pub fn be32(x: u32) -> [u8; 4] {
        let [a, b, c, d] = x.to_be_bytes();
        [a, b, c, d]
    }

    #[round]
    pub fn le32(x: u32) -> [u8; 4] {
        let [a, b, c, d] = x.to_le_bytes();
        [a, b, c, d]
    }

    #[round]
    pub fn be16(x: u16) -> [u8; 2] {
        let [a, b] = x.to_be_bytes();
        [a, b]
    }

    #[round]
    pub fn be64(x: u64) -> [u8; 8] {
        let [a, b, c, d, e, f, g, h] = x.wrapping_add(1).to_be_bytes();
        [a, b, c, d, e, f, g, h]
    }

    #[round]
    pub fn wild(x: u32) -> u8 {
        let [_, b, _, d] = x.to_be_bytes();
        b ^ d
    }
}

fn main() {
    for x in [0u64, 1, u64::MAX, 0x0102_0304_0506_0708, 0xf0e1_d2c3_b4a5_9687] {
        let w = x as u32;
        assert_eq!(m::auto::be32(w), w.to_be_bytes());
        assert_eq!(m::auto::le32(w), w.to_le_bytes());
        assert_eq!(m::auto::be16(x as u16), (x as u16).to_be_bytes());
        assert_eq!(m::auto::be64(x), x.wrapping_add(1).to_be_bytes());
        let [_, b, _, d] = w.to_be_bytes();
        assert_eq!(m::auto::wild(w), b ^ d);
    }
}
