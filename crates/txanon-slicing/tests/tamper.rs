//! The audits of the three publications against tables broken on purpose, and random single
//! edits of a sliced table against a brute-force reading of the definition.

use std::collections::HashMap;

use proptest::prelude::*;
use txanon_slicing::{
    AnatomyBaselinePublication, AnatomyTables, BaselineParams, ColumnSpec, GeneralizedTable,
    Microdata, MondrianPublication, SlicedTable, SlicingClaim, SlicingParams, SlicingViolation,
    anatomize, anonymize, audit, audit_anatomy, audit_generalized, mondrian,
};

use super::{original_tuples, p_by_definition, random_table, table1};

/// 600 tuples: a numeric a (40 values), b (3 values), a numeric c (4 values), s (6 values).
fn data() -> Microdata {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |m: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % m) as u8
    };
    let rows: Vec<(u8, u8, u8, u8)> =
        (0..600).map(|_| (20 + next(40), next(3), next(4), next(6))).collect();
    random_table(&rows)
}

fn columns() -> ColumnSpec {
    ColumnSpec::Explicit(vec![vec!["a".into(), "b".into()], vec!["c".into(), "s".into()]])
}

fn sliced(data: &Microdata) -> SlicedTable {
    anonymize(data, &SlicingParams::new(columns(), 3).seed(Some(1)).check().unwrap()).unwrap().table
}

fn claim(l: u64) -> SlicingClaim {
    SlicingClaim::new(l).unwrap()
}

/// The tamper assertion of every suite ([`txanon_testkit::rejects!`]) for this family's contract.
macro_rules! rejects {
    ($run:expr, $pattern:pat) => {
        txanon_testkit::rejects!($run, txanon_slicing::Slicing, $pattern)
    };
}

/// The published rows rebuilt from the original tuples, bucket by bucket, unpermuted: each
/// tuple goes to the first bucket holding its values in both columns.
fn unpermuted(table: &SlicedTable, data: &Microdata) -> SlicedTable {
    let mut left: HashMap<(u32, usize, Vec<String>), usize> = HashMap::new();
    for row in &table.rows {
        *left.entry((row.bucket, 0, row.cells[..2].to_vec())).or_default() += 1;
        *left.entry((row.bucket, 1, row.cells[2..].to_vec())).or_default() += 1;
    }
    let mut buckets: Vec<u32> = table.rows.iter().map(|r| r.bucket).collect();
    buckets.sort_unstable();
    buckets.dedup();
    let mut rows = Vec::new();
    for tuple in original_tuples(data) {
        let cells = tuple.clone();
        let keys = |b: u32| [(b, 0, cells[..2].to_vec()), (b, 1, cells[2..].to_vec())];
        let bucket = buckets
            .iter()
            .copied()
            .find(|&b| keys(b).iter().all(|k| left.get(k).is_some_and(|&n| n > 0)))
            .unwrap();
        for k in keys(bucket) {
            *left.get_mut(&k).unwrap() -= 1;
        }
        rows.push(txanon_slicing::SlicedRow { bucket, cells });
    }
    SlicedTable { meta: table.meta.clone(), rows }
}

