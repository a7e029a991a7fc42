//! The colour space of PNG outputs through the command: sRGB-encoded by default (`kiln run`,
//! `kiln render` frames and animations), the values as they are for an output the graph file
//! declares `"color": "data"` or `--color` asks for, and a written PNG read back as an image
//! input gives the linear values again. Expected codes are worked out from the sRGB formula
//! of IEC 61966-2-1.

mod support;

use std::path::Path;
use support::{kiln, text};

/// Two solid outputs of the colour (0.5, 0.214, 0.0031308) with alpha 0.5: `pic`, and
/// `mask`, which the file declares a data map.
const GRAPH: &str = r#"{"kiln": 1,
    "nodes": {"fill": {"op": "image.fill", "params": {"width": 2, "height": 2},
                       "inputs": {"color": [0.5, 0.214, 0.0031308, 0.5]}}},
    "outputs": {"pic": "fill.out", "mask": {"from": "fill.out", "color": "data"}}}"#;

/// round(255 · (1.055 c^(1/2.4) − 0.055)) for 0.5 and 0.214, round(255 · 12.92 c) for
/// 0.0031308 (the knee); alpha round(255 · 0.5).
const SRGB: [u8; 4] = [188, 127, 10, 128];
/// round(255 c): 127.5, 54.57, 0.80; alpha 127.5.
const DATA: [u8; 4] = [128, 55, 1, 128];

fn codes(path: &Path) -> [u8; 4] {
    let img = image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba8();
    let first = img.get_pixel(0, 0).0;
    assert!(img.pixels().all(|p| p.0 == first));
    first
}

fn go(cwd: &Path, args: &[&str]) {
    let o = kiln(args, cwd);
    assert!(o.status.success(), "{args:?}: {:?}", text(&o));
}

#[test]
fn run_writes_srgb_unless_the_file_or_the_flag_asks_for_data() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), GRAPH).unwrap();
    go(cwd, &["run", "g.json", "--out", "a", "-q"]);
    assert_eq!(codes(&cwd.join("a/pic.png")), SRGB);
    assert_eq!(codes(&cwd.join("a/mask.png")), DATA);
    // `--color data` for every output; `--color NAME=srgb` beats the file for one.
    go(
        cwd,
        &["run", "g.json", "--out", "b", "-q", "--color", "data"],
    );
    assert_eq!(codes(&cwd.join("b/pic.png")), DATA);
    go(
        cwd,
        &["run", "g.json", "--out", "c", "-q", "--color", "mask=srgb"],
    );
    assert_eq!(codes(&cwd.join("c/mask.png")), SRGB);
    assert_eq!(codes(&cwd.join("c/pic.png")), SRGB);
    // At 16 bits too: round(65535 · 0.7353570) = 48192 for 0.5.
    go(cwd, &["run", "g.json", "--out", "d", "-q", "--depth", "16"]);
    let deep = image::open(cwd.join("d/pic.png")).unwrap().into_rgba16();
    assert_eq!(deep.get_pixel(0, 0).0[0], 48192);
    let deep = image::open(cwd.join("d/mask.png")).unwrap().into_rgba16();
    assert_eq!(deep.get_pixel(0, 0).0[0], 32768);
    // A bad space or an output that is not written: errors naming them.
    let o = kiln(&["run", "g.json", "--out", "e", "--color", "gamma"], cwd);
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("expected srgb or data"),
        "{:?}",
        text(&o)
    );
    let o = kiln(
        &["run", "g.json", "--out", "e", "--color", "nope=data"],
        cwd,
    );
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("`nope` is not an output"),
        "{:?}",
        text(&o)
    );
}

#[test]
fn a_written_png_reads_back_as_the_linear_values() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), GRAPH).unwrap();
    go(cwd, &["run", "g.json", "--out", "a", "-q"]);
    // Read each PNG as an image input and write it again as float EXR: the sRGB one gives
    // the decoding of its codes, the data one the codes over 255.
    let copy = r#"{"kiln": 1, "inputs": {"src": {"type": "image"}},
        "nodes": {"same": {"op": "image.gain", "inputs": {"image": "src.out", "gain": 1.0}}},
        "outputs": {"back": "same.out"}}"#;
    std::fs::write(cwd.join("copy.json"), copy).unwrap();
    let decode = |e: f64| {
        if e <= 0.04045 {
            e / 12.92
        } else {
            ((e + 0.055) / 1.055).powf(2.4)
        }
    };
    for (name, linear) in [("pic", true), ("mask", false)] {
        let set = format!("src=@a/{name}.png");
        let out = format!("x{name}");
        go(
            cwd,
            &[
                "run",
                "copy.json",
                "--out",
                &out,
                "-q",
                "--set",
                &set,
                "--output",
                "back.exr",
            ],
        );
        let back = image::open(cwd.join(&out).join("back.exr"))
            .unwrap()
            .into_rgba32f();
        let p = back.get_pixel(0, 0).0;
        let codes = if linear { SRGB } else { DATA };
        for c in 0..3 {
            let e = codes[c] as f64 / 255.0;
            let want = if linear { decode(e) } else { e };
            assert!(
                (p[c] as f64 - want).abs() < 1e-6,
                "{name} {c}: {} vs {want}",
                p[c]
            );
        }
        assert!((p[3] as f64 - 128.0 / 255.0).abs() < 1e-6);
        // Within 8-bit quantisation of what was written.
        let original = [0.5, 0.214, 0.0031308];
        for c in 0..3 {
            assert!((p[c] as f64 - original[c]).abs() < 0.004, "{name} {c}");
        }
    }
}

