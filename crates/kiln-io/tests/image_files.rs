//! Images as files: 16-bit PNG and OpenEXR round trips, the sRGB curve against its textbook
//! formula, JPEG and PNG read, the image limits checked before decoding, errors. (8-bit PNG
//! and the data colour space: `image_colour.rs`.)

mod srgb_reference;
use kiln_core::key::KeyHasher;
use kiln_core::value::HeavyData;
use kiln_image::image::Image;
use kiln_io::image_files::{
    ColorSpace, ImageFormat, ReadImageError, decode_image, encode_image, read_image, srgb_decode,
    srgb_encode,
};
use srgb_reference::{textbook_decode, textbook_encode};
use std::path::Path;

const VALUES: [f32; 10] = [
    0.0, 0.001, 0.0031308, 0.01, 0.18, 0.5, 0.73, 1.0, 1.5, -0.25,
];

fn sample_image() -> Image {
    let mut img = Image::filled(5, 2, [0.0; 4]);
    for (i, p) in img.pixels.iter_mut().enumerate() {
        let v = VALUES[i];
        *p = [
            v,
            VALUES[(i + 3) % 10],
            VALUES[(i + 7) % 10],
            VALUES[(i + 5) % 10],
        ];
    }
    img
}

#[test]
fn srgb_encode_follows_the_textbook_formula() {
    for i in 0..=1000 {
        let v = i as f32 / 1000.0;
        let want = textbook_encode(v as f64);
        assert!((srgb_encode(v) as f64 - want).abs() < 2e-6, "{v}");
        assert!((srgb_decode(srgb_encode(v)) - v).abs() < 1e-5, "{v}");
    }
    // Below the knee the line, above the power curve.
    assert!((srgb_encode(0.002) as f64 - 12.92 * 0.002).abs() < 1e-7);
    assert!((srgb_encode(0.5) as f64 - (1.055 * 0.5f64.powf(1.0 / 2.4) - 0.055)).abs() < 1e-6);
    assert_eq!(srgb_encode(2.0), 1.0);
    assert_eq!(srgb_encode(-1.0), 0.0);
}

#[test]
fn png16_holds_srgb_codes_and_linear_alpha() {
    let img = sample_image();
    let bytes = encode_image(&img, ImageFormat::Png16, ColorSpace::Srgb).unwrap();
    let back = image::load_from_memory(&bytes).unwrap();
    assert_eq!(back.color(), image::ColorType::Rgba16);
    let back = back.into_rgba16();
    for (i, p) in img.pixels.iter().enumerate() {
        let got = back.get_pixel(i as u32 % 5, i as u32 / 5).0;
        let code = |e: f64| (e.clamp(0.0, 1.0) * 65535.0).round() as u16;
        let want = [
            code(textbook_encode(p[0] as f64)),
            code(textbook_encode(p[1] as f64)),
            code(textbook_encode(p[2] as f64)),
            code(p[3] as f64),
        ];
        assert_eq!(got, want, "pixel {i} of {p:?}");
    }
    // Read back through kiln: each code decoded by the textbook curve, and so within a
    // 16-bit step of the clamped value.
    let read = decode_image(&bytes, Path::new("t.png")).unwrap();
    for (i, b) in read.pixels.iter().enumerate() {
        let got = back.get_pixel(i as u32 % 5, i as u32 / 5).0;
        for c in 0..3 {
            let want = textbook_decode(f64::from(got[c]) / 65535.0);
            assert!((f64::from(b[c]) - want).abs() < 1e-6, "pixel {i}");
        }
    }
    for (a, b) in img.pixels.iter().zip(&read.pixels) {
        for c in 0..4 {
            assert!((a[c].clamp(0.0, 1.0) - b[c]).abs() < 1e-4, "{a:?} {b:?}");
        }
    }
}

#[test]
fn exr_float_round_trips_bit_for_bit() {
    let mut img = sample_image();
    img.pixels[0] = [1e-20, 65504.0 * 4.0, -3.5, 0.1];
    let bytes = encode_image(&img, ImageFormat::ExrFloat, ColorSpace::Srgb).unwrap();
    let back = image::load_from_memory(&bytes).unwrap().into_rgba32f();
    for (i, p) in img.pixels.iter().enumerate() {
        let got = back.get_pixel(i as u32 % 5, i as u32 / 5).0;
        assert_eq!(got.map(f32::to_bits), p.map(f32::to_bits), "pixel {i}");
    }
    let read = decode_image(&bytes, Path::new("t.exr")).unwrap();
    assert_eq!(read, img);
}

#[test]
fn exr_half_round_trips_within_half_precision() {
    let img = sample_image();
    let bytes = encode_image(&img, ImageFormat::ExrHalf, ColorSpace::Srgb).unwrap();
    let read = decode_image(&bytes, Path::new("t.exr")).unwrap();
    for (a, b) in img.pixels.iter().zip(&read.pixels) {
        for c in 0..4 {
            // Half has 11 significant bits: a relative error of at most 2^-11 (normal
            // numbers), and an absolute one of 2^-25 near zero (subnormals).
            let tol = a[c].abs() * 2f32.powi(-11) + 2f32.powi(-25);
            assert!((a[c] - b[c]).abs() <= tol, "{} -> {}", a[c], b[c]);
        }
    }
    assert!(
        bytes.len()
            < encode_image(&img, ImageFormat::ExrFloat, ColorSpace::Srgb)
                .unwrap()
                .len()
    );
}

