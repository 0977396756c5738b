//! The audit against publications broken on purpose: each is rejected with the violation it
//! was broken to show.

use txanon_data::TransactionDb;
use txanon_km::{Hierarchy, KmClaim, KmError, KmParams, KmViolation, anonymize, audit};

type Rows = Vec<Vec<&'static str>>;

fn hierarchy() -> Hierarchy {
    Hierarchy::from_text("a1 A\na2 A\nb1 B\nb2 B\nA ALL\nB ALL\n").unwrap()
}

fn original() -> TransactionDb {
    TransactionDb::from_str_transactions(vec![
        vec!["a1", "b1", "b2"],
        vec!["a2", "b1"],
        vec!["a2", "b1", "b2"],
        vec!["a1", "a2", "b2"],
    ])
}

/// The paper's 2²-anonymous publication (cut {A, b1, b2}).
fn valid() -> Rows {
    vec![vec!["A", "b1", "b2"], vec!["A", "b1"], vec!["A", "b1", "b2"], vec!["A", "b2"]]
}

const CUT: [&str; 3] = ["A", "b1", "b2"];

fn run(
    rows: &Rows,
    cut: Option<&[&str]>,
    k: u64,
    m: u64,
    original: Option<&TransactionDb>,
) -> Result<(), KmError> {
    let published = TransactionDb::from_str_transactions(rows.iter().cloned());
    let cut: Option<Vec<String>> = cut.map(|c| c.iter().map(|s| s.to_string()).collect());
    audit(&published, &hierarchy(), &KmClaim::new(k, m).unwrap(), cut.as_deref(), original)
        .map(|_| ())
}

/// The tamper assertion of every suite ([`txanon_testkit::rejects!`]) for this family's contract.
macro_rules! rejects {
    ($run:expr, $pattern:pat) => {
        txanon_testkit::rejects!($run, txanon_km::Km, $pattern)
    };
}

#[test]
fn the_valid_publication_passes() {
    run(&valid(), Some(&CUT), 2, 2, Some(&original())).unwrap();
}

