//! Fuzz target: the CAHD audit on any JSON a file can hold returns a report or typed
//! violations, never panics, and never passes a count above `1/p` of its group.
#![no_main]

use libfuzzer_sys::fuzz_target;
use txanon_cahd::{CahdClaim, PublishedGroups, audit};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(groups) = PublishedGroups::from_json(text) else { return };
    for p in [2, 5, u64::MAX] {
        let claim = CahdClaim::new(p, ["a".to_string()]).expect("p ≥ 2");
        if audit(&groups, &claim, None).is_ok() {
            for g in &groups.groups {
                for (_, c) in &g.sensitive {
                    assert!((*c as u128) * (p as u128) <= g.qid.len() as u128);
                }
            }
        }
    }
});
