//! The image nodes (noise, per-pixel maths) driven through real graphs and the lazy
//! evaluator; the ramps are in `ramp_nodes.rs`.

use kiln_core::context::{EvalContext, Progress};
use kiln_core::eval::{EvalError, Evaluator, LazyEvaluator, Request};
use kiln_core::graph::Graph;
use kiln_core::key::Key;
use kiln_core::value::Value;
use kiln_image::image::Image;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};

fn evaluator() -> LazyEvaluator {
    LazyEvaluator::new(kiln_image::registry())
}

fn eval_with(
    ev: &mut LazyEvaluator,
    g: &Graph,
    node: &str,
    ctx: &EvalContext,
) -> Result<Value, EvalError> {
    let out = ev.evaluate(g, &Request::new([node]), ctx)?;
    Ok(out.get(node).expect("requested output").clone())
}

fn eval(g: &Graph, node: &str) -> Result<Value, EvalError> {
    eval_with(&mut evaluator(), g, node, &EvalContext::new())
}

fn image(v: &Value) -> &Image {
    v.as_heavy::<Image>()
        .unwrap_or_else(|| panic!("expected an image, got {v:?}"))
}

/// The port and message of a node error.
fn node_error(r: Result<Value, EvalError>) -> (Option<String>, String) {
    match r {
        Err(EvalError::Node { port, message, .. }) => (port, message),
        other => panic!("expected a node error, got {other:?}"),
    }
}

fn noise_graph(w: i64, h: i64, seed: i64) -> Graph {
    let mut g = Graph::new();
    g.add_node("n", "image.noise").unwrap();
    g.set_param("n", "width", w).unwrap();
    g.set_param("n", "height", h).unwrap();
    g.set_param("n", "seed", seed).unwrap();
    g
}

fn noise_hash(g: &Graph, ctx: &EvalContext) -> Key {
    eval_with(&mut evaluator(), g, "n", ctx)
        .unwrap()
        .content_hash()
}

fn fill(g: &mut Graph, id: &str, w: i64, h: i64, c: [f32; 4]) {
    g.add_node(id, "image.fill").unwrap();
    g.set_param(id, "width", w).unwrap();
    g.set_param(id, "height", h).unwrap();
    g.set_const(id, "color", Value::Color(c)).unwrap();
}

// ---------------------------------------------------------------------------------------------
// image.noise / noise.perlin

#[test]
fn noise_is_deterministic_and_seeded() {
    let ctx = EvalContext::new();
    let a = noise_hash(&noise_graph(64, 64, 5), &ctx);
    // A fresh evaluator (no shared cache) rebuilds the same content.
    assert_eq!(a, noise_hash(&noise_graph(64, 64, 5), &ctx));
    // Another seed param gives another image.
    assert_ne!(a, noise_hash(&noise_graph(64, 64, 6), &ctx));
    // So does another context seed, through the same evaluator (the key reads the seed).
    let g = noise_graph(64, 64, 5);
    let mut ev = evaluator();
    let v0 = eval_with(&mut ev, &g, "n", &ctx).unwrap();
    let mut ctx1 = EvalContext::new();
    ctx1.seed = 1;
    let v1 = eval_with(&mut ev, &g, "n", &ctx1).unwrap();
    assert_eq!(v0.content_hash(), a);
    assert_ne!(v0.content_hash(), v1.content_hash());
    // And back to seed 0 gives the first image again.
    assert_eq!(eval_with(&mut ev, &g, "n", &ctx).unwrap().content_hash(), a);
}

