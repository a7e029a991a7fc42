//! Wave function collapse outputs against `reference/wfc.py`: every adjacency and border in
//! the rule tables the script wrote, and small grids among the solutions it enumerated.

use crate::common::fixture::{Case, case};
use crate::common::{latch_graph, run_lazy};
use kiln_core::prelude::*;
use kiln_core::recurrence::Recurrent;
use kiln_sim::wfc::Wave;
use std::collections::BTreeSet;

fn graph(case: &Case, seed: i64) -> Graph {
    latch_graph(
        "sim.wfc.init",
        &[
            ("width", Value::Int(case.int("width"))),
            ("height", Value::Int(case.int("height"))),
            ("tiles", Value::Str(case.get("tiles").into())),
            ("seed", Value::Int(seed)),
            ("border", Value::Str(case.get("border").into())),
        ],
        "sim.wfc.step",
        // Every cell in one tick.
        &[("per_step", Value::Int(1 << 20))],
    )
}

fn solve(case: &Case, seed: i64) -> Wave {
    let (_, outs) = run_lazy(&graph(case, seed), 1);
    let w = outs[0].as_heavy::<Wave>().expect("a wave").clone();
    assert!(w.done(), "{} seed {seed}: not finished", case.name());
    w
}

/// Each decided tile, row by row.
fn tiles(w: &Wave) -> Vec<Vec<usize>> {
    (0..w.height)
        .map(|y| (0..w.width).map(|x| w.tile_at(x, y).unwrap()).collect())
        .collect()
}

/// Check `w` against the case's tables: east and south neighbours, and the grid's sides.
fn obeys_every_rule(case: &Case, w: &Wave) {
    let table = |key: &str| -> Vec<Vec<bool>> {
        case.field(key)
            .rows
            .iter()
            .map(|r| r.chars().map(|c| c == '1').collect())
            .collect()
    };
    let (east, south) = (table("east"), table("south"));
    let side = |key: &str| -> BTreeSet<usize> {
        case.get(key)
            .split_whitespace()
            .map(|t| t.parse().unwrap())
            .collect()
    };
    let t = tiles(w);
    let (wd, ht) = (w.width as usize, w.height as usize);
    for y in 0..ht {
        for x in 0..wd {
            let here = t[y][x];
            if x + 1 < wd {
                assert!(east[here][t[y][x + 1]], "({x}, {y}) and its east neighbour");
            }
            if y + 1 < ht {
                assert!(
                    south[here][t[y + 1][x]],
                    "({x}, {y}) and its south neighbour"
                );
            }
        }
    }
    let on = |key, cells: Vec<usize>| {
        let ok = side(key);
        assert!(cells.iter().all(|c| ok.contains(c)), "{key}: {cells:?}");
    };
    on("on_north_side", t[0].clone());
    on("on_south_side", t[ht - 1].clone());
    on("on_west_side", t.iter().map(|r| r[0]).collect());
    on("on_east_side", t.iter().map(|r| r[wd - 1]).collect());
}

fn as_text(w: &Wave) -> String {
    let rows: Vec<String> = tiles(w)
        .iter()
        .map(|r| {
            r.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    rows.join(" ")
}

#[test]
fn wfc_maps_obey_every_adjacency_rule_the_reference_tables() {
    let case = case("wfc.txt", "dungeon");
    let mut seen = BTreeSet::new();
    for seed in 0..6 {
        let w = solve(&case, seed);
        obeys_every_rule(&case, &w);
        seen.insert(as_text(&w));
    }
    assert_eq!(seen.len(), 6, "six seeds, six maps");
}

#[test]
fn small_wfc_grids_give_solutions_the_reference_enumerated() {
    for (name, seeds, at_least) in [("dungeon_3x2", 40, 10), ("rows_of_one_kind", 24, 4)] {
        let case = case("wfc.txt", name);
        let solutions: BTreeSet<&str> = case
            .field("solutions")
            .rows
            .iter()
            .map(|r| r.as_str())
            .collect();
        assert_eq!(solutions.len() as i64, case.int("solutions"), "{name}");
        let mut seen = BTreeSet::new();
        for seed in 0..seeds {
            let w = solve(&case, seed);
            obeys_every_rule(&case, &w);
            let text = as_text(&w);
            assert!(
                solutions.contains(text.as_str()),
                "{name} seed {seed}: {text}"
            );
            seen.insert(text);
        }
        assert!(
            seen.len() >= at_least,
            "{name}: only {} different outputs",
            seen.len()
        );
    }
}

#[test]
fn a_tile_set_the_reference_finds_unsolvable_is_a_contradiction() {
    let case = case("wfc.txt", "no_solution");
    assert_eq!(case.int("solutions"), 0);
    for seed in 0..4 {
        let mut d = Recurrent::new(
            LazyEvaluator::new(kiln_sim::registry()),
            kiln_sim::registry(),
        );
        let e = d
            .tick(
                &graph(&case, seed),
                &Request::new(["sim"]),
                &EvalContext::new(),
            )
            .unwrap_err()
            .to_string();
        assert!(e.contains("contradiction"), "seed {seed}: {e}");
    }
}
