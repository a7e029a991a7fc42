//! Every op of this crate that makes an image checks the image pixel limit
//! (`kiln_image::image::MAX_PIXELS`, 2^26) before it allocates: a grid may hold up to 2^28
//! cells, more than an image may hold pixels.

use kiln_core::prelude::*;
use kiln_image::image::MAX_PIXELS;
use kiln_sim::Grid;

/// `const` (a grid of `w` x `h` zeros) → `sim.view`.
fn view_of(w: u32, h: u32) -> Graph {
    // Zeroed pages: a large grid costs address space, not memory, until written.
    let data = vec![0.0f32; w as usize * h as usize];
    let grid = Grid::from_data(w, h, 1, data).unwrap();
    let mut g = Graph::new();
    g.add_node("grid", "const").unwrap();
    g.set_param("grid", "value", grid.into_value()).unwrap();
    g.add_node("view", "sim.view").unwrap();
    g.wire("grid.out", "view.grid");
    g
}

#[test]
fn a_view_over_the_pixel_limit_is_refused_naming_the_limit() {
    let g = view_of(16384, 8192);
    let mut eval = LazyEvaluator::new(kiln_sim::registry());
    let e = eval
        .evaluate(&g, &Request::new(["view"]), &EvalContext::new())
        .expect_err("a 16384 x 8192 view is over the limit");
    let text = e.to_string();
    assert!(text.contains(&MAX_PIXELS.to_string()), "{text}");
    assert!(text.contains("16384 x 8192"), "{text}");
    assert!(text.contains("view"), "{text}");
}

#[test]
fn a_view_at_the_pixel_limit_is_made() {
    let g = view_of(8, 4);
    let mut eval = LazyEvaluator::new(kiln_sim::registry());
    let out = eval
        .evaluate(&g, &Request::new(["view"]), &EvalContext::new())
        .unwrap();
    let img = out
        .get("view")
        .unwrap()
        .as_heavy::<kiln_image::image::Image>()
        .unwrap();
    assert_eq!((img.width, img.height), (8, 4));
}

#[test]
fn image_sizes_over_the_pixel_limit_are_refused_by_validation_and_by_running() {
    // The ops that make an image of their `width` x `height` params.
    let reg = kiln_sim::registry();
    for op in [
        "sim.particles.splat",
        "sim.cloth.view",
        "sim.rigid.view",
        "sim.tree.view",
        "sim.wfc.overlap",
    ] {
        let spec = reg.get(op).unwrap_or_else(|| panic!("{op}")).spec();
        assert_eq!(spec.params[0].name, "width", "{op}");
        let mut g = Graph::new();
        g.add_node("n", op).unwrap();
        g.set_param("n", "width", 16384i64).unwrap();
        g.set_param("n", "height", 8192i64).unwrap();
        let found = validate(&g, &reg);
        assert!(
            found
                .iter()
                .any(|d| d.to_string().contains(&MAX_PIXELS.to_string())),
            "{op}: {found:?}"
        );
    }
}
