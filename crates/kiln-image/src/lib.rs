//! # kiln-image
//!
//! Kiln's image domain, built on `kiln-core` and `kiln-std`: the image heavy type
//! ([`image::Image`], linear `f32` RGBA) and its binary codec ([`image::ImageCodec`]), and the
//! image nodes:
//!
//! * generators: `image.noise` (fBm of Perlin noise), `image.fractal` (Perlin, value or
//!   simplex noise as fBm, ridged, billow, turbulence), `image.domain_warp` (fractal noise at
//!   coordinates pushed by noise), `image.cells` (Worley F1, F2, F2 - F1, cell id), the
//!   patterns `image.checker`, `image.stripes`, `image.bricks`, `image.gradient`,
//!   `image.shape`, `image.fill` and `image.expr` (a formula per pixel, [`expr`]); the noise
//!   and cells tile with a `period` ([`generators`]);
//! * per-pixel maths and tone: `image.add`, `image.sub`, `image.mul`, `image.mix`,
//!   `image.gain`, `image.invert`, `image.clamp`, `image.ramp`, `image.rect`, `image.blend`
//!   (ten modes, a mask), `image.row` (a list of images side by side), `image.levels`, `image.gamma`, `image.posterize`,
//!   `image.threshold`, `image.grey`, `image.swizzle`, `image.curves` ([`curves`]),
//!   `image.hsv`, `image.colorize` ([`colour`]), `image.merge_channels` ([`channels`]);
//! * tone from the whole image: `image.auto_levels`, `image.histogram_range` ([`auto_tone`]);
//!   channels as images: `image.split` ([`channels`]);
//! * material maps from a height: `image.ambient_occlusion`, `image.curvature`
//!   ([`material_maps`]);
//! * tilings: `image.hexagons`, `image.weave` ([`tilings`]);
//! * neighbourhood filters and transforms: `image.blur`, `image.gaussian`, `image.normal`,
//!   `image.warp`, `image.box_blur`, `image.sharpen`, `image.edges`, `image.emboss`
//!   ([`kernels`]), `image.directional_blur`, `image.slope_blur` ([`streak_blur`]),
//!   `image.erode` ([`erosion`]), `image.transform`, `image.mirror`, `image.kaleidoscope`,
//!   `image.polar`;
//! * drawing many shapes at once: `image.rects`, a list of rectangles as a plot map (a
//!   collective input, [`plot`]);
//! * on numbers: `noise.perlin`, `color.ramp`, `math.expr`; and `input.image`, the named
//!   graph input of an image.
//!
//! Every per-pixel op is a builder of a field tape ([`field`], [`per_pixel`]) rendered in one
//! pass, bands of rows on the rayon pool, the same bits for every thread count;
//! [`fuse::fuse`] rewrites a graph so each chain of them is one `image.fused` node
//! ([`fused`]) making one image. Generators whose `width` and `height` are `0 x 0` take the
//! request's size ([`image::request_size`]).
//!
//! [`register`] adds this crate's ops and codec to a registry; [`registry`] is the standard
//! library of `kiln-std` with them.
//!
//! ```
//! use kiln_core::prelude::*;
//!
//! let mut g = Graph::new();
//! g.add_node("n", "image.noise").unwrap();
//! g.set_param("n", "width", 8i64).unwrap();
//! g.set_param("n", "height", 4i64).unwrap();
//! let mut ev = LazyEvaluator::new(kiln_image::registry());
//! let out = ev.evaluate(&g, &Request::new(["n"]), &EvalContext::new()).unwrap();
//! let img = out.get("n").unwrap().as_heavy::<kiln_image::image::Image>().unwrap();
//! assert_eq!((img.width, img.height), (8, 4));
//! ```
#![deny(missing_docs)]

// `#[op(.., per_pixel)]` names this crate's items by its name, here too.
extern crate self as kiln_image;

// The image and the one way to write a per-pixel op.
pub mod expr;
pub mod field;
pub mod fuse;
pub mod fused;
pub mod image;
pub mod input;
pub mod per_pixel;
mod perlin_x4;

// Generators: noise, patterns, shapes, tilings, ramps, plots.
pub mod generators;
pub mod noise;
pub mod patterns;
pub mod plot;
pub mod ramp;
pub mod shapes;
pub mod tilings;

