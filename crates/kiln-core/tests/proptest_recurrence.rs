//! Property: generated recurrent graphs (random DAGs whose latches close loops, with random
//! rates and phases) tick to the same bits under every evaluator, and run-to-tick, a
//! checkpointed backward seek and a restored snapshot all agree with plain stepping.

mod common;
use common::*;
use kiln_core::eval::{CompiledEvaluator, EagerEvaluator, IncrementalEvaluator};
use kiln_core::prelude::*;
use kiln_core::recurrence::{Recurrent, SeekMode};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Spec {
    /// Per node: (a, b) earlier nodes, or a latch when `None`.
    nodes: Vec<Option<(usize, usize)>>,
    /// Per latch node: the node its signal comes from (any node: loops allowed), rate, phase.
    latches: Vec<(usize, u8, u8)>,
    consts: Vec<i8>,
}

fn spec() -> impl Strategy<Value = Spec> {
    (3usize..24).prop_flat_map(|n| {
        let nodes: Vec<BoxedStrategy<Option<(usize, usize)>>> = (0..n)
            .map(|i| {
                if i < 2 {
                    Just(Some((usize::MAX, usize::MAX))).boxed()
                } else {
                    prop_oneof![
                        4 => (0..i, 0..i).prop_map(Some),
                        1 => Just(None),
                    ]
                    .boxed()
                }
            })
            .collect();
        (
            nodes,
            proptest::collection::vec((0..n, 1u8..4, 0u8..4), n),
            proptest::collection::vec(-4i8..5, n),
        )
            .prop_map(|(nodes, latches, consts)| Spec {
                nodes,
                latches,
                consts,
            })
    })
}

fn build(s: &Spec) -> Graph {
    let mut g = Graph::new();
    for (i, n) in s.nodes.iter().enumerate() {
        let id = format!("v{i}");
        match n {
            Some((a, _)) if *a == usize::MAX => {
                g.add_node(id.as_str(), "num").unwrap();
                g.set_param(&id, "value", s.consts[i] as f64 * 0.25)
                    .unwrap();
            }
            Some((a, b)) => {
                g.add_node(id.as_str(), "add").unwrap();
                g.wire(&format!("v{a}.out"), &format!("{id}.a"));
                g.wire(&format!("v{b}.out"), &format!("{id}.b"));
            }
            None => {
                let (sig, every, phase) = s.latches[i];
                g.add_node(id.as_str(), "latch").unwrap();
                g.set_param(&id, "every", every as i64).unwrap();
                g.set_param(&id, "phase", phase as i64).unwrap();
                // Seeded from node 0 (a constant, never a latch); the signal may come from
                // anywhere, closing a loop through this latch.
                g.wire("v0.out", &format!("{id}.init"));
                g.wire(&format!("v{sig}.out"), &format!("{id}.signal"));
            }
        }
    }
    g
}

fn bits(o: &Outputs) -> Vec<u64> {
    o.values
        .iter()
        .map(|(_, v)| v.as_f64().unwrap_or(f64::NAN).to_bits())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn recurrent_runs_agree(s in spec(), ticks in 1u64..14) {
        let mut e = env();
        kiln_core::recurrence::register(&mut e.reg).unwrap();
        let g = build(&s);
        let d = validate(&g, &e.reg);
        prop_assert!(d.is_empty(), "{:?}", d);
        let names: Vec<String> = (0..s.nodes.len()).map(|i| format!("v{i}")).collect();
        let req = Request::new(names);
        let ctx = EvalContext::new();
        let evs: Vec<Box<dyn Evaluator>> = vec![
            Box::new(LazyEvaluator::new(e.reg.clone())),
            Box::new(EagerEvaluator::new(e.reg.clone())),
            Box::new(CompiledEvaluator::new(e.reg.clone()).with_background(false)),
            Box::new(IncrementalEvaluator::new(e.reg.clone())),
        ];
        let mut reference: Option<Vec<Vec<u64>>> = None;
        for ev in evs {
            let mut run = Recurrent::new(ev, e.reg.clone());
            let got: Vec<Vec<u64>> = (0..ticks)
                .map(|_| bits(&run.tick(&g, &req, &ctx).unwrap()))
                .collect();
            match &reference {
                None => reference = Some(got),
                Some(r) => prop_assert_eq!(r, &got),
            }
        }
        let reference = reference.unwrap();
        let last = ticks - 1;
        // Run-to-tick replays to the same bits.
        let mut run = Recurrent::new(LazyEvaluator::new(e.reg.clone()), e.reg.clone())
            .with_checkpoints(3);
        let out = run.run_to(&g, &req, &ctx, last).unwrap();
        prop_assert_eq!(&bits(&out), &reference[last as usize]);
        // A backward seek from the kept snapshots, to every tick.
        for t in (0..ticks).rev() {
            let out = run.seek(&g, &req, &ctx, t, SeekMode::Resimulate).unwrap();
            prop_assert_eq!(&bits(&out), &reference[t as usize]);
        }
        // A snapshot taken midway and restored elsewhere resumes to the same bits.
        let mid = ticks / 2;
        run.run_to(&g, &req, &ctx, mid).unwrap();
        let snap = run.snapshot().cloned().unwrap();
        let mut other = Recurrent::new(IncrementalEvaluator::new(e.reg.clone()), e.reg.clone());
        other.restore(snap);
        for t in mid + 1..ticks {
            let out = other.tick(&g, &req, &ctx).unwrap();
            prop_assert_eq!(&bits(&out), &reference[t as usize]);
        }
    }
}
