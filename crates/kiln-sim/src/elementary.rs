//! Elementary cellular automata (Wolfram's 256 rules): a row of dead (0) and live (1) cells;
//! each cell's next state is bit `4 l + 2 c + r` of the rule number, where `l`, `c`, `r` are
//! it and its neighbours.
//!
//! The state is a 1-channel grid whose rows are the last `height` generations, oldest at the
//! top: a step scrolls the rows up by one and writes the next generation as the bottom row,
//! so the grid is the space-time diagram of the run.
//!
//! * `sim.ca1d.init` — every row dead but the bottom one: a single live cell in its middle
//!   (`start: center`) or seeded random cells of `density` (`start: random`).
//! * `sim.ca1d.step` — one generation by `rule`, on a ring (`wrap`) or with dead cells
//!   beyond the ends.

use crate::grid::Grid;
use crate::ports::{SIDE, grid_size, with_channels};
use crate::rng::Rng;
use crate::rows::for_each_row;
use kiln_core::op;
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};

/// The next generation of `row` by `rule` into `next` (the same length).
pub fn next_row(row: &[f32], next: &mut [f32], rule: u8, wrap_ends: bool) {
    let n = row.len();
    let live = |i: isize| -> u8 {
        if i < 0 || i >= n as isize {
            if !wrap_ends {
                return 0;
            }
            return (row[i.rem_euclid(n as isize) as usize] >= 0.5) as u8;
        }
        (row[i as usize] >= 0.5) as u8
    };
    for (i, out) in next.iter_mut().enumerate() {
        let i = i as isize;
        let pattern = (live(i - 1) << 2) | (live(i) << 1) | live(i + 1);
        *out = ((rule >> pattern) & 1) as f32;
    }
}

/// One step of the space-time diagram `src` into `dst` (see the module docs).
pub fn step_into(src: &Grid, dst: &mut Grid, rule: u8, wrap_ends: bool) {
    let (w, h) = (src.width() as usize, src.height());
    let d = src.data();
    let last = &d[(h as usize - 1) * w..];
    for_each_row(dst, |y, row| {
        if y + 1 < h {
            let from = (y as usize + 1) * w;
            row.copy_from_slice(&d[from..from + w]);
        } else {
            next_row(last, row, rule, wrap_ends);
        }
    });
}

/// The seed of an elementary automaton: a 1-channel grid of `height` generations, all dead
/// but the bottom row (one live cell in the middle, or seeded random cells).
#[op("sim.ca1d.init", out = "the space-time diagram")]
fn ca1d_init(
    #[param("width in cells", default = 64, rule = SIDE, plan_time)] width: i64,
    #[param("height in cells", default = 64, rule = SIDE, plan_time)] height: i64,
    #[param("`center` or `random`", default = "center", rule = Rule::OneOf(&["center", "random"]))]
    start: &str,
    #[param("chance of a live cell (random start)", default = 0.5, range = 0.0..=1.0)] density: f64,
    #[param("seed of the random start", default = 0)] seed: i64,
) -> Result<Grid, OpError> {
    let (w, h) = grid_size(width, height)?;
    let mut g = Grid::filled(w, h, &[0.0])?;
    match start {
        "center" => g.set(w / 2, h - 1, 0, 1.0),
        _ => {
            let mut rng = Rng::new(seed as u64);
            for x in 0..w {
                g.set(
                    x,
                    h - 1,
                    0,
                    ((rng.next_f32() as f64) < density) as u8 as f32,
                );
            }
        }
    }
    Ok(g)
}

/// One generation of an elementary cellular automaton (Wolfram rule 0-255): the rows scroll
/// up and the new generation is the bottom row.
#[op("sim.ca1d.step", out = "the diagram one generation on")]
fn ca1d_step(
    #[input("the diagram (from a latch)")] state: &Grid,
    #[param("the rule number", default = 30, range = 0..=255)] rule: i64,
    #[param("join the two ends (a ring)", default = false)] wrap: bool,
) -> Result<Grid, OpError> {
    let state = with_channels(state, 0, 1, "an elementary automaton's state")?;
    let rule = u8::try_from(rule)
        .map_err(|_| OpError::param(0, format!("expected a rule from 0 to 255, found {rule}")))?;
    let mut next = Grid::uninit(state.width(), state.height(), 1)?;
    step_into(state, &mut next, rule, wrap);
    Ok(next)
}

/// Register `sim.ca1d.init` and `sim.ca1d.step`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(Ca1dInitOp::new())?;
    reg.register(Ca1dStepOp::new())?;
    Ok(())
}
