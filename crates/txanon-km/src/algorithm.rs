//! The greedy searches of a kᵐ-anonymous cut (AA and DA), and the publication.

use rand::seq::SliceRandom;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use txanon_data::progress::{Progress, Unit};
use txanon_data::{ItemId, ItemLabels, TransactionDb, publication_rng};

use crate::audit::{AuditReport, KmClaim, audit_with_progress};
use crate::cut::{Cut, InformationLoss, information_loss, weight};
use crate::error::KmError;
use crate::hierarchy::{Hierarchy, NodeId};
use crate::optimal::optimal_cut;
use crate::params::{Algorithm, ValidKmParams};

/// A kᵐ-anonymous publication and what it cost.
#[derive(Debug, Clone)]
pub struct KmAnonymized {
    /// The generalized transactions (items are the labels of the cut's nodes), in a
    /// ChaCha20-shuffled order.
    pub published: TransactionDb,
    /// The cut's nodes (labels, depth-first order): every item of the hierarchy generalized
    /// to the one of them above it.
    pub cut: Vec<String>,
    /// How many of the cut's nodes are generalized items (inner nodes of the hierarchy).
    pub generalized_items: usize,
    /// The information loss.
    pub loss: InformationLoss,
    /// Generalizations the search made (each a set of nodes the cut was raised to), in order.
    pub generalizations: Vec<Vec<String>>,
    /// The audit of the publication against the input.
    pub audit: AuditReport,
}

/// kᵐ-anonymization by global recoding (Terrovitis, Mamoulis, Kalnis, "Privacy-preserving
/// Anonymization of Set-valued Data", PVLDB 1(1), 2008): the cut of `hierarchy` that
/// [`ValidKmParams::algorithm`] finds, the data generalized by it, shuffled, and audited
/// against `db` before it is returned.
///
/// AA and DA fix each itemset of fewer than `k` transactions (the violations) by the
/// cheapest raise of the cut that gives its generalization at least `k`: the candidates are
/// every way of moving its items up their paths to the root, their cost the information loss
/// they add (exact, in integers), their support read from the nodes' transaction lists.
/// Deviations from the paper, and why:
/// - After a pass over the violations the itemsets are counted again under the new cut and
///   fixed again, until none is left: the paper's single pass over a count tree skips the
///   itemsets whose items a fix generalized, and a generalized itemset can still be short of
///   `k` (the public reimplementation's test cases show it). So the output is always
///   kᵐ-anonymous, which the paper's pseudo-code does not ensure.
/// - Violations are fixed in the count tree's preorder with items ranked as the paper's
///   reimplementation ranks them (more leaves first, then node order), itemsets with a
///   generalized item counted through the nodes' transaction lists instead of an expanded
///   count tree (the same supports, without the expansion's `C(|t ∪ ancestors|, m)` itemsets).
///
/// # Errors
/// [`KmError::Hierarchy`] when an item of `db` is not a leaf of `hierarchy`;
/// [`KmError::Unreachable`] for fewer than `k` transactions, or fewer than `k` non-empty
/// ones (even the root alone is then too rare), or data too large to number (2³² − 1
/// transactions; for AA and DA, item occurrences and two words per transaction);
/// [`KmError::TooManyCuts`] for the optimal search over a large hierarchy;
/// [`KmError::TooManyCombinations`] for a counting pass over the limit; [`KmError::Audit`] if
/// the publication failed its audit (a bug).
///
/// # Complexity
/// AA: per pass at level `i`, `Σ_t C(|g(t)|, i)` counter updates over the distinct
/// generalized transactions `g(t)` (rayon), and per violation at most `Π (depth + 1)`
/// candidates, evaluated cheapest first, each an intersection of at most `m` transaction
/// lists. Memory: the transaction lists of every node, `O(Σ_t |t| · height)`.
pub fn anonymize(
    db: &TransactionDb,
    hierarchy: &Hierarchy,
    params: &ValidKmParams,
) -> Result<KmAnonymized, KmError> {
    let leaf_of_item = hierarchy.leaves_of_items(db)?;
    let k = params.k();
    let n = db.len();
    if u32::try_from(n).is_err() {
        return Err(KmError::Unreachable(format!(
            "{n} transactions, more than the 2³² − 1 this implementation numbers"
        )));
    }
    if (n as u64) < u64::from(k) {
        return Err(KmError::Unreachable(format!(
            "{n} transactions, fewer than k = {k}: an adversary who knows nothing already finds fewer than k"
        )));
    }
    let non_empty = db.iter().filter(|t| !t.is_empty()).count();
    if non_empty > 0 && (non_empty as u64) < u64::from(k) {
        return Err(KmError::Unreachable(format!(
            "{non_empty} non-empty transactions, fewer than k = {k}: even every item generalized to the root is too rare"
        )));
    }
    let limit = params.max_combinations();
    // Nobody watching costs an atomic addition per block.
    let progress = params.progress_handle().cloned().unwrap_or_default();
    let (cut, generalizations) = match params.algorithm() {
        algorithm @ (Algorithm::Apriori | Algorithm::Direct) => greedy(
            db,
            hierarchy,
            &leaf_of_item,
            (k, params.m()),
            algorithm == Algorithm::Apriori,
            limit,
            &progress,
            Recount::Fresh,
        )?,
        Algorithm::Optimal => {
            (optimal_cut(db, hierarchy, &leaf_of_item, k, params.m(), params.max_cuts())?, vec![])
        }
    };
    progress.begin("km: publishing", Unit::Items, 0);
    let published = publish(db, hierarchy, &leaf_of_item, &cut, params.seed());
    let cut_nodes = cut.nodes();
    let generalized_items = cut_nodes.iter().filter(|&&v| !hierarchy.is_leaf(v)).count();
    let cut_labels: Vec<String> =
        cut_nodes.into_iter().map(|v| hierarchy.label(v).to_string()).collect();
    let claim = KmClaim::new(u64::from(k), params.m() as u64)?;
    let report =
        audit_with_progress(&published, hierarchy, &claim, Some(&cut_labels), Some(db), &progress)?;
    let loss = information_loss(hierarchy, &cut, db, &leaf_of_item);
    let generalizations = generalizations
        .into_iter()
        .map(|g| g.into_iter().map(|v| hierarchy.label(v).to_string()).collect())
        .collect();
    Ok(KmAnonymized {
        published,
        cut: cut_labels,
        generalized_items,
        loss,
        generalizations,
        audit: report,
    })
}

