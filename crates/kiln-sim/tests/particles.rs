//! Particles against their definition: free fall, drag towards the wind, lifetimes, the
//! floor and the sphere, bursts, and the same bits on any thread count.

mod common;
use common::still_particles as still;
use kiln_sim::particle_step::{ParticleSettings, step};
use kiln_sim::particle_view::hue_rgb;
use kiln_sim::particles::{Particle, Particles};

fn one(pos: [f32; 3], vel: [f32; 3]) -> Particles {
    Particles {
        items: vec![Particle {
            pos,
            vel,
            age: 0.0,
            life: 1e9,
            hue: 0.0,
        }],
        ..Particles::default()
    }
}

fn run(mut s: Particles, set: &ParticleSettings, n: usize) -> Particles {
    for _ in 0..n {
        s = step(&s, set).unwrap();
    }
    s
}

#[test]
fn free_fall_follows_semi_implicit_euler() {
    let set = ParticleSettings {
        gravity: [0.0, -9.81, 0.0],
        ..still()
    };
    let out = run(one([0.0, 10.0, 0.0], [1.0, 2.0, 0.0]), &set, 10);
    // v_k = v0 + k g dt, p_n = p0 + dt Σ_{k=1..n} v_k = p0 + n dt v0 + g dt² n(n+1)/2.
    let (n, dt, g) = (10.0f64, 0.1f64, -9.81f64);
    let y = 10.0 + n * dt * 2.0 + g * dt * dt * n * (n + 1.0) / 2.0;
    let p = out.items[0];
    assert!((p.pos[1] as f64 - y).abs() < 1e-4, "{} vs {y}", p.pos[1]);
    assert!((p.pos[0] as f64 - 1.0).abs() < 1e-5);
    assert!((p.vel[1] as f64 - (2.0 + n * g * dt)).abs() < 1e-4);
}

#[test]
fn drag_pulls_the_velocity_to_the_wind_geometrically() {
    let set = ParticleSettings {
        drag: 2.0,
        wind: [3.0, 0.0, 0.0],
        ..still()
    };
    let out = run(one([0.0; 3], [0.0; 3]), &set, 20);
    // v_{k+1} - w = (1 - drag dt)(v_k - w).
    let want = 3.0 * (1.0 - 0.8f64.powi(20));
    assert!(
        (out.items[0].vel[0] as f64 - want).abs() < 1e-5,
        "{}",
        out.items[0].vel[0]
    );
}

#[test]
fn particles_age_and_die_at_their_lifetime() {
    // One particle a step, each living 1.05 s: ages 0, 0.1, ..., 1.0 are alive.
    let set = ParticleSettings {
        rate: 10.0,
        life: 1.05,
        ..still()
    };
    let s = run(Particles::default(), &set, 30);
    assert_eq!(s.items.len(), 11);
    assert_eq!(s.emitted, 30);
    assert!(s.items.iter().all(|p| p.age < 1.05));
    // Oldest first.
    assert!(s.items.windows(2).all(|w| w[0].age >= w[1].age));
}

