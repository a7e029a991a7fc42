//! Life patterns against `reference/life.py`: blinker (period 2), glider (period 4, moving
//! (1, 1)), a glider into a corner of dead edges, Gosper's gun (a glider every 30
//! generations) and random soups on a torus and with dead edges, generation by generation.

use crate::common::fixture::cases;
use crate::common::{grid, latch_graph, run_lazy};
use kiln_core::prelude::*;
use kiln_sim::Grid;

/// The rows of a 0/1 grid as text (`O` live, `.` dead, `?` anything else).
pub fn text_rows(g: &Grid) -> Vec<String> {
    g.data()
        .chunks(g.width() as usize)
        .map(|r| {
            r.iter()
                .map(|&v| {
                    if v == 1.0 {
                        'O'
                    } else if v == 0.0 {
                        '.'
                    } else {
                        '?'
                    }
                })
                .collect()
        })
        .collect()
}

#[test]
fn life_generations_match_the_numpy_reference_exactly() {
    let all = cases("life.txt");
    assert_eq!(all.len(), 6);
    for case in &all {
        let name = case.name();
        let g = latch_graph(
            "sim.life.init",
            &[
                ("width", Value::Int(case.int("width"))),
                ("height", Value::Int(case.int("height"))),
                ("pattern", Value::Str(case.get("pattern").into())),
                ("x", Value::Int(case.int("x"))),
                ("y", Value::Int(case.int("y"))),
            ],
            "sim.life.step",
            &[
                ("rule", Value::Str(case.get("rule").into())),
                ("wrap", Value::Bool(case.bool("wrap"))),
            ],
        );
        let gens = case.int("generations") as u64;
        let (seed, outs) = run_lazy(&g, gens);
        let at = |t: u64| {
            if t == 0 {
                grid(&seed)
            } else {
                grid(&outs[t as usize - 1])
            }
        };
        let population: Vec<u64> = (0..=gens).map(|t| at(t).channel_sum(0) as u64).collect();
        let want: Vec<u64> = case
            .get("population")
            .split_whitespace()
            .map(|p| p.parse().unwrap())
            .collect();
        assert_eq!(population, want, "{name}: populations");
        let kept = case.all("gen").count();
        assert!(kept >= 5, "{name}");
        for f in case.all("gen") {
            let t: u64 = f.value.parse().unwrap();
            assert_eq!(text_rows(at(t)), f.rows, "{name}: generation {t}");
        }
    }
}
