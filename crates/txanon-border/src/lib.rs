//! Borders of interval-closed collections of itemsets, and exact counts of the itemsets they
//! cover without enumerating them: the machinery of (h,k,p)-coherence (Xu, Fung, Wang, Fu, Pei,
//! "Publishing Sensitive Transactions for Itemset Utility", ICDM 2008, Sections 5 and 6).
//!
//! - [`Border`]: `[U, L]` as its edges `⟨α, β⟩`, `α ⊆ β`.
//! - [`Edge::w`]: the counting function `W_{X,len}(⟨α, β⟩) = Σ_{i=0..m} C(|β − (α∪X)|, i)`,
//!   `m = min(|β − (α∪X)|, len − |α∪X|)`; [`Edge::intersection`] (Theorem 2) and
//!   [`Edge::difference`] (Theorem 3).
//! - [`count`] / [`count_per_item_indexed`]: `W` over a whole set of edges without double
//!   counting, by the paper's recursion (no overlap, one overlap, several: recurse on a
//!   difference); [`compute_delta_indexed`], its Section 6 use after an item is suppressed.
//! - [`count_blocks_per_item`]: the same union for edges sharing their low set, by
//!   intersections only, for borders whose maximal itemsets overlap broadly.
//! - [`reference`](mod@reference): the unindexed forms the indexed ones are checked against, and the set
//!   operations on edges.
//! - [`Measure`]: what is counted in an interval, every itemset ([`AllItemsets`], the paper's
//!   `W`) or a subfamily (the coherence family counts moles as all itemsets less non-moles).
//!
//! Counts are exact `u128` (signed `i128` while a union is being summed): binomials of up to
//! a few hundred items overflow `u64` as soon as lengths exceed 4 (`C(267, 8)` is 10¹⁵, the
//! unbounded `2²⁶⁷` of one BMS-WebView-1 transaction far beyond), and 128 bits are exact up to
//! 1.7·10³⁸ at no cost; beyond, [`BorderError::Overflow`] says so rather than rounding. A bignum
//! would only serve unbounded lengths over more than 127 items, where no score of the greedy
//! algorithm is meaningful anyway.
//!
//! ```
//! use txanon_border::{AllItemsets, Border, count};
//!
//! // The mole border of the paper's Figure 3 (a=0 b=1 e=4 f=5 g=6).
//! let border = Border::new(
//!     vec![vec![0, 4], vec![0, 5], vec![0, 6], vec![1, 4], vec![1, 5, 6]],
//!     vec![vec![0, 1, 4, 5], vec![0, 1, 5, 6], vec![1, 4, 5, 6]],
//! )?;
//! // Example 3: W_{ag,3} = 3 moles hold a and g: ag, afg, abg (afg covered twice, counted once).
//! assert_eq!(count(border.edges(), &[0, 6], 3, &AllItemsets)?, 3);
//! // Every mole of length at most 3: twelve.
//! assert_eq!(count(border.edges(), &[], 3, &AllItemsets)?, 12);
//! # Ok::<(), txanon_border::BorderError>(())
//! ```
#![deny(missing_docs)]

mod border;
mod count;
mod edge;
mod error;

pub use border::Border;
pub use count::{
    AllItemsets, Measure, compute_delta_indexed, count, count_blocks_per_item,
    count_per_item_indexed, maximal_only,
};
pub use edge::{Edge, Itemset, binomial};

/// The paper's building blocks that counting with borders does not need from outside: the
/// unindexed forms of the counts (the references the indexed ones are checked against) and the
/// set operations on edges and itemsets (Theorems 2 and 3). Exported for the cross-checks of
/// tests and benchmarks.
pub mod reference {
    pub use crate::count::{add, compute_delta, count_blocks, count_per_item};
    pub use crate::edge::{difference, free_choices, intersection, is_subset, union, union_len};
}
pub use error::BorderError;

#[cfg(test)]
mod autotraits {
    fn send_sync<T: Send + Sync>() {}

    #[test]
    fn public_types_are_send_and_sync() {
        send_sync::<super::Border>();
        send_sync::<super::Edge>();
        send_sync::<super::BorderError>();
    }
}
