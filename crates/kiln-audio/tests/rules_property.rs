//! `validate` refuses what running refuses: for every op of the standard and audio libraries
//! that has params or ruled inputs, a node is given generated params (and constants at its
//! ruled inputs), drawn from values at and around the edges of what ops accept. Then it is
//! run (a tick evaluator, the latch through a recurrent driver, a signal op in a stream) and
//! validated at the stream's rate: the node fails to run exactly when validation reports a
//! `bad-value` for it, on the same port, with the same message.

use kiln_audio::AudioBuffer;
use kiln_core::eval::StreamError;
use kiln_core::prelude::*;
use kiln_core::recurrence::Recurrent;
use kiln_core::validate::validate_at_rate;
use proptest::prelude::*;
use std::sync::Arc;

/// The stream's rate: low, so a valid 600 s delay line stays small.
const RATE: u32 = 8_000;

/// Values of a param or constant of type `ty`, picked by `pick` (a random number): edges of
/// the ranges ops declare, values off them, and ordinary ones.
fn candidate(ty: ValueType, pick: u64, name: &str) -> Value {
    let floats = [
        0.0,
        -0.0,
        0.5,
        1.0,
        1.5,
        -1.0,
        -0.1,
        2.0,
        16.0,
        600.0,
        600.5,
        3_999.0,
        4_000.0,
        30_000.0,
        1e12,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let ints = [
        -1,
        0,
        1,
        2,
        3,
        16,
        17,
        256,
        257,
        16_384,
        16_385,
        4_800_000,
        4_800_001,
        10_000_001,
        i64::MIN,
        i64::MAX,
    ];
    let strings = [
        "", "x", "lowpass", "highpass", "bandpass", "notch", "shelf", "linear", "sinc",
    ];
    let i = pick as usize;
    match ty {
        ValueType::Float | ValueType::Number => Value::Float(floats[i % floats.len()]),
        // A channel above the fixture's two is refused only from the data: not a rule.
        ValueType::Int if name == "channel" => Value::Int([-1, 0, 1][i % 3]),
        ValueType::Int => Value::Int(ints[i % ints.len()]),
        ValueType::Bool => Value::Bool(i.is_multiple_of(2)),
        ValueType::String => Value::str(strings[i % strings.len()]),
        ValueType::Vec2 => Value::Vec2([floats[i % floats.len()], floats[(i / 7) % floats.len()]]),
        ValueType::Vec3 => Value::Vec3([floats[i % floats.len()], 0.0, 1.0]),
        ValueType::Vec4 => Value::Vec4([floats[i % floats.len()], 0.0, 1.0, 0.5]),
        ValueType::Color => Value::Color([0.5, 0.25, 1.0, 1.0]),
        ValueType::List => list(i),
        _ => Value::Float(1.0),
    }
}

/// A list param: ramp stops (good and broken ones) or sequence values.
fn list(i: usize) -> Value {
    let l = |v: Vec<Value>| Value::List(Arc::from(v));
    let stop = |p: Value, c: Value| l(vec![p, c]);
    match i % 9 {
        0 => l(vec![]),
        1 => l(vec![Value::Float(1.0), Value::Int(2), Value::Float(-0.5)]),
        2 => l(vec![Value::Float(1.0), Value::Float(f64::NAN)]),
        3 => l(vec![Value::str("x")]),
        4 => l(vec![
            stop(Value::Float(0.0), Value::str("#000000")),
            stop(Value::Float(1.0), Value::str("#ffffff")),
        ]),
        5 => l(vec![stop(Value::Float(0.5), Value::Vec3([1.0, 0.0, 0.0]))]),
        6 => l(vec![stop(
            Value::Float(f64::INFINITY),
            Value::str("#000000"),
        )]),
        7 => l(vec![stop(Value::Float(0.0), Value::str("blue"))]),
        _ => l(vec![l(vec![Value::Float(0.0)])]),
    }
}

/// The ops worth generating for: those with params or ruled inputs. (A graph input without a
/// default, `input.audio` or `input.image`, fails only for want of a value from the run,
/// whatever its params; the `scope.*` ops are written by the plan, never by a file, with
/// values the plan has checked; `record.get` fails on a record without its field.)
fn ops(reg: &Registry) -> Vec<String> {
    let mut ids: Vec<String> = reg
        .iter()
        .filter(|op| {
            let s = op.spec();
            !(s.role == kiln_core::op::Role::GraphInput && s.param_index("default").is_none())
        })
        .filter(|op| !op.spec().id.starts_with("scope."))
        // A record without the field asked for is refused only from the data: not a rule.
        .filter(|op| op.spec().id != "record.get")
        .filter(|op| {
            let s = op.spec();
            !s.params.is_empty() || s.inputs.iter().any(|i| i.rule.is_some())
        })
        .map(|op| op.spec().id.to_string())
        .collect();
    ids.sort();
    ids
}

/// A graph of node `n` (op `op`) with generated params and ruled constants, its required
/// inputs wired from fixtures.
fn graph(reg: &Registry, op: &str, picks: &[u64]) -> Graph {
    let spec = reg.get(op).unwrap().spec().clone();
    let mut g = Graph::new();
    g.add_node("n", op).unwrap();
    let mut picks = picks.iter().copied().cycle();
    for p in &spec.params {
        let pick = picks.next().unwrap_or(0);
        // Now and then the default, so valid combinations are common too.
        if p.default.is_some() && pick % 4 == 0 {
            continue;
        }
        // A graph input's name is one the run does not supply: its default counts.
        let v = match &*p.name {
            "name" if op.starts_with("input.") => Value::str("absent"),
            _ => candidate(p.ty, pick / 4, &p.name),
        };
        g.set_param("n", &p.name, v).unwrap();
    }
    for (k, i) in spec.inputs.iter().enumerate() {
        let pick = picks.next().unwrap_or(0);
        let fixture = format!("in{k}");
        match i.ty {
            _ if spec.delay => {
                g.add_node(fixture.as_str(), "const").unwrap();
                g.set_param(&fixture, "value", 1.0).unwrap();
                g.wire(&format!("{fixture}.out"), &format!("n.{}", i.name));
            }
            ValueType::Heavy("image") => {
                g.add_node(fixture.as_str(), "image.fill").unwrap();
                g.set_param(&fixture, "width", 4i64).unwrap();
                g.set_param(&fixture, "height", 3i64).unwrap();
                g.wire(&format!("{fixture}.out"), &format!("n.{}", i.name));
            }
            ValueType::Heavy("audio") => {
                g.add_node(fixture.as_str(), "input.audio").unwrap();
                g.set_param(&fixture, "name", "buf").unwrap();
                g.wire(&format!("{fixture}.out"), &format!("n.{}", i.name));
            }
            ValueType::Signal if i.default.is_none() => {
                g.add_node(fixture.as_str(), "osc.sine").unwrap();
                g.wire(&format!("{fixture}.out"), &format!("n.{}", i.name));
            }
            _ if i.rule.is_some() && pick % 3 != 0 => {
                let ty = if i.ty == ValueType::Signal {
                    ValueType::Float
                } else {
                    i.ty
                };
                g.set_const("n", &i.name, candidate(ty, pick / 3, &i.name))
                    .unwrap();
            }
            _ if i.default.is_none() => {
                let v = match i.ty {
                    ValueType::Vec2 => Value::Vec2([0.25, 0.5]),
                    ValueType::Bool => Value::Bool(false),
                    // An empty list sorts by any key; a record takes any field set.
                    ValueType::List | ValueType::ListOf(_) => Value::List(Arc::from(vec![])),
                    ValueType::Record => Value::record([]),
                    _ => Value::Float(0.5),
                };
                g.set_const("n", &i.name, v).unwrap();
            }
            _ => {}
        }
    }
    g
}

/// How running node `n` went: `None`, or the port it blamed and the message.
fn run(reg: &Registry, g: &Graph) -> Option<(Option<String>, String)> {
    let spec = reg.get(&g.node("n").unwrap().op).unwrap().spec().clone();
    let buffer = AudioBuffer {
        sample_rate: RATE,
        channels: 2,
        samples: vec![0.25; 8],
    };
    let ctx = EvalContext::new()
        .with_input("buf", buffer.into_value())
        .with_input("x", 1.0);
    let node_error = |e: EvalError| match e {
        EvalError::Node {
            node,
            port,
            message,
            ..
        } if node.as_str() == "n" => Some((port, message)),
        other => panic!("node n did not fail on its own: {other}"),
    };
    if spec.outputs.iter().any(|o| o.ty == ValueType::Signal) {
        let config = StreamConfig {
            sample_rate: RATE,
            block: 16,
            seed: 0,
        };
        return match StreamingEvaluator::with_context(reg.clone(), g, &["n"], config, &ctx) {
            Ok(mut s) => {
                s.render(32).unwrap();
                None
            }
            Err(StreamError::Node {
                node,
                port,
                message,
                ..
            }) if node.as_str() == "n" => Some((port, message)),
            Err(e) => panic!("node n did not fail on its own: {e}"),
        };
    }
    let request = Request::new(["n"]);
    let result = if spec.delay {
        Recurrent::new(LazyEvaluator::new(reg.clone()), reg.clone())
            .tick(g, &request, &ctx)
            .map(drop)
    } else {
        LazyEvaluator::new(reg.clone())
            .evaluate(g, &request, &ctx)
            .map(drop)
    };
    result.err().and_then(node_error)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn validate_refuses_exactly_what_running_refuses(
        which in any::<usize>(),
        picks in prop::collection::vec(any::<u64>(), 12),
    ) {
        let reg = kiln_audio::registry();
        let ids = ops(&reg);
        let op = &ids[which % ids.len()];
        let g = graph(&reg, op, &picks);
        let diags = validate_at_rate(&g, &reg, f64::from(RATE));
        let ran = run(&reg, &g);
        match ran {
            None => prop_assert!(diags.is_empty(), "{op}: ran, but validate says {diags:?}"),
            Some((port, message)) => {
                let found = diags.iter().any(|d| {
                    d.kind == DiagnosticKind::BadValue
                        && d.node.as_ref().map(|n| n.as_str()) == Some("n")
                        && d.port == port
                        && d.expected.as_ref().zip(d.found.as_ref())
                            .is_some_and(|(e, f)| format!("expected {e}, found {f}") == message)
                });
                prop_assert!(
                    found,
                    "{op}: running refused {port:?}: {message}, validate said {diags:?}"
                );
            }
        }
    }
}

#[test]
fn every_default_follows_its_rule() {
    let reg = kiln_audio::registry();
    let env = kiln_core::op::RuleEnv::at_rate(f64::from(RATE));
    for op in reg.iter() {
        let s = op.spec();
        for p in &s.params {
            if let (Some(rule), Some(d)) = (&p.rule, &p.default) {
                assert!(rule.check(d, &env).is_ok(), "{}: param {}", s.id, p.name);
            }
        }
        for i in &s.inputs {
            if let (Some(rule), Some(d)) = (&i.rule, &i.default) {
                assert!(rule.check(d, &env).is_ok(), "{}: input {}", s.id, i.name);
            }
        }
    }
}
