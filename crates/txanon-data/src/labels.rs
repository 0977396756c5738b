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