#[test]
fn untagged_png8_and_jpeg_are_read_as_srgb() {
    // An 8-bit PNG made by the image crate, which states no colour space: each colour code
    // reads as the textbook decoding of code / 255, as PNG readers assume sRGB; alpha as
    // code / 255.
    let codes: Vec<u8> = vec![0, 10, 128, 255, 200, 50, 100, 255];
    let mut png = Vec::new();
    image::ImageEncoder::write_image(
        image::codecs::png::PngEncoder::new(&mut png),
        &codes,
        2,
        1,
        image::ExtendedColorType::Rgba8,
    )
    .unwrap();
    let img = decode_image(&png, Path::new("a.png")).unwrap();
    assert_eq!((img.width, img.height), (2, 1));
    for (i, &code) in codes.iter().enumerate() {
        let e = code as f64 / 255.0;
        let want = if i % 4 == 3 { e } else { textbook_decode(e) };
        assert!((img.pixels[i / 4][i % 4] as f64 - want).abs() < 1e-6, "{i}");
    }
    // A JPEG of a flat grey: every pixel reads near the decoding of the grey's code.
    let grey = vec![128u8; 16 * 16 * 3];
    let mut jpg = Vec::new();
    image::ImageEncoder::write_image(
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpg, 100),
        &grey,
        16,
        16,
        image::ExtendedColorType::Rgb8,
    )
    .unwrap();
    let img = decode_image(&jpg, Path::new("a.jpg")).unwrap();
    assert_eq!((img.width, img.height), (16, 16));
    let (lo, hi) = (
        textbook_decode(126.0 / 255.0),
        textbook_decode(130.0 / 255.0),
    );
    for p in &img.pixels {
        for c in &p[..3] {
            assert!((lo..=hi).contains(&(*c as f64)), "{c} vs {lo}..{hi}");
        }
        assert_eq!(p[3], 1.0);
    }
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A PNG declaring `w x h` whose pixel data is the bare start of a zlib stream.
fn png_header_only(w: u32, h: u32) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8], data: &[u8]| {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &[0x78, 0x9c]);
    chunk(b"IEND", &[]);
    out
}

#[test]
fn sizes_are_checked_against_the_limits_before_decoding() {
    // Beyond MAX_SIDE on one side, and beyond MAX_PIXELS with both sides allowed.
    for (w, h) in [(16_385, 1), (8_193, 8_193)] {
        let e = decode_image(&png_header_only(w, h), Path::new("big.png")).unwrap_err();
        assert!(
            matches!(e, ReadImageError::TooLarge { width, height, .. } if (width, height) == (w, h)),
            "{e}"
        );
        assert!(e.to_string().contains("big.png"), "{e}");
    }
    // At the limits the header is accepted, and the missing pixels are the error.
    let e = decode_image(&png_header_only(8_192, 8_192), Path::new("ok.png")).unwrap_err();
    assert!(matches!(e, ReadImageError::Decode { .. }), "{e}");
}

#[test]
fn missing_corrupt_and_foreign_files_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.png");
    let e = read_image(&missing).unwrap_err();
    assert!(e.to_string().contains("missing.png"), "{e}");
    let mut png = encode_image(
        &Image::filled(4, 4, [0.5; 4]),
        ImageFormat::Png8,
        ColorSpace::Srgb,
    )
    .unwrap();
    png.truncate(png.len() - 20);
    let corrupt = dir.path().join("corrupt.png");
    std::fs::write(&corrupt, &png).unwrap();
    let e = read_image(&corrupt).unwrap_err();
    assert!(matches!(e, ReadImageError::Decode { .. }), "{e}");
    assert!(e.to_string().contains("corrupt.png"), "{e}");
    let text = dir.path().join("notes.png");
    std::fs::write(&text, "not an image").unwrap();
    let e = read_image(&text).unwrap_err();
    assert!(matches!(e, ReadImageError::Format { .. }), "{e}");
}

fn key(img: &Image) -> u128 {
    let mut h = KeyHasher::new();
    img.hash_content(&mut h);
    h.finish_key().0
}

#[test]
fn a_read_image_is_keyed_by_its_content() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = encode_image(&sample_image(), ImageFormat::Png16, ColorSpace::Srgb).unwrap();
    let (a, b) = (dir.path().join("a.png"), dir.path().join("b.png"));
    std::fs::write(&a, &bytes).unwrap();
    std::fs::write(&b, &bytes).unwrap();
    let ka = key(&read_image(&a).unwrap());
    assert_eq!(ka, key(&read_image(&b).unwrap()));
    let mut other = sample_image();
    other.pixels[3][0] = 0.25;
    std::fs::write(
        &b,
        encode_image(&other, ImageFormat::Png16, ColorSpace::Srgb).unwrap(),
    )
    .unwrap();
    assert_ne!(ka, key(&read_image(&b).unwrap()));
}

/// Found by the `image_file` fuzz target: a 2-bit palette PNG whose PLTE chunk holds 14
/// bytes (four entries and two bytes over), on which the `png` decoder panics
/// (image-rs/image-png#694). It is refused with an error naming the chunk.
#[test]
fn a_palette_of_partial_entries_is_an_error_not_a_panic() {
    let bytes = include_bytes!("../../../fuzz/corpus/image_file/found-plte-partial-entry");
    assert_eq!(&bytes[..4], b"\x89PNG");
    match decode_image(bytes, Path::new("p.png")) {
        Err(ReadImageError::Decode { message, .. }) => {
            assert!(message.contains("PLTE chunk holds 14 bytes"), "{message}")
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
}
