//! Fuzz target: the kᵐ audit on any hierarchy file and transaction file (the input split at
//! its first NUL: hierarchy text, then FIMI transactions) returns a report or typed
//! violations, never panics, for claims up to m = 4 and k = `u64::MAX`, with the publication's
//! items as the cut and itself as the original.
#![no_main]

use libfuzzer_sys::fuzz_target;
use txanon_data::{Format, read_bytes};
use txanon_km::{Hierarchy, KmClaim, audit};

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let Ok(text) = std::str::from_utf8(&data[..split]) else { return };
    let Ok(hierarchy) = Hierarchy::from_text(text) else { return };
    let rest = data.get(split + 1..).unwrap_or(&[]);
    let Ok((db, _)) = read_bytes(rest, Format::Fimi, false) else { return };
    let cut: Vec<String> = (0..db.num_items() as u32).map(|i| db.label(i).to_string()).collect();
    for (k, m) in [(2, 2), (3, 4), (u64::MAX, 1)] {
        let claim = KmClaim::new(k, m).expect("valid claim");
        let _ = audit(&db, &hierarchy, &claim, Some(&cut), Some(&db));
    }
});
