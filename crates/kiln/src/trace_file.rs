//! Flow traces as JSON for tools (`kiln run --trace-json FILE`): every `scope.flow` node that
//! ran, with every step of its run in order.
//!
//! ```json
//! {"kiln_trace": 1, "flows": [{"node": "lots", "unused": 0, "steps": [
//!   {"node": "split", "op": "rect.split", "in": {"rect": 1},
//!    "out": {"first": 1, "second": 1}, "runs": 1, "micros": 3.2}]}]}
//! ```
//!
//! Ports keep their order; `micros` (the step's wall time) is the only field that differs
//! between two runs of the same graph.

use kiln_core::graph::NodeId;
use kiln_io::values::{WriteError, write_atomic};
use kiln_lower::flow::{PortCount, Trace};
use serde_json::{Map, Value as J, json};
use std::path::Path;
use std::sync::Arc;

/// The version written as `kiln_trace`.
pub const TRACE_VERSION: u64 = 1;

fn ports(p: &[PortCount]) -> J {
    let mut m = Map::new();
    for c in p {
        m.insert(c.port.clone(), J::from(c.entities));
    }
    J::Object(m)
}

/// The JSON text of `traces` (as [`kiln_lower::flow::traces`] gives them).
pub fn trace_json(traces: &[(NodeId, Arc<Trace>)]) -> String {
    let flows: Vec<J> = traces
        .iter()
        .map(|(node, t)| {
            let steps: Vec<J> = t
                .steps
                .iter()
                .map(|s| {
                    json!({
                        "node": s.node,
                        "op": s.op,
                        "in": ports(&s.inputs),
                        "out": ports(&s.outputs),
                        "runs": s.runs,
                        "micros": s.duration.as_secs_f64() * 1e6,
                    })
                })
                .collect();
            json!({"node": node.as_str(), "unused": t.unused, "steps": steps})
        })
        .collect();
    let doc = json!({"kiln_trace": TRACE_VERSION, "flows": flows});
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// Write [`trace_json`] of `traces` to exactly `path`, atomically (a temporary file beside
/// it, then renamed into place).
pub fn write_trace(path: &Path, traces: &[(NodeId, Arc<Trace>)]) -> Result<(), WriteError> {
    write_atomic(path, trace_json(traces).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_lower::flow::Step;
    use std::time::Duration;

    #[test]
    fn steps_keep_their_order_and_ports() {
        let t = Trace {
            steps: vec![Step {
                node: "split".into(),
                op: "rect.split".into(),
                inputs: vec![PortCount {
                    port: "rect".into(),
                    entities: 2,
                }],
                outputs: vec![
                    PortCount {
                        port: "second".into(),
                        entities: 2,
                    },
                    PortCount {
                        port: "first".into(),
                        entities: 2,
                    },
                ],
                runs: 2,
                duration: Duration::from_micros(5),
            }],
            unused: 0,
        };
        let text = trace_json(&[(NodeId::from("lots"), Arc::new(t))]);
        let v: J = serde_json::from_str(&text).unwrap();
        assert_eq!(v["kiln_trace"], 1);
        let step = &v["flows"][0]["steps"][0];
        assert_eq!(step["node"], "split");
        assert_eq!(step["in"]["rect"], 2);
        let outs: Vec<&String> = step["out"].as_object().unwrap().keys().collect();
        assert_eq!(outs, ["second", "first"]);
        assert_eq!(step["micros"], 5.0);
    }
}