#[test]
fn the_floor_and_the_sphere_keep_particles_out() {
    let set = ParticleSettings {
        gravity: [0.0, -9.81, 0.0],
        floor_on: true,
        floor: 0.0,
        bounce: 0.6,
        ..still()
    };
    let mut s = one([0.0, 1.0, 0.0], [0.0; 3]);
    let mut bounced = false;
    for _ in 0..60 {
        let before = s.items[0].vel[1];
        s = step(&s, &set).unwrap();
        assert!(s.items[0].pos[1] >= 0.0);
        bounced |= before < 0.0 && s.items[0].vel[1] > 0.0;
    }
    assert!(bounced, "it bounced");
    // A shower onto a sphere: no particle ends a step inside it.
    let set = ParticleSettings {
        gravity: [0.0, -9.81, 0.0],
        rate: 200.0,
        spread: [1.0, 0.0, 1.0],
        emitter: [0.0, 3.0, 0.0],
        sphere_center: [0.0, 1.0, 0.0],
        sphere_radius: 1.0,
        life: 3.0,
        ..still()
    };
    let mut s = Particles::default();
    for _ in 0..30 {
        s = step(&s, &set).unwrap();
        for p in &s.items {
            let d = [p.pos[0], p.pos[1] - 1.0, p.pos[2]];
            assert!((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() >= 1.0 - 1e-5);
        }
    }
}

#[test]
fn a_burst_emits_its_count_at_its_times_and_thread_counts_agree() {
    let set = ParticleSettings {
        burst_every: 1.0,
        burst: 50,
        speed: 2.0,
        life: 10.0,
        noise: 1.0,
        vortex: 0.5,
        dt: 0.25,
        ..still()
    };
    // Bursts at t = 0, 1, 2: steps 0, 4, 8.
    let counts: Vec<usize> = (1..=9)
        .map(|n| run(Particles::default(), &set, n).items.len())
        .collect();
    assert_eq!(counts, [50, 50, 50, 50, 100, 100, 100, 100, 150]);
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let set = ParticleSettings {
        rate: 3000.0,
        ..set
    };
    let a = pool(1).install(|| run(Particles::default(), &set, 12));
    let b = pool(4).install(|| run(Particles::default(), &set, 12));
    assert_eq!(a.items.len(), b.items.len());
    assert!(
        a.items
            .iter()
            .zip(&b.items)
            .all(|(p, q)| p.pos.map(f32::to_bits) == q.pos.map(f32::to_bits))
    );
}

#[test]
fn hues_are_the_colour_wheel() {
    assert_eq!(hue_rgb(0.0), [1.0, 0.0, 0.0]);
    assert_eq!(hue_rgb(1.0 / 3.0), [0.0, 1.0, 0.0]);
    assert_eq!(hue_rgb(2.0 / 3.0), [0.0, 0.0, 1.0]);
    assert_eq!(hue_rgb(0.5), [0.0, 1.0, 1.0]);
}

/// A million bursts a second over a step of a billion seconds is 10¹⁵ bursts: the system
/// stops at its limit, and the step counts what it emits rather than walking every burst
/// (which never ended before). Its particles are the first bursts' in order.
#[test]
fn bursts_past_the_particle_limit_stop_at_it() {
    use kiln_sim::particle_step::MAX_PARTICLES;
    let set = ParticleSettings {
        burst_every: 1e-6,
        burst: 3,
        rate: 1e9,
        life: 1e12,
        dt: 1e9,
        ..still()
    };
    let s = step(&Particles::default(), &set).unwrap();
    assert_eq!(s.items.len(), MAX_PARTICLES);
    assert_eq!(s.emitted, MAX_PARTICLES as u64);
}

/// Particles far past the `i32` cells of the noise field, and splats far off the image:
/// no overflow (the `evaluate` fuzz target found the noise's cell plus one overflowing), and
/// the far particle draws nothing.
#[test]
fn particles_past_the_noise_cells_and_off_the_image_step_and_draw_without_overflow() {
    use kiln_core::prelude::*;
    let set = ParticleSettings {
        noise: 1.0,
        noise_scale: 1e-3,
        ..still()
    };
    for pos in [
        [3e38, -3e38, 3e38],
        [-3e38, 3e38, 1e30],
        [f32::MAX, 0.0, f32::MIN],
    ] {
        let s = step(&one(pos, [0.0; 3]), &set).unwrap();
        assert_eq!(s.items.len(), 1);
    }
    // A splat of a particle emitted far off the image: a black image.
    let mut g = Graph::new();
    g.add_node("init", "sim.particles.init").unwrap();
    g.add_node("step", "sim.particles.step").unwrap();
    g.wire("init.out", "step.state");
    g.set_const("step", "emitter", Value::Vec3([9e18, -9e18, 0.0]))
        .unwrap();
    g.set_const("step", "rate", 300.0).unwrap();
    g.add_node("view", "sim.particles.splat").unwrap();
    g.set_param("view", "width", 8i64).unwrap();
    g.set_param("view", "height", 8i64).unwrap();
    g.set_param("view", "extent", 1.0).unwrap();
    g.wire("step.out", "view.particles");
    let mut eval = LazyEvaluator::new(kiln_sim::registry());
    let out = eval
        .evaluate(&g, &Request::new(["view"]), &EvalContext::new())
        .unwrap();
    let img = out
        .get("view")
        .unwrap()
        .as_heavy::<kiln_image::image::Image>()
        .unwrap();
    assert!(img.pixels.iter().all(|p| *p == [0.0, 0.0, 0.0, 1.0]));
}
