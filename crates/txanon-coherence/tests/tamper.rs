//! The audit against publications broken on purpose, against a brute-force check of the
//! definition on random data, and on wide transactions.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use txanon_coherence::{
    CoherenceClaim, CoherenceError, CoherenceParams, CoherenceViolation, anonymize, audit,
};
use txanon_data::{QuestParams, TransactionDb};

const H: f64 = 0.5;
const K: u64 = 3;
const P: u64 = 2;

/// Rows of integer labels.
fn rows(db: &TransactionDb) -> Vec<Vec<u32>> {
    db.iter()
        .map(|t| t.iter().map(|&i| db.label(i).to_string().parse().unwrap()).collect())
        .collect()
}

fn db(rows: &[Vec<u32>]) -> TransactionDb {
    TransactionDb::from_int_transactions(rows.iter().cloned())
}

/// A valid publication (rows), the original and the private labels; made once.
fn valid() -> (Vec<Vec<u32>>, TransactionDb, Vec<String>) {
    static MADE: std::sync::OnceLock<(Vec<Vec<u32>>, TransactionDb, Vec<String>)> =
        std::sync::OnceLock::new();
    MADE.get_or_init(make_valid).clone()
}

fn make_valid() -> (Vec<Vec<u32>>, TransactionDb, Vec<String>) {
    let original = QuestParams::new(600, 5.0, 3.0, 40).seed(3).check().unwrap().generate();
    // Private: four items of middling support.
    let mut by_support: Vec<u32> = (0..original.num_items() as u32).collect();
    by_support.sort_by_key(|&i| (original.supports()[i as usize], i));
    let private: Vec<u32> =
        by_support[by_support.len() / 2..].iter().step_by(7).take(4).copied().collect();
    let params = CoherenceParams::new(H, K as u32, P as usize, 5).seed(Some(1)).check().unwrap();
    let result = anonymize(&original, &private, &params).unwrap();
    assert!(!result.suppressed.is_empty(), "something to restore");
    let labels = private.iter().map(|&s| original.label(s).to_string()).collect();
    (rows(&result.published), original, labels)
}

fn run(
    published: &[Vec<u32>],
    private: &[String],
    (h, k, p): (f64, u64, u64),
    original: Option<&TransactionDb>,
) -> Result<(), CoherenceError> {
    let claim = CoherenceClaim::new(h, k, p).unwrap().private(private.to_vec());
    audit(&db(published), &claim, original).map(|_| ())
}

/// The tamper assertion of every suite ([`txanon_testkit::rejects!`]) for this family's contract.
macro_rules! rejects {
    ($run:expr, $pattern:pat) => {
        txanon_testkit::rejects!($run, txanon_coherence::Coherence, $pattern)
    };
}

