//! Elementary automata rows (rules 30, 110 and 90) against `reference/elementary.py`.

use super::life::text_rows;
use crate::common::fixture::cases;
use crate::common::{grid, latch_graph, run_lazy, seeded_graph};
use kiln_core::prelude::*;
use kiln_sim::Grid;

#[test]
fn elementary_rows_match_the_numpy_reference_exactly() {
    let all = cases("elementary.txt");
    assert_eq!(all.len(), 7);
    for case in &all {
        let name = case.name();
        let (w, gens) = (case.int("width"), case.int("generations"));
        let rows = &case.field("rows").rows;
        assert_eq!(rows.len() as i64, gens + 1, "{name}");
        // A diagram one row taller than the generations: after them it holds them all.
        let h = gens + 1;
        let step = [
            ("rule", Value::Int(case.int("rule"))),
            ("wrap", Value::Bool(case.bool("wrap"))),
        ];
        let g = match case.get("start") {
            "center" => latch_graph(
                "sim.ca1d.init",
                &[
                    ("width", Value::Int(w)),
                    ("height", Value::Int(h)),
                    ("start", Value::Str("center".into())),
                ],
                "sim.ca1d.step",
                &step,
            ),
            _ => {
                let mut start = Grid::filled(w as u32, h as u32, &[0.0]).unwrap();
                for (x, c) in rows[0].chars().enumerate() {
                    start.set(x as u32, h as u32 - 1, 0, (c == 'O') as u8 as f32);
                }
                seeded_graph(start.into_value(), "sim.ca1d.step", &step)
            }
        };
        let (seed, outs) = run_lazy(&g, gens as u64);
        let bottom = |g: &Grid| text_rows(g).pop().unwrap();
        assert_eq!(bottom(grid(&seed)), rows[0], "{name}: the start");
        for (t, out) in outs.iter().enumerate() {
            assert_eq!(
                bottom(grid(out)),
                rows[t + 1],
                "{name}: generation {}",
                t + 1
            );
        }
        assert_eq!(
            &text_rows(grid(outs.last().unwrap())),
            rows,
            "{name}: the diagram"
        );
    }
}
