//! Integration tests of the kᵐ-anonymity family: the paper's running example, the greedy
//! algorithms against the exhaustive optimum and a brute-force reading of the definition on
//! random data, and the properties every family keeps.

mod tamper;

use std::path::PathBuf;
use txanon_data::Family;
use txanon_km::Km;

use proptest::prelude::*;
use txanon_data::TransactionDb;
use txanon_km::{
    Algorithm, Cut, Hierarchy, KmClaim, KmError, KmParams, anonymize, audit, information_loss,
};

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../datasets/examples").join(name)
}

fn paper() -> (TransactionDb, Hierarchy) {
    let db = txanon_data::read_path(&example("km-figure1.csv"), &Default::default()).unwrap().0;
    let hierarchy = Hierarchy::read(&example("km-figure1.hierarchy")).unwrap();
    (db, hierarchy)
}

const ALGORITHMS: [Algorithm; 3] = [Algorithm::Apriori, Algorithm::Direct, Algorithm::Optimal];

/// Every combination of at most `m` items of the transactions (as label sets) that occurs,
/// with its support: the definition, by brute force.
fn supports(rows: &[Vec<String>], m: usize) -> std::collections::BTreeMap<Vec<String>, u64> {
    txanon_testkit::supports_by_definition(rows, m)
}

fn label_rows(db: &TransactionDb) -> Vec<Vec<String>> {
    db.iter().map(|t| t.iter().map(|&i| db.label(i).to_string()).collect()).collect()
}

#[test]
fn the_paper_example_gives_the_paper_cut() {
    let (db, hierarchy) = paper();
    // Not 2²-anonymous as it is: {a1, b1} is in t1 only.
    assert_eq!(supports(&label_rows(&db), 2)[&vec!["a1".to_string(), "b1".to_string()]], 1);
    for algorithm in ALGORITHMS {
        let params = KmParams::new(2, 2).algorithm(algorithm).seed(Some(1)).check().unwrap();
        let result = anonymize(&db, &hierarchy, &params).unwrap();
        // The paper's generalization: a1 and a2 to A, b1 and b2 kept.
        assert_eq!(result.cut, ["A", "b1", "b2"], "{algorithm:?}");
        // 5 of the 11 occurrences (a1 twice, a2 three times) at NCP(A) = 2/4.
        assert_eq!(result.loss.occurrences, 11);
        assert_eq!(result.loss.weighted_leaves, 10);
        assert!((result.loss.ncp - 2.5 / 11.0).abs() < 1e-12);
        assert_eq!(result.loss.occurrences_by_height, [6, 5, 0]);
        let mut rows = label_rows(&result.published);
        rows.iter_mut().for_each(|r| r.sort());
        rows.sort();
        assert_eq!(
            rows,
            [vec!["A", "b1"], vec!["A", "b1", "b2"], vec!["A", "b1", "b2"], vec!["A", "b2"]]
        );
    }
    // At k = 3 (m = 2) {A, b1, b2}'s {b1, b2} is in two transactions only: B is needed too,
    // and {A, B} then holds every pair.
    let result =
        anonymize(&db, &hierarchy, &KmParams::new(3, 2).seed(Some(1)).check().unwrap()).unwrap();
    assert_eq!(result.cut, ["A", "B"]);
    // At k = 5 nothing but fewer transactions than k: refused, with the reason.
    let err = anonymize(&db, &hierarchy, &KmParams::new(5, 1).check().unwrap()).unwrap_err();
    assert!(
        matches!(err, KmError::Unreachable(_))
            && txanon_data::Classify::kind(&err) == txanon_data::ErrorKind::Infeasible,
        "{err}"
    );
}

#[test]
fn a_hierarchy_that_misses_an_item_is_refused() {
    let (db, _) = paper();
    let h = Hierarchy::from_text("a1 A\na2 A\nb1 B\nA ALL\nB ALL\n").unwrap();
    let err = anonymize(&db, &h, &KmParams::new(2, 2).check().unwrap()).unwrap_err();
    assert!(err.to_string().contains("b2"), "{err}");
    let h = Hierarchy::from_text("a1 A\na2 A\nb1 B\nb2 B\nA ALL\nB ALL\nx b2\n").unwrap();
    let err = anonymize(&db, &h, &KmParams::new(2, 2).check().unwrap()).unwrap_err();
    assert!(err.to_string().contains("inner node"), "{err}");
}

