//! A flow step over many entities is split over the rayon pool it runs on; the result and the
//! trace must not depend on the pool's size. Not timed: the same body is run on pools of 1, 2
//! and 3 threads and everything but the step times is compared.

use super::*;

const N: usize = 10_000;

/// Two list inputs: `xs` (floats and ints mixed, so its ops run per entity) and `ys` (floats
/// only, so the float kernels run over columns). `xs → mul 1.5 → fan`, `fan.x → add 0.25 →
/// ox`, `fan.y → neg → oy`; `ys → mul 1.5 → add 0.25 → oz`.
fn two_chains() -> FlowBody {
    let mut g = graph(
        &[
            ("xs", "t.input.list"),
            ("ys", "t.input.list"),
            ("mx", "math.mul"),
            ("fan", "t.fan"),
            ("ax", "math.add"),
            ("neg", "math.neg"),
            ("my", "math.mul"),
            ("ay", "math.add"),
            ("ox", "output"),
            ("oy", "output"),
            ("oz", "output"),
        ],
        &[
            ("xs", "mx.a"),
            ("mx", "fan.in"),
            ("fan.x", "ax.a"),
            ("fan.y", "neg.x"),
            ("ax", "ox.value"),
            ("neg", "oy.value"),
            ("ys", "my.a"),
            ("my", "ay.a"),
            ("ay", "oz.value"),
        ],
        &[
            ("mx.b", Value::Float(1.5)),
            ("ax.b", Value::Float(0.25)),
            ("my.b", Value::Float(1.5)),
            ("ay.b", Value::Float(0.25)),
        ],
    );
    g.set_param("xs", "name", Value::str("xs")).unwrap();
    g.set_param("ys", "name", Value::str("ys")).unwrap();
    let settings = FlowSettings {
        args: vec!["xs".into(), "ys".into()],
        loops: vec![],
        limits: FlowLimits::default(),
    };
    FlowBody::new(g, reg(), settings).unwrap()
}

fn on_pool(threads: usize, b: &FlowBody, args: &[Value]) -> FlowRun {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| b.run(args, &EvalContext::new()).unwrap())
}

fn bits(vs: &[Value]) -> Vec<u64> {
    vs.iter().map(|v| v.as_f64().unwrap().to_bits()).collect()
}

#[test]
fn one_two_and_three_threads_give_the_same_entities_and_the_same_trace() {
    let xs: Vec<Value> = (0..N)
        .map(|i| {
            if i % 3 == 0 {
                Value::Int(i as i64)
            } else {
                Value::Float(i as f64 * 0.1)
            }
        })
        .collect();
    let ys: Vec<Value> = (0..N).map(|i| Value::Float(i as f64 * 0.01)).collect();
    let args = [
        Value::List(xs.clone().into()),
        Value::List(ys.clone().into()),
    ];
    let b = two_chains();
    let one = on_pool(1, &b, &args);
    // Worked out by hand: (x · 1.5) + 0.25, and −(x · 1.5).
    let x = |v: &Value| v.as_f64().unwrap() * 1.5;
    let want_x: Vec<u64> = xs.iter().map(|v| (x(v) + 0.25).to_bits()).collect();
    let want_y: Vec<u64> = xs.iter().map(|v| (-x(v)).to_bits()).collect();
    let want_z: Vec<u64> = ys.iter().map(|v| (x(v) + 0.25).to_bits()).collect();
    assert_eq!(bits(&output(&one, "ox")), want_x);
    assert_eq!(bits(&output(&one, "oy")), want_y);
    assert_eq!(bits(&output(&one, "oz")), want_z);
    assert_eq!(
        one.trace.order(),
        [
            "xs", "mx", "fan", "ax", "ox", "neg", "oy", "ys", "my", "ay", "oz"
        ]
    );
    assert!(
        one.trace
            .steps
            .iter()
            .skip(1)
            .take(3)
            .all(|s| s.runs == N as u64)
    );
    for threads in [2, 3] {
        let many = on_pool(threads, &b, &args);
        assert!(
            one.trace.same_steps(&many.trace),
            "{threads} threads: same steps"
        );
        for name in ["ox", "oy", "oz"] {
            assert_eq!(
                output(&one, name),
                output(&many, name),
                "{threads} threads, output {name}"
            );
            assert_eq!(bits(&output(&one, name)), bits(&output(&many, name)));
        }
    }
}

#[test]
fn entities_given_unboxed_give_what_a_list_of_them_gives_and_stay_unboxed() {
    let xs: Vec<Value> = (0..N)
        .map(|i| {
            if i % 3 == 0 {
                Value::Int(i as i64)
            } else {
                Value::Float(i as f64 * 0.1)
            }
        })
        .collect();
    let ys: Vec<f64> = (0..N).map(|i| i as f64 * 0.01).collect();
    let b = two_chains();
    let listed = b
        .run(
            &[
                Value::List(xs.clone().into()),
                Value::list(ys.iter().map(|&y| Value::Float(y))),
            ],
            &EvalContext::new(),
        )
        .unwrap();
    for threads in [1, 2] {
        let given = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                b.run_entities(
                    &[Entities::Values(xs.clone()), Entities::Floats(ys.clone())],
                    &EvalContext::new(),
                )
                .unwrap()
            });
        assert!(listed.trace.same_steps(&given.trace), "{threads} threads");
        for name in ["ox", "oy", "oz"] {
            assert_eq!(bits(&output(&listed, name)), bits(&output(&given, name)));
        }
        // Worked out by hand: y · 1.5 + 0.25, and the column never boxed on the way.
        let (_, oz) = given.outputs.iter().find(|(n, _)| n == "oz").unwrap();
        let want: Vec<u64> = ys.iter().map(|y| (y * 1.5 + 0.25).to_bits()).collect();
        let got: Vec<u64> = oz
            .as_floats()
            .unwrap()
            .iter()
            .map(|z| z.to_bits())
            .collect();
        assert_eq!(got, want);
    }
}
