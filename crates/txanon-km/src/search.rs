//! AA's and DA's search state: each node's transactions, the cut, the loss per leaf, the
//! violations a pass finds and the cheapest raise that fixes each.

use std::sync::OnceLock;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use txanon_data::fetch;
use txanon_data::progress::Progress;
use txanon_data::{ItemIndex, TransactionDb};

use crate::combinations::{binomial, unpack};
use crate::counter::{BranchCounter, TRIPLE_TABLE};
use crate::cut::{Cut, weight};
use crate::error::KmError;
use crate::hierarchy::{Hierarchy, NodeId};
use crate::rows::{END, PackedRows, generalize};
use crate::sweep::{SWEEP, Sweep, rare_by_sweep};

/// The most raises of one violation enumerated: `Π (depth + 1)` over its items is at most
/// `6⁴ = 1296` for the paper's hierarchies; past this (a hierarchy thousands of levels deep)
/// a linear set of candidates is tried instead.
pub(crate) const MAX_CANDIDATES: u64 = 1 << 16;

/// Answers whether at least `k` transactions hold a leaf below each of the nodes, for
/// [`Search::fix_by`].
pub(crate) type Supported<'f, 'a> = dyn FnMut(&Search<'a>, &[NodeId]) -> Result<bool, KmError> + 'f;

/// Some nodes' transactions as bitsets, a bit per transaction ([`Search::bitsets_of`]).
#[derive(Debug, Default)]
pub(crate) struct NodeBitsets {
    of: FxHashMap<NodeId, Vec<u64>>,
}

/// The state of AA's and DA's search.
pub(crate) struct Search<'a> {
    pub(crate) db: &'a TransactionDb,
    pub(crate) hierarchy: &'a Hierarchy,
    pub(crate) leaf_of_item: &'a [NodeId],
    pub(crate) k: u32,
    pub(crate) cut: Cut,
    /// Per node, the transactions holding a leaf below it, ascending.
    pub(crate) transactions: NodeLists<'a>,
    /// Per node, the item occurrences below it.
    pub(crate) occurrences: Vec<u64>,
    /// The loss of the cut per leaf position (occurrences × the weight of its cut node).
    pub(crate) loss: Fenwick,
    /// The count tree's item order: more leaves first, then node id.
    pub(crate) rank: Vec<u32>,
    pub(crate) node_of_rank: Vec<NodeId>,
    pub(crate) raises: Vec<Vec<NodeId>>,
    /// The nodes raised to since [`Search::take_fresh`] last ran.
    pub(crate) raised_since: Vec<NodeId>,
    /// When a pass counts in one sweep of its rows instead of branch by branch.
    pub(crate) sweep: Sweep,
}

/// A generalized row in the sort of [`Search::generalized_rows`]: its key, its code in the
/// [`crate::rows::FlatRows`], and its length, which sits in the padding the key's alignment
/// leaves.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct KeyedRow {
    key: u128,
    code: u32,
    len: u32,
}

/// Per node of the hierarchy, the transactions holding a leaf below it, ascending: a leaf's
/// from the data's item index, an inner node's made when it is first asked for, as the union
/// of its children's.
///
/// Walking up from every item of every transaction to make all the lists at once wrote each
/// pair of a node and a transaction at random, twice (counted, then placed): 2.9 s of km's 10⁷
/// Quest baskets, where the fixes asked for the lists of 678 of the 3,485 nodes (557 and 112
/// of the two levels above the leaves, and nine leaves); made level by level as unions of
/// sorted lists, all of them still took 2.6 s.
pub(crate) struct NodeLists<'h> {
    hierarchy: &'h Hierarchy,
    /// The data's item index: a leaf's list is its item's.
    items: ItemIndex,
    /// Per node, its item when it is the leaf of one (`u32::MAX` otherwise).
    item_of_node: Vec<u32>,
    /// Per inner node, its list once asked for.
    inner: Vec<OnceLock<Vec<u32>>>,
}

impl<'h> NodeLists<'h> {
    /// The lists of the nodes of `hierarchy` over `db`, each item `i` the leaf
    /// `leaf_of_item[i]`.
    fn of(db: &TransactionDb, hierarchy: &'h Hierarchy, leaf_of_item: &[NodeId]) -> Self {
        let mut item_of_node = vec![u32::MAX; hierarchy.len()];
        for (i, &leaf) in leaf_of_item.iter().enumerate() {
            item_of_node[leaf as usize] = i as u32;
        }
        let inner = (0..hierarchy.len()).map(|_| OnceLock::new()).collect();
        Self { hierarchy, items: ItemIndex::new(db), item_of_node, inner }
    }

