//! Drawing shapes onto images: `image.rect`, a filled axis-aligned rectangle given in the
//! image's unit square (`[0, 0]` is the top-left corner, `[1, 1]` the bottom-right), so the
//! same graph draws the same picture at any resolution.
//!
//! A pixel is inside when its centre is: pixel `(x, y)` has centre
//! `((x + 0.5) / width, (y + 0.5) / height)`, and the rectangle holds the centres `c` with
//! `min <= c < max` on both axes.

use crate::field::{Binary, Coord, Px, Step, Tape, Ternary};
use crate::per_pixel::consts;
use kiln_core::op::OpError;
use kiln_core::registry::{Registry, RegistryError};

/// Paint the rectangle from `min` to `max` (in the image's unit square, y down) with `color`.
#[kiln_core::op("image.rect", per_pixel, out = "the image with the rectangle")]
pub fn rect(
    tape: &mut Tape<'_>,
    #[input("the image painted on")] image: Px,
    #[input("top-left corner", default = [0.25, 0.25])] min: [f64; 2],
    #[input("bottom-right corner", default = [0.75, 0.75])] max: [f64; 2],
    #[input("the paint", default = [1.0, 1.0, 1.0, 1.0])] color: [f32; 4],
) -> Result<Px, OpError> {
    let t = tape;
    let [x0, y0] = min;
    let [x1, y1] = max;
    let paint = consts(t, color)?;
    let one = t.constant(1.0)?;
    let mut inside = one;
    for (coord, lo, hi) in [(Coord::U, x0, x1), (Coord::V, y0, y1)] {
        let c = t.push(Step::Coord(coord))?;
        let (lo, hi) = (t.constant(lo)?, t.constant(hi)?);
        let above = t.binary(Binary::Step, lo, c)?;
        let past = t.binary(Binary::Step, hi, c)?;
        let below = t.binary(Binary::Sub, one, past)?;
        let m = t.binary(Binary::Mul, above, below)?;
        inside = t.binary(Binary::Mul, inside, m)?;
    }
    let mut px = [0; 4];
    for c in 0..4 {
        px[c] = t.push(Step::Ternary(Ternary::Select, inside, paint[c], image[c]))?;
    }
    Ok(px)
}

/// Register `image.rect`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(RectOp::new())
}
