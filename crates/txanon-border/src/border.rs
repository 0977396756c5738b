//! A border `[U, L]` of an interval-closed collection of itemsets.

use crate::edge::{Edge, Itemset, is_subset};
use crate::error::BorderError;

/// A border `[U, L]` (Dong & Li, KDD 1999; the coherence paper's Definition 4): `U` the minimal
/// and `L` the maximal itemsets of an interval-closed collection, which it represents exactly:
/// every `γ` with `α ⊆ γ ⊆ β` for some `α ∈ U`, `β ∈ L`. Kept as its edges
/// `{⟨α, β⟩ : α ∈ U, β ∈ L, α ⊆ β}`. (The paper calls `U` the upper bound: its lattice has
/// the empty set on top.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Border {
    minimal: Vec<Itemset>,
    maximal: Vec<Itemset>,
    edges: Vec<Edge>,
}

impl Border {
    /// The border with minimal itemsets `minimal` and maximal itemsets `maximal` (each sorted
    /// without repeats).
    ///
    /// # Errors
    /// [`BorderError::NotABorder`] when a set of either side is not an anti-chain, a minimal
    /// itemset lies below no maximal one, or a maximal one above no minimal one.
    ///
    /// # Complexity
    /// `O((|U| + |L|)² · w)` for the checks and the edges, `w` the widest itemset.
    pub fn new(mut minimal: Vec<Itemset>, mut maximal: Vec<Itemset>) -> Result<Self, BorderError> {
        minimal.sort();
        maximal.sort();
        for (side, sets) in [("minimal", &minimal), ("maximal", &maximal)] {
            for (i, a) in sets.iter().enumerate() {
                if a.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(BorderError::NotABorder(format!(
                        "{a:?} is not sorted without repeats"
                    )));
                }
                if let Some(b) = sets[i + 1..].iter().find(|b| is_subset(a, b) || is_subset(b, a)) {
                    return Err(BorderError::NotABorder(format!(
                        "{side} itemsets {a:?} and {b:?} are comparable"
                    )));
                }
            }
        }
        let mut edges = Vec::new();
        for a in &minimal {
            let above: Vec<&Itemset> = maximal.iter().filter(|b| is_subset(a, b)).collect();
            if above.is_empty() {
                return Err(BorderError::NotABorder(format!(
                    "minimal {a:?} is below no maximal itemset"
                )));
            }
            edges.extend(above.into_iter().map(|b| Edge::new(a.clone(), b.clone())));
        }
        if let Some(b) = maximal.iter().find(|b| !minimal.iter().any(|a| is_subset(a, b))) {
            return Err(BorderError::NotABorder(format!(
                "maximal {b:?} is above no minimal itemset"
            )));
        }
        Ok(Self { minimal, maximal, edges })
    }

    /// `U`, the minimal itemsets, sorted.
    pub fn minimal(&self) -> &[Itemset] {
        &self.minimal
    }

    /// `L`, the maximal itemsets, sorted.
    pub fn maximal(&self) -> &[Itemset] {
        &self.maximal
    }

    /// The edges, by minimal then maximal itemset.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The edges whose maximal end holds `item`: `E(v)` of the paper, the only ones that
    /// cover itemsets holding it.
    pub fn edges_with(&self, item: txanon_data::ItemId) -> Vec<Edge> {
        self.edges.iter().filter(|e| e.high().binary_search(&item).is_ok()).cloned().collect()
    }

    /// True when the border covers `gamma`.
    pub fn covers(&self, gamma: &[txanon_data::ItemId]) -> bool {
        self.edges.iter().any(|e| e.covers(gamma))
    }
}
