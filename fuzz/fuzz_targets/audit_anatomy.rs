//! Fuzz target: the anatomy audit on any JSON a file can hold (counts near 2^64 included)
//! returns a report or typed violations, never panics, and never passes a table whose counts
//! do not add up.
#![no_main]

use libfuzzer_sys::fuzz_target;
use txanon_anatomy::{AnatomizedTable, AnatomyClaim, Diversity, audit};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(table) = AnatomizedTable::from_json(text) else { return };
    for l in [2, 3, u64::MAX] {
        for reading in [Diversity::Frequency, Diversity::Distinct] {
            let claim = AnatomyClaim::new(l, reading).expect("l ≥ 2");
            if audit(&table, &claim, None, None).is_ok() {
                for bucket in &table.buckets {
                    for column in &bucket.columns {
                        let sum: u128 = column.iter().map(|v| v.0 as u128).sum();
                        assert_eq!(sum, bucket.size as u128);
                    }
                }
            }
        }
    }
});
