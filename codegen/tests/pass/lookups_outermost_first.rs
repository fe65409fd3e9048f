//! Table lookups bound outermost first compute what the expression as
//! written computes: CAST's three round functions' shapes, on a `const`
//! table and on a table passed by reference, with a local of the user's
//! named like the macro's bindings (which are hygienic), on every index;
//! and a comparison of elements that are not `Copy` beside them.

// The selection cfgs are `variants`' own (its build script declares them).
#![allow(unexpected_cfgs)]

const T: [[u32; 4]; 4] = [
    [0x0123_4567, 0x89ab_cdef, 0xdead_beef, 0xffff_ffff],
    [0x1357_9bdf, 0x0246_8ace, 0x8000_0000, 0x0000_0001],
    [0xf0f0_f0f0, 0x0f0f_0f0f, 0x7fff_ffff, 0x1234_5678],
    [0xcafe_babe, 0x0bad_f00d, 0xffff_0000, 0x0000_ffff],
];

#[codegen::variants(policy(auto))]
mod m {
    use super::T;

    #[round]
    pub fn f1(a: usize, b: usize, c: usize, d: usize) -> u32 {
        ((T[0][a] ^ T[1][b]).wrapping_sub(T[2][c])).wrapping_add(T[3][d])
    }

    #[round]
    pub fn f2(a: usize, b: usize, c: usize, d: usize) -> u32 {
        let lookup0 = 5u32;
        (T[0][a].wrapping_sub(T[1][b])).wrapping_add(T[2][c]) ^ T[3][d] ^ lookup0
    }

    #[round]
    pub fn f3(t: &[[u32; 4]; 4], x: u8) -> u32 {
        let [a, b, c, d] = [x & 3, (x >> 2) & 3, (x >> 4) & 3, x >> 6];
        let f = ((t[0][usize::from(a)].wrapping_add(t[1][usize::from(b)])) ^ t[2][usize::from(c)])
            .wrapping_sub(t[3][usize::from(d)]);
        f.rotate_left(u32::from(x & 31))
    }

    /// A comparison borrows its operands: `String`s, which a binding
    /// would move out of the array, stay where they are.
    #[round]
    pub fn compared(names: &[String; 2], t: &[[u32; 4]; 4], a: usize) -> u32 {
        (t[0][a] ^ t[1][a]).wrapping_add(t[2][a]) ^ u32::from(names[0] == names[1])
    }
}

fn main() {
    let names = [String::from("a"), String::from("b")];
    for a in 0..4 {
        let f = (T[0][a] ^ T[1][a]).wrapping_add(T[2][a]);
        assert_eq!(m::auto::compared(&names, &T, a), f);
    }
    for x in 0..=255u8 {
        let [a, b, c, d] = [x & 3, (x >> 2) & 3, (x >> 4) & 3, x >> 6].map(usize::from);
        let f1 = ((T[0][a] ^ T[1][b]).wrapping_sub(T[2][c])).wrapping_add(T[3][d]);
        assert_eq!(m::auto::f1(a, b, c, d), f1);
        let f2 = (T[0][a].wrapping_sub(T[1][b])).wrapping_add(T[2][c]) ^ T[3][d] ^ 5;
        assert_eq!(m::auto::f2(a, b, c, d), f2);
        let f3 = ((T[0][a].wrapping_add(T[1][b])) ^ T[2][c]).wrapping_sub(T[3][d]);
        assert_eq!(m::auto::f3(&T, x), f3.rotate_left(u32::from(x & 31)));
    }
}
