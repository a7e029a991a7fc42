//! The wave function collapse ops: `sim.wfc.init`, `sim.wfc.step` (see [`crate::wfc`]) and
//! `sim.wfc.view`, which draws each cell as 3 × 3 blocks of `scale` pixels: a label `f`
//! (floor) is light, any other label dark; a cell's centre is light when any of its edges
//! is, its corners are light only for a tile whose four edges all are. Undecided cells are
//! grey.

use crate::image_bridge::Image;
use crate::ports::{SIDE, grid_size};
use crate::wfc::{Wave, parse_tiles};
use kiln_core::op;
use kiln_core::op::{OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};

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

/// The start of a wave function collapse (simple tiled model): every cell may be every tile
/// of the set (tiles `NESW*weight` by edge label), narrowed by the border label.
#[op("sim.wfc.init", out = "the wave")]
fn wfc_init(
    #[param("width in cells", default = 24, rule = SIDE, plan_time)] width: i64,
    #[param("height in cells", default = 24, rule = SIDE, plan_time)] height: i64,
    #[param(
        "the tile set: NESW or NESW*weight words",
        default = DUNGEON_TILES,
        rule = Rule::NotEmpty
    )]
    tiles: &str,
    #[param("seed of the choices", default = 0)] seed: i64,
    #[param("the label every outer edge must carry (empty: none)", default = "w")] border: &str,
) -> Result<Wave, OpError> {
    let (w, h) = grid_size(width, height)?;
    let tiles = parse_tiles(tiles).map_err(|m| OpError::param(2, m))?;
    let seed = seed as u64;
    let border = border.chars().next();
    Wave::new(w, h, tiles.clone(), seed, border).map_err(|cell| {
        let empty = Wave {
            width: w,
            height: h,
            tiles,
            cells: vec![],
            rng: seed,
            collapsed: 0,
        };
        OpError::param(4, contradiction(&empty, cell))
    })
}

/// Collapse up to `per_step` cells of a wave (fewest tiles left first, seeded), propagating
/// each choice; a contradiction is an error naming the cell.
#[op("sim.wfc.step", out = "the wave after the collapses")]
fn wfc_step(
    #[input("the wave (from a latch)")] state: &Wave,
    #[param("cells collapsed per tick", default = 8, range = 1..=(1 << 30))] per_step: i64,
) -> Result<Wave, OpError> {
    let mut wave = state.clone();
    let n = per_step.clamp(1, 1 << 30) as u32;
    wave.collapse(n)
        .map_err(|cell| OpError::new(contradiction(&wave, cell)))?;
    Ok(wave)
}

/// A wave drawn as a map: each cell 3 x 3 blocks, floor edges (label f) light, others dark,
/// undecided cells grey.
#[op("sim.wfc.view", out = "the map")]
fn wfc_view(
    #[input("the wave")] wave: &Wave,
    #[param("pixels per block", default = 2, range = 1..=64)] scale: i64,
) -> Result<Image, OpError> {
    let scale = scale.clamp(1, 64) as u32;
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
    Ok(img)
}

/// Register `sim.wfc.init`, `sim.wfc.step` and `sim.wfc.view`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(WfcInitOp::new())?;
    reg.register(WfcStepOp::new())?;
    reg.register(WfcViewOp::new())?;
    Ok(())
}
