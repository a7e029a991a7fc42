//! Life-like cellular automata: a 1-channel grid of dead (0) and live (1) cells, stepped by
//! a rule in B/S notation (`B3/S23` is Conway's Life: a dead cell with 3 live neighbours is
//! born, a live cell with 2 or 3 survives, every other cell is dead next).
//!
//! * `sim.life.init` — a grid with a pattern placed at (`x`, `y`) (plaintext rows: `O` or
//!   `*` live, `.` dead, rows split by newlines or `|`) and, if `density` > 0, seeded random
//!   live cells.
//! * `sim.life.step` — one generation by `rule`, on a torus (`wrap`) or with dead cells
//!   beyond the edges.

use crate::grid::{GRID_TYPE, Grid};
use crate::rng::Rng;
use crate::rows::{for_each_row, wrap};
use crate::sim_op::{SimOp, grid_with_channels, int_param, size_params, with_size_params};
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule as ParamRule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

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

fn run_init(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let (w, h) = size_params(call)?;
    let pattern = call.param_str(2)?;
    let (x, y) = (int_param(call, 3)?, int_param(call, 4)?);
    let density = call.param_float(5)?;
    let seed = int_param(call, 6)? as u64;
    let mut g = Grid::filled(w, h, &[0.0])?;
    if density > 0.0 {
        let mut rng = Rng::new(seed);
        for v in g.data_mut() {
            *v = ((rng.next_f32() as f64) < density) as u8 as f32;
        }
    }
    place(&mut g, pattern, x, y).map_err(|m| OpError::param(2, m))?;
    out[0] = g.into_value();
    Ok(())
}

fn run_step(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let state = grid_with_channels(call, 0, 1, "a Life state")?;
    let rule = LifeRule::parse(call.param_str(0)?).map_err(|m| OpError::param(0, m))?;
    let wrap_edges = call.param_bool(1)?;
    let mut next = Grid::uninit(state.width(), state.height(), 1)?;
    call.check_cancel()?;
    step_into(state, &mut next, &rule, wrap_edges);
    out[0] = next.into_value();
    Ok(())
}

/// Register `sim.life.init` and `sim.life.step`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let init = OpSpec::new(
        "sim.life.init",
        "The seed of a Life-like automaton: a 1-channel grid of 0 (dead) and 1 (live), with a \
         plaintext pattern placed at (x, y) and seeded random live cells of `density`.",
    )
    .output(OutputSpec::new("out", GRID_TYPE, "the cells"));
    let init = with_size_params(init, 64)
        .param(ParamSpec::new(
            "pattern",
            ValueType::String,
            Value::Str("".into()),
            "rows of O (live) and . (dead), split by newlines or |",
        ))
        .param(ParamSpec::new(
            "x",
            ValueType::Int,
            Value::Int(0),
            "column of the pattern's left edge",
        ))
        .param(ParamSpec::new(
            "y",
            ValueType::Int,
            Value::Int(0),
            "row of the pattern's top edge",
        ))
        .param(
            ParamSpec::new(
                "density",
                ValueType::Float,
                Value::Float(0.0),
                "chance of a random live cell",
            )
            .with_rule(ParamRule::between(0.0, 1.0)),
        )
        .param(ParamSpec::new(
            "seed",
            ValueType::Int,
            Value::Int(0),
            "seed of the random cells",
        ));
    reg.register(SimOp::new(init, run_init))?;
    let step = OpSpec::new(
        "sim.life.step",
        "One generation of a Life-like automaton by a B/S rule (B3/S23 is Conway's Life), on \
         a torus or with dead cells beyond the edges.",
    )
    .input(InputSpec::required(
        "state",
        GRID_TYPE,
        "the cells (from a latch)",
    ))
    .output(OutputSpec::new("out", GRID_TYPE, "the next generation"))
    .param(ParamSpec::new(
        "rule",
        ValueType::String,
        Value::Str("B3/S23".into()),
        "the rule in B/S notation",
    ))
    .param(ParamSpec::new(
        "wrap",
        ValueType::Bool,
        Value::Bool(true),
        "join opposite edges (a torus)",
    ));
    reg.register(SimOp::new(step, run_step))?;
    Ok(())
}
