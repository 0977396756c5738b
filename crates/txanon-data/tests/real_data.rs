//! Every real dataset reads to exactly the figures its manifest lists.

use txanon_data::datasets::DATASETS;
use txanon_data::{ReadOptions, Schema, Table, read_path};

use crate::common::{real_dataset, root};

#[test]
fn transaction_datasets_match_manifest() {
    for info in DATASETS.iter().filter(|d| d.file.ends_with(".dat")) {
        let Some(path) = real_dataset(info.name) else { continue };
        let (db, report) = read_path(&path, &ReadOptions::new()).unwrap();
        let s = db.stats();
        assert_eq!(s.transactions, info.transactions, "{}", info.name);
        assert_eq!(s.items_present, info.items, "{}", info.name);
        assert_eq!(s.max_len, info.max_len, "{}", info.name);
        assert!(
            (s.avg_len - info.avg_len).abs() < 5e-4,
            "{}: avg {} vs {}",
            info.name,
            s.avg_len,
            info.avg_len
        );
        assert_eq!(s.empty_transactions, 0, "{}", info.name);
        // The manifest says kosarak-sample has exactly one repeated item (line 10,102).
        let expected_dups = u64::from(info.name == "kosarak-sample");
        assert_eq!(report.duplicates_dropped, expected_dups, "{}", info.name);
    }
}

#[test]
fn mushroom_item_in_every_transaction_is_kept() {
    let Some(path) = real_dataset("mushroom") else { return };
    let (db, _) = read_path(&path, &ReadOptions::new()).unwrap();
    let item = db.labels().find("85").expect("item 85");
    assert_eq!(db.supports()[item as usize] as usize, db.len());
}

#[test]
fn adult_reads_with_its_schema() {
    let schema = Schema::from_path(&root().join("datasets/adult.schema.json")).unwrap();
    for (name, kept, dropped) in [("adult", 30_162, 2_399), ("adult-test", 15_060, 1_221)] {
        let Some(path) = real_dataset(name) else { continue };
        let t = Table::read(&path, &schema).unwrap();
        // 30,162 + 15,060 = 45,222: the complete tuples the slicing paper uses.
        assert_eq!((t.len(), t.dropped_rows()), (kept, dropped), "{name}");
        assert_eq!(t.column("sex").unwrap().distinct(), 2);
        assert_eq!(t.column("occupation").unwrap().distinct(), 14);
    }
}
