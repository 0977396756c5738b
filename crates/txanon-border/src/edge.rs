//! Edges of a border, the counting function W, edge intersection (Theorem 2) and edge difference
//! (Theorem 3).

use txanon_data::ItemId;
pub use txanon_data::sets::binomial;

/// A set of items, sorted ascending without repeats.
pub type Itemset = Vec<ItemId>;

/// An edge `⟨α, β⟩` of a border, `α ⊆ β`: it covers every itemset `γ` with `α ⊆ γ ⊆ β`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edge {
    low: Itemset,
    high: Itemset,
}

/// `a ⊆ b` for sorted sets.
pub fn is_subset(a: &[ItemId], b: &[ItemId]) -> bool {
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() || b[j] != x {
            return false;
        }
        j += 1;
    }
    true
}

/// `a ∪ b` for sorted sets.
pub fn union(a: &[ItemId], b: &[ItemId]) -> Itemset {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// `a ∩ b` for sorted sets.
pub fn intersection(a: &[ItemId], b: &[ItemId]) -> Itemset {
    let mut out = Vec::with_capacity(a.len().min(b.len()));
    txanon_data::sets::intersection(a, b, &mut out);
    out
}

/// `a − b` for sorted sets.
pub fn difference(a: &[ItemId], b: &[ItemId]) -> Itemset {
    a.iter().copied().filter(|x| b.binary_search(x).is_err()).collect()
}

/// `|a ∪ b ∪ c|` for sorted sets, without building the union.
pub fn union3_len(a: &[ItemId], b: &[ItemId], c: &[ItemId]) -> usize {
    let (mut i, mut j, mut k, mut n) = (0, 0, 0, 0);
    loop {
        let next = [a.get(i), b.get(j), c.get(k)].into_iter().flatten().min();
        let Some(&m) = next else { return n };
        n += 1;
        i += usize::from(a.get(i) == Some(&m));
        j += usize::from(b.get(j) == Some(&m));
        k += usize::from(c.get(k) == Some(&m));
    }
}

/// `|a ∪ b|` for sorted sets, without building the union.
pub fn union_len(a: &[ItemId], b: &[ItemId]) -> usize {
    a.len() + b.len() - txanon_data::sets::intersection_len(a, b)
}

/// `Σ_{i=0..m} C(r, i)` with `m = min(r, room)`: the itemsets made by adding at most `room`
/// of `r` free items to a fixed part. `None` beyond 2¹²⁸.
pub fn free_choices(r: usize, room: usize) -> Option<u128> {
    if room >= r {
        return if r < 128 { Some(1u128 << r) } else { None };
    }
    (0..=room).try_fold(0u128, |s, i| s.checked_add(binomial(r, i)?))
}

impl Edge {
    /// The edge `⟨low, high⟩`.
    ///
    /// # Panics
    /// When either set is not sorted without repeats, or `low ⊄ high`.
    pub fn new(low: Itemset, high: Itemset) -> Self {
        assert!(low.windows(2).all(|w| w[0] < w[1]), "low must be sorted without repeats");
        assert!(high.windows(2).all(|w| w[0] < w[1]), "high must be sorted without repeats");
        assert!(is_subset(&low, &high), "an edge needs low ⊆ high");
        Self { low, high }
    }

    /// `α`, the smallest itemset covered.
    pub fn low(&self) -> &[ItemId] {
        &self.low
    }

    /// `β`, the largest itemset covered.
    pub fn high(&self) -> &[ItemId] {
        &self.high
    }

    /// Removes `item` from `β` (the edge after the item is suppressed).
    ///
    /// # Panics
    /// When `item` is in `α` (the edge would be empty: drop it instead).
    pub fn remove_from_high(&mut self, item: ItemId) {
        assert!(self.low.binary_search(&item).is_err(), "an item of α cannot leave β");
        if let Ok(at) = self.high.binary_search(&item) {
            self.high.remove(at);
        }
    }

    /// True when `α ⊆ γ ⊆ β`.
    pub fn covers(&self, gamma: &[ItemId]) -> bool {
        is_subset(&self.low, gamma) && is_subset(gamma, &self.high)
    }

    /// True when the edge covers some itemset holding `x` of length at most `len`:
    /// `x ⊆ β` and `|α ∪ x| ≤ len`.
    pub fn is_relevant(&self, x: &[ItemId], len: usize) -> bool {
        is_subset(x, &self.high) && union_len(&self.low, x) <= len
    }

    /// The paper's `W_{X,len}(⟨α, β⟩)`: the covered itemsets holding `x` of length at most
    /// `len`. Each is `α ∪ X` plus up to `m = min(|β − (α ∪ X)|, len − |α ∪ X|)` of the
    /// `|β − (α ∪ X)|` other items: `Σ_{i=0..m} C(|β − (α ∪ X)|, i)`. `None` beyond 2¹²⁸
    /// (only possible without a length bound, above 127 free items).
    pub fn w(&self, x: &[ItemId], len: usize) -> Option<u128> {
        if !self.is_relevant(x, len) {
            return Some(0);
        }
        let fixed = union_len(&self.low, x);
        free_choices(self.high.len() - fixed, len - fixed)
    }

    /// Theorem 2: `⟨α₁, β₁⟩ ∩ ⟨α₂, β₂⟩ = ⟨α₁ ∪ α₂, β₁ ∩ β₂⟩`, empty unless
    /// `α₁ ∪ α₂ ⊆ β₁ ∩ β₂`.
    pub fn intersection(&self, other: &Edge) -> Option<Edge> {
        let low = union(&self.low, &other.low);
        let high = intersection(&self.high, &other.high);
        is_subset(&low, &high).then_some(Edge { low, high })
    }

    /// Theorem 3: the itemsets covered by `self` and not by `other` (which overlaps it), as
    /// edges: with `x = α₁ ∪ α₂` and `y = β₁ ∩ β₂`, `{⟨α₁, β₁ − {v}⟩ : v ∈ x − α₁}` (missing an
    /// item of `α₂`) and `{⟨α₁ ∪ {v}, β₁⟩ : v ∈ β₁ − y}` (holding an item outside `β₂`). The
    /// resulting edges overlap each other; their union is the difference.
    pub fn difference(&self, other: &Edge) -> Vec<Edge> {
        let x = union(&self.low, &other.low);
        let y = intersection(&self.high, &other.high);
        let mut out = Vec::new();
        for v in difference(&x, &self.low) {
            let high = self.high.iter().copied().filter(|&i| i != v).collect();
            out.push(Edge { low: self.low.clone(), high });
        }
        for v in difference(&self.high, &y) {
            out.push(Edge { low: union(&self.low, &[v]), high: self.high.clone() });
        }
        out
    }

    /// True when the edges share a covered itemset holding `x` of length at most `len`: their
    /// intersection `⟨α₁ ∪ α₂, β₁ ∩ β₂⟩` (Theorem 2) is an edge, holds `x`, and `α₁ ∪ α₂ ∪ x` is
    /// at most `len` long. Tested set by set, never building the union or the intersection:
    /// the paper's Compute-δ asks this of every pair of edges it meets.
    pub fn overlaps(&self, other: &Edge, x: &[ItemId], len: usize) -> bool {
        union3_len(&self.low, &other.low, x) <= len
            && [&self.low[..], &other.low[..], x]
                .iter()
                .all(|part| is_subset(part, &self.high) && is_subset(part, &other.high))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(low: &[u32], high: &[u32]) -> Edge {
        Edge::new(low.to_vec(), high.to_vec())
    }

    #[test]
    fn the_papers_example_4() {
        // ⟨ae, adefg⟩ − ⟨ae, ade⟩ = {⟨aef, adefg⟩, ⟨aeg, adefg⟩} (a=0 d=3 e=4 f=5 g=6).
        let d = e(&[0, 4], &[0, 3, 4, 5, 6]).difference(&e(&[0, 4], &[0, 3, 4]));
        assert_eq!(d, vec![e(&[0, 4, 5], &[0, 3, 4, 5, 6]), e(&[0, 4, 6], &[0, 3, 4, 5, 6])]);
    }

    #[test]
    fn w_by_hand() {
        // ⟨ag, abfg⟩, X = ag, len 3: ag, abg, afg → 3 (the paper's Example 3, one edge).
        assert_eq!(e(&[0, 6], &[0, 1, 5, 6]).w(&[0, 6], 3), Some(3));
        // Without a length bound: 2² = 4 (ag, abg, afg, abfg).
        assert_eq!(e(&[0, 6], &[0, 1, 5, 6]).w(&[0, 6], usize::MAX), Some(4));
        // X outside β, or too long for len: nothing.
        assert_eq!(e(&[0], &[0, 1]).w(&[2], 3), Some(0));
        assert_eq!(e(&[0, 1], &[0, 1, 2]).w(&[2], 2), Some(0));
        // 2¹²⁸ does not fit.
        let wide: Vec<u32> = (0..128).collect();
        assert_eq!(e(&[], &wide).w(&[], usize::MAX), None);
        assert_eq!(binomial(200, 100), None);
        assert_eq!(binomial(267, 3), Some(3_136_805)); // 267·266·265/6
    }

    #[test]
    fn intersection_is_theorem_2() {
        assert_eq!(
            e(&[0], &[0, 1, 2]).intersection(&e(&[1], &[0, 1, 3])),
            Some(e(&[0, 1], &[0, 1]))
        );
        assert_eq!(e(&[0], &[0, 1]).intersection(&e(&[2], &[0, 2])), None);
    }

    /// The sorted subset of 0..8 that `bits` names.
    fn set(bits: u32) -> Vec<u32> {
        (0..8).filter(|i| bits >> i & 1 == 1).collect()
    }

    /// `overlaps` is its definition, tried on every itemset of eight items: some itemset
    /// holding `x`, of at most `len` items, covered by both edges; `union3_len` is the size of
    /// the union. Counts the cases that overlap and those that do not.
    #[test]
    fn overlaps_is_its_definition() {
        use proptest::strategy::{Strategy, ValueTree};
        let strategy = (0u32..256, 0u32..256, 0u32..256, 0u32..256, 0u32..256, 0usize..6);
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let mut overlapping = 0;
        for _ in 0..2000 {
            let (a, h1, c, h2, x, len) = strategy.new_tree(&mut runner).unwrap().current();
            // Low sets inside their high sets; x drawn sparser, to meet both often.
            let (l1, l2, x) = (a & h1 & 0x55, c & h2 & 0xAA, x & h1 & h2);
            let (e1, e2) = (e(&set(l1), &set(h1)), e(&set(l2), &set(h2)));
            let covered = |s: u32, lo: u32, hi: u32| s & lo == lo && s & !hi == 0;
            let shared = (0u32..256).any(|s| {
                s & x == x
                    && (s.count_ones() as usize) <= len
                    && covered(s, l1, h1)
                    && covered(s, l2, h2)
            });
            assert_eq!(e1.overlaps(&e2, &set(x), len), shared, "{e1:?} {e2:?} x {x:b} len {len}");
            assert_eq!(
                union3_len(&set(l1), &set(l2), &set(x)),
                (l1 | l2 | x).count_ones() as usize
            );
            overlapping += usize::from(shared);
        }
        assert!((200..1800).contains(&overlapping), "{overlapping} of 2000 cases overlap");
    }

    #[test]
    #[should_panic(expected = "low ⊆ high")]
    fn low_must_be_inside_high() {
        e(&[3], &[0, 1]);
    }
}
