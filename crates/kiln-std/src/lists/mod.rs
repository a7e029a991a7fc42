//! Lists and records as data: making, reading, reordering and combining lists of any element
//! type, and records with named fields.
//!
//! * Building (`build`): `list.make` (a collective input: its wires are queued into the
//!   list), `list.range`, `list.concat`, `list.zip`, `list.flatten`.
//! * Reading (`read`): `list.length`, `list.get`, `list.slice`.
//! * Reordering (`order`): `list.sort` (by a key list, by a record field, or by the values),
//!   `list.filter` (by a mask of bools), `list.reverse`.
//! * Records (`records`): `record.make`, `record.get`, `record.set`.
//!
//! Every list these ops make is checked against [`MAX_LIST_LEN`] before it is allocated.
//! The elements of a list are shared, never copied: a list op makes a new list of the same
//! `Arc`s.

mod build;
mod order;
mod read;
mod records;

use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The most elements a list op makes.
pub const MAX_LIST_LEN: u64 = 10_000_000;

/// Refuse `n` elements over [`MAX_LIST_LEN`], naming input `port` (an index) and the limit.
pub(crate) fn check_len(port: usize, n: u64) -> Result<usize, OpError> {
    if n > MAX_LIST_LEN {
        return Err(OpError::input(
            port,
            format!("the list would have {n} elements, over the limit of {MAX_LIST_LEN}"),
        ));
    }
    Ok(n as usize)
}

/// The value `v` at input `i` as a list, or an error naming the port.
pub(crate) fn list_at(v: &Value, i: usize) -> Result<&[Value], OpError> {
    match v {
        Value::List(l) => Ok(l),
        other => Err(OpError::input(
            i,
            format!("expected a list, found {}", other.type_name()),
        )),
    }
}

/// The type of a list like input `i` (what reordering ops give back).
pub(crate) fn same_list(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    Ok(vec![match i.first() {
        Some(Some(t)) if t.is_list() => *t,
        _ => ValueType::List,
    }])
}

/// Register the list and record ops.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    build::register(reg)?;
    read::register(reg)?;
    order::register(reg)?;
    records::register(reg)
}

#[cfg(test)]
pub(crate) mod testing {
    use kiln_core::context::EvalContext;
    use kiln_core::op::{OpCall, OpError};
    use kiln_core::registry::Registry;
    use kiln_core::value::Value;

    /// Run op `id` of the standard registry on `inputs` and `params` (defaults filled in for
    /// params not given).
    pub fn run(id: &str, inputs: &[Value], params: &[Value]) -> Result<Vec<Value>, OpError> {
        let reg: Registry = crate::registry();
        let op = reg.get(id).unwrap_or_else(|| panic!("no op {id}"));
        let spec = op.spec();
        let mut ps: Vec<Value> = params.to_vec();
        for p in spec.params.iter().skip(params.len()) {
            ps.push(p.default.clone().unwrap_or_default());
        }
        let mut ins: Vec<Value> = inputs.to_vec();
        for i in spec.inputs.iter().skip(inputs.len()) {
            ins.push(i.default.clone().unwrap_or_default());
        }
        let ctx = EvalContext::default();
        let call = OpCall {
            inputs: &ins,
            params: &ps,
            ctx: &ctx,
            node: "n",
        };
        let mut out = vec![Value::Empty; spec.outputs.len()];
        op.execute(&call, &mut out)?;
        Ok(out)
    }

    /// A list of ints.
    pub fn ints(v: &[i64]) -> Value {
        Value::list(v.iter().map(|&i| Value::Int(i)))
    }

    /// A list of floats.
    pub fn floats(v: &[f64]) -> Value {
        Value::list(v.iter().map(|&f| Value::Float(f)))
    }
}
