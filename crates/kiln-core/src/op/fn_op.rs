//! Ops declared from one Rust function: [`FnOp`].
//!
//! A builder names the op and its ports, then takes the function. For a function of one, two
//! or three floats (`float1`, `float2`, `float3`) the op's [`Op::execute`] calls that
//! function on the inputs it reads, and the scalar [`Kernel`] the evaluators run instead is
//! that very function, so the two paths cannot disagree. Any other signature (ints, vectors, params, several outputs) takes
//! the general form [`FnOpBuilder::run`], which reads the [`OpCall`] itself.
//!
//! The builder's type parameter counts the float inputs and outputs declared so far, so the
//! float forms are offered only when the function's arity matches the ports: asking for
//! `float2` on an op with three inputs does not compile.

use super::{InputSpec, Kernel, Op, OpCall, OpError, OpSpec, OutputSpec, ParamSpec};
use crate::value::{Value, ValueType};
use std::marker::PhantomData;
use std::sync::Arc;

/// The body of a general [`FnOp`]: reads the call, writes one value per output slot.
type CallFn = dyn Fn(&OpCall<'_>, &mut [Value]) -> Result<(), OpError> + Send + Sync;

/// The function an op was declared with.
#[derive(Clone)]
enum Body {
    Float1(fn(f64) -> f64),
    Float2(fn(f64, f64) -> f64),
    Float3(fn(f64, f64, f64) -> f64),
    Call(Arc<CallFn>),
}

/// A pure op made of a declaration and one function (see the [module docs](self)).
///
/// ```
/// use kiln_core::prelude::*;
///
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let lerp = FnOp::new("lerp", "Blend a to b by t.")
///         .input("a", 0.0, "start")
///         .input("b", 1.0, "end")
///         .input("t", 0.5, "amount")
///         .output("out", "a + (b - a) t")
///         .float3(|a, b, t| a + (b - a) * t);
///     let mut reg = Registry::new();
///     reg.register(lerp)?;
///
///     let mut graph = Graph::new();
///     graph.add_node("mix", "lerp")?;
///     graph.set_const("mix", "b", 10.0)?;
///     let mut eval = LazyEvaluator::new(reg);
///     let out = eval.evaluate(&graph, &Request::new(["mix"]), &EvalContext::new())?;
///     assert_eq!(out.get("mix"), Some(&Value::Float(5.0)));
///     Ok(())
/// }
/// ```
#[derive(Clone)]
pub struct FnOp {
    spec: OpSpec,
    body: Body,
}

impl FnOp {
    /// Start declaring a pure op with registry id `id` and documentation `doc` (version 1).
    #[expect(
        clippy::new_ret_no_self,
        reason = "a FnOp is made by finishing the builder this returns"
    )]
    pub fn new(id: &'static str, doc: &'static str) -> FnOpBuilder<Floats<0, 0>> {
        FnOpBuilder {
            spec: OpSpec::new(id, doc),
            shape: PhantomData,
        }
    }
}

impl Op for FnOp {
    fn spec(&self) -> &OpSpec {
        &self.spec
    }

    #[inline]
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let r = match &self.body {
            Body::Float1(f) => f(call.float(0)?),
            Body::Float2(f) => f(call.float(0)?, call.float(1)?),
            Body::Float3(f) => f(call.float(0)?, call.float(1)?, call.float(2)?),
            Body::Call(f) => return f(call, out),
        };
        match out.first_mut() {
            Some(slot) => {
                *slot = Value::Float(r);
                Ok(())
            }
            None => Err(OpError::new("the op has no output slot to write")),
        }
    }

    fn kernel(&self, inputs: &[Option<ValueType>], _params: &[Value]) -> Option<Kernel> {
        if inputs.iter().any(|t| *t != Some(ValueType::Float)) {
            return None;
        }
        match self.body {
            Body::Float1(f) => Some(Kernel::Unary(f)),
            Body::Float2(f) => Some(Kernel::Binary(f)),
            Body::Float3(f) => Some(Kernel::Ternary(f)),
            Body::Call(_) => None,
        }
    }
}