    /// No transactions at all, for a search that holds none.
    fn empty(hierarchy: &'h Hierarchy) -> Self {
        Self::of(&TransactionDb::from_int_transactions(Vec::<Vec<u32>>::new()), hierarchy, &[])
    }

    /// Makes the lists of `nodes` on rayon, the lower nodes first, for a caller about to ask
    /// for most of them (a shard's supports request names most nodes).
    pub(crate) fn make(&self, nodes: impl IntoIterator<Item = NodeId>) {
        let mut nodes: Vec<NodeId> = nodes.into_iter().collect();
        nodes.sort_unstable_by_key(|&v| (self.hierarchy.height(v), v));
        nodes.dedup();
        for level in nodes.chunk_by(|&a, &b| self.hierarchy.height(a) == self.hierarchy.height(b)) {
            level.par_iter().for_each(|&v| {
                self.transactions(v);
            });
        }
    }

    /// The transactions holding a leaf below `v`, ascending.
    pub(crate) fn transactions(&self, v: NodeId) -> &[u32] {
        if self.unmade(v) {
            self.make_below(v);
        }
        self.made(v)
    }

    /// Whether `u` is an inner node whose list is not made yet.
    fn unmade(&self, u: NodeId) -> bool {
        self.item_of_node[u as usize] == u32::MAX
            && !self.hierarchy.is_leaf(u)
            && self.inner[u as usize].get().is_none()
    }

    /// Makes the list of the inner node `v` and of every inner node below it whose list is
    /// not made yet, the lowest first, so that each is made from its children's lists with no
    /// recursion (a hierarchy read from a file may be thousands of levels deep, deeper than a
    /// thread's stack would hold).
    fn make_below(&self, v: NodeId) {
        let (mut pending, mut stack) = (Vec::new(), vec![v]);
        while let Some(u) = stack.pop() {
            if self.unmade(u) {
                pending.push(u);
                stack.extend_from_slice(self.hierarchy.children(u));
            }
        }
        // A node is higher than its children.
        pending.sort_unstable_by_key(|&u| self.hierarchy.height(u));
        for u in pending {
            self.inner[u as usize].get_or_init(|| {
                let children: Vec<&[u32]> =
                    self.hierarchy.children(u).iter().map(|&c| self.made(c)).collect();
                SCRATCH.with_borrow_mut(|(a, b)| union(&children, a, b).to_vec())
            });
        }
    }

    /// The list of `v`, made already (a leaf's always is).
    fn made(&self, v: NodeId) -> &[u32] {
        match self.item_of_node[v as usize] {
            u32::MAX if self.hierarchy.is_leaf(v) => &[],
            u32::MAX => self.inner[v as usize].get().expect("made before it is read"),
            item => self.items.transactions(item),
        }
    }
}

thread_local! {
    /// Two buffers [`union`] merges between, kept from one node to the next, so that a merge
    /// writes memory already mapped (a fresh vector faults a page per 1,024 transactions).
    static SCRATCH: std::cell::RefCell<(Vec<u32>, Vec<u32>)> = const {
        std::cell::RefCell::new((Vec::new(), Vec::new()))
    };
}

/// The union of ascending lists, ascending, in `a` or `b`: merged two at a time in rounds,
/// from one buffer into the other, so each transaction is moved `log₂` of the lists' number
/// of times.
fn union<'s>(lists: &[&[u32]], a: &'s mut Vec<u32>, b: &'s mut Vec<u32>) -> &'s [u32] {
    a.clear();
    let mut ends: Vec<usize> = Vec::with_capacity(lists.len().div_ceil(2));
    for pair in lists.chunks(2) {
        merge_into(pair[0], pair.get(1).copied().unwrap_or_default(), a);
        ends.push(a.len());
    }
    let (mut from, mut to) = (a, b);
    while ends.len() > 1 {
        to.clear();
        let mut merged_ends = Vec::with_capacity(ends.len().div_ceil(2));
        let mut start = 0;
        for pair in ends.chunks(2) {
            let first = &from[start..pair[0]];
            let end = pair.get(1).copied().unwrap_or(pair[0]);
            merge_into(first, &from[pair[0]..end], to);
            merged_ends.push(to.len());
            start = end;
        }
        ends = merged_ends;
        std::mem::swap(&mut from, &mut to);
    }
    &from[..ends.first().copied().unwrap_or(0)]
}

/// Appends the union of two ascending lists to `out`, ascending.
fn merge_into(x: &[u32], y: &[u32], out: &mut Vec<u32>) {
    out.reserve(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        let (p, q) = (x[i], y[j]);
        out.push(p.min(q));
        i += usize::from(p <= q);
        j += usize::from(q <= p);
    }
    out.extend_from_slice(&x[i..]);
    out.extend_from_slice(&y[j..]);
}

