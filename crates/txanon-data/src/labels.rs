//! The dictionary from dense internal item ids back to the labels of the source file.

use serde::{Deserialize, Serialize};

/// A dense internal item id, `0..m`.
pub type ItemId = u32;

/// The original labels of the items, indexed by [`ItemId`].
///
/// Invariant: labels are unique and sorted ascending (numerically for integers, by bytes for
/// strings), so the dense id of an item is the rank of its label. Ids therefore do not depend on
/// the order of the transactions in the source, and lookup by label is a binary search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ItemLabels {
    /// Non-negative integer labels (FIMI, SPMF, and CSV files whose labels are all canonical integers).
    Int(Vec<u32>),
    /// Free-text labels (basket CSV).
    Str(Vec<String>),
}

/// One item's label, borrowed from an [`ItemLabels`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Label<'a> {
    /// An integer label.
    Int(u32),
    /// A text label.
    Str(&'a str),
}

impl std::fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Label::Int(v) => write!(f, "{v}"),
            Label::Str(s) => f.write_str(s),
        }
    }
}

impl ItemLabels {
    /// Number of items in the dictionary (`m`).
    pub fn len(&self) -> usize {
        match self {
            ItemLabels::Int(v) => v.len(),
            ItemLabels::Str(v) => v.len(),
        }
    }

    /// True when the dictionary has no item.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True for integer labels.
    pub fn is_int(&self) -> bool {
        matches!(self, ItemLabels::Int(_))
    }

    /// The label of `item`.
    ///
    /// # Panics
    /// When `item` is not below [`len`](Self::len).
    pub fn label(&self, item: ItemId) -> Label<'_> {
        match self {
            ItemLabels::Int(v) => Label::Int(v[item as usize]),
            ItemLabels::Str(v) => Label::Str(&v[item as usize]),
        }
    }

    /// The dense id of the item written `label` in the source, if it is in the dictionary.
    ///
    /// Integer dictionaries accept the canonical decimal form only (`"7"`, not `"007"`).
    pub fn find(&self, label: &str) -> Option<ItemId> {
        match self {
            ItemLabels::Int(v) => {
                let value = parse_canonical_u32(label)?;
                v.binary_search(&value).ok().map(|i| i as ItemId)
            }
            ItemLabels::Str(v) => {
                v.binary_search_by(|probe| probe.as_str().cmp(label)).ok().map(|i| i as ItemId)
            }
        }
    }

    /// Checks the invariant (unique and ascending); used when a dictionary comes from outside.
    /// The dictionary of `labels` (distinct, in any order) as a reader builds it: integer labels
    /// when every one is a canonical integer, text otherwise, ascending; and the id each of
    /// `labels` gets in it.
    ///
    /// # Panics
    /// When `labels` repeats a label.
    pub fn ranked<S: AsRef<str>>(labels: &[S]) -> (ItemLabels, Vec<ItemId>) {
        let as_ints: Option<Vec<u32>> =
            labels.iter().map(|s| parse_canonical_u32(s.as_ref())).collect();
        let mut order: Vec<u32> = (0..labels.len() as u32).collect();
        let dictionary = match as_ints {
            Some(ints) => {
                order.sort_unstable_by_key(|&i| ints[i as usize]);
                ItemLabels::Int(order.iter().map(|&i| ints[i as usize]).collect())
            }
            None => {
                order.sort_unstable_by(|&a, &b| {
                    labels[a as usize].as_ref().cmp(labels[b as usize].as_ref())
                });
                ItemLabels::Str(order.iter().map(|&i| labels[i as usize].as_ref().into()).collect())
            }
        };
        assert!(dictionary.is_strictly_ascending(), "labels must be distinct");
        let mut rank = vec![0 as ItemId; labels.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as ItemId;
        }
        (dictionary, rank)
    }

    pub(crate) fn is_strictly_ascending(&self) -> bool {
        match self {
            ItemLabels::Int(v) => v.windows(2).all(|w| w[0] < w[1]),
            ItemLabels::Str(v) => v.windows(2).all(|w| w[0] < w[1]),
        }
    }
}

/// Parses `s` as a u32 only if writing the value back gives `s` again, so that labels round-trip.
pub(crate) fn parse_canonical_u32(s: &str) -> Option<u32> {
    let bytes = s.as_bytes();
    if bytes.is_empty() || bytes.len() > 10 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if bytes.len() > 1 && bytes[0] == b'0' {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_integers_only() {
        assert_eq!(parse_canonical_u32("0"), Some(0));
        assert_eq!(parse_canonical_u32("4294967295"), Some(u32::MAX));
        assert_eq!(parse_canonical_u32("4294967296"), None);
        assert_eq!(parse_canonical_u32("007"), None);
        assert_eq!(parse_canonical_u32("+7"), None);
        assert_eq!(parse_canonical_u32(""), None);
    }

    #[test]
    fn find_is_rank() {
        let labels = ItemLabels::Str(vec!["apple".into(), "beer".into(), "milk".into()]);
        assert_eq!(labels.find("beer"), Some(1));
        assert_eq!(labels.find("bread"), None);
        let ints = ItemLabels::Int(vec![3, 10, 200]);
        assert_eq!(ints.find("200"), Some(2));
        assert_eq!(ints.find("0200"), None);
        assert_eq!(ints.label(1), Label::Int(10));
    }
}
