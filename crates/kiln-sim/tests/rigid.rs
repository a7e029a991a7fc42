//! Rigid bodies against mechanics: a free body falls y0 − g t²/2 within the integrator's
//! first-order error, a ball dropped on the ground comes to rest on it, a pile's energy
//! never grows, and the world gives the same bits under every evaluator, across a snapshot
//! restore, a seek, a codec round trip and 1 or 4 threads.

mod common;
use common::*;
use kiln_core::codec::{ByteReader, HeavyCodec};
use kiln_core::prelude::*;
use kiln_core::recurrence::{Recurrent, SeekMode};
use kiln_sim::rigid::{BodyDesc, BodyShape, MAX_BODIES, RigidCodec, RigidError, RigidWorld};

const G: f32 = 9.81;

fn ball(y: f32, restitution: f32) -> BodyDesc {
    BodyDesc {
        shape: BodyShape::Ball(0.5),
        position: [0.0, y, 0.0],
        rotation: [0.0; 3],
        velocity: [0.0; 3],
        density: 1.0,
        restitution,
        friction: 0.5,
    }
}

#[test]
fn a_free_body_falls_y0_minus_g_t_squared_over_two() {
    let dt = 1.0 / 60.0;
    let mut w = RigidWorld::new(&[ball(100.0, 0.0)], false, 0.5).unwrap();
    for n in 1..=60u32 {
        w = w.step([0.0, -G, 0.0], dt, 1).unwrap();
        let t = n as f64 * dt as f64;
        let b = w.bodies()[0];
        let exact = 100.0 - G as f64 * t * t / 2.0;
        // An Euler integrator (explicit or symplectic) is off by g dt t / 2 at most.
        let bound = G as f64 * dt as f64 * t / 2.0 * 1.001 + 1e-4;
        let err = (b.position[1] as f64 - exact).abs();
        assert!(err <= bound, "tick {n}: y {} vs {exact}", b.position[1]);
        // And its speed is g t: gravity is applied exactly once a step.
        assert!((b.velocity[1] as f64 + G as f64 * t).abs() < 1e-3);
        assert_eq!(b.position[0], 0.0);
    }
}

#[test]
fn a_ball_dropped_on_the_ground_comes_to_rest_on_it() {
    let mut w = RigidWorld::new(&[ball(3.0, 0.3)], true, 0.5).unwrap();
    let mut lowest = f32::MAX;
    for _ in 0..240 {
        w = w.step([0.0, -G, 0.0], 1.0 / 30.0, 4).unwrap();
        lowest = lowest.min(w.bodies()[0].position[1]);
    }
    let b = w.bodies()[0];
    let speed = b.velocity.iter().map(|v| v * v).sum::<f32>().sqrt();
    assert!(speed < 1e-2, "still moving at {speed}");
    // At rest on the plane y = 0: its centre one radius up (contacts may sink a little).
    assert!(
        (b.position[1] - 0.5).abs() < 0.02,
        "rests at {}",
        b.position[1]
    );
    assert!(lowest > 0.4, "went through the ground to {lowest}");
}

fn pile() -> Vec<BodyDesc> {
    (0..12)
        .map(|i| BodyDesc {
            shape: if i % 3 == 0 {
                BodyShape::Ball(0.4)
            } else {
                BodyShape::Box([0.5, 0.3, 0.4])
            },
            position: [
                (i % 4) as f32 * 0.3 - 0.45,
                1.0 + 1.6 * i as f32,
                0.1 * (i % 2) as f32,
            ],
            rotation: [0.3 * i as f32, 0.2, 0.1],
            velocity: [0.0; 3],
            density: 1.0 + (i % 3) as f32,
            restitution: 0.2,
            friction: 0.6,
        })
        .collect()
}