/// The cut AA (`level_wise`) or DA finds, and the raises it made; a level's passes after its
/// first count as `recount_after_fixes` says ([`Recount::Fresh`] in a run, the other to check
/// it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn greedy(
    db: &TransactionDb,
    hierarchy: &Hierarchy,
    leaf_of_item: &[NodeId],
    (k, m): (u32, usize),
    level_wise: bool,
    max_combinations: u64,
    progress: &Progress,
    recount_after_fixes: Recount,
) -> Result<(Cut, Vec<Vec<NodeId>>), KmError> {
    // A pass packs every generalized transaction with two more words, and numbers the words
    // in 32 bits.
    let n = db.len();
    if (db.occurrences() as u64).saturating_add(2 * n as u64) > u64::from(u32::MAX) {
        return Err(KmError::Unreachable(format!(
            "{} item occurrences in {n} transactions, more than the 2³² − 1 words AA and DA number",
            db.occurrences()
        )));
    }
    progress.begin("km: transaction lists of the hierarchy's nodes", Unit::Items, 0);
    let mut search = Search::new(db, hierarchy, leaf_of_item, k);
    let levels: Vec<std::ops::RangeInclusive<usize>> =
        if level_wise { (1..=m).map(|i| i..=i).collect() } else { vec![1..=m] };
    for sizes in levels {
        let mut recount = Recount::Everything;
        for pass in 1.. {
            let what = if sizes.start() == sizes.end() {
                format!("{}-itemsets", sizes.start())
            } else {
                format!("itemsets of {} to {} items", sizes.start(), sizes.end())
            };
            progress.begin(format!("km: counting {what}, pass {pass}"), Unit::Items, 0);
            let fresh = match recount {
                Recount::Everything => None,
                Recount::Fresh => Some(search.take_fresh()),
            };
            let violations =
                search.violations(sizes.clone(), fresh.as_deref(), max_combinations, progress)?;
            let found: usize = violations.iter().map(Vec::len).sum();
            if found == 0 {
                break;
            }
            progress.begin(
                format!("km: fixing {what} in fewer than k transactions"),
                Unit::Items,
                found as u64,
            );
            // The next recount is of what these fixes raise.
            search.raised_since.clear();
            for branch in &violations {
                for block in branch.chunks(1024) {
                    for &key in block {
                        search.fix(key);
                    }
                    progress.advance(block.len() as u64);
                }
            }
            recount = recount_after_fixes;
        }
    }
    Ok((search.cut, search.raises))
}

/// What a pass after the first of one level counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recount {
    /// Every itemset of the level's sizes again.
    Everything,
    /// Only the itemsets holding a node the last pass's fixes raised the cut to, from the rows
    /// holding one. The others are the same nodes with the same transactions as in the last
    /// count, where none was rare: a rare one was fixed, and a fix raises one of its items
    /// out of the cut (or finds one raised already). So the violations are the same, in the
    /// same order, and the pass reads only the rows the fixes touched.
    Fresh,
}

/// The most raises of one violation enumerated: `Π (depth + 1)` over its items is at most
/// `6⁴ = 1296` for the paper's hierarchies; past this (a hierarchy thousands of levels deep)
/// a linear set of candidates is tried instead.
const MAX_CANDIDATES: u64 = 1 << 16;

/// The state of AA's and DA's search.
struct Search<'a> {
    db: &'a TransactionDb,
    hierarchy: &'a Hierarchy,
    leaf_of_item: &'a [NodeId],
    k: u32,
    cut: Cut,
    /// Per node, the transactions holding a leaf below it, ascending.
    transactions: Vec<Vec<u32>>,
    /// Per node, the item occurrences below it.
    occurrences: Vec<u64>,
    /// The loss of the cut per leaf position (occurrences × the weight of its cut node).
    loss: Fenwick,
    /// The count tree's item order: more leaves first, then node id.
    rank: Vec<u32>,
    node_of_rank: Vec<NodeId>,
    raises: Vec<Vec<NodeId>>,
    /// The nodes raised to since [`Search::take_fresh`] last ran.
    raised_since: Vec<NodeId>,
}

