//! Gray–Scott fields after n steps against `reference/gray_scott.py` (NumPy, float64).

use crate::common::fixture::{Case, cases, f32s};
use crate::common::{grid, run_lazy, seeded_graph};
use kiln_core::prelude::*;
use kiln_sim::Grid;

/// Largest difference allowed per float. Kiln steps in float32 and the reference in
/// float64; the script's float32 run of the same equations drifts from it by at most
/// `float32_gap` (under 4e-6 after 100 steps), so rounding alone stays under this, while
/// every wrong model the script tried (a rate off by 0.001, dt off by 1%, the 5-point
/// stencil, clamped edges, du and dv swapped, one step fewer) lands at least 2.5e-4 away.
const TOLERANCE: f64 = 1e-5;

fn rate(case: &Case, key: &str, w: u32, h: u32) -> Value {
    match case.get(key).strip_prefix("map ") {
        Some(file) => Grid::from_data(w, h, 1, f32s(file)).unwrap().into_value(),
        None => Value::Float(case.float(key)),
    }
}

fn check(case: &Case) {
    let (w, h) = (case.int("width") as u32, case.int("height") as u32);
    let start = Grid::from_data(w, h, 2, f32s(case.get("initial"))).unwrap();
    let mut g = seeded_graph(
        start.into_value(),
        "sim.grayscott.step",
        &[("substeps", Value::Int(case.int("substeps")))],
    );
    for key in ["feed", "kill", "du", "dv"] {
        g.set_const("sim", key, rate(case, key, w, h)).unwrap();
    }
    g.set_const("sim", "dt", Value::Float(case.float("dt")))
        .unwrap();
    let (_, outs) = run_lazy(&g, case.int("ticks") as u64);
    for (tick, file) in case.numbered("after") {
        let want = f32s(&file);
        let got = grid(&outs[tick as usize - 1]);
        assert_eq!(got.data().len(), want.len());
        let worst = got
            .data()
            .iter()
            .zip(&want)
            .map(|(a, b)| (*a as f64 - *b as f64).abs())
            .fold(0.0, f64::max);
        assert!(
            worst <= TOLERANCE,
            "{}, tick {tick}: largest difference {worst}",
            case.name()
        );
    }
    // The tolerance separates rounding from a wrong model.
    assert!(case.float("float32_gap") < TOLERANCE / 2.0);
    for (wrong, distance) in case.sensitivities() {
        assert!(
            distance > 20.0 * TOLERANCE,
            "{}: {wrong} {distance}",
            case.name()
        );
    }
}

#[test]
fn gray_scott_fields_match_the_numpy_reference_within_1e_5() {
    let all = cases("gray_scott.txt");
    assert_eq!(all.len(), 3);
    for case in &all {
        check(case);
    }
}