// Filters and composites: blur, kernels, colour, tone, channels, transforms, erosion, rows.
pub mod auto_tone;
pub mod blur;
pub mod channels;
pub mod colour;
pub mod curves;
pub mod erosion;
pub mod filters;
pub mod image_ops;
pub mod kernels;
pub mod material_maps;
pub mod row;
pub mod streak_blur;
pub mod tone;
pub mod transforms;

use kiln_core::registry::{Registry, RegistryError};

/// The op id of the named graph input of an image.
pub const INPUT_IMAGE_OP: &str = input::InputImageOp::ID;

/// The param of [`INPUT_IMAGE_OP`] saying how a file given for the input is read (`auto`,
/// `srgb` or `data`; the graph file's `"color"` of the input).
pub const INPUT_COLOR_PARAM: &str = "color";

/// Register every image op and the image codec ([`image::ImageCodec`]) into `reg`.
pub fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    noise::register(reg)?;
    ramp::register(reg)?;
    image_ops::register(reg)?;
    shapes::register(reg)?;
    row::register(reg)?;
    blur::register(reg)?;
    expr::ops::register(reg)?;
    generators::register(reg)?;
    patterns::register(reg)?;
    plot::register(reg)?;
    filters::register(reg)?;
    kernels::register(reg)?;
    streak_blur::register(reg)?;
    erosion::register(reg)?;
    tone::register(reg)?;
    curves::register(reg)?;
    auto_tone::register(reg)?;
    channels::register(reg)?;
    colour::register(reg)?;
    material_maps::register(reg)?;
    tilings::register(reg)?;
    transforms::register(reg)?;
    reg.register(fused::FusedOp::new())?;
    reg.register(input::InputImageOp::new())?;
    reg.register_codec(image::ImageCodec)?;
    Ok(())
}

/// The standard library ([`kiln_std::registry`]) with every image op and the image codec.
pub fn registry() -> Registry {
    let mut reg = kiln_std::registry();
    // The image ids are distinct from the standard ones by construction (a unit test checks
    // it).
    if let Err(e) = register(&mut reg) {
        unreachable!("image ops collide with the standard library: {e}");
    }
    reg
}

#[cfg(test)]
mod tests {
    #[test]
    fn image_ids_are_distinct_and_documented() {
        let mut reg = kiln_std::registry();
        let before = reg.len();
        super::register(&mut reg).expect("no id taken twice");
        let ids = [
            "image.noise",
            "noise.perlin",
            "image.ramp",
            "color.ramp",
            "image.fill",
            "image.add",
            "image.sub",
            "image.mul",
            "image.mix",
            "image.gain",
            "image.invert",
            "image.clamp",
            "image.rect",
            "image.blur",
            "image.expr",
            "math.expr",
            "image.fused",
            "image.fractal",
            "image.cells",
            "image.domain_warp",
            "image.checker",
            "image.stripes",
            "image.bricks",
            "image.gradient",
            "image.shape",
            "image.blend",
            "image.gaussian",
            "image.normal",
            "image.warp",
            "image.box_blur",
            "image.sharpen",
            "image.edges",
            "image.emboss",
            "image.directional_blur",
            "image.slope_blur",
            "image.erode",
            "image.levels",
            "image.gamma",
            "image.posterize",
            "image.threshold",
            "image.grey",
            "image.swizzle",
            "image.transform",
            "image.mirror",
            "image.kaleidoscope",
            "image.polar",
            "image.rects",
            "image.row",
            "image.curves",
            "image.auto_levels",
            "image.histogram_range",
            "image.split",
            "image.merge_channels",
            "image.hsv",
            "image.colorize",
            "image.ambient_occlusion",
            "image.curvature",
            "image.hexagons",
            "image.weave",
            super::INPUT_IMAGE_OP,
        ];
        assert_eq!(reg.len(), before + ids.len());
        for id in ids {
            assert!(reg.get(id).is_some(), "{id} is not registered");
        }
        for op in reg.iter() {
            let s = op.spec();
            assert!(!s.doc.is_empty(), "{} has no doc", s.id);
            for p in &s.inputs {
                assert!(!p.doc.is_empty(), "{}.{} has no doc", s.id, p.name);
            }
        }
        // Registering twice is an error.
        assert!(super::register(&mut reg).is_err());
    }
}
