//! Fuzz entry of the image file decoder (PNG, JPEG, OpenEXR through the `image` crate).

use crate::image_files::{ImageFormat, decode_image, decode_image_space, encode_image};
use kiln_image::image::Image;
use std::path::Path;

/// The most pixels a decoded image has for [`image_file`] to write it back.
const ROUND_TRIP_PIXELS: u64 = 1 << 16;

/// An image file's bytes: decoded; an image that decodes is written in every image format,
/// in the colour space its colour was read in, and each file read back has the same size. Two
/// laws hold for what reads back: 8-bit PNG is idempotent (an image written, read and written
/// again gives the same codes), and 32-bit EXR keeps every value to the bit (NaN stays NaN).
/// Only images of at most `ROUND_TRIP_PIXELS` (65,536) go through the writers: a few kilobytes of
/// deflate can stand for megapixels, and four writes of each made the fuzzer run a
/// hundred inputs a second instead of thousands (the decoder still reads every input whole).
pub fn image_file(bytes: &[u8]) {
    let path = Path::new("fuzzed");
    let Ok((image, space)) = decode_image_space(bytes, path) else {
        return;
    };
    if image.width as u64 * image.height as u64 > ROUND_TRIP_PIXELS {
        return;
    }
    for format in [
        ImageFormat::Png8,
        ImageFormat::Png16,
        ImageFormat::ExrHalf,
        ImageFormat::ExrFloat,
    ] {
        let Ok(file) = encode_image(&image, format, space) else {
            continue;
        };
        let back = match decode_image(&file, path) {
            Ok(back) => back,
            Err(e) => panic!("a {format:?} file written from a decoded image does not read: {e}"),
        };
        assert_eq!(
            (back.width, back.height),
            (image.width, image.height),
            "{format:?} changed the size"
        );
        match format {
            ImageFormat::Png8 => {
                let again = encode_image(&back, format, space)
                    .ok()
                    .and_then(|f| decode_image(&f, path).ok());
                let again =
                    again.unwrap_or_else(|| panic!("an 8-bit PNG read back does not write"));
                assert!(same_bits(&again, &back), "8-bit PNG is not idempotent");
            }
            ImageFormat::ExrFloat => assert!(same_bits(&back, &image), "EXR float changed a value"),
            _ => {}
        }
    }
}

/// The same pixels, bit for bit, any NaN matching any NaN.
fn same_bits(a: &Image, b: &Image) -> bool {
    a.pixels.len() == b.pixels.len()
        && a.pixels.iter().zip(&b.pixels).all(|(p, q)| {
            p.iter()
                .zip(q)
                .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
        })
}
