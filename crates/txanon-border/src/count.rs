//! Counting the itemsets a set of edges covers, without double counting and without
//! enumerating them.

use rayon::prelude::*;
use txanon_data::sets::share_an_element;
use txanon_data::{ItemId, ItemIndex};

use crate::edge::{Edge, Itemset, free_choices, intersection, is_subset, union, union3_len};
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
    overlapping: &[&Edge],
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
            // Edges are compared and passed down by reference: cloning every overlapping edge
            // (two sets each) was most of Compute-δ's time.
            let pieces = edge.difference(first);
            let mut examined: Vec<&Edge> = rest.to_vec();
            for piece in &pieces {
                if !piece.is_relevant(x, len) {
                    continue;
                }
                let against: Vec<&Edge> =
                    examined.iter().copied().filter(|e| piece.overlaps(e, x, len)).collect();
                uncovered(piece, &against, x, len, measure, acc)?;
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
        let overlapping: Vec<&Edge> =
            edges[..j].iter().filter(|e| edge.overlaps(e, x, len)).collect();
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

/// [`compute_delta`] with the overlaps found through an index by low set
/// ([`count_per_item_indexed`]).
///
/// # Errors
/// [`BorderError::Overflow`] beyond 2¹²⁷.
pub fn compute_delta_indexed(
    with_v: &[Edge],
    v: ItemId,
    len: usize,
    measure: &dyn Measure,
    delta: &mut [i128],
) -> Result<(), BorderError> {
    count_per_item_indexed(with_v, &[v], len, measure, delta)
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

/// The sets of `sets` that are not subsets of another (duplicates kept once), longest first
/// (then ascending).
///
/// A set is covered exactly when a strictly longer distinct set holds all its items (a covering
/// set that is itself covered is below a maximal one that covers it too), so each set is tested
/// on its own, in parallel: the sets holding each item are listed by position in the sorted
/// order, and the positions before the first set of the tested set's length are intersected
/// over its items, shortest list first, stopping at the first shared position
/// ([`share_an_element`]).
///
/// # Complexity
/// `O(Σ|S|)` to list, and per set `S` a leapfrog over its items' lists of longer sets: at most
/// `|S| · m · log` for `m` the shortest of them, and much less when two of them barely meet.
/// Memory: one `u32` per item occurrence beyond the sets themselves.
///
/// # Panics
/// With more than 2³² − 1 distinct sets.
pub fn maximal_only(mut sets: Vec<Itemset>) -> Vec<Itemset> {
    sets.par_sort_unstable_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    sets.dedup();
    assert!(u32::try_from(sets.len()).is_ok(), "more than 2³² − 1 sets");
    // Dense item indices: ids may be anything up to u32::MAX.
    let mut items: Vec<ItemId> = sets.iter().flatten().copied().collect();
    items.par_sort_unstable();
    items.dedup();
    let index = |i: ItemId| items.binary_search(&i).expect("listed") as ItemId;
    // Per dense item, the positions of the sets holding it, ascending.
    let holding =
        ItemIndex::from_rows(items.len(), sets.iter().map(|s| s.iter().map(|&i| index(i))));
    // Per set, the position of the first set of its length: only those before it are longer.
    let mut longer_before = vec![0u32; sets.len()];
    for at in 1..sets.len() {
        longer_before[at] =
            if sets[at].len() == sets[at - 1].len() { longer_before[at - 1] } else { at as u32 };
    }
    let covered: Vec<bool> = sets
        .par_iter()
        .zip(&longer_before)
        .map_init(Vec::new, |lists: &mut Vec<&[u32]>, (s, &bound)| {
            if bound == 0 {
                return false;
            }
            lists.clear();
            for &i in s {
                let all = holding.transactions(index(i));
                lists.push(&all[..all.partition_point(|&at| at < bound)]);
            }
            // The empty set is below any longer set.
            lists.sort_unstable_by_key(|l| l.len());
            share_an_element(lists)
        })
        .collect();
    sets.into_iter().zip(covered).filter(|(_, c)| !c).map(|(s, _)| s).collect()
}

/// Edges examined so far, by low set, for finding those that overlap a new edge without
/// comparing it with all of them.
#[derive(Debug, Default)]
struct LowIndex {
    by_low: std::collections::HashMap<Itemset, Vec<usize>>,
}

impl LowIndex {
    /// The indexed edges (ids into `edges`) that overlap `edge` for itemsets holding `x` of
    /// length at most `len`. An overlapping edge has `α' ⊆ β` and `|α ∪ α' ∪ x| ≤ len`, so
    /// `α'` is a subset of `F = α ∪ x` plus at most `len − |F|` other items of `β`: those
    /// candidates are looked up, unless there are more of them than indexed low sets, which
    /// are then scanned instead.
    fn overlapping(&self, edges: &[Edge], edge: &Edge, x: &[ItemId], len: usize) -> Vec<usize> {
        let fixed = union(edge.low(), x);
        let room = len.saturating_sub(fixed.len());
        let others: Vec<ItemId> =
            edge.high().iter().copied().filter(|i| fixed.binary_search(i).is_err()).collect();
        let mut candidates: u128 = 1 << fixed.len().min(100);
        candidates =
            candidates.saturating_mul(free_choices(others.len(), room).unwrap_or(u128::MAX));
        let mut out = Vec::new();
        let mut take = |ids: &Vec<usize>| {
            for &id in ids {
                if edge.overlaps(&edges[id], x, len) {
                    out.push(id);
                }
            }
        };
        if candidates > self.by_low.len() as u128 {
            for (low, ids) in &self.by_low {
                if is_subset(low, edge.high()) && union3_len(edge.low(), low, x) <= len {
                    take(ids);
                }
            }
        } else {
            let mut low = Vec::new();
            for_each_candidate(&fixed, &others, room, &mut low, &mut |low| {
                if let Some(ids) = self.by_low.get(low) {
                    take(ids);
                }
            });
        }
        out.sort_unstable();
        out
    }

    fn insert(&mut self, low: &[ItemId], id: usize) {
        self.by_low.entry(low.to_vec()).or_default().push(id);
    }
}

/// Calls `f` with every set `A ∪ R`, `A ⊆ fixed`, `R ⊆ others`, `|R| ≤ room`, sorted.
fn for_each_candidate(
    fixed: &[ItemId],
    others: &[ItemId],
    room: usize,
    scratch: &mut Vec<ItemId>,
    f: &mut dyn FnMut(&[ItemId]),
) {
    fn extras(
        others: &[ItemId],
        from: usize,
        room: usize,
        base: &[ItemId],
        chosen: &mut Vec<ItemId>,
        f: &mut dyn FnMut(&[ItemId]),
    ) {
        let set = union(base, chosen);
        f(&set);
        if room == 0 {
            return;
        }
        for j in from..others.len() {
            chosen.push(others[j]);
            extras(others, j + 1, room - 1, base, chosen, f);
            chosen.pop();
        }
    }
    for mask in 0u64..(1u64 << fixed.len().min(63)) {
        scratch.clear();
        scratch.extend(
            fixed.iter().enumerate().filter(|(k, _)| mask & (1 << k) != 0).map(|(_, &i)| i),
        );
        let base = scratch.clone();
        extras(others, 0, room, &base, &mut Vec::new(), f);
    }
}

/// [`count_per_item`] for many edges: the overlaps of each edge with those before it are found
/// through an index by low set instead of by comparing it with all of them (the recursion below
/// each edge is the same). The order of the edges does not change the result.
///
/// # Errors
/// [`BorderError::Overflow`] beyond 2¹²⁷.
pub fn count_per_item_indexed(
    edges: &[Edge],
    x: &[ItemId],
    len: usize,
    measure: &dyn Measure,
    out: &mut [i128],
) -> Result<(), BorderError> {
    let mut index = LowIndex::default();
    let mut acc = PerItem(out);
    for (j, edge) in edges.iter().enumerate() {
        if !edge.is_relevant(x, len) {
            continue;
        }
        let overlapping: Vec<&Edge> =
            index.overlapping(edges, edge, x, len).into_iter().map(|id| &edges[id]).collect();
        uncovered(edge, &overlapping, x, len, measure, &mut acc)?;
        index.insert(edge.low(), j);
    }
    Ok(())
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
