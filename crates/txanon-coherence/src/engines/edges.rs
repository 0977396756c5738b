//! [`Engine::BorderEdges`](crate::Engine::BorderEdges): the paper's mole border, `W` over its
//! edges, and Compute-δ after each suppression.

use txanon_border::{AllItemsets, Edge, compute_delta_indexed, count_per_item_indexed};

use crate::engines::Counter;
use crate::error::CoherenceError;
use crate::working::Working;

/// The mole border `[U, L]` as edges `⟨α, β⟩`: `U` the minimal moles, `L` the maximal public
/// itemsets that occur (the distinct maximal public parts of the transactions). The moles of
/// length at most `p` are the itemsets it covers of that length (the paper's Section 5.1).
///
/// Many edges share their `β` (every minimal mole inside one long transaction), so each `β`
/// is stored once, as a block, and an edge is its `α` and its block.
#[derive(Debug)]
pub(crate) struct EdgeMoles {
    /// The maximal sets, each ascending; suppressed items removed.
    blocks: Vec<Vec<u32>>,
    /// Per block, its edges' `α` (`None` once the edge is gone).
    lows: Vec<Vec<Option<Vec<u32>>>>,
    /// Per public item, the blocks that held it when the border was built.
    by_item: Vec<Vec<u32>>,
    counts: Vec<u128>,
    p: usize,
}

impl EdgeMoles {
    /// From the border's sides: `blocks` the maximal public itemsets that occur (`L`),
    /// `minimal` the minimal moles (`U`).
    pub fn new(
        w: &Working,
        blocks: Vec<Vec<u32>>,
        minimal: &[Vec<u32>],
        p: usize,
    ) -> Result<Self, CoherenceError> {
        let mut by_item: Vec<Vec<u32>> = vec![Vec::new(); w.public_items()];
        for (id, beta) in blocks.iter().enumerate() {
            for &i in beta {
                by_item[i as usize].push(id as u32);
            }
        }
        let mut lows: Vec<Vec<Option<Vec<u32>>>> = vec![Vec::new(); blocks.len()];
        let mut edges = Vec::new();
        for alpha in minimal {
            let mut above = by_item[alpha[0] as usize].clone();
            for &i in &alpha[1..] {
                above.retain(|id| by_item[i as usize].binary_search(id).is_ok());
            }
            for id in above {
                lows[id as usize].push(Some(alpha.clone()));
                edges.push(Edge::new(alpha.clone(), blocks[id as usize].clone()));
            }
        }
        let mut tally = vec![0i128; w.public_items()];
        count_per_item_indexed(&edges, &[], p, &AllItemsets, &mut tally)?;
        let counts = tally.into_iter().map(|c| c as u128).collect();
        Ok(Self { blocks, lows, by_item, counts, p })
    }
}

impl Counter for EdgeMoles {
    fn counts(&self) -> &[u128] {
        &self.counts
    }

    /// Compute-δ over `E(v)`, the edges whose `β` holds `v` (only those with `|α ∪ {v}| ≤ p`
    /// cover a loser); then the border without `v`: edges whose `α` holds `v` go (all their
    /// itemsets were moles holding `v`), and `v` leaves the blocks holding it (the other
    /// edges' moles without `v` remain). Work proportional to the blocks holding `v`.
    fn suppress(&mut self, w: &Working, v: u32) -> Result<(), CoherenceError> {
        let holding: Vec<u32> = std::mem::take(&mut self.by_item[v as usize])
            .into_iter()
            .filter(|&b| self.blocks[b as usize].binary_search(&v).is_ok())
            .collect();
        let mut with_v = Vec::new();
        for &b in &holding {
            let beta = &self.blocks[b as usize];
            for alpha in self.lows[b as usize].iter().flatten() {
                let fixed = alpha.len() + usize::from(alpha.binary_search(&v).is_err());
                if fixed <= self.p {
                    with_v.push(Edge::new(alpha.clone(), beta.clone()));
                }
            }
        }
        let mut delta = vec![0i128; w.public_items()];
        compute_delta_indexed(&with_v, v, self.p, &AllItemsets, &mut delta)?;
        for (u, d) in delta.iter().enumerate() {
            if u != v as usize {
                self.counts[u] -= *d as u128;
            }
        }
        self.counts[v as usize] = 0;
        for b in holding {
            for low in &mut self.lows[b as usize] {
                if low.as_ref().is_some_and(|a| a.binary_search(&v).is_ok()) {
                    *low = None;
                }
            }
            let beta = &mut self.blocks[b as usize];
            let at = beta.binary_search(&v).expect("held");
            beta.remove(at);
        }
        Ok(())
    }

    /// The border's edges only (`w` gives the number of public items).
    fn reads_rows(&self) -> bool {
        false
    }
}
