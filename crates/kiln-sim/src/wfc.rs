//! Wave function collapse, the simple tiled model (Gumin 2016): a grid of cells, each a set
//! of tiles it may still be. A tile is four edge labels (north, east, south, west) and a
//! weight, written `NESW*weight` (`ffww*2`); two tiles may be neighbours when the edges
//! they share carry the same label. With `border`, the outer edges of the grid must carry
//! that label.
//!
//! A step collapses up to `per_step` cells: the undecided cell with the fewest tiles left
//! (ties broken by the seeded random source) takes one of its tiles at random by weight, and
//! the choice is propagated (a worklist, no recursion) until every neighbour's set is
//! consistent. A cell left with no tile is a contradiction, which the step reports by cell.

use crate::rng::Rng;
use kiln_core::codec::{ByteReader, CodecError, HeavyCodec, write_len};
use kiln_core::key::KeyHasher;
use kiln_core::value::{Heavy, HeavyData, Value, ValueType};
use std::any::Any;

/// The registered type name of collapsing waves.
pub const WAVE: &str = "wave";
/// The port type of collapsing waves.
pub const WAVE_TYPE: ValueType = ValueType::Heavy(WAVE);
/// Most tiles a tile set may have.
pub const MAX_TILES: usize = 64;

/// One tile: its edge labels (north, east, south, west) and its weight.
#[derive(Clone, Debug, PartialEq)]
pub struct Tile {
    /// Edge labels, clockwise from north.
    pub edges: [char; 4],
    /// Relative chance of being chosen.
    pub weight: u32,
}

/// Parse a tile set: tiles split by spaces, each `NESW` or `NESW*weight`.
pub fn parse_tiles(s: &str) -> Result<Vec<Tile>, String> {
    let mut tiles = vec![];
    for word in s.split_whitespace() {
        let (edges, weight) = match word.split_once('*') {
            Some((e, w)) => (
                e,
                w.parse::<u32>().map_err(|_| {
                    format!("tile `{word}`: the weight after * must be a whole number")
                })?,
            ),
            None => (word, 1),
        };
        let e: Vec<char> = edges.chars().collect();
        if e.len() != 4 || weight == 0 {
            return Err(format!(
                "tile `{word}`: expected four edge labels (north, east, south, west) and an optional *weight above 0"
            ));
        }
        tiles.push(Tile {
            edges: [e[0], e[1], e[2], e[3]],
            weight,
        });
    }
    if tiles.is_empty() || tiles.len() > MAX_TILES {
        return Err(format!(
            "expected 1 to {MAX_TILES} tiles, found {}",
            tiles.len()
        ));
    }
    Ok(tiles)
}

/// A wave being collapsed (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Wave {
    /// Cells across.
    pub width: u32,
    /// Cells down.
    pub height: u32,
    /// The tile set.
    pub tiles: Vec<Tile>,
    /// Each cell's remaining tiles, one bit per tile.
    pub cells: Vec<u64>,
    /// The random source's state.
    pub rng: u64,
    /// Cells collapsed by choice so far.
    pub collapsed: u64,
}

/// Directions: (dx, dy, the edge of this tile, the edge of the neighbour).
const DIRS: [(i32, i32, usize, usize); 4] =
    [(0, -1, 0, 2), (1, 0, 1, 3), (0, 1, 2, 0), (-1, 0, 3, 1)];

impl Wave {
    /// A wave where every cell may be every tile, narrowed by the `border` label and by
    /// propagation; `Err((x, y))` names a cell left with no tile.
    pub fn new(
        width: u32,
        height: u32,
        tiles: Vec<Tile>,
        seed: u64,
        border: Option<char>,
    ) -> Result<Wave, (u32, u32)> {
        let all = if tiles.len() == 64 {
            u64::MAX
        } else {
            (1u64 << tiles.len()) - 1
        };
        let mut w = Wave {
            width,
            height,
            tiles,
            cells: vec![all; width as usize * height as usize],
            rng: seed,
            collapsed: 0,
        };
        // Every cell starts on the worklist, so a tile set whose edges cannot meet fails here.
        let mut work: Vec<usize> = (0..w.cells.len()).collect();
        if let Some(b) = border {
            for y in 0..height {
                for x in 0..width {
                    let mut m = w.cells[w.at(x, y)];
                    for &(dx, dy, edge, _) in &DIRS {
                        let outside = (x == 0 && dx < 0)
                            || (y == 0 && dy < 0)
                            || (x + 1 == width && dx > 0)
                            || (y + 1 == height && dy > 0);
                        if outside {
                            m &= w.mask(|t| t.edges[edge] == b);
                        }
                    }
                    let i = w.at(x, y);
                    if m != w.cells[i] {
                        w.cells[i] = m;
                        if m == 0 {
                            return Err((x, y));
                        }
                        work.push(i);
                    }
                }
            }
        }
        w.propagate(work)?;
        Ok(w)
    }

    fn at(&self, x: u32, y: u32) -> usize {
        y as usize * self.width as usize + x as usize
    }

    fn mask(&self, f: impl Fn(&Tile) -> bool) -> u64 {
        self.tiles
            .iter()
            .enumerate()
            .filter(|(_, t)| f(t))
            .fold(0, |m, (i, _)| m | (1 << i))
    }

    /// Whether every cell holds exactly one tile.
    pub fn done(&self) -> bool {
        self.cells.iter().all(|c| c.count_ones() == 1)
    }

    /// The tile of each decided cell (`None` while undecided).
    pub fn tile_at(&self, x: u32, y: u32) -> Option<usize> {
        let c = self.cells[self.at(x, y)];
        (c.count_ones() == 1).then(|| c.trailing_zeros() as usize)
    }

