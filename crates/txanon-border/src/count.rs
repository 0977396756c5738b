//! Counting the itemsets a set of edges covers, without double counting and without
//! enumerating them.

use txanon_data::ItemId;

use crate::edge::{Edge, Itemset, free_choices, intersection, is_subset, union};
use crate::error::BorderError;

/// What is counted among the itemsets an edge covers.
pub trait Measure: Sync {
    /// The counted itemsets `γ` with `low ∪ x ⊆ γ ⊆ high` and `|γ| ≤ len`.
    ///
    /// # Errors
    /// [`BorderError::Overflow`] beyond 2¹²⁸.
    fn count(&self, edge: &Edge, x: &[ItemId], len: usize) -> Result<u128, BorderError>;

    /// Adds `sign ×` (the counted itemsets of the edge holding `x` and `u`, of length at most
    /// `len`) to `out[u]` for every item `u` of the edge's high set. The default calls
    /// [`count`](Self::count) once per item.
    ///
    /// # Errors
    /// [`BorderError::Overflow`] beyond 2¹²⁷ in a tally.
    fn tally(
        &self,
        edge: &Edge,
        x: &[ItemId],
        len: usize,
        sign: i8,
        out: &mut [i128],
    ) -> Result<(), BorderError> {
        for &u in edge.high() {
            let c = self.count(edge, &union(x, &[u]), len)?;
            add(&mut out[u as usize], c, sign)?;
        }
        Ok(())
    }
}

/// Adds `sign · c` to a tally.
///
/// # Errors
/// [`BorderError::Overflow`] when it leaves the `i128` range.
pub fn add(slot: &mut i128, c: u128, sign: i8) -> Result<(), BorderError> {
    let c = i128::try_from(c).map_err(|_| BorderError::Overflow)?;
    *slot = if sign > 0 { slot.checked_add(c) } else { slot.checked_sub(c) }
        .ok_or(BorderError::Overflow)?;
    Ok(())
}

/// Counts every covered itemset: the paper's `W`.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllItemsets;

impl Measure for AllItemsets {
    fn count(&self, edge: &Edge, x: &[ItemId], len: usize) -> Result<u128, BorderError> {
        edge.w(x, len).ok_or(BorderError::Overflow)
    }

    /// Two values only: items of `α ∪ X` are in every counted itemset; any other item is in
    /// those that take it among the free items, `Σ_i C(r − 1, i)` for one slot fewer.
    fn tally(
        &self,
        edge: &Edge,
        x: &[ItemId],
        len: usize,
        sign: i8,
        out: &mut [i128],
    ) -> Result<(), BorderError> {
        if !edge.is_relevant(x, len) {
            return Ok(());
        }
        let fixed = union(edge.low(), x);
        let r = edge.high().len() - fixed.len();
        let room = len - fixed.len();
        let every = free_choices(r, room).ok_or(BorderError::Overflow)?;
        let with_free = if r == 0 || room == 0 {
            0
        } else {
            free_choices(r - 1, room - 1).ok_or(BorderError::Overflow)?
        };
        for &u in edge.high() {
            let c = if fixed.binary_search(&u).is_ok() { every } else { with_free };
            add(&mut out[u as usize], c, sign)?;
        }
        Ok(())
    }
}

/// A target of the union recursion: one total, or a tally per item.
trait Accumulator {
    fn take(
        &mut self,
        measure: &dyn Measure,
        edge: &Edge,
        x: &[ItemId],
        len: usize,
        sign: i8,
    ) -> Result<(), BorderError>;
}

struct Total(i128);

impl Accumulator for Total {
    fn take(
        &mut self,
        measure: &dyn Measure,
        edge: &Edge,
        x: &[ItemId],
        len: usize,
        sign: i8,
    ) -> Result<(), BorderError> {
        add(&mut self.0, measure.count(edge, x, len)?, sign)
    }
}

struct PerItem<'a>(&'a mut [i128]);

impl Accumulator for PerItem<'_> {
    fn take(
        &mut self,
        measure: &dyn Measure,
        edge: &Edge,
        x: &[ItemId],
        len: usize,
        sign: i8,
    ) -> Result<(), BorderError> {
        measure.tally(edge, x, len, sign, self.0)
    }
}

