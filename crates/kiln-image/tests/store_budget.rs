//! A shared store under an LRU byte budget, loaded with large images: the bytes held never
//! exceed the budget after any request, and results stay correct.

use kiln_core::cache::{Lru, Store};
use kiln_core::prelude::*;

/// Noise then a colour ramp: two 256 × 256 images (4 MiB of f32 RGBA for the ramp).
fn image_graph(seed: i64) -> Graph {
    let mut g = Graph::new();
    g.add_node("noise", "image.noise").unwrap();
    g.set_param("noise", "width", 256i64).unwrap();
    g.set_param("noise", "height", 256i64).unwrap();
    g.set_param("noise", "seed", seed).unwrap();
    g.set_const("noise", "octaves", 2i64).unwrap();
    g.add_node("sky", "image.ramp").unwrap();
    g.wire("noise.out", "sky.image");
    g
}

#[test]
fn many_large_images_under_a_small_lru_budget() {
    let reg = kiln_image::registry();
    // Room for four and a half images: two graphs' worth.
    let one = {
        let mut lazy = LazyEvaluator::new(reg.clone());
        let out = lazy
            .evaluate(&image_graph(0), &Request::new(["sky"]), &EvalContext::new())
            .unwrap();
        out.get("sky").unwrap().byte_size()
    };
    let budget = 4 * one + one / 2;
    let store = Store::new(Lru::new()).with_budget(budget).shared();
    let mut lazy = LazyEvaluator::new(reg.clone()).with_store(store.clone());
    let mut reference = LazyEvaluator::new(reg);
    // Repeats hit the store; new seeds push the oldest out.
    for (round, seed) in [0i64, 1, 0, 1, 2, 3, 4, 5, 4, 5, 0].into_iter().enumerate() {
        let g = image_graph(seed);
        let out = lazy
            .evaluate(&g, &Request::new(["sky"]), &EvalContext::new())
            .unwrap();
        assert!(
            store.bytes() <= budget,
            "round {round}: {} > {budget}",
            store.bytes()
        );
        let want = reference
            .evaluate(&g, &Request::new(["sky"]), &EvalContext::new())
            .unwrap();
        assert_eq!(out.get("sky"), want.get("sky"), "round {round}");
    }
    let st = store.stats();
    assert!(st.evictions > 0, "{st:?}");
    assert!(st.hits > 0, "{st:?}");
}