/// Builder state of a [`FnOpBuilder`]: `INPUTS` float inputs and `OUTPUTS` float outputs
/// declared so far, nothing else. `float1`, `float2` and `float3` are offered when `INPUTS`
/// is 1, 2 or 3 and at most one output is declared.
pub struct Floats<const INPUTS: usize, const OUTPUTS: usize>;

/// Builder state of a [`FnOpBuilder`] once a port is not a float one (or there are more than
/// three float inputs or more than one output): only [`FnOpBuilder::run`] finishes it.
pub struct General;

mod sealed {
    pub trait Shape {}
    impl<const I: usize, const O: usize> Shape for super::Floats<I, O> {}
    impl Shape for super::General {}
}

/// Declares a [`FnOp`]: made by [`FnOp::new`], finished by a float form (`float1`, `float2`,
/// `float3`) or by [`FnOpBuilder::run`]. Ports are listed in order; their names are what graph
/// files and error messages use.
pub struct FnOpBuilder<S> {
    spec: OpSpec,
    shape: PhantomData<S>,
}

impl<S: sealed::Shape> FnOpBuilder<S> {
    fn to<T>(self) -> FnOpBuilder<T> {
        FnOpBuilder {
            spec: self.spec,
            shape: PhantomData,
        }
    }
    fn push_float_input(mut self, name: &'static str, default: f64, doc: &'static str) -> Self {
        self.spec = self.spec.input(InputSpec::optional(
            name,
            ValueType::Float,
            Value::Float(default),
            doc,
        ));
        self
    }
    fn push_float_output(mut self, name: &'static str, doc: &'static str) -> Self {
        self.spec = self
            .spec
            .output(OutputSpec::new(name, ValueType::Float, doc));
        self
    }