impl<'a> Search<'a> {
    pub(crate) fn new(
        db: &'a TransactionDb,
        hierarchy: &'a Hierarchy,
        leaf_of_item: &'a [NodeId],
        k: u32,
    ) -> Self {
        let nodes = hierarchy.len();
        let transactions = NodeLists::of(db, hierarchy, leaf_of_item);
        let mut occurrences = vec![0u64; nodes];
        for (item, &support) in db.supports().iter().enumerate() {
            let leaf = leaf_of_item[item];
            for v in hierarchy.ancestors_or_self(leaf) {
                occurrences[v as usize] += u64::from(support);
            }
        }
        Self::of_lists(db, hierarchy, leaf_of_item, k, transactions, occurrences)
    }

    /// The search of a driver that holds no transactions ([`crate::sharded`]): each node's
    /// item occurrences given, its transaction list empty. It fixes violations by
    /// [`Search::fix_by`] and counts nothing itself.
    pub(crate) fn without_data(
        empty: &'a TransactionDb,
        hierarchy: &'a Hierarchy,
        occurrences: Vec<u64>,
        k: u32,
    ) -> Self {
        let transactions = NodeLists::empty(hierarchy);
        Self::of_lists(empty, hierarchy, &[], k, transactions, occurrences)
    }

    /// The search of a shard that only counts the itemsets of its data generalized by a cut
    /// ([`crate::sharded::count_shard`]): no node's transaction list, which only
    /// [`Search::support_up_to`] and the fixes read.
    pub(crate) fn counting(
        db: &'a TransactionDb,
        hierarchy: &'a Hierarchy,
        leaf_of_item: &'a [NodeId],
        k: u32,
    ) -> Self {
        let transactions = NodeLists::empty(hierarchy);
        let occurrences = vec![0; hierarchy.len()];
        Self::of_lists(db, hierarchy, leaf_of_item, k, transactions, occurrences)
    }

    fn of_lists(
        db: &'a TransactionDb,
        hierarchy: &'a Hierarchy,
        leaf_of_item: &'a [NodeId],
        k: u32,
        transactions: NodeLists<'a>,
        occurrences: Vec<u64>,
    ) -> Self {
        let nodes = hierarchy.len();
        // The cut of the leaves loses nothing.
        let loss = Fenwick::new(hierarchy.leaves().len());
        let mut order: Vec<NodeId> = (0..nodes as NodeId).collect();
        order.sort_by_key(|&v| (std::cmp::Reverse(hierarchy.leaf_count(v)), v));
        let mut rank = vec![0u32; nodes];
        for (r, &v) in order.iter().enumerate() {
            rank[v as usize] = r as u32;
        }
        Self {
            db,
            hierarchy,
            leaf_of_item,
            k,
            cut: Cut::leaves(hierarchy),
            transactions,
            occurrences,
            loss,
            rank,
            node_of_rank: order,
            raises: Vec::new(),
            raised_since: Vec::new(),
            sweep: SWEEP,
        }
    }

    /// Per rank, whether the cut was raised to its node since the last call.
    pub(crate) fn take_fresh(&mut self) -> Vec<bool> {
        let mut fresh = vec![false; self.node_of_rank.len()];
        for v in self.raised_since.drain(..) {
            fresh[self.rank[v as usize] as usize] = true;
        }
        fresh
    }

