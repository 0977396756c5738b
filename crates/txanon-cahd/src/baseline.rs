//! PermMondrian, the comparator of the CAHD paper: Mondrian's partitioning (LeFevre et al.,
//! ICDE 2006) over the QID items as binary dimensions, each partition published as a CAHD group
//! (its QID itemsets exact, its sensitive items as counts, the "permutation" of Anatomy).
//!
//! Mondrian splits a partition on one dimension at its median while both halves stay
//! admissible. Every QID item is a binary dimension whose normalized range is 1 wherever both
//! values occur, so the widest-range rule ties everywhere; the tie goes to the most balanced
//! split (the item whose count in the partition is nearest half of it), as the median rule
//! intends, then to the smaller item id. A half is admissible when it has privacy degree `p`:
//! every sensitive item occurs in at most `|half| / p` of its transactions. A partition no item
//! splits admissibly is a group.

use txanon_data::{ItemId, TransactionDb};

use crate::algorithm::{
    CahdPublication, Grouping, GroupingStats, feasible_sensitive, publish_audited,
};
use crate::error::CahdError;
use crate::params::ValidCahdParams;

/// Groups `db` by PermMondrian at privacy degree `params.p()` and publishes the groups as
/// [`anonymize`](crate::anonymize) does (shuffled, audited). `params`' order and α are not used.
///
/// # Complexity
/// Per cut, a count of the half with the item (`O(Σ|t|)` over its transactions) and the same
/// subtracted from the partition; a transaction is in that half once per item on its path of
/// cuts, so `O(Σ|t| · L)` overall for transactions of at most `L` QID items, plus re-indexing
/// (at most doubling it), a sort of the partition's items per cut, and per item tried the
/// sensitive counts of its half (`O(support in the partition)`).
///
/// # Errors
/// As [`anonymize`](crate::anonymize): no sensitive item, a sensitive item in more than `1/p` of
/// the transactions, or a failed audit.
///
/// # Panics
/// When a sensitive item id is not an item of `db`.
pub fn perm_mondrian(
    db: &TransactionDb,
    sensitive: &[ItemId],
    params: &ValidCahdParams,
) -> Result<CahdPublication, CahdError> {
    let is_sensitive = feasible_sensitive(db, sensitive, params.p())?;
    let (groups, _) = mondrian_groups(db, &is_sensitive, params.p());
    let stats = GroupingStats {
        sensitive_transactions: db
            .iter()
            .filter(|t| t.iter().any(|&i| is_sensitive[i as usize]))
            .count(),
        groups_formed: groups.len(),
        ..GroupingStats::default()
    };
    publish_audited(db, sensitive, &is_sensitive, Grouping::new(groups, stats), None, params)
}

/// Mondrian's groups, in the order of a depth-first walk of its cuts (the half with the item
/// first), each group's transactions in increasing order.
///
/// Cuts are mostly uneven (the most balanced item is often not admissible, and a sparse
/// partition's most frequent item is rare), so rescanning each half would cost the partition's
/// size per cut, quadratic along a run of small cuts. Instead a partition's counts and index
/// live on one [`Level`] of a stack: the half with the item is counted afresh one level down,
/// and the partition becomes the half without it by subtracting those counts. The index keeps
/// the rows that left (skipped as they are grouped by then) until they are half of it. Along
/// the walk a level is added per "with" cut, so the stack is at most one deeper than the
/// longest transaction.
fn mondrian_groups(db: &TransactionDb, is_sensitive: &[bool], p: usize) -> (Vec<Vec<u32>>, Walk) {
    let items = db.num_items();
    let mut grouped = vec![false; db.len()];
    let mut half = vec![0u32; items];
    let mut levels = vec![Level::new(items)];
    levels[0].build(db, is_sensitive, (0..db.len() as u32).collect());
    let mut depth = 0;
    let mut groups = Vec::new();
    let mut walk = Walk::default();
    loop {
        let level = &mut levels[depth];
        walk.compactions += usize::from(level.compact(db, is_sensitive, &grouped));
        match level.split(db, is_sensitive, p as u64, &grouped, &mut half, &mut walk) {
            Some(with) => {
                level.remove(db, is_sensitive, &with);
                depth += 1;
                if levels.len() == depth {
                    levels.push(Level::new(items));
                }
                levels[depth].build(db, is_sensitive, with);
                walk.deepest = walk.deepest.max(depth);
            }
            None => {
                let group = level.rows(&grouped);
                for &r in &group {
                    grouped[r as usize] = true;
                }
                groups.push(group);
                if depth == 0 {
                    return (groups, walk);
                }
                depth -= 1;
            }
        }
    }
}

