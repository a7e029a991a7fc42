//! The eager and compiled evaluators let go of an intermediate heavy value once its last
//! reader ran, and so do the lazy and incremental ones asked to (`with_release`): a long
//! chain holds a few values at a time, not one per step.

use kiln_core::eval::{CompiledEvaluator, EagerEvaluator, IncrementalEvaluator, ParallelPolicy};
use kiln_core::key::KeyHasher;
use kiln_core::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Live blobs now, and the most ever live at once (this test binary only).
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// A heavy value that counts how many of it are alive.
#[derive(Debug)]
struct Blob(u64);
impl Blob {
    fn new(x: u64) -> Blob {
        let now = LIVE.fetch_add(1, Ordering::SeqCst) + 1;
        PEAK.fetch_max(now, Ordering::SeqCst);
        Blob(x)
    }
}
impl Drop for Blob {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}
impl HeavyData for Blob {
    fn type_name(&self) -> &'static str {
        "blob"
    }
    fn byte_size(&self) -> usize {
        8
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.u64(self.0);
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// `make` → a blob; `step` (x: blob) → a blob one more.
struct MakeOp(OpSpec);
impl Op for MakeOp {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, _call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        out[0] = Value::Heavy(Heavy::new(Blob::new(0)));
        Ok(())
    }
}
struct StepOp(OpSpec);
impl Op for StepOp {
    fn spec(&self) -> &OpSpec {
        &self.0
    }
    fn execute(&self, call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
        let Value::Heavy(h) = &call.inputs[0] else {
            return Err(OpError::new("not a blob"));
        };
        let x = h.downcast::<Blob>().map_or(0, |b| b.0);
        out[0] = Value::Heavy(Heavy::new(Blob::new(x + 1)));
        Ok(())
    }
}

const STEPS: usize = 40;

#[test]
fn a_long_chain_of_heavy_values_holds_a_few_at_a_time() {
    let blob = ValueType::Heavy("blob");
    let mut reg = Registry::new();
    reg.register(MakeOp(
        OpSpec::new("make", "a blob").output(OutputSpec::new("out", blob, "blob")),
    ))
    .unwrap();
    reg.register(StepOp(
        OpSpec::new("step", "the next blob")
            .input(InputSpec::required("x", blob, "blob"))
            .output(OutputSpec::new("out", blob, "blob")),
    ))
    .unwrap();
    let mut g = Graph::new();
    g.add_node("s0", "make").unwrap();
    for i in 1..=STEPS {
        g.add_node(format!("s{i}").as_str(), "step").unwrap();
        g.wire(&format!("s{}", i - 1), &format!("s{i}.x"));
    }
    let last = format!("s{STEPS}");
    let par = ParallelPolicy::Rayon {
        threads: Some(2),
        min_cost: Some(std::time::Duration::ZERO),
    };
    let evs: Vec<(&str, Box<dyn Evaluator>)> = vec![
        ("eager", Box::new(EagerEvaluator::new(reg.clone()))),
        (
            "compiled",
            Box::new(CompiledEvaluator::new(reg.clone()).with_background(false)),
        ),
        (
            "compiled-par",
            Box::new(
                CompiledEvaluator::new(reg.clone())
                    .with_background(false)
                    .with_parallel(par),
            ),
        ),
        (
            "lazy-release",
            Box::new(LazyEvaluator::new(reg.clone()).with_release(true)),
        ),
        (
            "incremental-release",
            Box::new(IncrementalEvaluator::new(reg.clone()).with_release(true)),
        ),
    ];
    for (name, mut ev) in evs {
        PEAK.store(LIVE.load(Ordering::SeqCst), Ordering::SeqCst);
        let base = LIVE.load(Ordering::SeqCst);
        let out = ev
            .evaluate(&g, &Request::new([last.as_str()]), &EvalContext::new())
            .unwrap();
        let Some(Value::Heavy(h)) = out.get(&last) else {
            panic!("{name}: no blob");
        };
        assert_eq!(
            h.downcast::<Blob>().map(|b| b.0),
            Some(STEPS as u64),
            "{name}"
        );
        // While a step runs: its input, its output, and the slot it will overwrite from the
        // last request at most.
        let peak = PEAK.load(Ordering::SeqCst) - base;
        assert!(
            peak <= 3,
            "{name}: {peak} blobs alive at once for a {STEPS}-step chain"
        );
    }
}