    fn propagate(&mut self, mut work: Vec<usize>) -> Result<(), (u32, u32)> {
        while let Some(i) = work.pop() {
            let (x, y) = (
                (i % self.width as usize) as i64,
                (i / self.width as usize) as i64,
            );
            let here = self.cells[i];
            for &(dx, dy, edge, other) in &DIRS {
                let (nx, ny) = (x + dx as i64, y + dy as i64);
                if nx < 0 || ny < 0 || nx >= self.width as i64 || ny >= self.height as i64 {
                    continue;
                }
                let labels: Vec<char> = (0..self.tiles.len())
                    .filter(|t| here >> t & 1 == 1)
                    .map(|t| self.tiles[t].edges[edge])
                    .collect();
                let allowed = self.mask(|t| labels.contains(&t.edges[other]));
                let n = ny as usize * self.width as usize + nx as usize;
                let narrowed = self.cells[n] & allowed;
                if narrowed != self.cells[n] {
                    self.cells[n] = narrowed;
                    if narrowed == 0 {
                        return Err((nx as u32, ny as u32));
                    }
                    work.push(n);
                }
            }
        }
        Ok(())
    }

    /// Collapse up to `n` cells (see the module docs); `Err((x, y))` names a cell left with
    /// no tile.
    pub fn collapse(&mut self, n: u32) -> Result<(), (u32, u32)> {
        for _ in 0..n {
            let mut rng = Rng::new(self.rng);
            let mut best: Option<(u32, u64, usize)> = None;
            for (i, &c) in self.cells.iter().enumerate() {
                let k = c.count_ones();
                if k > 1 {
                    let tie = rng.next_u64();
                    if best.is_none_or(|(bk, bt, _)| (k, tie) < (bk, bt)) {
                        best = Some((k, tie, i));
                    }
                }
            }
            let Some((_, _, i)) = best else {
                return Ok(());
            };
            let c = self.cells[i];
            let options: Vec<usize> = (0..self.tiles.len()).filter(|t| c >> t & 1 == 1).collect();
            let total: u64 = options.iter().map(|&t| self.tiles[t].weight as u64).sum();
            let mut pick = rng.below(total);
            let mut chosen = options[0];
            for &t in &options {
                let wt = self.tiles[t].weight as u64;
                if pick < wt {
                    chosen = t;
                    break;
                }
                pick -= wt;
            }
            self.rng = rng.next_u64();
            self.cells[i] = 1 << chosen;
            self.collapsed += 1;
            self.propagate(vec![i])?;
        }
        Ok(())
    }

    /// Wrap into a value.
    pub fn into_value(self) -> Value {
        Value::Heavy(Heavy::new(self))
    }
}

impl HeavyData for Wave {
    fn type_name(&self) -> &'static str {
        WAVE
    }
    fn byte_size(&self) -> usize {
        self.cells.len() * 8 + self.tiles.len() * 20 + 32
    }
    fn hash_content(&self, h: &mut KeyHasher) {
        h.u64(self.width as u64);
        h.u64(self.height as u64);
        for t in &self.tiles {
            h.str(&t.edges.iter().collect::<String>());
            h.u64(t.weight as u64);
        }
        for &c in &self.cells {
            h.u64(c);
        }
        h.u64(self.rng);
        h.u64(self.collapsed);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The binary form of waves (tag 43): u32 width, u32 height, u64 rng, u64 collapsed, the tile
/// set as a length-prefixed UTF-8 string (`NESW*weight` words), u64 cell count, u64 per cell.
#[derive(Clone, Copy, Debug, Default)]
pub struct WaveCodec;

impl HeavyCodec for WaveCodec {
    fn type_name(&self) -> &'static str {
        WAVE
    }
    fn tag(&self) -> u8 {
        43
    }
    fn encode(&self, value: &Heavy, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let w = value
            .downcast::<Wave>()
            .ok_or_else(|| CodecError::wrong_type(self, value))?;
        out.extend_from_slice(&w.width.to_le_bytes());
        out.extend_from_slice(&w.height.to_le_bytes());
        out.extend_from_slice(&w.rng.to_le_bytes());
        out.extend_from_slice(&w.collapsed.to_le_bytes());
        let tiles: Vec<String> = w
            .tiles
            .iter()
            .map(|t| format!("{}*{}", t.edges.iter().collect::<String>(), t.weight))
            .collect();
        let text = tiles.join(" ");
        write_len(out, text.len());
        out.extend_from_slice(text.as_bytes());
        write_len(out, w.cells.len());
        for c in &w.cells {
            out.extend_from_slice(&c.to_le_bytes());
        }
        Ok(())
    }
    fn decode(&self, input: &mut ByteReader<'_>) -> Result<Value, CodecError> {
        let at = input.position();
        let width = input.u32("a wave's width")?;
        let height = input.u32("a wave's height")?;
        let rng = input.u64("a wave's random state")?;
        let collapsed = input.u64("a wave's collapse count")?;
        let n = input.count(1, "a tile set")?;
        let text = std::str::from_utf8(input.take(n, "a tile set")?)
            .map_err(|_| CodecError::invalid(at, "a tile set that is not UTF-8"))?;
        let tiles = parse_tiles(text).map_err(|m| CodecError::invalid(at, m))?;
        let n = input.count(8, "wave cells")?;
        if n as u64 != width as u64 * height as u64 {
            return Err(CodecError::invalid(
                at,
                "a wave's cell count does not match its size",
            ));
        }
        let cells = (0..n)
            .map(|_| input.u64("a wave cell"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Wave {
            width,
            height,
            tiles,
            cells,
            rng,
            collapsed,
        }
        .into_value())
    }
}
