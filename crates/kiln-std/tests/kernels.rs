//! Scalar kernels are the ops themselves: for every standard op that offers a kernel on float
//! inputs, the kernel gives the same bits as the op's `execute` on `Value::Float` inputs, for
//! any floats — NaNs (with payloads and either sign), signed zeros, infinities, subnormals and
//! extreme magnitudes included. This is what makes the compiled and eager evaluators' scalar
//! fast path bit-identical to running the ops.

use kiln_core::eval::CompiledEvaluator;
use kiln_core::op::{Columns, Kernel};
use kiln_core::prelude::*;
use proptest::prelude::*;
use std::sync::Arc;

/// An op that offers a kernel on all-float inputs, as the compiled schedule would lower it.
struct KernelOp {
    op: Arc<dyn Op>,
    /// Number of input ports (= the kernel's arity).
    inputs: usize,
}

impl KernelOp {
    fn id(&self) -> &str {
        &self.op.spec().id
    }
    /// Params: each param's default; a required param gets `required`.
    fn params(&self, required: f64) -> Vec<Value> {
        self.op
            .spec()
            .params
            .iter()
            .map(|p| p.default.clone().unwrap_or(Value::Float(required)))
            .collect()
    }
    fn kernel(&self, params: &[Value]) -> Option<Kernel> {
        self.op
            .kernel(&vec![Some(ValueType::Float); self.inputs], params)
    }
}

/// Every standard op with a scalar kernel for float inputs (required params set to 1.0 to
/// ask; the checks below ask again with each case's param value).
fn kernel_ops() -> Vec<KernelOp> {
    let reg = kiln_std::registry();
    let mut ops = vec![];
    for op in reg.iter() {
        let spec = op.spec();
        let k = KernelOp {
            op: op.clone(),
            inputs: spec.inputs.len(),
        };
        let params = k.params(1.0);
        let Some(kernel) = k.kernel(&params) else {
            continue;
        };
        // What the compiled schedule checks before lowering a node: one float output, no
        // lazy inputs, a kernel reading every input.
        assert_eq!(
            spec.outputs.len(),
            1,
            "{}: a kernel needs one output",
            spec.id
        );
        assert!(
            !spec.has_lazy_inputs(),
            "{}: a kernel on a lazy op",
            spec.id
        );
        assert_eq!(
            kernel.arity(),
            k.inputs,
            "{}: the kernel's arity differs from the op's inputs",
            spec.id
        );
        let types = vec![Some(ValueType::Float); k.inputs];
        assert_eq!(
            op.infer_outputs(&types, &params),
            Ok(vec![ValueType::Float]),
            "{}: float inputs should give a float output",
            spec.id
        );
        ops.push(k);
    }
    ops
}

/// Floats that break careless code, beside ordinary ones.
fn special_floats() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        3.0,
        std::f64::consts::PI,
        -std::f64::consts::FRAC_PI_2,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff0_0000_0000_0001), // signalling NaN
        f64::from_bits(0xfff8_0000_dead_beef), // negative quiet NaN with a payload
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::from_bits(1),                     // smallest subnormal
        -f64::from_bits(1),                    // its negative
        f64::from_bits(0x000f_ffff_ffff_ffff), // largest subnormal
        f64::EPSILON,
        1e300,
        -1e300,
        1e-300,
        -1e-300,
        9_007_199_254_740_993.0, // 2^53 + 1 (rounds)
        -4.5,
        709.8, // exp overflows just above
        -745.2,
    ]
}

fn any_float() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => prop::sample::select(special_floats()),
        3 => any::<f64>(),
        2 => -10.0..10.0f64,
        1 => -1e-3..1e-3f64,
        1 => any::<u64>().prop_map(f64::from_bits),
    ]
}

fn bits(x: f64) -> String {
    format!("{x:?} ({:#018x})", x.to_bits())
}

