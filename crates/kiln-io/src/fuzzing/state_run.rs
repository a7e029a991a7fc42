//! The fuzz entry of render states that run: any bytes read as a render state
//! ([`crate::render_state`]); when they decode, each heavy value a latch holds (a rigid-body
//! world, a grid, particles) is handed to every op of the registry that takes its type on a
//! required input and needs nothing else wired (a world's step, its points, its view), and
//! none may panic. A state that decodes is one a render continues from: a damaged value
//! must be refused as it decodes, never by a panic of the next tick.

use kiln_core::eval::ErrorPolicy;
use kiln_core::prelude::*;

/// Any bytes: a render state, and when it decodes, each heavy value it holds run through
/// every op that takes it (see the module docs).
pub fn render_state_run(bytes: &[u8], registry: &Registry) {
    let Ok((_, state)) = crate::render_state::decode_state(bytes, registry) else {
        return;
    };
    for (latch, value) in &state.values {
        let Value::Heavy(heavy) = value else {
            continue;
        };
        let ty = ValueType::Heavy(heavy.type_name());
        for op in registry.iter() {
            let spec = op.spec();
            if registry.signal(&spec.id).is_some() || spec.delay {
                continue;
            }
            let required: Vec<_> = spec.inputs.iter().filter(|i| i.default.is_none()).collect();
            let [input] = required[..] else {
                continue;
            };
            if !input.ty.accepts(ty) {
                continue;
            }
            let mut g = Graph::new();
            if g.add_node("n", &spec.id).is_err()
                || g.set_const("n", &input.name, value.clone()).is_err()
            {
                continue;
            }
            let outputs: Vec<String> = spec
                .outputs
                .iter()
                .map(|o| format!("n.{}", o.name))
                .collect();
            let request = Request::new(outputs).with_errors(ErrorPolicy::Propagate);
            let mut ctx = EvalContext::new();
            ctx.dt = 1.0 / 30.0;
            ctx.resolution = Some((8, 8));
            let result = LazyEvaluator::new(registry.clone()).evaluate(&g, &request, &ctx);
            let panicked = |e: &EvalError| matches!(e, EvalError::Panic { .. });
            match result {
                Err(e) if panicked(&e) => panic!("latch `{latch}`: {e}"),
                Ok(out) => {
                    if let Some(f) = out.failures.iter().find(|f| panicked(&f.error)) {
                        panic!("latch `{latch}`: {}", f.error);
                    }
                }
                Err(_) => {}
            }
        }
    }
}
