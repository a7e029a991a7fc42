//! Small-kernel filters that read neighbours (so they end a fused chain), rows on the rayon
//! pool, the same bits for every thread count:
//!
//! * `image.box_blur`: the mean over a `(2r + 1)²` square, separable (rows, then columns,
//!   each in `f64` and stored as `f32`), every channel;
//! * `image.sharpen`: an unsharp mask, `p + amount (p - gaussian(p, sigma))` on r, g, b;
//! * `image.edges`: the Sobel gradient magnitude of the luminance, `|G| / 8 * strength` (the
//!   Sobel sums weigh 8 pixel steps, so `|G| / 8` is the slope per pixel), grey;
//! * `image.emboss`: `0.5 - strength * (G . l) / 8` for the light direction `l` at `angle`
//!   degrees (0: from the right, 90: from the top), grey: slopes facing the light (the height
//!   falling towards it, as the normal `(-G, 1)` leans to it) are bright.
//!
//! Neighbours outside the image wrap (`edges = wrap`, so a tile stays a tile) or clamp.
//! A constant image stays constant (box blur, sharpen) or becomes flat (edges 0, emboss 0.5).

use crate::filters::{EDGES, Edges, by_rows, gaussian};
use crate::image::Image;
use crate::ramp::luminance;
use kiln_core::op::{OpCall, OpError, Rule};
use kiln_core::registry::{Registry, RegistryError};

/// Largest box blur radius, in pixels.
pub const MAX_RADIUS: i64 = 256;

/// A box blur of radius `r`: rows then columns, each the mean of `2r + 1` pixels.
pub fn box_blur(call: &OpCall<'_>, img: &Image, r: i64, edges: Edges) -> Result<Image, OpError> {
    if r <= 0 || img.pixels.is_empty() {
        return Ok(img.clone());
    }
    let (w, h) = (img.width, img.height);
    let n = (2 * r + 1) as f64;
    let pass1 = by_rows(call, w, h, |y, out| {
        for (x, o) in out.iter_mut().enumerate() {
            let mut s = [0.0f64; 4];
            for d in -r..=r {
                let p = img.get(edges.index(x as i64 + d, w) as u32, y);
                for c in 0..4 {
                    s[c] += p[c] as f64;
                }
            }
            *o = s.map(|v| (v / n) as f32);
        }
    })?;
    by_rows(call, w, h, |y, out| {
        for (x, o) in out.iter_mut().enumerate() {
            let mut s = [0.0f64; 4];
            for d in -r..=r {
                let p = pass1.get(x as u32, edges.index(y as i64 + d, h) as u32);
                for c in 0..4 {
                    s[c] += p[c] as f64;
                }
            }
            *o = s.map(|v| (v / n) as f32);
        }
    })
}

/// The Sobel gradient `(gx, gy)` of the luminance at `(x, y)`, x to the right, y downwards.
pub fn sobel(img: &Image, x: i64, y: i64, edges: Edges) -> (f64, f64) {
    let l = |dx: i64, dy: i64| {
        luminance(img.get(
            edges.index(x + dx, img.width) as u32,
            edges.index(y + dy, img.height) as u32,
        ))
    };
    let gx = (l(1, -1) + 2.0 * l(1, 0) + l(1, 1)) - (l(-1, -1) + 2.0 * l(-1, 0) + l(-1, 1));
    let gy = (l(-1, 1) + 2.0 * l(0, 1) + l(1, 1)) - (l(-1, -1) + 2.0 * l(0, -1) + l(1, -1));
    (gx, gy)
}

fn grey(v: f64) -> [f32; 4] {
    let g = v as f32;
    [g, g, g, 1.0]
}