#[test]
fn the_energy_of_a_pile_never_grows() {
    let g = [0.0, -G, 0.0];
    let mut w = RigidWorld::new(&pile(), true, 0.6).unwrap();
    let e0 = w.energy(g);
    let mut prev = e0;
    for n in 0..150 {
        w = w.step(g, 1.0 / 30.0, 4).unwrap();
        let e = w.energy(g);
        // Contacts and friction only take energy; a solver may hand back a sliver of
        // what it took in a step (position correction), never more than 0.5% of the start.
        assert!(e <= e0 * 1.0001 + 1e-6, "tick {n}: {e} over the start {e0}");
        assert!(e <= prev + 0.005 * e0, "tick {n}: {e} after {prev}");
        prev = e;
    }
    assert!(prev < 0.5 * e0, "the pile fell: {prev} of {e0}");
    assert!(w.bodies().iter().all(|b| b.position[1] > 0.0));
}

#[test]
fn too_many_bodies_and_bad_sizes_are_refused() {
    let many = vec![ball(1.0, 0.0); MAX_BODIES + 1];
    assert_eq!(
        RigidWorld::new(&many, true, 0.5).unwrap_err(),
        RigidError::TooManyBodies(MAX_BODIES + 1)
    );
    let mut bad = ball(1.0, 0.0);
    bad.shape = BodyShape::Ball(-1.0);
    assert!(matches!(
        RigidWorld::new(&[bad], true, 0.5),
        Err(RigidError::BadBody { index: 0, .. })
    ));
    let mut g = latch_graph(
        "sim.rigid.init",
        &[("count", Value::Int(MAX_BODIES as i64 + 1))],
        "sim.rigid.step",
        &[],
    );
    let mut d = Recurrent::new(
        LazyEvaluator::new(kiln_sim::registry()),
        kiln_sim::registry(),
    );
    let err = d
        .tick(&g, &Request::new(["sim"]), &EvalContext::new())
        .unwrap_err()
        .to_string();
    assert!(err.contains("count") && err.contains("4096"), "{err}");
    g.set_param("seed", "count", Value::Int(3)).unwrap();
    assert!(
        d.tick(&g, &Request::new(["sim"]), &EvalContext::new())
            .is_ok()
    );
}

#[test]
fn a_state_decoded_from_its_codec_continues_with_the_same_bits() {
    let g = [0.0, -G, 0.0];
    let mut w = RigidWorld::new(&pile(), true, 0.6).unwrap();
    for _ in 0..20 {
        w = w.step(g, 1.0 / 30.0, 2).unwrap();
    }
    let mut bytes = vec![];
    RigidCodec
        .encode(&Heavy::new(w.clone()), &mut bytes)
        .unwrap();
    let back = RigidCodec.decode(&mut ByteReader::new(&bytes)).unwrap();
    let back = back.as_heavy::<RigidWorld>().unwrap().clone();
    assert_eq!(back.world_bytes(), w.world_bytes());
    let (mut a, mut b) = (w, back);
    for _ in 0..20 {
        a = a.step(g, 1.0 / 30.0, 2).unwrap();
        b = b.step(g, 1.0 / 30.0, 2).unwrap();
    }
    assert_eq!(a.world_bytes(), b.world_bytes());
    assert_eq!(a.bodies(), b.bodies());
}

fn graph(layout: &str) -> Graph {
    latch_graph(
        "sim.rigid.init",
        &[
            ("layout", Value::Str(layout.into())),
            ("count", Value::Int(10)),
            ("seed", Value::Int(7)),
        ],
        "sim.rigid.step",
        &[("substeps", Value::Int(2))],
    )
}

