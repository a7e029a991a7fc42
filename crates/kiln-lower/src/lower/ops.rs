//! The ops the plan writes that no document names: `scope.gather` (a scope's collected
//! results, as a list), `scope.get` (one element of a list) and `scope.queue` (the wires
//! into a collective input, queued into one list).
//!
//! A `for` over many items collects each output through a tree of gathers of at most
//! [`GATHER_WIDTH`] inputs each, so an edit of one copy re-cooks one gather per level.

use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The op id of the gather.
pub const GATHER_OP: &str = "scope.gather";
/// The op id of the element read.
pub const GET_OP: &str = "scope.get";
/// The op id of the queue of a collective input.
pub const QUEUE_OP: &str = "scope.queue";
/// Inputs of one gather node.
pub const GATHER_WIDTH: usize = 32;
/// The input port names of a gather node.
pub const GATHER_PORTS: [&str; GATHER_WIDTH] = [
    "i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8", "i9", "i10", "i11", "i12", "i13", "i14",
    "i15", "i16", "i17", "i18", "i19", "i20", "i21", "i22", "i23", "i24", "i25", "i26", "i27",
    "i28", "i29", "i30", "i31",
];

/// The first `n` inputs as a list; with `nest`, each input is a list and they are joined.
// The plan's gathers join parts of fixed lengths, so a changed part changes the list (were it
// not so, a skipped comparison would only cost a cutoff, never a value).
#[kiln_core::op("scope.gather", injective, out = "the list")]
fn gather(
    #[input("an element", ports = GATHER_PORTS)] items: &[Value],
    #[param("inputs used", default = 0, plan_time)] n: i64,
    #[param("join lists instead of listing values", default = false, plan_time)] nest: bool,
) -> Result<Vec<Value>, OpError> {
    let n = n.clamp(0, GATHER_WIDTH as i64) as usize;
    let used = items.get(..n).unwrap_or(items);
    if !nest {
        return Ok(used.iter().map(copy_item).collect());
    }
    let mut total = 0;
    for (i, v) in used.iter().enumerate() {
        match v {
            Value::List(l) => total += l.len(),
            other => {
                return Err(OpError::input(
                    i,
                    format!("expected list, found {}", other.type_name()),
                ));
            }
        }
    }
    // One tight copy per part (a slice's items map with a known length).
    let mut all = Vec::with_capacity(total);
    for v in used {
        if let Value::List(l) = v {
            all.extend(l.iter().map(copy_item));
        }
    }
    Ok(all)
}

/// A clone of a list item; numbers, the common items, are written out without copying the
/// whole value.
#[inline]
fn copy_item(v: &Value) -> Value {
    match v {
        Value::Float(f) => Value::Float(*f),
        Value::Int(i) => Value::Int(*i),
        other => other.clone(),
    }
}

/// The first `n` inputs queued into one list: a list input gives its elements, any other
/// value itself.
#[kiln_core::op("scope.queue", out = "the queue")]
fn queue(
    #[input("a source", ports = GATHER_PORTS)] sources: &[Value],
    #[param("inputs used", default = 0, plan_time)] n: i64,
) -> Vec<Value> {
    let n = n.clamp(0, GATHER_WIDTH as i64) as usize;
    let used = sources.get(..n).unwrap_or(sources);
    let total: usize = used
        .iter()
        .map(|v| match v {
            Value::List(l) => l.len(),
            _ => 1,
        })
        .sum();
    let mut items = Vec::with_capacity(total);
    for v in used {
        match v {
            Value::List(l) => items.extend(l.iter().map(copy_item)),
            other => items.push(other.clone()),
        }
    }
    items
}

/// Element `index` of `list`.
#[kiln_core::op("scope.get", out = "the element", out_type = ValueType::Any, infer = element_type)]
fn get(
    #[input("the list")] list: &[Value],
    #[param("from 0", default = 0, plan_time)] index: i64,
    #[param(
        "the element's type, when known (a plain type name)",
        default = "any",
        plan_time
    )]
    r#type: &str,
) -> Result<Value, OpError> {
    usize::try_from(index)
        .ok()
        .and_then(|i| list.get(i))
        .cloned()
        .ok_or_else(|| {
            OpError::param(
                0,
                format!("index {index} is outside the list of {}", list.len()),
            )
        })
}

/// The element's type: the plan names it when it knows it (a state's declared type).
fn element_type(_inputs: &[Option<ValueType>], params: &[Value]) -> Result<Vec<ValueType>, String> {
    let ty = params
        .get(1)
        .and_then(Value::as_str)
        .and_then(ValueType::parse_plain)
        .unwrap_or(ValueType::Any);
    Ok(vec![ty])
}

/// Register `scope.gather`, `scope.queue` and `scope.get`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(GatherOp::new())?;
    reg.register(QueueOp::new())?;
    reg.register(GetOp::new())
}