#[test]
fn noise_values_are_grey_in_range_and_spread() {
    let v = eval(&noise_graph(128, 96, 11), "n").unwrap();
    let img = image(&v);
    assert_eq!((img.width, img.height), (128, 96));
    assert_eq!(img.pixels.len(), 128 * 96);
    let mut sum = 0.0f64;
    let mut sq = 0.0f64;
    for p in &img.pixels {
        assert!((0.0..=1.0).contains(&p[0]), "grey {} out of range", p[0]);
        assert_eq!(p[0], p[1]);
        assert_eq!(p[0], p[2]);
        assert_eq!(p[3], 1.0);
        sum += p[0] as f64;
        sq += (p[0] as f64) * (p[0] as f64);
    }
    let n = img.pixels.len() as f64;
    let mean = sum / n;
    let std = (sq / n - mean * mean).sqrt();
    assert!((mean - 0.5).abs() < 0.1, "mean {mean}");
    assert!(std > 0.04, "std {std}");
    // Coherent: neighbouring pixels are much closer than the overall spread.
    let mut step = 0.0f64;
    for y in 0..img.height {
        for x in 1..img.width {
            step += (img.get(x, y)[0] - img.get(x - 1, y)[0]).abs() as f64;
        }
    }
    let mean_step = step / ((img.width - 1) * img.height) as f64;
    assert!(mean_step < std / 2.0, "mean step {mean_step}, std {std}");
}

#[test]
fn perlin_matches_image_pixels() {
    // Pixel (x, y) samples p = offset + (x + 0.5, y + 0.5) * scale / width, and its grey level
    // is clamp(n * 0.5 + 0.5, 0, 1).
    let (w, h, scale, offset, seed) = (64i64, 48i64, 3.0f64, [1.25f64, -2.5f64], 7i64);
    let mut g = noise_graph(w, h, seed);
    g.set_const("n", "octaves", 3i64).unwrap();
    g.set_param("n", "gain", 0.6).unwrap();
    g.set_const("n", "scale", scale).unwrap();
    g.set_const("n", "offset", Value::Vec2(offset)).unwrap();
    let pixels = [(0u32, 0u32), (10, 5), (63, 47), (31, 20)];
    let mut names = vec!["n".to_string()];
    for (i, &(x, y)) in pixels.iter().enumerate() {
        let id = format!("p{i}");
        g.add_node(id.as_str(), "noise.perlin").unwrap();
        g.set_param(&id, "seed", seed).unwrap();
        g.set_const(&id, "octaves", 3i64).unwrap();
        g.set_param(&id, "gain", 0.6).unwrap();
        let p = [
            offset[0] + (x as f64 + 0.5) * scale / w as f64,
            offset[1] + (y as f64 + 0.5) * scale / w as f64,
        ];
        g.set_const(&id, "p", Value::Vec2(p)).unwrap();
        names.push(id);
    }
    // A non-zero context seed: both ops mix it in the same way.
    let mut ctx = EvalContext::new();
    ctx.seed = 99;
    let out = evaluator()
        .evaluate(&g, &Request::new(names.clone()), &ctx)
        .unwrap();
    let img = image(out.get("n").unwrap());
    for (i, &(x, y)) in pixels.iter().enumerate() {
        let n = out.get(&names[i + 1]).unwrap().as_f64().unwrap();
        assert!((-1.0..=1.0).contains(&n));
        let grey = (n * 0.5 + 0.5).clamp(0.0, 1.0) as f32;
        assert_eq!(img.get(x, y)[0], grey, "pixel ({x}, {y})");
    }
    // A different seed on the point op gives a different value somewhere.
    g.set_param("p1", "seed", seed + 1).unwrap();
    let other = evaluator()
        .evaluate(&g, &Request::new(["p1"]), &ctx)
        .unwrap();
    assert_ne!(
        other.get("p1").unwrap().as_f64().unwrap(),
        out.get("p1").unwrap().as_f64().unwrap()
    );
}

