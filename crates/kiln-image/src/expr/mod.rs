//! Formulas: `image.expr` (a formula per pixel, compiled onto the same field tape the
//! per-pixel ops use, so it fuses with them) and `math.expr` (the same formula on plain
//! numbers).
//!
//! A formula is numbers, names, `+ - * / % ^` (`^` is a power, grouping to the right),
//! comparisons `< <= > >=` (1 or 0), unary `-`, parentheses and calls. Names: the inputs `a`,
//! `b`, `c`, `d`; for an image input the bare name is the channel being computed and `a.r`,
//! `a.g`, `a.b`, `a.a` pick one; `x`, `y` the pixel centre in the unit square (`(px + 0.5) /
//! w`), `px`, `py` the pixel's column and row, `w`, `h` the size, `t` the clock's time, and
//! `pi`, `tau`, `e`. Functions: `abs floor ceil fract sqrt sin cos tan exp ln saturate`
//! (one argument), `min max pow mod atan2 step` (two), `mix clamp smoothstep select`
//! (three), `noise(x, y)` and `fbm(x, y)` (the node's seeded Perlin noise and fBm), and
//! `ramp(t)` (the node's colour ramp). An error names the column (counted in characters
//! from 1) where the formula went wrong.
//!
//! Parsing is the shunting-yard method over an explicit stack, and formulas are at most
//! [`lex::MAX_FORMULA`] characters, so no input makes the parser recurse.

pub mod emit;
pub mod lex;
pub mod ops;
pub mod parse;

pub use ops::{IMAGE_EXPR_OP, MATH_EXPR_OP};

/// A formula that cannot be read, and where.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct ExprError {
    /// The column (in characters, from 1) the problem is at.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl ExprError {
    /// An error at `column`.
    pub fn new(column: usize, message: impl Into<String>) -> Self {
        ExprError {
            column,
            message: message.into(),
        }
    }
}
