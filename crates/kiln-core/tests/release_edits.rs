//! Letting go of values changes no result: the lazy and incremental evaluators with release
//! on give, over a sequence of requests and edits (requests of intermediate nodes whose
//! values were released, edits above and below them), the values a lazy evaluator keeping
//! everything gives; the incremental one still cuts off where a recomputed value has the
//! bits it had.

use kiln_core::eval::IncrementalEvaluator;
use kiln_core::key::KeyHasher;
use kiln_core::prelude::*;

#[derive(Debug)]
struct Blob(i64);
impl HeavyData for Blob {
    fn type_name(&self) -> &'static str {
        "blob"
    }
    fn byte_size(&self) -> usize {
        8
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.i64(self.0);
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The one param of `make` and `step`, an int.
fn int_param(call: &OpCall<'_>) -> Result<i64, OpError> {
    call.params
        .first()
        .and_then(Value::as_i64)
        .ok_or_else(|| OpError::param(0, "expected int"))
}

/// `make` (param `v`) → a blob of `v`; `step` (x: blob, param `add`) → a blob of x + add.
struct MakeOp(OpSpec);
impl Op for MakeOp {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        out[0] = Value::Heavy(Heavy::new(Blob(int_param(call)?)));
        Ok(())
    }
}
struct StepOp(OpSpec);
impl Op for StepOp {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let x = call
            .inputs
            .first()
            .and_then(|v| v.as_heavy::<Blob>())
            .ok_or_else(|| OpError::input(0, "not a blob"))?;
        out[0] = Value::Heavy(Heavy::new(Blob(x.0 + int_param(call)?)));
        Ok(())
    }
}

fn registry() -> Registry {
    let blob = ValueType::Heavy("blob");
    let mut reg = Registry::new();
    reg.register(MakeOp(
        OpSpec::new("make", "a blob")
            .param(ParamSpec::new("v", ValueType::Int, Value::Int(0), "value"))
            .output(OutputSpec::new("out", blob, "blob")),
    ))
    .unwrap();
    reg.register(StepOp(
        OpSpec::new("step", "the next blob")
            .input(InputSpec::required("x", blob, "blob"))
            .param(ParamSpec::new("add", ValueType::Int, Value::Int(1), "step"))
            .output(OutputSpec::new("out", blob, "blob")),
    ))
    .unwrap();
    reg
}

/// An edit: node, param, value.
type Edit = (&'static str, &'static str, i64);

fn blob_of(out: &Outputs, name: &str) -> i64 {
    out.get(name)
        .and_then(|v| v.as_heavy::<Blob>())
        .map(|b| b.0)
        .unwrap_or_else(|| panic!("{name}: no blob in {:?}", out.values))
}

#[test]
fn released_values_come_back_when_read_and_results_do_not_change() {
    let reg = registry();
    let mut g = Graph::new();
    g.add_node("s0", "make").unwrap();
    // A chain s0 → s1 … s12, and a branch s6 → b.
    for i in 1..=12 {
        g.add_node(format!("s{i}").as_str(), "step").unwrap();
        g.wire(&format!("s{}", i - 1), &format!("s{i}.x"));
    }
    g.add_node("b", "step").unwrap();
    g.wire("s6", "b.x");
    let mut lazy = LazyEvaluator::new(reg.clone()).with_release(true);
    let mut inc = IncrementalEvaluator::new(reg.clone()).with_release(true);
    let ctx = EvalContext::new();
    // Each step: an optional edit (node, param, value), then the outputs asked for.
    let steps: Vec<(Option<Edit>, Vec<&str>)> = vec![
        (None, vec!["s12"]),
        (None, vec!["s12"]),
        (None, vec!["s5"]),
        (None, vec!["b"]),
        (Some(("s9", "add", 10)), vec!["s12"]),
        (None, vec!["s8", "s12"]),
        (Some(("s0", "v", 100)), vec!["b", "s12"]),
        (Some(("s3", "add", 1)), vec!["s12"]),
        (None, vec!["s3"]),
        (Some(("s2", "add", 5)), vec!["s4"]),
        (None, vec!["s12", "b"]),
    ];
    for (i, (edit, outputs)) in steps.into_iter().enumerate() {
        if let Some((node, param, v)) = edit {
            g.set_param(node, param, v).unwrap();
        }
        let request = Request::new(outputs.iter().copied());
        let want = LazyEvaluator::new(reg.clone())
            .evaluate(&g, &request, &ctx)
            .unwrap();
        let a = lazy.evaluate(&g, &request, &ctx).unwrap();
        let b = inc.evaluate(&g, &request, &ctx).unwrap();
        for name in &outputs {
            let w = blob_of(&want, name);
            assert_eq!(blob_of(&a, name), w, "step {i}: lazy, {name}");
            assert_eq!(blob_of(&b, name), w, "step {i}: incremental, {name}");
        }
        if i == 7 {
            // s3's add was already 1. The released s0..s11 it stands among run again to
            // bring their values back, each with the bits it had: the kept s12 does not.
            assert!(b.stats.cutoffs >= 1, "step {i}: {:?}", b.stats);
            assert!(b.stats.executed <= 12, "step {i}: {:?}", b.stats);
        }
    }
}

/// A chain s0 → … → s12 with branches b (from s6) and c (from s2, read by s9 too).
fn branched() -> Graph {
    let mut g = Graph::new();
    g.add_node("s0", "make").unwrap();
    for i in 1..=12 {
        g.add_node(format!("s{i}").as_str(), "step").unwrap();
        g.wire(&format!("s{}", i - 1), &format!("s{i}.x"));
    }
    g.add_node("b", "step").unwrap();
    g.wire("s6", "b.x");
    g.add_node("c", "step").unwrap();
    g.wire("s2", "c.x");
    g.add_node("d", "step").unwrap();
    g.wire("c", "d.x");
    g
}

const NODES: [&str; 16] = [
    "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "b", "c", "d",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    #[test]
    fn any_sequence_of_edits_and_requests_gives_the_kept_results(
        steps in proptest::collection::vec(
            (proptest::option::of((0usize..16, 0i64..3)), proptest::collection::vec(0usize..16, 1..4)),
            1..25,
        )
    ) {
        let reg = registry();
        let mut g = branched();
        let mut lazy = LazyEvaluator::new(reg.clone()).with_release(true);
        let mut inc = IncrementalEvaluator::new(reg.clone()).with_release(true);
        let ctx = EvalContext::new();
        for (edit, outs) in steps {
            if let Some((n, v)) = edit {
                let param = if NODES[n] == "s0" { "v" } else { "add" };
                g.set_param(NODES[n], param, v).unwrap();
            }
            let mut names: Vec<&str> = outs.iter().map(|&i| NODES[i]).collect();
            names.dedup();
            let request = Request::new(names.iter().copied());
            let want = LazyEvaluator::new(reg.clone()).evaluate(&g, &request, &ctx).unwrap();
            let a = lazy.evaluate(&g, &request, &ctx).unwrap();
            let b = inc.evaluate(&g, &request, &ctx).unwrap();
            for name in &names {
                proptest::prop_assert_eq!(blob_of(&a, name), blob_of(&want, name), "lazy {}", name);
                proptest::prop_assert_eq!(blob_of(&b, name), blob_of(&want, name), "incremental {}", name);
            }
        }
    }
}