#[test]
fn render_frames_and_animations_follow_the_colour_space() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), GRAPH).unwrap();
    go(
        cwd,
        &[
            "render", "g.json", "--ticks", "2", "--out", "r", "-q", "--apng",
        ],
    );
    assert_eq!(codes(&cwd.join("r/pic_000.png")), SRGB);
    assert_eq!(codes(&cwd.join("r/mask_001.png")), DATA);
    // The APNG's first frame is its default image.
    let apng = std::fs::read(cwd.join("r/pic.apng")).unwrap();
    let first = image::load_from_memory_with_format(&apng, image::ImageFormat::Png)
        .unwrap()
        .to_rgba8();
    assert_eq!(first.get_pixel(0, 0).0, SRGB);
    go(
        cwd,
        &[
            "render", "g.json", "--ticks", "1", "--out", "s", "-q", "--color", "data",
        ],
    );
    assert_eq!(codes(&cwd.join("s/pic_000.png")), DATA);
}

#[test]
fn watch_takes_the_file_colour_and_color_over_it() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), GRAPH).unwrap();
    let watch = |out: &str, extra: &[&str]| {
        let mut args = vec!["watch", "g.json", "--out", out, "--max-presents", "1"];
        args.extend_from_slice(extra);
        go(cwd, &args);
    };
    watch("a", &[]);
    assert_eq!(codes(&cwd.join("a/pic.png")), SRGB);
    assert_eq!(codes(&cwd.join("a/mask.png")), DATA);
    watch("b", &["--color", "data", "--color", "mask=srgb"]);
    assert_eq!(codes(&cwd.join("b/pic.png")), DATA);
    assert_eq!(codes(&cwd.join("b/mask.png")), SRGB);
    // A name that is no output is refused, and nothing is written.
    let o = kiln(
        &[
            "watch",
            "g.json",
            "--out",
            "c",
            "--max-presents",
            "1",
            "--color",
            "ghost=data",
        ],
        cwd,
    );
    assert!(!o.status.success());
    let (out, err) = text(&o);
    assert!(
        format!("{out}{err}").contains("`ghost` is not an output"),
        "{out}{err}"
    );
    assert!(!cwd.join("c/pic.png").exists());
}

#[test]
fn watch_writes_images_in_the_format_and_depth_asked() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), GRAPH).unwrap();
    let watch = |out: &str, extra: &[&str]| {
        let mut args = vec!["watch", "g.json", "--out", out, "--max-presents", "1"];
        args.extend_from_slice(extra);
        go(cwd, &args);
    };
    // 16-bit PNG: round(65535 e) of the sRGB encoding e of 0.5 is 48192; as data 32768
    // (alpha is linear: 32768).
    watch("deep", &["--depth", "16"]);
    let px = |f: &str| {
        let img = image::open(cwd.join(f)).unwrap();
        assert_eq!(img.color(), image::ColorType::Rgba16, "{f}");
        img.to_rgba16().get_pixel(0, 0).0
    };
    assert_eq!(px("deep/pic.png")[0], 48192);
    assert_eq!(px("deep/pic.png")[3], 32768);
    assert_eq!(px("deep/mask.png")[0], 32768);
    // OpenEXR keeps the linear values, whatever the colour space.
    watch("lin", &["--image", "exr"]);
    for f in ["lin/pic.exr", "lin/mask.exr"] {
        let img = image::open(cwd.join(f)).unwrap().to_rgba32f();
        assert_eq!(img.get_pixel(1, 1).0, [0.5, 0.214, 0.0031308, 0.5], "{f}");
    }
    assert!(!cwd.join("lin/pic.png").exists());
}