/// The itemsets covered by `edge` and by none of `overlapping` (the examined edges that share
/// a relevant itemset with it), counted into `acc`: the paper's three cases. No overlap: the
/// edge itself. One: the edge less its intersection (Theorem 2). More: the edge is replaced by
/// its difference with one of them (Theorem 3), and each new edge is counted against the
/// others and the new edges before it, recursively.
fn uncovered(
    edge: &Edge,
    overlapping: &[Edge],
    x: &[ItemId],
    len: usize,
    measure: &dyn Measure,
    acc: &mut dyn Accumulator,
) -> Result<(), BorderError> {
    match overlapping {
        [] => acc.take(measure, edge, x, len, 1),
        [only] => {
            acc.take(measure, edge, x, len, 1)?;
            let shared = edge.intersection(only).expect("overlapping edges intersect");
            acc.take(measure, &shared, x, len, -1)
        }
        [first, rest @ ..] => {
            let mut examined: Vec<Edge> = rest.to_vec();
            for piece in edge.difference(first) {
                if !piece.is_relevant(x, len) {
                    continue;
                }
                let against: Vec<Edge> =
                    examined.iter().filter(|e| piece.overlaps(e, x, len)).cloned().collect();
                uncovered(&piece, &against, x, len, measure, acc)?;
                examined.push(piece);
            }
            Ok(())
        }
    }
}

fn union_of_edges(
    edges: &[Edge],
    x: &[ItemId],
    len: usize,
    measure: &dyn Measure,
    acc: &mut dyn Accumulator,
) -> Result<(), BorderError> {
    for (j, edge) in edges.iter().enumerate() {
        if !edge.is_relevant(x, len) {
            continue;
        }
        let overlapping: Vec<Edge> =
            edges[..j].iter().filter(|e| edge.overlaps(e, x, len)).cloned().collect();
        uncovered(edge, &overlapping, x, len, measure, acc)?;
    }
    Ok(())
}

/// The paper's `W_{X,len}` over a set of edges: the itemsets covered by some edge, holding
/// `x`, of length at most `len`, each counted once whatever number of edges covers it, as
/// `measure` counts them.
///
/// # Complexity
/// Each edge is compared with the edges before it (`O(E²)` overlap tests); where several
/// overlap, the recursion of the paper's Compute-δ branches on edge differences. Each level of
/// it adds an item to an edge's low set or removes one from its high set, and edges whose low
/// set (with `x`) exceeds `len` drop out, so a length bound keeps it shallow; without one it is
/// exponential in the worst case.
///
/// # Errors
/// [`BorderError::Overflow`] beyond 2¹²⁷.
pub fn count(
    edges: &[Edge],
    x: &[ItemId],
    len: usize,
    measure: &dyn Measure,
) -> Result<u128, BorderError> {
    let mut total = Total(0);
    union_of_edges(edges, x, len, measure, &mut total)?;
    u128::try_from(total.0).map_err(|_| BorderError::Overflow)
}

/// Like [`count`], per item: `out[u]` receives the number of covered itemsets holding `x`
/// and `u` (of length at most `len`). `out` must have a slot for every item of the edges.
///
/// # Errors
/// [`BorderError::Overflow`] beyond 2¹²⁷.
pub fn count_per_item(
    edges: &[Edge],
    x: &[ItemId],
    len: usize,
    measure: &dyn Measure,
    out: &mut [i128],
) -> Result<(), BorderError> {
    union_of_edges(edges, x, len, measure, &mut PerItem(out))
}

/// The paper's Compute-δ (Section 6): after item `v` is suppressed, the number `δ(v')` of
/// losers (covered itemsets holding `v`, of length at most `len`) that also hold `v'`, for
/// every other item `v'`, from `with_v`, the edges whose high set holds `v`. `delta` receives
/// them; `delta[v]` receives the number of losers.
///
/// # Errors
/// [`BorderError::Overflow`] beyond 2¹²⁷.
pub fn compute_delta(
    with_v: &[Edge],
    v: ItemId,
    len: usize,
    measure: &dyn Measure,
    delta: &mut [i128],
) -> Result<(), BorderError> {
    count_per_item(with_v, &[v], len, measure, delta)
}

