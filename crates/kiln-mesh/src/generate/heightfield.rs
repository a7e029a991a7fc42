//! A terrain from an image: one point per pixel, raised by the pixel's luminance.

use crate::generate::grid;
use crate::limits::LimitError;
use glam::Vec2;
use kiln_image::image::Image;

/// The luminance of a linear RGB pixel (Rec. 709 weights).
pub fn luminance(p: [f32; 4]) -> f32 {
    0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]
}

/// A grid of `size` in the XZ plane with one point per pixel of `image` (the image's top
/// row at −Z, its left column at −X), each raised to `height` × its luminance.
pub fn heightfield(
    node: &str,
    image: &Image,
    size: Vec2,
    height: f32,
) -> Result<crate::Mesh, LimitError> {
    let (w, h) = (image.width.max(2), image.height.max(2));
    let mut m = grid(node, size, w - 1, h - 1)?;
    let (iw, ih) = (image.width as usize, image.height as usize);
    for j in 0..h as usize {
        for i in 0..w as usize {
            let px = image
                .pixels
                .get(j.min(ih.saturating_sub(1)) * iw + i.min(iw.saturating_sub(1)))
                .copied()
                .unwrap_or([0.0; 4]);
            m.points[j * w as usize + i].y = luminance(px) * height;
        }
    }
    Ok(m)
}