/// What the walk did (for the tests that it took every path).
#[derive(Debug, Default)]
struct Walk {
    /// Levels re-indexed.
    compactions: usize,
    /// The deepest level used.
    deepest: usize,
    /// Cuts that tried more candidates than the first sorted ones.
    past_head: usize,
}

/// One partition of the walk: its rows, its QID items' counts and rows, its sensitive counts.
/// Counts are exact; the index may still hold rows that left the partition (all grouped).
struct Level {
    /// The rows indexed (ascending), some possibly grouped since.
    indexed: Vec<u32>,
    /// The partition's size now.
    n: u64,
    /// Per QID item, its count in the partition now.
    count: Vec<u32>,
    /// Per QID item, where its indexed rows start in `rows`, and how many were indexed.
    start: Vec<u32>,
    len: Vec<u32>,
    /// The indexed rows grouped by QID item.
    rows: Vec<u32>,
    /// Per sensitive item, its count in the partition now.
    total: Vec<u32>,
    /// The items with a count when indexed (QID, sensitive).
    touched: Vec<ItemId>,
    sensitive_touched: Vec<ItemId>,
}

impl Level {
    fn new(items: usize) -> Self {
        Self {
            indexed: Vec::new(),
            n: 0,
            count: vec![0; items],
            start: vec![0; items],
            len: vec![0; items],
            rows: Vec::new(),
            total: vec![0; items],
            touched: Vec::new(),
            sensitive_touched: Vec::new(),
        }
    }

    /// Counts and indexes the partition of rows `part` (ascending).
    fn build(&mut self, db: &TransactionDb, is_sensitive: &[bool], part: Vec<u32>) {
        for &i in &self.touched {
            self.count[i as usize] = 0;
        }
        for &s in &self.sensitive_touched {
            self.total[s as usize] = 0;
        }
        self.touched.clear();
        self.sensitive_touched.clear();
        for &r in &part {
            for &i in db.transaction(r as usize) {
                let i_ = i as usize;
                if is_sensitive[i_] {
                    if self.total[i_] == 0 {
                        self.sensitive_touched.push(i);
                    }
                    self.total[i_] += 1;
                } else {
                    if self.count[i_] == 0 {
                        self.touched.push(i);
                    }
                    self.count[i_] += 1;
                }
            }
        }
        let mut at = 0;
        for &i in &self.touched {
            self.start[i as usize] = at;
            self.len[i as usize] = 0;
            at += self.count[i as usize];
        }
        self.rows.clear();
        self.rows.resize(at as usize, 0);
        for &r in &part {
            for &i in db.transaction(r as usize) {
                let i_ = i as usize;
                if !is_sensitive[i_] {
                    self.rows[(self.start[i_] + self.len[i_]) as usize] = r;
                    self.len[i_] += 1;
                }
            }
        }
        self.n = part.len() as u64;
        self.indexed = part;
    }

    /// Re-indexes the partition once the rows that left it are half of the index; whether it
    /// did.
    fn compact(&mut self, db: &TransactionDb, is_sensitive: &[bool], grouped: &[bool]) -> bool {
        let stale = self.n * 2 < self.indexed.len() as u64;
        if stale {
            let part = self.rows(grouped);
            self.build(db, is_sensitive, part);
        }
        stale
    }

    /// The partition's rows, ascending.
    fn rows(&self, grouped: &[bool]) -> Vec<u32> {
        self.indexed.iter().copied().filter(|&r| !grouped[r as usize]).collect()
    }

    /// The partition's rows holding QID item `item`, ascending.
    fn holding<'a>(&'a self, item: ItemId, grouped: &'a [bool]) -> impl Iterator<Item = u32> + 'a {
        let from = self.start[item as usize] as usize;
        self.rows[from..from + self.len[item as usize] as usize]
            .iter()
            .copied()
            .filter(|&r| !grouped[r as usize])
    }

