//! Loops through loop ports: a rectangle split until every part is small, counted by hand;
//! the iteration cap; the limits; the checks on cycles and loop ports.

use super::*;

/// lot → split ⇄ route (big parts back into split.rect) → parcels.
fn subdivision(lot: [f64; 4], area: f64) -> Graph {
    graph(
        &[
            ("lot", "const"),
            ("split", "rect.split"),
            ("route", "rect.small"),
            ("parcels", "output"),
        ],
        &[
            ("lot", "split.rect"),
            ("route.big", "split.rect"),
            ("split.first", "route.rect"),
            ("split.second", "route.rect"),
            ("route.small", "parcels.value"),
        ],
        &[
            ("lot.value", Value::Vec4(lot)),
            ("route.area", Value::Float(area)),
        ],
    )
}

fn set_area(g: &mut Graph, area: f64) {
    g.set_param("route", "area", Value::Float(area)).unwrap();
}

#[test]
fn a_split_repeats_while_big_parts_come_back() {
    // 8 x 4 (area 32) halves into two 4 x 4 (16), four 2 x 4 (8), eight 2 x 2 (4): the
    // loop sends parts back twice, split runs three steps (1 + 2 + 4 = 7 cuts), and 8
    // parcels of area 4 come out.
    let mut g = subdivision([0.0, 0.0, 8.0, 4.0], 1.0);
    set_area(&mut g, 4.0);
    let r = run(&body(g, &[("split.rect", 2)]).unwrap()).unwrap();
    assert_eq!(
        r.trace.order(),
        [
            "lot", "split", "route", "split", "route", "split", "route", "parcels"
        ]
    );
    let splits: Vec<u64> = r
        .trace
        .steps
        .iter()
        .filter(|s| s.node == "split")
        .map(|s| s.runs)
        .collect();
    assert_eq!(splits, [1, 2, 4]);
    assert_eq!(
        counts(&r.trace.steps[6].outputs),
        [("small", 8), ("big", 0)]
    );
    let parcels = output(&r, "parcels");
    assert_eq!(parcels.len(), 8);
    let mut xs: Vec<[f64; 4]> = parcels
        .iter()
        .map(|p| match p {
            Value::Vec4(v) => *v,
            other => panic!("{other:?}"),
        })
        .collect();
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mut expected = vec![];
    for x in [0.0, 2.0, 4.0, 6.0] {
        for y in [0.0, 2.0] {
            expected.push([x, y, 2.0, 2.0]);
        }
    }
    assert_eq!(xs, expected);
    assert_eq!(r.trace.unused, 0);
}

#[test]
fn the_cap_fails_naming_the_loop() {
    let mut g = subdivision([0.0, 0.0, 8.0, 4.0], 1.0);
    set_area(&mut g, 4.0);
    let e = run(&body(g, &[("split.rect", 1)]).unwrap()).unwrap_err();
    assert!(e.contains("loop `split.rect`"), "{e}");
    assert!(e.contains("more than 1 times"), "{e}");
}

#[test]
fn a_loop_that_never_stops_fails_at_its_cap() {
    // Area 0: no part is ever small enough.
    let g = subdivision([0.0, 0.0, 1.0, 1.0], 0.0);
    let e = run(&body(g, &[("split.rect", 10)]).unwrap()).unwrap_err();
    assert!(
        e.contains("loop `split.rect` was sent entities back more than 10 times"),
        "{e}"
    );
}

#[test]
fn the_entity_limit_names_itself() {
    let g = subdivision([0.0, 0.0, 1.0, 1.0], 0.0);
    let limits = FlowLimits {
        max_entities: 100,
        max_steps: 1_000_000,
    };
    let e = run(&body_with(g, &[("split.rect", 1000)], limits).unwrap()).unwrap_err();
    assert!(e.contains("limit `max_entities` of 100"), "{e}");
    let limits = FlowLimits {
        max_entities: 1_000_000,
        max_steps: 5,
    };
    let g = subdivision([0.0, 0.0, 1.0, 1.0], 0.0);
    let e = run(&body_with(g, &[("split.rect", 1000)], limits).unwrap()).unwrap_err();
    assert!(e.contains("limit `max_steps` of 5"), "{e}");
}

#[test]
fn a_cycle_without_a_loop_port_is_refused() {
    let g = subdivision([0.0, 0.0, 8.0, 4.0], 4.0);
    let e = body(g, &[]).unwrap_err();
    assert!(e.contains("cycle through `split`, `route`"), "{e}");
    assert!(e.contains("no loop port"), "{e}");
}

#[test]
fn a_loop_port_must_be_an_input_of_a_body_node() {
    for at in ["split.nope", "ghost.rect"] {
        let g = subdivision([0.0, 0.0, 8.0, 4.0], 4.0);
        let e = body(g, &[(at, 5), ("split.rect", 5)]).unwrap_err();
        assert!(e.contains(&format!("loop port `{at}`")), "{e}");
    }
}

#[test]
fn an_op_error_in_the_body_names_node_op_and_port() {
    let mut g = subdivision([0.0, 0.0, 8.0, 4.0], 4.0);
    g.set_param("lot", "value", Value::Vec4([0.0, 0.0, -1.0, 4.0]))
        .unwrap();
    let e = run(&body(g, &[("split.rect", 5)]).unwrap()).unwrap_err();
    assert!(
        e.contains("flow node `split` (op `rect.split`), input `rect`"),
        "{e}"
    );
}

#[test]
fn a_loop_port_on_a_loop_of_collectives_runs_with_what_it_has() {
    // m (collective) feeds itself back through a router: m can reach itself, so it runs
    // with what it has rather than waiting for itself.
    let g = graph(
        &[("src", "const"), ("m", "t.merge"), ("o", "output")],
        &[("src", "m.items"), ("m.count", "o.value")],
        &[("src.value", Value::Int(1))],
    );
    let r = run(&body(g, &[]).unwrap()).unwrap();
    assert_eq!(output(&r, "o"), [Value::Int(1)]);
}
