//! Boolean logic: `logic.and`, `logic.or`, `logic.xor`, `logic.not`.

use kiln_core::op;
use kiln_core::registry::{Registry, RegistryError};

/// a and b.
#[op("logic.and", out = "result")]
pub fn and(#[input("left operand")] a: bool, #[input("right operand")] b: bool) -> bool {
    a && b
}

/// a or b.
#[op("logic.or", out = "result")]
pub fn or(#[input("left operand")] a: bool, #[input("right operand")] b: bool) -> bool {
    a || b
}

/// a xor b.
#[op("logic.xor", out = "result")]
pub fn xor(#[input("left operand")] a: bool, #[input("right operand")] b: bool) -> bool {
    a ^ b
}

/// not x.
#[op("logic.not", out = "result")]
pub fn not(#[input("operand")] x: bool) -> bool {
    !x
}

/// Register the ops of this file.
pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(AndOp::new())?;
    reg.register(OrOp::new())?;
    reg.register(XorOp::new())?;
    reg.register(NotOp::new())
}
