//! Comparisons, boolean logic and the lazy `switch`.
//!
//! * `compare`: `cmp.lt`, `cmp.le`, `cmp.gt`, `cmp.ge`, `cmp.eq`, `cmp.ne` on two scalars.
//! * `boolean`: `logic.and`, `logic.or`, `logic.xor`, `logic.not`.
//! * `switch` pulls its `cond` first, then exactly one of `a` (when true) or `b` (when
//!   false): the other branch is never computed.

mod boolean;
mod compare;

use crate::math::promote;
use kiln_core::op::{OpCall, OpError, Role};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// `a` when `cond` is true, else `b`; only the chosen branch is computed.
#[kiln_core::op(
    "switch",
    role = Role::Choice,
    out_type = ValueType::Any,
    next_lazy = pull_chosen,
    infer = branch_type,
    out = "the chosen value"
)]
pub fn switch(
    #[input("which branch")] cond: bool,
    #[input("value when true", lazy)] a: &Value,
    #[input("value when false", lazy)] b: &Value,
) -> Value {
    if cond { a.clone() } else { b.clone() }
}

/// The one branch `cond` chooses, pulled once.
fn pull_chosen(call: &OpCall<'_>, pulled: &[bool]) -> Result<Option<usize>, OpError> {
    let want = if call.bool(0)? { 1 } else { 2 };
    Ok((!pulled[want]).then_some(want))
}

/// Both branches' type, numbers promoted.
fn branch_type(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    Ok(vec![match (i[1], i[2]) {
        (Some(a), Some(b)) if a == b => a,
        (Some(a), Some(b)) if a.is_numeric() && b.is_numeric() => promote(a, b)?,
        (Some(a), Some(b)) if a == ValueType::Any || b == ValueType::Any => ValueType::Any,
        (Some(a), Some(b)) => {
            return Err(format!("both branches of one type, not {a} and {b}"));
        }
        _ => ValueType::Any,
    }])
}

/// The lazy two-way switch (the op of [`switch`]).
pub type Switch = SwitchOp;

/// Register the ops of this module.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    compare::register(reg)?;
    boolean::register(reg)?;
    reg.register(SwitchOp::new())?;
    Ok(())
}