#[test]
fn every_tampering_is_rejected() {
    let o = original();
    // 1. A label the hierarchy does not know.
    let mut t = valid();
    t[1][0] = "Z";
    rejects!(run(&t, None, 2, 2, None), KmViolation::UnknownNode { .. });
    // 2. One transaction shows a1 where the others show A: no single cut.
    let mut t = valid();
    t[0][0] = "a1";
    rejects!(run(&t, None, 2, 2, None), KmViolation::Overlapping { .. });
    // 3. The original itself, one generalization short: {a1, b1} once.
    let t: Rows = vec![
        vec!["a1", "b1", "b2"],
        vec!["a2", "b1"],
        vec!["a2", "b1", "b2"],
        vec!["a1", "a2", "b2"],
    ];
    rejects!(run(&t, None, 2, 2, None), KmViolation::RareItemset { support: 1, .. });
    // 4. Fewer transactions than k.
    rejects!(
        run(&valid(), None, 5, 1, None),
        KmViolation::TooFewTransactions { transactions: 4, k: 5 }
    );
    // 5. The auditor's m, not the publication's: {A, b1, b2} is in two transactions, so
    //    2³ holds but 3² does not ({b1, b2} twice).
    run(&valid(), None, 2, 3, None).unwrap();
    rejects!(run(&valid(), None, 3, 2, None), KmViolation::RareItemset { support: 2, k: 3, .. });
    // 6. A transaction dropped.
    let mut t = valid();
    t.pop();
    t.push(vec!["A", "b1", "b2"]);
    rejects!(run(&t, None, 2, 2, Some(&o)), KmViolation::TransactionsNotFromOriginal { .. });
    let mut t = valid();
    t.push(vec!["A", "b1"]);
    rejects!(run(&t, None, 2, 2, Some(&o)), KmViolation::RecordCount { published: 5, original: 4 });
    // 7. An item added to a transaction (still anonymous, not the original's).
    let mut t = valid();
    t[3].push("b1");
    run(&t, None, 2, 2, None).unwrap();
    rejects!(
        run(&t, None, 2, 2, Some(&o)),
        KmViolation::TransactionsNotFromOriginal { published: 3, original: 2, .. }
    );
    // 8. An item dropped everywhere: the original's b2 is generalized by nothing published.
    let t: Rows = vec![vec!["A", "b1"], vec!["A", "b1"], vec!["A", "b1"], vec!["A"]];
    rejects!(run(&t, None, 2, 2, Some(&o)), KmViolation::ItemNotCovered { .. });
    // 9. The original holds an item the hierarchy lacks.
    let o2 = TransactionDb::from_str_transactions(vec![
        vec!["a1", "b1", "b2"],
        vec!["a2", "b1"],
        vec!["a2", "b1", "b2"],
        vec!["a1", "a2", "c"],
    ]);
    rejects!(run(&valid(), None, 2, 2, Some(&o2)), KmViolation::OriginalItemNotLeaf { .. });
    // 10. The published cut misses a leaf.
    rejects!(run(&valid(), Some(&["A", "b1"]), 2, 2, None), KmViolation::CutMissesLeaf { .. });
    // 11. The published cut names a node the hierarchy lacks.
    rejects!(
        run(&valid(), Some(&["A", "b1", "b2", "Q"]), 2, 2, None),
        KmViolation::CutUnknownNode { .. }
    );
    // 12. The published cut covers a leaf twice.
    rejects!(
        run(&valid(), Some(&["A", "a1", "b1", "b2"]), 2, 2, None),
        KmViolation::CutOverlap { .. }
    );
    // 13. A published item off the published cut.
    rejects!(run(&valid(), Some(&["A", "B"]), 2, 2, None), KmViolation::OffCut { .. });
    // 14. b1 and b2 swapped in one transaction: same items, another transaction.
    let mut t = valid();
    t[1] = vec!["A", "b2"];
    rejects!(run(&t, None, 2, 2, Some(&o)), KmViolation::TransactionsNotFromOriginal { .. });
    // 15. Generalized to B where the cut says b1, b2: B and b1 together overlap.
    let mut t = valid();
    t[3] = vec!["A", "B"];
    rejects!(run(&t, None, 2, 2, None), KmViolation::Overlapping { .. });
    // 16. An empty transaction where the original has items.
    let mut t = valid();
    t[3] = vec![];
    rejects!(run(&t, None, 2, 2, Some(&o)), KmViolation::TransactionsNotFromOriginal { .. });
    // 17. A claim no count can meet: k = 2⁶⁴ − 1, compared without wrapping.
    rejects!(run(&valid(), None, u64::MAX, 1, None), KmViolation::TooFewTransactions { .. });
    // 18. The root beside an item: it generalizes everything.
    let mut t = valid();
    t[1] = vec!["ALL"];
    rejects!(run(&t, None, 2, 2, None), KmViolation::Overlapping { .. });
    // 19. An empty transaction added.
    let mut t = valid();
    t.push(vec![]);
    rejects!(run(&t, None, 2, 2, Some(&o)), KmViolation::RecordCount { published: 5, original: 4 });
    // 20. A moved from one transaction to another: the same items, other transactions.
    let t: Rows = vec![vec!["A", "b1", "b2"], vec!["b1"], vec!["A", "b1", "b2"], vec!["A", "b2"]];
    rejects!(run(&t, None, 2, 1, Some(&o)), KmViolation::TransactionsNotFromOriginal { .. });
    // 21. m = 1 at k = 4: b1 is in three transactions.
    rejects!(run(&valid(), None, 4, 1, None), KmViolation::RareItemset { support: 3, k: 4, .. });
    // Not tampering: the records in another order, and every item generalized to the root
    // (a coarser cut is still the original under one cut).
    let mut t = valid();
    t.reverse();
    run(&t, Some(&CUT), 2, 2, Some(&o)).unwrap();
    let all: Rows = vec![vec!["ALL"]; 4];
    run(&all, Some(&["ALL"]), 4, 4, Some(&o)).unwrap();
}