#[test]
fn tampered_publications_are_rejected() {
    let (good, original, private) = valid();
    let o = Some(&original);
    let setting = (H, K, P);
    run(&good, &private, setting, o).unwrap();
    let private_ids: Vec<u32> = private.iter().map(|s| s.parse().unwrap()).collect();
    let published_items: BTreeSet<u32> = good.iter().flatten().copied().collect();
    let suppressed: Vec<u32> = rows(&original)
        .into_iter()
        .flatten()
        .filter(|i| !published_items.contains(i))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let edit = |f: &dyn Fn(&mut Vec<Vec<u32>>)| {
        let mut p = good.clone();
        f(&mut p);
        p
    };
    let with_private = good.iter().position(|t| t.iter().any(|i| private_ids.contains(i))).unwrap();
    let public_of = |t: &Vec<u32>| t.iter().copied().find(|i| !private_ids.contains(i));
    let with_public = good.iter().position(|t| public_of(t).is_some()).unwrap();
    use CoherenceViolation as V;
    // 1. Fewer transactions than k.
    rejects!(
        run(&good[..2], &private, setting, None),
        V::TooFewTransactions { transactions: 2, k: 3 }
    );
    // 2. No transaction at all.
    rejects!(run(&[], &private, setting, None), V::TooFewTransactions { transactions: 0, .. });
    // 3. A suppressed item restored in one transaction.
    let restored = edit(&|p| {
        p[0].push(suppressed[0]);
        p[0].sort_unstable();
    });
    rejects!(run(&restored, &private, setting, None), V::RareItemset { support: 1, .. });
    rejects!(run(&restored, &private, setting, o), V::PartlySuppressed { .. });
    // 4. An item invented.
    rejects!(run(&edit(&|p| p[0].push(1_000_000)), &private, setting, o), V::RareItemset { .. });
    rejects!(
        run(&edit(&|p| p[0].push(1_000_000)), &private, setting, o),
        V::ItemNotInOriginal { .. }
    );
    // 5. A private item removed from one transaction.
    rejects!(
        run(&edit(&|p| p[with_private].retain(|i| !private_ids.contains(i))), &private, setting, o),
        V::PrivateChanged { .. }
    );
    // 6. A private item added to many transactions of one public item: a breach.
    let public = public_of(&good[with_public]).unwrap();
    let breach = edit(&|p| {
        for t in p.iter_mut().filter(|t| t.contains(&public)) {
            t.push(private_ids[0]);
            t.sort_unstable();
            t.dedup();
        }
    });
    rejects!(run(&breach, &private, setting, None), V::Breach { .. });
    // 7. Declassified: a private item renamed, so the auditor's list no longer finds it.
    rejects!(
        run(
            &edit(&|p| {
                for t in p.iter_mut() {
                    for i in t.iter_mut().filter(|i| **i == private_ids[0]) {
                        *i = 2_000_000;
                    }
                }
            }),
            &private,
            setting,
            o
        ),
        V::ItemNotInOriginal { .. } | V::PrivateChanged { .. }
    );
    // 8. A transaction duplicated over another.
    rejects!(
        run(
            &edit(&|p| {
                let j = (1..p.len()).find(|&j| p[j] != p[0]).unwrap();
                p[j] = p[0].clone();
            }),
            &private,
            setting,
            o
        ),
        V::TransactionsNotFromOriginal { .. }
            | V::PartlySuppressed { .. }
            | V::PrivateChanged { .. }
    );
    // 9. A transaction truncated.
    rejects!(
        run(
            &edit(&|p| {
                p[with_public].retain(|i| *i != public);
            }),
            &private,
            setting,
            o
        ),
        V::PartlySuppressed { .. }
    );
    // 10. A public item partly suppressed (from half its transactions).
    rejects!(
        run(
            &edit(&|p| {
                let holders: Vec<usize> =
                    (0..p.len()).filter(|&j| p[j].contains(&public)).collect();
                for &j in &holders[..holders.len() / 2] {
                    p[j].retain(|i| *i != public);
                }
            }),
            &private,
            setting,
            o
        ),
        V::PartlySuppressed { .. }
    );
    // 11. Every transaction published twice.
    rejects!(
        run(
            &edit(&|p| {
                let copy = p.clone();
                p.extend(copy);
            }),
            &private,
            setting,
            o
        ),
        V::RecordCount { .. }
    );
    // 12. A transaction split in two.
    rejects!(
        run(
            &edit(&|p| {
                let t = p[with_public].clone();
                let (a, b) = t.split_at(t.len() / 2);
                p[with_public] = a.to_vec();
                p.push(b.to_vec());
            }),
            &private,
            setting,
            o
        ),
        V::RecordCount { .. }
    );
    // 13. Two transactions merged.
    rejects!(
        run(
            &edit(&|p| {
                let last = p.pop().unwrap();
                p[0].extend(last);
                p[0].sort_unstable();
                p[0].dedup();
            }),
            &private,
            setting,
            o
        ),
        V::RecordCount { .. }
    );
    // 14. A public item removed from all its transactions but one: it identifies that one.
    rejects!(
        run(
            &edit(&|p| {
                let mut kept = false;
                for t in p.iter_mut().filter(|t| t.contains(&public)) {
                    if kept {
                        t.retain(|i| *i != public);
                    }
                    kept = true;
                }
            }),
            &private,
            setting,
            None
        ),
        V::RareItemset { support: 1, .. }
    );
    // 15. The auditor's k is what counts, not what the publisher chose.
    rejects!(
        run(&good, &private, (H, good.len() as u64 + 1, P), None),
        V::TooFewTransactions { .. }
    );
    // 16. The auditor's h: no private item may be inferred at all.
    rejects!(run(&good, &private, (0.0, K, P), None), V::Breach { .. });
    // 17. A private item removed everywhere.
    rejects!(
        run(
            &edit(&|p| for t in p.iter_mut() {
                t.retain(|i| *i != private_ids[0])
            }),
            &private,
            setting,
            o
        ),
        V::PrivateChanged { published: 0, .. }
    );
    // 18. Two items renamed into each other.
    let other =
        good.iter().flatten().copied().find(|&i| !private_ids.contains(&i) && i != public).unwrap();
    let (x, y) = (public, other);
    rejects!(
        run(
            &edit(&|p| {
                for t in p.iter_mut() {
                    for i in t.iter_mut() {
                        *i = if *i == x {
                            y
                        } else if *i == y {
                            x
                        } else {
                            *i
                        };
                    }
                    t.sort_unstable();
                }
            }),
            &private,
            setting,
            o
        ),
        V::PartlySuppressed { .. } | V::TransactionsNotFromOriginal { .. }
    );
    // 19. A public item swapped with a suppressed one in every transaction.
    rejects!(
        run(
            &edit(&|p| {
                for t in p.iter_mut() {
                    for i in t.iter_mut().filter(|i| **i == x) {
                        *i = suppressed[0];
                    }
                    t.sort_unstable();
                }
            }),
            &private,
            setting,
            o
        ),
        V::PartlySuppressed { .. } | V::TransactionsNotFromOriginal { .. }
    );
    // 20. The publication's order reshuffled: still the same publication.
    let mut reversed = good.clone();
    reversed.reverse();
    run(&reversed, &private, setting, o).unwrap();
}