#[test]
fn studio_asks_for_an_output_folder_with_color() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), GRAPH).unwrap();
    let o = kiln(&["studio", "g.json", "--color", "data", "--port", "0"], cwd);
    assert!(!o.status.success());
    assert!(text(&o).1.contains("--out"), "{:?}", text(&o));
}

#[test]
fn studio_refuses_an_image_format_without_a_folder_or_at_a_depth_it_has_not() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("g.json"), GRAPH).unwrap();
    for args in [&["--image", "exr"][..], &["--depth", "16"]] {
        let mut all = vec!["studio", "g.json", "--port", "0"];
        all.extend_from_slice(args);
        let o = kiln(&all, cwd);
        assert!(!o.status.success());
        assert!(text(&o).1.contains("--out"), "{:?}", text(&o));
    }
    let o = kiln(
        &[
            "studio", "g.json", "--port", "0", "--out", "o", "--depth", "32",
        ],
        cwd,
    );
    assert!(!o.status.success());
    assert!(
        text(&o).1.contains("PNG is written at depth 8 or 16"),
        "{:?}",
        text(&o)
    );
    assert!(!cwd.join("o").exists());
}

#[test]
fn an_image_input_reads_an_untagged_file_as_its_color_says() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    // An untagged PNG (no gAMA, no sRGB chunk) of the code 128.
    image::RgbaImage::from_pixel(2, 2, image::Rgba([128, 128, 128, 255]))
        .save(cwd.join("n.png"))
        .unwrap();
    assert_eq!(
        colour_chunks(&std::fs::read(cwd.join("n.png")).unwrap()),
        (None, false)
    );
    let graph = |color: &str| {
        format!(
            r#"{{"kiln": 1, "inputs": {{"n": {{"type": "image"{color}}}}},
            "nodes": {{"keep": {{"op": "image.gain", "inputs": {{"image": "n"}}}}}},
            "outputs": {{"o": {{"from": "keep.out", "color": "data"}}}}}}"#
        )
    };
    // As data the code is the value: 128 / 255 written back as data is 128. Read as sRGB
    // (the default for an untagged file) it is ((128/255 + 0.055) / 1.055)^2.4 = 0.21586,
    // written back as data round(255 x 0.21586) = 55.
    for (color, want) in [
        ("", 55),
        (r#", "color": "auto""#, 55),
        (r#", "color": "srgb""#, 55),
        (r#", "color": "data""#, 128),
    ] {
        std::fs::write(cwd.join("g.json"), graph(color)).unwrap();
        let _ = std::fs::remove_dir_all(cwd.join("o"));
        go(
            cwd,
            &["run", "g.json", "--set", "n=@n.png", "--out", "o", "-q"],
        );
        assert_eq!(codes(&cwd.join("o/o.png"))[0], want, "{color}");
    }
    // Only an image input has a colour, and only the three names.
    for bad in [
        r#"{"kiln": 1, "inputs": {"x": {"type": "float", "color": "data"}}}"#,
        r#"{"kiln": 1, "inputs": {"n": {"type": "image", "color": "linear"}}}"#,
    ] {
        std::fs::write(cwd.join("bad.json"), bad).unwrap();
        let o = kiln(&["validate", "bad.json"], cwd);
        assert!(!o.status.success(), "{bad}");
        assert!(text(&o).1.contains("color"), "{:?}", text(&o));
    }
}

/// The `gAMA` chunk of a PNG file and whether it has an `sRGB` chunk, read from the file
/// layout (length, type, data, CRC).
fn colour_chunks(png: &[u8]) -> (Option<u32>, bool) {
    let (mut gamma, mut srgb, mut at) = (None, false, 8);
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        match &png[at + 4..at + 8] {
            b"gAMA" => gamma = Some(u32::from_be_bytes(png[at + 8..at + 12].try_into().unwrap())),
            b"sRGB" => srgb = true,
            _ => {}
        }
        at += 12 + len;
    }
    (gamma, srgb)
}

#[test]
fn the_normal_map_examples_write_their_normals_as_data() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    for (example, colour, normal) in [
        ("rust", "rust", "rust_normal"),
        ("stone", "stone", "stone_normal"),
    ] {
        let graph = support::examples().join(format!("{example}.json"));
        go(
            cwd,
            &[
                "run",
                graph.to_str().unwrap(),
                "--out",
                example,
                "-q",
                "--size",
                "32x32",
            ],
        );
        let bytes =
            |name: &str| std::fs::read(cwd.join(example).join(format!("{name}.png"))).unwrap();
        assert_eq!(
            colour_chunks(&bytes(colour)),
            (Some(45_455), true),
            "{colour}"
        );
        assert_eq!(
            colour_chunks(&bytes(normal)),
            (Some(100_000), false),
            "{normal}"
        );
    }
}
