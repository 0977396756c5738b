//! (h,k,p)-coherence: every fact of the paper's running example, the three engines against
//! each other on random data (the enumeration engine is the reference), the audit on every
//! publication and against tampering, and real data.

use std::collections::BTreeSet;
use txanon_coherence::Coherence;
use txanon_data::Family;

use proptest::prelude::*;
use txanon_border::{AllItemsets, Border, count};
mod tamper;

use txanon_coherence::{
    CoherenceClaim, CoherenceError, CoherenceParams, CoherenceViolation, Engine, Reason, anonymize,
    audit, mole_border,
};
use txanon_data::{ItemId, ReadOptions, TransactionDb, datasets, random_items, read_path};
use txanon_mining::{Algorithm, MinSupport, MiningParams, frequent_itemsets};

fn figure1() -> (TransactionDb, Vec<ItemId>) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/examples");
    let db = read_path(&dir.join("coherence-figure1.csv"), &ReadOptions::new()).unwrap().0;
    let labels = txanon_data::read_label_list(&dir.join("coherence-figure1.private")).unwrap();
    let (private, unknown) = txanon_data::resolve_labels(&db, &labels);
    assert!(unknown.is_empty());
    (db, private)
}

/// The audit of `published` for (h, k, p), private items given by id of `db`.
fn check(
    published: &TransactionDb,
    db: &TransactionDb,
    private: &[ItemId],
    (h, k, p): (f64, u64, u64),
    original: Option<&TransactionDb>,
) -> Result<txanon_coherence::CoherenceAuditReport, CoherenceError> {
    let names: Vec<String> = private.iter().map(|&s| db.label(s).to_string()).collect();
    audit(published, &CoherenceClaim::new(h, k, p).unwrap().private(names), original)
}

/// The first violation of a failed audit.
fn first(
    result: Result<txanon_coherence::CoherenceAuditReport, CoherenceError>,
) -> CoherenceViolation {
    match result {
        Err(CoherenceError::Audit(v)) => v.first().clone(),
        other => panic!("expected a failed audit, got {other:?}"),
    }
}

fn labels(db: &TransactionDb, sets: &[Vec<ItemId>]) -> Vec<String> {
    sets.iter().map(|s| s.iter().map(|&i| db.label(i).to_string()).collect::<String>()).collect()
}

const ENGINES: [Engine; 3] = [Engine::Counting, Engine::BorderEdges, Engine::Enumerate];

#[test]
fn the_papers_running_example() {
    let (db, private) = figure1();
    let params = |engine| CoherenceParams::new(0.5, 3, 3, 4).engine(engine).check().unwrap();
    // Figure 3: c and d go first; U = {ae, af, ag, be, bfg}, L = {abef, abfg, befg}.
    let border = mole_border(&db, &private, &params(Engine::Counting)).unwrap();
    let mut minimal = labels(&db, &border.minimal);
    minimal.sort();
    assert_eq!(minimal, ["ae", "af", "ag", "be", "bfg"]);
    assert_eq!(labels(&db, &border.maximal), ["abef", "abfg", "befg"]);
    // 12 moles (ae, af, ag, be, abe, abf, abg, aef, afg, bef, beg, bfg); W_{ag,3} = 3.
    let b = Border::new(border.minimal.clone(), border.maximal.clone()).unwrap();
    assert_eq!(count(b.edges(), &[], 3, &AllItemsets).unwrap(), 12);
    let (a, g) = (db.labels().find("a").unwrap(), db.labels().find("g").unwrap());
    let ag = if a < g { vec![a, g] } else { vec![g, a] };
    assert_eq!(count(b.edges(), &ag, 3, &AllItemsets).unwrap(), 3);
    // 9 nuggets: a, b, e, f, g, ab, bg, ef, fg.
    let nuggets = frequent_itemsets(
        &db,
        Algorithm::FpGrowth,
        &MiningParams::new(MinSupport::Count(4)).check().unwrap(),
    )
    .unwrap();
    let mut found: Vec<String> =
        nuggets.iter().map(|(s, _)| s.iter().map(|&i| db.label(i).to_string()).collect()).collect();
    found.sort();
    assert_eq!(found, ["a", "ab", "b", "bg", "e", "ef", "f", "fg", "g"]);
    for engine in ENGINES {
        let result = anonymize(&db, &private, &params(engine)).unwrap();
        assert_eq!(result.moles, 12, "{engine:?}");
        assert_eq!(result.minimal_moles, 5);
        let border_listed = (engine == Engine::BorderEdges).then_some(3);
        assert_eq!(result.maximal_public, border_listed, "{engine:?}");
        let steps: Vec<(String, Reason)> =
            result.suppressed.iter().map(|s| (db.label(s.item).to_string(), s.reason)).collect();
        assert_eq!(
            steps,
            [
                ("c".to_string(), Reason::Infrequent { support: 1 }),
                ("d".to_string(), Reason::Infrequent { support: 1 }),
                ("a".to_string(), Reason::Greedy { moles: 8, nuggets: 2 }),
                ("b".to_string(), Reason::Greedy { moles: 4, nuggets: 2 }),
            ],
            "{engine:?}"
        );
        // e, f, g, ef, fg remain.
        let nuggets_of = |d| txanon_coherence::nuggets(d, 4).unwrap();
        assert_eq!((nuggets_of(&db), nuggets_of(&result.published)), (9, 5), "{engine:?}");
        check(&result.published, &db, &private, (0.5, 3, 3), Some(&db)).unwrap();
    }
    // The original is not coherent: c is in one transaction.
    let violation = first(check(&db, &db, &private, (0.5, 3, 3), None));
    assert!(matches!(violation, CoherenceViolation::RareItemset { k: 3, .. }), "{violation:?}");
}

