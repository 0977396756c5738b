//! Hand-worked examples, corner cases, parameters and limits.

use txanon_data::TransactionDb;
use txanon_mining::{
    Algorithm, MinSupport, MiningError, MiningParams, RuleParams, closed_itemsets, count_itemsets,
    frequent_itemsets, maximal_itemsets, rules,
};

/// The running example of Han, Pei & Yin (SIGMOD 2000), Table 1, minimum support 3.
fn han_pei_yin() -> TransactionDb {
    TransactionDb::from_str_transactions([
        vec!["f", "a", "c", "d", "g", "i", "m", "p"],
        vec!["a", "b", "c", "f", "l", "m", "o"],
        vec!["b", "f", "h", "j", "o"],
        vec!["b", "c", "k", "s", "p"],
        vec!["a", "f", "c", "e", "l", "p", "m", "n"],
    ])
}

fn labelled(db: &TransactionDb, found: &txanon_mining::FrequentItemsets) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = found
        .iter()
        .map(|(items, s)| {
            let mut labels: Vec<String> = items.iter().map(|&i| db.label(i).to_string()).collect();
            labels.sort();
            (labels.concat(), s)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn han_pei_yin_example_has_the_published_itemsets() {
    let db = han_pei_yin();
    let params = MiningParams::new(MinSupport::Count(3)).check().unwrap();
    // Frequent items f:4 c:4 a:3 b:3 m:3 p:3; the paper's patterns: all subsets of {f,c,a,m}
    // with support 3 except the singletons f:4, c:4, plus {c,p}:3 and {f,c}:3 … enumerated here.
    let mut expected: Vec<(String, u32)> = vec![
        ("a", 3),
        ("b", 3),
        ("c", 4),
        ("f", 4),
        ("m", 3),
        ("p", 3),
        ("cp", 3),
        ("ac", 3),
        ("af", 3),
        ("am", 3),
        ("cf", 3),
        ("cm", 3),
        ("fm", 3),
        ("acf", 3),
        ("acm", 3),
        ("afm", 3),
        ("cfm", 3),
        ("acfm", 3),
    ]
    .into_iter()
    .map(|(s, c)| (s.to_string(), c))
    .collect();
    expected.sort();
    for algorithm in Algorithm::ALL {
        let found = frequent_itemsets(&db, algorithm, &params).unwrap();
        assert_eq!(labelled(&db, &found), expected, "{algorithm:?}");
    }
    let maximal = maximal_itemsets(&db, &params).unwrap();
    assert_eq!(
        labelled(&db, &maximal),
        vec![("acfm".into(), 3), ("b".into(), 3), ("cp".into(), 3)]
    );
    let closed = closed_itemsets(&db, &params).unwrap();
    assert_eq!(
        labelled(&db, &closed),
        vec![
            ("acfm".into(), 3),
            ("b".into(), 3),
            ("c".into(), 4),
            ("cp".into(), 3),
            ("f".into(), 4)
        ]
    );
}

#[test]
fn an_item_in_every_transaction_is_a_frequent_itemset() {
    // Item 9 occurs everywhere, like mushroom's item 85 (which pyfim 6.28 leaves out).
    let db = TransactionDb::from_int_transactions([vec![1, 9], vec![2, 9], vec![1, 2, 9]]);
    let params = MiningParams::new(MinSupport::Count(2)).check().unwrap();
    for algorithm in Algorithm::ALL {
        let found = frequent_itemsets(&db, algorithm, &params).unwrap();
        assert_eq!(
            labelled(&db, &found),
            vec![
                ("1".into(), 2),
                ("19".into(), 2),
                ("2".into(), 2),
                ("29".into(), 2),
                ("9".into(), 3)
            ],
            "{algorithm:?}"
        );
    }
    let zero = MiningParams::new(MinSupport::Count(2)).min_len(0).check().unwrap();
    assert_eq!(
        count_itemsets(&db, &zero).unwrap().by_len,
        vec![1, 3, 2],
        "the empty set counts at min-len 0"
    );
}

#[test]
fn rules_of_a_worked_example() {
    // sup(a)=3 sup(b)=2 sup(ab)=2 in 4 transactions.
    let db = TransactionDb::from_str_transactions([
        vec!["a", "b"],
        vec!["a", "b"],
        vec!["a"],
        vec!["c"],
    ]);
    let params = MiningParams::new(MinSupport::Count(2)).check().unwrap();
    let found = frequent_itemsets(&db, Algorithm::Apriori, &params).unwrap();
    let all = rules::generate(&found, &RuleParams::new(0.5).check().unwrap(), false).unwrap();
    // b → a: 2/2 = 1; a → b: 2/3.
    let described: Vec<(String, String, f64)> = all
        .iter()
        .map(|r| {
            (
                db.label(r.antecedent[0]).to_string(),
                db.label(r.consequent[0]).to_string(),
                r.confidence(),
            )
        })
        .collect();
    assert_eq!(described.len(), 2);
    assert!(described.contains(&("a".into(), "b".into(), 2.0 / 3.0)));
    assert!(described.contains(&("b".into(), "a".into(), 1.0)));
    let strict = RuleParams::new(0.7).check().unwrap();
    assert_eq!(rules::count(&found, &strict, false), 1);
    let b_to_a = rules::generate(&found, &strict, false).unwrap().remove(0);
    assert!((b_to_a.lift(4) - 4.0 / 3.0).abs() < 1e-12, "lift = conf · n / sup(a) = 1 · 4 / 3");
}

#[test]
fn relative_supports_resolve_like_borgelt() {
    assert_eq!(MinSupport::Fraction(0.005).count(10_000), 50, "0.5% of 10,000 is 50, not 51");
    assert_eq!(MinSupport::Fraction(0.001).count(59_602), 60);
    assert_eq!(MinSupport::Fraction(0.0005).count(88_162), 45);
    assert_eq!("0.5%".parse::<MinSupport>().unwrap(), MinSupport::Fraction(0.005));
    assert_eq!("0.005".parse::<MinSupport>().unwrap(), MinSupport::Fraction(0.005));
    assert_eq!("50".parse::<MinSupport>().unwrap(), MinSupport::Count(50));
    assert!("x%".parse::<MinSupport>().is_err());
}

#[test]
fn impossible_parameters_are_refused() {
    assert_eq!(MiningParams::new(MinSupport::Count(0)).check().unwrap_err().name(), "support");
    assert!(MiningParams::new(MinSupport::Fraction(0.0)).check().is_err());
    assert!(MiningParams::new(MinSupport::Fraction(1.5)).check().is_err());
    assert!(MiningParams::new(MinSupport::Count(1)).min_len(3).max_len(Some(2)).check().is_err());
    assert!(MiningParams::new(MinSupport::Count(1)).limit(0).check().is_err());
    assert!(RuleParams::new(1.1).check().is_err());
    assert!(RuleParams::new(0.5).max_len(Some(1)).check().is_err());
    let db = TransactionDb::from_int_transactions([vec![1, 2]]);
    let bounded = MiningParams::new(MinSupport::Count(1)).max_len(Some(1)).check().unwrap();
    assert!(matches!(maximal_itemsets(&db, &bounded), Err(MiningError::Unsupported(_))));
}

#[test]
fn listing_fails_cleanly_at_the_limit() {
    // One transaction of 30 items: 2^30 − 1 frequent itemsets at support 1.
    let db = TransactionDb::from_int_transactions([(0..30).collect::<Vec<u32>>()]);
    let params = MiningParams::new(MinSupport::Count(1)).limit(1000).check().unwrap();
    for algorithm in Algorithm::ALL {
        let err = frequent_itemsets(&db, algorithm, &params).unwrap_err();
        assert!(
            matches!(err, MiningError::LimitExceeded { limit: 1000, .. }),
            "{algorithm:?}: {err}"
        );
    }
    assert_eq!(count_itemsets(&db, &params).unwrap().total(), Some((1u128 << 30) - 1));
}

#[test]
fn results_do_not_depend_on_threads() {
    let db =
        txanon_data::QuestParams::new(2000, 10.0, 4.0, 100).seed(3).check().unwrap().generate();
    let params = MiningParams::new(MinSupport::Fraction(0.01)).check().unwrap();
    let a = frequent_itemsets(&db, Algorithm::FpGrowth, &params).unwrap();
    let b = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| frequent_itemsets(&db, Algorithm::FpGrowth, &params).unwrap());
    assert!(a.len() > 1000);
    assert_eq!(a, b, "same itemsets in the same order");
}

#[test]
fn fpgrowth_trees_and_bitmask_databases_agree_with_apriori() {
    // Conditional databases with more than 64 frequent items are trees, smaller ones bitmasks:
    // dense enough data exercises both, checked against the independent Apriori.
    let db =
        txanon_data::QuestParams::new(3000, 30.0, 8.0, 150).seed(11).check().unwrap().generate();
    let params = MiningParams::new(MinSupport::Fraction(0.02)).check().unwrap();
    let mut fp = frequent_itemsets(&db, Algorithm::FpGrowth, &params).unwrap();
    let mut ap = frequent_itemsets(&db, Algorithm::Apriori, &params).unwrap();
    fp.sort();
    ap.sort();
    assert!(fp.len() > 50_000, "{}", fp.len());
    assert!(fp.counts_by_len().len() > 5);
    assert_eq!(fp, ap);
}

#[test]
fn public_types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<txanon_mining::FrequentItemsets>();
    send_sync::<txanon_mining::PatternSpectrum>();
    send_sync::<txanon_mining::ItemsetCollector>();
    send_sync::<txanon_mining::ValidMiningParams>();
    send_sync::<txanon_mining::Rule>();
    send_sync::<MiningError>();
}

/// FP-Growth's progress counts the FP-tree's nodes: none done before, all of them after, on
/// one thread and many, and the itemsets are those of a run nobody watches.
#[test]
fn fpgrowth_progress_ends_at_its_total() {
    let db = han_pei_yin();
    let unwatched = MiningParams::new(MinSupport::Count(3)).check().unwrap();
    let expected = labelled(&db, &frequent_itemsets(&db, Algorithm::FpGrowth, &unwatched).unwrap());
    for threads in [1, 2] {
        let progress = txanon_data::progress::Progress::new();
        let params =
            MiningParams::new(MinSupport::Count(3)).progress(progress.clone()).check().unwrap();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let found = pool.install(|| frequent_itemsets(&db, Algorithm::FpGrowth, &params).unwrap());
        assert_eq!(labelled(&db, &found), expected);
        // The tree of the frequent items f, c, a, b, m, p holds 11 nodes below its root
        // (Han, Pei & Yin's Figure 1, ordered by support then by label).
        assert_eq!(progress.total(), 11, "{threads} thread(s)");
        assert_eq!(progress.done(), progress.total(), "{threads} thread(s)");
    }
}