#[test]
fn the_optimal_search_refuses_a_large_hierarchy() {
    let db = TransactionDb::from_int_transactions((0..40u32).map(|i| vec![i, (i + 1) % 40]));
    let h = Hierarchy::balanced(&db, 2).unwrap();
    let params = KmParams::new(2, 2).algorithm(Algorithm::Optimal).max_cuts(1000).check().unwrap();
    assert!(matches!(anonymize(&db, &h, &params), Err(KmError::TooManyCuts { .. })));
}

/// A random hierarchy over `items` leaves: each inner node takes 2-3 of the current nodes.
fn random_hierarchy(items: &[String], seed: u64) -> Hierarchy {
    let mut nodes: Vec<String> = items.to_vec();
    let mut text = String::new();
    let mut state = seed | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut inner = 0;
    while nodes.len() > 1 {
        let take = (2 + (next() % 2) as usize).min(nodes.len());
        let start = (next() % (nodes.len() - take + 1) as u64) as usize;
        let group: Vec<String> = nodes.drain(start..start + take).collect();
        inner += 1;
        let parent = format!("N{inner}");
        for child in group {
            text.push_str(&format!("{child} {parent}\n"));
        }
        nodes.push(parent);
    }
    Hierarchy::from_text(&text).unwrap()
}

fn db_of(ts: &[std::collections::BTreeSet<u32>]) -> TransactionDb {
    TransactionDb::from_int_transactions(ts.iter().map(|t| t.iter().copied().collect::<Vec<_>>()))
}

