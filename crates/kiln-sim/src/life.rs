//! Life-like cellular automata: a 1-channel grid of dead (0) and live (1) cells, stepped by
//! a rule in B/S notation (`B3/S23` is Conway's Life: a dead cell with 3 live neighbours is
//! born, a live cell with 2 or 3 survives, every other cell is dead next).
//!
//! * `sim.life.init` — a grid with a pattern placed at (`x`, `y`) (plaintext rows: `O` or
//!   `*` live, `.` dead, rows split by newlines or `|`) and, if `density` > 0, seeded random
//!   live cells.
//! * `sim.life.step` — one generation by `rule`, on a torus (`wrap`) or with dead cells
//!   beyond the edges.

use crate::grid::Grid;
use crate::ports::{SIDE, grid_size, with_channels};
use crate::rng::Rng;
use crate::rows::{for_each_row, wrap};
use kiln_core::op;
use kiln_core::op::{OpCall, OpError};
use kiln_core::registry::{Registry, RegistryError};

/// A Life-like rule: which neighbour counts give birth and which let a cell survive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LifeRule {
    /// `birth[n]`: a dead cell with `n` live neighbours comes alive.
    pub birth: [bool; 9],
    /// `survive[n]`: a live cell with `n` live neighbours stays alive.
    pub survive: [bool; 9],
}

impl LifeRule {
    /// Parse B/S notation such as `B3/S23` or `b36/s23` (either part may be empty: `B3/S`).
    pub fn parse(s: &str) -> Result<LifeRule, String> {
        let bad = || format!("expected a rule in B/S notation such as `B3/S23`, found `{s}`");
        let (b, sv) = s.trim().split_once('/').ok_or_else(bad)?;
        let digits = |part: &str, letter: char| -> Result<[bool; 9], String> {
            let mut chars = part.trim().chars();
            if !chars
                .next()
                .is_some_and(|c| c.eq_ignore_ascii_case(&letter))
            {
                return Err(bad());
            }
            let mut set = [false; 9];
            for c in chars {
                match c.to_digit(10) {
                    Some(d) if d <= 8 => set[d as usize] = true,
                    _ => return Err(bad()),
                }
            }
            Ok(set)
        };
        Ok(LifeRule {
            birth: digits(b, 'B')?,
            survive: digits(sv, 'S')?,
        })
    }
}

/// One generation of `src` into `dst` (1-channel grids of one size).
pub fn step_into(src: &Grid, dst: &mut Grid, rule: &LifeRule, wrap_edges: bool) {
    let (w, h) = (src.width(), src.height());
    let d = src.data();
    let alive = |x: i64, y: i64| -> u8 {
        let (x, y) = if wrap_edges {
            (wrap(0, x as i32, w), wrap(0, y as i32, h))
        } else if x < 0 || y < 0 || x >= w as i64 || y >= h as i64 {
            return 0;
        } else {
            (x as u32, y as u32)
        };
        (d[y as usize * w as usize + x as usize] >= 0.5) as u8
    };
    for_each_row(dst, |y, row| {
        let y = y as i64;
        for (x, cell) in row.iter_mut().enumerate() {
            let x = x as i64;
            let mut n = 0usize;
            for (dx, dy) in [
                (-1, -1),
                (0, -1),
                (1, -1),
                (-1, 0),
                (1, 0),
                (-1, 1),
                (0, 1),
                (1, 1),
            ] {
                n += alive(x + dx, y + dy) as usize;
            }
            let live = if alive(x, y) == 1 {
                rule.survive[n]
            } else {
                rule.birth[n]
            };
            *cell = live as u8 as f32;
        }
    });
}

/// Place a plaintext pattern into `g` with its top-left cell at (`x0`, `y0`) (wrapping).
pub fn place(g: &mut Grid, pattern: &str, x0: i64, y0: i64) -> Result<(), String> {
    let (w, h) = (g.width() as i64, g.height() as i64);
    for (dy, line) in pattern.split(['\n', '|']).enumerate() {
        for (dx, c) in line.trim_end().chars().enumerate() {
            let live = match c {
                'O' | 'o' | '*' | '#' => 1.0,
                '.' | ' ' => continue,
                _ => {
                    return Err(format!(
                        "pattern row {dy}: `{c}` is neither a live cell (O, *) nor a dead one (.)"
                    ));
                }
            };
            let x = (x0 + dx as i64).rem_euclid(w) as u32;
            let y = (y0 + dy as i64).rem_euclid(h) as u32;
            g.set(x, y, 0, live);
        }
    }
    Ok(())
}

/// The seed of a Life-like automaton: a 1-channel grid of 0 (dead) and 1 (live), with a
/// plaintext pattern placed at (x, y) and seeded random live cells of `density`.
#[op("sim.life.init", out = "the cells")]
fn life_init(
    #[param("width in cells", default = 64, rule = SIDE, plan_time)] width: i64,
    #[param("height in cells", default = 64, rule = SIDE, plan_time)] height: i64,
    #[param("rows of O (live) and . (dead), split by newlines or |", default = "")] pattern: &str,
    #[param("column of the pattern's left edge", default = 0)] x: i64,
    #[param("row of the pattern's top edge", default = 0)] y: i64,
    #[param("chance of a random live cell", default = 0.0, range = 0.0..=1.0)] density: f64,
    #[param("seed of the random cells", default = 0)] seed: i64,
) -> Result<Grid, OpError> {
    let (w, h) = grid_size(width, height)?;
    let mut g = Grid::filled(w, h, &[0.0])?;
    if density > 0.0 {
        let mut rng = Rng::new(seed as u64);
        for v in g.data_mut() {
            *v = ((rng.next_f32() as f64) < density) as u8 as f32;
        }
    }
    place(&mut g, pattern, x, y).map_err(|m| OpError::param(2, m))?;
    Ok(g)
}

/// One generation of a Life-like automaton by a B/S rule (B3/S23 is Conway's Life), on a
/// torus or with dead cells beyond the edges.
#[op("sim.life.step", out = "the next generation")]
fn life_step(
    #[input("the cells (from a latch)")] state: &Grid,
    #[param("the rule in B/S notation", default = "B3/S23")] rule: &str,
    #[param("join opposite edges (a torus)", default = true)] wrap: bool,
    call: &OpCall,
) -> Result<Grid, OpError> {
    let state = with_channels(state, 0, 1, "a Life state")?;
    let rule = LifeRule::parse(rule).map_err(|m| OpError::param(0, m))?;
    let mut next = Grid::uninit(state.width(), state.height(), 1)?;
    call.check_cancel()?;
    step_into(state, &mut next, &rule, wrap);
    Ok(next)
}

/// Register `sim.life.init` and `sim.life.step`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(LifeInitOp::new())?;
    reg.register(LifeStepOp::new())?;
    Ok(())
}
