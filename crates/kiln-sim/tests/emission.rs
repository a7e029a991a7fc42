//! Particles emitted from given points (a mesh's points, as lists of vec3): at emission
//! they sit on those points and move along their normals at `speed`; every point is used;
//! and the bits are the same under every evaluator and on 1 and 4 threads.

mod common;
use common::*;
use kiln_core::prelude::*;
use kiln_core::recurrence::Recurrent;
use kiln_sim::particle_step::{EmitFrom, ParticleSettings, step_from};
use kiln_sim::particles::Particles;

fn still() -> ParticleSettings {
    ParticleSettings {
        seed: 5,
        emitter: [100.0, 100.0, 100.0],
        ..still_particles()
    }
}

/// The 12 vertices of an icosahedron, (0, ±1, ±φ) and its cyclic permutations.
fn icosahedron() -> Vec<[f32; 3]> {
    let p = (1.0 + 5f32.sqrt()) / 2.0;
    let mut v = vec![];
    for a in [-1.0, 1.0] {
        for b in [-p, p] {
            v.push([0.0, a, b]);
            v.push([a, b, 0.0]);
            v.push([b, 0.0, a]);
        }
    }
    v
}

#[test]
fn particles_start_on_the_given_points_and_use_every_one() {
    let points = icosahedron();
    let set = ParticleSettings {
        rate: 600.0,
        ..still()
    };
    let from = EmitFrom {
        points: &points,
        normals: &[],
    };
    let s = step_from(&Particles::default(), &set, from).unwrap();
    // 600 a second for 0.1 s; no speed and no force, so the first step leaves them where
    // they were emitted: exactly on a point (the emitter far away is not used).
    assert_eq!(s.items.len(), 60);
    let on_a_point = |p: [f32; 3]| {
        points
            .iter()
            .position(|q| q.map(f32::to_bits) == p.map(f32::to_bits))
    };
    let used: Vec<usize> = s
        .items
        .iter()
        .map(|p| on_a_point(p.pos).expect("on a given point"))
        .collect();
    for k in 0..points.len() {
        assert!(used.contains(&k), "point {k} never picked in 60 particles");
    }
}

#[test]
fn particles_move_along_their_points_normals_at_speed() {
    let points = icosahedron();
    // Normals of all lengths (the direction counts): three times the point.
    let normals: Vec<[f32; 3]> = points.iter().map(|p| p.map(|c| 3.0 * c)).collect();
    let set = ParticleSettings {
        rate: 200.0,
        speed: 2.0,
        ..still()
    };
    let from = EmitFrom {
        points: &points,
        normals: &normals,
    };
    let s = step_from(&Particles::default(), &set, from).unwrap();
    assert_eq!(s.items.len(), 20);
    let r = (1.0 + ((1.0 + 5f32.sqrt()) / 2.0).powi(2)).sqrt();
    for p in &s.items {
        // Semi-implicit Euler with no force: p = point + dt · speed · n̂, v = speed · n̂;
        // the point is p less that, and must be one of the points.
        let len = (p.vel.iter().map(|c| c * c).sum::<f32>()).sqrt();
        assert!((len - 2.0).abs() < 1e-5, "speed {len}");
        let back: Vec<f32> = (0..3).map(|i| p.pos[i] - p.vel[i] * 0.1).collect();
        let k = points
            .iter()
            .position(|q| (0..3).all(|i| (q[i] - back[i]).abs() < 1e-5))
            .expect("it left from a point");
        // Outwards along the radius: the velocity is the point's direction times speed.
        for (v, c) in p.vel.iter().zip(points[k]) {
            assert!((v - 2.0 * c / r).abs() < 1e-5);
        }
    }
}

fn emitting_graph() -> Graph {
    let mut g = latch_graph(
        "sim.particles.init",
        &[],
        "sim.particles.step",
        &[("seed", Value::Int(4))],
    );
    let points = icosahedron();
    let list =
        |f: &dyn Fn(&[f32; 3]) -> [f64; 3]| Value::list(points.iter().map(|p| Value::Vec3(f(p))));
    g.set_const("sim", "points", list(&|p| p.map(|c| c as f64)))
        .unwrap();
    g.set_const("sim", "normals", list(&|p| p.map(|c| -c as f64)))
        .unwrap();
    g.set_const("sim", "rate", Value::Float(40_000.0)).unwrap();
    g.set_const("sim", "noise", Value::Float(1.0)).unwrap();
    g.set_const("sim", "life", Value::Float(0.2)).unwrap();
    g
}

#[test]
fn emission_from_points_gives_the_same_bits_under_every_evaluator_and_thread_count() {
    let g = emitting_graph();
    let mut reference: Option<Vec<Value>> = None;
    for (name, eval) in evaluators() {
        let mut d = Recurrent::new(eval, kiln_sim::registry());
        let out = run(&mut d, &g, 6);
        match &reference {
            None => reference = Some(out),
            Some(r) => {
                for (t, (a, b)) in r.iter().zip(&out).enumerate() {
                    assert!(a.same_bits(b), "under {name}, tick {t}");
                }
            }
        }
    }
    let reference = reference.unwrap();
    // Over a thousand particles a step: the update runs in parallel chunks.
    let last = reference[5].as_heavy::<Particles>().unwrap();
    assert!(last.items.len() > 2048, "{}", last.items.len());
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let go = || {
        let mut d = Recurrent::new(
            EagerEvaluator::new(kiln_sim::registry()),
            kiln_sim::registry(),
        );
        run(&mut d, &g, 6)
    };
    let (one, four) = (pool(1).install(go), pool(4).install(go));
    for (t, ((a, b), c)) in one.iter().zip(&four).zip(&reference).enumerate() {
        assert!(a.same_bits(b) && a.same_bits(c), "tick {t}");
    }
}

#[test]
fn a_normal_list_of_another_length_is_refused_naming_the_port() {
    let mut g = emitting_graph();
    g.set_const(
        "sim",
        "normals",
        Value::list([Value::Vec3([0.0, 1.0, 0.0])]),
    )
    .unwrap();
    let mut d = Recurrent::new(
        LazyEvaluator::new(kiln_sim::registry()),
        kiln_sim::registry(),
    );
    let e = d
        .tick(&g, &Request::new(["sim"]), &EvalContext::new())
        .expect_err("refused");
    let msg = e.to_string();
    assert!(
        msg.contains("normals") && msg.contains("12 points"),
        "{msg}"
    );
}
