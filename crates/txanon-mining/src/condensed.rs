//! Maximal and closed frequent itemsets, filtered from the class tops of FP-Growth.
//!
//! Every closed itemset is the top `base ∪ perfect` of some class (a smaller member has the same
//! support as the top), and every maximal one the top of a leaf class. A top is closed when no
//! closed top with the same support strictly contains it, maximal when no maximal top strictly
//! contains it; taking tops by decreasing length, each is checked only against those already
//! accepted, through an inverted index (item, and for closed tops support → accepted tops).

use std::ops::ControlFlow;

use txanon_data::ItemId;

use crate::class::{FrequentItemsets, ItemsetClass, ItemsetVisitor};

/// Which condensed representation to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Condensed {
    Maximal,
    Closed,
}

/// Collects the tops a [`Condensed`] filter needs.
#[derive(Debug)]
pub(crate) struct TopCollector {
    kind: Condensed,
    pub tops: FrequentItemsets,
}

impl TopCollector {
    pub fn new(kind: Condensed) -> Self {
        Self { kind, tops: FrequentItemsets::default() }
    }
}

impl ItemsetVisitor for TopCollector {
    fn visit(&mut self, class: &ItemsetClass<'_>) -> ControlFlow<()> {
        if self.kind == Condensed::Closed || class.is_leaf() {
            let top = class.top();
            if !top.is_empty() {
                self.tops.push(&top, class.support());
            }
        }
        ControlFlow::Continue(())
    }

    fn fork(&self) -> Self {
        Self::new(self.kind)
    }

    fn merge(&mut self, later: Self) {
        for (items, s) in later.tops.iter() {
            self.tops.push(items, s);
        }
    }
}

/// True when sorted `small` is a subset of sorted `large`.
fn is_subset(small: &[ItemId], large: &[ItemId]) -> bool {
    let mut rest = large.iter();
    small.iter().all(|x| rest.by_ref().any(|y| y == x))
}

/// The tops that no accepted top (of equal support, for closed) strictly contains, longest first
/// and then in canonical order.
pub(crate) fn filter(kind: Condensed, tops: &FrequentItemsets, min_len: usize) -> FrequentItemsets {
    let mut order: Vec<usize> = (0..tops.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        let (x, y) = (tops.get(a).0, tops.get(b).0);
        y.len().cmp(&x.len()).then_with(|| x.cmp(y))
    });
    let mut accepted = FrequentItemsets::default();
    // Closed tops only compete with tops of equal support: index by (item, support) then.
    let key =
        |item: ItemId, support: u32| (item, if kind == Condensed::Closed { support } else { 0 });
    let mut index: std::collections::HashMap<(ItemId, u32), Vec<u32>> =
        std::collections::HashMap::new();
    for i in order {
        let (items, support) = tops.get(i);
        let rarest = items
            .iter()
            .map(|&x| index.get(&key(x, support)).map_or(&[][..], Vec::as_slice))
            .min_by_key(|l| l.len());
        let covered = rarest.is_some_and(|candidates| {
            candidates.iter().any(|&a| {
                let (other, other_support) = accepted.get(a as usize);
                other.len() > items.len()
                    && (kind == Condensed::Maximal || other_support == support)
                    && is_subset(items, other)
            })
        });
        if !covered {
            let id = accepted.len() as u32;
            accepted.push(items, support);
            for &x in items {
                index.entry(key(x, support)).or_default().push(id);
            }
        }
    }
    let mut out = FrequentItemsets::default();
    for (items, s) in accepted.iter() {
        if items.len() >= min_len {
            out.push(items, s);
        }
    }
    out.sort();
    out
}