#[test]
fn noise_inputs_can_be_driven_by_graph_inputs() {
    let mut g = noise_graph(32, 32, 0);
    g.add_node("s", "input.float").unwrap();
    g.set_param("s", "name", "scale").unwrap();
    g.set_param("s", "default", 4.0).unwrap();
    g.wire("s.out", "n.scale");
    let mut ev = evaluator();
    let base = eval_with(&mut ev, &g, "n", &EvalContext::new()).unwrap();
    // The default matches an unwired node with the default scale.
    assert_eq!(
        base.content_hash(),
        eval(&noise_graph(32, 32, 0), "n").unwrap().content_hash()
    );
    let zoomed = eval_with(
        &mut ev,
        &g,
        "n",
        &EvalContext::new().with_input("scale", 8.0),
    )
    .unwrap();
    assert_ne!(base.content_hash(), zoomed.content_hash());
    // A bad supplied scale is reported against input `scale`.
    let bad = eval_with(
        &mut ev,
        &g,
        "n",
        &EvalContext::new().with_input("scale", -1.0),
    );
    let (port, msg) = node_error(bad);
    assert_eq!(port.as_deref(), Some("input `scale`"), "{msg}");
}

#[test]
fn bad_noise_params_name_the_param() {
    let (port, msg) = node_error(eval(&noise_graph(0, 64, 0), "n"));
    assert_eq!(port.as_deref(), Some("param `width`"), "{msg}");
    let (port, _) = node_error(eval(&noise_graph(64, 100_000, 0), "n"));
    assert_eq!(port.as_deref(), Some("param `height`"));
    let mut g = noise_graph(8, 8, 0);
    g.set_const("n", "octaves", 17i64).unwrap();
    let (port, _) = node_error(eval(&g, "n"));
    assert_eq!(port.as_deref(), Some("input `octaves`"));
    let mut g = noise_graph(8, 8, 0);
    g.set_param("n", "lacunarity", f64::INFINITY).unwrap();
    let (port, _) = node_error(eval(&g, "n"));
    assert_eq!(port.as_deref(), Some("param `lacunarity`"));
}

#[test]
fn cancelled_context_gives_cancelled() {
    let g = noise_graph(64, 64, 0);
    let ctx = EvalContext::new();
    ctx.cancel.cancel();
    let mut ev = evaluator();
    assert_eq!(eval_with(&mut ev, &g, "n", &ctx), Err(EvalError::Cancelled));
    assert_eq!(ev.cache_len(), 0);
}

#[test]
fn cancel_from_another_thread_during_a_big_noise_image() {
    let g = noise_graph(4096, 4096, 3);
    let mut ev = evaluator();
    let cached_before = ev.cache_len();

    // On the first in-node progress report, the sink asks another thread to cancel and waits
    // until it has, so the op must notice the token at its next row.
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let mut ctx = EvalContext::new();
    let token = ctx.cancel.clone();
    let canceller = std::thread::spawn(move || {
        go_rx.recv().unwrap();
        token.cancel();
        done_tx.send(()).unwrap();
    });
    let fractions = Arc::new(Mutex::new(Vec::<f32>::new()));
    let go = Mutex::new(Some(go_tx));
    let done = Mutex::new(done_rx);
    let seen = fractions.clone();
    ctx.progress = Some(Arc::new(move |p: &Progress<'_>| {
        if let Some(f) = p.node_fraction {
            assert_eq!(p.node, Some("n"));
            seen.lock().unwrap().push(f);
            if let Some(tx) = go.lock().unwrap().take() {
                tx.send(()).unwrap();
                done.lock().unwrap().recv().unwrap();
            }
        }
    }));
    let r = eval_with(&mut ev, &g, "n", &ctx);
    canceller.join().unwrap();
    assert_eq!(r, Err(EvalError::Cancelled));
    // Exactly one report (row 0): the op stopped within the next row, long before row 16.
    assert_eq!(*fractions.lock().unwrap(), vec![0.0]);
    assert_eq!(
        ev.cache_len(),
        cached_before,
        "a cancelled result was cached"
    );

    // Evaluating again executes the node again (it reports progress from inside the op
    // instead of hitting the memo); cancel it at once from the sink this time.
    let mut ctx2 = EvalContext::new();
    let token2 = ctx2.cancel.clone();
    let reports = Arc::new(AtomicUsize::new(0));
    let r2 = reports.clone();
    ctx2.progress = Some(Arc::new(move |p: &Progress<'_>| {
        if p.node_fraction.is_some() {
            r2.fetch_add(1, Ordering::SeqCst);
            token2.cancel();
        }
    }));
    assert_eq!(
        eval_with(&mut ev, &g, "n", &ctx2),
        Err(EvalError::Cancelled)
    );
    assert_eq!(reports.load(Ordering::SeqCst), 1);
    assert_eq!(ev.cache_len(), cached_before);
}

