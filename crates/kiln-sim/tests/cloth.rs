//! Cloth against its definition: without damping Störmer–Verlet keeps the energy bounded,
//! damping takes it away, pinned points never move, and the threads do not change a bit.

use kiln_sim::cloth::{Cloth, ClothSettings};

fn settings(damping: f32) -> ClothSettings {
    ClothSettings {
        dt: 0.002,
        stiffness: 2000.0,
        damping,
        gravity: [0.0, -9.81, 0.0],
        wind: [0.0; 3],
        flutter: 0.0,
    }
}

fn swinging() -> Cloth {
    // Pinned at its top corners, released from rest: it sags and swings.
    let mut c = Cloth::hanging(8, 6, 0.1, |i, j| j == 0 && (i == 0 || i == 7));
    // Push the free points out of the plane so it swings in 3D too.
    for (n, p) in c.pos.iter_mut().enumerate() {
        if !c.pinned[n] {
            p[2] = 0.02 * (n % 5) as f32;
        }
    }
    c.prev = c.pos.clone();
    c
}

#[test]
fn without_damping_the_energy_stays_bounded_and_pins_hold() {
    let s = settings(0.0);
    let mut c = swinging();
    let pins: Vec<[f32; 3]> = c
        .pos
        .iter()
        .zip(&c.pinned)
        .filter(|(_, p)| **p)
        .map(|(x, _)| *x)
        .collect();
    let e0 = c.energy(&s);
    let (mut lo, mut hi) = (e0, e0);
    let mut moved = 0.0f32;
    for _ in 0..3000 {
        c = c.step(&s);
        let e = c.energy(&s);
        lo = lo.min(e);
        hi = hi.max(e);
        moved = moved.max(-c.pos[20][1]);
    }
    // Gravity does work of about g times the sag on each point: the swing's scale.
    let scale = 9.81 * 0.1 * c.pos.len() as f64;
    assert!(
        hi - lo < 0.05 * scale,
        "energy from {lo} to {hi}, scale {scale}"
    );
    assert!(moved > 0.25, "it sagged");
    let now: Vec<[f32; 3]> = c
        .pos
        .iter()
        .zip(&c.pinned)
        .filter(|(_, p)| **p)
        .map(|(x, _)| *x)
        .collect();
    assert_eq!(now, pins);
}

#[test]
fn damping_takes_the_energy_away() {
    let s = settings(0.01);
    let mut c = swinging();
    let mut energies = vec![];
    for k in 0..3000 {
        c = c.step(&s);
        if k % 500 == 499 {
            energies.push(c.energy(&s));
        }
    }
    // It settles: the kinetic part dies out, so the energy falls and then holds.
    assert!(
        energies.windows(2).all(|w| w[1] <= w[0] + 1e-3),
        "{energies:?}"
    );
    let v: f32 = c
        .pos
        .iter()
        .zip(&c.prev)
        .map(|(p, q)| (0..3).map(|k| (p[k] - q[k]).abs()).sum::<f32>())
        .sum();
    assert!(v / 0.002 < 0.5, "still moving at {v}");
}

#[test]
fn one_and_four_threads_give_the_same_bits() {
    let s = ClothSettings {
        flutter: 3.0,
        wind: [2.0, 0.0, 1.0],
        ..settings(0.001)
    };
    let go = || {
        let mut c = swinging();
        for _ in 0..200 {
            c = c.step(&s);
        }
        c
    };
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let (a, b) = (pool(1).install(go), pool(4).install(go));
    assert!(
        a.pos
            .iter()
            .flatten()
            .zip(b.pos.iter().flatten())
            .all(|(x, y)| x.to_bits() == y.to_bits())
    );
}