#[test]
fn every_evaluator_a_restore_and_a_seek_give_the_same_bits() {
    for layout in ["pile", "stack"] {
        let g = graph(layout);
        let mut reference: Option<Vec<Value>> = None;
        for (name, eval) in evaluators() {
            let mut d = Recurrent::new(eval, kiln_sim::registry());
            let out = run(&mut d, &g, 12);
            match &reference {
                None => reference = Some(out),
                Some(r) => {
                    for (t, (a, b)) in r.iter().zip(&out).enumerate() {
                        assert!(a.same_bits(b), "{layout} under {name}, tick {t}");
                    }
                }
            }
        }
        let straight = reference.unwrap();
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
        for (t, v) in run(&mut second, &g, 6).iter().enumerate() {
            assert!(
                v.same_bits(&straight[6 + t]),
                "{layout}: tick {} after restore",
                6 + t
            );
        }
        let mut d = Recurrent::new(
            IncrementalEvaluator::new(kiln_sim::registry()),
            kiln_sim::registry(),
        );
        run(&mut d, &g, 12);
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
            "{layout}: seek"
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
    let g = graph("pile");
    let go = || {
        let mut d = Recurrent::new(
            EagerEvaluator::new(kiln_sim::registry()),
            kiln_sim::registry(),
        );
        run(&mut d, &g, 10)
    };
    let (one, four) = (pool(1).install(go), pool(4).install(go));
    for (t, (a, b)) in one.iter().zip(&four).enumerate() {
        assert!(a.same_bits(b), "tick {t}");
    }
}

#[test]
fn the_stack_topples_and_the_points_carry_orientations() {
    let g = graph("stack");
    let mut d = Recurrent::new(
        LazyEvaluator::new(kiln_sim::registry()),
        kiln_sim::registry(),
    );
    let out = run(&mut d, &g, 90);
    let first = out[0].as_heavy::<RigidWorld>().unwrap();
    let last = out[89].as_heavy::<RigidWorld>().unwrap();
    let top = |w: &RigidWorld| w.bodies().iter().map(|b| b.position[1]).fold(0.0, f32::max);
    // Ten boxes each shifted 0.45 half extents: the upper part's centre of mass passes an
    // edge, so the tower falls and its top comes down by more than a few boxes.
    assert!(
        top(last) < top(first) - 2.0,
        "{} then {}",
        top(first),
        top(last)
    );
    let mut gp = g.clone();
    gp.add_node("pts", "sim.rigid.points").unwrap();
    gp.wire("sim.out", "pts.world");
    let mut d = Recurrent::new(
        LazyEvaluator::new(kiln_sim::registry()),
        kiln_sim::registry(),
    );
    let o = d
        .tick(&gp, &Request::new(["pts"]), &EvalContext::new())
        .unwrap();
    let Some(Value::List(items)) = o.get("pts") else {
        panic!("a list");
    };
    assert_eq!(items.len(), 10);
    for it in items.iter() {
        let Value::Record(r) = it else {
            panic!("a record")
        };
        let Some(Value::Vec4(q)) = r.get("rotation") else {
            panic!("a rotation")
        };
        let norm = q.iter().map(|c| c * c).sum::<f64>();
        assert!((norm - 1.0).abs() < 1e-4, "a unit quaternion: {q:?}");
        assert!(matches!(r.get("position"), Some(Value::Vec3(_))));
    }
}

/// Issue 37, item 7: a world with one byte changed decoded, then panicked a later step
/// ("No element at index"). Every single-byte change of a saved pile (each byte of its
/// serialised world, several values each) is refused as it decodes or steps without a
/// panic.
#[test]
fn a_damaged_world_is_refused_as_it_decodes_or_steps_without_panicking() {
    let g = [0.0, -G, 0.0];
    let mut w = RigidWorld::new(&pile()[..4], true, 0.6).unwrap();
    for _ in 0..10 {
        w = w.step(g, 1.0 / 30.0, 2).unwrap();
    }
    let mut bytes = vec![];
    RigidCodec.encode(&Heavy::new(w), &mut bytes).unwrap();
    let (mut refused, mut stepped) = (0, 0);
    let mut panics = vec![];
    // The flag, the step count and the length (17 bytes) first, then the world.
    for i in 17..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut damaged = bytes.clone();
            damaged[i] ^= flip;
            let run = std::panic::catch_unwind(|| {
                match RigidCodec.decode(&mut ByteReader::new(&damaged)) {
                    Err(_) => false,
                    Ok(v) => {
                        let mut w = v.as_heavy::<RigidWorld>().unwrap().clone();
                        for _ in 0..3 {
                            match w.step(g, 1.0 / 30.0, 2) {
                                Ok(next) => w = next,
                                Err(_) => break,
                            }
                        }
                        true
                    }
                }
            });
            match run {
                Ok(false) => refused += 1,
                Ok(true) => stepped += 1,
                Err(_) => panics.push((i, flip)),
            }
        }
    }
    assert!(
        panics.is_empty(),
        "{} changes panicked a step: {panics:?}",
        panics.len()
    );
    assert!(
        refused > 0 && stepped > 0,
        "{refused} refused, {stepped} stepped"
    );
}
