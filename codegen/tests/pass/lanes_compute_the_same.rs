//! The `_lanes` copy of a function using each kind of statement the
//! rewrite knows computes, lane by lane, what the function computes, and
//! so does one that calls another `#[lanes]` function on all lanes at once.

// The selection cfgs are `variants`' own (its build script declares them).
#![allow(unexpected_cfgs)]

#[codegen::variants(policy(never, auto), lanes(1, 3), unroll(rolled, unrolled))]
mod m {
    #[round]
    fn f(x: u32, k: u32) -> u32 {
        x.rotate_left(5) ^ k
    }

    pub struct Pair {
        pub a: u32,
        pub b: u32,
    }

    pub struct Keys(pub [u32; 4]);

    impl Keys {
        #[lanes]
        pub fn g(&self, #[lane] s: &mut [u32; 2], #[lane] t: u32, #[lane] r: &u32) -> Pair {
            let k0 = self.0[0];
            let mut x: u32 = s[0] ^ t;
            #[unroll]
            for i in 0..4 {
                let k = self.0[i];
                x = f(x, k);
                s[1] ^= x;
            }
            if k0 > 7 {
                s[0] = s[0].wrapping_add(*r);
            } else if x & 1 == 1 {
                s[0] ^= 1;
            } else {
                s[0] ^= 2;
            }
            let mut n = 0;
            while n < 2 {
                x = f(x, n);
                n += 1;
            }
            for (i, w) in s.iter_mut().enumerate() {
                *w ^= i as u32;
            }
            let a = x;
            Pair { a, b: s[1] ^ *r }
        }
    }

    /// A `#[lanes]` function that `steps` calls on all lanes at once.
    #[round]
    #[lanes]
    pub fn step(#[lane] s: &mut [u32; 2], k: &[u32; 4], i: usize) {
        s[0] ^= f(s[1], k[i]);
        s[1] = s[1].wrapping_add(s[0]);
    }

    #[lanes]
    pub fn steps(#[lane] s: &mut [u32; 2], #[lane] y: u64, k: &[u32; 4]) -> u64 {
        #[unroll]
        for i in 0..4 {
            step(s, k, i);
        }
        let z = h(y);
        z ^ u64::from(s[0])
    }

    #[lanes]
    pub fn h(#[lane] mut y: u64) -> u64 {
        #[unroll]
        for i in (1u64..=3).rev() {
            y = y.wrapping_mul(i + 1);
        }
        y
    }
}

fn main() {
    macro_rules! each {
        ($($v:ident)*) => {$({
            use m::$v::*;
            let keys = Keys([3, 9, 0x1234_5678, 0xdead_beef]);
            for seed in 0..20u32 {
                let mut s: [[u32; 2]; LANES] = core::array::from_fn(|l| [seed * 7 + l as u32, seed ^ 0x55]);
                let t: [u32; LANES] = core::array::from_fn(|l| seed.wrapping_mul(31) + l as u32);
                let r: [u32; LANES] = core::array::from_fn(|l| (l as u32) << seed % 8);
                let mut one = s;
                let want: Vec<(u32, u32)> = (0..LANES)
                    .map(|l| {
                        let p = keys.g(&mut one[l], t[l], &r[l]);
                        (p.a, p.b)
                    })
                    .collect();
                let got: Vec<(u32, u32)> = keys.g_lanes(&mut s, t, &r).iter().map(|p| (p.a, p.b)).collect();
                assert_eq!(got, want, "{}", VARIANT);
                assert_eq!(s, one, "{}", VARIANT);
                let y: [u64; LANES] = core::array::from_fn(|l| u64::from(seed) + l as u64);
                assert_eq!(h_lanes(y), y.map(h), "{}", VARIANT);
                let mut s2 = s;
                let want: Vec<u64> = (0..LANES).map(|l| steps(&mut s2[l], y[l], &keys.0)).collect();
                assert_eq!(steps_lanes(&mut s, y, &keys.0).to_vec(), want, "{}", VARIANT);
                assert_eq!(s, s2, "{}", VARIANT);
            }
        })*};
    }
    each!(never never_unrolled never_x3 never_x3_unrolled auto auto_unrolled auto_x3 auto_x3_unrolled);
}
