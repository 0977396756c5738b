//! The audit against publications broken on purpose: each tampered table, flattened file or
//! original is rejected with the violation the tampering causes, and a random single edit of a
//! valid publication is either rejected or still valid by a brute-force check of Definition 5.

use std::collections::BTreeMap;

use proptest::prelude::*;
use txanon_anatomy::{
    AnatomizedTable, AnatomyClaim, AnatomyError, AnatomyParams, AnatomyViolation, Bucket,
    Diversity, ValueCount, anonymize, audit,
};
use txanon_data::{QuestParams, TransactionDb};

/// A valid publication: the table, the flattened records as integer labels, the original.
#[derive(Clone)]
struct Publication {
    table: AnatomizedTable,
    flattened: Vec<Vec<u32>>,
    original: TransactionDb,
}

fn int_rows(db: &TransactionDb) -> Vec<Vec<u32>> {
    db.iter()
        .map(|t| t.iter().map(|&i| db.label(i).to_string().parse().unwrap()).collect())
        .collect()
}

fn valid(seed: u64) -> Publication {
    let original = QuestParams::new(400, 6.0, 3.0, 30).seed(seed).check().unwrap().generate();
    let params = AnatomyParams::new(3, 2).seed(Some(seed)).check().unwrap();
    let published = anonymize(&original, &params).unwrap();
    assert!(published.table.buckets.len() >= 3, "a few buckets to tamper with");
    Publication { table: published.table, flattened: int_rows(&published.flattened), original }
}

fn run(p: &Publication, flattened: bool, original: bool) -> Result<(), AnatomyError> {
    let claim = AnatomyClaim::new(2, Diversity::Frequency).unwrap();
    let flat = TransactionDb::from_int_transactions(p.flattened.iter().cloned());
    audit(&p.table, &claim, flattened.then_some(&flat), original.then_some(&p.original)).map(|_| ())
}

/// Bucket `b`'s multisets recomputed from flattened rows `rows`.
fn bucket_of(table: &AnatomizedTable, rows: &[Vec<u32>]) -> Bucket {
    let columns = table
        .columns
        .iter()
        .map(|col| {
            let mut counts: BTreeMap<Vec<u32>, usize> = BTreeMap::new();
            for row in rows {
                let value: Vec<u32> = (0..col.len() as u32)
                    .filter(|&k| row.iter().any(|i| i.to_string() == col[k as usize]))
                    .collect();
                *counts.entry(value).or_default() += 1;
            }
            counts.into_iter().map(|(v, c)| ValueCount(c, v.into())).collect()
        })
        .collect();
    Bucket { size: rows.len(), columns }
}

/// A column of bucket `b` holding at least two values.
fn varied(table: &AnatomizedTable, b: usize) -> usize {
    (0..table.columns.len()).find(|&j| table.buckets[b].columns[j].len() >= 2).unwrap()
}

/// The tamper assertion of every suite ([`txanon_testkit::rejects!`]), on the publication
/// checked with or without its flattened records and the original.
macro_rules! rejects {
    ($p:expr, $flat:expr, $orig:expr, $pattern:pat) => {{ txanon_testkit::rejects!(run(&$p, $flat, $orig), txanon_anatomy::Anatomy, $pattern) }};
}

#[test]
fn the_untampered_publication_passes() {
    for seed in 1..4 {
        run(&valid(seed), true, true).unwrap();
    }
}

