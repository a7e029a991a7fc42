//! Lists through the evaluator: element types checked by validation, and the laws list ops
//! obey, by property tests.

use kiln_core::prelude::*;
use proptest::prelude::*;

/// Evaluate `op` on constant inputs `inputs` (by port) with the lazy evaluator.
fn apply(op: &str, inputs: &[(&str, Value)]) -> Result<Value, String> {
    let mut g = Graph::new();
    g.add_node("n", op).unwrap();
    for (port, v) in inputs {
        g.set_const("n", port, v.clone()).unwrap();
    }
    LazyEvaluator::new(kiln_std::registry())
        .evaluate(&g, &Request::new(["n.out"]), &EvalContext::new())
        .map_err(|e| e.to_string())
        .map(|o| o.get("n.out").cloned().unwrap_or_default())
}

fn kinds(g: &Graph) -> Vec<(DiagnosticKind, String)> {
    validate(g, &kiln_std::registry())
        .into_iter()
        .map(|d| (d.kind, d.port.unwrap_or_default()))
        .collect()
}

#[test]
fn validation_checks_list_element_types() {
    // list<int> from `list.range` into a mask of list<bool>: refused.
    let mut g = Graph::new();
    g.add_node("r", "list.range").unwrap();
    g.set_const("r", "count", Value::Int(3)).unwrap();
    g.add_node("f", "list.filter").unwrap();
    g.wire("r.out", "f.list");
    g.wire("r.out", "f.mask");
    assert_eq!(
        kinds(&g),
        [(DiagnosticKind::TypeMismatch, "input `mask`".to_string())]
    );
    // A constant mask with a string element: refused element by element.
    let mut g = Graph::new();
    g.add_node("f", "list.filter").unwrap();
    g.set_const("f", "list", Value::list([Value::Int(1), Value::Int(2)]))
        .unwrap();
    g.set_const(
        "f",
        "mask",
        Value::list([Value::Bool(true), Value::str("no")]),
    )
    .unwrap();
    assert_eq!(
        kinds(&g),
        [(DiagnosticKind::TypeMismatch, "input `mask`".to_string())]
    );
    // A list of ints into a single number input is taken element by element (the plan
    // writes the node once per element): valid, and its output is a list of numbers.
    let mut g = Graph::new();
    g.add_node("r", "list.range").unwrap();
    g.set_const("r", "count", Value::Int(3)).unwrap();
    g.add_node("m", "math.mul").unwrap();
    g.wire("r.out", "m.a");
    g.set_const("m", "b", Value::Float(2.0)).unwrap();
    g.add_node("len", "list.length").unwrap();
    g.wire("m.out", "len.list");
    assert_eq!(kinds(&g), []);
    let types = kiln_core::validate::output_types(&g, &kiln_std::registry()).unwrap();
    assert!(types[g.index_of("m").unwrap()][0].is_list());
    // ... but a list of strings is not numbers, element by element either.
    let mut g = Graph::new();
    g.add_node("m", "math.mul").unwrap();
    g.set_const("m", "a", Value::list([Value::str("x")]))
        .unwrap();
    g.set_const("m", "b", Value::Float(2.0)).unwrap();
    assert!(
        kinds(&g).contains(&(DiagnosticKind::TypeMismatch, "input `a`".to_string())),
        "{:?}",
        kinds(&g)
    );
}

#[test]
fn several_wires_only_into_a_collective_input() {
    let mut g = Graph::new();
    g.add_node("a", "clock.time").unwrap();
    g.add_node("b", "clock.dt").unwrap();
    g.add_node("all", "list.make").unwrap();
    g.wire("a.out", "all.items");
    g.wire("b.out", "all.items");
    assert_eq!(kinds(&g), []);
    g.add_node("s", "math.add").unwrap();
    g.wire("a.out", "s.a");
    g.wire("b.out", "s.a");
    g.set_const("s", "b", Value::Float(1.0)).unwrap();
    assert_eq!(
        kinds(&g),
        [(DiagnosticKind::MultipleWires, "input `a`".to_string())]
    );
    // An evaluator runs only what the plan writes: it refuses the wires it cannot bind.
    let e = LazyEvaluator::new(kiln_std::registry())
        .evaluate(&g, &Request::new(["all.out"]), &EvalContext::new())
        .unwrap_err();
    assert!(e.to_string().contains("multiple-wires"), "{e}");
}

fn ints(v: &[i64]) -> Value {
    Value::list(v.iter().map(|&i| Value::Int(i)))
}

fn as_ints(v: &Value) -> Vec<i64> {
    v.as_list()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn reverse_twice_is_the_list(v in prop::collection::vec(-50i64..50, 0..40)) {
        let once = apply("list.reverse", &[("list", ints(&v))]).unwrap();
        let twice = apply("list.reverse", &[("list", once)]).unwrap();
        prop_assert_eq!(as_ints(&twice), v);
    }

    #[test]
    fn concat_length_is_the_sum(
        a in prop::collection::vec(-50i64..50, 0..30),
        b in prop::collection::vec(-50i64..50, 0..30),
    ) {
        let c = apply("list.concat", &[("a", ints(&a)), ("b", ints(&b))]).unwrap();
        let n = apply("list.length", &[("list", c.clone())]).unwrap();
        prop_assert_eq!(n, Value::Int((a.len() + b.len()) as i64));
        let mut both = a.clone();
        both.extend(&b);
        prop_assert_eq!(as_ints(&c), both);
    }

    #[test]
    fn sort_gives_a_sorted_permutation(v in prop::collection::vec(-20i64..20, 0..40)) {
        let s = as_ints(&apply("list.sort", &[("list", ints(&v))]).unwrap());
        prop_assert!(s.windows(2).all(|w| w[0] <= w[1]));
        let mut want = v.clone();
        want.sort();
        prop_assert_eq!(s, want);
    }

    #[test]
    fn sort_by_keys_is_stable(keys in prop::collection::vec(0i64..4, 0..30)) {
        // Elements are their positions: within equal keys, positions must rise.
        let idx: Vec<i64> = (0..keys.len() as i64).collect();
        let s = as_ints(&apply("list.sort", &[("list", ints(&idx)), ("keys", ints(&keys))]).unwrap());
        for w in s.windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            prop_assert!(keys[a] < keys[b] || (keys[a] == keys[b] && a < b));
        }
    }

    #[test]
    fn slices_within_bounds_and_errors_outside(
        v in prop::collection::vec(-50i64..50, 0..20),
        start in -2i64..24,
        end in -1i64..24,
    ) {
        let r = apply("list.slice", &[("list", ints(&v)), ("start", Value::Int(start)), ("end", Value::Int(end))]);
        let len = v.len() as i64;
        let e = if end == -1 { len } else { end };
        if (0..=len).contains(&start) && (start..=len).contains(&e) {
            prop_assert_eq!(as_ints(&r.unwrap()), v[start as usize..e as usize].to_vec());
        } else {
            let msg = r.unwrap_err();
            prop_assert!(msg.contains(&format!("{len} elements")), "{}", msg);
        }
    }

    #[test]
    fn filter_keeps_exactly_the_marked(v in prop::collection::vec((-50i64..50, any::<bool>()), 0..30)) {
        let list = ints(&v.iter().map(|p| p.0).collect::<Vec<_>>());
        let mask = Value::list(v.iter().map(|p| Value::Bool(p.1)));
        let f = as_ints(&apply("list.filter", &[("list", list), ("mask", mask)]).unwrap());
        let want: Vec<i64> = v.iter().filter(|p| p.1).map(|p| p.0).collect();
        prop_assert_eq!(f, want);
    }
}