impl<'a> Search<'a> {
    fn new(
        db: &'a TransactionDb,
        hierarchy: &'a Hierarchy,
        leaf_of_item: &'a [NodeId],
        k: u32,
    ) -> Self {
        let nodes = hierarchy.len();
        let mut transactions: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        let mut seen = vec![u32::MAX; nodes];
        for (r, t) in db.iter().enumerate() {
            for &i in t {
                for v in hierarchy.ancestors_or_self(leaf_of_item[i as usize]) {
                    if seen[v as usize] == r as u32 {
                        // An item below `v` was already met: so were its ancestors.
                        break;
                    }
                    seen[v as usize] = r as u32;
                    transactions[v as usize].push(r as u32);
                }
            }
        }
        let mut occurrences = vec![0u64; nodes];
        for (item, &support) in db.supports().iter().enumerate() {
            let leaf = leaf_of_item[item];
            for v in hierarchy.ancestors_or_self(leaf) {
                occurrences[v as usize] += u64::from(support);
            }
        }
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
        }
    }

    /// Per rank, whether the cut was raised to its node since the last call.
    fn take_fresh(&mut self) -> Vec<bool> {
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
    fn violations(
        &self,
        sizes: std::ops::RangeInclusive<usize>,
        fresh: Option<&[bool]>,
        max_combinations: u64,
        progress: &Progress,
    ) -> Result<Vec<Vec<u128>>, KmError> {
        let too_many = |combinations| {
            Err(KmError::TooManyCombinations {
                combinations,
                limit: max_combinations,
                sizes: if sizes.start() == sizes.end() {
                    sizes.start().to_string()
                } else {
                    format!("{} to {}", sizes.start(), sizes.end())
                },
            })
        };
        if sizes == (1..=1) {
            // A cut node's support is its transaction list's length: nothing to count.
            let occurring: Vec<u32> = (0..self.node_of_rank.len() as u32)
                .filter(|&r| {
                    let v = self.node_of_rank[r as usize];
                    self.cut.contains(self.hierarchy, v)
                        && !self.transactions[v as usize].is_empty()
                })
                .collect();
            if occurring.len() as u64 > max_combinations {
                return too_many(occurring.len() as u64);
            }
            return Ok(vec![
                occurring
                    .into_iter()
                    .filter(|&r| {
                        self.transactions[self.node_of_rank[r as usize] as usize].len()
                            < self.k as usize
                    })
                    .map(|r| u128::from(r + 1) << 96)
                    .collect(),
            ]);
        }
        let rows = self.generalized_rows(*sizes.start(), fresh);
        // The counters hold at most one entry per distinct itemset: no more than the rows'
        // combinations, nor than the combinations of the nodes that occur.
        let ranks = self.node_of_rank.len();
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
        let itemsets = sizes
            .clone()
            .map(|size| listed[size].min(binomial(nodes, size as u64)))
            .fold(0u64, u64::saturating_add);
        if itemsets > max_combinations {
            return too_many(itemsets);
        }
        // Each combination counted under its smallest rank (its count-tree branch), one
        // branch at a time on each worker: a branch's counters stay small enough for the
        // caches, where one table of every combination (a billion insertions at ten million
        // baskets and m = 3) missed them at each insertion. The first ranks' branches hold
        // most rows: they are handed out one by one, the largest first, not split as a range.
        let holding = rows.places(ranks);
        // In a recount, a branch past the last fresh rank holds no fresh itemset.
        let last = fresh.map_or(Some(ranks), |f| f.iter().rposition(|&x| x));
        let held: Vec<u32> = (0..ranks as u32)
            .filter(|&a| last.is_some_and(|last| a as usize <= last) && !holding.of(a).is_empty())
            .collect();
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

    /// The distinct transactions of at least `min_len` items generalized by the cut, as
    /// ascending ranks, with their multiplicities, in lexicographic order; with `fresh`, only
    /// those holding a rank it marks.
    fn generalized_rows(&self, min_len: usize, fresh: Option<&[bool]>) -> PackedRows {
        let rank_of_item: Vec<u32> = self
            .leaf_of_item
            .iter()
            .map(|&leaf| {
                let pos = self.hierarchy.leaf_range(leaf).start;
                self.rank[self.cut.node_of_leaf(pos) as usize]
            })
            .collect();
        let all = generalize(self.db, &rank_of_item, min_len, fresh);
        // Sorted by a key of their first ranks (ties, rare, compared in full): equal rows meet,
        // and a branch then reads its rows in ascending addresses.
        let bits = txanon_data::prefix_key_bits(self.node_of_rank.len());
        let mut keyed: Vec<(u128, u32)> = (0..all.len())
            .into_par_iter()
            .map(|j| (txanon_data::prefix_key(all.row(j), bits), j as u32))
            .collect();
        keyed.par_sort_unstable_by(|a, b| {
            a.0.cmp(&b.0).then_with(|| all.row(a.1 as usize).cmp(all.row(b.1 as usize)))
        });
        // Packed in pieces on rayon (a gather of every row), each piece starting at a row
        // unlike the one before it.
        let same = |j: usize| {
            j > 0
                && keyed[j - 1].0 == keyed[j].0
                && all.row(keyed[j - 1].1 as usize) == all.row(keyed[j].1 as usize)
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
        let packed: Vec<PackedRows> = starts
            .par_windows(2)
            .map(|piece| {
                let mut rows = PackedRows::default();
                for (j, &(_, r)) in keyed.iter().enumerate().take(piece[1]).skip(piece[0]) {
                    if j > piece[0] && same(j) {
                        rows.add_to_last(1);
                    } else {
                        rows.push(all.row(r as usize), 1);
                    }
                }
                rows
            })
            .collect();
        let mut distinct = PackedRows::default();
        for piece in packed {
            distinct.words.extend_from_slice(&piece.words);
        }
        distinct
    }

    /// Fixes the violation `key` by the cheapest raise that gives it `k` transactions, unless
    /// an earlier fix has generalized one of its items already.
    fn fix(&mut self, key: u128) {
        let h = self.hierarchy;
        // Most violations of a pass are found fixed here, before anything is allocated.
        if unpack(key).any(|r| !self.cut.contains(h, self.node_of_rank[r as usize])) {
            return;
        }
        let itemset: Vec<NodeId> = unpack(key).map(|r| self.node_of_rank[r as usize]).collect();
        // Every way of moving the items up their paths, as the set of nodes raised to
        // (those under another raised node dropped), deduplicated.
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
        let mut candidates: Vec<(u128, Vec<NodeId>)> = Vec::new();
        for mut raised in raise_sets {
            raised.sort_unstable();
            raised.dedup();
            let top: Vec<NodeId> = raised
                .iter()
                .copied()
                .filter(|&a| !raised.iter().any(|&b| b != a && h.covers(b, a)))
                .collect();
            if !top.is_empty() {
                let cost = top.iter().map(|&a| self.raise_cost(a)).sum::<u128>();
                candidates.push((cost, top));
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        for (_, raised) in candidates {
            let generalized: Vec<NodeId> = {
                let mut g: Vec<NodeId> = itemset
                    .iter()
                    .map(|&v| raised.iter().copied().find(|&a| h.covers(a, v)).unwrap_or(v))
                    .collect();
                g.sort_unstable();
                g.dedup();
                g
            };
            if self.support_at_least_k(&generalized) {
                for &a in &raised {
                    self.raise(a);
                }
                self.raises.push(raised);
                return;
            }
        }
        unreachable!("generalizing every item to the root reaches k: checked before the search");
    }

    /// The loss raising the cut to `a` adds.
    fn raise_cost(&self, a: NodeId) -> u128 {
        let after =
            u128::from(self.occurrences[a as usize]) * u128::from(weight(self.hierarchy, a));
        let before = self.loss.range(self.hierarchy.leaf_range(a));
        after - before
    }

    fn raise(&mut self, a: NodeId) {
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

    /// Whether at least `k` transactions hold a leaf below each of `nodes`.
    fn support_at_least_k(&self, nodes: &[NodeId]) -> bool {
        let k = self.k as usize;
        let mut lists: Vec<&[u32]> =
            nodes.iter().map(|&v| self.transactions[v as usize].as_slice()).collect();
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

/// Rows of ranks or ids in one buffer.
struct FlatRows {
    flat: Vec<u32>,
    /// Row `j` is `flat[ends[j]..ends[j + 1]]`.
    ends: Vec<usize>,
}

impl FlatRows {
    fn len(&self) -> usize {
        self.ends.len() - 1
    }

    fn row(&self, j: usize) -> &[u32] {
        &self.flat[self.ends[j]..self.ends[j + 1]]
    }
}

/// The cache lines of each row [`PackedRows::tails`] fetches ahead: at kosarak-shaped 10⁷
/// rows, km's run took 91–95 s of CPU fetching none, 84 s one, 80–83 s three
/// (PERFORMANCE.md, part 10).
const FETCH_LINES: usize = 3;

/// Marks a row's end in [`PackedRows`]; no rank reaches it.
const END: u32 = u32::MAX;

/// Rows of ranks with their multiplicities, each stored as its ranks, [`END`] and the
/// multiplicity: from any place in a row, its tail and weight are the next words, one fetch
/// where separate row bounds and weights were three cache misses per row a branch read.
#[derive(Default)]
struct PackedRows {
    words: Vec<u32>,
}

impl PackedRows {
    fn push(&mut self, row: &[u32], weight: u32) {
        debug_assert!(row.iter().all(|&r| r != END));
        self.words.extend_from_slice(row);
        self.words.push(END);
        self.words.push(weight);
    }

    fn add_to_last(&mut self, weight: u32) {
        *self.words.last_mut().expect("a row pushed") += weight;
    }

    /// The rows and their multiplicities, in order.
    fn iter(&self) -> impl Iterator<Item = (&[u32], u32)> {
        let mut from = 0;
        std::iter::from_fn(move || {
            let end = from + self.words[from..].iter().position(|&r| r == END)?;
            let row = (&self.words[from..end], self.words[end + 1]);
            from = end + 2;
            Some(row)
        })
    }

    /// The ranks after the one at `place`, and the row's multiplicity.
    fn tail(&self, place: usize) -> (&[u32], u32) {
        let from = place + 1;
        let end =
            from + self.words[from..].iter().position(|&r| r == END).expect("every row is ended");
        (&self.words[from..end], self.words[end + 1])
    }

    /// [`PackedRows::tail`] of each of `places` in turn, the rows' first [`FETCH_LINES`] cache
    /// lines fetched a batch ahead ([`txanon_data::fetch`]).
    fn tails<'s>(&'s self, places: &'s [u32]) -> impl Iterator<Item = (&'s [u32], u32)> + 's {
        txanon_data::fetch::fetched_ahead(places, |p| &self.words[p as usize..], FETCH_LINES)
            .map(|p| self.tail(p as usize))
    }

    /// Per rank, the places it holds in the rows, ascending.
    fn places(&self, ranks: usize) -> Places {
        let mut starts = vec![0usize; ranks + 1];
        let mut weight_next = false;
        for &r in &self.words {
            if std::mem::take(&mut weight_next) {
                continue;
            }
            if r == END {
                weight_next = true;
            } else {
                starts[r as usize + 1] += 1;
            }
        }
        for a in 0..ranks {
            starts[a + 1] += starts[a];
        }
        let mut next = starts[..ranks].to_vec();
        let mut at = vec![0u32; starts[ranks]];
        let mut weight_next = false;
        for (place, &r) in self.words.iter().enumerate() {
            if std::mem::take(&mut weight_next) {
                continue;
            }
            if r == END {
                weight_next = true;
            } else {
                // Below 2³²: checked before the search.
                at[next[r as usize]] = place as u32;
                next[r as usize] += 1;
            }
        }
        Places { starts, at }
    }
}

/// Per rank, its places in [`PackedRows`].
struct Places {
    starts: Vec<usize>,
    at: Vec<u32>,
}

impl Places {
    fn of(&self, rank: u32) -> &[u32] {
        &self.at[self.starts[rank as usize]..self.starts[rank as usize + 1]]
    }
}

/// The transactions of `db` of at least `min_len` items after mapping each item `i` to
/// `map[i]` (duplicates merged, ascending), in order, in one buffer; with `marked`, only those
/// holding a value it marks.
fn generalize(
    db: &TransactionDb,
    map: &[u32],
    min_len: usize,
    marked: Option<&[bool]>,
) -> FlatRows {
    // Chunks of transactions generalized on rayon into one flat buffer each: a `Vec` per row
    // was ten million allocations, and sorting them chased a pointer per comparison.
    const CHUNK: usize = 1 << 16;
    let n = db.len();
    let chunks: Vec<(Vec<u32>, Vec<usize>)> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (mut flat, mut ends) = (Vec::new(), Vec::new());
            for r in c * CHUNK..n.min((c + 1) * CHUNK) {
                let t = db.transaction(r);
                if t.len() < min_len {
                    continue;
                }
                let from = flat.len();
                flat.extend(t.iter().map(|&i| map[i as usize]));
                flat[from..].sort_unstable();
                let kept = dedup_sorted(&mut flat[from..]);
                flat.truncate(from + kept);
                let unmarked = marked.is_some_and(|m| !flat[from..].iter().any(|&v| m[v as usize]));
                if kept < min_len || unmarked {
                    flat.truncate(from);
                } else {
                    ends.push(flat.len());
                }
            }
            (flat, ends)
        })
        .collect();
    let mut all = FlatRows { flat: Vec::new(), ends: vec![0] };
    for (flat, ends) in chunks {
        let base = all.flat.len();
        all.flat.extend_from_slice(&flat);
        all.ends.extend(ends.iter().map(|&e| base + e));
    }
    all
}

/// Keeps the first of each run of equal values of `sorted` at its front; returns how many.
fn dedup_sorted(sorted: &mut [u32]) -> usize {
    let mut kept = 0;
    for j in 0..sorted.len() {
        if kept == 0 || sorted[j] != sorted[kept - 1] {
            sorted[kept] = sorted[j];
            kept += 1;
        }
    }
    kept
}

/// When a branch counts its 3-itemsets in a dense table: at most 16 MiB of `u32` cells, and
/// no more cells than four times the branch's pairs of ranks (zeroing and scanning a sparse
/// table would cost more than hashing).
const TRIPLE_TABLE: TripleTable = TripleTable {
    max_cells: 1 << 22,
    cells_per_pair: 4,
    bitset_rows: Some(BitsetRows { min_len: 16, width_share: 6, increments_per_word: 1 }),
};

#[derive(Debug, Clone, Copy)]
struct TripleTable {
    max_cells: usize,
    cells_per_pair: u64,
    /// Which rows a dense table counts through column bitsets (`None`: none).
    bitset_rows: Option<BitsetRows>,
}

/// The rows of a branch whose triples are counted as a Gram matrix of column bitsets (the
/// popcount of each pair of columns' AND) rather than an increment per triple: those of
/// weight one whose tail after the branch's rank holds at least `min_len` ranks and a
/// `width_share`-th of the branch's columns. A long row costs `L²/2` increments, and all of
/// them together `D²/2` words per 64 rows over their `D` columns: in kosarak-shaped 10⁷
/// transactions' publication the rows of 40 items or more (of 314) are 5.5% of the distinct
/// rows and hold 93% of the triples. The branch takes the bitsets only when the increments
/// they save are at least `increments_per_word` times the words the Gram reads
/// (PERFORMANCE.md, part 10, has the sweep behind the rule).
#[derive(Debug, Clone, Copy)]
struct BitsetRows {
    min_len: usize,
    width_share: usize,
    increments_per_word: u64,
}

/// A worker's counters for one count-tree branch at a time: dense arrays over the ranks that
/// occur after the branch's rank where they fit (an addition each, in the caches), a hash
/// table for the rest.
struct BranchCounter {
    /// Per rank, its column in this branch (`u32::MAX` when absent); reset after each branch.
    column: Vec<u32>,
    /// The ranks of the columns.
    ranks: Vec<u32>,
    pairs: Vec<u32>,
    triples: Vec<u32>,
    /// Per column, its line of [`BranchCounter::bitsets`] (`u32::MAX`: none).
    bitset_line: Vec<u32>,
    /// Per bitset line, its column.
    bitset_columns: Vec<u32>,
    /// Per bitset line, `bitset_words` words: bit `j` is whether the `j`-th bitset row holds
    /// the line's column ([`BitsetRows`]).
    bitsets: Vec<u64>,
    bitset_words: usize,
    /// The branch's rows from its rank on.
    local: PackedRows,
    triple_table: TripleTable,
}

impl BranchCounter {
    fn new(ranks: usize, triple_table: TripleTable) -> Self {
        Self {
            triple_table,
            column: vec![u32::MAX; ranks],
            ranks: Vec::new(),
            pairs: Vec::new(),
            triples: Vec::new(),
            bitset_line: Vec::new(),
            bitset_columns: Vec::new(),
            bitsets: Vec::new(),
            bitset_words: 0,
            local: PackedRows::default(),
        }
    }

    /// The keys of the itemsets of `sizes` items with smallest rank `a`, held by `holding`
    /// (rows of `rows` holding `a`) in fewer than `k` transactions, ascending.
    fn rare(
        &mut self,
        a: u32,
        holding: &[u32],
        rows: &PackedRows,
        sizes: std::ops::RangeInclusive<usize>,
        k: u32,
    ) -> Vec<u128> {
        if *sizes.end() <= 2 {
            return self.rare_pairs(a, holding, rows, sizes, k);
        }
        // The branch's rows from `a` on, copied out in one pass (a fetch each): the counting
        // below reads them twice more.
        self.ranks.clear();
        self.local.words.clear();
        let mut pair_work = 0u64;
        for (after, w) in rows.tails(holding) {
            pair_work += (after.len() * after.len()) as u64;
            for &r in after {
                if self.column[r as usize] == u32::MAX {
                    self.column[r as usize] = self.ranks.len() as u32;
                    self.ranks.push(r);
                }
            }
            self.local.words.push(a);
            self.local.push(after, w);
        }
        let width = self.ranks.len();
        let cells = width.saturating_mul(width);
        let dense_triples = sizes.contains(&3)
            && cells <= self.triple_table.max_cells
            && cells as u64 <= pair_work.saturating_mul(self.triple_table.cells_per_pair);
        let single = u128::from(a + 1) << 96;
        let mut alone = 0u32;
        self.pairs.clear();
        self.pairs.resize(width, 0);
        self.triples.clear();
        if dense_triples {
            self.triples.resize(width * width, 0);
        }
        // A hash table per branch: clearing a worker's would cost its largest capacity for
        // every branch.
        let mut hashed = FxHashMap::<u128, u32>::default();
        let hashed_sizes: Vec<usize> =
            sizes.clone().filter(|&s| s == 4 || (s == 3 && !dense_triples)).collect();
        let local = std::mem::take(&mut self.local);
        let bitset_len = if dense_triples { self.bitset_rows_len(&local) } else { None };
        let is_bitset_row =
            |after: &[u32], w: u32| bitset_len.is_some_and(|min| w == 1 && after.len() >= min);
        // A row's columns, looked up once: the triples' loop is quadratic in the row.
        let mut columns: Vec<u32> = Vec::new();
        let mut bitset_row = 0usize;
        for (from_a, w) in local.iter() {
            let after = &from_a[1..];
            alone += w;
            columns.clear();
            columns.extend(after.iter().map(|&r| self.column[r as usize]));
            if is_bitset_row(after, w) {
                // Its triples are added from the bitsets below.
                let (word, bit) = (bitset_row / 64, 1u64 << (bitset_row % 64));
                for &cb in &columns {
                    self.pairs[cb as usize] += w;
                    let line = self.bitset_line[cb as usize] as usize;
                    self.bitsets[line * self.bitset_words + word] |= bit;
                }
                bitset_row += 1;
            } else {
                for (x, &cb) in columns.iter().enumerate() {
                    let cb = cb as usize;
                    self.pairs[cb] += w;
                    if dense_triples {
                        let line = &mut self.triples[cb * width..(cb + 1) * width];
                        for &cc in &columns[x + 1..] {
                            line[cc as usize] += w;
                        }
                    }
                }
            }
            for &size in &hashed_sizes {
                each_combination_from(from_a, size, |key| {
                    *hashed.entry(key).or_insert(0) += w;
                });
            }
        }
        self.local = local;
        if bitset_row > 0 {
            self.add_bitset_triples();
        }
        let rare = |count: u32| count > 0 && count < k;
        let mut found = self.rare_single_and_pairs(a, alone, &sizes, k);
        if dense_triples {
            for (cell, &count) in self.triples.iter().enumerate() {
                if rare(count) {
                    let (b, c) = (self.ranks[cell / width], self.ranks[cell % width]);
                    found.push(single | u128::from(b + 1) << 64 | u128::from(c + 1) << 32);
                }
            }
        }
        found.extend(hashed.iter().filter(|&(_, &c)| rare(c)).map(|(&key, _)| key));
        found.sort_unstable();
        self.release_columns();
        found
    }

    /// The keys of `a` alone (counted `alone` times) and of `a` with each column's rank (in
    /// `pairs`) when `sizes` asks for them and they are rare, unsorted.
    fn rare_single_and_pairs(
        &self,
        a: u32,
        alone: u32,
        sizes: &std::ops::RangeInclusive<usize>,
        k: u32,
    ) -> Vec<u128> {
        let rare = |count: u32| count > 0 && count < k;
        let single = u128::from(a + 1) << 96;
        let mut found: Vec<u128> = Vec::new();
        if sizes.contains(&1) && rare(alone) {
            found.push(single);
        }
        if sizes.contains(&2) {
            for (&b, &count) in self.ranks.iter().zip(&self.pairs) {
                if rare(count) {
                    found.push(single | u128::from(b + 1) << 64);
                }
            }
        }
        found
    }

    /// Leaves `column` as it was found: no rank has a column.
    fn release_columns(&mut self) {
        for &r in &self.ranks {
            self.column[r as usize] = u32::MAX;
        }
    }

    /// The least tail length of the branch's rows (in `local`, the columns assigned) counted
    /// through bitsets ([`BitsetRows`]), with the bitsets set up for them, zero; `None` when
    /// none is, or they would cost more than their increments.
    fn bitset_rows_len(&mut self, local: &PackedRows) -> Option<usize> {
        let rule = self.triple_table.bitset_rows?;
        let width = self.ranks.len();
        let min_len = rule.min_len.max(width / rule.width_share.max(1));
        self.bitset_line.clear();
        self.bitset_line.resize(width, u32::MAX);
        self.bitset_columns.clear();
        let (mut rows, mut increments) = (0u64, 0u64);
        for (from_a, w) in local.iter() {
            let after = &from_a[1..];
            if w != 1 || after.len() < min_len {
                continue;
            }
            rows += 1;
            let len = after.len() as u64;
            increments += len * len.saturating_sub(1) / 2;
            for &r in after {
                let cb = self.column[r as usize] as usize;
                if self.bitset_line[cb] == u32::MAX {
                    self.bitset_line[cb] = self.bitset_columns.len() as u32;
                    self.bitset_columns.push(cb as u32);
                }
            }
        }
        let lines = self.bitset_columns.len() as u64;
        let words = rows.div_ceil(64);
        let gram_words = lines * lines.saturating_sub(1) / 2 * words * 2;
        if rows == 0 || increments < gram_words.saturating_mul(rule.increments_per_word) {
            return None;
        }
        self.bitset_words = words as usize;
        self.bitsets.clear();
        self.bitsets.resize(self.bitset_columns.len() * self.bitset_words, 0);
        Some(min_len)
    }

    /// Adds to the triple table the pairs' counts among the bitset rows: per pair of bitset
    /// lines the popcount of their AND, in blocks of words that stay in the caches.
    fn add_bitset_triples(&mut self) {
        const BLOCK: usize = 256;
        let (width, words) = (self.ranks.len(), self.bitset_words);
        let lines = self.bitset_columns.len();
        let mut from = 0;
        while from < words {
            let to = words.min(from + BLOCK);
            for x in 0..lines {
                let bx = &self.bitsets[x * words + from..x * words + to];
                let cx = self.bitset_columns[x] as usize;
                for y in x + 1..lines {
                    let by = &self.bitsets[y * words + from..y * words + to];
                    let count: u32 = bx.iter().zip(by).map(|(p, q)| (p & q).count_ones()).sum();
                    if count > 0 {
                        let cy = self.bitset_columns[y] as usize;
                        // The cell's line is the column of the smaller rank.
                        let cell = if self.ranks[cx] < self.ranks[cy] {
                            cx * width + cy
                        } else {
                            cy * width + cx
                        };
                        self.triples[cell] += count;
                    }
                }
            }
            from = to;
        }
    }

    /// [`BranchCounter::rare`] for itemsets of at most two items: the rows are read once, so
    /// they are counted where they lie, not copied out first.
    fn rare_pairs(
        &mut self,
        a: u32,
        holding: &[u32],
        rows: &PackedRows,
        sizes: std::ops::RangeInclusive<usize>,
        k: u32,
    ) -> Vec<u128> {
        self.ranks.clear();
        self.pairs.clear();
        let mut alone = 0u32;
        for (after, w) in rows.tails(holding) {
            for &r in after {
                let column = &mut self.column[r as usize];
                if *column == u32::MAX {
                    *column = self.ranks.len() as u32;
                    self.ranks.push(r);
                    self.pairs.push(0);
                }
                self.pairs[*column as usize] += w;
            }
            alone += w;
        }
        let mut found = self.rare_single_and_pairs(a, alone, &sizes, k);
        found.sort_unstable();
        self.release_columns();
        found
    }
}

/// Calls `f` with the key of every `size`-combination of `row` (ascending ranks): the ranks
/// plus one packed from the most significant 32 bits down, so that keys sort in the count
/// tree's preorder (a prefix before its extensions).
fn each_combination(row: &[u32], size: usize, mut f: impl FnMut(u128)) {
    debug_assert!((1..=4).contains(&size));
    let n = row.len();
    if n < size {
        return;
    }
    let mut idx: Vec<usize> = (0..size).collect();
    loop {
        let mut key = 0u128;
        for (j, &p) in idx.iter().enumerate() {
            key |= u128::from(row[p] + 1) << (96 - 32 * j);
        }
        f(key);
        // Next combination in lexicographic order.
        let mut j = size;
        while j > 0 {
            j -= 1;
            if idx[j] < n - size + j {
                idx[j] += 1;
                for l in j + 1..size {
                    idx[l] = idx[l - 1] + 1;
                }
                break;
            }
            if j == 0 {
                return;
            }
        }
    }
}

/// Calls `f` with the key of every `size`-combination of `row` (ascending ranks) that holds its
/// first rank: the combinations counted in that rank's count-tree branch.
fn each_combination_from(row: &[u32], size: usize, mut f: impl FnMut(u128)) {
    let Some((&first, rest)) = row.split_first() else { return };
    let top = u128::from(first + 1) << 96;
    if size == 1 {
        f(top);
        return;
    }
    // The rest's (size − 1)-combinations, one 32-bit place lower.
    each_combination(rest, size - 1, |key| f(top | key >> 32));
}

/// `C(n, r)` saturated at `u64::MAX` (a count that only meets a limit).
fn binomial(n: u64, r: u64) -> u64 {
    let (Ok(n), Ok(r)) = (usize::try_from(n), usize::try_from(r)) else { return u64::MAX };
    txanon_data::sets::binomial(n, r).map_or(u64::MAX, |c| u64::try_from(c).unwrap_or(u64::MAX))
}

/// The ranks packed in a count-tree key.
fn unpack(key: u128) -> impl Iterator<Item = u32> {
    (0..4)
        .map(move |j| ((key >> (96 - 32 * j)) & 0xffff_ffff) as u32)
        .take_while(|&r| r > 0)
        .map(|r| r - 1)
}

/// A Fenwick tree of `u128` sums over leaf positions.
#[derive(Debug)]
struct Fenwick(Vec<u128>);

impl Fenwick {
    fn new(n: usize) -> Self {
        Self(vec![0; n + 1])
    }

    /// Adds `delta` (wrapping, so that a decrease is the two's complement) at `pos`.
    fn add(&mut self, pos: usize, delta: u128) {
        let mut i = pos + 1;
        while i < self.0.len() {
            self.0[i] = self.0[i].wrapping_add(delta);
            i += i & i.wrapping_neg();
        }
    }

    fn prefix(&self, end: usize) -> u128 {
        let (mut i, mut sum) = (end, 0u128);
        while i > 0 {
            sum = sum.wrapping_add(self.0[i]);
            i -= i & i.wrapping_neg();
        }
        sum
    }

    fn range(&self, range: std::ops::Range<usize>) -> u128 {
        self.prefix(range.end).wrapping_sub(self.prefix(range.start))
    }
}

/// The data generalized by `cut`, as a database over the labels of the cut's nodes that
/// occur, in an order that depends on neither the input's order nor anything but the seed.
pub(crate) fn publish(
    db: &TransactionDb,
    hierarchy: &Hierarchy,
    leaf_of_item: &[NodeId],
    cut: &Cut,
    seed: Option<u64>,
) -> TransactionDb {
    let node_of_item: Vec<NodeId> = leaf_of_item
        .iter()
        .map(|&leaf| cut.node_of_leaf(hierarchy.leaf_range(leaf).start))
        .collect();
    let mut used: Vec<NodeId> = node_of_item.clone();
    used.sort_unstable();
    used.dedup();
    // The dictionary a reader of the published file builds: integers when every label is one.
    let names: Vec<&str> = used.iter().map(|&v| hierarchy.label(v)).collect();
    let (labels, id_of_used) = ItemLabels::ranked(&names);
    let mut id_of_node = vec![ItemId::MAX; hierarchy.len()];
    for (&v, &id) in used.iter().zip(&id_of_used) {
        id_of_node[v as usize] = id;
    }
    let id_of_item: Vec<ItemId> = node_of_item.iter().map(|&v| id_of_node[v as usize]).collect();
    let rows = generalize(db, &id_of_item, 0, None);
    let generalized = TransactionDb::from_parts(rows.ends, rows.flat, labels);
    let mut order = generalized.lexicographic_order();
    order.shuffle(&mut publication_rng(seed, db));
    generalized.select(order.into_iter().map(|r| r as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_come_in_preorder() {
        let mut keys = Vec::new();
        each_combination(&[1, 4, 7, 9], 2, |k| keys.push(k));
        assert_eq!(keys.len(), 6);
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(unpack(keys[0]).collect::<Vec<_>>(), [1, 4]);
        assert_eq!(unpack(keys[5]).collect::<Vec<_>>(), [7, 9]);
        let mut n = 0;
        each_combination(&[0, 1, 2, 3, 4, 5], 4, |_| n += 1);
        assert_eq!(n, 15);
        each_combination(&[0, 1], 3, |_| panic!("no 3-combination of 2 items"));
        // A prefix sorts before its extensions, which sort before the next prefix.
        let (mut single, mut pair) = (0, 0);
        each_combination(&[2, 3], 1, |k| single = single.max(k));
        each_combination(&[2, 3], 2, |k| pair = k);
        assert!(unpack(pair).count() == 2 && pair < single);
    }

    #[test]
    fn a_branch_holds_the_combinations_of_its_first_rank() {
        let row = [1, 4, 7, 9];
        for size in 1..=4 {
            let mut all = Vec::new();
            each_combination(&row, size, |k| all.push(k));
            let mut branches = Vec::new();
            for from in 0..row.len() {
                each_combination_from(&row[from..], size, |k| branches.push(k));
            }
            assert_eq!(branches, all, "size {size}");
        }
        each_combination_from(&[], 1, |_| panic!("no first rank"));
    }

    /// Past one block of bitset words (256 words: 16,384 rows), with rows of weight two among
    /// the others, a branch's triple table counted through bitsets is the increments' cell for
    /// cell (the property test's rows fill one word at most).
    #[test]
    fn bitsets_count_what_increments_count_over_many_blocks() {
        let ranks = 24u32;
        let mut rows = PackedRows::default();
        for j in 0..48_000u64 {
            let bits = txanon_data::mix64(j);
            let row: Vec<u32> = (0..ranks).filter(|&r| bits >> r & 1 == 1).collect();
            rows.push(&row, if j % 7 == 0 { 2 } else { 1 });
        }
        let holding = rows.places(ranks as usize);
        let increments =
            TripleTable { max_cells: usize::MAX, cells_per_pair: u64::MAX, bitset_rows: None };
        let bitsets = TripleTable {
            bitset_rows: Some(BitsetRows { min_len: 0, width_share: 4, increments_per_word: 0 }),
            ..increments
        };
        for a in [0, 1, 9] {
            let mut tables = Vec::new();
            for table in [increments, bitsets] {
                let mut counter = BranchCounter::new(ranks as usize, table);
                let found = counter.rare(a, holding.of(a), &rows, 3..=3, u32::MAX);
                tables.push((found, counter.ranks.clone(), counter.triples.clone()));
                if table.bitset_rows.is_some() {
                    assert!(counter.bitset_words > 256, "rank {a}: {} words", counter.bitset_words);
                }
            }
            assert!(!tables[0].0.is_empty(), "rank {a}: every triple that occurs is below k");
            assert_eq!(tables[0], tables[1], "rank {a}");
        }
    }

    proptest::proptest! {
        /// A branch's counters find, dense or hashed, the rare itemsets that counting every
        /// combination of every row finds under that branch's rank.
        #[test]
        fn branches_find_what_counting_every_combination_finds(
            rows in proptest::collection::vec(
                (proptest::collection::btree_set(0u32..12, 1..8), 1u32..4), 1..40),
            k in 2u32..8,
            sizes in proptest::prop_oneof![
                proptest::strategy::Just(1..=1usize), proptest::strategy::Just(2..=2),
                proptest::strategy::Just(3..=3), proptest::strategy::Just(4..=4),
                proptest::strategy::Just(1..=3), proptest::strategy::Just(1..=4),
            ],
        ) {
            let mut distinct = PackedRows::default();
            let mut counts: FxHashMap<u128, u32> = FxHashMap::default();
            for (row, w) in &rows {
                let row: Vec<u32> = row.iter().copied().collect();
                distinct.push(&row, *w);
                for size in sizes.clone() {
                    each_combination(&row, size, |key| *counts.entry(key).or_insert(0) += w);
                }
            }
            let holding = distinct.places(12);
            proptest::prop_assert_eq!(
                distinct.iter().map(|(r, w)| (r.to_vec(), w)).collect::<Vec<_>>(),
                rows.iter().map(|(r, w)| (r.iter().copied().collect::<Vec<_>>(), *w)).collect::<Vec<_>>()
            );
            for table in [
                TripleTable { max_cells: usize::MAX, cells_per_pair: u64::MAX, bitset_rows: None },
                TripleTable { max_cells: 0, cells_per_pair: 0, bitset_rows: None },
                TripleTable {
                    max_cells: usize::MAX,
                    cells_per_pair: u64::MAX,
                    bitset_rows: Some(BitsetRows { min_len: 0, width_share: usize::MAX, increments_per_word: 0 }),
                },
                TripleTable {
                    max_cells: usize::MAX,
                    cells_per_pair: u64::MAX,
                    bitset_rows: Some(BitsetRows { min_len: 3, width_share: 4, increments_per_word: 0 }),
                },
                TRIPLE_TABLE,
            ] {
                let mut counter = BranchCounter::new(12, table);
                for a in 0..12u32 {
                    let mut expected: Vec<u128> = counts
                        .iter()
                        .filter(|&(&key, &c)| c < k && unpack(key).next() == Some(a))
                        .map(|(&key, _)| key)
                        .collect();
                    expected.sort_unstable();
                    let found = counter.rare(a, holding.of(a), &distinct, sizes.clone(), k);
                    proptest::prop_assert_eq!(found, expected, "rank {} table {:?}", a, table);
                    proptest::prop_assert!(counter.column.iter().all(|&c| c == u32::MAX));
                }
            }
        }
    }

    proptest::proptest! {
        /// A recount of the fresh itemsets only finds what a recount of every itemset finds:
        /// the same raises, in the same order, and the same cut, for AA and DA.
        #[test]
        fn recounting_the_fresh_itemsets_changes_nothing(
            rows in proptest::collection::vec(proptest::collection::btree_set(0u32..30, 1..9), 5..80),
            k in 2u32..7,
            m in 1usize..5,
            fanout in 2usize..5,
            level_wise in proptest::bool::ANY,
        ) {
            // `anonymize` refuses fewer non-empty transactions than k before any search.
            proptest::prop_assume!(rows.len() >= k as usize);
            let rows: Vec<Vec<u32>> = rows.iter().map(|r| r.iter().copied().collect()).collect();
            let db = TransactionDb::from_int_transactions(rows);
            let hierarchy = Hierarchy::balanced(&db, fanout).unwrap();
            let leaves = hierarchy.leaves_of_items(&db).unwrap();
            let run = |recount| {
                greedy(
                    &db, &hierarchy, &leaves, (k, m), level_wise, u64::MAX,
                    &Progress::default(), recount,
                )
                .unwrap()
            };
            let (every_cut, every_raises) = run(Recount::Everything);
            let (fresh_cut, fresh_raises) = run(Recount::Fresh);
            proptest::prop_assert_eq!(fresh_raises, every_raises);
            proptest::prop_assert_eq!(fresh_cut, every_cut);
        }
    }

    #[test]
    fn binomials() {
        assert_eq!(binomial(161, 4), 26_964_280);
        assert_eq!(binomial(3, 4), 0);
        assert_eq!(binomial(10, 0), 1);
        assert_eq!(binomial(u64::MAX, 4), u64::MAX);
    }

    #[test]
    fn fenwick_sums_ranges() {
        let mut f = Fenwick::new(6);
        f.add(1, 5);
        f.add(4, 7);
        assert_eq!(f.range(0..6), 12);
        assert_eq!(f.range(2..5), 7);
        f.add(4, 3u128.wrapping_sub(7));
        assert_eq!(f.range(0..6), 8);
    }
}
