//! Putting an anonymized database's items in the original's numbering, by label.

use txanon_data::{ItemId, TransactionDb};
use txanon_mining::{FrequentItemsets, Rule};

/// Maps the item ids of an anonymized database `D̃` to those of the original `D` with the same
/// label; an item of `D̃` absent from `D` (a generalized or fake item) maps to `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemAlignment {
    to_original: Vec<Option<ItemId>>,
}

impl ItemAlignment {
    /// Aligns `anonymized`'s items with `original`'s by label (a binary search each).
    pub fn new(original: &TransactionDb, anonymized: &TransactionDb) -> Self {
        let to_original = (0..anonymized.num_items() as ItemId)
            .map(|i| original.labels().find(&anonymized.label(i).to_string()))
            .collect();
        Self { to_original }
    }

    /// The original id of anonymized item `item`.
    pub fn original(&self, item: ItemId) -> Option<ItemId> {
        self.to_original[item as usize]
    }

    /// `D̃`'s itemsets in `D`'s ids (sorted within each itemset); those with an item unknown to
    /// `D` are dropped, since `D` cannot have them.
    pub fn itemsets(&self, anonymized: &FrequentItemsets) -> FrequentItemsets {
        let mut out = FrequentItemsets::default();
        let mut buf = Vec::new();
        'sets: for (items, support) in anonymized.iter() {
            buf.clear();
            for &i in items {
                let Some(o) = self.original(i) else { continue 'sets };
                buf.push(o);
            }
            buf.sort_unstable();
            out.push(&buf, support);
        }
        out
    }

    /// `D̃`'s rules in `D`'s ids; those with an item unknown to `D` are dropped.
    pub fn rules(&self, anonymized: &[Rule]) -> Vec<Rule> {
        let map = |items: &[ItemId]| -> Option<Vec<ItemId>> {
            let mut v = items.iter().map(|&i| self.original(i)).collect::<Option<Vec<_>>>()?;
            v.sort_unstable();
            Some(v)
        };
        anonymized
            .iter()
            .filter_map(|r| {
                Some(Rule {
                    antecedent: map(&r.antecedent)?,
                    consequent: map(&r.consequent)?,
                    ..r.clone()
                })
            })
            .collect()
    }
}