/// Run `k`'s kernel and its `execute` on the same inputs and compare the bits.
fn check(k: &KernelOp, args: [f64; 2], param: f64) -> Result<(), TestCaseError> {
    let params = k.params(param);
    let kernel = k
        .kernel(&params)
        .ok_or_else(|| TestCaseError::fail(format!("{}: no kernel for {params:?}", k.id())))?;
    let inputs: Vec<Value> = args[..k.inputs].iter().map(|&x| Value::Float(x)).collect();
    let expected = match kernel {
        Kernel::Const(x) => x,
        Kernel::Unary(f) => f(args[0]),
        Kernel::Binary(f) => f(args[0], args[1]),
        Kernel::Ternary(_) => return Err(TestCaseError::fail("no std op has a ternary kernel")),
    };
    // The column forms, where the op offers them, give the kernel's bits in every form.
    let types = vec![Some(ValueType::Float); k.inputs];
    let forms: Vec<f64> = match k.op.columns(&types, &params) {
        None => vec![],
        Some(Columns::Unary(f)) => {
            let mut out = [args[0]];
            f(&mut out);
            vec![out[0]]
        }
        Some(Columns::Binary(c)) => {
            let (mut a, mut b, mut c1, mut d) = ([args[0]], [args[1]], [args[0]], [args[1]]);
            (c.own_fixed)(&mut a, args[1]);
            (c.fixed_own)(args[0], &mut b);
            (c.own_col)(&mut c1, &[args[1]]);
            (c.col_own)(&[args[0]], &mut d);
            vec![a[0], b[0], c1[0], d[0]]
        }
    };
    for got in forms {
        prop_assert!(
            got.to_bits() == expected.to_bits(),
            "{}{:?}: a column form gives {} where the kernel gives {}",
            k.id(),
            &args[..k.inputs],
            bits(got),
            bits(expected)
        );
    }
    let ctx = EvalContext::new();
    let call = OpCall {
        inputs: &inputs,
        params: &params,
        ctx: &ctx,
        node: "test",
    };
    let mut out = vec![Value::Empty; k.op.spec().outputs.len()];
    let got = k.op.execute(&call, &mut out);
    prop_assert!(
        got.is_ok(),
        "{}{:?} params {:?}: the kernel gives {} but execute fails: {:?}",
        k.id(),
        &args[..k.inputs],
        params,
        bits(expected),
        got
    );
    match out[0] {
        Value::Float(x) => prop_assert!(
            x.to_bits() == expected.to_bits(),
            "{}{:?} params {:?}: execute gives {}, the kernel {}",
            k.id(),
            &args[..k.inputs],
            params,
            bits(x),
            bits(expected)
        ),
        ref v => prop_assert!(
            false,
            "{}{:?}: execute gives {v:?}, not a float",
            k.id(),
            &args[..k.inputs]
        ),
    }
    Ok(())
}

#[test]
fn the_kernel_ops_are_the_ones_expected() {
    let ops = kernel_ops();
    let ids: Vec<&str> = ops.iter().map(|k| k.id()).collect();
    for id in [
        "const",
        "math.add",
        "math.sub",
        "math.mul",
        "math.div",
        "math.mod",
        "math.min",
        "math.max",
        "math.pow",
        "math.sin",
        "math.sqrt",
        "math.floor",
    ] {
        assert!(
            ids.contains(&id),
            "{id} offers no kernel; kernel ops: {ids:?}"
        );
    }
    // Ops that must not have one: lazy, several outputs, or not float maths.
    for id in ["switch", "error.raise", "clock.time"] {
        assert!(!ids.contains(&id), "{id} should offer no kernel");
    }
    // `const` offers one only for a float value.
    let c = ops.iter().find(|k| k.id() == "const").unwrap();
    assert!(c.kernel(&[Value::Int(1)]).is_none());
    assert!(c.kernel(&[Value::Bool(true)]).is_none());
}

#[test]
fn kernels_match_execute_on_the_special_floats() {
    let ops = kernel_ops();
    let specials = special_floats();
    for k in &ops {
        for &a in &specials {
            for &b in &specials {
                check(k, [a, b], a).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn kernels_match_execute_bit_for_bit(a in any_float(), b in any_float(), p in any_float()) {
        for k in &kernel_ops() {
            check(k, [a, b], p)?;
        }
    }
}

/// End to end: a node of each kernel op fed by graph inputs, run compiled (where the node is
/// lowered to its kernel) and lazily (where the op executes), gives the same bits.
fn compiled_graph(k: &KernelOp, param: f64) -> Graph {
    let mut g = Graph::new();
    let spec = k.op.spec();
    g.add_node("n", spec.id.as_ref()).unwrap();
    for p in &spec.params {
        if p.default.is_none() {
            g.set_param("n", &p.name, Value::Float(param)).unwrap();
        }
    }
    for (i, input) in spec.inputs.iter().enumerate() {
        let id = format!("in{i}");
        g.add_node(id.as_str(), "input.float").unwrap();
        g.set_param(id.as_str(), "name", id.as_str()).unwrap();
        g.wire(&format!("{id}.out"), &format!("n.{}", input.name));
    }
    g
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn compiled_and_lazy_evaluation_agree(a in any_float(), b in any_float(), p in any_float()) {
        let reg = kiln_std::registry();
        let ctx = EvalContext::new().with_input("in0", a).with_input("in1", b);
        for k in &kernel_ops() {
            let g = compiled_graph(k, p);
            let mut compiled = CompiledEvaluator::new(reg.clone()).with_background(false);
            let mut lazy = LazyEvaluator::new(reg.clone());
            let req = Request::new(["n"]);
            let c = compiled.evaluate(&g, &req, &ctx).map_err(|e| TestCaseError::fail(format!("{}: {e}", k.id())))?;
            let l = lazy.evaluate(&g, &req, &ctx).map_err(|e| TestCaseError::fail(format!("{}: {e}", k.id())))?;
            let (Some(Value::Float(x)), Some(Value::Float(y))) = (c.get("n"), l.get("n")) else {
                return Err(TestCaseError::fail(format!("{}: not floats: {:?} {:?}", k.id(), c.get("n"), l.get("n"))));
            };
            prop_assert!(x.to_bits() == y.to_bits(), "{}({}, {}): compiled {}, lazy {}", k.id(), bits(a), bits(b), bits(*x), bits(*y));
        }
    }
}