#[test]
fn tampered_sliced_tables_are_rejected() {
    let data = data();
    let good = sliced(&data);
    assert!(good.meta.buckets >= 4, "{} buckets", good.meta.buckets);
    let report = audit(&good, &data, &claim(3)).unwrap();
    assert!(report.identical_rows as f64 <= report.identical_rows_expected * 3.0 + 10.0);
    let edit = |f: &dyn Fn(&mut SlicedTable)| {
        let mut t = good.clone();
        f(&mut t);
        t
    };
    use SlicingViolation as V;
    // 1. Every sensitive value replaced by an invented one (each distinct: as diverse as can be).
    rejects!(
        audit(
            &edit(&|t| for (k, r) in t.rows.iter_mut().enumerate() {
                r.cells[3] = format!("x{k}")
            }),
            &data,
            &claim(3)
        ),
        V::ColumnValues { column: 1 }
    );
    // 2. One sensitive value replaced by another that exists.
    rejects!(
        audit(
            &edit(&|t| {
                let other = t
                    .rows
                    .iter()
                    .map(|r| r.cells[3].clone())
                    .find(|v| v != &t.rows[0].cells[3])
                    .unwrap();
                t.rows[0].cells[3] = other;
            }),
            &data,
            &claim(3)
        ),
        V::ColumnValues { column: 1 }
    );
    // 3. The table published unpermuted: every row an original tuple.
    rejects!(audit(&unpermuted(&good, &data), &data, &claim(3)), V::Unpermuted { .. });
    // 4. The auditor's ℓ is what counts: the file's claim of ℓ = 1 lowers nothing, and a
    // stronger claim than the buckets give fails.
    audit(&edit(&|t| t.meta.l = 1), &data, &claim(3)).unwrap();
    rejects!(audit(&good, &data, &claim(8)), V::Inference { l: 8, .. });
    // 5. A row dropped.
    rejects!(
        audit(
            &edit(&|t| {
                t.rows.pop();
            }),
            &data,
            &claim(3)
        ),
        V::RowCount { .. }
    );
    // 6. A row duplicated over another.
    rejects!(
        audit(
            &edit(&|t| {
                let first = t.rows[0].clone();
                let j = t.rows.iter().position(|r| r.cells != first.cells).unwrap();
                t.rows[j] = first;
            }),
            &data,
            &claim(3)
        ),
        V::ColumnValues { .. }
    );
    // 7. A value of the first column changed.
    rejects!(
        audit(&edit(&|t| t.rows[0].cells[0] = "99".into()), &data, &claim(3)),
        V::ColumnValues { column: 0 }
    );
    // 8. An attribute renamed.
    rejects!(
        audit(&edit(&|t| t.meta.columns[0][0] = "age".into()), &data, &claim(3)),
        V::Attributes { .. }
    );
    // 9. The sensitive attribute renamed.
    rejects!(
        audit(&edit(&|t| t.meta.sensitive = "c".into()), &data, &claim(3)),
        V::SensitiveAttribute { .. }
    );
    // 10. The sensitive attribute's column moved first.
    rejects!(
        audit(
            &edit(&|t| {
                t.meta.columns.swap(0, 1);
                for r in &mut t.rows {
                    r.cells.rotate_left(2);
                }
            }),
            &data,
            &claim(3)
        ),
        V::SensitiveNotLast
    );
    // 11. Two rows exchange their (c, s) cells across buckets: the buckets no longer hold
    // whole tuples.
    rejects!(
        audit(
            &edit(&|t| {
                let j = t
                    .rows
                    .iter()
                    .position(|r| {
                        r.bucket != t.rows[0].bucket && r.cells[2..] != t.rows[0].cells[2..]
                    })
                    .unwrap();
                let (a, b) = (t.rows[0].cells[2..].to_vec(), t.rows[j].cells[2..].to_vec());
                t.rows[0].cells.splice(2.., b);
                t.rows[j].cells.splice(2.., a);
            }),
            &data,
            &claim(3)
        ),
        V::NoBucketFor { .. } | V::Inference { .. }
    );
    // 12. A bucket split in two halves by relabelling: each half's columns no longer fit its
    // tuples.
    rejects!(
        audit(
            &edit(&|t| {
                let b = t.rows[0].bucket;
                for (k, r) in t.rows.iter_mut().filter(|r| r.bucket == b).enumerate() {
                    if k % 2 == 1 {
                        r.bucket = 10_000;
                    }
                }
            }),
            &data,
            &claim(3)
        ),
        V::NoBucketFor { .. } | V::Inference { .. }
    );
}