    /// Set the version: bump it when results change, so old cache entries stop matching.
    pub fn version(mut self, version: u32) -> Self {
        self.spec = self.spec.version(version);
        self
    }
    /// Add an input of the type of `default`, taking `default` when unwired.
    pub fn input_of(
        mut self,
        name: &'static str,
        default: impl Into<Value>,
        doc: &'static str,
    ) -> FnOpBuilder<General> {
        let default = default.into();
        let ty = default.value_type().unwrap_or(ValueType::Any);
        self.spec = self.spec.input(InputSpec::optional(name, ty, default, doc));
        self.to()
    }
    /// Add an input declared in full (for example a collective one, see
    /// [`InputSpec::collective`]).
    pub fn input_spec(mut self, input: InputSpec) -> FnOpBuilder<General> {
        self.spec = self.spec.input(input);
        self.to()
    }
    /// Add an input of type `ty` that the graph must wire or set.
    pub fn required(
        mut self,
        name: &'static str,
        ty: ValueType,
        doc: &'static str,
    ) -> FnOpBuilder<General> {
        self.spec = self.spec.input(InputSpec::required(name, ty, doc));
        self.to()
    }
    /// Add a param of the type of `default` (a float function cannot see params, so this
    /// leads to [`FnOpBuilder::run`]).
    pub fn param(
        mut self,
        name: &'static str,
        default: impl Into<Value>,
        doc: &'static str,
    ) -> FnOpBuilder<General> {
        let default = default.into();
        let ty = default.value_type().unwrap_or(ValueType::Any);
        self.spec = self.spec.param(ParamSpec::new(name, ty, default, doc));
        self.to()
    }
    /// Add a param of the type of `default` that keeps `rule` (see [`crate::op::rule`]):
    /// validation and every evaluator refuse a value that breaks it, with the same message,
    /// and the body may check the same rule again (one declaration, used by all).
    pub fn param_ruled(
        mut self,
        name: &'static str,
        default: impl Into<Value>,
        doc: &'static str,
        rule: super::Rule,
    ) -> FnOpBuilder<General> {
        let default = default.into();
        let ty = default.value_type().unwrap_or(ValueType::Any);
        self.spec = self
            .spec
            .param(ParamSpec::new(name, ty, default, doc).with_rule(rule));
        self.to()
    }
    /// Mark the param declared last a plan-time port (see [`ParamSpec::plan_time`]).
    pub fn plan_time(mut self) -> FnOpBuilder<General> {
        if let Some(p) = self.spec.params.last_mut() {
            p.plan_time = true;
        }
        self.to()
    }
    /// Add an output of type `ty`.
    pub fn output_of(
        mut self,
        name: &'static str,
        ty: ValueType,
        doc: &'static str,
    ) -> FnOpBuilder<General> {
        self.spec = self.spec.output(OutputSpec::new(name, ty, doc));
        self.to()
    }
    /// Finish with a general body: it reads inputs and params from the call by port index
    /// (in declaration order) and writes one value per output slot. Errors about an input
    /// should name it ([`OpError::input`]); [`OpCall`]'s getters do.
    pub fn run(
        self,
        body: impl Fn(&OpCall<'_>, &mut [Value]) -> Result<(), OpError> + Send + Sync + 'static,
    ) -> FnOp {
        FnOp {
            spec: self.spec,
            body: Body::Call(Arc::new(body)),
        }
    }
}

impl<const I: usize, const O: usize> FnOpBuilder<Floats<I, O>> {
    /// Finish a float form: the declared output, or one named `out` when none was declared.
    fn float(mut self, body: Body) -> FnOp {
        if self.spec.outputs.is_empty() {
            self = self.push_float_output("out", "the result");
        }
        FnOp {
            spec: self.spec,
            body,
        }
    }
}

macro_rules! float_input {
    ($($from:literal => $to:ty),*) => {$(
        impl<const O: usize> FnOpBuilder<Floats<$from, O>> {
            /// Add a float input, taking `default` when unwired.
            pub fn input(
                self,
                name: &'static str,
                default: f64,
                doc: &'static str,
            ) -> FnOpBuilder<$to> {
                self.push_float_input(name, default, doc).to()
            }
        }
    )*};
}

float_input!(0 => Floats<1, O>, 1 => Floats<2, O>, 2 => Floats<3, O>, 3 => General);

impl<const I: usize> FnOpBuilder<Floats<I, 0>> {
    /// Add a float output.
    pub fn output(self, name: &'static str, doc: &'static str) -> FnOpBuilder<Floats<I, 1>> {
        self.push_float_output(name, doc).to()
    }
}

impl<const I: usize> FnOpBuilder<Floats<I, 1>> {
    /// Add a second float output (a float function has one, so this leads to
    /// [`FnOpBuilder::run`]).
    pub fn output(self, name: &'static str, doc: &'static str) -> FnOpBuilder<General> {
        self.push_float_output(name, doc).to()
    }
}

impl FnOpBuilder<General> {
    /// Add an input of the type of `default`, taking `default` when unwired (the same as
    /// [`FnOpBuilder::input_of`]).
    pub fn input(self, name: &'static str, default: impl Into<Value>, doc: &'static str) -> Self {
        self.input_of(name, default, doc)
    }
    /// Add a float output.
    pub fn output(self, name: &'static str, doc: &'static str) -> Self {
        self.push_float_output(name, doc)
    }
}

impl<const O: usize> FnOpBuilder<Floats<1, O>> {
    /// Finish with a function of the one float input. It is also the op's scalar kernel.
    pub fn float1(self, f: fn(f64) -> f64) -> FnOp {
        self.float(Body::Float1(f))
    }
}

impl<const O: usize> FnOpBuilder<Floats<2, O>> {
    /// Finish with a function of the two float inputs, in port order. It is also the op's
    /// scalar kernel.
    pub fn float2(self, f: fn(f64, f64) -> f64) -> FnOp {
        self.float(Body::Float2(f))
    }
}

impl<const O: usize> FnOpBuilder<Floats<3, O>> {
    /// Finish with a function of the three float inputs, in port order.
    pub fn float3(self, f: fn(f64, f64, f64) -> f64) -> FnOp {
        self.float(Body::Float3(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::EvalContext;
    use crate::op::PortIndex;

    fn hypot(a: f64, b: f64) -> f64 {
        (a * a + b * b).sqrt()
    }

    fn call<'a>(op: &FnOp, inputs: &'a [Value], ctx: &'a EvalContext) -> Result<Value, OpError> {
        let mut out = vec![Value::Empty; op.spec().outputs.len()];
        op.execute(
            &OpCall {
                inputs,
                params: &[],
                ctx,
                node: "n",
            },
            &mut out,
        )?;
        Ok(out.swap_remove(0))
    }

    #[test]
    fn the_declaration_is_what_the_builder_says() {
        let op = FnOp::new("geo.hypot", "Length of (a, b).")
            .input("a", 3.0, "first leg")
            .input("b", 4.0, "second leg")
            .output("len", "the hypotenuse")
            .version(3)
            .float2(hypot);
        let s = op.spec();
        assert_eq!(
            (&*s.id, &*s.doc, s.version),
            ("geo.hypot", "Length of (a, b).", 3)
        );
        let ins: Vec<_> = s
            .inputs
            .iter()
            .map(|i| (&*i.name, i.ty, i.default.clone(), &*i.doc))
            .collect();
        assert_eq!(
            ins,
            [
                ("a", ValueType::Float, Some(Value::Float(3.0)), "first leg"),
                ("b", ValueType::Float, Some(Value::Float(4.0)), "second leg"),
            ]
        );
        assert_eq!(s.outputs.len(), 1);
        assert_eq!(
            (&*s.outputs[0].name, s.outputs[0].ty),
            ("len", ValueType::Float)
        );
        assert_eq!(s.purity, crate::op::Purity::Pure);
        assert!(s.params.is_empty());
    }

    #[test]
    fn a_float_op_without_an_output_gets_out() {
        let op = FnOp::new("neg", "Minus x.")
            .input("x", 0.0, "x")
            .float1(|x| -x);
        let names: Vec<_> = op.spec().outputs.iter().map(|o| &*o.name).collect();
        assert_eq!(names, ["out"]);
        assert_eq!(op.spec().version, 1);
    }

    #[test]
    fn execute_and_kernel_apply_the_same_function() {
        let ctx = EvalContext::new();
        let op = FnOp::new("geo.hypot", "")
            .input("a", 0.0, "")
            .input("b", 0.0, "")
            .float2(hypot);
        let f = [Some(ValueType::Float); 2];
        let Some(Kernel::Binary(k)) = op.kernel(&f, &[]) else {
            panic!("a two-float function gives a binary kernel");
        };
        for (a, b) in [(3.0, 4.0), (0.1, 0.2), (-1e300, 1e300), (f64::NAN, 1.0)] {
            let by_execute = call(&op, &[Value::Float(a), Value::Float(b)], &ctx).unwrap();
            assert!(by_execute.same_bits(&Value::Float(k(a, b))));
            assert!(by_execute.same_bits(&Value::Float((a * a + b * b).sqrt())));
        }
        let un = FnOp::new("neg", "").input("x", 0.0, "").float1(|x| -x);
        let Some(Kernel::Unary(k)) = un.kernel(&[Some(ValueType::Float)], &[]) else {
            panic!("a one-float function gives a unary kernel");
        };
        assert_eq!(k(2.5), -2.5);
    }

    #[test]
    fn a_kernel_is_offered_only_for_float_inputs_and_one_or_two_of_them() {
        let two = FnOp::new("h", "")
            .input("a", 0.0, "")
            .input("b", 0.0, "")
            .float2(hypot);
        assert!(
            two.kernel(&[Some(ValueType::Float), Some(ValueType::Int)], &[])
                .is_none()
        );
        assert!(two.kernel(&[Some(ValueType::Float), None], &[]).is_none());
        let three = FnOp::new("l", "")
            .input("a", 0.0, "")
            .input("b", 0.0, "")
            .input("t", 0.0, "")
            .float3(|a, b, t| a + (b - a) * t);
        let Some(Kernel::Ternary(k)) = three.kernel(&[Some(ValueType::Float); 3], &[]) else {
            panic!("a three-float op has a ternary kernel");
        };
        assert_eq!(k(2.0, 6.0, 0.25), 3.0);
        let ctx = EvalContext::new();
        let v = [Value::Float(2.0), Value::Float(6.0), Value::Float(0.25)];
        assert_eq!(call(&three, &v, &ctx), Ok(Value::Float(3.0)));
        let general = FnOp::new("g", "").input("x", 0.0, "").run(|c, o| {
            o[0] = Value::Float(c.float(0)?);
            Ok(())
        });
        assert!(general.kernel(&[Some(ValueType::Float)], &[]).is_none());
    }

    #[test]
    fn a_wrong_input_type_is_an_error_naming_the_port() {
        let ctx = EvalContext::new();
        let op = FnOp::new("h", "")
            .input("a", 0.0, "")
            .input("b", 0.0, "")
            .float2(hypot);
        let e = call(&op, &[Value::Float(1.0), Value::str("x")], &ctx).unwrap_err();
        assert_eq!(e.port, Some(PortIndex::Input(1)));
        assert_eq!(op.spec().port_name(PortIndex::Input(1)), "input `b`");
        assert!(e.message.contains("string"), "{}", e.message);
        // An int (an int wired into a float port) reads as the float it stands for.
        assert_eq!(
            call(&op, &[Value::Int(3), Value::Float(4.0)], &ctx),
            Ok(Value::Float(5.0))
        );
    }

    #[test]
    fn the_general_form_takes_any_ports() {
        let op = FnOp::new("int.divmod", "Quotient and remainder.")
            .required("n", ValueType::Int, "dividend")
            .input_of("d", 3i64, "divisor")
            .param("offset", 0i64, "added to the quotient")
            .output_of("q", ValueType::Int, "quotient")
            .output_of("r", ValueType::Int, "remainder")
            .run(|c, o| {
                let d = c.int(1)?;
                if d == 0 {
                    return Err(OpError::input(1, "division by zero"));
                }
                o[0] = Value::Int(c.int(0)?.div_euclid(d) + c.param_int(0)?);
                o[1] = Value::Int(c.int(0)?.rem_euclid(d));
                Ok(())
            });
        let s = op.spec();
        assert_eq!(s.inputs[0].default, None);
        assert_eq!(s.inputs[1].ty, ValueType::Int);
        assert_eq!(s.params[0].ty, ValueType::Int);
        let ctx = EvalContext::new();
        let mut out = vec![Value::Empty; 2];
        let inputs = [Value::Int(17), Value::Int(5)];
        let params = [Value::Int(100)];
        let c = OpCall {
            inputs: &inputs,
            params: &params,
            ctx: &ctx,
            node: "n",
        };
        op.execute(&c, &mut out).unwrap();
        assert_eq!(out, [Value::Int(103), Value::Int(2)]);
        let zero = [Value::Int(1), Value::Int(0)];
        let c = OpCall { inputs: &zero, ..c };
        assert_eq!(
            op.execute(&c, &mut out).unwrap_err().port,
            Some(PortIndex::Input(1))
        );
    }

    #[test]
    fn a_fourth_float_input_or_a_second_output_needs_the_general_form() {
        let four = FnOp::new("sum4", "")
            .input("a", 1.0, "")
            .input("b", 2.0, "")
            .input("c", 3.0, "")
            .input("d", 4.0, "")
            .output("out", "")
            .run(|c, o| {
                o[0] = Value::Float(c.float(0)? + c.float(1)? + c.float(2)? + c.float(3)?);
                Ok(())
            });
        assert_eq!(four.spec().inputs.len(), 4);
        let two_out = FnOp::new("split", "")
            .input("x", 0.0, "")
            .output("lo", "")
            .output("hi", "")
            .run(|c, o| {
                o[0] = Value::Float(c.float(0)?.floor());
                o[1] = Value::Float(c.float(0)?.ceil());
                Ok(())
            });
        let names: Vec<_> = two_out.spec().outputs.iter().map(|o| &*o.name).collect();
        assert_eq!(names, ["lo", "hi"]);
        assert!(
            two_out
                .spec()
                .outputs
                .iter()
                .all(|o| o.ty == ValueType::Float)
        );
    }
}
