//! Global recoding: a cut of the hierarchy, and the information loss it costs.

use serde::Serialize;
use txanon_data::TransactionDb;

use crate::hierarchy::{Hierarchy, NodeId};

/// A cut of a hierarchy: a set of nodes such that every leaf has exactly one of them among
/// its ancestors (itself included). Generalizing by a cut replaces every item by its node on
/// the cut, the same for every transaction (global recoding), and merges the duplicates a
/// transaction then holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The cut's node above each leaf, by the leaf's depth-first position.
    node_of_leaf: Vec<NodeId>,
}

impl Cut {
    /// The cut of the leaves: nothing generalized.
    pub fn leaves(hierarchy: &Hierarchy) -> Self {
        Self { node_of_leaf: hierarchy.leaves().to_vec() }
    }

    /// The cut made of `nodes`.
    ///
    /// # Errors
    /// A sentence naming a leaf that no node covers or that two nodes cover.
    pub fn from_nodes(hierarchy: &Hierarchy, nodes: &[NodeId]) -> Result<Self, String> {
        let mut node_of_leaf = vec![NodeId::MAX; hierarchy.leaves().len()];
        for &v in nodes {
            for pos in hierarchy.leaf_range(v) {
                if node_of_leaf[pos] != NodeId::MAX {
                    return Err(format!(
                        "leaf {} is below both {} and {}",
                        hierarchy.label(hierarchy.leaves()[pos]),
                        hierarchy.label(node_of_leaf[pos]),
                        hierarchy.label(v)
                    ));
                }
                node_of_leaf[pos] = v;
            }
        }
        if let Some(pos) = node_of_leaf.iter().position(|&v| v == NodeId::MAX) {
            return Err(format!(
                "leaf {} is below no node of the cut",
                hierarchy.label(hierarchy.leaves()[pos])
            ));
        }
        Ok(Self { node_of_leaf })
    }

    /// The node of the cut above the leaf at depth-first position `pos`.
    pub fn node_of_leaf(&self, pos: usize) -> NodeId {
        self.node_of_leaf[pos]
    }

    /// True when `v` is a node of the cut.
    pub fn contains(&self, hierarchy: &Hierarchy, v: NodeId) -> bool {
        self.node_of_leaf[hierarchy.leaf_range(v).start] == v
    }

    /// The cut's nodes, in depth-first order.
    pub fn nodes(&self) -> Vec<NodeId> {
        let mut nodes = self.node_of_leaf.clone();
        nodes.dedup();
        nodes
    }

    /// Moves the cut up to `a`: every leaf below `a` is generalized to `a`.
    ///
    /// # Panics
    /// When a node of the cut is an ancestor of `a` (that would lower the cut).
    pub(crate) fn raise(&mut self, hierarchy: &Hierarchy, a: NodeId) {
        let range = hierarchy.leaf_range(a);
        let current = self.node_of_leaf[range.start];
        assert!(hierarchy.covers(a, current), "raising to a node below the cut lowers it");
        self.node_of_leaf[range].fill(a);
    }
}

/// The loss weight of a node: the leaves below it, or 0 for a node above a single leaf (the
/// paper's `NCP(p) = |u_p| / |I|`, and 0 when `|u_p| = 1`), before dividing by `|I|`.
pub(crate) fn weight(hierarchy: &Hierarchy, v: NodeId) -> u64 {
    match hierarchy.leaf_count(v) {
        1 => 0,
        n => n as u64,
    }
}

/// The information loss of a generalization (the paper's Section 6 measure).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InformationLoss {
    /// `NCP(D) = Σ_occurrences NCP(cut node) / occurrences`: every occurrence of an item in
    /// the original weighs its generalized item's `NCP(p) = |u_p| / |I|` (0 for an item
    /// published as it is, 1 for the root), `|I|` the hierarchy's leaves. In `[0, 1]`.
    pub ncp: f64,
    /// The numerator in integers: `Σ_occurrences |u_p|` over occurrences whose node has
    /// more than one leaf (exact; `ncp` is it over `|I| · occurrences`).
    pub weighted_leaves: u128,
    /// Item occurrences of the original.
    pub occurrences: u64,
    /// Occurrences published at each height of the hierarchy: `[0]` as they are (leaves),
    /// `[1]` one level up, and so on to the root's height.
    pub occurrences_by_height: Vec<u64>,
}

/// The information loss of publishing `db` generalized by `cut`; `leaf_of_item` is
/// [`Hierarchy::leaves_of_items`].
pub fn information_loss(
    hierarchy: &Hierarchy,
    cut: &Cut,
    db: &TransactionDb,
    leaf_of_item: &[NodeId],
) -> InformationLoss {
    let mut weighted = 0u128;
    let mut by_height = vec![0u64; hierarchy.height(hierarchy.root()) as usize + 1];
    for (item, &support) in db.supports().iter().enumerate() {
        let leaf = leaf_of_item[item];
        let node = cut.node_of_leaf(hierarchy.leaf_range(leaf).start);
        weighted += u128::from(support) * u128::from(weight(hierarchy, node));
        by_height[hierarchy.height(node) as usize] += u64::from(support);
    }
    let occurrences = db.occurrences() as u64;
    let leaves = hierarchy.leaves().len() as f64;
    let ncp = if occurrences == 0 { 0.0 } else { weighted as f64 / (leaves * occurrences as f64) };
    InformationLoss {
        ncp,
        weighted_leaves: weighted,
        occurrences,
        occurrences_by_height: by_height,
    }
}
