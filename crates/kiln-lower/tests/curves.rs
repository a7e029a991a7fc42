//! Keyframed curves: step, linear and Bézier samples against values worked out by hand,
//! vectors and colours per component, the params encoding and its round trip, typed
//! errors, and `curve.sample` keyed by its value (a held stretch cooks nothing downstream).

use kiln_core::prelude::*;
use kiln_lower::anim::{self, Curve, CurveError, CurveKey, CurveKind, Handle, Interp};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn list(items: Vec<Value>) -> Value {
    Value::List(items.into())
}

/// `[[t, v], ...]` for float values.
fn keys(pairs: &[(f64, f64)]) -> Value {
    list(
        pairs
            .iter()
            .map(|&(t, v)| list(vec![Value::Float(t), Value::Float(v)]))
            .collect(),
    )
}

fn curve(interp: &str, pairs: &[(f64, f64)]) -> Curve {
    Curve::from_params(&keys(pairs), &Value::str(interp)).unwrap()
}

fn f(v: Value) -> f64 {
    v.as_f64().unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn step_holds_the_previous_key() {
    let c = curve("step", &[(0.0, 1.0), (1.0, 5.0), (3.0, -2.0)]);
    assert_eq!(f(c.sample(-10.0)), 1.0);
    assert_eq!(f(c.sample(0.0)), 1.0);
    assert_eq!(f(c.sample(0.999)), 1.0);
    assert_eq!(f(c.sample(1.0)), 5.0);
    assert_eq!(f(c.sample(2.9)), 5.0);
    assert_eq!(f(c.sample(3.0)), -2.0);
    assert_eq!(f(c.sample(100.0)), -2.0);
}

#[test]
fn linear_draws_straight_lines_and_holds_the_ends() {
    let c = curve("linear", &[(0.0, 0.0), (2.0, 4.0), (3.0, 1.0)]);
    assert_eq!(f(c.sample(-1.0)), 0.0);
    assert_eq!(f(c.sample(0.5)), 1.0); // 0 + 4 · 0.25
    assert_eq!(f(c.sample(1.0)), 2.0);
    assert_eq!(f(c.sample(2.0)), 4.0);
    assert_eq!(f(c.sample(2.5)), 2.5); // 4 + (1 - 4) · 0.5
    assert_eq!(f(c.sample(7.0)), 1.0);
    // A single key is a constant.
    let one = curve("linear", &[(1.0, 3.0)]);
    assert_eq!(f(one.sample(0.0)), 3.0);
    assert_eq!(f(one.sample(9.0)), 3.0);
}

/// The cubic Bézier through control values `y` at parameter `s`, by its Bernstein form.
fn bernstein(y: [f64; 4], s: f64) -> f64 {
    let r = 1.0 - s;
    r * r * r * y[0] + 3.0 * s * r * r * y[1] + 3.0 * s * s * r * y[2] + s * s * s * y[3]
}

#[test]
fn bezier_with_automatic_handles() {
    // Keys (0,0), (1,1), (3,3). Slopes: 0 at the ends; at key 1 Catmull–Rom (3-0)/(3-0) = 1
    // (the secants are 1 and 1, so the limit 3 does not bite). Handles at thirds:
    // segment 0: y = 0, 0 + 0, 1 - 1·(1/3), 1 = [0, 0, 2/3, 1]; at t = 0.5 (s = 0.5):
    //   (0 + 0 + 3·(2/3) + 1) / 8 = 3/8.
    // segment 1 (length 2): y = [1, 1 + 1·(2/3), 3 - 0, 3] = [1, 5/3, 3, 3]; at t = 2:
    //   (1 + 3·(5/3) + 3·3 + 3) / 8 = 18/8 = 2.25.
    let c = curve("bezier", &[(0.0, 0.0), (1.0, 1.0), (3.0, 3.0)]);
    assert!(close(f(c.sample(0.5)), 0.375));
    assert!(close(f(c.sample(2.0)), 2.25));
    assert!(close(
        f(c.sample(0.25)),
        bernstein([0.0, 0.0, 2.0 / 3.0, 1.0], 0.25)
    ));
    assert!(close(
        f(c.sample(2.5)),
        bernstein([1.0, 5.0 / 3.0, 3.0, 3.0], 0.75)
    ));
    assert_eq!(f(c.sample(1.0)), 1.0);
    assert_eq!(f(c.sample(3.0)), 3.0);
    assert_eq!(f(c.sample(9.0)), 3.0);
}

#[test]
fn bezier_is_flat_at_extrema_and_does_not_overshoot() {
    // (0,0), (1,2), (2,0): key 1 is a maximum, so its slope is 0:
    // segment 0: y = [0, 0, 2, 2]; s = 0.5: (0 + 0 + 6 + 2)/8 = 1;
    // s = 0.25: 3·(1/16)·(3/4)·2 + (1/64)·2 = 18/64 + 2/64 = 0.3125.
    let c = curve("bezier", &[(0.0, 0.0), (1.0, 2.0), (2.0, 0.0)]);
    assert!(close(f(c.sample(0.5)), 1.0));
    assert!(close(f(c.sample(0.25)), 0.3125));
    assert!(close(f(c.sample(1.5)), 1.0));
    for i in 0..=200 {
        let v = f(c.sample(i as f64 / 100.0));
        assert!((0.0..=2.0).contains(&v), "overshoot: {v}");
    }
    // (0,0), (1,1), (1.1,10): Catmull–Rom would give 10/1.1 ≈ 9.09 at key 1; the limit is
    // 3 · min(1/1, 9/0.1) = 3, so segment 0 is y = [0, 0, 1 - 3·(1/3), 1] = [0, 0, 0, 1]
    // and at s = 0.5 it is 1/8 (with 9.09 its left handle would dip below 0).
    let c = curve("bezier", &[(0.0, 0.0), (1.0, 1.0), (1.1, 10.0)]);
    assert!(close(f(c.sample(0.5)), 0.125));
    for i in 0..=110 {
        let v = f(c.sample(i as f64 / 100.0));
        assert!((-1e-12..=10.0).contains(&v), "overshoot at {i}: {v}");
    }
}

#[test]
fn bezier_with_explicit_handles_solves_time_for_the_parameter() {
    // Segment from (0, 0) to (1, 1); right handle of key 0: (+0.6, 0), left handle of
    // key 1: (-0.1, 0). Control times x = [0, 0.6, 0.9, 1], values y = [0, 0, 1, 1].
    // At s = 0.5: x = (0 + 3·0.6 + 3·0.9 + 1)/8 = 0.6875, y = (0 + 0 + 3 + 1)/8 = 0.5.
    // At s = 0.25 (Bernstein weights 27/64, 27/64, 9/64, 1/64):
    //   x = 0.6·27/64 + 0.9·9/64 + 1/64 = 0.3953125, y = 9/64 + 1/64 = 0.15625.
    let h = |dt: f64, dv: f64| list(vec![Value::Float(dt), Value::Float(dv)]);
    let k = list(vec![
        list(vec![
            Value::Float(0.0),
            Value::Float(0.0),
            h(-1.0, 0.0),
            h(0.6, 0.0),
        ]),
        list(vec![
            Value::Float(1.0),
            Value::Float(1.0),
            h(-0.1, 0.0),
            h(0.5, 0.0),
        ]),
    ]);
    let c = Curve::from_params(&k, &Value::str("bezier")).unwrap();
    assert!(close(f(c.sample(0.6875)), 0.5));
    assert!(close(f(c.sample(0.3953125)), 0.15625));
    // The same keys under linear ignore the handles.
    let lin = Curve::from_params(&k, &Value::str("linear")).unwrap();
    assert_eq!(f(lin.sample(0.6875)), 0.6875);
}

#[test]
fn vectors_and_colours_interpolate_per_component() {
    let k = list(vec![
        list(vec![Value::Float(0.0), Value::Vec3([0.0, 10.0, -4.0])]),
        list(vec![Value::Float(4.0), Value::Vec3([8.0, 10.0, 4.0])]),
    ]);
    let c = Curve::from_params(&k, &Value::str("linear")).unwrap();
    assert_eq!(c.kind(), CurveKind::Vec3);
    assert_eq!(c.sample(1.0), Value::Vec3([2.0, 10.0, -2.0]));
    // A list of numbers is a vector; ints are floats.
    let k = list(vec![
        list(vec![
            Value::Int(0),
            list(vec![Value::Int(0), Value::Int(2)]),
        ]),
        list(vec![
            Value::Int(2),
            list(vec![Value::Int(4), Value::Int(2)]),
        ]),
    ]);
    let c = Curve::from_params(&k, &Value::str("linear")).unwrap();
    assert_eq!(c.sample(1.0), Value::Vec2([2.0, 2.0]));
    // Colours: hex strings; half way from black to #ff0000 (alpha 1 at both).
    let k = list(vec![
        list(vec![Value::Float(0.0), Value::str("#000000")]),
        list(vec![Value::Float(1.0), Value::str("#ff0000")]),
    ]);
    let c = Curve::from_params(&k, &Value::str("linear")).unwrap();
    assert_eq!(c.kind(), CurveKind::Color);
    assert_eq!(c.sample(0.5), Value::Color([0.5, 0.0, 0.0, 1.0]));
    assert_eq!(c.sample(1.0), Value::Color([1.0, 0.0, 0.0, 1.0]));
}

#[test]
fn params_round_trip() {
    let keys = vec![
        CurveKey::new(0.0, 1.0),
        CurveKey::new(0.5, 2.0).with_handles(
            Handle {
                dt: -0.25,
                dv: Value::Float(-1.0),
            },
            Handle {
                dt: 0.1,
                dv: Value::Int(3),
            },
        ),
        CurveKey::new(2.0, Value::Int(0)),
    ];
    let c = Curve::new(Interp::Bezier, keys).unwrap();
    let back = Curve::from_params(&c.to_value(), &c.interp_value()).unwrap();
    assert_eq!(back, c);
    assert_eq!(c.keys()[2].value, Value::Float(0.0));
    for i in 0..40 {
        let t = i as f64 * 0.05;
        assert_eq!(back.sample(t), c.sample(t));
    }
}

#[test]
fn bad_curves_are_typed_errors() {
    let err = |k: Value, i: &str| Curve::from_params(&k, &Value::str(i)).unwrap_err();
    assert_eq!(err(list(vec![]), "linear"), CurveError::Empty);
    assert_eq!(
        err(Value::Float(1.0), "linear"),
        CurveError::NotAList("float")
    );
    assert_eq!(
        err(keys(&[(0.0, 1.0), (0.0, 2.0)]), "linear"),
        CurveError::Unsorted {
            index: 1,
            time: 0.0,
            previous: 0.0
        }
    );
    assert!(matches!(
        err(keys(&[(1.0, 1.0), (0.5, 2.0)]), "step"),
        CurveError::Unsorted { index: 1, .. }
    ));
    assert_eq!(
        err(keys(&[(0.0, 1.0), (f64::NAN, 2.0)]), "linear"),
        CurveError::NotFinite {
            index: 1,
            part: "time"
        }
    );
    assert_eq!(
        err(keys(&[(0.0, f64::NAN)]), "linear"),
        CurveError::NotFinite {
            index: 0,
            part: "value"
        }
    );
    let mixed = list(vec![
        list(vec![Value::Float(0.0), Value::Float(1.0)]),
        list(vec![Value::Float(1.0), Value::Vec2([1.0, 2.0])]),
    ]);
    assert_eq!(
        err(mixed, "linear"),
        CurveError::MixedTypes {
            index: 1,
            expected: "float",
            found: "vec2"
        }
    );
    assert!(matches!(
        err(keys(&[(0.0, 1.0)]), "cubic"),
        CurveError::BadInterp(_)
    ));
    let not_a_key = list(vec![list(vec![Value::Float(0.0)])]);
    assert!(matches!(
        err(not_a_key, "linear"),
        CurveError::BadKey { index: 0, .. }
    ));
    let string_value = list(vec![list(vec![Value::Float(0.0), Value::str("hello")])]);
    assert!(matches!(
        err(string_value, "linear"),
        CurveError::BadKey { index: 0, .. }
    ));
    // A right handle reaching past the next key.
    let h = |dt: f64| list(vec![Value::Float(dt), Value::Float(0.0)]);
    let far = list(vec![
        list(vec![Value::Float(0.0), Value::Float(0.0), h(0.0), h(1.5)]),
        list(vec![Value::Float(1.0), Value::Float(1.0)]),
    ]);
    assert_eq!(
        err(far, "bezier"),
        CurveError::HandleOutOfRange {
            index: 0,
            side: "right",
            dt: 1.5,
            min: 0.0,
            max: 1.0
        }
    );
}

/// Passes `x` through and counts its executions.
struct Count(OpSpec, Arc<AtomicUsize>);

impl Op for Count {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        self.1.fetch_add(1, Ordering::Relaxed);
        out[0] = call.inputs[0].clone();
        Ok(())
    }
}