    /// The most balanced admissible cut: the rows holding its item.
    ///
    /// Each item tried costs its indexed rows; the other half's sensitive counts are the
    /// totals minus its.
    fn split(
        &self,
        db: &TransactionDb,
        is_sensitive: &[bool],
        p: u64,
        grouped: &[bool],
        half: &mut [u32],
        walk: &mut Walk,
    ) -> Option<Vec<u32>> {
        let n = self.n;
        if n < 2 {
            return None;
        }
        // Items that split, most balanced first (distance of 2·count from n), then by id.
        let mut candidates: Vec<(u64, ItemId)> = self
            .touched
            .iter()
            .map(|&i| (u64::from(self.count[i as usize]), i))
            .filter(|&(c, _)| 0 < c && c < n)
            .map(|(c, i)| ((2 * c).abs_diff(n), i))
            .collect();
        // Usually one of the first few is admissible: those are sorted first (the smallest
        // selected), the rest only when none is. Keys are distinct (by id), so the order is
        // that of one full sort.
        let head = candidates.len().min(16);
        if head > 0 && head < candidates.len() {
            candidates.select_nth_unstable(head - 1);
        }
        candidates[..head].sort_unstable();
        let mut sorted_rest = false;
        for k in 0..candidates.len() {
            if k == head && !sorted_rest {
                candidates[head..].sort_unstable();
                sorted_rest = true;
                walk.past_head += 1;
            }
            let item = candidates[k].1;
            let with_n = u64::from(self.count[item as usize]);
            for r in self.holding(item, grouped) {
                for &i in db.transaction(r as usize) {
                    if is_sensitive[i as usize] {
                        half[i as usize] += 1;
                    }
                }
            }
            let ok = self.sensitive_touched.iter().all(|&s| {
                let (h, t) = (u64::from(half[s as usize]), u64::from(self.total[s as usize]));
                h * p <= with_n && (t - h) * p <= n - with_n
            });
            for &s in &self.sensitive_touched {
                half[s as usize] = 0;
            }
            if ok {
                return Some(self.holding(item, grouped).collect());
            }
        }
        None
    }

