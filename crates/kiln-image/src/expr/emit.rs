//! Postfix items to tape steps, with an explicit operand stack (no recursion).

use super::ExprError;
use super::parse::{Func, Item, Var};
use crate::field::{Binary, Px, Reg, Step, Tape};
use kiln_core::op::OpError;

/// An input of a formula as the emitter sees it.
#[derive(Clone, Copy, Debug)]
pub enum Operand {
    /// A number, already on the tape.
    Scalar(Reg),
    /// An image's pixel.
    Pixels(Px),
}

/// What a formula may read while it is emitted.
pub struct Env {
    /// Inputs `a` .. `d`.
    pub inputs: [Operand; 4],
    /// The channel computed (0..3): what a bare image input and `ramp` read.
    pub channel: u8,
    /// Whether pixel coordinates exist (not in `math.expr`).
    pub pixels: bool,
    /// The noise index of `noise(x, y)` and of `fbm(x, y)`.
    pub noises: Option<(u16, u16)>,
    /// The ramp index of `ramp(t)`.
    pub ramp: Option<u16>,
}

fn fail(col: usize, msg: impl Into<String>) -> OpError {
    OpError::new(ExprError::new(col, msg).to_string())
}

/// Emit `items` onto `tape`, returning the register of the result.
pub fn emit(tape: &mut Tape<'_>, items: &[(Item, usize)], env: &Env) -> Result<Reg, OpError> {
    let mut stack: Vec<Reg> = Vec::new();
    for &(item, col) in items {
        let r = match item {
            Item::Num(v) => tape.constant(v)?,
            Item::Var(Var::Const(v)) => tape.constant(v)?,
            Item::Var(Var::Coord(c)) => {
                if !env.pixels && c != crate::field::Coord::Time {
                    return Err(fail(col, "no pixel coordinates here (only t is defined)"));
                }
                tape.push(Step::Coord(c))?
            }
            Item::Var(Var::Input(k, ch)) => match (env.inputs[k], ch) {
                (Operand::Scalar(r), None) => r,
                (Operand::Scalar(_), Some(_)) => {
                    return Err(fail(col, "a channel of an input that is not an image"));
                }
                (Operand::Pixels(px), None) => px[env.channel as usize],
                (Operand::Pixels(px), Some(c)) => px[c as usize],
            },
            Item::Call(f) => {
                let n = f.arity();
                if stack.len() < n {
                    return Err(fail(col, "an operator lacks an operand"));
                }
                let args = stack.split_off(stack.len() - n);
                match f {
                    Func::Unary(u) => tape.unary(u, args[0])?,
                    Func::Binary(b) => tape.binary(b, args[0], args[1])?,
                    Func::Greater => tape.binary(Binary::Lt, args[1], args[0])?,
                    Func::GreaterOrEqual => tape.binary(Binary::Le, args[1], args[0])?,
                    Func::Ternary(t) => tape.push(Step::Ternary(t, args[0], args[1], args[2]))?,
                    Func::Noise | Func::Fbm => {
                        let (one, many) = env.noises.ok_or_else(|| fail(col, "no noise here"))?;
                        let noise = if f == Func::Noise { one } else { many };
                        tape.push(Step::Noise {
                            noise,
                            x: args[0],
                            y: args[1],
                        })?
                    }
                    Func::Ramp => {
                        let ramp = env.ramp.ok_or_else(|| fail(col, "no ramp here"))?;
                        tape.push(Step::Ramp {
                            ramp,
                            t: args[0],
                            channel: env.channel,
                        })?
                    }
                }
            }
        };
        stack.push(r);
    }
    let r = stack.pop().ok_or_else(|| fail(1, "an empty formula"))?;
    if !stack.is_empty() {
        return Err(fail(1, "values left without an operator between them"));
    }
    Ok(r)
}
