//! Every metric on a hand-computed example.

use txanon_data::TransactionDb;
use txanon_metrics::{
    ItemAlignment, MetricError, dissimilarity, item_loss, itemset_accuracy, jaccard_itemsets,
    kl_divergence, record_distortion, relative_support_error, rule_accuracy,
};
use txanon_mining::{
    Algorithm, FrequentItemsets, MinSupport, MiningParams, Rule, frequent_itemsets,
};

fn db(ts: &[&[&str]]) -> TransactionDb {
    TransactionDb::from_str_transactions(ts.iter().map(|t| t.to_vec()))
}

/// D: {a,b} {a,b,c} {a,c} {b}; D̃ suppresses c from the second record and adds d to the fourth.
fn pair() -> (TransactionDb, TransactionDb) {
    (
        db(&[&["a", "b"], &["a", "b", "c"], &["a", "c"], &["b"]]),
        db(&[&["a", "b"], &["a", "b"], &["a", "c"], &["b", "d"]]),
    )
}

fn mine(d: &TransactionDb, s: u32) -> FrequentItemsets {
    let params = MiningParams::new(MinSupport::Count(s)).check().unwrap();
    frequent_itemsets(d, Algorithm::FpGrowth, &params).unwrap()
}

#[test]
fn dissimilarity_by_hand() {
    let (d, a) = pair();
    // f_D: a3 b3 c2 d0 (sum 8); f_D̃: a3 b3 c1 d1. |diff| = 0+0+1+1 = 2 → 2/8.
    assert_eq!(dissimilarity(&d, &a), 0.25);
    assert_eq!(dissimilarity(&d, &d), 0.0);
}

#[test]
fn item_loss_by_hand() {
    let (d, a) = pair();
    let loss = item_loss(&d, &a);
    assert_eq!(loss.occurrences_removed, 1, "one c");
    assert_eq!(loss.occurrences_added, 1, "one d");
    assert_eq!(loss.fraction_removed, 1.0 / 8.0);
    assert_eq!((loss.distinct_removed, loss.distinct_original), (0, 3));
    let gone = db(&[&["a"], &["a"], &["a"], &["b"]]);
    assert_eq!(item_loss(&d, &gone).distinct_removed, 1, "c is gone");
}

#[test]
fn record_distortion_by_hand() {
    let (d, a) = pair();
    // Distances: 0, 1 − 2/3, 0, 1 − 1/2 → mean (1/3 + 1/2) / 4 = 5/24.
    assert!((record_distortion(&d, &a).unwrap() - 5.0 / 24.0).abs() < 1e-12);
    let short = db(&[&["a"]]);
    assert!(matches!(record_distortion(&d, &short), Err(MetricError::Mismatch { .. })));
}

#[test]
fn itemset_metrics_by_hand() {
    let (d, a) = pair();
    // Support 2. F_D: a3 b3 c2 ab2 ac2. F_D̃: a3 b3 ab2 (c has 1, d has 1).
    let fd = mine(&d, 2);
    let fa = ItemAlignment::new(&d, &a).itemsets(&mine(&a, 2));
    assert_eq!((fd.len(), fa.len()), (5, 3));
    let acc = itemset_accuracy(&fd, &fa);
    assert_eq!((acc.matched, acc.total), (3, 5));
    assert_eq!(jaccard_itemsets(&fd, &fa), 3.0 / 5.0);
    // Errors: a 0, b 0, c |2−1|/2, ab 0, ac |2−1|/2 → (0.5 + 0.5) / 5 = 0.2.
    let back = ItemAlignment::new(&a, &d);
    let err = relative_support_error(&fd, &a, |i| back.original(i));
    assert!((err - 0.2).abs() < 1e-12, "{err}");
    assert_eq!(jaccard_itemsets(&FrequentItemsets::default(), &FrequentItemsets::default()), 1.0);
}

#[test]
fn rule_accuracy_by_hand() {
    let r = |x: u32, y: u32| Rule {
        antecedent: vec![x],
        consequent: vec![y],
        support: 1,
        antecedent_support: 1,
        consequent_support: 1,
    };
    let original = [r(0, 1), r(1, 0), r(0, 2), r(2, 0)];
    let anonymized = [r(0, 1), r(2, 0), r(1, 2)];
    let ar = rule_accuracy(&original, &anonymized);
    assert_eq!((ar.matched, ar.total, ar.ratio), (2, 4, 0.5));
    assert_eq!(rule_accuracy(&[], &anonymized).ratio, 1.0);
}

#[test]
fn kl_divergence_by_hand() {
    // Act (1/2, 1/2), Est (1/4, 3/4): ½ ln 2 + ½ ln(2/3).
    let expected = 0.5 * 2f64.ln() + 0.5 * (2.0f64 / 3.0).ln();
    assert!((kl_divergence(&[1.0, 1.0], &[1.0, 3.0]).unwrap() - expected).abs() < 1e-12);
    assert_eq!(kl_divergence(&[0.2, 0.8], &[0.2, 0.8]).unwrap(), 0.0);
    // An empty actual cell contributes 0; an empty estimated cell uses the floor.
    assert!((kl_divergence(&[0.0, 1.0], &[0.5, 0.5]).unwrap() - 2f64.ln()).abs() < 1e-12);
    let floored = kl_divergence(&[1.0, 1.0], &[0.0, 1.0]).unwrap();
    let expected = 0.5 * (0.5 / txanon_metrics::KL_FLOOR).ln() + 0.5 * 0.5f64.ln();
    assert!((floored - expected).abs() < 1e-9);
    assert!(kl_divergence(&[1.0], &[1.0, 2.0]).is_err());
    assert!(kl_divergence(&[0.0, 0.0], &[1.0, 2.0]).is_err());
    assert!(kl_divergence(&[-1.0, 2.0], &[1.0, 2.0]).is_err());
}
