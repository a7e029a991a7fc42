//! The colour space of PNG files: 8-bit codes against the sRGB formula of IEC 61966-2-1
//! (worked out independently), the chunks that state it, data maps written as they are, and
//! write → read round trips at 8 and 16 bits.

mod srgb_reference;
use kiln_image::image::Image;
use kiln_io::image_files::{ColorSpace, ImageFormat, decode_image, encode_image};
use srgb_reference::{textbook_decode, textbook_encode};
use std::path::Path;

/// A one-row image of grey pixels `v` with alpha `a`.
fn row(values: &[(f32, f32)]) -> Image {
    Image {
        width: values.len() as u32,
        height: 1,
        pixels: values.iter().map(|&(v, a)| [v, v, v, a]).collect(),
    }
}

/// The chunks of a PNG file, in order: (type, data). Read here from the file layout (length,
/// type, data, CRC), not through any decoder.
fn chunks(png: &[u8]) -> Vec<([u8; 4], Vec<u8>)> {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let mut out = vec![];
    let mut at = 8;
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let kind: [u8; 4] = png[at + 4..at + 8].try_into().unwrap();
        out.push((kind, png[at + 8..at + 8 + len].to_vec()));
        at += 12 + len;
    }
    out
}

fn chunk<'a>(all: &'a [([u8; 4], Vec<u8>)], kind: &[u8; 4]) -> Option<&'a [u8]> {
    all.iter()
        .find(|(k, _)| k == kind)
        .map(|(_, d)| d.as_slice())
}

fn codes8(png: &[u8]) -> Vec<[u8; 4]> {
    let img = image::load_from_memory(png).unwrap();
    assert_eq!(img.color(), image::ColorType::Rgba8);
    img.into_rgba8().pixels().map(|p| p.0).collect()
}

#[test]
fn png8_colour_codes_are_the_srgb_formula() {
    // Worked out with the formula (Python, f64): round(255 · (1.055 v^(1/2.4) − 0.055)), or
    // round(255 · 12.92 v) up to 0.0031308.
    let table: [(f32, u8); 11] = [
        (0.0, 0),
        (0.001, 3),      // 12.92 · 0.001 · 255 = 3.29
        (0.0031308, 10), // the knee: 0.04045 · 255 = 10.31
        (0.01, 25),      // 25.46
        (0.18, 118),     // 117.65
        (0.214, 127),    // 127.49
        (0.5, 188),      // 187.52
        (0.73, 222),     // 221.94
        (1.0, 255),
        (1.5, 255), // clamped
        (-0.25, 0), // clamped
    ];
    let img = row(&table.map(|(v, _)| (v, 0.5)));
    let png = encode_image(&img, ImageFormat::Png8, ColorSpace::Srgb).unwrap();
    for (i, px) in codes8(&png).iter().enumerate() {
        let want = table[i].1;
        // Alpha is linear: round(0.5 · 255) = 128.
        assert_eq!(*px, [want, want, want, 128], "{}", table[i].0);
    }
    // A sweep: every code is round(255 · the textbook encoding).
    let sweep: Vec<(f32, f32)> = (0..=2000).map(|i| (i as f32 / 2000.0, 1.0)).collect();
    let png = encode_image(&row(&sweep), ImageFormat::Png8, ColorSpace::Srgb).unwrap();
    for (px, (v, _)) in codes8(&png).iter().zip(&sweep) {
        let e = textbook_encode(*v as f64) * 255.0;
        // Away from a rounding boundary the code is exact; at one, either neighbour will do.
        if (e.fract() - 0.5).abs() > 1e-4 {
            assert_eq!(px[0], e.round() as u8, "{v}");
        }
        assert_eq!(px[3], 255);
    }
}

#[test]
fn srgb_png_carries_the_srgb_chunk_and_data_png_gamma_one() {
    let img = row(&[(0.5, 1.0)]);
    for format in [ImageFormat::Png8, ImageFormat::Png16] {
        let all = chunks(&encode_image(&img, format, ColorSpace::Srgb).unwrap());
        // sRGB, perceptual intent (0), before the pixels; gAMA 1/2.2 for older readers.
        assert_eq!(chunk(&all, b"sRGB"), Some(&[0u8][..]), "{format:?}");
        assert_eq!(chunk(&all, b"gAMA"), Some(&45_455u32.to_be_bytes()[..]));
        assert!(chunk(&all, b"cHRM").is_some());
        let srgb = all.iter().position(|(k, _)| k == b"sRGB").unwrap();
        let idat = all.iter().position(|(k, _)| k == b"IDAT").unwrap();
        assert!(srgb < idat);
        let all = chunks(&encode_image(&img, format, ColorSpace::Data).unwrap());
        assert_eq!(chunk(&all, b"sRGB"), None, "{format:?}");
        assert_eq!(chunk(&all, b"gAMA"), Some(&100_000u32.to_be_bytes()[..]));
    }
}

