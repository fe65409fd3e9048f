//! tcrypt's output lines, character for character (`crypto/tcrypt.c`).

use crate::engine::Dir;

/// `testing speed of ecb(cast6) (cast6-never) encryption`
pub fn cipher_header(alg: &str, driver: &str, dir: Dir) -> String {
    format!("testing speed of {alg} ({driver}) {}", dir.noun())
}

/// Cycles mode: `test 0 (128 bit key, 16 byte blocks): 1 operation in 929 cycles (16 bytes)`
pub fn cipher_cycles(test: usize, key_bytes: usize, block: usize, cycles: u64) -> String {
    format!(
        "test {test} ({} bit key, {block} byte blocks): 1 operation in {cycles} cycles ({block} bytes)",
        key_bytes * 8
    )
}

/// Seconds mode: `test 0 (64 bit key, 16 byte blocks): 118241789 operations in 30 seconds (1891868624 bytes)`
pub fn cipher_seconds(test: usize, key_bytes: usize, block: usize, ops: u64, secs: f64) -> String {
    format!(
        "test {test} ({} bit key, {block} byte blocks): {ops} operations in {} seconds ({} bytes)",
        key_bytes * 8,
        seconds(secs),
        ops * block as u64
    )
}

/// Key setup (`tcrypt --setkey`), which the kernel's tcrypt does not time:
/// `testing speed of ecb(cast6) (cast6-never) key setup`.
pub fn setkey_header(alg: &str, driver: &str) -> String {
    format!("testing speed of {alg} ({driver}) key setup")
}

/// Key setup, cycles mode: the cipher line without its block size and
/// bytes, which key setup does not have:
/// `test 0 (128 bit key): 1 operation in 1520 cycles`.
pub fn setkey_cycles(test: usize, key_bytes: usize, cycles: u64) -> String {
    format!(
        "test {test} ({} bit key): 1 operation in {cycles} cycles",
        key_bytes * 8
    )
}

/// Key setup, seconds mode: `test 0 (128 bit key): 1234567 operations in 1 seconds`.
pub fn setkey_seconds(test: usize, key_bytes: usize, ops: u64, secs: f64) -> String {
    format!(
        "test {test} ({} bit key): {ops} operations in {} seconds",
        key_bytes * 8,
        seconds(secs)
    )
}

/// `testing speed of digest_null (digest_null-auto)`
pub fn hash_header(alg: &str, driver: &str) -> String {
    format!("testing speed of {alg} ({driver})")
}

fn hash_prefix(test: usize, block: usize, update: usize) -> String {
    format!(
        "test{test:3} ({block:5} byte blocks,{update:5} bytes per update,{:4} updates): ",
        block / update
    )
}

/// Cycles mode, from the sum of 8 measured operations:
/// `test  0 (   16 byte blocks,   16 bytes per update,   1 updates):    190 cycles/operation,   11 cycles/byte`
pub fn hash_cycles(test: usize, block: usize, update: usize, cycles_of_8: u64) -> String {
    format!(
        "{}{:6} cycles/operation, {:4} cycles/byte",
        hash_prefix(test, block, update),
        cycles_of_8 / 8,
        cycles_of_8 / (8 * block as u64)
    )
}

/// Seconds mode: `... updates): 1234567 opers/sec, 123456789 bytes/sec`
pub fn hash_seconds(test: usize, block: usize, update: usize, ops: u64, secs: f64) -> String {
    let per_sec = (ops as f64 / secs) as u64;
    format!(
        "{}{per_sec:6} opers/sec, {:9} bytes/sec",
        hash_prefix(test, block, update),
        per_sec * block as u64
    )
}

/// Whole seconds as tcrypt prints them (`1`), fractions as given (`0.5`).
fn seconds(secs: f64) -> String {
    if secs.fract() == 0.0 {
        format!("{}", secs as u64)
    } else {
        format!("{secs}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Golden lines: the first from the 2008 cast6 mail, the others from the
    /// kernel's format strings with fixed numbers.
    #[test]
    fn lines() {
        let check = |got: String, want: &str| assert_eq!(got, want);
        check(
            cipher_header("ecb(cast6)", "cast6-never", Dir::Encrypt),
            "testing speed of ecb(cast6) (cast6-never) encryption",
        );
        check(
            cipher_cycles(0, 16, 16, 929),
            "test 0 (128 bit key, 16 byte blocks): 1 operation in 929 cycles (16 bytes)",
        );
        check(
            cipher_seconds(0, 8, 16, 118241789, 30.0),
            "test 0 (64 bit key, 16 byte blocks): 118241789 operations in 30 seconds (1891868624 bytes)",
        );
        check(
            cipher_seconds(3, 32, 1424, 10, 0.5),
            "test 3 (256 bit key, 1424 byte blocks): 10 operations in 0.5 seconds (14240 bytes)",
        );
        check(
            setkey_header("ecb(cast6)", "cast6-never"),
            "testing speed of ecb(cast6) (cast6-never) key setup",
        );
        check(
            setkey_cycles(1, 32, 1520),
            "test 1 (256 bit key): 1 operation in 1520 cycles",
        );
        check(
            setkey_seconds(0, 16, 1234567, 1.0),
            "test 0 (128 bit key): 1234567 operations in 1 seconds",
        );
        check(
            hash_header("digest_null", "digest_null-auto"),
            "testing speed of digest_null (digest_null-auto)",
        );
        check(
            hash_cycles(0, 16, 16, 190 * 8 + 7),
            "test  0 (   16 byte blocks,   16 bytes per update,   1 updates):    190 cycles/operation,   11 cycles/byte",
        );
        check(
            hash_cycles(17, 8192, 16, 27042 * 8),
            "test 17 ( 8192 byte blocks,   16 bytes per update, 512 updates):  27042 cycles/operation,    3 cycles/byte",
        );
        check(
            hash_seconds(5, 256, 256, 3_000_000, 2.0),
            "test  5 (  256 byte blocks,  256 bytes per update,   1 updates): 1500000 opers/sec, 384000000 bytes/sec",
        );
    }
}
