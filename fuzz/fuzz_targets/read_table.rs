//! Fuzz target: the CSV table reader with the Adult schema on arbitrary bytes never panics.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use txanon_data::{Schema, Table};

fuzz_target!(|data: &[u8]| {
    static SCHEMA: std::sync::OnceLock<Schema> = std::sync::OnceLock::new();
    let schema = SCHEMA.get_or_init(|| {
        Schema::from_path(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/adult.schema.json"))
            .expect("the shipped schema is valid")
    });
    let _ = Table::read_from(data, Path::new("<fuzz>"), schema, false);
});
