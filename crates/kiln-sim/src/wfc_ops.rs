//! The wave function collapse ops: `sim.wfc.init`, `sim.wfc.step` (see [`crate::wfc`]) and
//! `sim.wfc.view`, which draws each cell as 3 × 3 blocks of `scale` pixels: a label `f`
//! (floor) is light, any other label dark; a cell's centre is light when any of its edges
//! is, its corners are light only for a tile whose four edges all are. Undecided cells are
//! grey.

use crate::image_bridge::{IMAGE_TYPE, Image};
use crate::sim_op::{SimOp, size_params, with_size_params};
use crate::wfc::{WAVE_TYPE, Wave, parse_tiles};
use kiln_core::op::{InputSpec, OpCall, OpError, OpSpec, OutputSpec, ParamSpec, Rule};
use kiln_core::registry::{Registry, RegistryError};
use kiln_core::value::{Value, ValueType};

/// The default tile set: rooms of floor, walls, corridors, corners, T-junctions and ends.
pub const DUNGEON_TILES: &str =
    "ffff*6 wwww*4 wfwf*2 fwfw*2 ffww fwwf wwff wffw fffw ffwf fwff wfff fwww wfww wwfw wwwf";

fn contradiction(w: &Wave, (x, y): (u32, u32)) -> String {
    format!(
        "wave function collapse hit a contradiction at cell ({x}, {y}) after {} collapse(s): \
         no tile fits its neighbours (try another seed, or tiles whose edges match more freely)",
        w.collapsed
    )
}

fn run_init(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let (w, h) = size_params(call)?;
    let tiles = parse_tiles(call.param_str(2)?).map_err(|m| OpError::param(2, m))?;
    let seed = call.param_int(3)? as u64;
    let border = call.param_str(4)?.chars().next();
    let wave = Wave::new(w, h, tiles.clone(), seed, border).map_err(|cell| {
        let empty = Wave {
            width: w,
            height: h,
            tiles,
            cells: vec![],
            rng: seed,
            collapsed: 0,
        };
        OpError::param(4, contradiction(&empty, cell))
    })?;
    out[0] = wave.into_value();
    Ok(())
}

fn run_step(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let mut wave = call.heavy::<Wave>(0, "a wave")?.clone();
    let n = call.param_int(0)?.clamp(1, 1 << 30) as u32;
    wave.collapse(n)
        .map_err(|cell| OpError::new(contradiction(&wave, cell)))?;
    out[0] = wave.into_value();
    Ok(())
}

fn run_view(call: &OpCall<'_>, out: &mut [Value]) -> Result<(), OpError> {
    let wave = call.heavy::<Wave>(0, "a wave")?;
    let scale = call.param_int(0)?.clamp(1, 64) as u32;
    let (iw, ih) = (wave.width * 3 * scale, wave.height * 3 * scale);
    crate::grid::check_shape(iw as i64, ih as i64, 1).map_err(|m| OpError::param(0, m))?;
    kiln_image::image::check_pixels(u64::from(iw), u64::from(ih))
        .map_err(|m| OpError::param(0, m))?;
    let (light, dark, grey) = (
        [0.86, 0.8, 0.66, 1.0],
        [0.12, 0.1, 0.14, 1.0],
        [0.45, 0.45, 0.45, 1.0],
    );
    let mut img = Image::filled(iw, ih, grey);
    for cy in 0..wave.height {
        for cx in 0..wave.width {
            let Some(t) = wave.tile_at(cx, cy) else {
                continue;
            };
            let e = wave.tiles[t].edges.map(|c| c == 'f');
            let all = e.iter().all(|&b| b);
            let block = |bx: u32, by: u32| match (bx, by) {
                (1, 1) => e.iter().any(|&b| b),
                (1, 0) => e[0],
                (2, 1) => e[1],
                (1, 2) => e[2],
                (0, 1) => e[3],
                _ => all,
            };
            for by in 0..3 {
                for bx in 0..3 {
                    let c = if block(bx, by) { light } else { dark };
                    for py in 0..scale {
                        for px in 0..scale {
                            let (x, y) = ((cx * 3 + bx) * scale + px, (cy * 3 + by) * scale + py);
                            img.pixels[(y * iw + x) as usize] = c;
                        }
                    }
                }
            }
        }
    }
    out[0] = img.into_value();
    Ok(())
}

/// Register `sim.wfc.init`, `sim.wfc.step` and `sim.wfc.view`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let init = OpSpec::new(
        "sim.wfc.init",
        "The start of a wave function collapse (simple tiled model): every cell may be every \
         tile of the set (tiles `NESW*weight` by edge label), narrowed by the border label.",
    )
    .output(OutputSpec::new("out", WAVE_TYPE, "the wave"));
    let init = with_size_params(init, 24)
        .param(
            ParamSpec::new(
                "tiles",
                ValueType::String,
                Value::Str(DUNGEON_TILES.into()),
                "the tile set: NESW or NESW*weight words",
            )
            .with_rule(Rule::NotEmpty),
        )
        .param(ParamSpec::new(
            "seed",
            ValueType::Int,
            Value::Int(0),
            "seed of the choices",
        ))
        .param(ParamSpec::new(
            "border",
            ValueType::String,
            Value::Str("w".into()),
            "the label every outer edge must carry (empty: none)",
        ));
    reg.register(SimOp::new(init, run_init))?;
    let step = OpSpec::new(
        "sim.wfc.step",
        "Collapse up to `per_step` cells of a wave (fewest tiles left first, seeded), \
         propagating each choice; a contradiction is an error naming the cell.",
    )
    .input(InputSpec::required(
        "state",
        WAVE_TYPE,
        "the wave (from a latch)",
    ))
    .output(OutputSpec::new(
        "out",
        WAVE_TYPE,
        "the wave after the collapses",
    ))
    .param(
        ParamSpec::new(
            "per_step",
            ValueType::Int,
            Value::Int(8),
            "cells collapsed per tick",
        )
        .with_rule(Rule::Ints {
            min: 1,
            max: 1 << 30,
        }),
    );
    reg.register(SimOp::new(step, run_step))?;
    let view = OpSpec::new(
        "sim.wfc.view",
        "A wave drawn as a map: each cell 3 x 3 blocks, floor edges (label f) light, others \
         dark, undecided cells grey.",
    )
    .input(InputSpec::required("wave", WAVE_TYPE, "the wave"))
    .output(OutputSpec::new("out", IMAGE_TYPE, "the map"))
    .param(
        ParamSpec::new("scale", ValueType::Int, Value::Int(2), "pixels per block")
            .with_rule(Rule::Ints { min: 1, max: 64 }),
    );
    reg.register(SimOp::new(view, run_view))?;
    Ok(())
}
