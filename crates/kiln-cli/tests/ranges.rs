//! `validate` and running agree on every range an op declares, over the whole library the
//! `kiln` command loads (the standard nodes, images, audio, meshes, simulations): generated
//! from the registry, for every param and input whose rule is a range (`kiln_core::op::rule`,
//! ints or numbers), a value just outside it is refused by validation and by running the
//! node, on the same port with the same message, and the values at its ends are accepted by
//! validation. And no op refuses an int setting at run time on a range it does not declare:
//! `-1` in an int param without a rule runs as far as the default does. (Issue 37, item 9:
//! `validate` called graphs with an icosphere `level` of 40 valid, and `run` refused them.)

use kiln_audio::AudioBuffer;
use kiln_core::op::{Role, Rule};
use kiln_core::prelude::*;
use kiln_core::recurrence::Recurrent;
use kiln_core::validate::validate_at_rate;
use std::collections::BTreeMap;
use std::ops::Bound;

/// The stream's rate for signal ops, and the rate rules that depend on one are checked at.
const RATE: u32 = 8_000;

/// The library `kiln` loads.
fn registry() -> Registry {
    let mut reg = kiln_image::registry();
    kiln_audio::register(&mut reg).unwrap();
    kiln_mesh::register(&mut reg).unwrap();
    kiln_sim::register(&mut reg).unwrap();
    reg
}

/// For each heavy type, an op that makes one from nothing (the first by id, `.init` ops
/// first), with the size params it should be given to stay small.
fn producers(reg: &Registry) -> BTreeMap<&'static str, String> {
    let mut ops: Vec<&std::sync::Arc<dyn Op>> = reg.iter().collect();
    ops.sort_by_key(|op| (!op.spec().id.ends_with(".init"), op.spec().id.to_string()));
    let mut found = BTreeMap::new();
    for op in ops {
        let s = op.spec();
        let free = s.inputs.iter().all(|i| i.default.is_some())
            && s.params.iter().all(|p| p.default.is_some())
            && s.role == Role::Node
            && !s.delay;
        if let (true, Some(ValueType::Heavy(t))) = (free, s.outputs.first().map(|o| o.ty)) {
            found.entry(t).or_insert_with(|| s.id.to_string());
        }
    }
    // Cheap and known: a box, a small fill.
    found.insert("mesh", "mesh.box".into());
    found.insert("image", "image.fill".into());
    found
}

/// Wire node `n`'s input `name` from a new fixture node of op `op` (size params small).
fn fixture(g: &mut Graph, reg: &Registry, k: usize, op: &str, name: &str) {
    let id = format!("in{k}");
    g.add_node(id.as_str(), op).unwrap();
    let spec = reg.get(op).unwrap().spec();
    for side in ["width", "height"] {
        if spec
            .params
            .iter()
            .any(|p| p.name == side && p.ty == ValueType::Int)
        {
            g.set_param(&id, side, 8i64).unwrap();
        }
    }
    g.wire(&format!("{id}.out"), &format!("n.{name}"));
}

/// A graph of node `n` (op `op`), its params at their defaults, its required inputs wired
/// from fixtures or given constants; `None` where an input has nothing that can feed it.
fn graph(reg: &Registry, made: &BTreeMap<&'static str, String>, op: &str) -> Option<Graph> {
    let spec = reg.get(op).unwrap().spec().clone();
    let mut g = Graph::new();
    g.add_node("n", op).unwrap();
    if spec.role == Role::GraphInput && spec.param_index("name").is_some() {
        g.set_param("n", "name", "absent").unwrap();
    }
    for (k, i) in spec.inputs.iter().enumerate() {
        if spec.delay {
            g.add_node(format!("in{k}").as_str(), "const").unwrap();
            g.set_param(&format!("in{k}"), "value", 1.0).unwrap();
            g.wire(&format!("in{k}.out"), &format!("n.{}", i.name));
            continue;
        }
        if i.default.is_some() {
            continue;
        }
        match i.ty {
            ValueType::Heavy("audio") => {
                g.add_node(format!("in{k}").as_str(), "input.audio")
                    .unwrap();
                g.set_param(&format!("in{k}"), "name", "buf").unwrap();
                g.wire(&format!("in{k}.out"), &format!("n.{}", i.name));
            }
            ValueType::Heavy(t) => fixture(&mut g, reg, k, made.get(t)?, &i.name),
            ValueType::Signal => fixture(&mut g, reg, k, "osc.sine", &i.name),
            ty => {
                let v = match ty {
                    ValueType::Int => Value::Int(1),
                    ValueType::Vec2 => Value::Vec2([0.25, 0.5]),
                    ValueType::Vec3 => Value::Vec3([0.25, 0.5, 0.75]),
                    ValueType::Vec4 => Value::Vec4([0.25, 0.5, 0.75, 1.0]),
                    ValueType::Color => Value::Color([0.5, 0.25, 1.0, 1.0]),
                    ValueType::Bool => Value::Bool(false),
                    ValueType::String => Value::str("x"),
                    ValueType::Record => Value::record([("x", Value::Float(0.5))]),
                    ValueType::List | ValueType::ListOf(_) => Value::list([]),
                    _ => Value::Float(0.5),
                };
                g.set_const("n", &i.name, v).unwrap();
            }
        }
    }
    Some(g)
}

