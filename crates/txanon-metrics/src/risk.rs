//! Disclosure risk of the original data: how identifying a few known items are.

use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use txanon_data::{ItemId, ItemIndex, TransactionDb};

/// The risk of re-identifying a transaction from `known` of its QID items.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Reidentification {
    /// Number of known items.
    pub known: usize,
    /// `E[1 / |{t' : K ⊆ t'}|]`: the probability that an attacker who knows `K` and picks
    /// uniformly among the matching transactions finds the right one.
    pub probability: f64,
    /// The fraction of draws in which `K` matches one transaction only.
    pub unique: f64,
    /// Transactions with at least `known` QID items (the ones an attacker can target).
    pub eligible: usize,
    /// True when every (transaction, subset) pair was enumerated; false when sampled.
    pub exact: bool,
}

/// The re-identification risk of the CAHD paper's Table II: a transaction `t` drawn uniformly
/// among those with at least `known` QID items, a set `K` of `known` distinct QID items of `t`
/// drawn uniformly, and the number of transactions holding all of `K` (at least 1, `t` itself).
/// The paper gives no formula; this is the attacker who knows `K` and guesses uniformly among
/// the matches, averaged over targets and over what the attacker knows.
///
/// When `Σ_t C(|t ∩ QID|, known)` is at most `samples`, every pair is enumerated (exact, with
/// each transaction weighted equally); otherwise `samples` pairs are drawn with ChaCha8 from
/// `seed`.
///
/// # Complexity
/// Per pair, an intersection: the rarest known item's transactions, each checked for the other
/// items by binary search. `O(samples · min sup · known · log |t|)` at most.
///
/// # Panics
/// When `qid` is not one flag per item or `known` is 0.
pub fn reidentification(
    db: &TransactionDb,
    qid: &[bool],
    known: usize,
    samples: usize,
    seed: u64,
) -> Reidentification {
    assert_eq!(qid.len(), db.num_items(), "one flag per item");
    assert!(known > 0, "at least one known item");
    let index = ItemIndex::new(db);
    let qid_of = |t: usize| -> Vec<ItemId> {
        db.transaction(t).iter().copied().filter(|&i| qid[i as usize]).collect()
    };
    let eligible: Vec<usize> = (0..db.len()).filter(|&t| qid_of(t).len() >= known).collect();
    let matches = |k: &[ItemId]| -> usize {
        let rarest = *k.iter().min_by_key(|&&i| db.supports()[i as usize]).expect("known > 0");
        index
            .transactions(rarest)
            .iter()
            .filter(|&&u| k.iter().all(|i| db.transaction(u as usize).binary_search(i).is_ok()))
            .count()
    };
    let pairs: f64 = eligible.iter().map(|&t| binomial(qid_of(t).len(), known)).sum();
    let (mut probability, mut unique) = (0.0, 0.0);
    let exact = pairs <= samples as f64;
    if eligible.is_empty() {
        return Reidentification { known, probability, unique, eligible: 0, exact: true };
    }
    if exact {
        for &t in &eligible {
            let items = qid_of(t);
            let subsets = binomial(items.len(), known);
            for_each_subset(&items, known, &mut |k| {
                let c = matches(k);
                probability += 1.0 / c as f64 / subsets;
                unique += f64::from(c == 1) / subsets;
            });
        }
        let e = eligible.len() as f64;
        return Reidentification {
            known,
            probability: probability / e,
            unique: unique / e,
            eligible: eligible.len(),
            exact,
        };
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..samples {
        let t = *eligible.choose(&mut rng).expect("non-empty");
        let items = qid_of(t);
        let mut k: Vec<ItemId> = rand::seq::index::sample(&mut rng, items.len(), known)
            .iter()
            .map(|j| items[j])
            .collect();
        k.sort_unstable();
        let c = matches(&k);
        probability += 1.0 / c as f64;
        unique += f64::from(c == 1);
    }
    let s = samples as f64;
    Reidentification {
        known,
        probability: probability / s,
        unique: unique / s,
        eligible: eligible.len(),
        exact,
    }
}

/// `C(n, k)` as a float (exact for the sizes compared against a sample budget).
fn binomial(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, j| acc * (n - j) as f64 / (j + 1) as f64)
}

/// Calls `f` with every `k`-subset of `items` (in lexicographic order of positions).
fn for_each_subset(items: &[ItemId], k: usize, f: &mut dyn FnMut(&[ItemId])) {
    fn go(
        items: &[ItemId],
        k: usize,
        from: usize,
        chosen: &mut Vec<ItemId>,
        f: &mut dyn FnMut(&[ItemId]),
    ) {
        if chosen.len() == k {
            f(chosen);
            return;
        }
        for j in from..items.len() {
            chosen.push(items[j]);
            go(items, k, j + 1, chosen, f);
            chosen.pop();
        }
    }
    go(items, k, 0, &mut Vec::with_capacity(k), f);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_hand() {
        // t0 {1,2}, t1 {1,2}, t2 {1,3}: one known item. Targets and items: t0 with 1 (3 match)
        // or 2 (2 match); t1 the same; t2 with 1 (3) or 3 (1, unique).
        // Probability = mean over targets of the mean over items of 1/matches
        //   = (2·(1/3 + 1/2)/2 + (1/3 + 1)/2) / 3 = (5/6 + 2/3) / 3 = 1/2.
        let db = TransactionDb::from_int_transactions([vec![1, 2], vec![1, 2], vec![1, 3]]);
        let r = reidentification(&db, &[true; 3], 1, 1000, 0);
        assert!(r.exact);
        assert!((r.probability - 0.5).abs() < 1e-12, "{r:?}");
        assert!((r.unique - 1.0 / 6.0).abs() < 1e-12, "{r:?}");
        // Two known items: {1,2} matches t0, t1; {1,3} only t2.
        let r = reidentification(&db, &[true; 3], 2, 1000, 0);
        assert!((r.probability - (0.5 + 0.5 + 1.0) / 3.0).abs() < 1e-12, "{r:?}");
        // Sampling approaches the exact value.
        let sampled = reidentification(&db, &[true; 3], 1, 2, 0);
        assert!(!sampled.exact);
        // Without item 1 every transaction keeps one QID item: none is eligible for two.
        let r = reidentification(&db, &[false, true, true], 2, 1000, 0);
        assert_eq!(r.eligible, 0);
    }
}
