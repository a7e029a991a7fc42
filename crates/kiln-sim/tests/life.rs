//! Life-like automata against patterns whose behaviour is known from the definition.

mod common;
use common::*;
use kiln_core::prelude::*;
use kiln_core::recurrence::Recurrent;
use kiln_sim::Grid;
use kiln_sim::life::{LifeRule, place, step_into};

fn pattern(w: u32, h: u32, p: &str, x: i64, y: i64) -> Grid {
    let mut g = Grid::filled(w, h, &[0.0]).unwrap();
    place(&mut g, p, x, y).unwrap();
    g
}

fn generations(g: &Grid, n: usize) -> Grid {
    let rule = LifeRule::parse("B3/S23").unwrap();
    let mut a = g.clone();
    for _ in 0..n {
        let mut b = Grid::uninit(a.width(), a.height(), 1).unwrap();
        step_into(&a, &mut b, &rule, true);
        a = b;
    }
    a
}

#[test]
fn a_blinker_has_period_two() {
    let start = pattern(5, 5, "OOO", 1, 2);
    let one = generations(&start, 1);
    assert_eq!(one, pattern(5, 5, "O|O|O", 2, 1));
    assert_eq!(generations(&start, 2), start);
}

#[test]
fn a_block_is_still_and_a_glider_moves_one_cell_diagonally_in_four_generations() {
    let block = pattern(6, 6, "OO|OO", 2, 2);
    assert_eq!(generations(&block, 5), block);
    let glider = ".O.|..O|OOO";
    let start = pattern(10, 10, glider, 2, 2);
    for n in 1..4 {
        assert_ne!(
            generations(&start, n),
            pattern(10, 10, glider, 2 + 1, 2 + 1),
            "gen {n}"
        );
    }
    assert_eq!(generations(&start, 4), pattern(10, 10, glider, 3, 3));
    // 40 generations on a 10 x 10 torus bring it back where it started.
    assert_eq!(generations(&start, 40), start);
}

#[test]
fn rules_parse_in_b_s_notation_and_bad_ones_are_refused() {
    let r = LifeRule::parse("b36/s23").unwrap();
    let set = |a: [bool; 9]| (0..9).filter(|&i| a[i]).collect::<Vec<_>>();
    assert_eq!(set(r.birth), vec![3, 6]);
    assert_eq!(set(r.survive), vec![2, 3]);
    assert_eq!(
        set(LifeRule::parse("B3/S").unwrap().survive),
        Vec::<usize>::new()
    );
    for bad in ["23/3", "B9/S23", "B3S23", "X3/S23", ""] {
        assert!(LifeRule::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn without_wrap_cells_beyond_the_edge_are_dead() {
    // A blinker against the edge: on a torus it is whole, without wrap it loses a cell.
    let start = pattern(5, 5, "O|O|O", 0, 1);
    let rule = LifeRule::parse("B3/S23").unwrap();
    let mut flat = Grid::uninit(5, 5, 1).unwrap();
    step_into(&start, &mut flat, &rule, false);
    assert_eq!(flat, pattern(5, 5, "OO", 0, 2));
    let mut torus = Grid::uninit(5, 5, 1).unwrap();
    step_into(&start, &mut torus, &rule, true);
    assert_eq!(torus.channel_sum(0), 3.0);
}

#[test]
fn a_latch_graph_runs_the_glider_and_a_bad_rule_names_its_param() {
    let g = latch_graph(
        "sim.life.init",
        &[
            ("width", Value::Int(8)),
            ("height", Value::Int(8)),
            ("pattern", Value::Str(".O.|..O|OOO".into())),
        ],
        "sim.life.step",
        &[],
    );
    let mut d = Recurrent::new(
        LazyEvaluator::new(kiln_sim::registry()),
        kiln_sim::registry(),
    );
    let out = run(&mut d, &g, 4);
    assert_eq!(grid(&out[3]), &pattern(8, 8, ".O.|..O|OOO", 1, 1));
    let mut bad = g.clone();
    bad.set_param("sim", "rule", Value::Str("B3/23".into()))
        .unwrap();
    let mut d = Recurrent::new(
        LazyEvaluator::new(kiln_sim::registry()),
        kiln_sim::registry(),
    );
    let e = d
        .tick(&bad, &Request::new(["sim"]), &EvalContext::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("sim") && e.contains("rule") && e.contains("B/S"),
        "{e}"
    );
}
