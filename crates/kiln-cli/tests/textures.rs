//! The texture examples (stone, wood, rusted metal, bricks, veined marble) tile: each output's right edge runs on
//! into its left edge and its bottom into its top as smoothly as its neighbouring pixels
//! run into each other. Through the `kiln` command, `--size` sets their size and `--fuse`
//! writes the same bytes.

mod support;

use kiln_core::prelude::*;
use kiln_image::image::Image;
use support::{examples, files_in, kiln, text};

const TEXTURES: [&str; 5] = [
    "stone.json",
    "wood.json",
    "rust.json",
    "bricks.json",
    "veined_marble.json",
];

fn registry() -> Registry {
    kiln_image::registry()
}

/// The output images of a texture example at `size`.
fn outputs(name: &str, size: (u32, u32)) -> Vec<(String, Image)> {
    let reg = registry();
    let file = kiln_doc::read_graph(&examples().join(name), &reg).unwrap();
    let g = file.graph;
    let ids: Vec<String> = g
        .nodes()
        .iter()
        .filter(|n| n.op == "output")
        .map(|n| n.id.to_string())
        .collect();
    let mut ctx = EvalContext::new();
    ctx.resolution = Some(size);
    let mut ev = LazyEvaluator::new(reg);
    let out = ev
        .evaluate(&g, &Request::new(ids.iter().cloned()), &ctx)
        .unwrap();
    ids.iter()
        .map(|id| {
            let img = out
                .get(id)
                .and_then(|v| v.as_heavy::<Image>())
                .unwrap()
                .clone();
            (id.clone(), img)
        })
        .collect()
}

/// The mean colour difference of pixel pairs.
fn mean_step(pairs: impl Iterator<Item = ([f32; 4], [f32; 4])>) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for (p, q) in pairs {
        sum += (0..3).map(|c| (p[c] - q[c]).abs() as f64).sum::<f64>();
        n += 1;
    }
    sum / n as f64
}

#[test]
fn textures_tile_seamlessly() {
    for name in TEXTURES {
        for (id, img) in outputs(name, (96, 64)) {
            assert_eq!((img.width, img.height), (96, 64), "{name} {id}");
            let (w, h) = (img.width, img.height);
            let inside_x = mean_step(
                (0..h)
                    .flat_map(|y| (0..w - 1).map(move |x| (x, y)))
                    .map(|(x, y)| (img.get(x, y), img.get(x + 1, y))),
            );
            let seam_x = mean_step((0..h).map(|y| (img.get(w - 1, y), img.get(0, y))));
            let inside_y = mean_step(
                (0..h - 1)
                    .flat_map(|y| (0..w).map(move |x| (x, y)))
                    .map(|(x, y)| (img.get(x, y), img.get(x, y + 1))),
            );
            let seam_y = mean_step((0..w).map(|x| (img.get(x, h - 1), img.get(x, 0))));
            assert!(inside_x > 0.0 && inside_y > 0.0, "{name} {id} is flat");
            assert!(
                seam_x < 2.5 * inside_x,
                "{name} {id}: seam {seam_x} vs {inside_x}"
            );
            assert!(
                seam_y < 2.5 * inside_y,
                "{name} {id}: seam {seam_y} vs {inside_y}"
            );
        }
    }
}

#[test]
fn size_and_fuse_from_the_command_line() {
    for name in TEXTURES {
        let dir = tempfile::tempdir().unwrap();
        let p = examples().join(name);
        let p = p.to_str().unwrap();
        let plain = kiln(
            &["run", p, "--out", "plain", "-q", "--size", "40x24"],
            dir.path(),
        );
        assert!(plain.status.success(), "{:?}", text(&plain));
        let fused = kiln(
            &[
                "run", p, "--out", "fused", "-q", "--size", "40x24", "--fuse", "--stats",
            ],
            dir.path(),
        );
        assert!(fused.status.success(), "{:?}", text(&fused));
        let a = files_in(&dir.path().join("plain"));
        assert_eq!(a, files_in(&dir.path().join("fused")), "{name}");
        for (file, bytes) in &a {
            let img = image::load_from_memory(bytes).unwrap();
            assert_eq!((img.width(), img.height()), (40, 24), "{name} {file}");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let p = examples().join("wood.json");
    let bad = kiln(
        &["run", p.to_str().unwrap(), "--size", "40", "-q"],
        dir.path(),
    );
    assert_eq!(bad.status.code(), Some(2));
}
