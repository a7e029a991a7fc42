//! Mass–spring cloth without damping against `reference/cloth.py`: positions after n ticks
//! and the energy of every tick, which Störmer–Verlet keeps bounded.

use crate::common::fixture::{case, f32s};
use crate::common::{latch_graph, run_lazy};
use kiln_core::prelude::*;
use kiln_sim::cloth::{Cloth, ClothSettings};

#[test]
fn an_undamped_cloth_follows_the_reference_and_keeps_its_energy() {
    let case = case("cloth.txt", "corners");
    let gravity = case.floats("gravity");
    let substeps = case.int("substeps");
    let mut g = latch_graph(
        "sim.cloth.init",
        &[
            ("width", Value::Int(case.int("width"))),
            ("height", Value::Int(case.int("height"))),
            ("spacing", Value::Float(case.float("spacing"))),
            ("pins", Value::Str(case.get("pins").into())),
        ],
        "sim.cloth.step",
        &[("substeps", Value::Int(substeps))],
    );
    for (k, v) in [
        ("gravity", Value::Vec3([gravity[0], gravity[1], gravity[2]])),
        ("wind", Value::Vec3([0.0; 3])),
        ("flutter", Value::Float(0.0)),
        ("stiffness", Value::Float(case.float("stiffness"))),
        ("damping", Value::Float(case.float("damping"))),
        ("dt", Value::Float(case.float("dt"))),
    ] {
        g.set_const("sim", k, v).unwrap();
    }
    let ticks = case.int("ticks") as u64;
    let (seed, outs) = run_lazy(&g, ticks);
    let cloth = |v: &Value| v.as_heavy::<Cloth>().expect("a cloth").clone();
    // Positions: float32 against float64 drift by `float32_gap` (under 2e-6); a stiffness,
    // gravity or dt off by 1% moves them by at least 1.3e-3.
    const TOLERANCE: f64 = 1e-5;
    assert!(case.float("float32_gap") < TOLERANCE / 2.0);
    for (wrong, distance) in case.sensitivities() {
        assert!(distance > 100.0 * TOLERANCE, "{wrong} {distance}");
    }
    for (tick, file) in case.numbered("positions") {
        let c = cloth(&outs[tick as usize - 1]);
        let want = f32s(&file);
        let worst = c
            .pos
            .as_flattened()
            .iter()
            .zip(&want)
            .map(|(a, b)| (*a as f64 - *b as f64).abs())
            .fold(0.0, f64::max);
        assert_eq!(c.pos.len() * 3, want.len());
        assert!(worst < TOLERANCE, "tick {tick}: largest difference {worst}");
    }
    // Energy per unit mass (cloth.rs's definition) tick by tick, against the reference's.
    let s = ClothSettings {
        dt: case.float("dt") as f32 / substeps as f32,
        stiffness: case.float("stiffness") as f32,
        damping: 0.0,
        gravity: [gravity[0] as f32, gravity[1] as f32, gravity[2] as f32],
        wind: [0.0; 3],
        flutter: 0.0,
    };
    let want = case.floats("energy");
    let got: Vec<f64> = std::iter::once(&seed)
        .chain(&outs)
        .map(|v| cloth(v).energy(&s))
        .collect();
    assert_eq!(got.len(), want.len());
    // Within 1e-3 of energies near −68.7 (Kiln's float32 positions give 2e-4).
    for (t, (a, b)) in got.iter().zip(&want).enumerate() {
        assert!((a - b).abs() < 1e-3, "tick {t}: energy {a}, reference {b}");
    }
    // Without damping it neither drifts nor decays: every tick within 1% of the scale of
    // the motion (gravity's work over the sag) of the start; the reference swings by 0.85%.
    let scale = case.float("energy_scale");
    let swing = got.iter().map(|e| (e - got[0]).abs()).fold(0.0, f64::max);
    assert!(
        swing < 0.01 * scale,
        "energy swings by {swing}, scale {scale}"
    );
}
