//! Wave function collapse, the overlapping model (Gumin 2016): learn every `N` × `N` window
//! of a small sample (its patterns, with how often each occurs; optionally also their
//! rotations and reflections, and windows that wrap around the sample's edges), then fill
//! an output so that every `N` × `N` window of it is one of those patterns.
//!
//! Each output cell is the top-left corner of a pattern. Two patterns may sit at offset
//! (dx, dy) from each other when they agree on the pixels they share (the overlap rule). A
//! cell is collapsed at a time: the undecided cell with the fewest patterns left (ties
//! broken by the seeded random source) takes one by weight, and the choice is propagated
//! through a worklist (no recursion) to every cell it constrains. Without `periodic`
//! output the cells are those whose pattern fits inside the output, and the last `N − 1`
//! rows and columns of pixels come from the patterns of the cells beside them. A cell left
//! with no pattern is a contradiction: the run starts again with the next seed, up to
//! `attempts` times.

use crate::rng::Rng;
use std::collections::HashMap;

/// The largest window side.
pub const MAX_N: u32 = 4;
/// The most patterns a sample may teach.
pub const MAX_PATTERNS: usize = 2048;
/// The most output cells.
pub const MAX_CELLS: usize = 128 * 128;
/// The most sample pixels.
pub const MAX_SAMPLE: usize = 128 * 128;
/// The most bits of a wave (cells times patterns).
pub const MAX_WAVE_BITS: usize = 1 << 26;

/// Why the model could not be learnt or run.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum OverlapError {
    /// A size over its limit or too small.
    #[error("{0}")]
    Size(String),
    /// Every attempt ended in a contradiction.
    #[error(
        "the overlapping model hit a contradiction in each of {attempts} attempt(s), the \
         last at cell ({x}, {y}): no pattern fits its neighbours (try another seed, more \
         attempts, or a sample with more patterns)"
    )]
    Contradiction {
        /// Attempts made.
        attempts: u32,
        /// The cell of the last contradiction.
        x: u32,
        /// The cell of the last contradiction.
        y: u32,
    },
}

/// The patterns a sample teaches.
#[derive(Clone, Debug, PartialEq)]
pub struct Patterns {
    /// Window side.
    pub n: u32,
    /// Each pattern's `n × n` colour indices, row by row, in order of first appearance.
    pub cells: Vec<Vec<u32>>,
    /// How often each pattern occurs.
    pub weights: Vec<u32>,
}

/// The `n × n` window of a `w`-wide sample at (x, y), wrapping.
fn window(sample: &[u32], w: u32, h: u32, n: u32, x: u32, y: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity((n * n) as usize);
    for j in 0..n {
        for i in 0..n {
            let (sx, sy) = ((x + i) % w, (y + j) % h);
            out.push(sample.get((sy * w + sx) as usize).copied().unwrap_or(0));
        }
    }
    out
}

fn rotate(p: &[u32], n: u32) -> Vec<u32> {
    // (i, j) of the result is (j, n-1-i) of the input: a quarter turn.
    let n = n as usize;
    (0..n * n)
        .map(|k| {
            let (i, j) = (k % n, k / n);
            p[(n - 1 - i) * n + j]
        })
        .collect()
}

fn reflect(p: &[u32], n: u32) -> Vec<u32> {
    let n = n as usize;
    (0..n * n)
        .map(|k| {
            let (i, j) = (k % n, k / n);
            p[j * n + (n - 1 - i)]
        })
        .collect()
}