#[test]
fn tampered_baselines_are_rejected() {
    let data = data();
    use SlicingViolation as V;
    let MondrianPublication { table: good, audit: _ } =
        mondrian(&data, &BaselineParams::new(5, 3).seed(Some(2)).check().unwrap()).unwrap();
    let mclaim = SlicingClaim::with_k(3, 5).unwrap();
    audit_generalized(&good, &data, &mclaim).unwrap();
    let edit = |f: &dyn Fn(&mut GeneralizedTable)| {
        let mut t = good.clone();
        f(&mut t);
        t
    };
    // 13. A class's age range narrowed so that it no longer covers its members.
    let ranged = good.rows.iter().position(|r| r[0].starts_with('[')).unwrap();
    let narrowed = edit(&|t| {
        let cell = t.rows[ranged][0].clone();
        let (lo, _) = cell.trim_matches(|c| c == '[' || c == ']').split_once("..").unwrap();
        let new = format!("[{lo}..{lo}]");
        for r in t.rows.iter_mut().filter(|r| r[0] == cell) {
            r[0] = new.clone();
        }
    });
    rejects!(audit_generalized(&narrowed, &data, &mclaim), V::NotCovered { .. });
    // 14. The auditor's k: classes of 5 are not classes of 50.
    rejects!(
        audit_generalized(&good, &data, &SlicingClaim::with_k(3, 50).unwrap()),
        V::ClassTooSmall { k: 50, .. }
    );
    // 15. A row split off into a class of its own.
    rejects!(
        audit_generalized(&edit(&|t| t.rows[0][1] = "{lonely}".into()), &data, &mclaim),
        V::ClassTooSmall { size: 1, .. }
    );
    // 16. A sensitive value changed to one its class already holds too often.
    rejects!(
        audit_generalized(
            &edit(&|t| {
                let class: Vec<String> = t.rows[0][..3].to_vec();
                let v = t.rows[0][3].clone();
                for r in t.rows.iter_mut().filter(|r| r[..3] == class[..]) {
                    r[3] = v.clone();
                }
            }),
            &data,
            &mclaim
        ),
        V::ShareAboveBound { .. }
    );
    // 17. A row dropped.
    rejects!(
        audit_generalized(
            &edit(&|t| {
                t.rows.pop();
            }),
            &data,
            &mclaim
        ),
        V::RowCount { .. }
    );
    // 18. A sensitive value invented.
    rejects!(
        audit_generalized(&edit(&|t| t.rows[0][3] = "invented".into()), &data, &mclaim),
        V::NotCovered { .. }
    );

    let AnatomyBaselinePublication { tables, audit: _ } =
        anatomize(&data, &BaselineParams::new(1, 3).seed(Some(3)).check().unwrap()).unwrap();
    let aclaim = claim(3);
    audit_anatomy(&tables, &data, &aclaim).unwrap();
    let edit = |f: &dyn Fn(&mut AnatomyTables)| {
        let mut t = tables.clone();
        f(&mut t);
        t
    };
    // 19. A sensitive count raised.
    rejects!(audit_anatomy(&edit(&|t| t.st[0].2 += 1), &data, &aclaim), V::GroupSize { .. });
    // 20. Counts near 2^32 that would wrap a 32-bit sum to the group's size.
    rejects!(
        audit_anatomy(
            &edit(&|t| {
                t.st[0].2 = u32::MAX;
                t.st[1].2 = u32::MAX;
            }),
            &data,
            &aclaim
        ),
        V::GroupSize { .. }
    );
    // 21. A group's values made one value: above 1/ℓ.
    rejects!(
        audit_anatomy(
            &edit(&|t| {
                let g = t.st[0].0;
                let total: u32 = t.st.iter().filter(|x| x.0 == g).map(|x| x.2).sum();
                let v = t.st[0].1.clone();
                t.st.retain(|x| x.0 != g);
                t.st.push((g, v, total));
            }),
            &data,
            &aclaim
        ),
        V::ShareAboveBound { .. }
    );
    // 22. A quasi-identifier altered.
    rejects!(
        audit_anatomy(&edit(&|t| t.qit[0].1[0] = "99".into()), &data, &aclaim),
        V::TablesNotFromOriginal
    );
    // 23. A sensitive value renamed.
    rejects!(
        audit_anatomy(&edit(&|t| t.st[0].1 = "renamed".into()), &data, &aclaim),
        V::SensitiveValues
    );
    // 24. Sensitive values exchanged between two groups (one tuple's value each way): sizes,
    // totals and shares kept, but a group no longer holds its tuples' values. Every such
    // exchange between groups whose quasi-identifiers each identify one tuple (the QIT holds
    // every tuple's once) and that keeps the shares is caught; elsewhere an exchange can be
    // consistent with the original, and passes.
    let mut times: std::collections::HashMap<&[String], usize> = Default::default();
    for (_, qi) in &tables.qit {
        *times.entry(qi.as_slice()).or_default() += 1;
    }
    let identifying =
        |g: u32| tables.qit.iter().filter(|x| x.0 == g).all(|x| times[x.1.as_slice()] == 1);
    let size = |t: &AnatomyTables, g: u32| t.qit.iter().filter(|x| x.0 == g).count() as u64;
    let count = |t: &AnatomyTables, g: u32, v: &str| {
        t.st.iter().find(|x| x.0 == g && x.1 == v).map_or(0, |x| u64::from(x.2))
    };
    let mut exchanged = 0;
    for (x, y) in (0..tables.st.len()).flat_map(|x| (0..tables.st.len()).map(move |y| (x, y))) {
        let ((ga, va, _), (gb, vb, _)) = (&tables.st[x], &tables.st[y]);
        if ga >= gb || va == vb || !identifying(*ga) || !identifying(*gb) {
            continue;
        }
        let fits = |g: u32, v: &str| (count(&tables, g, v) + 1) * 3 <= size(&tables, g);
        if !fits(*gb, va) || !fits(*ga, vb) {
            continue;
        }
        let moved = edit(&|t| {
            let mut add =
                |g: u32, v: &str, d: i64| match t.st.iter_mut().find(|x| x.0 == g && x.1 == v) {
                    Some(e) => e.2 = (i64::from(e.2) + d) as u32,
                    None => t.st.push((g, v.to_string(), d as u32)),
                };
            add(*ga, va, -1);
            add(*gb, va, 1);
            add(*gb, vb, -1);
            add(*ga, vb, 1);
            t.st.retain(|e| e.2 > 0);
        });
        rejects!(audit_anatomy(&moved, &data, &aclaim), V::GroupSensitive { .. });
        exchanged += 1;
        if exchanged == 10 {
            break;
        }
    }
    assert!(exchanged > 0, "no exchange kept the shares");
}

