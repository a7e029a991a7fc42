//! Images as files, out and in.
//!
//! Images in the engine hold linear light. Files state their colour space:
//!
//! * PNG at 8 or 16 bits ([`ImageFormat::Png8`], [`ImageFormat::Png16`]) holds colour in a
//!   [`ColorSpace`]: sRGB-encoded ([`srgb_encode`]) by default, with an `sRGB` chunk (and the
//!   `gAMA` and `cHRM` it stands for), or as it is for data maps ([`ColorSpace::Data`]:
//!   normals, heights, masks), with `gAMA` 1.0. Alpha is linear in both;
//! * OpenEXR ([`ImageFormat::ExrHalf`], [`ImageFormat::ExrFloat`]) holds linear values,
//!   unclamped, as 16-bit or 32-bit floats.
//!
//! Reading ([`read_image`], [`decode_image`]) takes PNG (8 or 16 bits), JPEG and OpenEXR.
//! PNG and JPEG colour is sRGB-decoded ([`srgb_decode`], alpha linear) unless the PNG states
//! linear values (`gAMA` 1.0 and no `sRGB` chunk: [`png_colour_space`]), which are kept as
//! they are, as are EXR values; so every file reads back as it was written. The size a file
//! declares is checked against the image limits
//! ([`MAX_SIDE`](kiln_image::image::MAX_SIDE), [`MAX_PIXELS`](kiln_image::image::MAX_PIXELS))
//! before any pixel is decoded. A loaded image is a value like any other: its key is its
//! content.

mod colour_space;
mod format;
mod output;
mod png_file;
mod read;
mod srgb;

pub use colour_space::{ColorSpace, code8, code16, rgba8, rgba16};
pub use format::{ImageFormat, encode_image};
pub use output::{encode_image_output, encode_output_as};
pub(crate) use png_file::tag as tag_png;
pub use png_file::{encode_png, png_colour_space};
pub use read::{ReadImageError, decode_image, decode_image_space, read_image, read_image_as};
pub use srgb::{srgb_decode, srgb_encode};
