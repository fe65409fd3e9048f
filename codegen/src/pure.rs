//! What the rewrites may evaluate in another order or another number of
//! times: expressions whose evaluation has no effect but their value (and a
//! panic, if an index is out of bounds or arithmetic overflows, which an
//! evaluation in any order still raises).

use syn::Expr;

/// Integer methods that compute their result from their receiver and
/// arguments alone (by value; none takes `&mut self`).
const METHODS: &[&str] = &[
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "wrapping_neg",
    "wrapping_shl",
    "wrapping_shr",
    "rotate_left",
    "rotate_right",
    "swap_bytes",
    "reverse_bits",
];

/// The integer types whose `T::from(x)` converts without side effects.
const INTEGERS: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
];

/// Which calls an expression may make and still be pure.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Calls {
    /// None.
    None,
    /// `T::from(x)` for an integer type `T`, and the integer methods of
    /// [`METHODS`].
    Integer,
}

/// Whether `e` only reads and computes: names, literals, fields, indexing,
/// shared references, tuples and arrays, operators other than assignments,
/// casts, and the `calls` allowed, of such.
pub(crate) fn pure(e: &Expr, calls: Calls) -> bool {
    let p = |e: &Expr| pure(e, calls);
    match e {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Paren(e) => p(&e.expr),
        Expr::Group(e) => p(&e.expr),
        Expr::Reference(r) => r.mutability.is_none() && p(&r.expr),
        Expr::Field(f) => p(&f.base),
        Expr::Index(i) => p(&i.expr) && p(&i.index),
        Expr::Unary(u) => p(&u.expr),
        Expr::Cast(c) => p(&c.expr),
        Expr::Binary(b) => !is_assign_op(&b.op) && p(&b.left) && p(&b.right),
        Expr::Tuple(t) => t.elems.iter().all(p),
        Expr::Array(a) => a.elems.iter().all(p),
        Expr::MethodCall(m) if calls == Calls::Integer => {
            m.turbofish.is_none()
                && METHODS.contains(&m.method.to_string().as_str())
                && p(&m.receiver)
                && m.args.iter().all(p)
        }
        Expr::Call(c) if calls == Calls::Integer => {
            c.args.len() == 1 && integer_from(&c.func) && c.args.iter().all(p)
        }
        _ => false,
    }
}

/// Whether `op` is a compound assignment, `+=` to `>>=`.
pub(crate) fn is_assign_op(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// `u32::from`, `usize::from`, ...: the conversion of an integer type.
fn integer_from(func: &Expr) -> bool {
    let Expr::Path(path) = func else {
        return false;
    };
    let segments = &path.path.segments;
    path.qself.is_none()
        && segments.len() == 2
        && segments.iter().all(|s| s.arguments.is_none())
        && segments[1].ident == "from"
        && INTEGERS.iter().any(|i| segments[0].ident == *i)
}
