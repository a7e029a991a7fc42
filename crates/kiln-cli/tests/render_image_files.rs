//! Image frames of `kiln render` as OpenEXR and 16-bit PNG, asked by extension and
//! `--depth` as `kiln run` asks them, recorded in the render's manifest and resumed.

mod support;

use std::path::Path;
use support::{kiln, text};

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn render(out: &Path, extra: &[&str]) -> (bool, String) {
    let graph = examples().join("trails.json");
    let mut args = vec![
        "render",
        graph.to_str().unwrap(),
        "--ticks",
        "3",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = kiln(&args, out.parent().unwrap());
    let (so, se) = text(&o);
    (o.status.success(), format!("{so}{se}"))
}

fn exr(path: &Path) -> Vec<[f32; 4]> {
    let img = image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_rgba32f();
    img.pixels().map(|p| p.0).collect()
}

/// The sRGB transfer function (IEC 61966-2-1), to 16-bit codes.
fn srgb16(v: f32) -> f64 {
    let v = v.clamp(0.0, 1.0) as f64;
    let e = if v <= 0.0031308 {
        12.92 * v
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    };
    e * 65535.0
}

#[test]
fn frames_are_half_exr_and_16_bit_png_at_depth_16_and_float_exr_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("deep");
    let (ok, msg) = render(
        &deep,
        &[
            "--output",
            "trails.exr",
            "--output",
            "trails.png",
            "--depth",
            "16",
        ],
    );
    assert!(ok, "{msg}");
    for t in ["000", "001", "002"] {
        assert!(deep.join(format!("trails_{t}.exr")).is_file(), "{msg}");
        assert!(deep.join(format!("trails_{t}.png")).is_file(), "{msg}");
    }
    let manifest = std::fs::read_to_string(deep.join("kiln-render.json")).unwrap();
    assert!(manifest.contains("trails_{tick}.exr"), "{manifest}");
    assert!(manifest.contains("trails_{tick}.png"), "{manifest}");
    // The PNG is 16 bits a channel, its colour the sRGB codes of the EXR's linear values
    // (within what rounding to half floats moves them).
    let png = image::open(deep.join("trails_002.png")).unwrap();
    assert_eq!(png.color(), image::ColorType::Rgba16);
    let png = png.into_rgba16();
    let half = exr(&deep.join("trails_002.exr"));
    assert_eq!(half.len(), (png.width() * png.height()) as usize);
    let mut lit = 0;
    for (p, h) in png.pixels().zip(&half) {
        for (&code, &linear) in p.0.iter().zip(h).take(3) {
            let want = srgb16(linear);
            assert!(
                (code as f64 - want).abs() <= 65535.0 / 1024.0,
                "code {code} for linear {linear}"
            );
        }
        lit += (h[0] > 0.05) as usize;
    }
    assert!(lit > 0, "the trails frame is dark everywhere");
    // Without --depth an .exr frame holds 32-bit floats: the same values to within half
    // precision, and finer than half can say in some pixel.
    let float = dir.path().join("float");
    let (ok, msg) = render(&float, &["--output", "trails.exr"]);
    assert!(ok, "{msg}");
    assert!(!float.join("trails_000.png").exists());
    let full = exr(&float.join("trails_002.exr"));
    let mut finer = 0;
    for (f, h) in full.iter().zip(&half) {
        for (&a, &b) in f.iter().zip(h) {
            assert!((a - b).abs() <= a.abs() / 1024.0 + 1e-7, "{f:?} {h:?}");
            finer += (a != b) as usize;
        }
    }
    assert!(finer > 0, "the float frame is no finer than the half one");
    // Asking again with --resume finds every tick whole; asking for other files is
    // another render.
    let (ok, msg) = render(
        &deep,
        &[
            "--output",
            "trails.exr",
            "--output",
            "trails.png",
            "--depth",
            "16",
            "--resume",
        ],
    );
    assert!(ok && msg.contains("already whole"), "{msg}");
    let (ok, msg) = render(&deep, &["--output", "trails.exr", "--resume"]);
    assert!(!ok && msg.contains("other settings"), "{msg}");
    // PNG has no 32-bit form.
    let (ok, msg) = render(&dir.path().join("bad"), &["--depth", "32"]);
    assert!(
        !ok && msg.contains("PNG is written at depth 8 or 16"),
        "{msg}"
    );
}