#[test]
fn tampered_tables_are_rejected() {
    let good = valid(1);
    let edit = |f: &dyn Fn(&mut Publication)| {
        let mut p = good.clone();
        f(&mut p);
        p
    };
    use AnatomyViolation as V;
    // 1. Another format.
    rejects!(
        edit(&|p| p.table.format = "txanon-anatomy-table/0".into()),
        false,
        false,
        V::Format { .. }
    );
    // 2. An item in two columns.
    rejects!(
        edit(&|p| {
            let item = p.table.columns[0][0].clone();
            p.table.columns[1].push(item);
        }),
        false,
        false,
        V::ItemInTwoColumns { first: 0, second: 1, .. }
    );
    // 3. An item twice in one column.
    rejects!(
        edit(&|p| {
            let item = p.table.columns[2][0].clone();
            p.table.columns[2].push(item);
        }),
        false,
        false,
        V::ItemInTwoColumns { first: 2, second: 2, .. }
    );
    // 4. No bucket.
    rejects!(edit(&|p| p.table.buckets.clear()), false, false, V::NoBucket);
    // 5. A bucket that lost a column.
    rejects!(
        edit(&|p| {
            p.table.buckets[0].columns.pop();
        }),
        false,
        false,
        V::ColumnCount { bucket: 0, .. }
    );
    // 6. An empty bucket.
    rejects!(
        edit(&|p| p.table.buckets.push(Bucket { size: 0, columns: vec![vec![]; 3] })),
        false,
        false,
        V::EmptyBucket { .. }
    );
    // 7. A value with count 0.
    rejects!(
        edit(&|p| p.table.buckets[1].columns[0].insert(0, ValueCount(0, vec![].into()))),
        false,
        false,
        V::ZeroCount { bucket: 1, column: 0 }
    );
    // 8. A position beyond the column.
    rejects!(
        edit(&|p| {
            let width = p.table.columns[0].len() as u32;
            p.table.buckets[0].columns[0][0].1 = vec![width].into();
        }),
        false,
        false,
        V::MalformedValue { bucket: 0, column: 0 }
    );
    // 9. Positions in descending order.
    rejects!(
        edit(&|p| p.table.buckets[0].columns[0][0].1 = vec![1, 0].into()),
        false,
        false,
        V::MalformedValue { bucket: 0, column: 0 }
    );
    // 10. Values out of canonical order.
    rejects!(
        edit(&|p| {
            let j = varied(&p.table, 0);
            p.table.buckets[0].columns[j].swap(0, 1);
        }),
        false,
        false,
        V::NotCanonical { bucket: 0, .. }
    );
    // 11. A value listed twice, its count split so the sum still holds.
    rejects!(
        edit(&|p| {
            let j = varied(&p.table, 0);
            let ms = &mut p.table.buckets[0].columns[j];
            let i = ms.iter().position(|v| v.0 >= 2).unwrap_or(0);
            if ms[i].0 >= 2 {
                ms[i].0 -= 1;
                let copy = ValueCount(1, ms[i].1.clone());
                ms.insert(i + 1, copy);
            } else {
                let copy = ms[i].clone();
                ms.insert(i + 1, copy);
            }
        }),
        false,
        false,
        V::NotCanonical { bucket: 0, .. }
    );
    // 12. A count raised: the counts no longer add up to the bucket.
    rejects!(
        edit(&|p| p.table.buckets[2].columns[1][0].0 += 1),
        false,
        false,
        V::SizeMismatch { bucket: 2, column: 1, .. }
    );
    // 13. Counts that wrap around 2^64 to the bucket's size.
    rejects!(
        edit(&|p| {
            let j = varied(&p.table, 0);
            let size = p.table.buckets[0].size;
            let ms = &mut p.table.buckets[0].columns[j];
            ms[0].0 = usize::MAX;
            ms[1].0 = 1 + size - ms[2..].iter().map(|v| v.0).sum::<usize>();
        }),
        false,
        false,
        V::SizeMismatch { bucket: 0, values: None, .. }
    );
    // 14. A size and counts near 2^63 that make 2 · count wrap below the size.
    rejects!(
        edit(&|p| {
            let half = 1usize << 63;
            p.table.buckets[0] = Bucket {
                size: half + 1,
                columns: vec![
                    vec![ValueCount(half, vec![].into()), ValueCount(1, vec![0].into())];
                    3
                ],
            };
        }),
        false,
        false,
        V::ShareAboveBound { bucket: 0, .. }
    );
    // 15. One value made to dominate its bucket, sizes kept.
    rejects!(
        edit(&|p| {
            // The largest bucket, so that size − 1 of size is above one half.
            let b = (0..p.table.buckets.len()).max_by_key(|&b| p.table.buckets[b].size).unwrap();
            let j = varied(&p.table, b);
            let size = p.table.buckets[b].size;
            let ms = &mut p.table.buckets[b].columns[j];
            ms.truncate(2);
            ms[0].0 = size - 1;
            ms[1].0 = 1;
        }),
        false,
        false,
        V::ShareAboveBound { .. }
    );
    // 16. A bucket split in two along the flattened records: the small part is not diverse.
    rejects!(
        edit(&|p| {
            let first = bucket_of(&p.table, &p.flattened[..1]);
            let size0 = p.table.buckets[0].size;
            let rest = bucket_of(&p.table, &p.flattened[1..size0]);
            p.table.buckets.splice(0..1, [first, rest]);
        }),
        true,
        true,
        V::ShareAboveBound { bucket: 0, count: 1, size: 1, .. }
    );
}

