//! Latches and the recurrent driver on standard nodes: accumulators against hand-written
//! loops, run-to-tick against stepping, each seek mode, every-n rates with phase, snapshots
//! and checkpointed seeking, and the cycle rule.

use kiln_core::prelude::*;
use kiln_core::recurrence::{CheckpointPolicy, Recurrent, SeekMode, Snapshot};

fn reg() -> Registry {
    kiln_std::registry()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// `acc` = latch(init = zero, signal = acc + step): the running sum of `step`.
fn accumulator(step: f64) -> Graph {
    let mut g = Graph::new();
    g.add_node("zero", "const").unwrap();
    g.set_param("zero", "value", 0.0).unwrap();
    g.add_node("acc", "latch").unwrap();
    g.wire("zero.out", "acc.init");
    g.add_node("next", "math.add").unwrap();
    g.wire("acc.out", "next.a");
    g.set_const("next", "b", step).unwrap();
    g.wire("next.out", "acc.signal");
    g
}

/// The logistic map x' = r·x·(1 − x) from x0 = 0.2, r = 3.7: chaotic, so any difference in
/// the order or number of operations shows in the bits.
fn logistic() -> Graph {
    logistic_with(true)
}

/// The logistic map; `inline_r`: `r` is an inline constant of `rx`, else `rx.a` is left for
/// the caller to wire.
fn logistic_with(inline_r: bool) -> Graph {
    let mut g = Graph::new();
    g.add_node("x0", "const").unwrap();
    g.set_param("x0", "value", 0.2).unwrap();
    g.add_node("x", "latch").unwrap();
    g.wire("x0.out", "x.init");
    g.add_node("one_minus", "math.sub").unwrap();
    g.set_const("one_minus", "a", 1.0).unwrap();
    g.wire("x.out", "one_minus.b");
    g.add_node("rx", "math.mul").unwrap();
    if inline_r {
        g.set_const("rx", "a", 3.7).unwrap();
    }
    g.wire("x.out", "rx.b");
    g.add_node("x_next", "math.mul").unwrap();
    g.wire("rx.out", "x_next.a");
    g.wire("one_minus.out", "x_next.b");
    g.wire("x_next.out", "x.signal");
    g
}

fn logistic_reference(ticks: usize) -> Vec<f64> {
    let mut x = 0.2f64;
    let mut out = vec![];
    for _ in 0..ticks {
        out.push(x);
        x = (3.7 * x) * (1.0 - x);
    }
    out
}

#[test]
fn an_accumulator_equals_a_hand_written_loop() {
    let g = accumulator(1.5);
    assert!(
        validate(&g, &reg()).is_empty(),
        "{:?}",
        validate(&g, &reg())
    );
    let mut run = Recurrent::new(LazyEvaluator::new(reg()), reg());
    let req = Request::new(["acc"]);
    let mut acc = 0.0f64;
    for t in 0..50 {
        let out = run.tick(&g, &req, &EvalContext::new()).unwrap();
        assert_eq!(f(&out.values[0].1).to_bits(), acc.to_bits(), "tick {t}");
        acc += 1.5;
    }
    assert_eq!(run.next_tick(), 50);
}

#[test]
fn every_evaluator_ticks_the_same_bits() {
    let g = logistic();
    let want = logistic_reference(40);
    let req = Request::new(["x"]);
    let evs: Vec<Box<dyn Evaluator>> = vec![
        Box::new(LazyEvaluator::new(reg())),
        Box::new(EagerEvaluator::new(reg())),
        Box::new(CompiledEvaluator::new(reg()).with_background(false)),
        Box::new(IncrementalEvaluator::new(reg())),
    ];
    for ev in evs {
        let mut run = Recurrent::new(ev, reg());
        for (t, w) in want.iter().enumerate() {
            let out = run.tick(&g, &req, &EvalContext::new()).unwrap();
            assert_eq!(f(&out.values[0].1).to_bits(), w.to_bits(), "tick {t}");
        }
    }
}

#[test]
fn run_to_tick_equals_stepping_and_seek_modes_behave() {
    let g = logistic();
    let want = logistic_reference(30);
    let req = Request::new(["x"]);
    let ctx = EvalContext::new();
    let mut run = Recurrent::new(LazyEvaluator::new(reg()), reg());
    let out = run.run_to(&g, &req, &ctx, 25).unwrap();
    assert_eq!(f(&out.values[0].1).to_bits(), want[25].to_bits());
    assert_eq!(run.next_tick(), 26);

    // Resimulate backwards replays to the same bits; forwards continues.
    let out = run.seek(&g, &req, &ctx, 7, SeekMode::Resimulate).unwrap();
    assert_eq!(f(&out.values[0].1).to_bits(), want[7].to_bits());
    let out = run.seek(&g, &req, &ctx, 12, SeekMode::Resimulate).unwrap();
    assert_eq!(f(&out.values[0].1).to_bits(), want[12].to_bits());

    // Error refuses any tick but the next one, and changes nothing.
    let err = run.seek(&g, &req, &ctx, 3, SeekMode::Error).unwrap_err();
    assert!(matches!(err, EvalError::Recurrence(_)), "{err}");
    assert_eq!(run.next_tick(), 13);
    let out = run.seek(&g, &req, &ctx, 13, SeekMode::Error).unwrap();
    assert_eq!(f(&out.values[0].1).to_bits(), want[13].to_bits());

    // Discontinuity keeps the latch value and moves the counter.
    let out = run
        .seek(&g, &req, &ctx, 100, SeekMode::Discontinuity)
        .unwrap();
    assert_eq!(f(&out.values[0].1).to_bits(), want[14].to_bits());
    assert_eq!(run.next_tick(), 101);
}

#[test]
fn checkpointed_seek_equals_replay_from_zero() {
    let g = logistic();
    let want = logistic_reference(200);
    let req = Request::new(["x"]);
    let ctx = EvalContext::new();
    let mut run = Recurrent::new(LazyEvaluator::new(reg()), reg()).with_checkpoints(16);
    run.run_to(&g, &req, &ctx, 190).unwrap();
    assert_eq!(run.checkpoint_count(), 12); // ticks 0, 16, ..., 176
    for t in [150u64, 3, 177, 64, 199] {
        let out = run.seek(&g, &req, &ctx, t, SeekMode::Resimulate).unwrap();
        assert_eq!(
            f(&out.values[0].1).to_bits(),
            want[t as usize].to_bits(),
            "tick {t}"
        );
    }
    // From a checkpoint, a backward seek replays only from it: seeking to 40 restores the
    // state kept at 32 and runs ticks 32..=40, four nodes each (latch, one_minus, rx, x_next).
    let mut fresh = Recurrent::new(EagerEvaluator::new(reg()), reg()).with_checkpoints(16);
    fresh.run_to(&g, &req, &ctx, 100).unwrap();
    let before = fresh.evaluator().total_stats().executed;
    let out = fresh
        .seek(&g, &req, &ctx, 40, SeekMode::Resimulate)
        .unwrap();
    let ran = fresh.evaluator().total_stats().executed - before;
    assert_eq!(ran, 9 * 4);
    assert_eq!(fresh.next_tick(), 41);
    assert_eq!(f(&out.values[0].1).to_bits(), want[40].to_bits());
}

#[test]
fn checkpoints_within_a_memory_budget() {
    let g = logistic();
    let want = logistic_reference(1_000);
    let req = Request::new(["x"]);
    let ctx = EvalContext::new();
    let one = {
        let mut r = Recurrent::new(LazyEvaluator::new(reg()), reg());
        r.tick(&g, &req, &ctx).unwrap();
        r.snapshot().unwrap().byte_size()
    };
    let budget = 10 * one;
    let mut run = Recurrent::new(EagerEvaluator::new(reg()), reg())
        .with_checkpoint_policy(CheckpointPolicy::Budget { bytes: budget });
    for _ in 0..1_000 {
        run.tick(&g, &req, &ctx).unwrap();
        assert!(
            run.checkpoint_bytes() <= budget,
            "{}",
            run.checkpoint_bytes()
        );
    }
    // Ten states fit; they sit on a power-of-two interval spanning the run.
    let ticks = run.checkpoint_ticks();
    assert!(ticks.len() >= 5 && ticks.len() <= 10, "{ticks:?}");
    let interval = ticks[1] - ticks[0];
    assert!(interval.is_power_of_two() && interval <= 256, "{ticks:?}");
    assert!(
        ticks.windows(2).all(|w| w[1] - w[0] == interval),
        "{ticks:?}"
    );
    // A backward seek replays at most one interval and gives the bits of a replay from 0.
    for t in [10u64, 700, 333, 999, 0] {
        let before = run.evaluator().total_stats().executed;
        let out = run.seek(&g, &req, &ctx, t, SeekMode::Resimulate).unwrap();
        let ran = run.evaluator().total_stats().executed - before;
        assert_eq!(
            f(&out.values[0].1).to_bits(),
            want[t as usize].to_bits(),
            "tick {t}"
        );
        assert!(ran <= (interval + 1) * 4, "tick {t}: ran {ran}");
        assert!(run.checkpoint_bytes() <= budget);
    }
    // A budget smaller than one state keeps nothing and still seeks correctly.
    let mut tight = Recurrent::new(LazyEvaluator::new(reg()), reg())
        .with_checkpoint_policy(CheckpointPolicy::Budget { bytes: one - 1 });
    tight.run_to(&g, &req, &ctx, 50).unwrap();
    assert_eq!(tight.checkpoint_count(), 0);
    let out = tight
        .seek(&g, &req, &ctx, 20, SeekMode::Resimulate)
        .unwrap();
    assert_eq!(f(&out.values[0].1).to_bits(), want[20].to_bits());
}

#[test]
fn a_snapshot_restored_and_resumed_gives_the_same_bits() {
    let g = logistic();
    let req = Request::new(["x"]);
    let ctx = EvalContext::new();
    let mut a = Recurrent::new(LazyEvaluator::new(reg()), reg());
    for _ in 0..10 {
        a.tick(&g, &req, &ctx).unwrap();
    }
    let snap: Snapshot = a.snapshot().cloned().unwrap();
    assert_eq!(snap.tick, 10);
    let rest_a: Vec<u64> = (0..10)
        .map(|_| f(&a.tick(&g, &req, &ctx).unwrap().values[0].1).to_bits())
        .collect();
    let mut b = Recurrent::new(CompiledEvaluator::new(reg()).with_background(false), reg());
    b.restore(snap);
    let rest_b: Vec<u64> = (0..10)
        .map(|_| f(&b.tick(&g, &req, &ctx).unwrap().values[0].1).to_bits())
        .collect();
    assert_eq!(rest_a, rest_b);
}

/// `slow` advances every 3 ticks with phase 1 and sums `fast`, which counts every tick; a
/// reader of `slow` runs every tick.
fn two_rates() -> Graph {
    let mut g = accumulator(1.0); // acc: 0, 1, 2, ... every tick
    g.add_node("zero2", "const").unwrap();
    g.set_param("zero2", "value", 0.0).unwrap();
    g.add_node("slow", "latch").unwrap();
    g.set_param("slow", "every", 3i64).unwrap();
    g.set_param("slow", "phase", 1i64).unwrap();
    g.wire("zero2.out", "slow.init");
    g.add_node("slow_next", "math.add").unwrap();
    g.wire("slow.out", "slow_next.a");
    g.wire("acc.out", "slow_next.b");
    g.wire("slow_next.out", "slow.signal");
    g.add_node("reader", "math.mul").unwrap();
    g.wire("slow.out", "reader.a");
    g.set_const("reader", "b", 10.0).unwrap();
    g
}

#[test]
fn every_n_latches_hold_sample_and_run_their_loop_only_when_they_advance() {
    let g = two_rates();
    assert!(
        validate(&g, &reg()).is_empty(),
        "{:?}",
        validate(&g, &reg())
    );
    let req = Request::new(["acc", "slow", "reader"]).with_timings();
    let ctx = EvalContext::new();
    let mut run = Recurrent::new(EagerEvaluator::new(reg()), reg());
    // Hand-written: slow captures slow + acc at ticks 1, 4, 7, ...
    let (mut acc, mut slow) = (0.0f64, 0.0f64);
    for t in 0..13u64 {
        let out = run.tick(&g, &req, &ctx).unwrap();
        assert_eq!(f(out.get("acc").unwrap()), acc, "tick {t}");
        assert_eq!(
            f(out.get("slow").unwrap()),
            slow,
            "tick {t}: holds between advances"
        );
        assert_eq!(
            f(out.get("reader").unwrap()),
            slow * 10.0,
            "tick {t}: a fast reader"
        );
        let ran = out
            .timings
            .iter()
            .filter(|x| x.node.as_str() == "slow_next")
            .count();
        let advances = t % 3 == 1;
        assert_eq!(
            ran, advances as usize,
            "tick {t}: the slow loop runs only when it advances"
        );
        if advances {
            slow += acc; // samples the fast value at its own tick
        }
        acc += 1.0;
    }
}

#[test]
fn the_cycle_rule_and_the_wired_seed_are_checked() {
    // A latch-free cycle names its nodes.
    let mut g = Graph::new();
    g.add_node("a", "math.add").unwrap();
    g.add_node("b", "math.add").unwrap();
    g.wire("a.out", "b.a");
    g.wire("b.out", "a.a");
    g.set_const("a", "b", 1.0).unwrap();
    g.set_const("b", "b", 1.0).unwrap();
    let d = validate(&g, &reg());
    let cyc = d
        .iter()
        .find(|d| d.kind == DiagnosticKind::Cycle)
        .expect("a cycle");
    let mut names: Vec<&str> = cyc.nodes.iter().map(|n| n.as_str()).collect();
    names.sort();
    assert_eq!(names, ["a", "b"]);

    // Through a latch's init the cycle is still illegal.
    let mut g = accumulator(1.0);
    g.disconnect(&PortRef::parse("acc.init")).unwrap();
    g.wire("next.out", "acc.init");
    assert!(
        validate(&g, &reg())
            .iter()
            .any(|d| d.kind == DiagnosticKind::Cycle)
    );

    // A constant seed is refused: the seed must be wired.
    let mut g = accumulator(1.0);
    g.disconnect(&PortRef::parse("acc.init")).unwrap();
    g.set_const("acc", "init", 0.0).unwrap();
    let d = validate(&g, &reg());
    assert!(
        d.iter().any(|d| d.kind == DiagnosticKind::MissingInput
            && d.node.as_ref().is_some_and(|n| n.as_str() == "acc")),
        "{d:?}"
    );

    // A signal of another type than the seed's is refused.
    let mut g = accumulator(1.0);
    g.add_node("flag", "const").unwrap();
    g.set_param("flag", "value", true).unwrap();
    g.disconnect(&PortRef::parse("acc.signal")).unwrap();
    g.wire("flag.out", "acc.signal");
    assert!(
        validate(&g, &reg())
            .iter()
            .any(|d| d.kind == DiagnosticKind::TypeMismatch),
    );

    // Evaluated outside a driver, a latch fails with a message saying why.
    let g = accumulator(1.0);
    let err = LazyEvaluator::new(reg())
        .evaluate(&g, &Request::new(["acc"]), &EvalContext::new())
        .unwrap_err();
    assert!(err.to_string().contains("recurrent driver"), "{err}");
}

#[test]
fn pure_cones_beside_the_loop_stay_cooked_and_init_runs_once_per_start() {
    // The logistic map with its rate `r` computed by a pure chain of three nodes.
    let mut g = logistic_with(false);
    g.add_node("r0", "const").unwrap();
    g.set_param("r0", "value", 1.85).unwrap();
    g.add_node("r", "math.mul").unwrap();
    g.wire("r0.out", "r.a");
    g.set_const("r", "b", 2.0).unwrap();
    g.wire("r.out", "rx.a");
    let req = Request::new(["x"]).with_timings();
    let ctx = EvalContext::new();
    let want = logistic_reference(20);
    for ev in [
        Box::new(LazyEvaluator::new(reg())) as Box<dyn Evaluator>,
        Box::new(IncrementalEvaluator::new(reg())),
    ] {
        let mut run = Recurrent::new(ev, reg());
        let mut ran = std::collections::BTreeMap::<String, usize>::new();
        for (t, w) in want.iter().enumerate() {
            let out = run.tick(&g, &req, &ctx).unwrap();
            assert_eq!(f(&out.values[0].1).to_bits(), w.to_bits(), "tick {t}");
            for n in &out.timings {
                *ran.entry(n.node.to_string()).or_default() += 1;
            }
        }
        assert_eq!(ran.get("r0"), Some(&1), "{ran:?}");
        assert_eq!(ran.get("r"), Some(&1), "{ran:?}");
        assert_eq!(ran.get("x_next"), Some(&20), "{ran:?}");
        // A restart seeds again: the init cone runs once more.
        run.reset();
        run.tick(&g, &req, &ctx).unwrap();
    }
}
