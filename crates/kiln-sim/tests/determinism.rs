//! Every simulation gives the same bits under every evaluator, across a snapshot restore and
//! a seek, and for 1 and 4 threads.

mod common;
use common::*;
use kiln_core::prelude::*;
use kiln_core::recurrence::{Recurrent, SeekMode};

fn sims() -> Vec<(&'static str, Graph)> {
    let size = |n: i64| vec![("width", Value::Int(n)), ("height", Value::Int(n))];
    let mut gs = size(24);
    gs.push(("spots", Value::Int(4)));
    let mut life = size(20);
    life.push(("density", Value::Float(0.35)));
    life.push(("seed", Value::Int(3)));
    let mut ca = size(32);
    ca.push(("start", Value::Str("random".into())));
    let mut smooth = size(20);
    smooth.push(("blobs", Value::Int(5)));
    smooth.push(("radius", Value::Float(3.0)));
    let fluid = vec![("width", Value::Int(16)), ("height", Value::Int(16))];
    vec![
        (
            "fluid",
            latch_graph(
                "sim.fluid.init",
                &fluid,
                "sim.fluid.step",
                &[("iterations", Value::Int(8))],
            ),
        ),
        (
            "grayscott",
            latch_graph(
                "sim.grayscott.init",
                &gs,
                "sim.grayscott.step",
                &[("substeps", Value::Int(3))],
            ),
        ),
        (
            "life",
            latch_graph("sim.life.init", &life, "sim.life.step", &[]),
        ),
        (
            "ca1d",
            latch_graph(
                "sim.ca1d.init",
                &ca,
                "sim.ca1d.step",
                &[("rule", Value::Int(110))],
            ),
        ),
        (
            "smoothlife",
            latch_graph(
                "sim.smoothlife.init",
                &smooth,
                "sim.smoothlife.step",
                &[("inner_radius", Value::Float(2.0))],
            ),
        ),
    ]
}

#[test]
fn every_evaluator_gives_the_same_bits() {
    for (name, g) in sims() {
        let mut reference: Option<Vec<Value>> = None;
        for (eval_name, eval) in evaluators() {
            let mut d = Recurrent::new(eval, kiln_sim::registry());
            let out = run(&mut d, &g, 8);
            match &reference {
                None => reference = Some(out),
                Some(r) => {
                    for (t, (a, b)) in r.iter().zip(&out).enumerate() {
                        assert!(a.same_bits(b), "{name} under {eval_name}, tick {t}");
                    }
                }
            }
        }
    }
}

#[test]
fn a_restored_snapshot_and_a_seek_give_the_same_bits_as_a_straight_run() {
    for (name, g) in sims() {
        let mut d = Recurrent::new(
            IncrementalEvaluator::new(kiln_sim::registry()),
            kiln_sim::registry(),
        );
        let straight = run(&mut d, &g, 12);
        let mut first = Recurrent::new(
            LazyEvaluator::new(kiln_sim::registry()),
            kiln_sim::registry(),
        );
        run(&mut first, &g, 6);
        let snap = first.snapshot().unwrap().clone();
        let mut second = Recurrent::new(
            CompiledEvaluator::new(kiln_sim::registry()),
            kiln_sim::registry(),
        );
        second.restore(snap);
        let rest = run(&mut second, &g, 6);
        for (t, v) in rest.iter().enumerate() {
            assert!(
                v.same_bits(&straight[6 + t]),
                "{name}: tick {} after restore",
                6 + t
            );
        }
        let back = d
            .seek(
                &g,
                &Request::new(["sim"]),
                &EvalContext::new(),
                4,
                SeekMode::Resimulate,
            )
            .unwrap();
        assert!(
            back.get("sim").unwrap().same_bits(&straight[4]),
            "{name}: seek"
        );
    }
}

#[test]
fn one_thread_and_four_threads_give_the_same_bits() {
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    for (name, g) in sims() {
        let go = || {
            let mut d = Recurrent::new(
                EagerEvaluator::new(kiln_sim::registry()),
                kiln_sim::registry(),
            );
            run(&mut d, &g, 6)
        };
        let one = pool(1).install(go);
        let four = pool(4).install(go);
        for (t, (a, b)) in one.iter().zip(&four).enumerate() {
            assert!(a.same_bits(b), "{name}, tick {t}");
        }
    }
}
