//! `examples/palette.json`: a list of records mapped per record into swatches (an implicit
//! `for`) and laid out by a collective input, through the `kiln` command.

mod support;

use support::{examples, kiln, text};

#[test]
fn the_palette_example_draws_one_swatch_per_record_in_name_order() {
    let dir = tempfile::tempdir().unwrap();
    let p = examples().join("palette.json");
    let p = p.to_str().unwrap();
    let o = kiln(&["run", p, "--out", "out", "-q", "--stats"], dir.path());
    assert!(o.status.success(), "{:?}", text(&o));
    // `record.get` and `image.fill` were each written once per record.
    let all = format!("{:?}", text(&o));
    assert!(all.contains("`colour`: 5 copies"), "{all}");
    assert!(all.contains("`swatch`: 5 copies"), "{all}");
    let img = image::open(dir.path().join("out").join("palette.png"))
        .unwrap()
        .to_rgba8();
    assert_eq!(img.dimensions(), (5 * 24, 64));
    // Names sorted: ash, clay, moss, sand, sea; each swatch its record's colour.
    let want = [
        [0x3a, 0x3a, 0x40],
        [0xb5, 0x53, 0x2f],
        [0x5f, 0x7f, 0x2f],
        [0xe0, 0xc0, 0x80],
        [0x1f, 0x5f, 0x8b],
    ];
    // A record's `#rrggbb` is the linear colour digits / 255, which the PNG holds
    // sRGB-encoded (IEC 61966-2-1), each code round(255 · e).
    let srgb = |code: u8| {
        let v = code as f64 / 255.0;
        let e = if v <= 0.0031308 {
            12.92 * v
        } else {
            1.055 * v.powf(1.0 / 2.4) - 0.055
        };
        (e * 255.0).round() as u8
    };
    for (i, c) in want.iter().enumerate() {
        let px = img.get_pixel(i as u32 * 24 + 12, 32).0;
        assert_eq!(
            [px[0], px[1], px[2], px[3]],
            [srgb(c[0]), srgb(c[1]), srgb(c[2]), 255],
            "swatch {i}"
        );
    }
}
