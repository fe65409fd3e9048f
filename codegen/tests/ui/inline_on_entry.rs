// A `#[lanes]` function that is not a `#[round]` is the one-block path's
// entry, which every variant inlines: an inline attribute of its own would
// contradict it.
#[codegen::variants(policy(auto), lanes(1, 2))]
mod tiny {
    #[round]
    fn f(x: u32) -> u32 {
        x ^ 1
    }

    #[inline(never)]
    #[lanes]
    pub fn encrypt(#[lane] s: &mut [u32; 2]) {
        s[0] = f(s[0]);
    }
}

fn main() {}