#[test]
fn tampered_flattened_records_and_originals_are_rejected() {
    let good = valid(2);
    let edit = |f: &dyn Fn(&mut Publication)| {
        let mut p = good.clone();
        f(&mut p);
        p
    };
    use AnatomyViolation as V;
    let size0 = good.table.buckets[0].size;
    // 17. A flattened record dropped.
    rejects!(
        edit(&|p| {
            p.flattened.pop();
        }),
        true,
        false,
        V::FlattenedRecords { .. }
    );
    // 18. A flattened record duplicated over another of its bucket (truncated and duplicated).
    rejects!(
        edit(&|p| {
            let j = (1..size0).find(|&j| p.flattened[j] != p.flattened[0]).unwrap();
            p.flattened[j] = p.flattened[0].clone();
        }),
        true,
        false,
        V::FlattenedBucket { bucket: 0, .. }
    );
    // 18b. Every record moved one place down (a flattened file broken throughout): the audit
    // lists the first violations in table order and says it stopped looking.
    let shifted = edit(&|p| p.flattened.rotate_right(1));
    match run(&shifted, true, false) {
        Err(AnatomyError::Audit(v)) => {
            assert_eq!(v.list().len(), txanon_data::audit::MAX_VIOLATIONS, "{v}");
            assert!(v.truncated(), "{v}");
            let buckets: Vec<usize> = v
                .list()
                .iter()
                .map(|x| match x {
                    V::FlattenedBucket { bucket, .. } => *bucket,
                    other => panic!("{other}"),
                })
                .collect();
            assert!(buckets.windows(2).all(|w| w[0] <= w[1]), "in table order: {buckets:?}");
        }
        other => panic!("expected a failed audit, got {other:?}"),
    }
    // 19. An item renamed in the flattened file.
    rejects!(edit(&|p| p.flattened[0].push(999_999)), true, false, V::FlattenedItem { .. });
    // 20. Records moved across buckets.
    rejects!(
        edit(&|p| {
            let last = p.flattened.len() - 1;
            let j = (0..size0).find(|&j| p.flattened[j] != p.flattened[last]).unwrap();
            p.flattened.swap(j, last);
        }),
        true,
        false,
        V::FlattenedBucket { .. }
    );
    // 21. Two non-adjacent buckets merged in the table (the flattened order no longer fits).
    rejects!(
        edit(&|p| {
            let size1 = p.table.buckets[1].size;
            let size2 = p.table.buckets[2].size;
            let mut rows = p.flattened[..size0].to_vec();
            rows.extend_from_slice(&p.flattened[size0 + size1..size0 + size1 + size2]);
            let merged = bucket_of(&p.table, &rows);
            p.table.buckets[0] = merged;
            p.table.buckets.remove(2);
        }),
        true,
        false,
        V::FlattenedBucket { .. }
    );
    // 22. An item of the table renamed: not an item of the original.
    rejects!(
        edit(&|p| p.table.columns[0][0] = "999999".into()),
        false,
        true,
        V::ItemNotInOriginal { .. }
    );
    // 23. An original item left out of every column.
    rejects!(
        edit(&|p| {
            let mut rows = int_rows(&p.original);
            rows[0].push(888_888);
            p.original = TransactionDb::from_int_transactions(rows);
        }),
        false,
        true,
        V::ItemMissing { .. }
    );
    // 24. More records than the original.
    rejects!(
        edit(&|p| {
            let rows = int_rows(&p.original);
            let keep = rows.len() - p.table.buckets[0].size - 1;
            p.original = TransactionDb::from_int_transactions(rows.into_iter().take(keep));
        }),
        false,
        true,
        V::MoreRecordsThanOriginal { .. } | V::ItemMissing { .. } | V::ItemNotInOriginal { .. }
    );
    // 25. A value replaced by another the original never has in that column.
    rejects!(
        edit(&|p| {
            let j = varied(&p.table, 0);
            let width = p.table.columns[j].len() as u32;
            p.table.buckets[0].columns[j][0].1 = (0..width).collect();
            p.table.buckets[0].columns[j].sort_by(|a, b| a.1.cmp(&b.1));
        }),
        false,
        true,
        V::ColumnNotFromOriginal { .. } | V::NotCanonical { .. }
    );
    // 26. Two items of a column renamed into each other.
    rejects!(
        edit(&|p| {
            let j = (0..p.table.columns.len()).find(|&j| p.table.columns[j].len() >= 2).unwrap();
            p.table.columns[j].swap(0, 1);
        }),
        true,
        true,
        V::FlattenedBucket { .. } | V::ColumnNotFromOriginal { .. }
    );
    // 27. An item of column 0 dropped from one record of the original, an item other records
    // still hold (every item and record still there): the flattened records, equal to the
    // table, hold a value the original holds once less, named with the table.
    let dropped = edit(&|p| {
        let mut rows = int_rows(&p.original);
        let column: Vec<u32> = p.table.columns[0].iter().map(|i| i.parse().unwrap()).collect();
        let held = |x: u32, rows: &[Vec<u32>]| rows.iter().filter(|r| r.contains(&x)).count();
        let (a, x) = (0..rows.len())
            .find_map(|a| {
                let x = *rows[a].iter().find(|&&x| column.contains(&x) && held(x, &rows) > 1)?;
                Some((a, x))
            })
            .unwrap();
        rows[a].retain(|&i| i != x);
        p.original = TransactionDb::from_int_transactions(rows);
    });
    rejects!(dropped.clone(), true, true, V::ColumnNotFromOriginal { column: 0, .. });
    // The flattened records only speed the check: the violations are the table's either way.
    let listed = |flattened| match run(&dropped, flattened, true) {
        Err(AnatomyError::Audit(v)) => v.list().to_vec(),
        other => panic!("expected a failed audit, got {other:?}"),
    };
    assert_eq!(listed(true), listed(false));
}

