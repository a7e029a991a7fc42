//! What a render runs of a tape, and how often: steps no output needs are left out, a step
//! that is the same for every pixel of a row is computed once per run of lanes, and a step
//! that is the same for every row (it reads only the column) is computed on the first row of
//! a band and kept for the band's other rows. Each value is still computed by the same
//! operation on the same operands, so the bits are those of running every step on every lane
//! (`a_plan_gives_the_bits_of_running_every_step_everywhere`).

use super::tape::{Coord, Px, Reg, Step, Tape};

/// How a step's value varies over the pixels of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Varies {
    /// Never: a constant, filled in once per set of registers.
    Never,
    /// With the row only (or not within an image: its size, the clock): one lane per run.
    Row,
    /// With the column only: computed on a band's first row, kept for its other rows.
    Column,
    /// With both: every lane of every run.
    Pixel,
}

impl Varies {
    /// How a function of values varying as `self` and `other` varies.
    fn join(self, other: Varies) -> Varies {
        use Varies::*;
        match (self, other) {
            (Never, v) | (v, Never) => v,
            (a, b) if a == b => a,
            _ => Pixel,
        }
    }
}

/// The registers a step reads.
pub fn operands(s: &Step) -> impl Iterator<Item = Reg> {
    let (regs, n): ([Reg; 3], usize) = match *s {
        Step::Const(_) | Step::Coord(_) | Step::Channel { .. } => ([0; 3], 0),
        Step::Unary(_, a) => ([a, 0, 0], 1),
        Step::Binary(_, a, b) | Step::Binary32(_, a, b) => ([a, b, 0], 2),
        Step::Ternary(_, a, b, c) => ([a, b, c], 3),
        Step::Noise { x, y, .. } => ([x, y, 0], 2),
        Step::Ramp { t, .. } => ([t, 0, 0], 1),
        Step::Curve { x, .. } => ([x, 0, 0], 1),
    };
    regs.into_iter().take(n)
}

/// Per step of a tape: whether it runs, how its value varies, and whether a one-lane value
/// is filled into every lane (because a step that varies more, or an output, reads them).
#[derive(Clone, Debug)]
pub struct Plan {
    /// Per step: whether an output needs it.
    pub live: Vec<bool>,
    /// Per step: how its value varies.
    pub varies: Vec<Varies>,
    /// Per step of [`Varies::Row`]: whether its lane 0 is copied into every lane.
    pub fill: Vec<bool>,
    /// When the four outputs are the four channels of one ramp lookup (a chain ending in a
    /// colour ramp): the ramp and the register looked up. The render
    /// then writes the lookup's colours straight into the image, and the four channel steps
    /// do not run.
    pub ramp_out: Option<(u16, Reg)>,
}

impl Plan {
    /// The plan of `tape` for outputs `out` (registers whose every lane is read after a
    /// run).
    pub fn new(tape: &Tape<'_>, out: &[Reg]) -> Plan {
        let steps = &tape.steps;
        let n = steps.len();
        let mut live = vec![false; n];
        for &r in out {
            if let Some(l) = live.get_mut(r as usize) {
                *l = true;
            }
        }
        // Backwards: every operand is an earlier step, so one pass finds every step an
        // output needs.
        for i in (0..n).rev() {
            if live[i] {
                for r in operands(&steps[i]) {
                    live[r as usize] = true;
                }
            }
        }
        let mut varies = Vec::with_capacity(n);
        for s in steps {
            let v = match *s {
                Step::Const(_) => Varies::Never,
                Step::Coord(Coord::X | Coord::U) => Varies::Column,
                Step::Coord(_) => Varies::Row,
                Step::Channel { .. } => Varies::Pixel,
                // A lookup or a noise of constants is not folded into a constant: it is
                // computed, once per run.
                _ => match operands(s).fold(Varies::Never, |v, r| v.join(varies[r as usize])) {
                    Varies::Never => Varies::Row,
                    v => v,
                },
            };
            varies.push(v);
        }
        let ramp_out = ramp_out(tape, out);
        if let Some((_, t)) = ramp_out {
            for &r in out {
                live[r as usize] = false;
            }
            live[t as usize] = true;
        }
        let mut fill = vec![false; n];
        for (i, s) in steps.iter().enumerate() {
            if live[i] && varies[i] != Varies::Row {
                for r in operands(s) {
                    fill[r as usize] = true;
                }
            }
        }
        // What the render reads after a run: the looked-up register, or the outputs.
        let read_after = match ramp_out {
            Some((_, t)) => vec![t],
            None => out.to_vec(),
        };
        for r in read_after {
            fill[r as usize] = true;
        }
        for (f, v) in fill.iter_mut().zip(&varies) {
            *f &= *v == Varies::Row;
        }
        Plan {
            live,
            varies,
            fill,
            ramp_out,
        }
    }

