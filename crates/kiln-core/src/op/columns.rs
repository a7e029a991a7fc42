//! Column forms of a scalar [`Kernel`](super::Kernel): the same function applied over a whole
//! run of floats in one loop, so a batch pays one indirect call instead of one per element
//! and the loop can be vectorised. Each form writes into the column it is given (`out`),
//! reading each element before writing it.
//!
//! The [`unary_columns!`](crate::unary_columns) and
//! [`binary_columns!`](crate::binary_columns) macros make them from the very closure an op's
//! scalar kernel is, so both give the same bits (Rust does not contract `a * b + c` into a
//! fused multiply-add, so a vectorised loop rounds as the scalar one does).

/// The column forms of an op's scalar kernel (see [`Op::columns`](super::Op::columns)).
#[derive(Clone, Copy, Debug)]
pub enum Columns {
    /// `out[i] = f(out[i])`.
    Unary(fn(&mut [f64])),
    /// The forms of a two-input function.
    Binary(BinaryColumns),
}

/// The forms of a two-input function `f(a, b)`, by where each operand comes from: the column
/// written (`own`), a constant (`fixed`) or another column (`col`).
#[derive(Clone, Copy, Debug)]
pub struct BinaryColumns {
    /// `out[i] = f(out[i], b)`.
    pub own_fixed: fn(&mut [f64], f64),
    /// `out[i] = f(a, out[i])`.
    pub fixed_own: fn(f64, &mut [f64]),
    /// `out[i] = f(out[i], b[i])` (`b` as long as `out`).
    pub own_col: fn(&mut [f64], &[f64]),
    /// `out[i] = f(a[i], out[i])` (`a` as long as `out`).
    pub col_own: fn(&[f64], &mut [f64]),
}

/// The [`Columns`] of a one-input float function (a closure that captures nothing, or a function path), the same
/// function the op's [`Kernel::Unary`](crate::op::Kernel::Unary) holds.
#[macro_export]
macro_rules! unary_columns {
    ($f:expr) => {
        $crate::op::Columns::Unary(|out: &mut [f64]| {
            let f = $crate::op::columns::unary_fn($f);
            for o in out.iter_mut() {
                *o = f(*o);
            }
        })
    };
}

/// The [`Columns`] of a two-input float function (a closure that captures nothing, or a function path), the same
/// function the op's [`Kernel::Binary`](crate::op::Kernel::Binary) holds.
#[macro_export]
macro_rules! binary_columns {
    ($f:expr) => {
        $crate::op::Columns::Binary($crate::op::BinaryColumns {
            own_fixed: |out: &mut [f64], b: f64| {
                let f = $crate::op::columns::binary_fn($f);
                for o in out.iter_mut() {
                    *o = f(*o, b);
                }
            },
            fixed_own: |a: f64, out: &mut [f64]| {
                let f = $crate::op::columns::binary_fn($f);
                for o in out.iter_mut() {
                    *o = f(a, *o);
                }
            },
            own_col: |out: &mut [f64], b: &[f64]| {
                let f = $crate::op::columns::binary_fn($f);
                for (o, &b) in out.iter_mut().zip(b) {
                    *o = f(*o, b);
                }
            },
            col_own: |a: &[f64], out: &mut [f64]| {
                let f = $crate::op::columns::binary_fn($f);
                for (o, &a) in out.iter_mut().zip(a) {
                    *o = f(a, *o);
                }
            },
        })
    };
}

/// `f` as it is: gives a closure handed to [`unary_columns!`](crate::unary_columns) its
/// argument type.
#[doc(hidden)]
#[inline(always)]
pub fn unary_fn<F: Fn(f64) -> f64>(f: F) -> F {
    f
}

/// `f` as it is: gives a closure handed to [`binary_columns!`](crate::binary_columns) its
/// argument types.
#[doc(hidden)]
#[inline(always)]
pub fn binary_fn<F: Fn(f64, f64) -> f64>(f: F) -> F {
    f
}

#[cfg(test)]
mod tests {
    use super::Columns;

    fn hypot(a: f64, b: f64) -> f64 {
        (a * a + b * b).sqrt()
    }

    #[test]
    fn every_binary_form_applies_the_function_elementwise() {
        let Columns::Binary(c) = crate::binary_columns!(hypot) else {
            panic!("a binary form")
        };
        let a = [3.0, 5.0, -8.0, 0.0];
        let b = [4.0, 12.0, 15.0, -0.0];
        let mut out = a;
        (c.own_col)(&mut out, &b);
        assert_eq!(out, [5.0, 13.0, 17.0, 0.0]);
        let mut out = b;
        (c.col_own)(&a, &mut out);
        assert_eq!(out, [5.0, 13.0, 17.0, 0.0]);
        let mut out = a;
        (c.own_fixed)(&mut out, 0.0);
        assert_eq!(out, [3.0, 5.0, 8.0, 0.0]);
        let mut out = b;
        (c.fixed_own)(0.0, &mut out);
        assert_eq!(out, [4.0, 12.0, 15.0, 0.0]);
        let Columns::Binary(s) = crate::binary_columns!(|x: f64, y: f64| x - y) else {
            panic!("a binary form")
        };
        let mut out = [1.0, 2.0];
        (s.fixed_own)(10.0, &mut out);
        assert_eq!(out, [9.0, 8.0], "the constant is the first operand");
    }

    #[test]
    fn the_unary_form_applies_the_function_elementwise() {
        let Columns::Unary(f) = crate::unary_columns!(|x: f64| x * 2.0 + 1.0) else {
            panic!("a unary form")
        };
        let mut out = [0.0, 1.5, -2.0];
        f(&mut out);
        assert_eq!(out, [1.0, 4.0, -3.0]);
    }
}