#[test]
fn progress_is_reported_every_16_rows() {
    let g = noise_graph(8, 40, 0);
    let mut ctx = EvalContext::new();
    let fractions = Arc::new(Mutex::new(Vec::<f32>::new()));
    let seen = fractions.clone();
    ctx.progress = Some(Arc::new(move |p: &Progress<'_>| {
        if let Some(f) = p.node_fraction {
            seen.lock().unwrap().push(f);
        }
    }));
    eval_with(&mut evaluator(), &g, "n", &ctx).unwrap();
    assert_eq!(
        *fractions.lock().unwrap(),
        vec![0.0, 16.0 / 40.0, 32.0 / 40.0]
    );
}

// ---------------------------------------------------------------------------------------------
// Per-pixel maths

const A: [f32; 4] = [0.25, 0.5, 0.75, 1.0];
const B: [f32; 4] = [0.5, 0.25, 1.0, 0.5];

fn binary(op: &str, setup: impl FnOnce(&mut Graph)) -> Result<Value, EvalError> {
    let mut g = Graph::new();
    fill(&mut g, "a", 5, 4, A);
    fill(&mut g, "b", 5, 4, B);
    g.add_node("op", op).unwrap();
    g.wire("a.out", "op.a");
    g.wire("b.out", "op.b");
    setup(&mut g);
    eval(&g, "op")
}

fn unary(op: &str, c: [f32; 4], setup: impl FnOnce(&mut Graph)) -> Result<Value, EvalError> {
    let mut g = Graph::new();
    fill(&mut g, "a", 5, 4, c);
    g.add_node("op", op).unwrap();
    g.wire("a.out", "op.image");
    setup(&mut g);
    eval(&g, "op")
}

/// Every pixel of the image, which must all be equal.
fn uniform(v: &Value) -> [f32; 4] {
    let img = image(v);
    assert_eq!(img.pixels.len(), (img.width * img.height) as usize);
    let p = img.pixels[0];
    assert!(img.pixels.iter().all(|q| *q == p), "image is not uniform");
    p
}

#[test]
fn fill_defaults_and_colour() {
    let mut g = Graph::new();
    g.add_node("f", "image.fill").unwrap();
    let v = eval(&g, "f").unwrap();
    assert_eq!((image(&v).width, image(&v).height), (256, 256));
    assert_eq!(uniform(&v), [0.0, 0.0, 0.0, 1.0]);
    let mut g = Graph::new();
    fill(&mut g, "f", 7, 2, A);
    let v = eval(&g, "f").unwrap();
    assert_eq!((image(&v).width, image(&v).height), (7, 2));
    assert_eq!(uniform(&v), A);
    // The colour can come from a graph input (here given as a hex string).
    let mut g = Graph::new();
    g.add_node("c", "input.color").unwrap();
    g.set_param("c", "name", "tint").unwrap();
    g.add_node("f", "image.fill").unwrap();
    g.set_param("f", "width", 2i64).unwrap();
    g.set_param("f", "height", 2i64).unwrap();
    g.wire("c.out", "f.color");
    let v = eval_with(
        &mut evaluator(),
        &g,
        "f",
        &EvalContext::new().with_input("tint", "#ff0000"),
    )
    .unwrap();
    assert_eq!(uniform(&v), [1.0, 0.0, 0.0, 1.0]);
}

