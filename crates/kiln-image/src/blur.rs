//! `image.blur`: a 3x3 box blur. Every channel (alpha included) of pixel `(x, y)` becomes the
//! mean of the nine pixels `(x + dx, y + dy)` for `dx, dy` in `-1..=1`, where a neighbour
//! outside the image is read at the nearest edge pixel (edges clamped), so a uniform image
//! stays uniform and nothing darkens at the border.

use crate::image::Image;
use crate::image_ops::{Pixel, build_rows};
use kiln_core::op::{OpCall, OpError};
use kiln_core::registry::{Registry, RegistryError};

/// The blurred pixel `(x, y)` of `img` (which must not be empty).
fn blurred(img: &Image, x: u32, y: u32) -> Pixel {
    let mut sum = [0.0f32; 4];
    for dy in -1i64..=1 {
        let yy = (y as i64 + dy).clamp(0, img.height as i64 - 1) as u32;
        for dx in -1i64..=1 {
            let xx = (x as i64 + dx).clamp(0, img.width as i64 - 1) as u32;
            let p = img.get(xx, yy);
            for c in 0..4 {
                sum[c] += p[c];
            }
        }
    }
    sum.map(|s| s / 9.0)
}

/// 3x3 box blur: each channel the mean of the pixel and its eight neighbours, edges clamped.
#[kiln_core::op("image.blur", out = "the blurred image")]
pub fn blur(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
) -> Result<Image, OpError> {
    build_rows(call, image.width, image.height, |y, row| {
        row.extend((0..image.width).map(|x| blurred(image, x, y)))
    })
}

/// Register `image.blur`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(BlurOp::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `w` x `h` grey image whose pixel `(x, y)` has r = g = b = `v[y * w + x]`, alpha 1.
    fn grey(w: u32, h: u32, v: &[f32]) -> Image {
        Image {
            width: w,
            height: h,
            pixels: v.iter().map(|&g| [g, g, g, 1.0]).collect(),
        }
    }

    #[test]
    fn centre_pixel_is_the_mean_of_nine() {
        // 1..9 in a 3x3 grid: the centre's mean is 45 / 9 = 5.
        let img = grey(3, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
        assert_eq!(blurred(&img, 1, 1), [5.0, 5.0, 5.0, 1.0]);
        // The top-left corner reads (0,0) four times, (1,0) and (0,1) twice, (1,1) once:
        // (4*1 + 2*2 + 2*4 + 5) / 9 = 21 / 9.
        assert_eq!(blurred(&img, 0, 0)[0], 21.0 / 9.0);
        // The bottom-right corner: (4*9 + 2*8 + 2*6 + 5) / 9 = 69 / 9.
        assert_eq!(blurred(&img, 2, 2)[1], 69.0 / 9.0);
    }

    #[test]
    fn a_single_bright_pixel_spreads_over_its_neighbours() {
        // One pixel of 9 in a 5x1 row of zeros: each of x = 1, 2, 3 sees it in 3 of its 9
        // reads (its column, in the three clamped rows): 27 / 9 = 3; x = 0 and 4 see nothing.
        let img = grey(5, 1, &[0.0, 0.0, 9.0, 0.0, 0.0]);
        let row: Vec<f32> = (0..5).map(|x| blurred(&img, x, 0)[0]).collect();
        assert_eq!(row, vec![0.0, 3.0, 3.0, 3.0, 0.0]);
        // A uniform image is unchanged, alpha included.
        let flat = grey(2, 2, &[0.5; 4]);
        assert_eq!(blurred(&flat, 0, 1), [0.5, 0.5, 0.5, 1.0]);
    }
}
