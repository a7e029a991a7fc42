//! The ops the plan writes that no document names: `scope.gather` (a scope's collected
//! results, as a list), `scope.get` (one element of a list) and `scope.queue` (the wires
//! into a collective input, queued into one list).
//!
//! A `for` over many items collects each output through a tree of gathers of at most
//! [`GATHER_WIDTH`] inputs each, so an edit of one copy re-cooks one gather per level.

use kiln_core::op::{InputSpec, Op, OpCall, OpError, OpSpec, OutputSpec, ParamSpec};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};
use std::sync::Arc;

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

struct Gather(OpSpec);

impl Gather {
    fn new() -> Gather {
        let mut spec = OpSpec::new(
            GATHER_OP,
            "The first `n` inputs as a list; with `nest`, each input is a list and they are joined.",
        )
        .param(ParamSpec::new("n", ValueType::Int, Value::Int(0), "inputs used").plan_time())
        .param(ParamSpec::new(
            "nest",
            ValueType::Bool,
            Value::Bool(false),
            "join lists instead of listing values",
        ).plan_time())
        .output(OutputSpec::new("out", ValueType::List, "the list"));
        for p in GATHER_PORTS {
            spec = spec.input(InputSpec::optional(
                p,
                ValueType::Any,
                Value::Empty,
                "an element",
            ));
        }
        // The plan's gathers join parts of fixed lengths, so a changed part changes the list
        // (were it not so, a skipped comparison would only cost a cutoff, never a value).
        spec.injective = true;
        Gather(spec)
    }
}

impl Op for Gather {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let n = call.param_int(0)?.clamp(0, GATHER_WIDTH as i64) as usize;
        let nest = call.param_bool(1)?;
        let used = call.inputs.get(..n).unwrap_or(call.inputs);
        let list: Arc<[Value]> = if nest {
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
            // One tight copy per part (a slice's items map with a known length), then one
            // move into the shared list.
            let mut all = Vec::with_capacity(total);
            for v in used {
                if let Value::List(l) = v {
                    all.extend(l.iter().map(copy_item));
                }
            }
            all.into()
        } else {
            used.iter().map(copy_item).collect()
        };
        out[0] = Value::List(list);
        Ok(())
    }
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

/// The wires into a collective input, queued: each input that is a list contributes its
/// elements in order, any other value one element.
struct Queue(OpSpec);

impl Queue {
    fn new() -> Queue {
        let mut spec = OpSpec::new(
            QUEUE_OP,
            "The first `n` inputs queued into one list: a list input gives its elements, any other value itself.",
        )
        .param(ParamSpec::new("n", ValueType::Int, Value::Int(0), "inputs used").plan_time())
        .output(OutputSpec::new("out", ValueType::List, "the queue"));
        for p in GATHER_PORTS {
            spec = spec.input(InputSpec::optional(
                p,
                ValueType::Any,
                Value::Empty,
                "a source",
            ));
        }
        Queue(spec)
    }
}

impl Op for Queue {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let n = call.param_int(0)?.clamp(0, GATHER_WIDTH as i64) as usize;
        let used = call.inputs.get(..n).unwrap_or(call.inputs);
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
        out[0] = Value::List(items.into());
        Ok(())
    }
}

struct Get(OpSpec);

impl Op for Get {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let i = call.param_int(0)?;
        let Some(Value::List(l)) = call.inputs.first() else {
            return Err(OpError::input(0, "expected list"));
        };
        let Some(v) = usize::try_from(i).ok().and_then(|i| l.get(i)) else {
            return Err(OpError::param(
                0,
                format!("index {i} is outside the list of {}", l.len()),
            ));
        };
        out[0] = v.clone();
        Ok(())
    }
    fn infer_outputs(
        &self,
        _inputs: &[Option<ValueType>],
        params: &[Value],
    ) -> Result<Vec<ValueType>, String> {
        // The plan names the element's type when it knows it (a state's declared type).
        let ty = params
            .get(1)
            .and_then(Value::as_str)
            .and_then(ValueType::parse_plain)
            .unwrap_or(ValueType::Any);
        Ok(vec![ty])
    }
}

/// Register `scope.gather`, `scope.queue` and `scope.get`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(Gather::new())?;
    reg.register(Queue::new())?;
    reg.register(Get(OpSpec::new(GET_OP, "Element `index` of `list`.")
        .input(InputSpec::required("list", ValueType::List, "the list"))
        .param(ParamSpec::new("index", ValueType::Int, Value::Int(0), "from 0").plan_time())
        .param(
            ParamSpec::new(
                "type",
                ValueType::String,
                Value::str("any"),
                "the element's type, when known (a plain type name)",
            )
            .plan_time(),
        )
        .output(OutputSpec::new("out", ValueType::Any, "the element"))))
}
