//! Valgrind's client requests, by the sequence `valgrind.h` documents for
//! amd64: a no-op outside valgrind, a request to the tool inside it.

/// `VG_USERREQ_TOOL_BASE('M','C')`: memcheck's requests.
const MEMCHECK: u64 = ((b'M' as u64) << 24) | ((b'C' as u64) << 16);
/// `VG_USERREQ__MAKE_MEM_UNDEFINED`.
const MAKE_MEM_UNDEFINED: u64 = MEMCHECK + 1;
/// `VG_USERREQ__MAKE_MEM_DEFINED`.
const MAKE_MEM_DEFINED: u64 = MEMCHECK + 2;

#[cfg(target_arch = "x86_64")]
fn request(code: u64, addr: *const u8, len: usize) {
    let args: [u64; 6] = [code, addr as u64, len as u64, 0, 0, 0];
    let mut result: u64 = 0;
    // SAFETY: the special instruction preamble of valgrind.h (four
    // rotations of rdi by 128 bits in all, which leave it as it was,
    // then `xchg rbx, rbx`, which changes nothing) reads the request
    // from the six words `rax` points to and writes its answer to
    // `rdx`; outside valgrind it is a no-op that leaves `rdx` as it
    // was. `args` lives across the asm; rdi is declared clobbered.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") result,
            out("rdi") _,
        );
    }
    std::hint::black_box(result);
}

#[cfg(not(target_arch = "x86_64"))]
fn request(_code: u64, _addr: *const u8, _len: usize) {}

/// Memcheck takes `bytes` as undefined: a secret.
pub(super) fn undefined(bytes: &[u8]) {
    request(MAKE_MEM_UNDEFINED, bytes.as_ptr(), bytes.len());
}

/// Memcheck takes `bytes` as defined again.
pub(super) fn defined(bytes: &[u8]) {
    request(MAKE_MEM_DEFINED, bytes.as_ptr(), bytes.len());
}
