//! Formula text to a postfix list of items, by the shunting-yard method: an explicit
//! operator stack, so nesting depth costs memory, never call depth.

use super::ExprError;
use super::lex::{Token, tokens};
use crate::field::{Binary, Coord, Ternary, Unary};

/// What a name stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Var {
    /// Input `k` (`a` = 0 .. `d` = 3); for an image, its channel (`a.r`, ...), or the channel
    /// being computed when `None`.
    Input(usize, Option<u8>),
    /// A coordinate or the clock.
    Coord(Coord),
    /// A named constant (`pi`, `tau`, `e`).
    Const(f64),
}

/// A function a formula may call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Func {
    /// One argument.
    Unary(Unary),
    /// Two arguments.
    Binary(Binary),
    /// Three arguments.
    Ternary(Ternary),
    /// `noise(x, y)`: one octave of the node's Perlin noise, in about [-1, 1].
    Noise,
    /// `fbm(x, y)`: the node's fBm of Perlin noise (`octaves` param), in [-1, 1].
    Fbm,
    /// `ramp(t)`: the node's colour ramp (`stops` param) at `t`, the channel computed.
    Ramp,
    /// `a > b` (1 or 0).
    Greater,
    /// `a >= b` (1 or 0).
    GreaterOrEqual,
}

impl Func {
    /// How many arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            Func::Unary(_) | Func::Ramp => 1,
            Func::Binary(_) | Func::Noise | Func::Fbm | Func::Greater | Func::GreaterOrEqual => 2,
            Func::Ternary(_) => 3,
        }
    }
}

/// One item of the postfix list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Item {
    /// A number.
    Num(f64),
    /// A variable.
    Var(Var),
    /// A binary operator or a call, taking its operands off the stack.
    Call(Func),
}

/// The functions, by name.
pub fn function(name: &str) -> Option<Func> {
    use Binary as B;
    use Ternary as T;
    use Unary as U;
    Some(match name {
        "abs" => Func::Unary(U::Abs),
        "floor" => Func::Unary(U::Floor),
        "ceil" => Func::Unary(U::Ceil),
        "fract" => Func::Unary(U::Fract),
        "sqrt" => Func::Unary(U::Sqrt),
        "sin" => Func::Unary(U::Sin),
        "cos" => Func::Unary(U::Cos),
        "tan" => Func::Unary(U::Tan),
        "exp" => Func::Unary(U::Exp),
        "ln" | "log" => Func::Unary(U::Ln),
        "saturate" => Func::Unary(U::Saturate),
        "min" => Func::Binary(B::Min),
        "max" => Func::Binary(B::Max),
        "pow" => Func::Binary(B::Pow),
        "mod" => Func::Binary(B::Mod),
        "atan2" => Func::Binary(B::Atan2),
        "step" => Func::Binary(B::Step),
        "mix" => Func::Ternary(T::Mix),
        "clamp" => Func::Ternary(T::Clamp),
        "smoothstep" => Func::Ternary(T::Smoothstep),
        "select" => Func::Ternary(T::Select),
        "noise" => Func::Noise,
        "fbm" => Func::Fbm,
        "ramp" => Func::Ramp,
        _ => return None,
    })
}

/// The variables, by name.
pub fn variable(name: &str) -> Option<Var> {
    let input = |k: usize, rest: &str| -> Option<Var> {
        Some(Var::Input(
            k,
            match rest {
                "" => None,
                ".r" => Some(0),
                ".g" => Some(1),
                ".b" => Some(2),
                ".a" => Some(3),
                _ => return None,
            },
        ))
    };
    Some(match name {
        "x" => Var::Coord(Coord::U),
        "y" => Var::Coord(Coord::V),
        "px" => Var::Coord(Coord::X),
        "py" => Var::Coord(Coord::Y),
        "w" => Var::Coord(Coord::Width),
        "h" => Var::Coord(Coord::Height),
        "t" => Var::Coord(Coord::Time),
        "pi" => Var::Const(std::f64::consts::PI),
        "tau" => Var::Const(std::f64::consts::TAU),
        "e" => Var::Const(std::f64::consts::E),
        _ => {
            let first = name.chars().next()?;
            let k = "abcd".find(first)?;
            return input(k, &name[1..]);
        }
    })
}

/// An entry of the operator stack.
#[derive(Clone, Copy, Debug)]
enum Pending {
    /// A binary operator: its function, precedence and column.
    Op(Func, u8, usize),
    /// Unary minus.
    Neg(usize),
    /// `(` of grouping.
    Group(usize),
    /// `(` of a call: the function, its column, and the arguments seen so far.
    Call(Func, usize, usize),
}

const NEG_PRECEDENCE: u8 = 4;

fn binary(op: &str) -> (Func, u8, bool) {
    use Binary as B;
    match op {
        "<" => (Func::Binary(B::Lt), 1, false),
        "<=" => (Func::Binary(B::Le), 1, false),
        ">" => (Func::Greater, 1, false),
        ">=" => (Func::GreaterOrEqual, 1, false),
        "+" => (Func::Binary(B::Add), 2, false),
        "-" => (Func::Binary(B::Sub), 2, false),
        "*" => (Func::Binary(B::Mul), 3, false),
        "/" => (Func::Binary(B::Div), 3, false),
        "%" => (Func::Binary(B::Mod), 3, false),
        _ => (Func::Binary(B::Pow), 5, true),
    }
}

