//! SmoothLife against its definition (Rafler 2011).

use kiln_sim::Grid;
use kiln_sim::smoothlife::{Kernel, SmoothRule, step_into};

/// Rafler's transition, written out in f64 from the paper.
fn s(n: f64, m: f64) -> f64 {
    let (b1, b2, d1, d2, an, am) = (0.278, 0.365, 0.267, 0.445, 0.028, 0.147);
    let s1 = |x: f64, a: f64, alpha: f64| 1.0 / (1.0 + (-(x - a) * 4.0 / alpha).exp());
    let s2 = |x: f64, a: f64, b: f64| s1(x, a, an) * (1.0 - s1(x, b, an));
    let sm = |x: f64, y: f64, m: f64| x * (1.0 - s1(m, 0.5, am)) + y * s1(m, 0.5, am);
    s2(n, sm(b1, d1, m), sm(b2, d2, m))
}

#[test]
fn a_uniform_field_stays_uniform_at_the_transition_of_its_value() {
    for f in [0.0f32, 0.3, 0.32, 1.0] {
        let g = Grid::filled(24, 24, &[f]).unwrap();
        let mut next = Grid::uninit(24, 24, 1).unwrap();
        step_into(
            &g,
            &mut next,
            &Kernel::new(2.0),
            &SmoothRule::default(),
            1.0,
        );
        let d = next.data();
        assert!(
            d.iter().all(|v| v.to_bits() == d[0].to_bits()),
            "{f}: not uniform"
        );
        let want = s(f as f64, f as f64);
        assert!((d[0] as f64 - want).abs() < 1e-4, "{f}: {} vs {want}", d[0]);
    }
    // An empty field stays (all but) empty, and a full one dies: a ring mean of 1 is outside
    // the survival interval.
    assert!(s(0.0, 0.0) < 1e-6 && s(1.0, 1.0) < 1e-3);
    // A ring mean of 0.3 with a live disk survives.
    assert!(s(0.3, 1.0) > 0.99);
}

#[test]
fn the_disk_and_ring_weigh_their_areas_and_mix_zero_changes_nothing() {
    let k = Kernel::new(4.0);
    let pi = std::f64::consts::PI;
    let (disk, ring) = (k.disk_weight() as f64, k.ring_weight() as f64);
    assert!((disk / (pi * 16.0) - 1.0).abs() < 0.03, "disk {disk}");
    assert!(
        (ring / (pi * (144.0 - 16.0)) - 1.0).abs() < 0.03,
        "ring {ring}"
    );
    let mut g = Grid::filled(40, 40, &[0.0]).unwrap();
    g.set(20, 20, 0, 1.0);
    let mut next = Grid::uninit(40, 40, 1).unwrap();
    step_into(&g, &mut next, &k, &SmoothRule::default(), 0.0);
    assert_eq!(next, g);
}