/// The union of the intervals `[x, β]` over `blocks`, per item: `out[u]` receives
/// `sign ×` the counted itemsets holding `x` and `u`, of length at most `len`, that lie below
/// some block. Each block is counted whole and the union of its intersections with the blocks
/// before it is subtracted, recursively (`[x, β₁] ∩ [x, β₂] = [x, β₁ ∩ β₂]`, Theorem 2 with a
/// shared low set). Only maximal intersections are kept, and those in which `measure` counts
/// nothing are dropped.
///
/// This is the form to use when the edges' high sets overlap broadly (long transactions):
/// Theorem 3's difference of two such edges branches on every item one has and the other has
/// not, while their intersection is one edge.
///
/// # Complexity
/// `O(B²·|β|)` to intersect the blocks at each level of recursion; levels work on strictly
/// smaller sets.
///
/// # Errors
/// [`BorderError::Overflow`] beyond 2¹²⁷.
pub fn count_blocks_per_item(
    blocks: &[Itemset],
    x: &[ItemId],
    len: usize,
    measure: &dyn Measure,
    sign: i8,
    out: &mut [i128],
) -> Result<(), BorderError> {
    for (j, block) in blocks.iter().enumerate() {
        if !is_subset(x, block) || x.len() > len {
            continue;
        }
        let edge = Edge::new(x.to_vec(), block.clone());
        measure.tally(&edge, x, len, sign, out)?;
        let mut shared: Vec<Itemset> = Vec::new();
        for earlier in &blocks[..j] {
            if !is_subset(x, earlier) {
                continue;
            }
            let common = intersection(block, earlier);
            if measure.count(&Edge::new(x.to_vec(), common.clone()), x, len)? > 0 {
                shared.push(common);
            }
        }
        let shared = maximal_only(shared);
        if !shared.is_empty() {
            count_blocks_per_item(&shared, x, len, measure, -sign, out)?;
        }
    }
    Ok(())
}

/// The union of the intervals `[x, β]` over `blocks`: the total number of counted itemsets
/// holding `x`, of length at most `len`, below some block.
///
/// # Errors
/// [`BorderError::Overflow`] beyond 2¹²⁷.
pub fn count_blocks(
    blocks: &[Itemset],
    x: &[ItemId],
    len: usize,
    measure: &dyn Measure,
) -> Result<u128, BorderError> {
    let mut total = 0i128;
    for (j, block) in blocks.iter().enumerate() {
        if !is_subset(x, block) {
            continue;
        }
        add(&mut total, measure.count(&Edge::new(x.to_vec(), block.clone()), x, len)?, 1)?;
        let mut shared: Vec<Itemset> = Vec::new();
        for earlier in &blocks[..j] {
            if is_subset(x, earlier) {
                let common = intersection(block, earlier);
                if measure.count(&Edge::new(x.to_vec(), common.clone()), x, len)? > 0 {
                    shared.push(common);
                }
            }
        }
        let shared = maximal_only(shared);
        if !shared.is_empty() {
            let overlap = count_blocks(&shared, x, len, measure)?;
            add(&mut total, overlap, -1)?;
        }
    }
    u128::try_from(total).map_err(|_| BorderError::Overflow)
}

/// The sets of `sets` that are not subsets of another (duplicates kept once).
pub fn maximal_only(mut sets: Vec<Itemset>) -> Vec<Itemset> {
    sets.sort_unstable_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    sets.dedup();
    let mut kept: Vec<Itemset> = Vec::with_capacity(sets.len());
    for s in sets {
        if !kept.iter().any(|k| is_subset(&s, k)) {
            kept.push(s);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maximal_only_drops_subsets_and_duplicates() {
        let sets = vec![vec![1], vec![1, 2], vec![1, 2], vec![3], vec![0, 3]];
        assert_eq!(maximal_only(sets), vec![vec![0, 3], vec![1, 2]]);
    }

    #[test]
    fn overflow_is_reported() {
        let wide: Vec<u32> = (0..130).collect();
        let edges = [Edge::new(vec![], wide.clone())];
        assert_eq!(count(&edges, &[], usize::MAX, &AllItemsets), Err(BorderError::Overflow));
        assert_eq!(count(&edges, &[], 2, &AllItemsets), Ok(1 + 130 + 130 * 129 / 2));
    }
}
