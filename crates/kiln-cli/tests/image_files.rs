//! Image files through `kiln run`: an image input read from a PNG, JPEG or EXR file and keyed
//! by its content; image outputs as 16-bit PNG and OpenEXR by extension and `--depth`.

mod support;

use std::path::Path;
use support::{kiln, text};

const GRAPH: &str = r#"{"kiln": 1,
    "inputs": {"src": {"type": "image"}},
    "nodes": {"inv": {"op": "image.invert", "inputs": {"image": "src.out"}}},
    "outputs": {"flipped": "inv.out"}}"#;

fn run(cwd: &Path, extra: &[&str]) -> (bool, String) {
    let mut args = vec!["run", "invert.json", "-q"];
    args.extend_from_slice(extra);
    let o = kiln(&args, cwd);
    let (out, err) = text(&o);
    (o.status.success(), format!("{out}{err}"))
}

/// A 2 x 1 linear image written as a float EXR by the image crate.
fn write_exr(path: &Path, px: [[f32; 4]; 2]) {
    let img = image::Rgba32FImage::from_fn(2, 1, |x, _| image::Rgba(px[x as usize]));
    image::DynamicImage::ImageRgba32F(img).save(path).unwrap();
}

#[test]
fn an_image_input_is_read_from_a_file_and_keyed_by_its_content() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("invert.json"), GRAPH).unwrap();
    std::fs::create_dir_all(cwd.join("elsewhere")).unwrap();
    let px = [[0.25, 0.5, 2.0, 1.0], [0.0, 1.0, -0.5, 0.5]];
    write_exr(&cwd.join("src.exr"), px);
    std::fs::copy(cwd.join("src.exr"), cwd.join("elsewhere/copy.exr")).unwrap();
    let go = |file: &str, out: &str| {
        let set = format!("src=@{file}");
        let (ok, said) = run(
            cwd,
            &[
                "--out",
                out,
                "--output",
                "flipped.exr",
                "--set",
                &set,
                "--cache",
                "c",
            ],
        );
        assert!(ok, "{said}");
        said
    };
    go("src.exr", "a");
    // The EXR written holds 1 - rgb of the linear values, alpha as it was, as 32-bit floats.
    let back = image::open(cwd.join("a/flipped.exr"))
        .unwrap()
        .into_rgba32f();
    for (x, p) in px.iter().enumerate() {
        let want = [1.0 - p[0], 1.0 - p[1], 1.0 - p[2], p[3]];
        assert_eq!(back.get_pixel(x as u32, 0).0, want);
    }
    // The same content under another path: nothing is cooked again.
    let second = go("elsewhere/copy.exr", "b");
    assert!(second.contains("0 nodes cooked"), "{second}");
    // Changed content: the invert is cooked again.
    write_exr(&cwd.join("elsewhere/copy.exr"), [[0.5; 4], [0.5; 4]]);
    let third = go("elsewhere/copy.exr", "c2");
    assert!(!third.contains("0 nodes cooked"), "{third}");
}

#[test]
fn png16_and_half_exr_outputs_follow_the_depth() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("invert.json"), GRAPH).unwrap();
    write_exr(
        &cwd.join("src.exr"),
        [[0.75, 0.5, 0.0, 1.0], [1.0, 0.9, 0.2, 0.25]],
    );
    let (ok, said) = run(
        cwd,
        &[
            "--out",
            "o",
            "--depth",
            "16",
            "--output",
            "flipped.png",
            "--output",
            "flipped.exr",
            "--set",
            "src=@src.exr",
        ],
    );
    assert!(ok, "{said}");
    let png = image::open(cwd.join("o/flipped.png")).unwrap();
    assert_eq!(png.color(), image::ColorType::Rgba16);
    // 1 - 0.75 = 0.25 linear: sRGB 1.055·0.25^(1/2.4) − 0.055, as a 16-bit code.
    let code = ((1.055 * 0.25f64.powf(1.0 / 2.4) - 0.055) * 65535.0).round() as u16;
    assert_eq!(png.into_rgba16().get_pixel(0, 0).0[0], code);
    let exr = image::open(cwd.join("o/flipped.exr"))
        .unwrap()
        .into_rgba32f();
    assert_eq!(exr.get_pixel(1, 0).0[3], 0.25);
    // A depth PNG has not is refused, naming the output.
    let (ok, said) = run(
        cwd,
        &[
            "--out",
            "p",
            "--depth",
            "32",
            "--output",
            "flipped.png",
            "--set",
            "src=@src.exr",
        ],
    );
    assert!(
        !ok && said.contains("flipped.png") && said.contains("depth 8 or 16"),
        "{said}"
    );
}

#[test]
fn a_missing_or_corrupt_image_file_is_an_error_naming_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("invert.json"), GRAPH).unwrap();
    let (ok, said) = run(cwd, &["--out", "o", "--set", "src=@nope.png"]);
    assert!(
        !ok && said.contains("`src` (image)") && said.contains("nope.png"),
        "{said}"
    );
    std::fs::write(cwd.join("bad.jpg"), b"\xff\xd8\xff\xe0 truncated").unwrap();
    let (ok, said) = run(cwd, &["--out", "o", "--set", "src=@bad.jpg"]);
    assert!(
        !ok && said.contains("`src` (image)") && said.contains("bad.jpg"),
        "{said}"
    );
    assert!(!cwd.join("o").exists());
}
