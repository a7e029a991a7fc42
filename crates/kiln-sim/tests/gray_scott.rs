//! Gray–Scott against its equations: fixed points, uniform states following the scalar ODE,
//! conserved mass without feed and kill, and a plain reference loop written from the
//! equations.

use kiln_sim::Grid;
use kiln_sim::gray_scott::{Rates, init, run};

/// The reference: the equations of Pearson's model with the 3 × 3 Laplacian, in f64, cell by
/// cell through `get`.
fn reference(g: &Grid, f: f64, k: f64, du: f64, dv: f64, dt: f64, steps: usize) -> Vec<[f64; 2]> {
    let (w, h) = (g.width() as i64, g.height() as i64);
    let mut s: Vec<[f64; 2]> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| {
            [
                g.get(x as u32, y as u32, 0) as f64,
                g.get(x as u32, y as u32, 1) as f64,
            ]
        })
        .collect();
    let at = |x: i64, y: i64| (y.rem_euclid(h) * w + x.rem_euclid(w)) as usize;
    for _ in 0..steps {
        let mut n = s.clone();
        for y in 0..h {
            for x in 0..w {
                let mut lap = [0.0; 2];
                for c in 0..2 {
                    let mut sum = -s[at(x, y)][c];
                    for (dx, dy) in [(0, -1), (0, 1), (-1, 0), (1, 0)] {
                        sum += 0.2 * s[at(x + dx, y + dy)][c];
                    }
                    for (dx, dy) in [(-1, -1), (1, -1), (-1, 1), (1, 1)] {
                        sum += 0.05 * s[at(x + dx, y + dy)][c];
                    }
                    lap[c] = sum;
                }
                let [u, v] = s[at(x, y)];
                n[at(x, y)] = [
                    u + dt * (du * lap[0] - u * v * v + f * (1.0 - u)),
                    v + dt * (dv * lap[1] + u * v * v - (f + k) * v),
                ];
            }
        }
        s = n;
    }
    s
}

#[test]
fn the_field_follows_a_reference_written_from_the_equations() {
    let g = init(24, 20, 5, 3, 3).unwrap();
    let out = run(&g, &Rates::uniform(0.037, 0.06, 1.0, 0.5), 1.0, 40).unwrap();
    let want = reference(&g, 0.037, 0.06, 1.0, 0.5, 1.0, 40);
    let mut worst = 0.0f64;
    for (i, w) in want.iter().enumerate() {
        for (c, want) in w.iter().enumerate() {
            worst = worst.max((out.data()[i * 2 + c] as f64 - want).abs());
        }
    }
    assert!(worst < 1e-4, "largest difference {worst}");
    // Something happened: the spots spread.
    assert!(out.channel_sum(1) > 0.0 && out != g);
}

#[test]
fn u_one_v_zero_is_a_fixed_point_and_a_uniform_state_stays_uniform_on_the_ode() {
    let still = Grid::filled(16, 16, &[1.0, 0.0]).unwrap();
    assert_eq!(
        run(&still, &Rates::uniform(0.055, 0.062, 1.0, 0.5), 1.0, 25).unwrap(),
        still
    );
    let (u0, v0, f, k, dt) = (0.6f64, 0.3f64, 0.04f64, 0.06f64, 0.5f64);
    let uniform = Grid::filled(9, 7, &[u0 as f32, v0 as f32]).unwrap();
    let out = run(
        &uniform,
        &Rates::uniform(f as f32, k as f32, 1.0, 0.5),
        dt as f32,
        30,
    )
    .unwrap();
    // Without gradients the Laplacian is zero: each cell follows the reaction ODE.
    let (mut u, mut v) = (u0, v0);
    for _ in 0..30 {
        let uvv = u * v * v;
        (u, v) = (
            u + dt * (-uvv + f * (1.0 - u)),
            v + dt * (uvv - (f + k) * v),
        );
    }
    let d = out.data();
    assert!(
        d.chunks(2)
            .all(|c| c[0].to_bits() == d[0].to_bits() && c[1].to_bits() == d[1].to_bits())
    );
    assert!(
        (d[0] as f64 - u).abs() < 1e-5 && (d[1] as f64 - v).abs() < 1e-5,
        "{d:?} vs {u}, {v}"
    );
}

#[test]
fn without_feed_and_kill_the_total_of_u_plus_v_is_conserved() {
    // d(u + v)/dt = du ∇²u + dv ∇²v, and the Laplacian sums to zero over a torus.
    let g = init(32, 32, 9, 6, 3).unwrap();
    let total = |g: &Grid| g.channel_sum(0) + g.channel_sum(1);
    let out = run(&g, &Rates::uniform(0.0, 0.0, 1.0, 0.5), 1.0, 200).unwrap();
    let (a, b) = (total(&g), total(&out));
    assert!((a - b).abs() / a < 1e-4, "{a} became {b}");
    // With feed and kill it is not.
    let fed = run(&g, &Rates::uniform(0.05, 0.06, 1.0, 0.5), 1.0, 200).unwrap();
    assert!((total(&fed) - a).abs() / a > 1e-3);
}