#[test]
fn wide_transactions_cost_one_pass() {
    // One line of 200,000 items among short ones: its items occur once, found at once.
    let mut wide: Vec<Vec<u32>> = vec![(0..200_000).collect()];
    wide.extend((0..50).map(|i| vec![300_000 + i % 5]));
    let private = vec!["300000".to_string()];
    rejects!(
        run(&wide, &private, (0.9, 2, 3), None),
        CoherenceViolation::RareItemset { support: 1, .. }
    );
    // k identical wide lines: every item a perfect extension of the empty itemset.
    let same: Vec<Vec<u32>> = vec![(0..200_000).collect(); 3];
    let report = audit(&db(&same), &CoherenceClaim::new(0.5, 3, 4).unwrap(), None).unwrap();
    assert_eq!(report.classes_checked, 1);
}

/// (h,k,p)-coherence by brute force: every subset of at most `p` public items of every
/// transaction, its support and its private counts recounted over all transactions.
fn brute_force_coherent(
    rows: &[Vec<u32>],
    private: &BTreeSet<u32>,
    h: f64,
    k: u64,
    p: usize,
) -> bool {
    if (rows.len() as u64) < k {
        return false;
    }
    let mut itemsets: BTreeSet<Vec<u32>> = BTreeSet::new();
    itemsets.insert(Vec::new());
    for t in rows {
        let public: Vec<u32> = t.iter().copied().filter(|i| !private.contains(i)).collect();
        let mut level: BTreeSet<Vec<u32>> = BTreeSet::from([Vec::new()]);
        for _ in 0..p {
            let mut next = BTreeSet::new();
            for s in &level {
                for &i in &public {
                    if s.last().is_none_or(|&l| l < i) {
                        let mut x = s.clone();
                        x.push(i);
                        next.insert(x);
                    }
                }
            }
            itemsets.extend(next.iter().cloned());
            level = next;
        }
    }
    itemsets.iter().all(|gamma| {
        let holding: Vec<&Vec<u32>> =
            rows.iter().filter(|t| gamma.iter().all(|i| t.contains(i))).collect();
        let support = holding.len() as u64;
        if support < k {
            return false;
        }
        let mut counts: BTreeMap<u32, u64> = BTreeMap::new();
        for t in &holding {
            for i in t.iter().filter(|i| private.contains(i)) {
                *counts.entry(*i).or_default() += 1;
            }
        }
        // count / support > h, with h a short decimal: compare in exact rationals.
        counts.values().all(|&c| (c as f64) <= h * support as f64 + 1e-12)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// On random small data, the audit passes exactly when the brute force does.
    #[test]
    fn the_audit_is_the_definition(
        ts in prop::collection::vec(prop::collection::btree_set(0u32..10, 0..6), 1..25),
        n_private in 0usize..3,
        h in prop::sample::select(vec![0.25, 0.5, 0.75]),
        k in 2u64..4,
        p in 1usize..4,
    ) {
        let rows: Vec<Vec<u32>> = ts.iter().map(|t| t.iter().copied().collect()).collect();
        let private: BTreeSet<u32> = (0..n_private as u32).collect();
        let names: Vec<String> = private.iter().map(u32::to_string).collect();
        let audited = run(&rows, &names, (h, k, p as u64), None).is_ok();
        prop_assert_eq!(audited, brute_force_coherent(&rows, &private, h, k, p));
    }

    /// A random single edit of a valid publication: rejected, or coherent by brute force.
    #[test]
    fn a_random_edit_is_rejected_or_still_coherent(
        row in any::<prop::sample::Index>(),
        item in 0u32..60,
        remove in any::<bool>(),
    ) {
        let (mut good, _, private) = valid();
        let j = row.index(good.len());
        if remove { good[j].retain(|&i| i != item) } else { good[j].push(item); good[j].sort_unstable(); good[j].dedup(); }
        let ids: BTreeSet<u32> = private.iter().map(|s| s.parse().unwrap()).collect();
        let audited = run(&good, &private, (H, K, P), None).is_ok();
        prop_assert_eq!(audited, brute_force_coherent(&good, &ids, H, K, P as usize));
    }
}

/// The comparison with the original runs beside the search, in a log of its own, and is merged
/// as if it had run after it: after a breach it reports the items it compares and stops there,
/// so a transaction not from the original is reported only when the search found nothing.
#[test]
fn the_original_is_compared_as_if_after_the_search() {
    let (good, original, private) = valid();
    let o = Some(&original);
    // A claim the publication breaches a few times (a full log would drop what follows).
    let strict = (0.45, K, P);
    let kinds = |published: &[Vec<u32>], setting: (f64, u64, u64)| -> Vec<&'static str> {
        let claim =
            CoherenceClaim::new(setting.0, setting.1, setting.2).unwrap().private(private.to_vec());
        match audit(&db(published), &claim, o) {
            Ok(_) => Vec::new(),
            Err(CoherenceError::Audit(found)) => found
                .list()
                .iter()
                .map(|v| match v {
                    CoherenceViolation::Breach { .. } => "breach",
                    CoherenceViolation::TransactionsNotFromOriginal { .. } => "not from original",
                    CoherenceViolation::PartlySuppressed { .. } => "partly suppressed",
                    _ => "other",
                })
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect(),
            Err(e) => panic!("{e}"),
        }
    };
    assert_eq!(kinds(&good, strict), ["breach"]);
    // Two transactions exchange a public item: every support is kept, two rows are new.
    let private_ids: BTreeSet<u32> = private.iter().map(|s| s.parse().unwrap()).collect();
    let mut exchanged = good.clone();
    let (a, b, x, y) = (0..good.len())
        .flat_map(|a| (0..good.len()).map(move |b| (a, b)))
        .find_map(|(a, b)| {
            let x = good[a].iter().find(|i| !private_ids.contains(i) && !good[b].contains(i))?;
            let y = good[b].iter().find(|i| !private_ids.contains(i) && !good[a].contains(i))?;
            Some((a, b, *x, *y))
        })
        .expect("two transactions with public items of their own");
    for (row, out, into) in [(a, x, y), (b, y, x)] {
        exchanged[row].retain(|&i| i != out);
        exchanged[row].push(into);
        exchanged[row].sort_unstable();
    }
    assert_eq!(kinds(&exchanged, (H, K, P)), ["not from original"]);
    assert_eq!(kinds(&exchanged, strict), ["breach"]);
    // A public item taken from one transaction: its count is compared, after a breach too.
    let mut truncated = good.clone();
    let (row, item) = (0..good.len())
        .find_map(|j| Some((j, *good[j].iter().find(|i| !private_ids.contains(i))?)))
        .expect("a public item");
    truncated[row].retain(|&i| i != item);
    assert_eq!(kinds(&truncated, (H, K, P)), ["partly suppressed"]);
    assert_eq!(kinds(&truncated, strict), ["breach", "partly suppressed"]);
}
