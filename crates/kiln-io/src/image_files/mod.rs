//! Images as files, out and in.
//!
//! Images in the engine hold linear light. Files state their colour space:
//!
//! * PNG at 8 bits ([`ImageFormat::Png8`]) holds the channels as they are, clamped to 0..=1
//!   (no transfer curve, as `kiln run` has always written it);
//! * PNG at 16 bits ([`ImageFormat::Png16`]) holds sRGB-encoded colour ([`srgb_encode`]) and
//!   linear alpha;
//! * OpenEXR ([`ImageFormat::ExrHalf`], [`ImageFormat::ExrFloat`]) holds linear values,
//!   unclamped, as 16-bit or 32-bit floats.
//!
//! Reading ([`read_image`], [`decode_image`]) takes PNG (8 or 16 bits), JPEG and OpenEXR:
//! 16-bit files are sRGB-decoded ([`srgb_decode`], alpha linear); 8-bit files (PNG, JPEG)
//! and EXR values are kept as they are, so every file reads back as its format was written. The size a file declares is checked against the image limits
//! ([`MAX_SIDE`](kiln_image::image::MAX_SIDE), [`MAX_PIXELS`](kiln_image::image::MAX_PIXELS))
//! before any pixel is decoded. A loaded image is a value like any other: its key is its
//! content.

mod format;
mod output;
mod read;
mod srgb;

pub use format::{ImageFormat, encode_image};
pub use output::encode_image_output;
pub use read::{ReadImageError, decode_image, read_image};
pub use srgb::{srgb_decode, srgb_encode};