    /// The partition without `rows` (which are in it).
    fn remove(&mut self, db: &TransactionDb, is_sensitive: &[bool], rows: &[u32]) {
        for &r in rows {
            for &i in db.transaction(r as usize) {
                if is_sensitive[i as usize] {
                    self.total[i as usize] -= 1;
                } else {
                    self.count[i as usize] -= 1;
                }
            }
        }
        self.n -= rows.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CahdParams;

    /// The straightforward Mondrian, from the definition: each partition's items counted
    /// afresh, cut on the most balanced admissible item (then the smaller id), the half with
    /// the item walked first. The reference the level stack must agree with, group for group
    /// and in order.
    fn reference_groups(db: &TransactionDb, is_sensitive: &[bool], p: usize) -> Vec<Vec<u32>> {
        let holds = |r: u32, i: ItemId| db.transaction(r as usize).contains(&i);
        let private = |g: &[u32]| {
            (0..db.num_items() as ItemId)
                .filter(|&s| is_sensitive[s as usize])
                .all(|s| g.iter().filter(|&&r| holds(r, s)).count() * p <= g.len())
        };
        let mut groups = Vec::new();
        let mut pending = vec![(0..db.len() as u32).collect::<Vec<u32>>()];
        while let Some(part) = pending.pop() {
            let n = part.len();
            let mut items: Vec<ItemId> = part
                .iter()
                .flat_map(|&r| db.transaction(r as usize).iter().copied())
                .filter(|&i| !is_sensitive[i as usize])
                .collect();
            items.sort_unstable();
            items.dedup();
            let mut candidates: Vec<(usize, ItemId)> = items
                .into_iter()
                .map(|i| (part.iter().filter(|&&r| holds(r, i)).count(), i))
                .filter(|&(c, _)| c < n)
                .map(|(c, i)| ((2 * c).abs_diff(n), i))
                .collect();
            candidates.sort_unstable();
            let cut = candidates
                .into_iter()
                .map(|(_, i)| part.iter().partition::<Vec<u32>, _>(|&&r| holds(r, i)))
                .find(|(with, without)| private(with) && private(without));
            match cut {
                Some((with, without)) if n >= 2 => {
                    pending.push(without);
                    pending.push(with);
                }
                _ => groups.push(part),
            }
        }
        groups
    }

    #[test]
    fn groups_are_private_cover_every_transaction_and_split_on_the_qid() {
        let db = TransactionDb::from_int_transactions([
            vec![1, 2, 9],
            vec![1, 2],
            vec![1, 2],
            vec![1, 2, 9],
            vec![3, 4],
            vec![3, 4, 9],
            vec![3, 4],
            vec![3, 4],
        ]);
        let nine = db.labels().find("9").unwrap();
        let params = CahdParams::new(2).seed(Some(1)).check().unwrap();
        let a = perm_mondrian(&db, &[nine], &params).unwrap();
        assert_eq!(a.grouping.groups().iter().map(Vec::len).sum::<usize>(), 8);
        for g in a.grouping.groups() {
            let nines = g.iter().filter(|&&r| db.transaction(r as usize).contains(&nine)).count();
            assert!(nines * 2 <= g.len(), "group {g:?} holds 9 {nines} times");
        }
        assert!(a.grouping.groups().len() >= 2, "the first split (items 1 vs 3) is admissible");
        assert!(a.audit.achieved >= 2.0);
    }

    proptest::proptest! {
        /// Brute force over the groups: a partition of the input, each group private, and no
        /// group that one QID item could still split into two private halves (Mondrian stops
        /// only when no admissible cut is left).
        #[test]
        fn groups_partition_are_private_and_cannot_be_cut_further(
            rows in proptest::collection::vec(proptest::collection::btree_set(0u32..7, 0..5), 4..24),
            p in 2usize..4,
        ) {
            let db = TransactionDb::from_int_transactions(
                rows.iter().map(|r| r.iter().copied().collect::<Vec<_>>()),
            );
            // Item 0 (when present) is the sensitive one.
            let Some(s) = db.labels().find("0") else { return Ok(()) };
            let params = CahdParams::new(p).seed(Some(3)).check().unwrap();
            let private = |g: &[u32]| {
                let c = g.iter().filter(|&&r| db.transaction(r as usize).contains(&s)).count();
                !g.is_empty() && c * p <= g.len()
            };
            match perm_mondrian(&db, &[s], &params) {
                Err(CahdError::Infeasible { .. }) => {
                    let all: Vec<u32> = (0..db.len() as u32).collect();
                    proptest::prop_assert!(!private(&all));
                }
                Err(e) => proptest::prop_assert!(false, "{e}"),
                Ok(a) => {
                    let is_sensitive: Vec<bool> =
                        (0..db.num_items() as ItemId).map(|i| i == s).collect();
                    proptest::prop_assert_eq!(
                        a.grouping.groups(),
                        &reference_groups(&db, &is_sensitive, p)[..]
                    );
                    let mut seen: Vec<u32> = a.grouping.groups().concat();
                    seen.sort_unstable();
                    proptest::prop_assert_eq!(seen, (0..db.len() as u32).collect::<Vec<_>>());
                    for g in a.grouping.groups() {
                        proptest::prop_assert!(private(g));
                        for item in 0..db.num_items() as ItemId {
                            if item == s {
                                continue;
                            }
                            let (with, without): (Vec<u32>, Vec<u32>) = g
                                .iter()
                                .partition(|&&r| db.transaction(r as usize).contains(&item));
                            proptest::prop_assert!(
                                !(private(&with) && private(&without)),
                                "item {} still cuts {:?}", item, g
                            );
                        }
                    }
                }
            }
        }
    }

    /// The level stack against the straightforward walk: the same groups in the same order,
    /// on Quest data with sensitive items of several supports and privacy degrees; the walks
    /// went several levels deep, re-indexed partitions and tried past the first candidates.
    #[test]
    fn the_level_stack_walks_as_the_reference() {
        let (mut compactions, mut deepest, mut past_head, mut cases) = (0, 0, 0, 0);
        for (seed, avg, items) in [(1, 3.0, 200), (2, 6.0, 100), (3, 10.0, 400)] {
            let db = txanon_data::QuestParams::new(1_500, avg, 2.0, items)
                .seed(seed)
                .check()
                .unwrap()
                .generate();
            for (k, p) in [(5, 2), (10, 4), (20, 8)] {
                let sensitive = txanon_data::random_items(&db, k, seed).unwrap();
                let mut is_sensitive = vec![false; db.num_items()];
                for &s in &sensitive {
                    is_sensitive[s as usize] = true;
                }
                let (groups, walk) = mondrian_groups(&db, &is_sensitive, p);
                assert_eq!(groups, reference_groups(&db, &is_sensitive, p), "seed {seed} p {p}");
                compactions += walk.compactions;
                deepest = deepest.max(walk.deepest);
                past_head += walk.past_head;
                cases += 1;
            }
        }
        assert_eq!(cases, 9);
        assert!(
            compactions >= 100 && deepest >= 5 && past_head >= 10,
            "{compactions} compactions, {deepest} deep, {past_head} cuts past the first candidates"
        );
    }

    #[test]
    fn an_infeasible_degree_is_refused() {
        let db = TransactionDb::from_int_transactions([vec![1, 9], vec![2, 9], vec![3]]);
        let nine = db.labels().find("9").unwrap();
        let params = CahdParams::new(2).check().unwrap();
        assert!(matches!(perm_mondrian(&db, &[nine], &params), Err(CahdError::Infeasible { .. })));
    }
}