/// Whether `table` is an ℓ-diverse slicing of `data` by brute force: some assignment of the
/// tuples to the buckets gives every bucket exactly its rows' column values, and every tuple's
/// `p(t, s)` by the definition is at most `1/ℓ`.
fn brute_force_valid(table: &SlicedTable, data: &Microdata, l: usize) -> bool {
    let tuples = original_tuples(data);
    if table.rows.len() != tuples.len() {
        return false;
    }
    let mut buckets: Vec<u32> = table.rows.iter().map(|r| r.bucket).collect();
    buckets.sort_unstable();
    buckets.dedup();
    let multiset = |rows: Vec<Vec<String>>| {
        let mut m = rows;
        m.sort();
        m
    };
    let column =
        |cells: &[String], d: usize| if d == 0 { cells[..2].to_vec() } else { cells[2..].to_vec() };
    // Every assignment of the tuples to the buckets.
    let choices = buckets.len().pow(tuples.len() as u32);
    let fits = (0..choices).any(|mut code| {
        let mut of_bucket: HashMap<u32, Vec<&Vec<String>>> = HashMap::new();
        for t in &tuples {
            of_bucket.entry(buckets[code % buckets.len()]).or_default().push(t);
            code /= buckets.len();
        }
        buckets.iter().all(|b| {
            let rows: Vec<&Vec<String>> =
                table.rows.iter().filter(|r| r.bucket == *b).map(|r| &r.cells).collect();
            let mine = of_bucket.get(b).cloned().unwrap_or_default();
            (0..2).all(|d| {
                multiset(rows.iter().map(|r| column(r, d)).collect())
                    == multiset(mine.iter().map(|t| column(t, d)).collect())
            })
        })
    });
    fits && tuples.iter().all(|t| {
        let t: Vec<&str> = t.iter().map(String::as_str).collect();
        p_by_definition(table, &t).values().all(|&p| p <= 1.0 / l as f64 + 1e-9)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// A random single edit of the paper's sliced Table 1: rejected, or a valid slicing by
    /// brute force.
    #[test]
    fn a_random_edit_is_rejected_or_still_valid(
        row in 0usize..8,
        other in 0usize..8,
        cell in 0usize..4,
        kind in 0u8..3,
    ) {
        let data = table1();
        let spec = ColumnSpec::Explicit(vec![vec!["Age".into(), "Sex".into()], vec!["Zipcode".into(), "Disease".into()]]);
        let mut table = anonymize(&data, &SlicingParams::new(spec, 2).seed(Some(7)).check().unwrap()).unwrap().table;
        match kind {
            0 => { let v = table.rows[other].cells[cell].clone(); table.rows[row].cells[cell] = v; }
            1 => { let b = table.rows[other].bucket; table.rows[row].bucket = b; }
            _ => { let v = table.rows[other].cells.clone(); table.rows[row].cells = v; }
        }
        let audited = audit(&table, &data, &SlicingClaim::new(2).unwrap()).is_ok();
        prop_assert_eq!(audited, brute_force_valid(&table, &data, 2));
    }
}
