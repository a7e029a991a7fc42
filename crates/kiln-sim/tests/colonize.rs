//! Space colonization against its definition: segments of the set length from a parent that
//! comes first, reached attractors removed, growth that stops, threads that agree.

use kiln_sim::colonize::{GrowSettings, Tree};

fn settings() -> GrowSettings {
    GrowSettings {
        influence: 0.6,
        kill: 0.08,
        segment: 0.04,
    }
}

#[test]
fn each_step_grows_segments_of_its_length_and_removes_reached_attractors() {
    let s = settings();
    let mut t = Tree::seeded([0.0, 0.0], [0.0, 0.8], 0.5, 300, 2);
    let start = t.attractors.len();
    for _ in 0..80 {
        let before = t.nodes.len();
        let next = t.grow(&s);
        for i in before..next.nodes.len() {
            let p = next.parent[i] as usize;
            assert!(p < before, "a new node's parent is an old node");
            let d = ((next.nodes[i][0] - next.nodes[p][0]).powi(2)
                + (next.nodes[i][1] - next.nodes[p][1]).powi(2))
            .sqrt();
            assert!((d - s.segment).abs() < 1e-5, "segment {d}");
        }
        for a in &next.attractors {
            assert!(
                next.nodes
                    .iter()
                    .all(|n| (a[0] - n[0]).powi(2) + (a[1] - n[1]).powi(2) > s.kill * s.kill)
            );
        }
        t = next;
    }
    assert!(
        t.nodes.len() > 60 && t.attractors.len() < start / 2,
        "{} nodes, {} attractors left",
        t.nodes.len(),
        t.attractors.len()
    );
    // The tree reached up into the crown.
    assert!(t.nodes.iter().any(|n| n[1] > 0.8));
}

#[test]
fn growth_stops_when_no_attractor_is_within_reach() {
    // Attractors far beyond the influence of the root: nothing grows.
    let t = Tree::seeded([0.0, 0.0], [0.0, 5.0], 0.5, 50, 1);
    assert_eq!(t.grow(&settings()), t);
    // One attractor straight above, within reach: the tree grows straight up to it, then stops.
    let mut t = Tree {
        nodes: vec![[0.0, 0.0]],
        parent: vec![0],
        attractors: vec![[0.0, 0.3]],
    };
    for _ in 0..20 {
        t = t.grow(&settings());
    }
    assert!(t.attractors.is_empty());
    let top = t.nodes.last().unwrap();
    assert!(
        top[0].abs() < 1e-6 && (top[1] - 0.24).abs() < 1e-5,
        "{top:?}"
    );
    assert_eq!(t.grow(&settings()), t);
}

#[test]
fn one_and_four_threads_give_the_same_tree() {
    let go = || {
        let mut t = Tree::seeded([0.0, 0.0], [0.0, 0.8], 0.6, 400, 7);
        for _ in 0..40 {
            t = t.grow(&settings());
        }
        t
    };
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    assert_eq!(pool(1).install(go), pool(4).install(go));
}