#[test]
fn the_audit_finds_each_kind_of_mole() {
    // A breach: item 1 in four transactions, three of them with private 9.
    let db = TransactionDb::from_int_transactions([
        vec![1, 9],
        vec![1, 9],
        vec![1, 9],
        vec![1],
        vec![2],
        vec![2],
        vec![2],
        vec![2],
    ]);
    let nine = db.labels().find("9").unwrap();
    let violation = first(check(&db, &db, &[nine], (0.5, 2, 2), None));
    assert_eq!(
        violation,
        CoherenceViolation::Breach {
            itemset: vec!["1".into()],
            private: "9".into(),
            count: 3,
            support: 4
        }
    );
    assert!(check(&db, &db, &[nine], (0.75, 2, 2), None).is_ok());
    // A private item in more than h of all transactions: the empty itemset is a mole.
    let violation = first(check(&db, &db, &[nine], (0.3, 2, 2), None));
    assert!(
        matches!(violation, CoherenceViolation::Breach { count: 3, support: 8, ref itemset, .. } if itemset.is_empty())
    );
    // Too few transactions.
    let violation = first(check(&db, &db, &[nine], (0.5, 9, 2), None));
    assert!(matches!(violation, CoherenceViolation::TooFewTransactions { transactions: 8, k: 9 }));
    // Anonymization refuses the same impossible settings, before any suppression.
    let refused = anonymize(&db, &[nine], &CoherenceParams::new(0.3, 2, 2, 2).check().unwrap());
    assert!(matches!(refused, Err(CoherenceError::NoCohesion(_))));
}

