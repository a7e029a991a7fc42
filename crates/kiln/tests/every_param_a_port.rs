//! Every param of every op is also an input port of its name (issue 29). For each op and
//! each of its params, with the param's default as the value, three graphs must agree under
//! every evaluator:
//!
//! * the constant: the value under `params`, as files have always written it;
//! * a graph input wired into the port, written out by the plan (which writes the input's
//!   value into the param);
//! * a `const` node wired into the port, a value known only while cooking: the same bits
//!   through the engine's wired-param path, or, for a plan-time param, a refusal that names
//!   the node and the port.
//!
//! Required inputs are fed by a constant of their type, or by the first generator of the
//! registry that makes their type from nothing.

use kiln::EvaluatorKind;
use kiln::core::op::rule::{Rule, RuleEnv};
use kiln::core::op::{ParamSpec, Role};
use kiln::core::plan::Plan;
use kiln::lower::lower::lower;
use kiln::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A constant of type `ty` for a required input, when a constant can be one.
fn constant_of(ty: ValueType) -> Option<Value> {
    Some(match ty {
        ValueType::Float | ValueType::Number | ValueType::Any => Value::Float(0.5),
        ValueType::Int => Value::Int(2),
        ValueType::Bool => Value::Bool(true),
        ValueType::Vec2 => Value::Vec2([0.5, 0.25]),
        ValueType::Vec3 => Value::Vec3([0.5, 0.25, 0.75]),
        ValueType::Vec4 => Value::Vec4([0.5, 0.25, 0.75, 1.0]),
        ValueType::Color => Value::Color([0.5, 0.25, 0.75, 1.0]),
        ValueType::String => Value::str("a"),
        ValueType::Signal => Value::Float(0.5),
        _ => return None,
    })
}

/// A value of param `p` other than its default that its rule accepts, so that a wire that
/// were ignored would show; the default when no simple change is accepted.
fn other_value(p: &ParamSpec, default: &Value) -> Value {
    let nudge = |x: f64| if x == 0.0 { 0.5 } else { x * 0.75 };
    let candidates: Vec<Value> = match (default, p.rule) {
        (Value::Str(_), Some(Rule::OneOf(choices))) => {
            choices.iter().map(|c| Value::str(c)).collect()
        }
        (Value::Int(i), _) => vec![Value::Int(i + 1), Value::Int(i - 1)],
        (Value::Float(x), _) => vec![Value::Float(nudge(*x)), Value::Float(x + 0.25)],
        (Value::Bool(b), _) => vec![Value::Bool(!b)],
        (Value::Vec2([a, b]), _) => vec![Value::Vec2([nudge(*a), *b])],
        (Value::Vec3([a, b, c]), _) => vec![Value::Vec3([nudge(*a), *b, *c])],
        (Value::Vec4([a, b, c, d]), _) => vec![Value::Vec4([nudge(*a), *b, *c, *d])],
        (Value::Color([r, g, b, a]), _) => vec![Value::Color([0.5 * r + 0.25, *g, *b, *a])],
        _ => vec![],
    };
    candidates
        .into_iter()
        .find(|v| {
            !v.same_bits(default)
                && p.rule
                    .as_ref()
                    .is_none_or(|r| r.check(v, &RuleEnv::default()).is_ok())
        })
        .unwrap_or_else(|| default.clone())
}

/// The graph input op of a param of type `ty`, when there is one.
fn input_op(ty: ValueType) -> Option<&'static str> {
    Some(match ty {
        ValueType::Float => "input.float",
        ValueType::Int => "input.int",
        ValueType::Bool => "input.bool",
        ValueType::Vec2 => "input.vec2",
        ValueType::Vec3 => "input.vec3",
        ValueType::Vec4 => "input.vec4",
        ValueType::Color => "input.color",
        ValueType::String => "input.string",
        ValueType::List | ValueType::ListOf(_) => "input.list",
        _ => return None,
    })
}

