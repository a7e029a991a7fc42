//! Renders through the `Project` API: a latch graph ticked, continued from a snapshot or
//! replayed from tick 0, gives the same bits; animated params are sampled at each tick.

use kiln::prelude::*;
use kiln::{Render, RenderOptions};
use std::path::Path;

fn project(name: &str) -> Project {
    Project::open(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples")
            .join(name),
    )
    .expect("the example opens")
}

fn ticks(r: &mut Render, n: u64) -> Vec<Vec<(String, Value)>> {
    (0..n).map(|_| r.tick().expect("a tick").values).collect()
}

fn same(a: &[(String, Value)], b: &[(String, Value)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((n, x), (m, y))| n == m && x.same_bits(y))
}

#[test]
fn a_render_continued_from_a_snapshot_or_replayed_gives_the_same_bits() {
    let opts = RenderOptions {
        size: Some((24, 24)),
        ..RenderOptions::default()
    };
    let mut p = project("life.json");
    let mut long = p.render(&opts).unwrap();
    let all = ticks(&mut long, 6);
    assert_eq!(long.next_tick(), 6);
    // The state changes from tick to tick.
    assert!(!same(&all[0], &all[5]));
    // Replayed from tick 0 to tick 3, then ticked on.
    let mut replay = p.render(&opts).unwrap();
    replay.skip_to(3).unwrap();
    let rest = ticks(&mut replay, 3);
    for (a, b) in all[3..].iter().zip(&rest) {
        assert!(same(a, b));
    }
    // Continued from the state before tick 4, under another evaluator.
    let mut first = p.render(&opts).unwrap();
    ticks(&mut first, 4);
    let state = first.snapshot().expect("a state").clone();
    let mut resumed = p
        .render(&RenderOptions {
            evaluator: EvaluatorKind::Lazy,
            ..opts.clone()
        })
        .unwrap();
    resumed.restore(state);
    assert_eq!(resumed.next_tick(), 4);
    let rest = ticks(&mut resumed, 2);
    for (a, b) in all[4..].iter().zip(&rest) {
        assert!(same(a, b));
    }
}

#[test]
fn a_failing_tick_names_the_tick_and_the_node() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(
        &path,
        r#"{"kiln": 1,
  "nodes": {
    "zero": {"op": "const", "params": {"value": 0.0}},
    "count": {"op": "latch", "inputs": {"init": "zero.out", "signal": "next.out"}},
    "next": {"op": "math.add", "inputs": {"a": "count.out", "b": 1.0}},
    "check": {"op": "error.raise", "inputs": {"value": "count.out", "when": "far.out"}, "params": {"message": "too far"}},
    "far": {"op": "cmp.gt", "inputs": {"a": "count.out", "b": 1.5}}
  },
  "outputs": {"o": "check.out"}}"#,
    )
    .unwrap();
    let mut p = Project::open(&path).unwrap();
    let mut r = p.render(&RenderOptions::default()).unwrap();
    r.tick().unwrap();
    r.tick().unwrap();
    let e = r.tick().expect_err("tick 2 fails");
    assert!(matches!(e, kiln::ProjectError::Tick { tick: 2, .. }), "{e}");
    assert!(e.to_string().contains("`check`"), "{e}");
}
