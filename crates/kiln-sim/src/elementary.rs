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

use crate::grid::{GRID_TYPE, Grid};
use crate::rng::Rng;
use crate::rows::for_each_row;
use crate::sim_op::{SimOp, grid_with_channels, int_param, size_params, with_size_params};
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

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

fn run_init(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let (w, h) = size_params(call)?;
    let start = call.param_str(2)?;
    let density = call.param_float(3)?;
    let seed = int_param(call, 4)? as u64;
    let mut g = Grid::filled(w, h, &[0.0])?;
    match start {
        "center" => g.set(w / 2, h - 1, 0, 1.0),
        _ => {
            let mut rng = Rng::new(seed);
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
    out[0] = g.into_value();
    Ok(())
}

fn run_step(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let state = grid_with_channels(call, 0, 1, "an elementary automaton's state")?;
    let rule = int_param(call, 0)?;
    let rule = u8::try_from(rule)
        .map_err(|_| OpError::param(0, format!("expected a rule from 0 to 255, found {rule}")))?;
    let wrap_ends = call.param_bool(1)?;
    let mut next = Grid::uninit(state.width(), state.height(), 1)?;
    step_into(state, &mut next, rule, wrap_ends);
    out[0] = next.into_value();
    Ok(())
}

/// Register `sim.ca1d.init` and `sim.ca1d.step`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let init = OpSpec::new(
        "sim.ca1d.init",
        "The seed of an elementary automaton: a 1-channel grid of `height` generations, all \
         dead but the bottom row (one live cell in the middle, or seeded random cells).",
    )
    .output(OutputSpec::new("out", GRID_TYPE, "the space-time diagram"));
    let init = with_size_params(init, 64)
        .param(
            ParamSpec::new(
                "start",
                ValueType::String,
                Value::Str("center".into()),
                "`center` or `random`",
            )
            .with_rule(Rule::OneOf(&["center", "random"])),
        )
        .param(
            ParamSpec::new(
                "density",
                ValueType::Float,
                Value::Float(0.5),
                "chance of a live cell (random start)",
            )
            .with_rule(Rule::between(0.0, 1.0)),
        )
        .param(ParamSpec::new(
            "seed",
            ValueType::Int,
            Value::Int(0),
            "seed of the random start",
        ));
    reg.register(SimOp::new(init, run_init))?;
    let step = OpSpec::new(
        "sim.ca1d.step",
        "One generation of an elementary cellular automaton (Wolfram rule 0-255): the rows \
         scroll up and the new generation is the bottom row.",
    )
    .input(InputSpec::required(
        "state",
        GRID_TYPE,
        "the diagram (from a latch)",
    ))
    .output(OutputSpec::new(
        "out",
        GRID_TYPE,
        "the diagram one generation on",
    ))
    .param(
        ParamSpec::new("rule", ValueType::Int, Value::Int(30), "the rule number")
            .with_rule(Rule::Ints { min: 0, max: 255 }),
    )
    .param(ParamSpec::new(
        "wrap",
        ValueType::Bool,
        Value::Bool(false),
        "join the two ends (a ring)",
    ));
    reg.register(SimOp::new(step, run_step))?;
    Ok(())
}