/// For each heavy type, the first op (by id) that makes it from nothing: no required input
/// or param, and its first output of that type.
fn generators(reg: &Registry) -> BTreeMap<String, String> {
    let mut ops: Vec<&Arc<dyn Op>> = reg.iter().collect();
    ops.sort_by(|a, b| a.spec().id.cmp(&b.spec().id));
    let mut found = BTreeMap::new();
    for op in ops {
        let s = op.spec();
        if s.role != Role::Node
            || s.delay
            || s.purity == Purity::Stateful
            || s.purity == Purity::SideEffect
            || s.inputs.iter().any(|i| i.default.is_none())
            || s.params.iter().any(|p| p.default.is_none())
        {
            continue;
        }
        if let Some(o) = s.outputs.first()
            && matches!(o.ty, ValueType::Heavy(_))
        {
            found.entry(o.ty.to_string()).or_insert(s.id.to_string());
        }
    }
    found
}

/// The graph of node `n` of `op` with its required inputs fed; `None` when one cannot be.
fn base(reg: &Registry, op: &dyn Op, gens: &BTreeMap<String, String>) -> Option<Graph> {
    let mut g = Graph::new();
    g.add_node("n", &op.spec().id).ok()?;
    for (i, input) in op.spec().inputs.iter().enumerate() {
        if input.default.is_some() {
            continue;
        }
        if let Some(v) = constant_of(input.ty) {
            g.set_const("n", &input.name, v).ok()?;
            continue;
        }
        let gen_op = gens.get(&input.ty.to_string())?;
        let id = format!("feed{i}");
        g.add_node(id.as_str(), gen_op).ok()?;
        reg.get(gen_op)?;
        g.connect(
            PortRef::new(id.as_str(), "out"),
            PortRef::new("n", &input.name),
        );
    }
    Some(g)
}

/// What every evaluator makes of `graph`'s node `n`: its outputs, or the error.
fn cook_all(reg: &Registry, graph: &Graph, outputs: &[String]) -> Vec<Result<Vec<Value>, String>> {
    let mut ctx = EvalContext::new();
    ctx.resolution = Some((8, 8));
    ctx.seed = 7;
    EvaluatorKind::ALL
        .iter()
        .map(|kind| {
            let mut e = kind.build(reg, kiln::parallel_policy(None), None);
            let req = Request::new(outputs.iter().map(String::as_str));
            match e.evaluate(graph, &req, &ctx) {
                Ok(out) => Ok(outputs
                    .iter()
                    .map(|o| out.get(o).cloned().unwrap_or(Value::Empty))
                    .collect()),
                Err(e) => Err(e.to_string()),
            }
        })
        .collect()
}

/// The flat graph the plan writes for `graph` read as a document.
fn lowered(reg: &Registry, graph: Graph) -> Result<Graph, String> {
    let mut ctx = EvalContext::new();
    ctx.resolution = Some((8, 8));
    let doc = kiln::doc::document::Document::from_graph(graph);
    let mut waits = EvaluatorKind::Lazy.build(reg, kiln::parallel_policy(None), None);
    lower(&doc, reg, &ctx, waits.as_mut())
        .map(|l| l.graph)
        .map_err(|e| e.to_string())
}

fn same(a: &[Result<Vec<Value>, String>], b: &[Result<Vec<Value>, String>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Ok(x), Ok(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.same_bits(q)),
            (Err(_), Err(_)) => true,
            _ => false,
        })
}