    /// The itemsets of `sizes` items of the data generalized by the cut that occur in fewer
    /// than `k` transactions, as count-tree keys, one list per branch: each list in preorder,
    /// the lists in rank order, so that in turn they are the preorder; with `fresh`, only those
    /// holding a rank it marks ([`Recount::Fresh`]).
    ///
    /// # Errors
    /// [`KmError::TooManyCombinations`] when the counters could hold more than
    /// `max_combinations` distinct itemsets (bounded by the rows' combinations and by those of
    /// the nodes that occur), before anything is counted.
    pub(crate) fn violations(
        &self,
        sizes: std::ops::RangeInclusive<usize>,
        fresh: Option<&[bool]>,
        max_combinations: u64,
        progress: &Progress,
    ) -> Result<Vec<Vec<u128>>, KmError> {
        let too_many =
            |combinations| Err(too_many_combinations(&sizes, combinations, max_combinations));
        if sizes == (1..=1) {
            // A cut node's support is its transaction list's length: nothing to count.
            let rare = self.rare_cut_nodes(
                |v| self.transactions.transactions(v).len() as u64,
                max_combinations,
            )?;
            return Ok(vec![rare]);
        }
        let rows = self.generalized_rows(*sizes.start(), fresh);
        let ranks = self.node_of_rank.len();
        let (itemsets, present) = combination_bound(&rows, &sizes, ranks);
        if itemsets > max_combinations {
            return too_many(itemsets);
        }
        // A cut of few nodes: every combination in one sweep of the rows.
        progress.set_total(rows.words.len() as u64);
        let advance = |words| progress.advance(words);
        if let Some(branches) =
            rare_by_sweep(&rows, &present, sizes.clone(), self.k, fresh, self.sweep, advance)
        {
            return Ok(branches);
        }
        // Each combination counted under its smallest rank (its count-tree branch), one
        // branch at a time on each worker: a branch's counters stay small enough for the
        // caches, where one table of every combination (a billion insertions at ten million
        // baskets and m = 3) missed them at each insertion. The first ranks' branches hold
        // most rows: they are handed out one by one, the largest first, not split as a range.
        let holding = rows.places(ranks);
        let held = holding.branches(ranks, fresh);
        // Progress in the rows' places the branches read.
        progress.set_total(held.iter().map(|&a| holding.of(a).len() as u64).sum());
        let branches: Vec<Vec<u128>> = txanon_data::parallel::map_largest_first(
            held,
            |&a| holding.of(a).len() as u64,
            || BranchCounter::new(ranks, TRIPLE_TABLE),
            |counter, a| {
                let mut rare = counter.rare(a, holding.of(a), &rows, sizes.clone(), self.k);
                if let Some(fresh) = fresh {
                    // Counted from the rows holding a fresh rank only: the others' counts
                    // are partial, and they were not rare.
                    rare.retain(|&key| unpack(key).any(|r| fresh[r as usize]));
                }
                progress.advance(holding.of(a).len() as u64);
                rare
            },
        );
        // Branches come in rank order and each is sorted: in turn, they are the preorder. Not
        // concatenated: at the leaves of kosarak-shaped 10⁷ data they are 62 million keys.
        debug_assert!(
            branches.iter().flatten().zip(branches.iter().flatten().skip(1)).all(|(a, b)| a < b)
        );
        Ok(branches)
    }

    /// The cut's nodes that occur and have fewer than `k` transactions, `support(node)` each,
    /// as count-tree keys in rank order: the first level's violations, from the transaction
    /// lists in one process and from the shards' node supports in [`crate::sharded`].
    ///
    /// # Errors
    /// [`KmError::TooManyCombinations`] when more cut nodes occur than `max_combinations`.
    pub(crate) fn rare_cut_nodes(
        &self,
        support: impl Fn(NodeId) -> u64,
        max_combinations: u64,
    ) -> Result<Vec<u128>, KmError> {
        let occurring: Vec<u32> = (0..self.node_of_rank.len() as u32)
            .filter(|&r| {
                let v = self.node_of_rank[r as usize];
                self.cut.contains(self.hierarchy, v) && support(v) > 0
            })
            .collect();
        if occurring.len() as u64 > max_combinations {
            return Err(too_many_combinations(&(1..=1), occurring.len() as u64, max_combinations));
        }
        Ok(occurring
            .into_iter()
            .filter(|&r| support(self.node_of_rank[r as usize]) < u64::from(self.k))
            .map(|r| u128::from(r + 1) << 96)
            .collect())
    }

