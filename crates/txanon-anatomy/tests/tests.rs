//! Anatomy end to end: the paper's worked example, the audit against tampering, and properties
//! of every published table on random and Quest data.

use std::collections::BTreeMap;

use proptest::prelude::*;
use txanon_anatomy::{
    AnatomizedTable, AnatomyError, AnatomyParams, Diversity, anatomize, audit, item_partition,
    ln_faked_records,
};
use txanon_data::{QuestParams, ReadOptions, TransactionDb, read_path};

fn table1() -> TransactionDb {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../datasets/examples/anatomy-table1.csv");
    read_path(&path, &ReadOptions::new()).unwrap().0
}

/// Table I(A) of the paper anatomized with Example 4's partitions: items {a,c} {b,e,g} {d,f,h},
/// buckets t1..t5 and t6..t10, values in record order. (The paper's printed Table I(E) does not
/// keep the multisets of Table I(A): its rows 9 and 10 show {a,c} and {a} where t9 and t10 have
/// neither, so the table is rebuilt from Table I(A).)
fn table1_e() -> AnatomizedTable {
    let db = table1();
    let columns: Vec<Vec<String>> = [&["a", "c"][..], &["b", "e", "g"], &["d", "f", "h"]]
        .iter()
        .map(|c| c.iter().map(|s| s.to_string()).collect())
        .collect();
    let bucket = |rows: std::ops::Range<usize>| -> Vec<Vec<Vec<String>>> {
        columns
            .iter()
            .map(|col| {
                rows.clone()
                    .map(|r| {
                        db.transaction(r)
                            .iter()
                            .map(|&i| db.label(i).to_string())
                            .filter(|l| col.contains(l))
                            .collect()
                    })
                    .collect()
            })
            .collect()
    };
    AnatomizedTable { l: 2, buckets: vec![bucket(0..5), bucket(5..10)], columns }
}

#[test]
fn worked_example_is_2_diverse_as_distinct_values_not_as_definition_5() {
    let table = table1_e();
    // Example 4 calls Table I(E) 2-diverse: every bucket and column has ≥ 2 distinct values.
    let report = audit(&table, Some(2), Diversity::Distinct).unwrap();
    assert_eq!((report.buckets, report.records, report.smallest_bucket), (2, 10, 5));
    // Under Definition 5 it is not: in t1..t5 the value {b} is 3 of 5 records (the example's
    // own words: "{b} appears 3 times and |B1| equal to 5"), and 3/5 > 1/2; so is {a,c}.
    assert_eq!(report.worst_share, 0.6);
    let err = audit(&table, Some(2), Diversity::Frequency).unwrap_err().to_string();
    assert!(err.contains("occurs 3 times in 5 records, more than 1/2"), "{err}");
    // Column {a,c} of t1..t5 holds only 2 distinct values: not 3-diverse in either reading.
    assert!(audit(&table, Some(3), Diversity::Distinct).is_err());
}

#[test]
fn tampered_tables_fail_the_audit() {
    let good = table1_e();
    let mut overlapping = good.clone();
    overlapping.columns[0].push("b".into());
    assert!(
        audit(&overlapping, None, Diversity::Distinct)
            .unwrap_err()
            .to_string()
            .contains("disjoint")
    );
    let mut foreign = good.clone();
    foreign.buckets[0][0][0].push("z".into());
    assert!(
        audit(&foreign, None, Diversity::Distinct)
            .unwrap_err()
            .to_string()
            .contains("not an item of column")
    );
    let mut ragged = good.clone();
    ragged.buckets[1][2].pop();
    assert!(audit(&ragged, None, Diversity::Distinct).is_err());
    let mut uniform = good.clone();
    for value in &mut uniform.buckets[1][1] {
        *value = vec!["e".into()];
    }
    assert!(
        audit(&uniform, None, Diversity::Distinct)
            .unwrap_err()
            .to_string()
            .contains("distinct values")
    );
    let mut dup = good;
    dup.buckets[0][1][0] = vec!["b".into(), "b".into()];
    assert!(audit(&dup, None, Diversity::Distinct).is_err());
}