#[test]
fn every_param_wired_gives_the_bits_of_its_constant() {
    let reg = kiln::registry();
    let gens = generators(&reg);
    let mut ops: Vec<&Arc<dyn Op>> = reg.iter().collect();
    ops.sort_by(|a, b| a.spec().id.cmp(&b.spec().id));
    let (mut tested, mut plan_time, mut telling, mut skipped) = (0, 0, 0, vec![]);
    let mut wrong = vec![];
    for op in ops {
        let spec = op.spec();
        if spec.role != Role::Node || spec.delay {
            continue;
        }
        let outputs: Vec<String> = spec
            .outputs
            .iter()
            .map(|o| format!("n.{}", o.name))
            .collect();
        for (pi, p) in spec.params.iter().enumerate() {
            let at = format!("{}.{}", spec.id, p.name);
            let Some(default) = p.default.clone() else {
                skipped.push(format!("{at} (required)"));
                continue;
            };
            let value = other_value(p, &default);
            if spec.input_index(&p.name).is_some() {
                skipped.push(format!("{at} (an input of that name too)"));
                continue;
            }
            let Some(g) = base(&reg, op.as_ref(), &gens) else {
                skipped.push(format!("{at} (an input nothing makes)"));
                continue;
            };
            // The constant.
            let mut constant = g.clone();
            constant.set_param("n", &p.name, value.clone()).unwrap();
            let want = cook_all(&reg, &constant, &outputs);
            // Whether the value matters at all here (so a wire that were ignored would show).
            let mut at_default = g.clone();
            at_default.set_param("n", &p.name, default.clone()).unwrap();
            if !same(&want, &cook_all(&reg, &at_default, &outputs)) {
                telling += 1;
            }
            // A graph input, written out by the plan.
            if let Some(input) = input_op(p.ty) {
                let mut wired = g.clone();
                wired.add_node("k", input).unwrap();
                wired.set_param("k", "name", Value::str("k")).unwrap();
                wired.set_param("k", "default", value.clone()).unwrap();
                wired.connect(PortRef::new("k", "out"), PortRef::new("n", &p.name));
                match lowered(&reg, wired) {
                    Ok(flat) => {
                        if !same(&want, &cook_all(&reg, &flat, &outputs)) {
                            wrong.push(format!("{at}: a graph input differs from the constant"));
                        }
                    }
                    Err(e) => wrong.push(format!("{at}: a graph input does not plan: {e}")),
                }
            }
            // A value known only while cooking.
            let mut cooked = g.clone();
            cooked.add_node("k", "const").unwrap();
            cooked.set_param("k", "value", value.clone()).unwrap();
            cooked.connect(PortRef::new("k", "out"), PortRef::new("n", &p.name));
            if spec.param_at_plan_time(pi) {
                plan_time += 1;
                match Plan::build(&cooked, &reg) {
                    Err(d) => {
                        let named = d.0.iter().any(|d| {
                            d.kind == DiagnosticKind::PlanTimePort
                                && d.node.as_deref() == Some("n")
                                && d.port.as_deref() == Some(format!("param `{}`", p.name).as_str())
                                && d.found.as_deref().is_some_and(|f| f.contains("k.out"))
                        });
                        if !named {
                            wrong.push(format!("{at}: refused without naming it: {d}"));
                        }
                    }
                    Ok(_) => wrong.push(format!("{at}: a plan-time param took a cooked value")),
                }
            } else if !same(&want, &cook_all(&reg, &cooked, &outputs)) {
                wrong.push(format!(
                    "{at}: a cooked value differs from the constant: {:?} vs {:?}",
                    want.first().map(|r| r.as_ref().map(|v| v.len())),
                    cook_all(&reg, &cooked, &outputs)
                        .first()
                        .map(|r| r.as_ref().map(|v| v.len()))
                ));
            }
            tested += 1;
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // Most params take part; the rest are named here if they grow.
    assert!(
        tested >= 300,
        "only {tested} params tested; skipped: {skipped:#?}"
    );
    assert!(plan_time >= 40, "{plan_time} plan-time params");
    assert!(
        telling >= 150,
        "only {telling} params change their node's result"
    );
    eprintln!(
        "{tested} params wired ({plan_time} plan-time, {telling} with a value that changes the result), {} skipped: {skipped:?}",
        skipped.len()
    );
}

#[test]
fn a_wired_value_out_of_its_range_names_the_node_and_port() {
    let reg = kiln::registry();
    let mut g = Graph::new();
    g.add_node("k", "const").unwrap();
    g.set_param("k", "value", Value::Float(-3.0)).unwrap();
    g.add_node("n", "image.cells").unwrap();
    g.connect(PortRef::new("k", "out"), PortRef::new("n", "jitter"));
    let spec = reg.get("image.cells").unwrap().spec();
    let range = spec.params[spec.param_index("jitter").unwrap()]
        .rule
        .unwrap()
        .check(&Value::Float(-3.0), &RuleEnv::default())
        .unwrap_err();
    for kind in EvaluatorKind::ALL {
        let mut e = kind.build(&reg, kiln::parallel_policy(None), None);
        let err = e
            .evaluate(&g, &Request::new(["n"]), &EvalContext::new())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`n`") && err.contains("jitter") && err.contains(&range.found),
            "{}: {err}",
            kind.name()
        );
    }
}