/// Learn the `n × n` patterns of a `w × h` sample of colour indices: windows at every
/// position (wrapping around when `periodic`, else only those inside), each with its first
/// `symmetry` variants of the eight (the window, its reflection, then the quarter turns of
/// both alternately, as Gumin's model orders them).
pub fn learn(
    sample: &[u32],
    w: u32,
    h: u32,
    n: u32,
    symmetry: u32,
    periodic: bool,
) -> Result<Patterns, OverlapError> {
    if !(2..=MAX_N).contains(&n) {
        return Err(OverlapError::Size(format!(
            "the window side must be 2 to {MAX_N} (MAX_N), found {n}"
        )));
    }
    if w < n || h < n || w as usize * h as usize > MAX_SAMPLE {
        return Err(OverlapError::Size(format!(
            "the sample must be at least {n} x {n} and at most {MAX_SAMPLE} pixels \
             (MAX_SAMPLE), found {w} x {h}"
        )));
    }
    if sample.len() != w as usize * h as usize {
        return Err(OverlapError::Size(format!(
            "a {w} x {h} sample has {} pixels, found {}",
            w as usize * h as usize,
            sample.len()
        )));
    }
    let (xmax, ymax) = if periodic {
        (w, h)
    } else {
        (w - n + 1, h - n + 1)
    };
    let mut index: HashMap<Vec<u32>, usize> = HashMap::new();
    let mut p = Patterns {
        n,
        cells: vec![],
        weights: vec![],
    };
    for y in 0..ymax {
        for x in 0..xmax {
            let base = window(sample, w, h, n, x, y);
            let mut variants = vec![base.clone(), reflect(&base, n)];
            for k in 2..8 {
                let next = rotate(&variants[k - 2], n);
                variants.push(next);
            }
            for v in variants.into_iter().take(symmetry.clamp(1, 8) as usize) {
                match index.get(&v) {
                    Some(&i) => p.weights[i] += 1,
                    None => {
                        if p.cells.len() == MAX_PATTERNS {
                            return Err(OverlapError::Size(format!(
                                "the sample teaches more than {MAX_PATTERNS} patterns \
                                 (MAX_PATTERNS)"
                            )));
                        }
                        index.insert(v.clone(), p.cells.len());
                        p.cells.push(v);
                        p.weights.push(1);
                    }
                }
            }
        }
    }
    Ok(p)
}

/// Whether pattern `b` may sit at offset (dx, dy) from pattern `a`: they agree where they
/// overlap.
pub fn agrees(a: &[u32], b: &[u32], n: u32, dx: i32, dy: i32) -> bool {
    let n = n as i32;
    for y in dy.max(0)..(n + dy).min(n) {
        for x in dx.max(0)..(n + dx).min(n) {
            if a.get((y * n + x) as usize) != b.get(((y - dy) * n + (x - dx)) as usize) {
                return false;
            }
        }
    }
    true
}

/// The four neighbour directions (dx, dy) and the index of the opposite one.
const DIRS: [(i32, i32, usize); 4] = [(1, 0, 2), (0, 1, 3), (-1, 0, 0), (0, -1, 1)];

/// Bitsets of patterns, `words` u64 per set.
struct Wave {
    words: usize,
    bits: Vec<u64>,
}

impl Wave {
    fn cell(&self, c: usize) -> &[u64] {
        &self.bits[c * self.words..(c + 1) * self.words]
    }
    fn count(&self, c: usize) -> u32 {
        self.cell(c).iter().map(|w| w.count_ones()).sum()
    }
}

