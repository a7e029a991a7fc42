//! Float functions applied per component (`math.sqrt`, `math.sin`, ..., `math.fract`); an int
//! becomes a float.

use super::{infer_unary_float, unary};
use kiln_core::op;
use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// A function op `$name` (id `$id`): `$f` per component (also its kernel and column forms).
macro_rules! function_op {
    ($(#[doc = $doc:tt])* $name:ident, $id:tt, $f:expr) => {
        $(#[doc = $doc])*
        #[op($id, out = "result", out_type = ValueType::Number, infer = infer_unary_float, kernel = $f)]
        pub fn $name(
            #[input("operand", ty = ValueType::Number)] x: &Value,
        ) -> Result<Value, OpError> {
            unary(x, $f)
        }
    };
}

function_op!(
    /// Square root.
    sqrt,
    "math.sqrt",
    f64::sqrt
);
function_op!(
    /// Sine (radians).
    sin,
    "math.sin",
    f64::sin
);
function_op!(
    /// Cosine (radians).
    cos,
    "math.cos",
    f64::cos
);
function_op!(
    /// Tangent (radians).
    tan,
    "math.tan",
    f64::tan
);
function_op!(
    /// e to the x.
    exp,
    "math.exp",
    f64::exp
);
function_op!(
    /// Natural logarithm.
    ln,
    "math.ln",
    f64::ln
);
function_op!(
    /// Largest integer not above x (as float).
    floor,
    "math.floor",
    f64::floor
);
function_op!(
    /// Smallest integer not below x (as float).
    ceil,
    "math.ceil",
    f64::ceil
);
function_op!(
    /// Nearest integer, halves away from zero (as float).
    round,
    "math.round",
    f64::round
);
function_op!(
    /// x - floor(x).
    fract,
    "math.fract",
    |x| x - x.floor()
);

/// Register the ops of this file.
pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(SqrtOp::new())?;
    reg.register(SinOp::new())?;
    reg.register(CosOp::new())?;
    reg.register(TanOp::new())?;
    reg.register(ExpOp::new())?;
    reg.register(LnOp::new())?;
    reg.register(FloorOp::new())?;
    reg.register(CeilOp::new())?;
    reg.register(RoundOp::new())?;
    reg.register(FractOp::new())
}
