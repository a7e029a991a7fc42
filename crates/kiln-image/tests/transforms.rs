//! Transforms against points computed by hand: a whole-pixel move is the image rolled, a
//! half turn is the image upside down and back to front, mirroring copies one half.

use kiln_core::prelude::*;
use kiln_image::image::Image;

/// A 6 x 4 image whose pixel (x, y) is px / 8 + py / 16 in r, g and b.
fn ramp_graph() -> Graph {
    let mut g = Graph::new();
    g.add_node("src", "image.expr").unwrap();
    g.set_param("src", "width", 6i64).unwrap();
    g.set_param("src", "height", 4i64).unwrap();
    g.set_param("src", "formula", "px / 8 + py / 16").unwrap();
    g
}

fn run(g: &Graph, id: &str) -> Image {
    let reg = kiln_image::registry();
    assert!(validate(g, &reg).is_empty(), "{:?}", validate(g, &reg));
    let mut ev = LazyEvaluator::new(reg);
    let out = ev
        .evaluate(g, &Request::new([id]), &EvalContext::new())
        .unwrap();
    out.get(id)
        .and_then(|v| v.as_heavy::<Image>())
        .unwrap()
        .clone()
}

fn with(op: &str, consts: &[(&str, Value)], params: &[(&str, Value)]) -> (Image, Image) {
    let mut g = ramp_graph();
    g.add_node("t", op).unwrap();
    for (k, v) in consts {
        g.set_const("t", k, v.clone()).unwrap();
    }
    for (k, v) in params {
        g.set_param("t", k, v.clone()).unwrap();
    }
    g.wire("src.out", "t.image");
    (run(&g, "src"), run(&g, "t"))
}

fn close(a: f32, b: f32, what: &str) {
    assert!((a - b).abs() < 1e-5, "{what}: {a} vs {b}");
}

#[test]
fn a_whole_pixel_move_rolls_the_image() {
    // Two pixels right of six, one down of four: (x, y) reads (x - 2, y - 1), wrapped.
    let (src, out) = with(
        "image.transform",
        &[("translate", Value::Vec2([2.0 / 6.0, 0.25]))],
        &[],
    );
    for y in 0..4u32 {
        for x in 0..6u32 {
            let s = src.get((x + 4) % 6, (y + 3) % 4);
            for (got, want) in out.get(x, y).into_iter().zip(s) {
                close(got, want, "roll");
            }
        }
    }
}

#[test]
fn a_half_turn_is_the_image_upside_down() {
    let (src, out) = with("image.transform", &[("angle", Value::Float(180.0))], &[]);
    for y in 0..4u32 {
        for x in 0..6u32 {
            close(out.get(x, y)[0], src.get(5 - x, 3 - y)[0], "half turn");
        }
    }
    // Repeat 2: the left half of the output is the whole image at half size, so pixel
    // (1, 0) reads between source pixels 2 and 3 of row 0 or 1 (bilinear at their edge).
    let (_, rep) = with("image.transform", &[], &[("repeat", Value::Int(2))]);
    close(rep.get(0, 0)[0], rep.get(3, 0)[0], "repeat");
}

#[test]
fn mirror_copies_the_left_half() {
    let (src, out) = with("image.mirror", &[], &[("axis", Value::str("x"))]);
    for y in 0..4u32 {
        for x in 0..3u32 {
            close(out.get(x, y)[0], src.get(x, y)[0], "kept half");
            close(out.get(5 - x, y)[0], src.get(x, y)[0], "mirrored half");
        }
    }
}

/// A sample past the `i64` pixels (a warp or transform sent to 1e30) reads the edge it is
/// beyond, with clamped edges, and never overflows.
#[test]
fn a_bilinear_sample_past_i64_reads_the_edge_without_overflow() {
    use kiln_image::filters::{Edges, bilinear};
    let img = Image {
        width: 3,
        height: 2,
        pixels: (0..6).map(|i| [i as f32, 0.0, 0.0, 1.0]).collect(),
    };
    // Right edge of row 1 (pixel 5), and the left edge of row 0 (pixel 0).
    assert_eq!(bilinear(&img, 1e30, 1e30, Edges::Clamp)[0], 5.0);
    assert_eq!(bilinear(&img, -1e30, -1e30, Edges::Clamp)[0], 0.0);
    assert!(bilinear(&img, 1e30, -1e30, Edges::Wrap)[0].is_finite());
}