    /// The distinct transactions of at least `min_len` items generalized by the cut, as
    /// ascending ranks, with their multiplicities, in lexicographic order; with `fresh`, only
    /// those holding a rank it marks.
    pub(crate) fn generalized_rows(&self, min_len: usize, fresh: Option<&[bool]>) -> PackedRows {
        let rank_of_item: Vec<u32> = self
            .leaf_of_item
            .iter()
            .map(|&leaf| {
                let pos = self.hierarchy.leaf_range(leaf).start;
                self.rank[self.cut.node_of_leaf(pos) as usize]
            })
            .collect();
        let all = generalize(self.db, &rank_of_item, min_len, fresh);
        // Sorted by a key of their first ranks (ties compared in full only when the key does
        // not hold the whole row): equal rows meet, and a branch then reads its rows in
        // ascending addresses.
        let bits = txanon_data::prefix_key_bits(self.node_of_rank.len());
        let mut keyed: Vec<KeyedRow> = all.keyed(|row, code| KeyedRow {
            key: txanon_data::prefix_key(row, bits),
            code,
            len: row.len() as u32,
        });
        let whole = |r: &KeyedRow| r.len <= 128 / bits;
        keyed.par_sort_unstable_by(|a, b| {
            a.key.cmp(&b.key).then_with(|| {
                // Equal keys of whole rows are equal rows.
                if whole(a) && whole(b) {
                    std::cmp::Ordering::Equal
                } else {
                    all.row(a.code).cmp(all.row(b.code))
                }
            })
        });
        // Packed in pieces on rayon, each piece starting at a row unlike the one before it and
        // writing its own part of one buffer: the words each piece's distinct rows take are
        // counted first, so nothing is copied to join them. A whole row is read back from its
        // key; only the longer ones are gathered, a batch fetched ahead, from where they were
        // generalized (gathering every row, a cache miss or two each, made the packing 0.9–1.6 s
        // of a pass at 10⁷ Quest baskets; 0.6–0.8 s now).
        let same = |j: usize| {
            j > 0 && {
                let (a, b) = (&keyed[j - 1], &keyed[j]);
                a.key == b.key && a.len == b.len && (whole(a) || all.row(a.code) == all.row(b.code))
            }
        };
        let pieces = 4 * rayon::current_num_threads();
        let mut starts: Vec<usize> = (0..pieces).map(|p| p * keyed.len() / pieces).collect();
        for start in &mut starts {
            while *start < keyed.len() && same(*start) {
                *start += 1;
            }
        }
        starts.push(keyed.len());
        starts.dedup();
        // Per place in the order, whether its row is the first of its run of equal rows.
        let first: Vec<bool> = (0..keyed.len()).into_par_iter().map(|j| !same(j)).collect();
        let piece_words: Vec<usize> = starts
            .par_windows(2)
            .map(|piece| {
                (piece[0]..piece[1]).filter(|&j| first[j]).map(|j| keyed[j].len as usize + 2).sum()
            })
            .collect();
        let mut distinct = PackedRows { words: vec![0; piece_words.iter().sum()] };
        let mut parts: Vec<&mut [u32]> = Vec::with_capacity(piece_words.len());
        let mut rest: &mut [u32] = &mut distinct.words;
        for &len in &piece_words {
            let (part, after) = std::mem::take(&mut rest).split_at_mut(len);
            parts.push(part);
            rest = after;
        }
        starts.par_windows(2).zip(parts).for_each(|(piece, part)| {
            let mut at = 0;
            for batch in (piece[0]..piece[1]).step_by(fetch::BATCH) {
                let batch = batch..piece[1].min(batch + fetch::BATCH);
                let gathered = batch.clone().filter(|&j| first[j] && !whole(&keyed[j]));
                fetch::fetch_each(gathered, |j| all.row(keyed[j].code), fetch::FIRST_LINE);
                for j in batch {
                    let r = &keyed[j];
                    if first[j] {
                        let to = &mut part[at..at + r.len as usize];
                        if whole(r) {
                            let ranks = txanon_data::prefix_key_items(r.key, bits);
                            for (slot, rank) in to.iter_mut().zip(ranks) {
                                *slot = rank;
                            }
                        } else {
                            to.copy_from_slice(all.row(r.code));
                        }
                        at += r.len as usize;
                        part[at] = END;
                        part[at + 1] = 1;
                        at += 2;
                    } else {
                        // Another copy of the row just written: its weight is the last word.
                        part[at - 1] += 1;
                    }
                }
            }
            debug_assert_eq!(at, part.len());
        });
        distinct
    }

