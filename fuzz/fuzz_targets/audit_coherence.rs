//! Fuzz target: the coherence audit on any transaction file (read as FIMI) returns a report or
//! typed violations, never panics, and stops for any attacker power `p`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use txanon_coherence::{CoherenceClaim, audit};
use txanon_data::{Format, read_bytes};

fuzz_target!(|data: &[u8]| {
    let Ok((db, _)) = read_bytes(data, Format::Fimi, false) else { return };
    let private = vec!["1".to_string(), "2".to_string()];
    for (h, k, p) in [(0.5, 2, 2), (0.25, 3, u64::MAX)] {
        let claim = CoherenceClaim::new(h, k, p).expect("valid claim").private(private.clone());
        let _ = audit(&db, &claim, Some(&db));
    }
});
