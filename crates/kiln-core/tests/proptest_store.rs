//! The store's invariants under random use, for every policy: the bytes held never exceed
//! the budget (pins cannot grow it), a pinned entry is never evicted, the byte count is the
//! sum of the entries held, and what is read back is what was put in.

use kiln_core::cache::{CachePolicy, Generational, KeepAll, Lru, Manual, Store};
use kiln_core::key::Key;
use kiln_core::value::Value;
use proptest::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Debug)]
enum Act {
    Insert(u8, u16, u16),
    Get(u8),
    Pin(u8),
    Unpin(u8),
    Evict(u8),
    Generation,
    Budget(u16),
}

fn acts() -> impl Strategy<Value = Vec<Act>> {
    proptest::collection::vec(
        prop_oneof![
            6 => (any::<u8>(), 0u16..400, 0u16..1000).prop_map(|(k, n, c)| Act::Insert(k % 32, n, c)),
            4 => any::<u8>().prop_map(|k| Act::Get(k % 32)),
            1 => any::<u8>().prop_map(|k| Act::Pin(k % 32)),
            1 => any::<u8>().prop_map(|k| Act::Unpin(k % 32)),
            1 => any::<u8>().prop_map(|k| Act::Evict(k % 32)),
            1 => Just(Act::Generation),
            1 => (200u16..6000).prop_map(Act::Budget),
        ],
        1..120,
    )
}

/// A value whose content is fixed by its key (a key names a content).
fn content(k: u8, n: u16) -> Value {
    let _ = n;
    Value::Str(Arc::from(
        format!("{k}:{}", "x".repeat(k as usize * 13)).as_str(),
    ))
}

fn policy(i: usize) -> Box<dyn Fn() -> Store> {
    match i {
        0 => Box::new(|| Store::new(KeepAll)),
        1 => Box::new(|| Store::new(Lru::new())),
        2 => Box::new(|| Store::new(Lru::weighted())),
        3 => Box::new(|| Store::new(Generational::new(2))),
        _ => Box::new(|| Store::new(Manual)),
    }
}

fn _assert_policy<P: CachePolicy>() {}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn invariants_hold_for_every_policy(p in 0usize..5, budget in 300u16..4000, acts in acts()) {
        let store = policy(p)().with_budget(budget as usize);
        let mut budget = budget as usize;
        let mut pins: HashMap<u8, u32> = HashMap::new();
        for act in &acts {
            match *act {
                Act::Insert(k, n, c) => {
                    store.insert(Key(k as u128), content(k, n), Duration::from_nanos(c as u64));
                }
                Act::Get(k) => {
                    if let Some(v) = store.get(Key(k as u128)) {
                        prop_assert_eq!(v, content(k, 0));
                    }
                }
                Act::Pin(k) => {
                    if store.pin(Key(k as u128)) {
                        *pins.entry(k).or_default() += 1;
                    }
                }
                Act::Unpin(k) => {
                    store.unpin(Key(k as u128));
                    if let Some(c) = pins.get_mut(&k) {
                        *c -= 1;
                        if *c == 0 {
                            pins.remove(&k);
                        }
                    }
                }
                Act::Evict(k) => {
                    store.evict(Key(k as u128));
                    pins.remove(&k);
                }
                Act::Generation => {
                    store.next_generation();
                }
                Act::Budget(b) => {
                    budget = b as usize;
                    store.set_budget(Some(budget));
                }
            }
            // Pinned entries are all still there.
            for k in pins.keys() {
                prop_assert!(store.contains(Key(*k as u128)), "pinned {} was evicted", k);
                prop_assert!(store.is_pinned(Key(*k as u128)));
            }
            // Bytes are the entries' sizes; over budget only by what pins hold.
            let sum: usize = store
                .keys()
                .iter()
                .map(|k| content(k.0 as u8, 0).byte_size())
                .sum();
            prop_assert_eq!(store.bytes(), sum);
            prop_assert!(
                store.bytes() <= budget.max(store.pinned_bytes()),
                "{} bytes held, budget {}, pinned {}",
                store.bytes(),
                budget,
                store.pinned_bytes()
            );
        }
    }
}
