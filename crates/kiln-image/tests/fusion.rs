//! Fusion and parallel rendering: a chain of per-pixel nodes fused into one `image.fused`
//! node gives the same bits as the nodes run one by one, and every image is the same for
//! one thread and for several.

use kiln_core::prelude::*;
use kiln_image::fuse::fuse;
use kiln_image::image::Image;

fn image_of(out: &kiln_core::eval::Outputs, id: &str) -> Image {
    out.get(id)
        .and_then(|v| v.as_heavy::<Image>())
        .expect("an image")
        .clone()
}

fn run(g: &Graph, id: &str) -> (Image, u64) {
    let mut ev = LazyEvaluator::new(kiln_image::registry());
    let ctx = EvalContext::new();
    let out = ev.evaluate(g, &Request::new([id]), &ctx).unwrap();
    (image_of(&out, id), out.stats.executed)
}

fn bits(img: &Image) -> Vec<u32> {
    img.pixels
        .as_flattened()
        .iter()
        .map(|c| c.to_bits())
        .collect()
}

/// Assert two images are the same bits, naming the first pixel that differs.
fn same(a: &Image, b: &Image) {
    assert_eq!((a.width, a.height), (b.width, b.height));
    let (x, y) = (bits(a), bits(b));
    if let Some(i) = (0..x.len()).find(|&i| x[i] != y[i]) {
        panic!(
            "pixel {} channel {}: {:?} vs {:?}",
            i / 4,
            i % 4,
            a.pixels[i / 4],
            b.pixels[i / 4]
        );
    }
}

/// fBm noise → gain → clamp → ramp, beside a second noise mixed in and a rectangle painted.
fn chain() -> Graph {
    let mut g = Graph::new();
    for (id, seed) in [("n1", 1i64), ("n2", 2)] {
        g.add_node(id, "image.noise").unwrap();
        g.set_param(id, "width", 37i64).unwrap();
        g.set_param(id, "height", 21i64).unwrap();
        g.set_param(id, "seed", seed).unwrap();
        g.set_const(id, "octaves", 4i64).unwrap();
    }
    g.add_node("gain", "image.gain").unwrap();
    g.set_const("gain", "gain", 1.7).unwrap();
    g.set_const("gain", "bias", -0.3).unwrap();
    g.wire("n1.out", "gain.image");
    g.add_node("clamp", "image.clamp").unwrap();
    g.wire("gain.out", "clamp.image");
    g.add_node("mix", "image.mix").unwrap();
    g.set_const("mix", "t", 0.3).unwrap();
    g.wire("clamp.out", "mix.a");
    g.wire("n2.out", "mix.b");
    g.add_node("inv", "image.invert").unwrap();
    g.wire("mix.out", "inv.image");
    g.add_node("rect", "image.rect").unwrap();
    g.wire("inv.out", "rect.image");
    g.add_node("ramp", "image.ramp").unwrap();
    g.wire("rect.out", "ramp.image");
    g
}

#[test]
fn a_fused_chain_gives_the_same_bits_in_one_node() {
    let g = chain();
    let reg = kiln_image::registry();
    let (fused, report) = fuse(&g, &reg, &["ramp"]);
    assert!(
        validate(&fused, &reg).is_empty(),
        "{:?}",
        validate(&fused, &reg)
    );
    assert_eq!(report.groups.len(), 1, "{report:?}");
    let (root, members) = &report.groups[0];
    assert_eq!(root, "ramp");
    assert_eq!(members.len(), 8, "{members:?}");
    assert_eq!(fused.len(), 1);
    let (a, executed_unfused) = run(&g, "ramp");
    let (b, executed_fused) = run(&fused, "ramp");
    same(&a, &b);
    assert_eq!((executed_unfused, executed_fused), (8, 1));
}

#[test]
fn kept_nodes_and_shared_images_stay_apart() {
    let g = chain();
    let reg = kiln_image::registry();
    // Keeping `clamp` (an output asked for) ends a group there.
    let (fused, report) = fuse(&g, &reg, &["ramp", "clamp"]);
    assert!(fused.node("clamp").is_some());
    assert_eq!(report.groups.len(), 2, "{report:?}");
    let (a, _) = run(&g, "ramp");
    let (b, _) = run(&fused, "ramp");
    same(&a, &b);
    // An image read twice is made once: `n1` read by gain and by a second gain stays.
    let mut g2 = chain();
    g2.add_node("other", "image.gain").unwrap();
    g2.wire("n1.out", "other.image");
    let (fused2, _) = fuse(&g2, &reg, &["ramp", "other"]);
    assert!(fused2.node("n1").is_some());
    let (c, _) = run(&fused2, "ramp");
    same(&a, &c);
}

#[test]
fn formulas_fuse_with_the_ops_around_them() {
    let mut g = chain();
    g.add_node("e", "image.expr").unwrap();
    g.set_param("e", "formula", "a * 0.5 + 0.25 * sin(x * 6)")
        .unwrap();
    g.wire("ramp.out", "e.a");
    let reg = kiln_image::registry();
    let (fused, report) = fuse(&g, &reg, &["e"]);
    assert_eq!(report.groups[0].0, "e");
    let (a, _) = run(&g, "e");
    let (b, _) = run(&fused, "e");
    same(&a, &b);
}

#[test]
fn one_thread_and_several_give_the_same_bits() {
    let mut g = chain();
    for id in ["n1", "n2"] {
        g.set_param(id, "width", 300i64).unwrap();
        g.set_param(id, "height", 97i64).unwrap();
    }
    g.add_node("blur", "image.blur").unwrap();
    g.wire("ramp.out", "blur.image");
    let render = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let (img, _) = run(&g, "blur");
            bits(&img)
        })
    };
    let one = render(1);
    assert_eq!(one, render(2));
    assert_eq!(one, render(5));
}

#[test]
fn a_ten_op_chain_is_one_node_and_one_image() {
    // noise, then ten per-pixel ops: fused, one node runs and one image is made (the
    // unfused graph makes eleven).
    let mut g = Graph::new();
    g.add_node("n0", "image.noise").unwrap();
    g.set_param("n0", "width", 33i64).unwrap();
    g.set_param("n0", "height", 9i64).unwrap();
    let ops = [
        "image.gain",
        "image.invert",
        "image.clamp",
        "image.gain",
        "image.ramp",
        "image.invert",
        "image.rect",
        "image.clamp",
        "image.expr",
        "image.gain",
    ];
    for (i, op) in ops.iter().enumerate() {
        let id = format!("n{}", i + 1);
        g.add_node(id.as_str(), op).unwrap();
        let port = if *op == "image.expr" { "a" } else { "image" };
        g.wire(&format!("n{i}.out"), &format!("{id}.{port}"));
    }
    let reg = kiln_image::registry();
    let (fused, report) = fuse(&g, &reg, &["n10"]);
    assert_eq!(fused.len(), 1);
    assert_eq!(report.groups[0].1.len(), 11);
    let (a, ran_unfused) = run(&g, "n10");
    let (b, ran_fused) = run(&fused, "n10");
    same(&a, &b);
    assert_eq!((ran_unfused, ran_fused), (11, 1));
}