#[test]
fn rates_may_be_maps_of_the_state_size() {
    use kiln_core::prelude::*;
    let graph = |feed_map: Option<(i64, i64)>| {
        let mut g = Graph::new();
        g.add_node("seed", "sim.grayscott.init").unwrap();
        for k in ["width", "height"] {
            g.set_param("seed", k, Value::Int(16)).unwrap();
        }
        g.add_node("step", "sim.grayscott.step").unwrap();
        g.set_param("step", "substeps", Value::Int(20)).unwrap();
        g.wire("seed.out", "step.state");
        if let Some((w, h)) = feed_map {
            g.add_node("feed", "image.fill").unwrap();
            g.set_param("feed", "width", Value::Int(w)).unwrap();
            g.set_param("feed", "height", Value::Int(h)).unwrap();
            g.set_const("feed", "color", Value::Color([0.03, 0.0, 0.0, 1.0]))
                .unwrap();
            g.wire("feed.out", "step.feed");
        } else {
            g.set_const("step", "feed", Value::Float(0.03)).unwrap();
        }
        g
    };
    let eval = |g: &Graph| {
        LazyEvaluator::new(kiln_sim::registry()).evaluate(
            g,
            &Request::new(["step"]),
            &EvalContext::new(),
        )
    };
    let number = eval(&graph(None)).unwrap();
    let map = eval(&graph(Some((16, 16)))).unwrap();
    assert!(
        number
            .get("step")
            .unwrap()
            .same_bits(map.get("step").unwrap())
    );
    let e = eval(&graph(Some((8, 16)))).unwrap_err().to_string();
    assert!(
        e.contains("step") && e.contains("feed") && e.contains("8 x 16"),
        "{e}"
    );
}

/// The double-buffer loop of the `sim` benchmark (crates/kiln-bench/benches/sim.rs), in the
/// same arithmetic order as the step: the benchmark's bit-for-bit check holds.
#[test]
fn the_step_is_bit_for_bit_a_plain_double_buffer_loop() {
    let n = 32usize;
    let g = init(n as u32, n as u32, 0, 10, 4).unwrap();
    let (f, k, du, dv, dt) = (0.055f32, 0.062f32, 1.0f32, 0.5f32, 1.0f32);
    let mut a: Vec<[f32; 2]> = g.data().chunks(2).map(|c| [c[0], c[1]]).collect();
    let mut b = a.clone();
    for _ in 0..20 {
        for y in 0..n {
            let (yn, ys) = ((y + n - 1) % n, (y + 1) % n);
            for x in 0..n {
                let (xw, xe) = ((x + n - 1) % n, (x + 1) % n);
                let c = a[y * n + x];
                let mut lap = [0.0f32; 2];
                for (ch, l) in lap.iter_mut().enumerate() {
                    let s = a[yn * n + x][ch]
                        + a[ys * n + x][ch]
                        + a[y * n + xw][ch]
                        + a[y * n + xe][ch];
                    let q = a[yn * n + xw][ch]
                        + a[yn * n + xe][ch]
                        + a[ys * n + xw][ch]
                        + a[ys * n + xe][ch];
                    *l = s * 0.2 + q * 0.05 - c[ch];
                }
                let (u, v) = (c[0], c[1]);
                let uvv = u * v * v;
                b[y * n + x] = [
                    u + dt * (du * lap[0] - uvv + f * (1.0 - u)),
                    v + dt * (dv * lap[1] + uvv - (f + k) * v),
                ];
            }
        }
        std::mem::swap(&mut a, &mut b);
    }
    let out = run(
        &g,
        &Rates::uniform(0.055f64 as f32, 0.062f64 as f32, 1.0, 0.5),
        1.0,
        20,
    )
    .unwrap();
    let want: Vec<u32> = a.iter().flatten().map(|v| v.to_bits()).collect();
    let got: Vec<u32> = out.data().iter().map(|v| v.to_bits()).collect();
    assert!(got == want);
}

/// Grids one and two cells wide or high wrap every neighbour of an edge cell (the step reads
/// interior cells directly and wraps only the first and last cell of a row).
#[test]
fn narrow_grids_wrap_like_the_reference() {
    for (w, h) in [(1, 5), (2, 3), (3, 1), (5, 2), (2, 2), (1, 1)] {
        let mut g = Grid::filled(w, h, &[1.0, 0.0]).unwrap();
        // A different (u, v) in every cell, so each neighbour counts.
        for y in 0..h {
            for x in 0..w {
                let i = (y * w + x) as f32;
                g.set(x, y, 0, 1.0 - 0.07 * i);
                g.set(x, y, 1, 0.05 + 0.03 * i);
            }
        }
        let out = run(&g, &Rates::uniform(0.04, 0.06, 1.0, 0.5), 0.5, 6).unwrap();
        let want = reference(&g, 0.04, 0.06, 1.0, 0.5, 0.5, 6);
        for (i, cell) in want.iter().enumerate() {
            for (c, want) in cell.iter().enumerate() {
                let got = out.data()[i * 2 + c] as f64;
                assert!(
                    (got - want).abs() < 1e-5,
                    "{w} x {h}, cell {i}: {got} vs {want}"
                );
            }
        }
    }
}
