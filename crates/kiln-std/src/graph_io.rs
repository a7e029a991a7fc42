//! Constants, named graph inputs and graph outputs.
//!
//! * `const` — a constant whose type is its `value` param's type.
//! * `input.float`, `input.int`, `input.bool`, `input.vec2`, `input.vec3`, `input.vec4`,
//!   `input.color`, `input.string` — named graph inputs: the context's value for `name`, or
//!   `default`. Their keys include the value read, so a new value recooks only their cone.
//! * `input.list` — a named graph input holding a list; its `type` param names the list type
//!   (`list<float>`, ...), and `collective` makes it a collective input of the graph used as
//!   a node (several wires into the call's port queue into its list).
//! * `output` — marks a graph output; passes its input through.
//!
//! `const` and `output` are written with the `#[op]` attribute. The graph inputs are the
//! plan's interface ops: one op per declared type (and `input.audio`, `input.mesh` in other
//! crates, through [`GraphInput::without_default`]), made in a loop from the type, so they
//! stay a type of their own ([`GraphInput`]).

use kiln_core::context::EvalContext;
use kiln_core::key::KeyHasher;
use kiln_core::op::{Kernel, Op, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Purity, Role};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The op id of graph outputs.
pub const OUTPUT_OP: &str = OutputOp::ID;
/// The prefix of graph input op ids (`input.float`, ...).
pub const INPUT_PREFIX: &str = "input.";

/// The types a graph input can have, with their op ids.
pub const INPUT_TYPES: [(&str, ValueType); 8] = [
    ("input.float", ValueType::Float),
    ("input.int", ValueType::Int),
    ("input.bool", ValueType::Bool),
    ("input.vec2", ValueType::Vec2),
    ("input.vec3", ValueType::Vec3),
    ("input.vec4", ValueType::Vec4),
    ("input.color", ValueType::Color),
    ("input.string", ValueType::String),
];

/// The op id of list graph inputs (of any list type: see [`LIST_INPUT_OP`]'s params).
pub const LIST_INPUT_OP: &str = "input.list";

/// The input op id for a type, if graph inputs can have it (any list type is `input.list`).
pub fn input_op_for(ty: ValueType) -> Option<&'static str> {
    if ty.is_list() {
        return Some(LIST_INPUT_OP);
    }
    INPUT_TYPES
        .iter()
        .find(|(_, t)| *t == ty)
        .map(|(id, _)| *id)
}

fn zero_of(ty: ValueType) -> Value {
    match ty {
        ValueType::Float => Value::Float(0.0),
        ValueType::Int => Value::Int(0),
        ValueType::Bool => Value::Bool(false),
        ValueType::Vec2 => Value::Vec2([0.0; 2]),
        ValueType::Vec3 => Value::Vec3([0.0; 3]),
        ValueType::Vec4 => Value::Vec4([0.0; 4]),
        ValueType::Color => Value::Color([0.0, 0.0, 0.0, 1.0]),
        _ => Value::str(""),
    }
}

/// Convert a supplied input value to the input's type (int → float, hex string → colour).
pub fn coerce_input(ty: ValueType, v: &Value) -> Option<Value> {
    match (ty, v) {
        (ValueType::Float, _) => v.as_f64().map(Value::Float),
        (ValueType::Color, _) => v.as_color().map(Value::Color),
        _ if v.value_type() == Some(ty) => Some(v.clone()),
        _ => None,
    }
}

/// A named graph input of one type.
pub struct GraphInput {
    spec: OpSpec,
    ty: ValueType,
    /// Whether the op has a `default` param (second param) to fall back to.
    has_default: bool,
}

impl GraphInput {
    /// A graph input op `id` of type `ty` with only a `name` param and no default: the value
    /// supplied for `name`, and an error naming the input when none is. For the heavy types
    /// (an audio buffer, say), which have no default a graph file could write. Registered by
    /// the domain crate owning the type (`input.audio` in `kiln-audio`).
    pub fn without_default(id: &'static str, doc: &'static str, ty: ValueType) -> Self {
        GraphInput {
            spec: OpSpec::new(id, doc)
                .purity(Purity::UserInput)
                .role(Role::GraphInput)
                .param(ParamSpec::required(
                    "name",
                    ValueType::String,
                    "the input's name",
                ))
                .output(OutputSpec::new("out", ty, "the input's value")),
            ty,
            has_default: false,
        }
    }

    /// This input op with one more param, after its own, that says something about the
    /// input to those who supply it (how `kiln` reads a file given for it, say); the value
    /// does not depend on it (the op reads only its own params, by position).
    pub fn with_param(mut self, param: ParamSpec) -> Self {
        self.spec = self.spec.param(param);
        self
    }

