//! Wave function collapse: finished maps obey every adjacency rule and the border, seeds
//! repeat and differ, and a tile set with no solution is a contradiction naming its cell.

use kiln_core::prelude::*;
use kiln_core::recurrence::Recurrent;
use kiln_sim::wfc::{Wave, parse_tiles};
use kiln_sim::wfc_ops::DUNGEON_TILES;

fn solve(seed: u64) -> Wave {
    let mut w = Wave::new(16, 12, parse_tiles(DUNGEON_TILES).unwrap(), seed, Some('w')).unwrap();
    while !w.done() {
        w.collapse(5).unwrap();
    }
    w
}

#[test]
fn every_finished_map_obeys_every_adjacency_rule_and_its_border() {
    for seed in 0..6 {
        let w = solve(seed);
        let edges = |x, y| w.tiles[w.tile_at(x, y).unwrap()].edges;
        for y in 0..12 {
            for x in 0..16 {
                let e = edges(x, y);
                if x + 1 < 16 {
                    assert_eq!(
                        e[1],
                        edges(x + 1, y)[3],
                        "seed {seed}: ({x}, {y}) and its east neighbour"
                    );
                }
                if y + 1 < 12 {
                    assert_eq!(
                        e[2],
                        edges(x, y + 1)[0],
                        "seed {seed}: ({x}, {y}) and its south neighbour"
                    );
                }
                if x == 0 {
                    assert_eq!(e[3], 'w');
                }
                if y == 0 {
                    assert_eq!(e[0], 'w');
                }
                if x == 15 {
                    assert_eq!(e[1], 'w');
                }
                if y == 11 {
                    assert_eq!(e[2], 'w');
                }
            }
        }
    }
    assert_eq!(solve(3), solve(3));
    assert_ne!(solve(3).cells, solve(4).cells);
}

#[test]
fn a_tile_set_without_a_solution_is_a_contradiction_naming_the_cell() {
    // The only tile's east edge (a) never meets its west edge (b): no two cells side by side.
    let tiles = parse_tiles("aaab").unwrap();
    let (x, y) = Wave::new(3, 1, tiles, 0, None).unwrap_err();
    assert!(x < 3 && y == 0);
    // Through a graph: the step's error says so.
    let mut g = Graph::new();
    g.add_node("seed", "sim.wfc.init").unwrap();
    g.set_param("seed", "width", Value::Int(4)).unwrap();
    g.set_param("seed", "height", Value::Int(4)).unwrap();
    g.set_param("seed", "tiles", Value::Str("abab acac".into()))
        .unwrap();
    g.set_param("seed", "border", Value::Str("".into()))
        .unwrap();
    g.add_node("state", "latch").unwrap();
    g.add_node("sim", "sim.wfc.step").unwrap();
    g.wire("seed.out", "state.init");
    g.wire("state.out", "sim.state");
    g.wire("sim.out", "state.signal");
    let mut d = Recurrent::new(
        LazyEvaluator::new(kiln_sim::registry()),
        kiln_sim::registry(),
    );
    let req = Request::new(["sim"]);
    let ctx = EvalContext::new();
    // `abab` and `acac` meet only their own kind side by side, and either above or below:
    // each row is one tile, a set that solves.
    for _ in 0..3 {
        d.tick(&g, &req, &ctx).unwrap();
    }
    let mut bad = g.clone();
    bad.set_param("seed", "tiles", Value::Str("abcd dcba".into()))
        .unwrap();
    let mut d = Recurrent::new(
        LazyEvaluator::new(kiln_sim::registry()),
        kiln_sim::registry(),
    );
    let e = d.tick(&bad, &req, &ctx).unwrap_err().to_string();
    assert!(
        e.contains("contradiction at cell (") && e.contains("seed"),
        "{e}"
    );
    assert!(
        parse_tiles("abc").is_err() && parse_tiles("abcd*0").is_err() && parse_tiles("").is_err()
    );
}