#[test]
fn data_png8_writes_the_values_as_they_are() {
    // round(255 v): 0.5 → 127.5 → 128, 0.214 → 54.57 → 55, 0.0031308 → 0.80 → 1.
    let img = row(&[(0.5, 1.0), (0.214, 1.0), (0.0031308, 0.25), (2.0, 0.0)]);
    let png = encode_image(&img, ImageFormat::Png8, ColorSpace::Data).unwrap();
    let got = codes8(&png);
    assert_eq!(
        got,
        [
            [128, 128, 128, 255],
            [55, 55, 55, 255],
            [1, 1, 1, 64],
            [255, 255, 255, 0]
        ]
    );
    // Read back as the codes over 255, not decoded.
    let back = decode_image(&png, Path::new("n.png")).unwrap();
    for (p, c) in back.pixels.iter().zip(&got) {
        for k in 0..4 {
            assert_eq!(p[k], c[k] as f32 / 255.0);
        }
    }
}

#[test]
fn every_8bit_code_reads_as_its_decoding_and_writes_back_unchanged() {
    let codes: Vec<u8> = (0..=255).collect();
    let img = Image {
        width: 256,
        height: 1,
        pixels: codes
            .iter()
            .map(|&k| {
                let v = textbook_decode(k as f64 / 255.0) as f32;
                [v, v, v, 1.0]
            })
            .collect(),
    };
    let png = encode_image(&img, ImageFormat::Png8, ColorSpace::Srgb).unwrap();
    let written = codes8(&png);
    for (px, &k) in written.iter().zip(&codes) {
        assert_eq!(px[0], k, "code {k}");
    }
    let back = decode_image(&png, Path::new("ramp.png")).unwrap();
    for (p, &k) in back.pixels.iter().zip(&codes) {
        let want = textbook_decode(k as f64 / 255.0);
        assert!((p[0] as f64 - want).abs() < 1e-6, "code {k}");
    }
    let again = encode_image(&back, ImageFormat::Png8, ColorSpace::Srgb).unwrap();
    assert_eq!(codes8(&again), written);
}

#[test]
fn linear_values_round_trip_to_the_quantisation_of_each_depth() {
    let values: Vec<(f32, f32)> = (0..=100).map(|i| (i as f32 / 100.0, 0.75)).collect();
    let img = row(&values);
    for (format, levels) in [(ImageFormat::Png8, 255.0), (ImageFormat::Png16, 65535.0)] {
        for space in [ColorSpace::Srgb, ColorSpace::Data] {
            let png = encode_image(&img, format, space).unwrap();
            let back = decode_image(&png, Path::new("r.png")).unwrap();
            for (p, (v, a)) in back.pixels.iter().zip(&values) {
                let v = *v as f64;
                // The value read is the decoding of the nearest code of the encoded value.
                let want = match space {
                    ColorSpace::Srgb => {
                        textbook_decode((textbook_encode(v) * levels).round() / levels)
                    }
                    _ => (v * levels).round() / levels,
                };
                assert!(
                    (p[0] as f64 - want).abs() < 1e-6,
                    "{format:?} {space:?} {v}"
                );
                // Within half a code of the value, in encoded units.
                let enc = |x: f64| match space {
                    ColorSpace::Srgb => textbook_encode(x),
                    _ => x,
                };
                assert!((enc(p[0] as f64) - enc(v)).abs() <= 0.5 / levels + 1e-6);
                assert!((p[3] as f64 - (*a as f64 * levels).round() / levels).abs() < 1e-6);
            }
        }
    }
}

#[test]
fn the_fuzzed_laws_hold_for_files_of_both_spaces() {
    // The fuzz entry writes what it reads in the space it read it in, and checks that 8-bit
    // PNG is idempotent: files tagged sRGB, tagged linear (data) and untagged.
    let values: Vec<(f32, f32)> = (0..=64)
        .map(|i| (i as f32 / 64.0, 1.0 - i as f32 / 64.0))
        .collect();
    let img = row(&values);
    for format in [ImageFormat::Png8, ImageFormat::Png16] {
        for space in [ColorSpace::Srgb, ColorSpace::Data] {
            kiln_io::fuzzing::image_file(&encode_image(&img, format, space).unwrap());
        }
    }
    let mut untagged = Vec::new();
    image::ImageEncoder::write_image(
        image::codecs::png::PngEncoder::new(&mut untagged),
        &(0..=255u8)
            .flat_map(|k| [k, 255 - k, k / 2, 255])
            .collect::<Vec<u8>>(),
        256,
        1,
        image::ExtendedColorType::Rgba8,
    )
    .unwrap();
    kiln_io::fuzzing::image_file(&untagged);
}