#[test]
fn a_cut_one_generalization_short_is_rejected() {
    // Quest data through AA; then each inner node of its cut lowered to its children, the
    // original generalized by that cut: whenever the result is not anonymous the audit says
    // so with a rare itemset, and at least one lowering is (AA raised nothing needlessly
    // everywhere).
    let db =
        txanon_data::QuestParams::new(1_500, 5.0, 3.0, 120).seed(9).check().unwrap().generate();
    let h = Hierarchy::balanced(&db, 4).unwrap();
    let (k, m) = (8u32, 2usize);
    let result = anonymize(&db, &h, &KmParams::new(k, m).seed(Some(1)).check().unwrap()).unwrap();
    let claim = KmClaim::new(u64::from(k), m as u64).unwrap();
    let mut rejected = 0;
    for node in &result.cut {
        let v = h.find(node).unwrap();
        if h.is_leaf(v) {
            continue;
        }
        let lowered: Vec<String> = result
            .cut
            .iter()
            .filter(|l| *l != node)
            .cloned()
            .chain(h.children(v).iter().map(|&c| h.label(c).to_string()))
            .collect();
        let published = generalize(&db, &h, &lowered);
        match audit(&published, &h, &claim, Some(&lowered), Some(&db)) {
            Ok(_) => {}
            Err(KmError::Audit(v)) => {
                assert!(
                    v.list().iter().all(|x| matches!(x, KmViolation::RareItemset { .. })),
                    "{v}"
                );
                rejected += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(rejected > 0, "no lowering of AA's cut breaks kᵐ-anonymity");
}

/// `db` generalized by the cut `nodes` (labels), by walking each item up to the cut.
fn generalize(db: &TransactionDb, h: &Hierarchy, nodes: &[String]) -> TransactionDb {
    let on: std::collections::HashSet<u32> = nodes.iter().map(|l| h.find(l).unwrap()).collect();
    TransactionDb::from_str_transactions(db.iter().map(|t| {
        t.iter()
            .map(|&i| {
                let leaf = h.find(&db.label(i).to_string()).unwrap();
                let v = h.ancestors_or_self(leaf).find(|a| on.contains(a)).unwrap();
                h.label(v).to_string()
            })
            .collect::<Vec<_>>()
    }))
}

mod brute_force {
    use std::collections::{BTreeSet, HashMap};

    use proptest::prelude::*;
    use txanon_data::TransactionDb;
    use txanon_km::{Hierarchy, KmClaim, KmError, audit};

    /// ALL → {A, B, C}; A → {a1, a2, a3}; B → {b1, b2}; C → {c1, c2}.
    fn hierarchy() -> Hierarchy {
        Hierarchy::from_text("a1 A\na2 A\na3 A\nb1 B\nb2 B\nc1 C\nc2 C\nA ALL\nB ALL\nC ALL\n")
            .unwrap()
    }

    const NODES: [&str; 11] = ["a1", "a2", "a3", "b1", "b2", "c1", "c2", "A", "B", "C", "ALL"];

    /// The definition, read literally: one cut publishes the items (none above another), at
    /// least k transactions, every occurring combination of at most m items in at least k.
    fn holds(rows: &[BTreeSet<usize>], k: usize, m: usize) -> bool {
        let h = hierarchy();
        let used: BTreeSet<usize> = rows.iter().flatten().copied().collect();
        for &a in &used {
            for &b in &used {
                let (na, nb) = (h.find(NODES[a]).unwrap(), h.find(NODES[b]).unwrap());
                if a != b && h.covers(na, nb) {
                    return false;
                }
            }
        }
        if rows.len() < k {
            return false;
        }
        let mut counts: HashMap<Vec<usize>, usize> = HashMap::new();
        for row in rows {
            let row: Vec<usize> = row.iter().copied().collect();
            for mask in 1u32..(1 << row.len()) {
                if mask.count_ones() as usize <= m {
                    let set =
                        (0..row.len()).filter(|b| mask >> b & 1 == 1).map(|b| row[b]).collect();
                    *counts.entry(set).or_insert(0) += 1;
                }
            }
        }
        counts.values().all(|&c| c >= k)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// The audit passes exactly the publications the definition accepts.
        #[test]
        fn the_audit_is_the_definition(
            rows in prop::collection::vec(prop::collection::btree_set(0usize..11, 0..4), 1..14),
            k in 2u64..5,
            m in 1u64..5,
        ) {
            let db = TransactionDb::from_str_transactions(
                rows.iter().map(|r| r.iter().map(|&i| NODES[i]).collect::<Vec<_>>()),
            );
            let verdict = audit(&db, &hierarchy(), &KmClaim::new(k, m).unwrap(), None, None);
            match verdict {
                Ok(_) => prop_assert!(holds(&rows, k as usize, m as usize)),
                Err(KmError::Audit(_)) => prop_assert!(!holds(&rows, k as usize, m as usize)),
                Err(e) => panic!("{e}"),
            }
        }

        /// No text makes the hierarchy reader panic.
        #[test]
        fn no_text_panics_the_hierarchy_reader(text in "[ab\\t ,#\\n]{0,60}") {
            let _ = Hierarchy::from_text(&text);
        }
    }
}