    /// A plan that runs every step on every lane: what a plan must give the bits of.
    #[cfg(test)]
    pub fn everything(tape: &Tape<'_>) -> Plan {
        let n = tape.steps.len();
        Plan {
            live: vec![true; n],
            varies: vec![Varies::Pixel; n],
            fill: vec![false; n],
            ramp_out: None,
        }
    }
}

/// The ramp and register of `out` when its four registers are channels 0 to 3 of one ramp
/// lookup. No other step can read them: every step a live step reads comes before it, and
/// the only steps before a lookup that outputs need are those of the register looked up.
fn ramp_out(tape: &Tape<'_>, out: &[Reg]) -> Option<(u16, Reg)> {
    let px: Px = out.try_into().ok()?;
    let mut key = None;
    for (c, &r) in px.iter().enumerate() {
        match tape.steps.get(r as usize)? {
            Step::Ramp { ramp, t, channel } if *channel as usize == c => {
                if key.is_some_and(|k| k != (*ramp, *t)) {
                    return None;
                }
                key = Some((*ramp, *t));
            }
            _ => return None,
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::tape::{Binary, Ternary};

    #[test]
    fn steps_vary_as_their_operands_and_dead_ones_are_left_out() {
        let mut t = Tape::new();
        let x = t.push(Step::Coord(Coord::X)).unwrap();
        let y = t.push(Step::Coord(Coord::Y)).unwrap();
        let k = t.constant(3.0).unwrap();
        let xk = t.binary(Binary::Mul, x, k).unwrap();
        let yk = t.binary(Binary::Mul, y, k).unwrap();
        let y2 = t.binary(Binary::Add, yk, k).unwrap();
        let xy = t.binary(Binary::Add, xk, y2).unwrap();
        let dead = t.binary(Binary::Sub, xy, k).unwrap();
        let p = Plan::new(&t, &[xy, xk, y2, k]);
        let v = |r: Reg| p.varies[r as usize];
        assert_eq!(
            [v(k), v(x), v(y), v(xk), v(yk), v(y2), v(xy), v(dead)],
            [
                Varies::Never,
                Varies::Column,
                Varies::Row,
                Varies::Column,
                Varies::Row,
                Varies::Row,
                Varies::Pixel,
                Varies::Pixel
            ]
        );
        assert!(!p.live[dead as usize]);
        assert!(p.live[xy as usize] && p.live[yk as usize]);
        // `yk` is read by a row step only; `y2` by a pixel step and an output.
        assert!(!p.fill[yk as usize] && p.fill[y2 as usize]);
        assert_eq!(p.ramp_out, None);
    }

    #[test]
    fn four_channels_of_one_lookup_read_by_nothing_go_straight_to_the_image() {
        let ramp = crate::ramp::Ramp::parse(&crate::ramp::default_stops(), 0).unwrap();
        let mut t = Tape::new();
        let id = t.add_ramp(ramp).unwrap();
        let u = t.push(Step::Coord(Coord::U)).unwrap();
        let v = t.push(Step::Coord(Coord::V)).unwrap();
        let uv = t.binary(Binary::Mul, u, v).unwrap();
        let px: Vec<Reg> = (0..4u8)
            .map(|c| {
                t.push(Step::Ramp {
                    ramp: id,
                    t: uv,
                    channel: c,
                })
                .unwrap()
            })
            .collect();
        let p = Plan::new(&t, &px);
        assert_eq!(p.ramp_out, Some((id, uv)));
        assert!(px.iter().all(|&r| !p.live[r as usize]));
        // Channels in another order, or a channel passed through a step, are not a
        // straight lookup.
        let swapped = [px[1], px[0], px[2], px[3]];
        assert_eq!(Plan::new(&t, &swapped).ramp_out, None);
        let (lo, hi) = (t.constant(0.0).unwrap(), t.constant(1.0).unwrap());
        let c = t
            .push(Step::Ternary(Ternary::Clamp, px[0], lo, hi))
            .unwrap();
        let p = Plan::new(&t, &[c, px[1], px[2], px[3]]);
        assert_eq!(p.ramp_out, None);
        assert!(p.live[px[0] as usize]);
    }
}