#[test]
fn arithmetic_is_per_channel_alpha_included() {
    assert_eq!(
        uniform(&binary("image.add", |_| {}).unwrap()),
        [0.75, 0.75, 1.75, 1.5]
    );
    assert_eq!(
        uniform(&binary("image.sub", |_| {}).unwrap()),
        [-0.25, 0.25, -0.25, 0.5]
    );
    assert_eq!(
        uniform(&binary("image.mul", |_| {}).unwrap()),
        [0.125, 0.125, 0.75, 0.5]
    );
}

#[test]
fn mix_blends_with_t() {
    assert_eq!(
        uniform(&binary("image.mix", |_| {}).unwrap()),
        [0.375, 0.375, 0.875, 0.75]
    );
    let at = |t: f64| {
        uniform(
            &binary("image.mix", |g| {
                g.set_const("op", "t", t).unwrap();
            })
            .unwrap(),
        )
    };
    assert_eq!(at(0.0), A);
    assert_eq!(at(1.0), B);
    assert_eq!(at(0.25), [0.3125, 0.4375, 0.8125, 0.875]);
}

#[test]
fn gain_invert_clamp() {
    let v = unary("image.gain", A, |g| {
        g.set_const("op", "gain", 2.0).unwrap();
        g.set_const("op", "bias", -0.5).unwrap();
    })
    .unwrap();
    assert_eq!(uniform(&v), [0.0, 0.5, 1.0, 1.0]);
    let half_alpha = [0.25, 0.5, 0.75, 0.5];
    // Defaults leave the image alone (same content).
    let v = unary("image.gain", half_alpha, |_| {}).unwrap();
    assert_eq!(uniform(&v), half_alpha);
    let v = unary("image.invert", half_alpha, |_| {}).unwrap();
    assert_eq!(uniform(&v), [0.75, 0.5, 0.25, 0.5]);
    let v = unary("image.clamp", [-0.5, 0.25, 1.5, 2.0], |_| {}).unwrap();
    assert_eq!(uniform(&v), [0.0, 0.25, 1.0, 1.0]);
}

#[test]
fn ops_chain_on_noise() {
    // noise -> invert -> add(noise) is exactly 1 in rgb wherever no rounding happens, and
    // clamp keeps it within range.
    let mut g = noise_graph(32, 32, 1);
    g.add_node("inv", "image.invert").unwrap();
    g.wire("n.out", "inv.image");
    g.add_node("sum", "image.add").unwrap();
    g.wire("n.out", "sum.a");
    g.wire("inv.out", "sum.b");
    let v = eval(&g, "sum").unwrap();
    for p in &image(&v).pixels {
        assert!((p[0] - 1.0).abs() < 1e-6 && p[3] == 2.0, "{p:?}");
    }
}

#[test]
fn size_mismatch_names_input_b() {
    let mut g = Graph::new();
    fill(&mut g, "a", 128, 128, A);
    fill(&mut g, "b", 64, 64, B);
    for op in ["image.add", "image.sub", "image.mul", "image.mix"] {
        let id = op.replace('.', "_");
        g.add_node(id.as_str(), op).unwrap();
        g.wire("a.out", &format!("{id}.a"));
        g.wire("b.out", &format!("{id}.b"));
        let (port, msg) = node_error(eval(&g, &id));
        assert_eq!(port.as_deref(), Some("input `b`"), "{op}");
        assert_eq!(msg, "size 64x64 does not match a's 128x128", "{op}");
    }
}

#[test]
fn fill_size_is_checked() {
    let mut g = Graph::new();
    fill(&mut g, "f", 0, 8, A);
    let (port, _) = node_error(eval(&g, "f"));
    assert_eq!(port.as_deref(), Some("param `width`"));
    let mut g = Graph::new();
    fill(&mut g, "f", 8, -3, A);
    let (port, _) = node_error(eval(&g, "f"));
    assert_eq!(port.as_deref(), Some("param `height`"));
}
