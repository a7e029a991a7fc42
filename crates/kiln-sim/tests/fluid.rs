//! Stable fluids against their definition: projection leaves a divergence-free field, a still
//! fluid stays still, advection by a divergence-free flow keeps the dye's mass, and the
//! source adds what it says.

use kiln_sim::Grid;
use kiln_sim::fluid::{FluidSettings, divergence, project, step};
use kiln_sim::rng::Rng;

fn max_abs(g: &Grid) -> f32 {
    g.data().iter().fold(0.0f32, |m, v| m.max(v.abs()))
}

fn settings() -> FluidSettings {
    FluidSettings {
        dt: 0.1,
        source: [0.5, 0.5],
        radius: 0.0,
        dye: 0.0,
        force: [0.0, 0.0],
        buoyancy: 0.0,
        vorticity: 0.0,
        dissipation: 0.0,
        iterations: 300,
    }
}

#[test]
fn projection_leaves_a_divergence_free_field() {
    let mut rng = Rng::new(8);
    let mut v = Grid::filled(32, 32, &[0.0, 0.0, 0.0]).unwrap();
    for x in v.data_mut() {
        *x = rng.next_f32() * 2.0 - 1.0;
    }
    let before = max_abs(&divergence(&v).unwrap());
    let p = project(&v, 600).unwrap();
    let after = max_abs(&divergence(&p).unwrap());
    // Red-black Gauss–Seidel's slowest mode on 32 cells decays by cos²(2π/32) a sweep.
    assert!(after < 1e-4 * before, "max |div| {before} became {after}");
    // A divergence-free field (a constant flow) is left as it was.
    let flow = Grid::filled(16, 16, &[0.5, -0.25, 0.0]).unwrap();
    assert_eq!(project(&flow, 50).unwrap(), flow);
}

#[test]
fn a_still_clear_fluid_stays_still_and_the_source_adds_its_dye() {
    let still = Grid::filled(24, 24, &[0.0, 0.0, 0.0]).unwrap();
    assert_eq!(step(&still, &settings()).unwrap(), still);
    let s = FluidSettings {
        radius: 0.1,
        dye: 2.0,
        ..settings()
    };
    let out = step(&still, &s).unwrap();
    // Cells whose centre is within 2.4 cells of the middle: dye 2 × 0.1 each, nothing moves.
    let inside = (0..24u32)
        .flat_map(|y| (0..24u32).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let (dx, dy) = (x as f32 + 0.5 - 12.0, y as f32 + 0.5 - 12.0);
            dx * dx + dy * dy <= 2.4 * 2.4
        })
        .count() as f64;
    assert!(
        (out.channel_sum(2) - inside * 0.2).abs() < 1e-5,
        "{} vs {}",
        out.channel_sum(2),
        inside * 0.2
    );
    assert!(max_abs(&out) <= 0.2 + 1e-6);
}

#[test]
fn a_swirl_moves_the_dye_and_keeps_its_mass() {
    // A divergence-free vortex from the stream function ψ = sin(2πx/n) sin(2πy/n), projected,
    // carrying a blob of dye.
    let n = 32u32;
    let mut g = Grid::filled(n, n, &[0.0, 0.0, 0.0]).unwrap();
    let k = 2.0 * std::f32::consts::PI / n as f32;
    for y in 0..n {
        for x in 0..n {
            let (fx, fy) = (x as f32 * k, y as f32 * k);
            g.set(x, y, 0, 5.0 * fx.sin() * fy.cos());
            g.set(x, y, 1, -5.0 * fx.cos() * fy.sin());
            let (dx, dy) = (x as f32 - 10.0, y as f32 - 16.0);
            g.set(x, y, 2, (-(dx * dx + dy * dy) / 8.0).exp());
        }
    }
    let g = project(&g, 300).unwrap();
    let mass = g.channel_sum(2);
    let mut s = g.clone();
    for _ in 0..20 {
        s = step(&s, &settings()).unwrap();
    }
    // Semi-Lagrangian advection is not exactly conservative: within 3% after 20 steps.
    assert!(
        (s.channel_sum(2) / mass - 1.0).abs() < 0.03,
        "{mass} became {}",
        s.channel_sum(2)
    );
    // The blob moved.
    let moved: f32 = g
        .data()
        .iter()
        .zip(s.data())
        .skip(2)
        .step_by(3)
        .map(|(a, b)| (a - b).abs())
        .sum();
    assert!(moved > 1.0, "{moved}");
    assert!(max_abs(&divergence(&s).unwrap()) < 0.05 * max_abs(&divergence(&g).unwrap()).max(1.0));
}