    /// Makes the lists of the parents of the nodes of `violations` on rayon: the raises the
    /// fixes try first. Made one at a time as the fixes asked for them, they kept one core
    /// busy for a second or two at each level of km's 10⁷ Quest baskets.
    pub(crate) fn make_parents_of(&self, violations: &[Vec<u128>]) {
        let ranks = self.node_of_rank.len();
        let held = violations
            .par_iter()
            .fold(
                || vec![false; ranks],
                |mut held, branch| {
                    for &key in branch {
                        for r in unpack(key) {
                            held[r as usize] = true;
                        }
                    }
                    held
                },
            )
            .reduce(
                || vec![false; ranks],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x |= y);
                    a
                },
            );
        let nodes = (0..ranks).filter(|&r| held[r]).map(|r| self.node_of_rank[r]);
        self.transactions.make(nodes.filter_map(|v| self.hierarchy.parent(v)));
    }

    /// Whether an earlier fix has generalized an item of the violation `key` already.
    pub(crate) fn is_fixed(&self, key: u128) -> bool {
        unpack(key).any(|r| !self.cut.contains(self.hierarchy, self.node_of_rank[r as usize]))
    }

    /// Fixes the violation `key` by the cheapest raise that gives it `k` transactions, unless
    /// an earlier fix has generalized one of its items already.
    pub(crate) fn fix(&mut self, key: u128) {
        self.fix_by(key, &mut |search, nodes| Ok(search.support_at_least_k(nodes)))
            .expect("generalizing every item to the root reaches k: checked before the search");
    }

    /// [`Search::fix`] with the supports of the candidates' generalized itemsets answered by
    /// `supported` (whether at least `k` transactions hold a leaf below each node): from the
    /// nodes' transaction lists in one process, from counts summed over shards in
    /// [`crate::sharded`]. Every itemset it asks about is among
    /// [`Search::candidate_itemsets`]`(key)`.
    ///
    /// # Errors
    /// What `supported` returns; [`KmError::Unreachable`] when no candidate, not even every
    /// item at the root, reaches `k` (supports that contradict the checks before the search).
    pub(crate) fn fix_by(
        &mut self,
        key: u128,
        supported: &mut Supported<'_, 'a>,
    ) -> Result<(), KmError> {
        // Most violations of a pass are found fixed here, before anything is allocated.
        if self.is_fixed(key) {
            return Ok(());
        }
        let itemset: Vec<NodeId> = unpack(key).map(|r| self.node_of_rank[r as usize]).collect();
        for raised in self.raises_cheapest_first(&itemset) {
            let generalized = self.generalized(&itemset, &raised);
            if supported(self, &generalized)? {
                for &a in &raised {
                    self.raise(a);
                }
                self.raises.push(raised);
                return Ok(());
            }
        }
        Err(KmError::Unreachable(format!(
            "no generalization of the itemset {{{}}} reaches k = {}, not even the root's",
            itemset.iter().map(|&v| self.hierarchy.label(v)).collect::<Vec<_>>().join(","),
            self.k
        )))
    }

    /// The ways of raising the items of `itemset` in the order [`Search::fix_by`] tries them:
    /// by the loss each adds (under the current cut), then by the nodes raised to.
    fn raises_cheapest_first(&self, itemset: &[NodeId]) -> Vec<Vec<NodeId>> {
        let mut candidates: Vec<(u128, Vec<NodeId>)> = self
            .raises(itemset)
            .into_iter()
            .map(|top| (top.iter().map(|&a| self.raise_cost(a)).sum::<u128>(), top))
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        candidates.into_iter().map(|(_, raised)| raised).collect()
    }

    /// The generalized itemsets whose supports [`Search::fix_by`] may ask about to fix `key`
    /// under the current cut, each once, in the order it asks: each way of raising its items,
    /// applied to it, cheapest first. The set of them depends on the hierarchy alone; their
    /// order, on the cut.
    pub(crate) fn candidate_itemsets(&self, key: u128) -> Vec<Vec<NodeId>> {
        let itemset: Vec<NodeId> = unpack(key).map(|r| self.node_of_rank[r as usize]).collect();
        let mut seen: FxHashSet<Vec<NodeId>> = FxHashSet::default();
        self.raises_cheapest_first(&itemset)
            .iter()
            .map(|raised| self.generalized(&itemset, raised))
            .filter(|set| seen.insert(set.clone()))
            .collect()
    }

    /// `itemset` with each item replaced by the node of `raised` above it, sorted, deduplicated.
    fn generalized(&self, itemset: &[NodeId], raised: &[NodeId]) -> Vec<NodeId> {
        let h = self.hierarchy;
        let mut g: Vec<NodeId> = itemset
            .iter()
            .map(|&v| raised.iter().copied().find(|&a| h.covers(a, v)).unwrap_or(v))
            .collect();
        g.sort_unstable();
        g.dedup();
        g
    }

    /// Every way of moving the items of `itemset` up their paths, as the set of nodes raised
    /// to (those under another raised node dropped), each sorted; with repeats. It depends on
    /// the hierarchy alone, not on the cut.
    fn raises(&self, itemset: &[NodeId]) -> Vec<Vec<NodeId>> {
        let h = self.hierarchy;
        let paths: Vec<Vec<NodeId>> =
            itemset.iter().map(|&v| h.ancestors_or_self(v).collect()).collect();
        let combinations = paths.iter().fold(1u64, |acc, p| acc.saturating_mul(p.len() as u64));
        // Each candidate as the nodes the cut is raised to (with repeats and nested nodes).
        let mut raise_sets: Vec<Vec<NodeId>> = Vec::new();
        if combinations > MAX_CANDIDATES {
            // A hierarchy far deeper than the paper's: every item alone up its path, and every
            // item together to its ancestor at each height; the root is among them, so a fix
            // is always found.
            let height = |v: NodeId| h.height(v);
            for path in &paths {
                raise_sets.extend(path[1..].iter().map(|&a| vec![a]));
            }
            let top = paths.iter().map(|p| height(*p.last().expect("a root"))).max().unwrap_or(0);
            // Each path's position only moves up as the level rises: linear in the paths.
            let mut at = vec![0usize; paths.len()];
            for level in 1..=top {
                let mut raised: Vec<NodeId> = Vec::with_capacity(paths.len());
                for (j, path) in paths.iter().enumerate() {
                    while at[j] + 1 < path.len() && height(path[at[j]]) < level {
                        at[j] += 1;
                    }
                    let a = path[at[j]];
                    if height(a) >= level && !itemset.contains(&a) {
                        raised.push(a);
                    }
                }
                raise_sets.push(raised);
            }
        } else {
            // Every choice of one node per path (mixed radix; 0 keeps the item).
            let mut choice = vec![0usize; paths.len()];
            loop {
                raise_sets.push(
                    choice
                        .iter()
                        .zip(&paths)
                        .filter(|&(&c, _)| c > 0)
                        .map(|(&c, path)| path[c])
                        .collect(),
                );
                let Some(j) = (0..choice.len()).find(|&j| choice[j] + 1 < paths[j].len()) else {
                    break;
                };
                choice[j] += 1;
                choice[..j].fill(0);
            }
        }
        raise_sets
            .into_iter()
            .filter_map(|mut raised| {
                raised.sort_unstable();
                raised.dedup();
                let top: Vec<NodeId> = raised
                    .iter()
                    .copied()
                    .filter(|&a| !raised.iter().any(|&b| b != a && h.covers(b, a)))
                    .collect();
                (!top.is_empty()).then_some(top)
            })
            .collect()
    }

    /// The loss raising the cut to `a` adds.
    pub(crate) fn raise_cost(&self, a: NodeId) -> u128 {
        let after =
            u128::from(self.occurrences[a as usize]) * u128::from(weight(self.hierarchy, a));
        let before = self.loss.range(self.hierarchy.leaf_range(a));
        after - before
    }

    pub(crate) fn raise(&mut self, a: NodeId) {
        self.raised_since.push(a);
        let w = u128::from(weight(self.hierarchy, a));
        for pos in self.hierarchy.leaf_range(a) {
            let leaf = self.hierarchy.leaves()[pos];
            let old_node = self.cut.node_of_leaf(pos);
            let occ = u128::from(self.occurrences[leaf as usize]);
            let old = occ * u128::from(weight(self.hierarchy, old_node));
            self.loss.add(pos, occ * w - old);
        }
        self.cut.raise(self.hierarchy, a);
    }

    /// Bitsets of the transactions of those of `nodes` whose lists are long enough that a
    /// bitset is no larger (a list of at least `n / 32` of the `n` transactions), for
    /// [`Search::support_up_to`] to probe instead of galloping through.
    pub(crate) fn bitsets_of(&self, nodes: impl IntoIterator<Item = NodeId>) -> NodeBitsets {
        let n = self.db.len();
        let words = n.div_ceil(64);
        let mut bitsets = NodeBitsets::default();
        for v in nodes {
            let list = self.transactions.transactions(v);
            if list.len() * 32 < n || bitsets.of.contains_key(&v) {
                continue;
            }
            let mut bits = vec![0u64; words];
            for &t in list {
                bits[t as usize / 64] |= 1 << (t % 64);
            }
            bitsets.of.insert(v, bits);
        }
        bitsets
    }

    /// The transactions that hold a leaf below each of `nodes`, counted up to `cap`: the
    /// shortest list walked, each of its transactions looked up in the others, by a bit of
    /// their bitset in `bitsets` where they have one, else by galloping from where the last
    /// lookup ended, until `cap` are found. So an itemset of large nodes that reaches the cap
    /// early costs a short prefix, where a full intersection read every list to its end; one
    /// that does not reach it costs a lookup per transaction of its shortest list, where
    /// galloping through a long list of a large node cost a search each.
    pub(crate) fn support_up_to(&self, nodes: &[NodeId], cap: u32, bitsets: &NodeBitsets) -> u32 {
        let mut lists: Vec<(NodeId, &[u32])> =
            nodes.iter().map(|&v| (v, self.transactions.transactions(v))).collect();
        lists.sort_by_key(|(_, l)| l.len());
        let Some(((_, first), rest)) = lists.split_first().filter(|_| cap > 0) else { return 0 };
        // The probed lists first: a bit is one load, a gallop several.
        let probed: Vec<&[u64]> =
            rest.iter().filter_map(|(v, _)| bitsets.of.get(v)).map(Vec::as_slice).collect();
        let galloped: Vec<&[u32]> =
            rest.iter().filter(|(v, _)| !bitsets.of.contains_key(v)).map(|&(_, l)| l).collect();
        let mut from = vec![0usize; galloped.len()];
        let mut found = 0u32;
        'walk: for &t in *first {
            let (word, bit) = (t as usize / 64, 1u64 << (t % 64));
            if probed.iter().any(|bits| bits[word] & bit == 0) {
                continue;
            }
            for (list, at) in galloped.iter().zip(from.iter_mut()) {
                // Gallop: double the step until past `t`, then bisect the last step.
                let mut step = 1;
                let mut hi = *at;
                while hi < list.len() && list[hi] < t {
                    *at = hi + 1;
                    hi = *at + step;
                    step *= 2;
                }
                let hi = hi.min(list.len());
                *at += list[*at..hi].partition_point(|&x| x < t);
                if *at == list.len() {
                    break 'walk;
                }
                if list[*at] != t {
                    continue 'walk;
                }
            }
            found += 1;
            if found >= cap {
                break;
            }
        }
        found
    }

    /// Whether at least `k` transactions hold a leaf below each of `nodes`.
    pub(crate) fn support_at_least_k(&self, nodes: &[NodeId]) -> bool {
        let k = self.k as usize;
        let mut lists: Vec<&[u32]> =
            nodes.iter().map(|&v| self.transactions.transactions(v)).collect();
        lists.sort_by_key(|l| l.len());
        if lists[0].len() < k {
            return false;
        }
        match lists.len() {
            1 => true,
            2 => txanon_data::sets::intersection_len(lists[0], lists[1]) >= k,
            _ => {
                let mut common = lists[0].to_vec();
                let mut next = Vec::new();
                for list in &lists[1..] {
                    next.clear();
                    txanon_data::sets::intersection(&common, list, &mut next);
                    std::mem::swap(&mut common, &mut next);
                    if common.len() < k {
                        return false;
                    }
                }
                true
            }
        }
    }
}

