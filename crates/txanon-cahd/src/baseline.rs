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
/// Per partition, a count of its QID items (`O(Σ|t|)` over its transactions) and, per item
/// tried, the sensitive counts of its half (`O(support in the partition)`); with balanced
/// splits, `O(Σ|t| · log n)` overall, and the items tried in the worst case on top.
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
    let mut splitter = Splitter::new(db, &is_sensitive, params.p());
    let mut groups = Vec::new();
    let mut pending = vec![(0..db.len() as u32).collect::<Vec<u32>>()];
    while let Some(part) = pending.pop() {
        match splitter.split(&part) {
            Some((with, without)) => {
                pending.push(without);
                pending.push(with);
            }
            None => groups.push(part),
        }
    }
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

/// Scratch counters reused across partitions.
struct Splitter<'a> {
    db: &'a TransactionDb,
    is_sensitive: &'a [bool],
    p: u64,
    /// Per QID item, its count in the current partition.
    count: Vec<u64>,
    /// Per QID item, where its rows start in `rows` (for the partition's items).
    start: Vec<usize>,
    /// Per QID item, where its next row goes while the index fills.
    cursor: Vec<usize>,
    /// The partition's rows grouped by QID item.
    rows: Vec<u32>,
    /// Per sensitive item, its count in the partition, and in the half being tried.
    total: Vec<u64>,
    half: Vec<u64>,
    touched: Vec<ItemId>,
    sensitive_touched: Vec<ItemId>,
}

impl<'a> Splitter<'a> {
    fn new(db: &'a TransactionDb, is_sensitive: &'a [bool], p: usize) -> Self {
        let items = db.num_items();
        Self {
            db,
            is_sensitive,
            p: p as u64,
            count: vec![0; items],
            start: vec![0; items],
            cursor: vec![0; items],
            rows: Vec::new(),
            total: vec![0; items],
            half: vec![0; items],
            touched: Vec::new(),
            sensitive_touched: Vec::new(),
        }
    }

    /// The most balanced admissible split of `part`: (transactions with the item, without).
    ///
    /// Each item tried costs its support in the partition: its rows come from an inverted
    /// index of the partition, and the other half's sensitive counts are the totals minus its.
    fn split(&mut self, part: &[u32]) -> Option<(Vec<u32>, Vec<u32>)> {
        let n = part.len() as u64;
        if n < 2 {
            return None;
        }
        for &r in part {
            for &i in self.db.transaction(r as usize) {
                let i_ = i as usize;
                if self.is_sensitive[i_] {
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
        // The partition's inverted index over its QID items.
        let mut at = 0;
        for &i in &self.touched {
            self.start[i as usize] = at;
            at += self.count[i as usize] as usize;
        }
        self.rows.clear();
        self.rows.resize(at, 0);
        for &i in &self.touched {
            self.cursor[i as usize] = self.start[i as usize];
        }
        for &r in part {
            for &i in self.db.transaction(r as usize) {
                if !self.is_sensitive[i as usize] {
                    self.rows[self.cursor[i as usize]] = r;
                    self.cursor[i as usize] += 1;
                }
            }
        }
        // Items that split, most balanced first (distance of 2·count from n), then by id.
        let mut candidates: Vec<(u64, ItemId)> = self
            .touched
            .iter()
            .map(|&i| (self.count[i as usize], i))
            .filter(|&(c, _)| c < n)
            .map(|(c, i)| ((2 * c).abs_diff(n), i))
            .collect();
        candidates.sort_unstable();
        let mut chosen = None;
        for &(_, item) in &candidates {
            let (from, with_n) = (self.start[item as usize], self.count[item as usize]);
            let with = &self.rows[from..from + with_n as usize];
            for &r in with {
                for &i in self.db.transaction(r as usize) {
                    if self.is_sensitive[i as usize] {
                        self.half[i as usize] += 1;
                    }
                }
            }
            let p = self.p;
            let ok = self.sensitive_touched.iter().all(|&s| {
                let (h, t) = (self.half[s as usize], self.total[s as usize]);
                h * p <= with_n && (t - h) * p <= n - with_n
            });
            for &s in &self.sensitive_touched {
                self.half[s as usize] = 0;
            }
            if ok {
                chosen = Some(item);
                break;
            }
        }
        let result = chosen.map(|item| {
            let (from, len) = (self.start[item as usize], self.count[item as usize] as usize);
            let mut with = self.rows[from..from + len].to_vec();
            with.sort_unstable();
            let without = part.iter().copied().filter(|r| with.binary_search(r).is_err()).collect();
            (with, without)
        });
        for &i in &self.touched {
            self.count[i as usize] = 0;
        }
        for &s in &self.sensitive_touched {
            self.total[s as usize] = 0;
        }
        self.touched.clear();
        self.sensitive_touched.clear();
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CahdParams;

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

    #[test]
    fn an_infeasible_degree_is_refused() {
        let db = TransactionDb::from_int_transactions([vec![1, 9], vec![2, 9], vec![3]]);
        let nine = db.labels().find("9").unwrap();
        let params = CahdParams::new(2).check().unwrap();
        assert!(matches!(perm_mondrian(&db, &[nine], &params), Err(CahdError::Infeasible { .. })));
    }
}