/// Box blur: every channel the mean over the (2 radius + 1)² square around the pixel, rows
/// then columns.
#[kiln_core::op("image.box_blur", out = "the blurred image")]
pub fn box_blur_image(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
    #[param(
        "half the side of the square, in pixels (0: unchanged)",
        default = 2,
        rule = Rule::Ints { min: 0, max: MAX_RADIUS }
    )]
    radius: i64,
    #[param(
        "neighbours outside the image: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    box_blur(
        call,
        image,
        radius.clamp(0, MAX_RADIUS),
        Edges::parse(edges),
    )
}

/// Unsharp mask: r, g, b become p + amount * (p - gaussian(p, sigma)); alpha kept.
#[kiln_core::op("image.sharpen", out = "the sharpened image")]
pub fn sharpen(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
    #[input(
        "how much of the detail is added back",
        default = 1.0,
        rule = Rule::Finite
    )]
    amount: f64,
    #[input(
        "the blur taken away, standard deviation in pixels",
        default = 1.0,
        rule = Rule::between(0.0, crate::filters::MAX_SIGMA)
    )]
    sigma: f64,
    #[param(
        "neighbours outside the image: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    let img = image;
    let sigma = sigma.clamp(0.0, crate::filters::MAX_SIGMA);
    let edges = Edges::parse(edges);
    let blurred = gaussian(call, img, sigma, edges)?;
    by_rows(call, img.width, img.height, |y, row| {
        for (x, o) in row.iter_mut().enumerate() {
            let (p, b) = (img.get(x as u32, y), blurred.get(x as u32, y));
            *o = std::array::from_fn(|c| {
                if c == 3 {
                    p[3]
                } else {
                    (p[c] as f64 + amount * (p[c] as f64 - b[c] as f64)) as f32
                }
            });
        }
    })
}

/// Edge detection: the Sobel gradient magnitude of the luminance, |G| / 8 * strength (the
/// slope per pixel), as grey.
#[kiln_core::op("image.edges", out = "the edges, grey")]
pub fn edges(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
    #[input("the factor on the magnitude", default = 1.0, rule = Rule::Finite)] strength: f64,
    #[param(
        "neighbours outside the image: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    let (img, s) = (image, strength);
    let edges = Edges::parse(edges);
    by_rows(call, img.width, img.height, |y, row| {
        for (x, o) in row.iter_mut().enumerate() {
            let (gx, gy) = sobel(img, x as i64, y as i64, edges);
            *o = grey((gx * gx + gy * gy).sqrt() / 8.0 * s);
        }
    })
}

/// Emboss: 0.5 - strength * (G . l) / 8, the Sobel gradient G of the luminance along the
/// light direction l at `angle` degrees (0 from the right, 90 from the top): slopes facing
/// the light are bright; grey.
#[kiln_core::op("image.emboss", out = "the relief, grey")]
pub fn emboss(
    call: &OpCall<'_>,
    #[input("the source image")] image: &Image,
    #[input("how deep the relief looks", default = 4.0, rule = Rule::Finite)] strength: f64,
    #[input(
        "where the light comes from, degrees anticlockwise from the right",
        default = 135.0,
        rule = Rule::Finite
    )]
    angle: f64,
    #[param(
        "neighbours outside the image: wrap (tiles) or clamp",
        default = "wrap",
        rule = EDGES
    )]
    edges: &str,
) -> Result<Image, OpError> {
    let (img, s) = (image, strength);
    let a = angle.to_radians();
    // Rows grow downwards, so "from the top" is -y.
    let (lx, ly) = (a.cos(), -a.sin());
    let edges = Edges::parse(edges);
    by_rows(call, img.width, img.height, |y, row| {
        for (x, o) in row.iter_mut().enumerate() {
            let (gx, gy) = sobel(img, x as i64, y as i64, edges);
            *o = grey(0.5 - s * (gx * lx + gy * ly) / 8.0);
        }
    })
}

/// Register `image.box_blur`, `image.sharpen`, `image.edges` and `image.emboss`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.register(BoxBlurImageOp::new())?;
    reg.register(SharpenOp::new())?;
    reg.register(EdgesOp::new())?;
    reg.register(EmbossOp::new())
}
