//! Every miner against brute force on small random databases: every itemset, every support,
//! the maximal and closed ones, and every rule.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use txanon_data::TransactionDb;
use txanon_mining::{
    Algorithm, MinSupport, MiningParams, RuleParams, closed_itemsets, count_itemsets,
    count_per_item, frequent_itemsets, maximal_itemsets, rules,
};

type Itemsets = BTreeMap<Vec<u32>, u32>;

/// Every itemset over the (at most 12) items of `db` with support ≥ `min_count`, by enumeration
/// of the whole lattice.
fn brute_frequent(db: &TransactionDb, min_count: u32, min_len: usize, max_len: usize) -> Itemsets {
    let m = db.num_items();
    assert!(m <= 12);
    let masks: Vec<u32> = db.iter().map(|t| t.iter().fold(0, |acc, &i| acc | (1 << i))).collect();
    let mut out = BTreeMap::new();
    for set in 0u32..(1 << m) {
        let len = set.count_ones() as usize;
        if len < min_len || len > max_len {
            continue;
        }
        let support = masks.iter().filter(|&&t| t & set == set).count() as u32;
        if support >= min_count {
            out.insert((0..m as u32).filter(|i| set & (1 << i) != 0).collect(), support);
        }
    }
    out
}

fn as_map(found: &txanon_mining::FrequentItemsets) -> Itemsets {
    let map: Itemsets = found.iter().map(|(s, c)| (s.to_vec(), c)).collect();
    assert_eq!(map.len(), found.len(), "an itemset was reported twice");
    map
}

fn database() -> impl Strategy<Value = TransactionDb> {
    // Up to 10 items; sometimes one item in every transaction (a perfect extension of ∅).
    (prop::collection::vec(prop::collection::btree_set(0u32..10, 0..8), 1..40), any::<bool>())
        .prop_map(|(mut ts, universal)| {
            if universal {
                ts.iter_mut().for_each(|t| {
                    t.insert(10);
                });
            }
            TransactionDb::from_int_transactions(
                ts.into_iter().map(|t| t.into_iter().collect::<Vec<_>>()),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn miners_find_exactly_the_frequent_itemsets(
        db in database(),
        min_count in 1u32..6,
        min_len in 0usize..3,
        extra in prop::option::of(0usize..4),
        parallel in any::<bool>(),
    ) {
        let max_len = extra.map(|e| (min_len + e).max(1));
        let params = MiningParams::new(MinSupport::Count(min_count))
            .min_len(min_len)
            .max_len(max_len)
            .check()
            .unwrap();
        let expected = brute_frequent(&db, min_count, min_len, max_len.unwrap_or(usize::MAX));
        let threads = if parallel { 2 } else { 1 };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for algorithm in Algorithm::ALL {
            let found = pool.install(|| frequent_itemsets(&db, algorithm, &params)).unwrap();
            prop_assert_eq!(&as_map(&found), &expected, "{:?}", algorithm);
        }
        let spectrum = count_itemsets(&db, &params).unwrap();
        prop_assert_eq!(spectrum.total(), Some(expected.len() as u128));
        let per_item = count_per_item(&db, &params).unwrap();
        for (item, &count) in per_item.iter().enumerate() {
            let holding = expected.keys().filter(|s| s.contains(&(item as u32))).count();
            prop_assert_eq!(count, holding as u128, "item {}", item);
        }
        for (len, &count) in spectrum.by_len.iter().enumerate() {
            prop_assert_eq!(count as usize, expected.keys().filter(|s| s.len() == len).count());
        }
    }

    #[test]
    fn maximal_and_closed_itemsets_match_their_definitions(db in database(), min_count in 1u32..6) {
        let params = MiningParams::new(MinSupport::Count(min_count)).check().unwrap();
        let all = brute_frequent(&db, min_count, 1, usize::MAX);
        let superset_of = |s: &Vec<u32>, t: &Vec<u32>| t.len() > s.len() && s.iter().all(|x| t.contains(x));
        let maximal: Itemsets = all
            .iter()
            .filter(|(s, _)| !all.keys().any(|t| superset_of(s, t)))
            .map(|(s, &c)| (s.clone(), c))
            .collect();
        let closed: Itemsets = all
            .iter()
            .filter(|(s, c)| !all.iter().any(|(t, d)| d == *c && superset_of(s, t)))
            .map(|(s, &c)| (s.clone(), c))
            .collect();
        prop_assert_eq!(as_map(&maximal_itemsets(&db, &params).unwrap()), maximal);
        prop_assert_eq!(as_map(&closed_itemsets(&db, &params).unwrap()), closed);
    }

    #[test]
    fn rules_are_exactly_the_confident_splits(
        db in database(),
        min_count in 1u32..5,
        confidence in 0.0f64..=1.0,
        max_len in prop::option::of(2usize..5),
    ) {
        let params = MiningParams::new(MinSupport::Count(min_count)).check().unwrap();
        let found = frequent_itemsets(&db, Algorithm::FpGrowth, &params).unwrap();
        let all = as_map(&found);
        let rule_params = RuleParams::new(confidence).max_len(max_len).check().unwrap();
        let mut expected = BTreeSet::new();
        for (z, &sz) in &all {
            if z.len() < 2 || z.len() > max_len.unwrap_or(usize::MAX) {
                continue;
            }
            for mask in 1u32..(1 << z.len()) - 1 {
                let x: Vec<u32> = (0..z.len()).filter(|i| mask & (1 << i) != 0).map(|i| z[i]).collect();
                let y: Vec<u32> = (0..z.len()).filter(|i| mask & (1 << i) == 0).map(|i| z[i]).collect();
                if f64::from(sz) / f64::from(all[&x]) >= confidence {
                    expected.insert((x, y, sz));
                }
            }
        }
        for single in [false, true] {
            let got: BTreeSet<_> = rules::generate(&found, &rule_params, single)
                .unwrap()
                .into_iter()
                .map(|r| {
                    assert_eq!(r.antecedent_support, all[&r.antecedent]);
                    assert_eq!(r.consequent_support, all[&r.consequent]);
                    (r.antecedent, r.consequent, r.support)
                })
                .collect();
            let want: BTreeSet<_> = expected.iter().filter(|(_, y, _)| !single || y.len() == 1).cloned().collect();
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(rules::count(&found, &rule_params, single), want.len() as u64);
        }
    }
}