/// How running node `n` went: `None`, or the port it blamed and the message; `Err` when
/// something else failed (a fixture, or the graph could not be planned).
fn run(reg: &Registry, g: &Graph) -> Result<Option<(Option<String>, String)>, String> {
    let spec = reg.get(&g.node("n").unwrap().op).unwrap().spec().clone();
    let buffer = AudioBuffer {
        sample_rate: RATE,
        channels: 2,
        samples: vec![0.25; 8],
    };
    let mut ctx = EvalContext::new().with_input("buf", buffer.into_value());
    ctx.resolution = Some((8, 8));
    let node_error = |e: EvalError| match e {
        EvalError::Node {
            node,
            port,
            message,
            ..
        } if node.as_str() == "n" => Ok(Some((port, message))),
        other => Err(other.to_string()),
    };
    if spec.outputs.iter().any(|o| o.ty == ValueType::Signal) {
        let config = StreamConfig {
            sample_rate: RATE,
            block: 16,
            seed: 0,
        };
        return match StreamingEvaluator::with_context(reg.clone(), g, &["n"], config, &ctx) {
            Ok(mut s) => s.render(32).map(|_| None).map_err(|e| e.to_string()),
            Err(StreamError::Node {
                node,
                port,
                message,
                ..
            }) if node.as_str() == "n" => Ok(Some((port, message))),
            Err(e) => Err(e.to_string()),
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
    match result {
        Ok(()) => Ok(None),
        Err(e) => node_error(e),
    }
}

/// The `bad-value` validation reports for node `n` on `port`, as one message.
fn refusal(reg: &Registry, g: &Graph, port: &str) -> Option<String> {
    validate_at_rate(g, reg, f64::from(RATE))
        .into_iter()
        .find(|d| {
            d.kind == DiagnosticKind::BadValue
                && d.node.as_ref().map(|n| n.as_str()) == Some("n")
                && d.port.as_deref() == Some(port)
        })
        .map(|d| {
            format!(
                "expected {}, found {}",
                d.expected.unwrap_or_default(),
                d.found.unwrap_or_default()
            )
        })
}

/// Values just outside a range rule, and values at its ends (inside).
fn probes(rule: &Rule) -> Option<(Vec<Value>, Vec<Value>)> {
    match *rule {
        Rule::Ints { min, max } => {
            let mut outside = vec![];
            if min > i64::MIN {
                outside.push(Value::Int(min - 1));
            }
            if max < i64::MAX {
                outside.push(Value::Int(max + 1));
            }
            Some((outside, vec![Value::Int(min), Value::Int(max)]))
        }
        Rule::Number { min, max } => {
            let (mut outside, mut inside) = (vec![], vec![]);
            match min {
                Bound::Included(x) => {
                    outside.push(Value::Float(x.next_down()));
                    inside.push(Value::Float(x));
                }
                Bound::Excluded(x) => {
                    outside.push(Value::Float(x));
                    inside.push(Value::Float(x.next_up()));
                }
                Bound::Unbounded => {}
            }
            match max {
                Bound::Included(x) => {
                    outside.push(Value::Float(x.next_up()));
                    inside.push(Value::Float(x));
                }
                Bound::Excluded(x) => {
                    outside.push(Value::Float(x));
                    inside.push(Value::Float(x.next_down()));
                }
                Bound::Unbounded => {}
            }
            Some((outside, inside))
        }
        _ => None,
    }
}

/// The ops a file may hold, by id (the `scope.*` ops are written by the plan, with values
/// it checked).
fn op_ids(reg: &Registry) -> Vec<String> {
    let mut ids: Vec<String> = reg
        .iter()
        .map(|op| op.spec().id.to_string())
        .filter(|id| !id.starts_with("scope."))
        .collect();
    ids.sort();
    ids
}

#[test]
fn validate_and_running_refuse_a_value_just_outside_every_declared_range_alike() {
    let reg = registry();
    let made = producers(&reg);
    let (mut checked, mut unrunnable) = (0, vec![]);
    let mut ranged_ops = std::collections::BTreeSet::new();
    for op in op_ids(&reg) {
        let spec = reg.get(&op).unwrap().spec().clone();
        let Some(base) = graph(&reg, &made, &op) else {
            continue;
        };
        // (port name as diagnostics give it, is a param, name, rule)
        let mut ranged = vec![];
        for p in &spec.params {
            if let Some(r) = &p.rule {
                ranged.push((format!("param `{}`", p.name), true, p.name.to_string(), *r));
            }
        }
        for i in &spec.inputs {
            if let Some(r) = &i.rule {
                ranged.push((format!("input `{}`", i.name), false, i.name.to_string(), *r));
            }
        }
        for (port, is_param, name, rule) in ranged {
            let Some((outside, inside)) = probes(&rule) else {
                continue;
            };
            ranged_ops.insert(format!("{op} {name}"));
            let with = |v: &Value| {
                let mut g = base.clone();
                if is_param {
                    g.set_param("n", &name, v.clone()).unwrap();
                } else {
                    g.set_const("n", &name, v.clone()).unwrap();
                }
                g
            };
            // What the range says it expects (a rule over several params together may still
            // refuse an end of one, with a message of its own).
            let env = kiln_core::op::RuleEnv::at_rate(f64::from(RATE));
            let expects = outside
                .first()
                .and_then(|v| rule.check(v, &env).err())
                .map(|e| format!("expected {}, ", e.expected));
            for v in &inside {
                let g = with(v);
                if let (Some(said), Some(expects)) = (refusal(&reg, &g, &port), &expects) {
                    assert!(!said.starts_with(expects), "{op} {port} = {v:?}: {said}");
                }
            }
            for v in &outside {
                let g = with(v);
                let said = refusal(&reg, &g, &port)
                    .unwrap_or_else(|| panic!("{op}: validate accepts {port} = {v:?}"));
                match run(&reg, &g) {
                    Ok(Some((p, message))) => {
                        assert_eq!(p.as_deref(), Some(port.as_str()), "{op} {v:?}: {message}");
                        assert_eq!(message, said, "{op} {port} = {v:?}");
                        checked += 1;
                    }
                    Ok(None) => panic!("{op}: ran with {port} = {v:?}, validate said {said}"),
                    Err(e) => unrunnable.push(format!("{op} {port} = {v:?}: {e}")),
                }
            }
        }
    }
    // The settings of issue 37 are among the ranges, each declared once for both.
    for want in [
        "mesh.icosphere level",
        "mesh.subdivide levels",
        "mesh.segments sides",
        "mesh.grid cols",
        "mesh.grid rows",
        "mesh.scatter count",
        "mesh.displace octaves",
        "sim.view channel",
    ] {
        assert!(ranged_ops.contains(want), "{want} declares no range");
    }
    assert!(checked > 100, "only {checked} values were run");
    assert!(unrunnable.is_empty(), "{unrunnable:#?}");
}

#[test]
fn no_op_refuses_an_int_setting_on_a_range_it_does_not_declare() {
    let reg = registry();
    let made = producers(&reg);
    let mut undeclared = vec![];
    for op in op_ids(&reg) {
        let spec = reg.get(&op).unwrap().spec().clone();
        let Some(base) = graph(&reg, &made, &op) else {
            continue;
        };
        let default_run = run(&reg, &base);
        for p in &spec.params {
            if p.ty != ValueType::Int || p.rule.is_some() {
                continue;
            }
            let port = format!("param `{}`", p.name);
            let mut g = base.clone();
            g.set_param("n", &p.name, -1i64).unwrap();
            if let Ok(Some((Some(blamed), message))) = run(&reg, &g)
                && blamed == port
                && default_run != Ok(Some((Some(port.clone()), message.clone())))
                && refusal(&reg, &g, &port).is_none()
            {
                undeclared.push(format!("{op} {port} = -1: {message}"));
            }
        }
    }
    assert!(undeclared.is_empty(), "{undeclared:#?}");
}