/// Definition 5 by brute force, from the table alone: every bucket and column, its multiset
/// recounted value by value.
fn brute_force_valid(table: &AnatomizedTable, l: usize) -> bool {
    if table.buckets.is_empty() {
        return false;
    }
    let mut seen = std::collections::BTreeSet::new();
    for col in &table.columns {
        for item in col {
            if !seen.insert(item) {
                return false;
            }
        }
    }
    table.buckets.iter().all(|b| {
        b.size > 0
            && b.columns.len() == table.columns.len()
            && b.columns.iter().enumerate().all(|(j, ms)| {
                let mut total: u128 = 0;
                let mut values = std::collections::BTreeSet::new();
                let mut last: Option<&std::sync::Arc<[u32]>> = None;
                for ValueCount(c, v) in ms {
                    if *c == 0
                        || !v.windows(2).all(|w| w[0] < w[1])
                        || v.iter().any(|&k| k as usize >= table.columns[j].len())
                        || last.is_some_and(|x| x >= v)
                        || !values.insert(v.clone())
                    {
                        return false;
                    }
                    last = Some(v);
                    total += *c as u128;
                    if (*c as u128) * (l as u128) > b.size as u128 {
                        return false;
                    }
                }
                total == b.size as u128
            })
    })
}

/// A table of 40,000 two-record buckets (more than the audit's blocks of buckets) with
/// buckets broken on both sides of the blocks' edges: the violations come in table order,
/// each with its bucket, and past the log's room the audit says it stopped.
#[test]
fn broken_buckets_across_the_audits_blocks_are_named_in_order() {
    let value = |count, positions: &[u32]| ValueCount(count, positions.into());
    let diverse = || Bucket { size: 2, columns: vec![vec![value(1, &[0]), value(1, &[1])]] };
    let table = |broken: &[usize]| {
        let mut table = AnatomizedTable {
            format: txanon_anatomy::TABLE_FORMAT.into(),
            l: 2,
            diversity: Diversity::Frequency,
            columns: vec![vec!["a".into(), "b".into()]],
            buckets: (0..40_000).map(|_| diverse()).collect(),
        };
        for &b in broken {
            table.buckets[b].columns[0] = vec![value(2, &[0])];
        }
        table
    };
    let claim = AnatomyClaim::new(2, Diversity::Frequency).unwrap();
    let named = |broken: &[usize]| match audit(&table(broken), &claim, None, None) {
        Err(AnatomyError::Audit(v)) => {
            let buckets: Vec<usize> = v
                .list()
                .iter()
                .map(|x| match x {
                    AnatomyViolation::ShareAboveBound { bucket, .. } => *bucket,
                    other => panic!("{other}"),
                })
                .collect();
            (buckets, v.truncated())
        }
        other => panic!("expected a failed audit, got {other:?}"),
    };
    assert!(audit(&table(&[]), &claim, None, None).is_ok());
    let edges = [0, 16_383, 16_384, 32_767, 32_768, 39_999];
    assert_eq!(named(&edges), (edges.to_vec(), false));
    // Every 1,000th bucket: the first twenty, and no more looked for.
    let many: Vec<usize> = (0..40).map(|k| k * 1000 + 7).collect();
    let max = txanon_data::audit::MAX_VIOLATIONS;
    assert_eq!(named(&many), (many[..max].to_vec(), true));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A random single edit of a valid table: rejected, or valid by brute force.
    #[test]
    fn a_random_edit_is_rejected_or_still_valid(
        seed in 1u64..4,
        bucket in any::<prop::sample::Index>(),
        column in any::<prop::sample::Index>(),
        value in any::<prop::sample::Index>(),
        kind in 0u8..5,
        amount in 1usize..4,
    ) {
        let mut p = valid(seed);
        let b = bucket.index(p.table.buckets.len());
        let j = column.index(p.table.columns.len());
        let ms = &mut p.table.buckets[b].columns[j];
        let v = value.index(ms.len());
        match kind {
            0 => ms[v].0 += amount,
            1 => ms[v].0 = ms[v].0.saturating_sub(amount),
            2 => p.table.buckets[b].size += amount,
            3 => { let moved = ms[v].0.min(amount); ms[v].0 -= moved; let w = (v + 1) % ms.len(); ms[w].0 += moved; }
            _ => { ms.remove(v); }
        }
        let audited = run(&p, false, false).is_ok();
        prop_assert_eq!(audited, brute_force_valid(&p.table, 2));
    }
}
