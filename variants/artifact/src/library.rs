//! What a C library's peer shares, whichever library (`libgcrypt.rs`,
//! `openssl.rs`): the algorithm and block size `cargo xtask` names at build
//! time, and what a mode leaves in the IV, which the libraries keep inside
//! their own state.

use abi::Op;

/// The library's name for the algorithm by key length (`0=CAST5`,
/// `16=AES,24=AES192,32=AES256`), as `cargo xtask` builds this peer.
pub const ALGORITHM: &str = env!(
    "INLINELAB_LIBRARY_ALGORITHM",
    "a library peer's artifact is built by cargo xtask, which names its algorithm"
);

/// The cipher's block size in bytes, as `cargo xtask` builds this peer.
pub const BLOCK: usize = super::parse_usize(env!(
    "INLINELAB_LIBRARY_BLOCK",
    "a library peer's artifact is built by cargo xtask, which gives its block size"
));

const _: () = assert!(BLOCK >= 1 && BLOCK <= 16, "a block of 1 to 16 bytes");

/// The longest key kept (XTS's two keys of 32 bytes).
pub const MAX_KEY: usize = 64;

/// The library's name for the algorithm under a key of `len` bytes.
pub fn name_for(len: usize) -> Option<&'static str> {
    ALGORITHM.split(',').find_map(|pair| {
        let (l, name) = pair.split_once('=')?;
        (l == "0" || super::parse_usize(l) == len).then_some(name)
    })
}

/// `name` then `suffix` as a C string (NUL-terminated), if it fits.
pub fn c_name(name: &str, suffix: &str) -> Option<[u8; 32]> {
    let mut c = [0u8; 32];
    let len = name.len() + suffix.len();
    if len >= c.len() {
        return None;
    }
    c[..name.len()].copy_from_slice(name.as_bytes());
    c[name.len()..len].copy_from_slice(suffix.as_bytes());
    Some(c)
}

/// What a mode leaves in the IV, as `variants::modes` leaves it: CBC the
/// last ciphertext block (for decryption, kept before the buffer is
/// overwritten), CTR the counter advanced by one per block.
pub struct Chain {
    last: [u8; 16],
}

impl Chain {
    /// Before the library runs `op` over `buf`.
    pub fn before(op: Op, buf: &[u8]) -> Chain {
        let mut last = [0u8; 16];
        if op == Op::CbcDecrypt && buf.len() >= BLOCK {
            last[..BLOCK].copy_from_slice(&buf[buf.len() - BLOCK..]);
        }
        Chain { last }
    }

    /// After it: the IV as the mode leaves it.
    pub fn after(&self, op: Op, iv: &mut [u8], buf: &[u8]) {
        match op {
            Op::CbcEncrypt if buf.len() >= BLOCK => iv.copy_from_slice(&buf[buf.len() - BLOCK..]),
            Op::CbcDecrypt if buf.len() >= BLOCK => iv.copy_from_slice(&self.last[..BLOCK]),
            Op::CtrEncrypt | Op::CtrDecrypt => add(iv, buf.len().div_ceil(BLOCK)),
            _ => {}
        }
    }
}

/// `counter += n`, big-endian over the whole block (as the CTR of
/// `variants::modes` advances it).
fn add(counter: &mut [u8], n: usize) {
    let mut carry = n as u128;
    for byte in counter.iter_mut().rev() {
        if carry == 0 {
            break;
        }
        let sum = u128::from(*byte) + (carry & 0xff);
        *byte = sum as u8;
        carry = (carry >> 8) + (sum >> 8);
    }
}