/// Every published table passes the audit; its records are the flattened file's; each column's
/// multiset of values per bucket is exactly the bucket's original records' projections; and
/// together with the suppressed records the buckets hold every record once. When anatomization
/// refuses as infeasible, the claim is re-derived: some column of the item partition has a value
/// held by more than `1/l` of the records. Returns whether a table was published.
fn check_publication(
    db: &TransactionDb,
    columns: usize,
    l: usize,
    seed: u64,
) -> Result<bool, TestCaseError> {
    let params = AnatomyParams::new(columns, l).seed(Some(seed)).check().unwrap();
    let result = match anatomize(db, &params) {
        Err(AnatomyError::Infeasible { .. }) => {
            let partition = item_partition(db, &params).unwrap();
            let too_frequent = partition.iter().any(|column| {
                let mut counts: BTreeMap<Vec<u32>, usize> = BTreeMap::new();
                for t in db.iter() {
                    let value: Vec<u32> =
                        t.iter().copied().filter(|i| column.contains(i)).collect();
                    *counts.entry(value).or_default() += 1;
                }
                counts.values().any(|&c| c * l > db.len())
            });
            prop_assert!(too_frequent, "refused as infeasible, but every column admits l = {}", l);
            return Ok(false);
        }
        Err(AnatomyError::NotDiverse { .. }) => return Ok(false),
        other => other.unwrap(),
    };
    let report = audit(&result.table, None, Diversity::Frequency).unwrap();
    prop_assert_eq!(report.records + result.suppressed, db.len());
    prop_assert_eq!(result.flattened.len(), report.records);
    prop_assert_eq!(result.buckets, report.buckets);
    // Column items partition the items.
    let mut all: Vec<u32> = result.columns.concat();
    all.sort_unstable();
    prop_assert_eq!(all, (0..db.num_items() as u32).collect::<Vec<_>>());
    // Flattened record k of a bucket = the union of the k-th values of its columns.
    let mut row = 0;
    for bucket in &result.table.buckets {
        for k in 0..bucket[0].len() {
            let mut joined: Vec<String> =
                bucket.iter().flat_map(|c| c[k].iter().cloned()).collect();
            joined.sort();
            let mut flat: Vec<String> = result
                .flattened
                .transaction(row)
                .iter()
                .map(|&i| result.flattened.label(i).to_string())
                .collect();
            flat.sort();
            prop_assert_eq!(joined, flat);
            row += 1;
        }
    }
    // Without suppression, the published records' column values are the input's, as multisets.
    if result.suppressed == 0 {
        let project = |items: Vec<String>| -> Vec<Vec<String>> {
            result
                .table
                .columns
                .iter()
                .map(|c| {
                    let mut v: Vec<String> =
                        items.iter().filter(|i| c.contains(i)).cloned().collect();
                    v.sort();
                    v
                })
                .collect()
        };
        let mut per_column_in: Vec<BTreeMap<Vec<String>, usize>> = vec![BTreeMap::new(); columns];
        let mut per_column_out = per_column_in.clone();
        for t in db.iter() {
            for (j, v) in project(t.iter().map(|&i| db.label(i).to_string()).collect())
                .into_iter()
                .enumerate()
            {
                *per_column_in[j].entry(v).or_default() += 1;
            }
        }
        for bucket in &result.table.buckets {
            for (j, column) in bucket.iter().enumerate() {
                for v in column {
                    let mut v = v.clone();
                    v.sort();
                    *per_column_out[j].entry(v).or_default() += 1;
                }
            }
        }
        prop_assert_eq!(per_column_in, per_column_out);
    }
    Ok(true)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]

    #[test]
    fn every_publication_is_l_diverse_and_faithful(
        ts in prop::collection::vec(prop::collection::btree_set(0u32..12, 1..7), 10..120),
        columns in 2usize..5,
        l in 2usize..4,
        seed in any::<u64>(),
    ) {
        let db = TransactionDb::from_int_transactions(ts.iter().map(|t| t.iter().copied().collect::<Vec<_>>()));
        if db.num_items() >= columns {
            check_publication(&db, columns, l, seed)?;
        }
    }
}

#[test]
fn quest_data_is_anatomized_and_audited() {
    let db = QuestParams::new(5000, 10.0, 4.0, 200).seed(1).check().unwrap().generate();
    for (columns, l) in [(2, 4), (3, 3), (5, 2), (5, 4)] {
        assert!(
            check_publication(&db, columns, l, 7).unwrap(),
            "p = {columns}, l = {l} published nothing"
        );
    }
    // With 10 columns some column is empty in most records: refused, and the refusal re-derived.
    assert!(!check_publication(&db, 10, 3, 7).unwrap());
}

#[test]
fn same_seed_same_publication_and_no_seed_differs() {
    let db = QuestParams::new(2000, 10.0, 4.0, 100).seed(2).check().unwrap().generate();
    let run =
        |seed| anatomize(&db, &AnatomyParams::new(4, 2).seed(seed).check().unwrap()).unwrap().table;
    assert_eq!(run(Some(5)), run(Some(5)));
    assert_ne!(run(Some(5)), run(Some(6)));
    assert_ne!(run(None), run(None), "OS-seeded runs publish differently");
}

#[test]
fn faked_record_count_by_hand() {
    // Two buckets of 5 records, 3 columns: ln(5³ + 5³) = ln 250.
    assert!((ln_faked_records([5, 5], 3) - 250f64.ln()).abs() < 1e-12);
    // No overflow: 10⁴ buckets of 100 records and 20 columns is e^(ln 10⁴ + 20 ln 100).
    let big = ln_faked_records(std::iter::repeat_n(100, 10_000), 20);
    assert!((big - (10_000f64.ln() + 20.0 * 100f64.ln())).abs() < 1e-9);
}

#[test]
fn impossible_settings_are_refused() {
    assert!(AnatomyParams::new(1, 2).check().is_err());
    assert!(AnatomyParams::new(3, 1).check().is_err());
    let db = table1();
    let err = anatomize(&db, &AnatomyParams::new(9, 2).check().unwrap()).unwrap_err();
    assert!(matches!(err, AnatomyError::TooManyColumns { columns: 9, items: 8 }));
    // Every record holds item 1 alone in its column: no partition can be 2-diverse, and the
    // error says which column and how far l could go.
    let same = TransactionDb::from_int_transactions((0..20).map(|_| vec![1, 2]));
    let err =
        anatomize(&same, &AnatomyParams::new(2, 2).seed(Some(1)).check().unwrap()).unwrap_err();
    assert!(matches!(err, AnatomyError::Infeasible { l: 2, max_l: 1, .. }), "{err}");
    assert!(err.to_string().contains("in 100.0% of the records"), "{err}");
}