fn counting_registry() -> (Registry, Arc<AtomicUsize>) {
    let mut reg = Registry::new();
    anim::register(&mut reg).unwrap();
    let n = Arc::new(AtomicUsize::new(0));
    reg.register(Count(
        OpSpec::new("count", "Passes x through, counting executions.")
            .input(InputSpec::required("x", ValueType::Any, "value"))
            .output(OutputSpec::new("out", ValueType::Any, "the same value")),
        n.clone(),
    ))
    .unwrap();
    (reg, n)
}

#[test]
fn a_held_stretch_keys_equal_and_cooks_nothing_downstream() {
    let (reg, cooked) = counting_registry();
    // Linear: 0 → 1 over [0, 1], held at 1 over [1, 2], then up to 2 at 3.
    let mut g = Graph::new();
    g.add_node("anim", anim::CURVE_SAMPLE_OP).unwrap();
    g.set_param(
        "anim",
        "keys",
        keys(&[(0.0, 0.0), (1.0, 1.0), (2.0, 1.0), (3.0, 2.0)]),
    )
    .unwrap();
    g.add_node("down", "count").unwrap();
    g.wire("anim.out", "down.x");
    let frames: [(f64, f64); 8] = [
        (0.5, 0.5),
        (1.0, 1.0),
        (1.25, 1.0),
        (1.5, 1.0),
        (2.0, 1.0),
        (2.5, 1.5),
        (2.75, 1.75),
        (2.75, 1.75),
    ];
    // Cooks of `down` after each frame: a new value at 0.5, 1.0, 2.5, 2.75; the held
    // stretch 1.0..=2.0 and the repeated frame add none.
    let expected = [1, 2, 2, 2, 2, 3, 4, 4];
    let evals: Vec<Box<dyn Evaluator>> = vec![
        Box::new(LazyEvaluator::new(reg.clone())),
        Box::new(IncrementalEvaluator::new(reg.clone())),
    ];
    for mut eval in evals {
        cooked.store(0, Ordering::Relaxed);
        for (&(t, v), &n) in frames.iter().zip(&expected) {
            let mut ctx = EvalContext::new();
            ctx.time = t;
            let out = eval.evaluate(&g, &Request::new(["down"]), &ctx).unwrap();
            assert_eq!(out.get("down"), Some(&Value::Float(v)), "t = {t}");
            assert_eq!(cooked.load(Ordering::Relaxed), n, "cooks after t = {t}");
        }
    }
    // The sampler's key itself is equal across the stretch.
    let plan = kiln_core::plan::Plan::build(&g, &reg).unwrap();
    let key = |t: f64| {
        let mut ctx = EvalContext::new();
        ctx.time = t;
        plan.node_key(0, &ctx, 0, |_| Key::default())
    };
    assert_eq!(key(1.0), key(1.7));
    assert_eq!(key(1.0), key(2.0));
    assert_ne!(key(1.0), key(2.5));
}

#[test]
fn a_bad_curve_is_a_validation_error_naming_the_node() {
    let (reg, _) = counting_registry();
    let mut g = Graph::new();
    g.add_node("anim", anim::CURVE_SAMPLE_OP).unwrap();
    g.set_param("anim", "keys", keys(&[(1.0, 0.0), (0.0, 1.0)]))
        .unwrap();
    // Validation refuses the keys by their rule...
    let diags = kiln_core::validate::validate(&g, &reg);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].kind, kiln_core::validate::DiagnosticKind::BadValue);
    let shown = diags[0].to_string();
    assert!(
        shown.contains("anim") && shown.contains("increase strictly"),
        "{shown}"
    );
    // ...and a run refuses them with the same words, naming the node and the param.
    let mut eval = LazyEvaluator::new(reg);
    let err = eval
        .evaluate(&g, &Request::new(["anim"]), &EvalContext::new())
        .unwrap_err();
    let EvalError::Node {
        node,
        port,
        message,
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(node.as_str(), "anim");
    assert_eq!(port.as_deref(), Some("param `keys`"));
    assert!(
        message.contains("increase strictly") && shown.contains(message.as_str()),
        "{message} / {shown}"
    );
}