/// Generate a `w × h` output of colour indices from `p` (see the module docs).
pub fn generate(
    p: &Patterns,
    w: u32,
    h: u32,
    periodic: bool,
    seed: u64,
    attempts: u32,
    cancel: &dyn Fn() -> bool,
) -> Result<Vec<u32>, OverlapError> {
    let n = p.n;
    let t = p.cells.len();
    if t == 0 {
        return Err(OverlapError::Size("the sample teaches no pattern".into()));
    }
    if w < n || h < n || w as usize * h as usize > MAX_CELLS {
        return Err(OverlapError::Size(format!(
            "the output must be at least {n} x {n} and at most {MAX_CELLS} pixels \
             (MAX_CELLS), found {w} x {h}"
        )));
    }
    let (cw, ch) = if periodic {
        (w, h)
    } else {
        (w - n + 1, h - n + 1)
    };
    let cells = cw as usize * ch as usize;
    let words = t.div_ceil(64);
    if cells * words * 64 > MAX_WAVE_BITS {
        return Err(OverlapError::Size(format!(
            "{cells} cells of {t} patterns is over {MAX_WAVE_BITS} bits (MAX_WAVE_BITS)"
        )));
    }
    // compatible[d][a]: the set of patterns that may sit in direction d of pattern a.
    let mut compatible = vec![vec![0u64; t * words]; 4];
    for (d, &(dx, dy, _)) in DIRS.iter().enumerate() {
        for a in 0..t {
            for b in 0..t {
                if agrees(&p.cells[a], &p.cells[b], n, dx, dy) {
                    compatible[d][a * words + b / 64] |= 1 << (b % 64);
                }
            }
        }
    }
    let mut last = (0, 0);
    let mut rng = Rng::new(seed);
    for _ in 0..attempts.max(1) {
        let run_seed = rng.next_u64();
        match attempt(p, &compatible, (cw, ch), periodic, run_seed, cancel) {
            Ok(chosen) => return Ok(render(p, &chosen, (cw, ch), w, h)),
            Err(cell) => last = cell,
        }
    }
    Err(OverlapError::Contradiction {
        attempts: attempts.max(1),
        x: last.0,
        y: last.1,
    })
}

/// One run: the chosen pattern of each cell, or the cell of a contradiction.
fn attempt(
    p: &Patterns,
    compatible: &[Vec<u64>],
    (cw, ch): (u32, u32),
    periodic: bool,
    seed: u64,
    cancel: &dyn Fn() -> bool,
) -> Result<Vec<usize>, (u32, u32)> {
    let t = p.cells.len();
    let words = t.div_ceil(64);
    let cells = cw as usize * ch as usize;
    let mut full = vec![0u64; words];
    for b in 0..t {
        full[b / 64] |= 1 << (b % 64);
    }
    let mut wave = Wave {
        words,
        bits: full.repeat(cells),
    };
    let mut rng = Rng::new(seed);
    let at = |c: usize| ((c % cw as usize) as u32, (c / cw as usize) as u32);
    // Every cell starts on the worklist, so patterns that cannot meet fail here.
    propagate(
        &mut wave,
        compatible,
        (cw, ch),
        periodic,
        (0..cells).collect(),
    )
    .map_err(at)?;
    loop {
        if cancel() {
            return Err((0, 0));
        }
        let mut best: Option<(u32, u64, usize)> = None;
        for c in 0..cells {
            let k = wave.count(c);
            if k > 1 {
                let tie = rng.next_u64();
                if best.is_none_or(|(bk, bt, _)| (k, tie) < (bk, bt)) {
                    best = Some((k, tie, c));
                }
            }
        }
        let Some((_, _, c)) = best else {
            break;
        };
        let options: Vec<usize> = (0..t)
            .filter(|&b| wave.cell(c)[b / 64] >> (b % 64) & 1 == 1)
            .collect();
        let total: u64 = options.iter().map(|&b| p.weights[b] as u64).sum();
        let mut pick = rng.below(total);
        let mut chosen = options.first().copied().unwrap_or(0);
        for &b in &options {
            let wt = p.weights[b] as u64;
            if pick < wt {
                chosen = b;
                break;
            }
            pick -= wt;
        }
        let slot = &mut wave.bits[c * words..(c + 1) * words];
        slot.iter_mut().for_each(|x| *x = 0);
        slot[chosen / 64] = 1 << (chosen % 64);
        propagate(&mut wave, compatible, (cw, ch), periodic, vec![c]).map_err(at)?;
    }
    (0..cells)
        .map(|c| {
            let s = wave.cell(c);
            (0..t)
                .find(|&b| s[b / 64] >> (b % 64) & 1 == 1)
                .ok_or(at(c))
        })
        .collect()
}