    fn value(&self, params: &[Value], ctx: &EvalContext) -> Result<Value, OpError> {
        let name = params.first().and_then(Value::as_str).unwrap_or("");
        match ctx.inputs.get(name) {
            Some(v) => coerce_input(self.ty, v).ok_or_else(|| {
                OpError::new(format!(
                    "graph input `{name}` expects {}, but was given {}",
                    self.ty,
                    v.type_name()
                ))
            }),
            None => match params.get(1) {
                Some(default) if self.has_default => Ok(default.clone()),
                _ => Err(OpError::new(format!(
                    "graph input `{name}` ({}) has no default and was given no value",
                    self.ty
                ))),
            },
        }
    }
}

impl Op for GraphInput {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        out[0] = self.value(call.params, call.ctx)?;
        Ok(())
    }
    fn infer_outputs(
        &self,
        _inputs: &[Option<ValueType>],
        params: &[Value],
    ) -> Result<Vec<ValueType>, String> {
        // A list input's `type` param names its list type.
        let declared = params
            .get(2)
            .and_then(Value::as_str)
            .and_then(ValueType::parse_plain)
            .filter(|t| self.ty.is_list() && t.is_list());
        Ok(vec![declared.unwrap_or(self.ty)])
    }
    fn hash_context(&self, params: &[Value], ctx: &EvalContext, h: &mut KeyHasher) {
        match self.value(params, ctx) {
            Ok(v) => v.hash_into(h),
            // A bad value fails at execution; key it by what was supplied.
            Err(_) => {
                h.u8(0xff);
                if let Some(v) = ctx.inputs.get(params[0].as_str().unwrap_or("")) {
                    v.hash_into(h)
                }
            }
        }
    }
}

/// A constant; its type is the type of `value`.
#[kiln_core::op(
    "const",
    out_type = ValueType::Any,
    infer = const_type,
    kernel_with = const_kernel,
    out = "the constant"
)]
fn constant(#[param("the constant", plan_time)] value: &Value) -> Value {
    value.clone()
}

/// The constant's type: its value's.
fn const_type(_: &[Option<ValueType>], p: &[Value]) -> Result<Vec<ValueType>, String> {
    Ok(vec![
        p.first()
            .and_then(Value::value_type)
            .unwrap_or(ValueType::Any),
    ])
}

/// A float constant's kernel: the constant itself.
fn const_kernel(_: &[Option<ValueType>], p: &[Value]) -> Option<Kernel> {
    match p.first() {
        Some(Value::Float(x)) => Some(Kernel::Const(*x)),
        _ => None,
    }
}

/// A graph output: passes `value` through under the node's name.
// It passes its input on: a changed input is a changed output.
#[kiln_core::op(
    "output",
    role = Role::GraphOutput,
    injective,
    out_type = ValueType::Any,
    infer = output_type,
    out = "the same value"
)]
fn output(#[input("the value to output")] value: &Value) -> Value {
    value.clone()
}

/// The output's type: its input's.
fn output_type(i: &[Option<ValueType>], _: &[Value]) -> Result<Vec<ValueType>, String> {
    Ok(vec![i[0].unwrap_or(ValueType::Any)])
}

/// Register the ops of this module.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(ConstantOp::new())?;
    for (id, ty) in INPUT_TYPES {
        reg.register(GraphInput {
            spec: OpSpec::new(
                id,
                "A named graph input: the value supplied for `name`, else `default`.",
            )
            .purity(Purity::UserInput)
            .role(Role::GraphInput)
            .param(ParamSpec::required(
                "name",
                ValueType::String,
                "the input's name",
            ))
            .param(ParamSpec::new(
                "default",
                ty,
                zero_of(ty),
                "value when none is supplied",
            ))
            .output(OutputSpec::new("out", ty, "the input's value")),
            ty,
            has_default: true,
        })?;
    }
    reg.register(GraphInput {
        spec: OpSpec::new(
            LIST_INPUT_OP,
            "A named graph input holding a list: the value supplied for `name`, else `default`.",
        )
        .purity(Purity::UserInput)
        .role(Role::GraphInput)
        .param(ParamSpec::required(
            "name",
            ValueType::String,
            "the input's name",
        ))
        .param(ParamSpec::new(
            "default",
            ValueType::List,
            Value::List(Vec::new().into()),
            "value when none is supplied",
        ))
        .param(ParamSpec::new(
            "type",
            ValueType::String,
            Value::str("list"),
            "the list type (`list`, `list<float>`, ...)",
        ))
        .param(ParamSpec::new(
            "collective",
            ValueType::Bool,
            Value::Bool(false),
            "a collective input of the graph used as a node",
        ))
        .output(OutputSpec::new("out", ValueType::List, "the input's value")),
        ty: ValueType::List,
        has_default: true,
    })?;
    reg.register(OutputOp::new())?;
    Ok(())
}
