//! Fuzz target: every transaction reader on arbitrary bytes must return Ok or a located error,
//! never panic, and an accepted input must satisfy the model's invariants.
#![no_main]

use libfuzzer_sys::fuzz_target;
use txanon_data::{Format, read_bytes};

fuzz_target!(|data: &[u8]| {
    for format in Format::ALL {
        if let Ok((db, _)) = read_bytes(data, format, true) {
            for t in db.iter() {
                assert!(t.windows(2).all(|w| w[0] < w[1]));
                assert!(t.iter().all(|&i| (i as usize) < db.num_items()));
            }
        }
    }
});