/// Narrow every cell the changes at the cells of `work` constrain; `Err(cell)` for one left
/// empty.
fn propagate(
    wave: &mut Wave,
    compatible: &[Vec<u64>],
    (cw, ch): (u32, u32),
    periodic: bool,
    mut work: Vec<usize>,
) -> Result<(), usize> {
    let words = wave.words;
    let mut allowed = vec![0u64; words];
    while let Some(c) = work.pop() {
        let (x, y) = ((c % cw as usize) as i64, (c / cw as usize) as i64);
        for (d, &(dx, dy, _)) in DIRS.iter().enumerate() {
            let (mut nx, mut ny) = (x + dx as i64, y + dy as i64);
            if periodic {
                nx = nx.rem_euclid(cw as i64);
                ny = ny.rem_euclid(ch as i64);
            } else if nx < 0 || ny < 0 || nx >= cw as i64 || ny >= ch as i64 {
                continue;
            }
            allowed.iter_mut().for_each(|a| *a = 0);
            for wi in 0..words {
                let mut m = wave.bits[c * words + wi];
                while m != 0 {
                    let a = wi * 64 + m.trailing_zeros() as usize;
                    m &= m - 1;
                    for (k, al) in allowed.iter_mut().enumerate() {
                        *al |= compatible[d][a * words + k];
                    }
                }
            }
            let nc = ny as usize * cw as usize + nx as usize;
            let mut changed = false;
            let mut empty = true;
            for (k, al) in allowed.iter().enumerate() {
                let cur = &mut wave.bits[nc * words + k];
                let next = *cur & al;
                changed |= next != *cur;
                empty &= next == 0;
                *cur = next;
            }
            if empty {
                return Err(nc);
            }
            if changed {
                work.push(nc);
            }
        }
    }
    Ok(())
}

/// The output pixels: each the top-left of its cell's pattern, the last `n − 1` rows and
/// columns of a non-periodic output from the patterns of the last cells.
fn render(p: &Patterns, chosen: &[usize], (cw, ch): (u32, u32), w: u32, h: u32) -> Vec<u32> {
    let n = p.n;
    let mut out = Vec::with_capacity(w as usize * h as usize);
    for y in 0..h {
        for x in 0..w {
            let (cx, cy) = (x.min(cw - 1), y.min(ch - 1));
            let (ox, oy) = (x - cx, y - cy);
            let pat = chosen.get((cy * cw + cx) as usize).copied().unwrap_or(0);
            out.push(
                p.cells
                    .get(pat)
                    .and_then(|c| c.get((oy * n + ox) as usize))
                    .copied()
                    .unwrap_or(0),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkerboard_teaches_two_patterns_of_weight_two() {
        // 0 1 / 1 0 read with wrapping: windows at (0,0) and (1,1) are [0 1; 1 0], at (1,0)
        // and (0,1) [1 0; 0 1].
        let p = learn(&[0, 1, 1, 0], 2, 2, 2, 1, true).unwrap();
        assert_eq!(p.cells, vec![vec![0, 1, 1, 0], vec![1, 0, 0, 1]]);
        assert_eq!(p.weights, vec![2, 2]);
    }

    #[test]
    fn the_overlap_rule_compares_the_shared_pixels() {
        // [0 1; 2 3] then [1 4; 3 5] to its right share the column (1, 3).
        assert!(agrees(&[0, 1, 2, 3], &[1, 4, 3, 5], 2, 1, 0));
        assert!(!agrees(&[0, 1, 2, 3], &[1, 4, 2, 5], 2, 1, 0));
        // Below: the row (2, 3) is the next one's top row.
        assert!(agrees(&[0, 1, 2, 3], &[2, 3, 7, 7], 2, 0, 1));
    }

    #[test]
    fn sizes_over_their_limits_are_refused() {
        assert!(learn(&[0; 4], 2, 2, 5, 1, true).is_err());
        let p = learn(&[0; 4], 2, 2, 2, 1, true).unwrap();
        assert!(generate(&p, 1000, 1000, false, 1, 1, &|| false).is_err());
    }
}