fn db_of(ts: &[BTreeSet<u32>]) -> TransactionDb {
    TransactionDb::from_int_transactions(ts.iter().map(|t| t.iter().copied().collect::<Vec<_>>()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The three engines suppress the same items in the same order with the same scores, the
    /// result passes the audit, and it keeps every transaction and every private item.
    #[test]
    fn engines_agree_and_every_result_is_coherent(
        ts in prop::collection::vec(prop::collection::btree_set(0u32..12, 1..7), 8..50),
        n_private in 1usize..4,
        h in prop::sample::select(vec![0.3, 0.5, 0.7, 0.9]),
        k in 2u32..4,
        p in 1usize..5,
        k2 in 1u32..6,
        seed in any::<u64>(),
    ) {
        let db = db_of(&ts);
        let private = random_items(&db, n_private.min(db.num_items()), seed).unwrap();
        let mut runs = Vec::new();
        for engine in ENGINES {
            let params =
                CoherenceParams::new(h, k, p, k2).engine(engine).seed(Some(7)).check().unwrap();
            match anonymize(&db, &private, &params) {
                Ok(r) => runs.push(Some(r)),
                Err(CoherenceError::NoCohesion(_)) => runs.push(None),
                Err(e) => panic!("{engine:?}: {e}"),
            }
        }
        let reference = runs.pop().unwrap();
        for other in &runs {
            match (other, &reference) {
                (Some(a), Some(b)) => {
                    prop_assert_eq!(&a.suppressed, &b.suppressed);
                    prop_assert_eq!(a.moles, b.moles);
                    prop_assert_eq!((a.nuggets_before, a.nuggets_after), (b.nuggets_before, b.nuggets_after));
                    prop_assert_eq!(&a.published, &b.published);
                }
                (None, None) => {}
                _ => prop_assert!(false, "one engine refused, another did not"),
            }
        }
        if let Some(r) = reference {
            check(&r.published, &db, &private, (h, u64::from(k), p as u64), Some(&db)).unwrap();
            // The engine's nugget tally, against a count of each database on its own (k > k′
            // and k ≤ k′ both drawn: the pre-step then drops items in nuggets or not).
            let count = |d| txanon_coherence::nuggets(d, k2).unwrap();
            prop_assert_eq!(r.nuggets_before, count(&db));
            prop_assert_eq!(r.nuggets_after, count(&r.published));
            prop_assert_eq!(r.published.len(), db.len());
            for &s in &private {
                prop_assert_eq!(r.published.supports()[s as usize], db.supports()[s as usize]);
            }
            prop_assert_eq!(
                r.occurrences_suppressed,
                r.suppressed.iter().map(|s| db.supports()[s.item as usize] as usize).sum::<usize>()
            );
        }
    }
}

/// The minimal moles of `db` after the pre-step, by the definition: every public itemset of
/// 1 to `p` items that occurs, tested on its own transactions, kept when it is a mole and each
/// of its subsets one item shorter (all non-empty) is not.
fn minimal_moles_by_definition(
    db: &TransactionDb,
    private: &[ItemId],
    (h, k, p, k2): (f64, u32, usize, u32),
) -> Vec<Vec<ItemId>> {
    let kept: Vec<ItemId> = (0..db.num_items() as ItemId)
        .filter(|i| !private.contains(i) && db.supports()[*i as usize] >= k.max(k2))
        .collect();
    let public_of =
        |t: &[ItemId]| -> Vec<ItemId> { t.iter().copied().filter(|i| kept.contains(i)).collect() };
    let mut occurring: BTreeSet<Vec<ItemId>> = BTreeSet::new();
    for t in db.iter() {
        let items = public_of(t);
        for mask in 1u32..1 << items.len() {
            if mask.count_ones() as usize <= p {
                occurring.insert(
                    (0..items.len()).filter(|j| mask & (1 << j) != 0).map(|j| items[j]).collect(),
                );
            }
        }
    }
    let holding = |set: &[ItemId]| -> Vec<&[ItemId]> {
        db.iter().filter(|t| set.iter().all(|i| t.contains(i))).collect()
    };
    let breached = |set: &[ItemId]| {
        let rows = holding(set);
        private
            .iter()
            .any(|s| rows.iter().filter(|t| t.contains(s)).count() as f64 / rows.len() as f64 > h)
    };
    // A mole: too rare, or some subset of it (the empty one included) infers a private item.
    let mole = |set: &[ItemId]| {
        holding(set).len() < k as usize
            || (0u32..1 << set.len()).any(|mask| {
                let sub: Vec<ItemId> =
                    (0..set.len()).filter(|j| mask & (1 << j) != 0).map(|j| set[j]).collect();
                breached(&sub)
            })
    };
    occurring
        .into_iter()
        .filter(|set| {
            mole(set)
                && (set.len() == 1
                    || (0..set.len()).all(|drop| {
                        let sub: Vec<ItemId> = set
                            .iter()
                            .enumerate()
                            .filter(|&(j, _)| j != drop)
                            .map(|(_, &i)| i)
                            .collect();
                        !mole(&sub)
                    }))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The level-wise search (the last two levels found per grandparent) lists the minimal
    /// moles the definition gives, shortest first.
    #[test]
    fn the_minimal_moles_are_those_of_the_definition(
        ts in prop::collection::vec(prop::collection::btree_set(0u32..10, 1..7), 10..50),
        h in prop::sample::select(vec![0.3, 0.6, 0.9]),
        k in 2u32..4,
        p in 1usize..5,
        seed in any::<u64>(),
    ) {
        let db = db_of(&ts);
        let private = random_items(&db, 2.min(db.num_items()), seed).unwrap();
        let params = CoherenceParams::new(h, k, p, 1).check().unwrap();
        // No cohesion (a private item above h in the whole data) has no border: drawn again.
        let border = mole_border(&db, &private, &params);
        prop_assume!(border.is_ok());
        let border = border.unwrap();
        let mut expected = minimal_moles_by_definition(&db, &private, (h, k, p, 1));
        expected.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        let mut found = border.minimal.clone();
        prop_assert!(found.windows(2).all(|w| w[0].len() <= w[1].len()), "shortest first");
        found.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        prop_assert_eq!(found, expected);
    }
}

/// BMS-WebView-1 with a random 10% of items private: the counting engine and the enumeration
/// reference suppress the same items in the same order, and the result passes the audit.
#[test]
fn real_data_bms1_engines_agree() {
    let Some(path) = datasets::for_test("bms1") else { return };
    let db = read_path(&path, &ReadOptions::new()).unwrap().0;
    let private = random_items(&db, db.num_items() / 10, 20_081_212).unwrap();
    let k2 = (db.len() as f64 * 0.001).ceil() as u32;
    let run = |engine| {
        let params = CoherenceParams::new(0.4, 10, 2, k2).engine(engine).check().unwrap();
        anonymize(&db, &private, &params).unwrap()
    };
    let (counted, listed) = (run(Engine::Counting), run(Engine::Enumerate));
    assert_eq!(counted.suppressed, listed.suppressed);
    assert!(counted.suppressed.iter().any(|s| matches!(s.reason, Reason::Greedy { .. })));
    check(&counted.published, &db, &private, (0.4, 10, 2), Some(&db)).unwrap();
}

/// The publication is the input less the suppressed items, as a multiset of transactions, in
/// an order drawn by the seed: not the input's, and the same for the same seed.
#[test]
fn publication_is_the_input_less_suppressions_in_a_shuffled_order() {
    let ts: Vec<Vec<u32>> = (0..200u32).map(|t| vec![t % 7, 7 + t % 5, 12 + t % 3]).collect();
    let db = TransactionDb::from_int_transactions(ts);
    let private = vec![db.labels().find("13").unwrap()];
    let run = |seed| {
        let params = CoherenceParams::new(0.6, 5, 2, 10).seed(seed).check().unwrap();
        anonymize(&db, &private, &params).unwrap()
    };
    let (a, b, c) = (run(Some(1)), run(Some(1)), run(Some(2)));
    assert_eq!(a.published, b.published);
    assert_ne!(a.published, c.published);
    let gone: BTreeSet<ItemId> = a.suppressed.iter().map(|s| s.item).collect();
    let expected: Vec<Vec<ItemId>> = db
        .iter()
        .map(|t| t.iter().copied().filter(|i| !gone.contains(i)).collect::<Vec<_>>())
        .collect();
    let published: Vec<Vec<ItemId>> = a.published.iter().map(<[ItemId]>::to_vec).collect();
    assert_ne!(published, expected, "published in the input's order");
    let sorted = |mut v: Vec<Vec<ItemId>>| {
        v.sort();
        v
    };
    assert_eq!(sorted(published), sorted(expected));
}

/// Every engine publishes the same suppressions and records on one thread as on several (the
/// counting and the audit run on rayon).
#[test]
fn one_thread_and_many_publish_the_same() {
    let db = txanon_data::QuestParams::new(3000, 8.0, 3.0, 120).seed(4).check().unwrap().generate();
    // Six items of moderate support (a frequent private item would make h unreachable).
    let private: Vec<ItemId> = (0..db.num_items() as ItemId)
        .filter(|&i| (30..300).contains(&db.supports()[i as usize]))
        .take(6)
        .collect();
    for engine in [Engine::Counting, Engine::BorderEdges] {
        let params =
            CoherenceParams::new(0.4, 5, 2, 30).engine(engine).seed(Some(3)).check().unwrap();
        let run = || anonymize(&db, &private, &params).unwrap();
        let many = run();
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(run);
        assert!(!many.suppressed.is_empty(), "{engine:?}: the greedy loop must take part");
        assert_eq!(many.suppressed, one.suppressed, "{engine:?}");
        assert_eq!(many.published, one.published, "{engine:?}");
    }
}

#[test]
fn the_contract_reaudits_the_papers_running_example() {
    let (db, private) = figure1();
    let params = CoherenceParams::new(0.8, 2, 2, 2).seed(Some(1)).check().unwrap();
    let input = txanon_data::MarkedDb { db: &db, marked: &private };
    let published = Coherence::anonymize(input, &params).unwrap();
    txanon_testkit::reaudits::<Coherence>(input, &params, &published);
    assert_eq!(published.published.len(), db.len());
}