/// Parse `src` into postfix items, each with the column it came from.
pub fn parse(src: &str) -> Result<Vec<(Item, usize)>, ExprError> {
    let toks = tokens(src)?;
    let end = src.chars().count() + 1;
    let mut out: Vec<(Item, usize)> = Vec::with_capacity(toks.len());
    let mut stack: Vec<Pending> = Vec::new();
    // Whether the next token must start an operand (a value, a name, `(` or unary minus).
    let mut want_operand = true;
    let mut depth = 0usize;
    let pop_into = |p: Pending, out: &mut Vec<(Item, usize)>| match p {
        Pending::Op(f, _, col) => out.push((Item::Call(f), col)),
        Pending::Neg(col) => out.push((Item::Call(Func::Unary(Unary::Neg)), col)),
        _ => {}
    };
    for (i, (tok, col)) in toks.iter().enumerate() {
        let col = *col;
        match tok {
            Token::Num(v) => {
                if !want_operand {
                    return Err(ExprError::new(
                        col,
                        "expected an operator before this number",
                    ));
                }
                out.push((Item::Num(*v), col));
                want_operand = false;
            }
            Token::Name(name) => {
                if !want_operand {
                    return Err(ExprError::new(
                        col,
                        format!("expected an operator before `{name}`"),
                    ));
                }
                if matches!(toks.get(i + 1), Some((Token::Open, _))) {
                    let f = function(name)
                        .ok_or_else(|| ExprError::new(col, format!("unknown function `{name}`")))?;
                    stack.push(Pending::Call(f, col, 0));
                    // The `(` that follows is the call's.
                } else {
                    let v = variable(name)
                        .ok_or_else(|| ExprError::new(col, format!("unknown name `{name}`")))?;
                    out.push((Item::Var(v), col));
                    want_operand = false;
                }
            }
            Token::Open => {
                if !want_operand {
                    return Err(ExprError::new(col, "expected an operator before `(`"));
                }
                depth += 1;
                let after_call = i > 0
                    && matches!(toks[i - 1].0, Token::Name(_))
                    && matches!(stack.last(), Some(Pending::Call(..)));
                if !after_call {
                    stack.push(Pending::Group(col));
                }
            }
            Token::Comma | Token::Close => {
                let closing = *tok == Token::Close;
                let empty_call = closing
                    && want_operand
                    && i > 0
                    && toks[i - 1].0 == Token::Open
                    && matches!(stack.last(), Some(Pending::Call(..)));
                if want_operand && !empty_call {
                    return Err(ExprError::new(col, "expected a value here"));
                }
                loop {
                    match stack.pop() {
                        Some(p @ (Pending::Op(..) | Pending::Neg(_))) => pop_into(p, &mut out),
                        Some(Pending::Group(_)) => {
                            if !closing {
                                return Err(ExprError::new(col, "a `,` outside a call"));
                            }
                            depth -= 1;
                            break;
                        }
                        Some(Pending::Call(f, fcol, n)) => {
                            let n = if empty_call { 0 } else { n + 1 };
                            if closing {
                                if n != f.arity() {
                                    return Err(ExprError::new(
                                        fcol,
                                        format!(
                                            "this function takes {} argument(s), given {n}",
                                            f.arity()
                                        ),
                                    ));
                                }
                                out.push((Item::Call(f), fcol));
                                depth -= 1;
                            } else {
                                stack.push(Pending::Call(f, fcol, n));
                            }
                            break;
                        }
                        None => {
                            return Err(ExprError::new(
                                col,
                                if closing {
                                    "a `)` with no `(`"
                                } else {
                                    "a `,` outside a call"
                                },
                            ));
                        }
                    }
                }
                want_operand = !closing;
            }
            Token::Op(op) => {
                if want_operand {
                    if *op == "-" {
                        stack.push(Pending::Neg(col));
                        continue;
                    }
                    if *op == "+" {
                        continue;
                    }
                    return Err(ExprError::new(
                        col,
                        format!("expected a value before `{op}`"),
                    ));
                }
                let (f, prec, right) = binary(op);
                while let Some(top) = stack.last().copied() {
                    let top_prec = match top {
                        Pending::Op(_, p, _) => p,
                        Pending::Neg(_) => NEG_PRECEDENCE,
                        _ => break,
                    };
                    if top_prec > prec || (top_prec == prec && !right) {
                        stack.pop();
                        pop_into(top, &mut out);
                    } else {
                        break;
                    }
                }
                stack.push(Pending::Op(f, prec, col));
                want_operand = true;
            }
        }
    }
    if want_operand {
        return Err(ExprError::new(
            end,
            "the formula ends where a value is expected",
        ));
    }
    while let Some(p) = stack.pop() {
        match p {
            Pending::Group(col) | Pending::Call(_, col, _) => {
                return Err(ExprError::new(col, "this `(` is never closed"));
            }
            p => pop_into(p, &mut out),
        }
    }
    debug_assert_eq!(depth, 0);
    if out.is_empty() {
        return Err(ExprError::new(1, "an empty formula"));
    }
    Ok(out)
}
