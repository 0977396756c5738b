//! Fuzz target: the slicing family's publication readers and audits on arbitrary files. The
//! input is split at its first NUL byte into a metadata JSON and a CSV; each of the three
//! publications is read from them and, when readable, audited against the paper's Table 1.
//! Nothing may panic.
#![no_main]

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use txanon_data::{Schema, Table};
use txanon_slicing::{
    AnatomyTables, SlicingClaim, GeneralizedTable, Microdata, SlicedTable, audit, audit_anatomy,
    audit_generalized,
};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/examples")
}

fuzz_target!(|data: &[u8]| {
    static ORIGINAL: std::sync::OnceLock<Microdata> = std::sync::OnceLock::new();
    let original = ORIGINAL.get_or_init(|| {
        let schema = Schema::from_path(&examples().join("slicing-table1.schema.json")).unwrap();
        let table = Table::read(&examples().join("slicing-table1.csv"), &schema).unwrap();
        Microdata::from_table(&table).unwrap()
    });
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (meta, csv) = (&data[..split], data.get(split + 1..).unwrap_or(&[]));
    let dir = std::env::temp_dir().join(format!("txanon-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (meta_path, csv_path) = (dir.join("meta.json"), dir.join("table.csv"));
    std::fs::write(&meta_path, meta).unwrap();
    std::fs::write(&csv_path, csv).unwrap();
    let claim = SlicingClaim::with_k(2, 2).unwrap();
    if let Ok(table) = SlicedTable::read(&csv_path, &meta_path) {
        let _ = audit(&table, original, &claim);
    }
    if let Ok(table) = GeneralizedTable::read(&csv_path, &meta_path) {
        let _ = audit_generalized(&table, original, &claim);
    }
    if let Ok(tables) = AnatomyTables::read(&csv_path, &csv_path, &meta_path) {
        let _ = audit_anatomy(&tables, original, &claim);
    }
});
