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
//! Every op here is written with the `#[op]` attribute; the graph inputs share
//! [`input_value`] and [`hash_input`] with those of the domain crates (`input.image`,
//! `input.audio`, `input.mesh`), which have no default.

use kiln_core::context::EvalContext;
use kiln_core::key::KeyHasher;
use kiln_core::op::{Kernel, OpError, Role};
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

/// Convert a supplied input value to the input's type (int → float, hex string → colour).
pub fn coerce_input(ty: ValueType, v: &Value) -> Option<Value> {
    match (ty, v) {
        (ValueType::Float, _) => v.as_f64().map(Value::Float),
        (ValueType::Color, _) => v.as_color().map(Value::Color),
        _ if v.value_type() == Some(ty) => Some(v.clone()),
        _ => None,
    }
}

/// The value of graph input `name` of type `ty`: the value supplied for it (converted to
/// `ty`), else `default`; an error naming the input when neither is there. What every graph
/// input op returns (the domain crates' `input.image`, `input.audio` and `input.mesh` too,
/// which have no default).
pub fn input_value(
    ty: ValueType,
    name: &str,
    default: Option<&Value>,
    ctx: &EvalContext,
) -> Result<Value, OpError> {
    match ctx.inputs.get(name) {
        Some(v) => coerce_input(ty, v).ok_or_else(|| {
            OpError::new(format!(
                "graph input `{name}` expects {ty}, but was given {}",
                v.type_name()
            ))
        }),
        None => default.cloned().ok_or_else(|| {
            OpError::new(format!(
                "graph input `{name}` ({ty}) has no default and was given no value"
            ))
        }),
    }
}

/// A graph input op's part of its key: the value it reads (so a new value re-cooks only what
/// follows it), from its params (`name` first, then `default` when `has_default`).
pub fn hash_input(
    ty: ValueType,
    has_default: bool,
    params: &[Value],
    ctx: &EvalContext,
    h: &mut KeyHasher,
) {
    let name = params.first().and_then(Value::as_str).unwrap_or("");
    let default = if has_default { params.get(1) } else { None };
    match input_value(ty, name, default, ctx) {
        Ok(v) => v.hash_into(h),
        // A bad value fails at execution; key it by what was supplied.
        Err(_) => {
            h.u8(0xff);
            if let Some(v) = ctx.inputs.get(name) {
                v.hash_into(h)
            }
        }
    }
}

/// A graph input op of each plain type: the value supplied for `name`, else `default`.
// rustfmt indents the attribute below further on every run: left as written.
#[rustfmt::skip]
macro_rules! typed_input {
    ($f:ident, $hash:ident, $id:literal, $ty:ident) => {
        /// A named graph input: the value supplied for `name`, else `default`.
        #[kiln_core::op(
            $id,
            purity = "user-input",
            role = Role::GraphInput,
            hash_context = $hash,
            out_type = ValueType::$ty,
            out = "the input's value"
        )]
        fn $f(
            #[param("the input's name")] name: &str,
            #[param(
                "value when none is supplied",
                default = zero_of(ValueType::$ty),
                ty = ValueType::$ty
            )]
            default: &Value,
            ctx: &EvalContext,
        ) -> Result<Value, OpError> {
            input_value(ValueType::$ty, name, Some(default), ctx)
        }

        fn $hash(params: &[Value], ctx: &EvalContext, h: &mut KeyHasher) {
            hash_input(ValueType::$ty, true, params, ctx, h)
        }
    };
}

typed_input!(input_float, hash_float, "input.float", Float);
typed_input!(input_int, hash_int, "input.int", Int);
typed_input!(input_bool, hash_bool, "input.bool", Bool);
typed_input!(input_vec2, hash_vec2, "input.vec2", Vec2);
typed_input!(input_vec3, hash_vec3, "input.vec3", Vec3);
typed_input!(input_vec4, hash_vec4, "input.vec4", Vec4);
typed_input!(input_color, hash_color, "input.color", Color);
typed_input!(input_string, hash_string, "input.string", String);

/// The default of a graph input of a plain type: zero, false, opaque black or "".
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

/// A named graph input holding a list: the value supplied for `name`, else `default`.
#[kiln_core::op(
    "input.list",
    purity = "user-input",
    role = Role::GraphInput,
    hash_context = hash_list,
    infer = list_type,
    out_type = ValueType::List,
    out = "the input's value"
)]
fn input_list(
    #[param("the input's name")] name: &str,
    #[param(
        "value when none is supplied",
        default = Value::List(Vec::new().into()),
        ty = ValueType::List
    )]
    default: &Value,
    #[param("the list type (`list`, `list<float>`, ...)", default = "list")] r#type: &str,
    #[param("a collective input of the graph used as a node", default = false)] collective: bool,
    ctx: &EvalContext,
) -> Result<Value, OpError> {
    input_value(ValueType::List, name, Some(default), ctx)
}

fn hash_list(params: &[Value], ctx: &EvalContext, h: &mut KeyHasher) {
    hash_input(ValueType::List, true, params, ctx, h)
}

/// A list input's type: the one its `type` param names.
fn list_type(_: &[Option<ValueType>], params: &[Value]) -> Result<Vec<ValueType>, String> {
    let declared = params
        .get(2)
        .and_then(Value::as_str)
        .and_then(ValueType::parse_plain)
        .filter(|t| t.is_list());
    Ok(vec![declared.unwrap_or(ValueType::List)])
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
    reg.register(InputFloatOp::new())?;
    reg.register(InputIntOp::new())?;
    reg.register(InputBoolOp::new())?;
    reg.register(InputVec2Op::new())?;
    reg.register(InputVec3Op::new())?;
    reg.register(InputVec4Op::new())?;
    reg.register(InputColorOp::new())?;
    reg.register(InputStringOp::new())?;
    reg.register(InputListOp::new())?;
    reg.register(OutputOp::new())?;
    Ok(())
}