/// The most distinct itemsets of `sizes` items a count of `rows` can meet: no more than the
/// rows' combinations, nor than the combinations of the ranks that occur; with, per rank,
/// whether it occurs.
pub(crate) fn combination_bound(
    rows: &PackedRows,
    sizes: &std::ops::RangeInclusive<usize>,
    ranks: usize,
) -> (u64, Vec<bool>) {
    let mut present = vec![false; ranks];
    let mut listed = vec![0u64; *sizes.end() + 1];
    for (row, _) in rows.iter() {
        for &r in row {
            present[r as usize] = true;
        }
        for size in sizes.clone() {
            listed[size] = listed[size].saturating_add(binomial(row.len() as u64, size as u64));
        }
    }
    let nodes = present.iter().filter(|&&p| p).count() as u64;
    let bound = sizes
        .clone()
        .map(|size| listed[size].min(binomial(nodes, size as u64)))
        .fold(0u64, u64::saturating_add);
    (bound, present)
}

/// The refusal of a count of `sizes`-itemsets that could meet `combinations` distinct ones.
pub(crate) fn too_many_combinations(
    sizes: &std::ops::RangeInclusive<usize>,
    combinations: u64,
    limit: u64,
) -> KmError {
    KmError::TooManyCombinations {
        combinations,
        limit,
        sizes: if sizes.start() == sizes.end() {
            sizes.start().to_string()
        } else {
            format!("{} to {}", sizes.start(), sizes.end())
        },
    }
}

/// A Fenwick tree of `u128` sums over leaf positions.
#[derive(Debug)]
pub(crate) struct Fenwick(Vec<u128>);

impl Fenwick {
    pub(crate) fn new(n: usize) -> Self {
        Self(vec![0; n + 1])
    }

    /// Adds `delta` (wrapping, so that a decrease is the two's complement) at `pos`.
    pub(crate) fn add(&mut self, pos: usize, delta: u128) {
        let mut i = pos + 1;
        while i < self.0.len() {
            self.0[i] = self.0[i].wrapping_add(delta);
            i += i & i.wrapping_neg();
        }
    }

    pub(crate) fn prefix(&self, end: usize) -> u128 {
        let (mut i, mut sum) = (end, 0u128);
        while i > 0 {
            sum = sum.wrapping_add(self.0[i]);
            i -= i & i.wrapping_neg();
        }
        sum
    }

    pub(crate) fn range(&self, range: std::ops::Range<usize>) -> u128 {
        self.prefix(range.end).wrapping_sub(self.prefix(range.start))
    }
}
