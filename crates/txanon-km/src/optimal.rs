//! Optimal Anonymization (OA): every cut of the hierarchy, the kᵐ-anonymous one of least
//! information loss.

use std::collections::HashMap;

use txanon_data::TransactionDb;

use crate::cut::{Cut, weight};
use crate::error::KmError;
use crate::hierarchy::{Hierarchy, NodeId};

/// The most nodes of a hierarchy the optimal search takes.
pub const MAX_OPTIMAL_NODES: usize = 4096;

/// The kᵐ-anonymous cut of least information loss, ties to the first in the enumeration
/// (each node before its children's cuts). The paper's OA explores the same space bottom-up
/// with pruning; this enumeration is the exact reference the heuristics are compared with, so
/// it keeps to the definition: each candidate's generalized transactions, every combination
/// of at most `m` of their items counted in a map of item vectors. It shares only the
/// hierarchy and the loss weight with AA and DA.
///
/// # Errors
/// [`KmError::TooManyCuts`] when the hierarchy has more than `max_cuts` cuts,
/// [`KmError::Hierarchy`] when it has more than [`MAX_OPTIMAL_NODES`] nodes.
pub(crate) fn optimal_cut(
    db: &TransactionDb,
    hierarchy: &Hierarchy,
    leaf_of_item: &[NodeId],
    k: u32,
    m: usize,
    max_cuts: u64,
) -> Result<Cut, KmError> {
    let cuts = hierarchy.cut_count();
    if cuts > u128::from(max_cuts) {
        return Err(KmError::TooManyCuts { cuts, limit: max_cuts });
    }
    // The enumeration recurses once per node of a cut: bounded so that no hierarchy a file
    // can hold (a chain of a million nodes has only a million cuts) overflows the stack.
    if hierarchy.len() > MAX_OPTIMAL_NODES {
        return Err(KmError::Hierarchy(format!(
            "the optimal search takes hierarchies of at most {MAX_OPTIMAL_NODES} nodes, this one has {}: use the Apriori algorithm (AA)",
            hierarchy.len()
        )));
    }
    let mut best: Option<(u128, Vec<NodeId>)> = None;
    let mut chosen = Vec::new();
    let mut pending = vec![hierarchy.root()];
    each_cut(hierarchy, &mut pending, &mut chosen, &mut |nodes| {
        let cut = Cut::from_nodes(hierarchy, nodes).expect("the enumeration yields cuts");
        let node_of_item: Vec<NodeId> = leaf_of_item
            .iter()
            .map(|&leaf| cut.node_of_leaf(hierarchy.leaf_range(leaf).start))
            .collect();
        let loss: u128 = db
            .supports()
            .iter()
            .zip(&node_of_item)
            .map(|(&s, &v)| u128::from(s) * u128::from(weight(hierarchy, v)))
            .sum();
        if best.as_ref().is_some_and(|(b, _)| *b <= loss) {
            return;
        }
        if is_km_anonymous(db, &node_of_item, k, m) {
            best = Some((loss, nodes.to_vec()));
        }
    });
    let (_, nodes) = best.expect("the root's cut is kᵐ-anonymous: checked before the search");
    Ok(Cut::from_nodes(hierarchy, &nodes).expect("a cut"))
}

/// Calls `f` with every cut of the subtrees of `pending` joined to `chosen`.
fn each_cut(
    hierarchy: &Hierarchy,
    pending: &mut Vec<NodeId>,
    chosen: &mut Vec<NodeId>,
    f: &mut impl FnMut(&[NodeId]),
) {
    let Some(v) = pending.pop() else {
        f(chosen);
        return;
    };
    chosen.push(v);
    each_cut(hierarchy, pending, chosen, f);
    chosen.pop();
    if !hierarchy.is_leaf(v) {
        let before = pending.len();
        pending.extend(hierarchy.children(v).iter().rev());
        each_cut(hierarchy, pending, chosen, f);
        pending.truncate(before);
    }
    pending.push(v);
}

/// Whether every combination of at most `m` items of the generalized transactions that
/// occurs is in at least `k` of them.
fn is_km_anonymous(db: &TransactionDb, node_of_item: &[NodeId], k: u32, m: usize) -> bool {
    let mut counts: HashMap<Vec<NodeId>, u32> = HashMap::new();
    for t in db.iter() {
        let mut row: Vec<NodeId> = t.iter().map(|&i| node_of_item[i as usize]).collect();
        row.sort_unstable();
        row.dedup();
        let mut subset = Vec::new();
        subsets(&row, m, 0, &mut subset, &mut |s| *counts.entry(s.to_vec()).or_insert(0) += 1);
    }
    counts.values().all(|&c| c >= k)
}

fn subsets(
    row: &[NodeId],
    m: usize,
    from: usize,
    subset: &mut Vec<NodeId>,
    f: &mut impl FnMut(&[NodeId]),
) {
    if !subset.is_empty() {
        f(subset);
    }
    if subset.len() == m {
        return;
    }
    for j in from..row.len() {
        subset.push(row[j]);
        subsets(row, m, j + 1, subset, f);
        subset.pop();
    }
}