fn items_of(db: &TransactionDb) -> Vec<String> {
    (0..db.num_items() as u32).map(|i| db.label(i).to_string()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// AA and DA publish kᵐ-anonymous data (by brute force over the label sets), the original
    /// generalized by their cut, never with less loss than the optimum, and with exactly its
    /// loss at m = 1 (there every anonymous cut lies above one least cut, which the greedy
    /// raise of each rare item to its lowest frequent ancestor builds).
    #[test]
    fn greedy_cuts_are_anonymous_and_never_beat_the_optimum(
        ts in prop::collection::vec(prop::collection::btree_set(0u32..9, 1..6), 6..30),
        k in 2u32..5,
        m in 1usize..4,
        seed in any::<u64>(),
    ) {
        let db = db_of(&ts);
        let hierarchy = random_hierarchy(&items_of(&db), seed);
        let run = |algorithm| {
            anonymize(&db, &hierarchy, &KmParams::new(k, m).algorithm(algorithm).seed(Some(3)).check().unwrap())
        };
        let optimal = match run(Algorithm::Optimal) {
            Ok(r) => r,
            Err(KmError::Unreachable(_)) => {
                prop_assert!(run(Algorithm::Apriori).is_err());
                return Ok(());
            }
            Err(e) => panic!("{e}"),
        };
        for algorithm in [Algorithm::Apriori, Algorithm::Direct] {
            let result = run(algorithm).unwrap();
            let counts = supports(&label_rows(&result.published), m);
            prop_assert!(counts.values().all(|&c| c >= u64::from(k)), "{algorithm:?}: {counts:?}");
            prop_assert!(result.loss.weighted_leaves >= optimal.loss.weighted_leaves);
            if m == 1 {
                prop_assert_eq!(result.loss.weighted_leaves, optimal.loss.weighted_leaves);
            }
        }
        // The optimum is optimal: no cut of less loss is anonymous (every cut, by brute force).
        let leaf_of_item = hierarchy.leaves_of_items(&db).unwrap();
        let mut all = Vec::new();
        cuts(&hierarchy, vec![hierarchy.root()], Vec::new(), &mut all);
        for nodes in all {
            let cut = Cut::from_nodes(&hierarchy, &nodes).unwrap();
            let loss = information_loss(&hierarchy, &cut, &db, &leaf_of_item);
            if loss.weighted_leaves < optimal.loss.weighted_leaves {
                let rows: Vec<Vec<String>> = db.iter().map(|t| t.iter().map(|&i| {
                    let pos = hierarchy.leaf_range(leaf_of_item[i as usize]).start;
                    hierarchy.label(cut.node_of_leaf(pos)).to_string()
                }).collect()).collect();
                prop_assert!(supports(&rows, m).values().any(|&c| c < u64::from(k)));
            }
        }
    }

    /// The cut does not depend on the input's order, the publication is the same multiset,
    /// and the same seed gives the same file, on one thread as on many.
    #[test]
    fn order_seed_and_threads_do_not_change_the_publication(
        ts in prop::collection::vec(prop::collection::btree_set(0u32..15, 1..8), 10..60),
        k in 2u32..4,
        m in 1usize..5,
        rotate in 0usize..60,
    ) {
        let db = db_of(&ts);
        let hierarchy = Hierarchy::balanced(&db, 3).unwrap();
        let params = KmParams::new(k, m).seed(Some(11)).check().unwrap();
        let Ok(a) = anonymize(&db, &hierarchy, &params) else { return Ok(()) };
        let mut order: Vec<usize> = (0..db.len()).collect();
        order.rotate_left(rotate % db.len());
        order.reverse();
        let shuffled = db.select(order);
        let b = anonymize(&shuffled, &hierarchy, &params).unwrap();
        prop_assert_eq!(&a.cut, &b.cut);
        prop_assert_eq!(&a.published, &b.published, "the same multiset in the same published order");
        let single = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let c = single.install(|| anonymize(&db, &hierarchy, &params).unwrap());
        prop_assert_eq!(&a.published, &c.published);
        prop_assert_eq!(&a.cut, &c.cut);
    }
}

/// Every cut below the nodes of `pending`, joined to `chosen`.
fn cuts(h: &Hierarchy, mut pending: Vec<u32>, chosen: Vec<u32>, out: &mut Vec<Vec<u32>>) {
    let Some(v) = pending.pop() else {
        out.push(chosen);
        return;
    };
    let mut with = chosen.clone();
    with.push(v);
    cuts(h, pending.clone(), with, out);
    if !h.is_leaf(v) {
        let mut expanded = pending;
        expanded.extend(h.children(v));
        cuts(h, expanded, chosen, out);
    }
}

#[test]
fn generated_hierarchies_publish_on_quest_data() {
    let db =
        txanon_data::QuestParams::new(2_000, 6.0, 3.0, 200).seed(5).check().unwrap().generate();
    for hierarchy in
        [Hierarchy::balanced(&db, 5).unwrap(), Hierarchy::by_cooccurrence(&db, 5).unwrap()]
    {
        let params = KmParams::new(10, 3).seed(Some(2)).check().unwrap();
        let aa = anonymize(&db, &hierarchy, &params).unwrap();
        let claim = KmClaim::new(10, 3).unwrap();
        assert!(audit(&aa.published, &hierarchy, &claim, Some(&aa.cut), Some(&db)).is_ok());
        assert!(aa.loss.ncp > 0.0 && aa.loss.ncp < 1.0, "{}", aa.loss.ncp);
        let again = anonymize(&db, &hierarchy, &params).unwrap();
        assert_eq!(again.cut, aa.cut);
        assert_eq!(again.published, aa.published, "the same seed gives the same publication");
    }
}

#[test]
fn deep_and_wide_hierarchies_neither_hang_nor_overflow() {
    // Every item under a chain of 100,000 nodes: AA's raises along the chain are too many to
    // enumerate per violation, so its linear candidates run; OA refuses the hierarchy.
    let db =
        TransactionDb::from_int_transactions([vec![1, 2], vec![1, 3], vec![2, 3], vec![1, 2, 3]]);
    let mut text = String::from("1 c0\n2 c0\n3 c0\n");
    for j in 0..100_000 {
        text.push_str(&format!("c{j} c{}\n", j + 1));
    }
    let deep = Hierarchy::from_text(&text).unwrap();
    let result =
        anonymize(&db, &deep, &KmParams::new(3, 3).seed(Some(1)).check().unwrap()).unwrap();
    let claim = KmClaim::new(3, 3).unwrap();
    assert!(audit(&result.published, &deep, &claim, Some(&result.cut), Some(&db)).is_ok());
    let oa = KmParams::new(3, 3).algorithm(Algorithm::Optimal).check().unwrap();
    assert!(matches!(anonymize(&db, &deep, &oa), Err(KmError::Hierarchy(_))));
    // A co-occurrence hierarchy over more items than it compares is refused, not started.
    let wide = TransactionDb::from_int_transactions([(0..=txanon_km::MAX_COOCCURRENCE_ITEMS
        as u32)
        .collect::<Vec<_>>()]);
    assert!(matches!(Hierarchy::by_cooccurrence(&wide, 5), Err(KmError::Hierarchy(_))));
}

#[test]
fn aa_publishes_the_papers_data_and_da_is_refused_where_it_cannot_count() {
    for name in ["bms1", "bms2"] {
        let Some(path) = txanon_data::datasets::for_test(name) else { continue };
        let (db, _) = txanon_data::read_path(&path, &Default::default()).unwrap();
        let hierarchy = Hierarchy::balanced(&db, 5).unwrap();
        let aa = anonymize(&db, &hierarchy, &KmParams::new(100, 4).seed(Some(1)).check().unwrap())
            .unwrap();
        let claim = KmClaim::new(100, 4).unwrap();
        let report = audit(&aa.published, &hierarchy, &claim, Some(&aa.cut), Some(&db)).unwrap();
        assert!(report.smallest_support.unwrap() >= 100);
        assert!(aa.loss.ncp > 0.0 && aa.loss.ncp < 1.0, "{name}: {}", aa.loss.ncp);
        // DA counts every itemset of at most four items of the raw data: refused, not run.
        let da = KmParams::new(100, 4).algorithm(Algorithm::Direct).check().unwrap();
        assert!(
            matches!(anonymize(&db, &hierarchy, &da), Err(KmError::TooManyCombinations { .. })),
            "{name}"
        );
    }
}

#[test]
fn a_progress_handle_sees_the_phases_and_changes_nothing() {
    let db =
        txanon_data::QuestParams::new(3_000, 6.0, 3.0, 150).seed(2).check().unwrap().generate();
    let hierarchy = Hierarchy::balanced(&db, 4).unwrap();
    let progress = txanon_data::progress::Progress::new();
    let watched = KmParams::new(20, 3).seed(Some(4)).progress(progress.clone()).check().unwrap();
    let plain = KmParams::new(20, 3).seed(Some(4)).check().unwrap();
    let a = anonymize(&db, &hierarchy, &watched).unwrap();
    let b = anonymize(&db, &hierarchy, &plain).unwrap();
    assert_eq!((a.cut, a.published), (b.cut, b.published));
    // The handle followed the run to its last phase.
    assert_eq!(progress.phase().0, "km audit: against the original");
}

#[test]
fn the_contract_reaudits_the_paper_example() {
    let (db, hierarchy) = paper();
    let params = KmParams::new(2, 2).seed(Some(1)).check().unwrap();
    let input = txanon_km::KmInput { db: &db, hierarchy: &hierarchy };
    let published = Km::anonymize(input, &params).unwrap();
    txanon_testkit::reaudits::<Km>(input, &params, &published);
    assert_eq!(published.cut, ["A", "b1", "b2"]);
}

proptest! {
    /// A shard's itemsets for the union's audit are every combination of at most `m` of its
    /// published items that occurs, with its support capped at `k`: the definition, by brute
    /// force over the label sets (repeated rows included, labels whose string order is not
    /// their ids').
    #[test]
    fn shard_itemsets_count_what_brute_force_counts(
        rows in prop::collection::vec(prop::collection::btree_set(0u32..40, 0..8), 0..60),
        repeats in prop::collection::vec(1usize..4, 60),
        k in 2u64..6,
        m in 1u64..5,
    ) {
        let rows: Vec<std::collections::BTreeSet<u32>> = rows
            .iter()
            .zip(&repeats)
            .flat_map(|(r, &times)| std::iter::repeat_n(r.clone(), times))
            .collect();
        let db = db_of(&rows);
        let claim = KmClaim::new(k, m).unwrap();
        let expected: Vec<(Vec<String>, u64)> = supports(&label_rows(&db), m as usize)
            .into_iter()
            .map(|(mut set, support)| {
                set.sort();
                (set, support.min(k))
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        prop_assert_eq!(txanon_km::shard_itemsets(&db, &claim), expected);
    }
}

/// The same itemsets keyed by the hierarchy's nodes: shards publishing items at several levels
/// of one hierarchy (random shards of random rows, each item raised to a random ancestor)
/// give one itemset one key, and their capped supports summed part by part are the union's
/// supports by brute force over the labels: its itemsets, its smallest support and the ones
/// below `k`. Counted: the cases with rare itemsets over several shards, some of their items
/// generalized.
#[test]
fn node_itemsets_summed_in_parts_are_the_unions_supports() {
    let strategy = (
        prop::collection::vec(prop::collection::btree_set(0u32..30, 1..7), 1..60),
        prop::collection::vec(0usize..3, 30),
        prop::collection::vec(0usize..3, 60),
        2u64..6,
        1u64..4,
        1u32..5,
    );
    txanon_testkit::exercised(256, strategy, |(rows, raise, shard_of, k, m, parts)| {
        let items = TransactionDb::from_int_transactions([(0u32..30).collect::<Vec<_>>()]);
        let hierarchy = Hierarchy::balanced(&items, 3).unwrap();
        // Item i published as its ancestor raise[i] levels up (the root at most).
        let label_of = |i: u32| {
            let leaf = hierarchy.leaf_of(&i.to_string()).unwrap();
            let v = hierarchy
                .ancestors_or_self(leaf)
                .nth(raise[i as usize])
                .unwrap_or(hierarchy.root());
            hierarchy.label(v).to_string()
        };
        let published: Vec<Vec<String>> = rows
            .iter()
            .map(|r| {
                let set: std::collections::BTreeSet<String> =
                    r.iter().map(|&i| label_of(i)).collect();
                set.into_iter().collect()
            })
            .collect();
        let claim = KmClaim::new(k, m).unwrap();
        let mut by_part: Vec<Vec<Vec<(u128, u64)>>> = vec![Vec::new(); parts as usize];
        for shard in 0..3 {
            let mine: Vec<&Vec<String>> = published
                .iter()
                .zip(&shard_of)
                .filter(|(_, s)| **s == shard)
                .map(|(r, _)| r)
                .collect();
            let db = TransactionDb::from_str_transactions(
                mine.iter().map(|r| r.iter().map(String::as_str)),
            );
            let keyed = txanon_km::shard_node_itemsets(&db, &hierarchy, &claim).unwrap();
            prop_assert!(keyed.windows(2).all(|w| w[0].0 < w[1].0));
            // The labels' itemsets, one for one.
            let labelled: Vec<(Vec<String>, u64)> = keyed
                .iter()
                .map(|&(key, c)| (txanon_km::node_itemset_labels(key, &hierarchy).unwrap(), c))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            prop_assert_eq!(labelled, txanon_km::shard_itemsets(&db, &claim));
            let mut pieces = vec![Vec::new(); parts as usize];
            for (key, c) in keyed {
                pieces[txanon_km::union_part(key, parts) as usize].push((key, c));
            }
            for (part, piece) in pieces.into_iter().enumerate() {
                by_part[part].push(piece);
            }
        }
        let expected = supports(&published, m as usize);
        let (mut itemsets, mut smallest, mut rare) = (0u64, None::<u64>, Vec::new());
        for pieces in &by_part {
            let pieces: Vec<&[(u128, u64)]> = pieces.iter().map(Vec::as_slice).collect();
            let sums = txanon_km::union_sums(&pieces, k);
            itemsets += sums.itemsets;
            smallest = match (smallest, sums.smallest) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            for (key, support) in sums.rare {
                rare.push((txanon_km::node_itemset_labels(key, &hierarchy).unwrap(), support));
            }
        }
        rare.sort();
        prop_assert_eq!(itemsets, expected.len() as u64);
        // Below k a sum of capped supports is the support; from k on, at least k.
        match expected.values().min() {
            Some(&least) if least < k => prop_assert_eq!(smallest, Some(least)),
            Some(_) => prop_assert!(smallest.is_some_and(|s| s >= k)),
            None => prop_assert_eq!(smallest, None),
        }
        let below: Vec<(Vec<String>, u64)> = expected
            .into_iter()
            .filter(|&(_, s)| s < k)
            .map(|(mut set, s)| {
                set.sort();
                (set, s)
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        prop_assert_eq!(&rare, &below);
        let generalized = raise.iter().any(|&r| r > 0);
        let shards = shard_of.iter().take(rows.len()).collect::<std::collections::BTreeSet<_>>();
        Ok(!rare.is_empty() && generalized && shards.len() > 1)
    })
    .at_least(0.2, "rare itemsets over several shards, some items generalized");
}
