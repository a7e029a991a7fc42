//! Elementary automata against their definitions: rule 90 from one cell is Pascal's
//! triangle mod 2 (Sierpinski), rules 30 and 110 against their boolean forms.

use kiln_sim::Grid;
use kiln_sim::elementary::{next_row, step_into};

fn run(rule: u8, width: usize, steps: usize) -> Vec<Vec<u8>> {
    let mut row = vec![0.0f32; width];
    row[width / 2] = 1.0;
    let mut rows = vec![row.iter().map(|&v| v as u8).collect::<Vec<_>>()];
    for _ in 0..steps {
        let mut next = vec![0.0; width];
        next_row(&row, &mut next, rule, false);
        rows.push(next.iter().map(|&v| v as u8).collect());
        row = next;
    }
    rows
}

#[test]
fn rule_90_from_one_cell_is_pascals_triangle_mod_2() {
    let (w, n) = (129, 63);
    let c = (w / 2) as i64;
    for (t, row) in run(90, w, n).iter().enumerate() {
        for (x, &v) in row.iter().enumerate() {
            let d = x as i64 - c + t as i64;
            // Cell x at generation t is C(t, (x - c + t) / 2) mod 2 when that is a whole
            // number in 0..=t, else 0; C(t, k) is odd exactly when k's bits are within t's
            // (Lucas's theorem).
            let want = if d >= 0 && d % 2 == 0 && d / 2 <= t as i64 {
                let k = (d / 2) as usize;
                (k & t == k) as u8
            } else {
                0
            };
            assert_eq!(v, want, "generation {t}, cell {x}");
        }
    }
}

#[test]
fn rules_30_and_110_follow_their_boolean_forms() {
    type Form = fn(u8, u8, u8) -> u8;
    let forms: [(u8, Form); 2] = [
        (30, |l, c, r| l ^ (c | r)),
        (110, |l, c, r| (c | r) & !(l & c & r) & 1),
    ];
    for (rule, f) in forms {
        let rows = run(rule, 101, 48);
        for t in 1..rows.len() {
            let prev = &rows[t - 1];
            for x in 0..101 {
                let at = |i: i64| {
                    if (0..101).contains(&i) {
                        prev[i as usize]
                    } else {
                        0
                    }
                };
                let x = x as i64;
                assert_eq!(
                    rows[t][x as usize],
                    f(at(x - 1), at(x), at(x + 1)),
                    "rule {rule} gen {t} cell {x}"
                );
            }
        }
    }
    // The first generations of rule 30 from one cell.
    let rows = run(30, 11, 3);
    let text: Vec<String> = rows
        .iter()
        .map(|r| r.iter().map(|&v| if v == 1 { '#' } else { '.' }).collect())
        .collect();
    assert_eq!(
        text,
        [".....#.....", "....###....", "...##..#...", "..##.####.."]
    );
}

#[test]
fn the_space_time_diagram_scrolls_up_by_one_row_per_step() {
    let mut g = Grid::filled(7, 3, &[0.0]).unwrap();
    g.set(3, 2, 0, 1.0);
    let mut next = Grid::uninit(7, 3, 1).unwrap();
    step_into(&g, &mut next, 90, false);
    let rows: Vec<&[f32]> = next.data().chunks(7).collect();
    assert_eq!(rows[0], [0.0; 7]);
    assert_eq!(rows[1], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    assert_eq!(rows[2], [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]);
}
