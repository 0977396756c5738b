//! One utility yardstick for every publication, read through its view: supports are what a
//! data user estimates from groups and buckets (expected counts), never one arbitrary
//! reconstruction, and exact for published records.

use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use txanon_attack::{View, estimated_itemsets};
use txanon_data::{ItemId, ParamError, TransactionDb};
use txanon_metrics::{
    dissimilarity_of, item_loss_of, itemset_f1, jaccard_itemsets, mean_relative_error,
    rule_accuracy,
};
use txanon_mining::{FrequentItemsets, Rule, RuleParams};

use crate::error::EvaluateError;

/// The longest itemset the yardstick mines: as many items as the strongest adversary knows.
pub const MAX_ITEMSET: usize = 4;
/// The confidence of the association rules compared.
pub const RULE_CONFIDENCE: f64 = 0.5;
/// The most itemsets the yardstick lists at one support (or candidates of one level): a lower
/// support is refused rather than left to run out of memory.
pub const MAX_LISTED: usize = 1_000_000;
/// Public items of a workload query beside its sensitive item (or in all, without sensitive
/// items: one more).
pub const QUERY_ITEMS: usize = 2;

/// Frequent itemsets found again at one support.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Itemsets {
    /// The minimum support, as a share of the transactions.
    pub support: f64,
    /// Frequent itemsets of the original (at most [`MAX_ITEMSET`] items).
    pub original: usize,
    /// Frequent itemsets estimated from the publication.
    pub published: usize,
    /// F1 of the published collection against the original's.
    pub f1: f64,
    /// Jaccard similarity of the two collections.
    pub jaccard: f64,
}

/// The yardstick's readings of one publication.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Utility {
    /// Frequent itemsets at each support.
    pub itemsets: Vec<Itemsets>,
    /// Mean relative error of the workload's estimated counts.
    pub workload_error: f64,
    /// Association rules of the original (first support, confidence [`RULE_CONFIDENCE`]) found
    /// again in the publication.
    pub rule_accuracy: f64,
    /// The original's rules.
    pub rules: usize,
    /// Share of item occurrences the publication removed.
    pub item_loss: f64,
    /// Oliveira and Zaïane's dissimilarity of the item frequencies.
    pub diss: f64,
}

/// What every publication is compared with: the original's frequent itemsets and rules, and
/// the seeded workload of count queries with their true answers.
#[derive(Debug)]
pub(crate) struct Yardstick {
    supports: Vec<f64>,
    counts: Vec<f64>,
    itemsets: Vec<FrequentItemsets>,
    rules: Vec<Rule>,
    queries: Vec<(Vec<ItemId>, f64)>,
    frequencies: Vec<u64>,
}

impl Yardstick {
    /// The original's side of every reading. The workload: `queries` draws of a random record
    /// holding a sensitive item (when there are any: the CAHD paper's group-by workload) with
    /// [`QUERY_ITEMS`] of its public items, or of [`QUERY_ITEMS`] + 1 of any record's items,
    /// ChaCha8 from `seed`.
    pub fn new(
        db: &TransactionDb,
        original: &View,
        sensitive: &[ItemId],
        supports: &[f64],
        queries: usize,
        seed: u64,
    ) -> Result<Self, EvaluateError> {
        let n = db.len() as f64;
        let counts: Vec<f64> = supports.iter().map(|s| (s * n).ceil().max(1.0)).collect();
        let itemsets: Vec<FrequentItemsets> = supports
            .iter()
            .zip(&counts)
            .map(|(&s, &c)| listed(original, s, c))
            .collect::<Result<_, _>>()?;
        let rules = rules_of(&itemsets[0])?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let is_sensitive = |i: &ItemId| sensitive.binary_search(i).is_ok();
        let holders: Vec<usize> = (0..db.len())
            .filter(|&t| {
                let row = db.transaction(t);
                if sensitive.is_empty() {
                    row.len() > QUERY_ITEMS
                } else {
                    row.iter().any(is_sensitive)
                        && row.iter().filter(|i| !is_sensitive(i)).count() >= QUERY_ITEMS
                }
            })
            .collect();
        let mut workload = Vec::with_capacity(queries);
        if !holders.is_empty() {
            for _ in 0..queries {
                let row = db.transaction(*holders.choose(&mut rng).expect("not empty"));
                let mut query: Vec<ItemId> = if sensitive.is_empty() {
                    row.choose_multiple(&mut rng, QUERY_ITEMS + 1).copied().collect()
                } else {
                    let public: Vec<ItemId> =
                        row.iter().copied().filter(|i| !is_sensitive(i)).collect();
                    let held: Vec<ItemId> = row.iter().copied().filter(is_sensitive).collect();
                    let mut q: Vec<ItemId> =
                        public.choose_multiple(&mut rng, QUERY_ITEMS).copied().collect();
                    q.push(*held.choose(&mut rng).expect("a sensitive item"));
                    q
                };
                query.sort_unstable();
                let truth = original.support(&query);
                workload.push((query, truth));
            }
        }
        let frequencies = db.supports().iter().map(|&s| u64::from(s)).collect();
        Ok(Self {
            supports: supports.to_vec(),
            counts,
            itemsets,
            rules,
            queries: workload,
            frequencies,
        })
    }

    /// Queries in the workload.
    pub fn queries(&self) -> usize {
        self.queries.len()
    }

    /// The readings of `published`.
    pub fn measure(&self, published: &View) -> Result<Utility, EvaluateError> {
        let mut found = Vec::with_capacity(self.counts.len());
        let mut first = None;
        for (k, (&support, &count)) in self.supports.iter().zip(&self.counts).enumerate() {
            let ours = listed(published, support, count)?;
            let theirs = &self.itemsets[k];
            found.push(Itemsets {
                support,
                original: theirs.len(),
                published: ours.len(),
                f1: itemset_f1(theirs, &ours),
                jaccard: jaccard_itemsets(theirs, &ours),
            });
            if k == 0 {
                first = Some(ours);
            }
        }
        let published_rules = rules_of(&first.expect("at least one support"))?;
        let workload_error = mean_relative_error(
            self.queries.iter().map(|(q, truth)| (*truth, published.support(q))),
        );
        let pairs: Vec<(u64, u64)> = self
            .frequencies
            .iter()
            .zip(published.item_supports())
            .map(|(&a, &b)| (a, b.round() as u64))
            .collect();
        Ok(Utility {
            itemsets: found,
            workload_error,
            rule_accuracy: rule_accuracy(&self.rules, &published_rules).ratio,
            rules: self.rules.len(),
            item_loss: item_loss_of(&pairs).fraction_removed,
            diss: dissimilarity_of(&pairs),
        })
    }
}

/// The itemsets of `view` at `count` records (the share `support`), or the parameter at fault.
fn listed(view: &View, support: f64, count: f64) -> Result<FrequentItemsets, EvaluateError> {
    estimated_itemsets(view, count, MAX_ITEMSET, MAX_LISTED).map_err(|_| {
        EvaluateError::Params(ParamError::OutOfRange {
            name: "supports",
            value: support.to_string(),
            reason: "more than 1,000,000 itemsets of at most 4 items at this support: raise it",
        })
    })
}

fn rules_of(itemsets: &FrequentItemsets) -> Result<Vec<Rule>, EvaluateError> {
    let params = RuleParams::new(RULE_CONFIDENCE).check()?;
    Ok(txanon_mining::rules::generate(itemsets, &params, true)?)
}
