//! What every family's audit shares: a bounded list of typed violations, the exact
//! comparison of a count's share with a bound given as a float, and the comparison of two
//! multisets of rows (a publication's transactions against what the original says they must
//! be).
//!
//! An audit reports violations, not the first one only, so that whoever reads a failed audit
//! sees the extent of the damage; it stops after [`MAX_VIOLATIONS`] of them, since a tampered
//! file may break its guarantee millions of times.

use std::fmt;

use rayon::prelude::*;

/// How many violations an audit lists before it stops looking.
pub const MAX_VIOLATIONS: usize = 20;

/// An audit that failed: the violations found, each a family's own typed value naming what
/// failed and where, in the order found; `truncated` when the audit stopped at
/// [`MAX_VIOLATIONS`].
#[derive(Debug, Clone, PartialEq)]
pub struct Violations<V> {
    list: Vec<V>,
    truncated: bool,
}

impl<V> Violations<V> {
    /// The violations found (at least one).
    pub fn list(&self) -> &[V] {
        &self.list
    }

    /// The first violation.
    pub fn first(&self) -> &V {
        &self.list[0]
    }

    /// True when the audit stopped looking after [`MAX_VIOLATIONS`].
    pub fn truncated(&self) -> bool {
        self.truncated
    }
}

impl<V: fmt::Display> fmt::Display for Violations<V> {
    /// The first five violations, one per line after the first, and how many more there are.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 5;
        let more = if self.truncated { "or more " } else { "" };
        write!(f, "{} {more}violation(s)", self.list.len())?;
        for v in self.list.iter().take(SHOWN) {
            write!(f, "\n  - {v}")?;
        }
        if self.list.len() > SHOWN {
            let at_least = if self.truncated { "at least " } else { "" };
            write!(f, "\n  - … and {at_least}{} more", self.list.len() - SHOWN)?;
        }
        Ok(())
    }
}

/// Collects the violations of one audit.
#[derive(Debug)]
pub struct ViolationLog<V> {
    list: Vec<V>,
    truncated: bool,
}

impl<V> Default for ViolationLog<V> {
    fn default() -> Self {
        Self { list: Vec::new(), truncated: false }
    }
}

impl<V> ViolationLog<V> {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `violation`; false once the log is full, when the audit should stop looking.
    pub fn push(&mut self, violation: V) -> bool {
        if self.list.len() < MAX_VIOLATIONS {
            self.list.push(violation);
            true
        } else {
            self.truncated = true;
            false
        }
    }

    /// Records `other`'s violations after this log's, as far as they fit (a part of an audit
    /// run on its own thread, joined in the order one sequential audit would have found them).
    pub fn append(&mut self, other: ViolationLog<V>) {
        self.truncated |= other.truncated;
        for v in other.list {
            if !self.push(v) {
                break;
            }
        }
    }

    /// True when the log holds [`MAX_VIOLATIONS`] violations: looking further is wasted work.
    pub fn is_full(&self) -> bool {
        self.list.len() >= MAX_VIOLATIONS
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// `Ok(report)` when nothing was recorded, the violations otherwise.
    ///
    /// # Errors
    /// The violations recorded.
    pub fn finish<R>(self, report: R) -> Result<R, Violations<V>> {
        if self.list.is_empty() {
            Ok(report)
        } else {
            Err(Violations { list: self.list, truncated: self.truncated })
        }
    }

    /// Stops the audit with what has been recorded so far, when anything has: for a check
    /// whose failure makes the later ones meaningless (a malformed structure).
    ///
    /// # Errors
    /// The violations recorded.
    pub fn stop_if_any(&mut self) -> Result<(), Violations<V>> {
        if self.list.is_empty() {
            Ok(())
        } else {
            Err(Violations { list: std::mem::take(&mut self.list), truncated: self.truncated })
        }
    }
}

/// Whether `count / total > bound`, decided exactly in integers, reading `bound` as the decimal
/// it prints as (Rust's shortest form that reads back as the same `f64`: `0.3` is 3/10, not the
/// binary double just below it). So a share equal to the bound the user typed never exceeds
/// it, and no rounding of `count as f64 / total as f64` can let a share just above it pass. A
/// `total` of 0 exceeds nothing.
///
/// # Panics
/// When `bound` is negative, infinite or NaN (a claim's constructor rules those out).
pub fn share_exceeds(count: u64, total: u64, bound: f64) -> bool {
    assert!(bound.is_finite() && bound >= 0.0, "a share bound is finite and non-negative");
    if total == 0 {
        return false;
    }
    if bound == 0.0 {
        return count > 0;
    }
    // `{:e}` prints the shortest round-trip digits: `3e-1`, `1.25e0`.
    let text = format!("{bound:e}");
    let (mantissa, exponent) = text.split_once('e').expect("`{:e}` has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let fraction_digits = mantissa.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
    let digits: u128 = mantissa.replace('.', "").parse().expect("at most 17 digits");
    // bound = digits · 10^power.
    let power = exponent - fraction_digits;
    let right = digits * u128::from(total);
    if power >= 0 {
        // count > digits · total · 10^power; a right side beyond u128 is beyond any count.
        match 10u128.checked_pow(power as u32).and_then(|scale| right.checked_mul(scale)) {
            Some(right) => u128::from(count) > right,
            None => false,
        }
    } else {
        // count · 10^(−power) > digits · total; a left side beyond u128 (with count > 0)
        // exceeds the right side, which fits.
        match 10u128
            .checked_pow(power.unsigned_abs())
            .and_then(|s| u128::from(count).checked_mul(s))
        {
            Some(left) => left > right,
            None => count > 0,
        }
    }
}

/// A multiset of rows of `u32` codes (item ids, or whatever one code space both sides of a
/// comparison share), each row sorted as it is pushed: compressed rows, no allocation per row.
#[derive(Debug, Clone, Default)]
pub struct RowMultiset {
    items: Vec<u32>,
    ends: Vec<usize>,
}

impl RowMultiset {
    /// An empty multiset.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one row (its codes in any order; duplicates kept).
    pub fn push(&mut self, row: impl IntoIterator<Item = u32>) {
        let from = self.items.len();
        self.items.extend(row);
        self.items[from..].sort_unstable();
        self.ends.push(self.items.len());
    }

    /// The multiset of rows `0..len`, row `r` the codes `fill(r, row)` appends to `row` (in any
    /// order; duplicates kept), filled in chunks on rayon.
    pub fn from_rows(len: usize, fill: impl Fn(usize, &mut Vec<u32>) + Sync) -> Self {
        const CHUNK: usize = 1 << 14;
        let chunks: Vec<Self> = (0..len.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let mut chunk = Self::new();
                let mut row = Vec::new();
                for r in c * CHUNK..len.min((c + 1) * CHUNK) {
                    row.clear();
                    fill(r, &mut row);
                    chunk.push(row.iter().copied());
                }
                chunk
            })
            .collect();
        let mut all = Self::new();
        all.items.reserve(chunks.iter().map(|c| c.items.len()).sum());
        all.ends.reserve(len);
        for chunk in chunks {
            let base = all.items.len();
            all.items.extend_from_slice(&chunk.items);
            all.ends.extend(chunk.ends.iter().map(|&e| base + e));
        }
        all
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no row was pushed.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Row `r`, sorted.
    pub fn row(&self, r: usize) -> &[u32] {
        let from = if r == 0 { 0 } else { self.ends[r - 1] };
        &self.items[from..self.ends[r]]
    }
}

/// Rows of `u32` codes, each sorted ascending, that a comparison reads where they are: a
/// [`RowMultiset`], or a publication's [`TransactionDb`](crate::TransactionDb) as it was read
/// (its ids its own codes), with no copy.
pub trait SortedRows: Sync {
    /// The number of rows.
    fn count(&self) -> usize;

    /// Row `r`, sorted.
    fn sorted_row(&self, r: usize) -> &[u32];
}

impl SortedRows for RowMultiset {
    fn count(&self) -> usize {
        self.len()
    }

    fn sorted_row(&self, r: usize) -> &[u32] {
        self.row(r)
    }
}

impl SortedRows for crate::TransactionDb {
    fn count(&self) -> usize {
        self.len()
    }

    fn sorted_row(&self, r: usize) -> &[u32] {
        self.transaction(r)
    }
}

/// Rows in one total order (a 64-bit hash of the row, then the row itself), with their
/// hashes: two multisets are equal exactly when their orders name equal rows in turn. The hash
/// only spreads the order (whole rows are compared when hashes tie), so it cannot make two
/// different rows equal. Made once, it serves both an audit's distinct rows
/// ([`RowOrder::distinct`]) and its comparison with the original ([`unmatched_rows_in_order`]).
#[derive(Debug, Clone)]
pub struct RowOrder {
    keys: Vec<(u64, u32)>,
}

impl RowOrder {
    /// The order of `rows` (sorted on rayon).
    ///
    /// # Panics
    /// With more than 2³² − 1 rows.
    pub fn of(rows: &impl SortedRows) -> Self {
        Self { keys: sorted_by_hash(rows.count(), |r| rows.sorted_row(r)) }
    }

    /// [`distinct_rows`] of `rows`, which must be the rows this order was made of.
    pub fn distinct(&self, rows: &impl SortedRows) -> Vec<(u32, u64)> {
        distinct_in_order(&self.keys, |r| rows.sorted_row(r))
    }
}

/// Rows `0..len` (each sorted) in [`RowMultiset`]'s total order: a 64-bit hash of the row, then
/// the row itself; with the hashes. Equal rows are adjacent.
fn sorted_by_hash<'r>(len: usize, row: impl Fn(usize) -> &'r [u32] + Sync) -> Vec<(u64, u32)> {
    let mut keys = by_hash(len, &row);
    hash_parts(&mut keys).into_par_iter().for_each(|part| {
        for one_hash in part.chunk_by_mut(|a, b| a.0 == b.0) {
            order_one_hash(one_hash, &row);
        }
    });
    keys
}

/// `keys` (sorted by hash) cut into about four parts per thread, each cut where the hash
/// changes, so that a part holds whole runs of one hash: the runs are ordered on rayon (each
/// repeated row read is a cache miss at scale, a second of one core at 10⁷ transactions).
fn hash_parts(keys: &mut [(u64, u32)]) -> Vec<&mut [(u64, u32)]> {
    let target = keys.len().div_ceil(4 * rayon::current_num_threads()).max(1 << 12);
    let mut parts = Vec::new();
    let mut rest = keys;
    while rest.len() > target {
        let hash = rest[target - 1].0;
        let cut = target + rest[target..].partition_point(|k| k.0 == hash);
        let (part, tail) = rest.split_at_mut(cut);
        parts.push(part);
        rest = tail;
    }
    parts.push(rest);
    parts
}

/// Rows `0..len` with the [`row_hash`](crate::row_hash) of each, sorted by hash alone (on
/// rayon): equal rows share a hash, a hash may name several rows.
fn by_hash<'r>(len: usize, row: impl Fn(usize) -> &'r [u32] + Sync) -> Vec<(u64, u32)> {
    assert!(u32::try_from(len).is_ok(), "more than 2³² − 1 rows");
    let mut keys: Vec<(u64, u32)> =
        (0..len).into_par_iter().map(|r| (crate::row_hash(row(r)), r as u32)).collect();
    keys.par_sort_unstable_by_key(|k| k.0);
    keys
}

/// Orders the rows of one hash (`keys`) by row, only where they differ: returns whether they
/// are all one row. Such a run is almost always one row repeated (a publication's thousands of
/// empty or equal transactions), which costs one comparison per copy instead of a sort's by
/// row; a lone row is not read at all (at millions of rows each read is a cache miss).
fn order_one_hash<'r>(keys: &mut [(u64, u32)], row: impl Fn(usize) -> &'r [u32]) -> bool {
    let [first, rest @ ..] = &*keys else { return true };
    let first = row(first.1 as usize);
    if rest.iter().all(|k| row(k.1 as usize) == first) {
        return true;
    }
    keys.sort_unstable_by(|a, b| row(a.1 as usize).cmp(row(b.1 as usize)));
    false
}

/// Runs of equal rows, their indices in one array: what [`unmatched_rows_and_runs`] returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EqualRuns {
    rows: Vec<u32>,
    /// Where each run ends in `rows`.
    ends: Vec<u32>,
}

impl EqualRuns {
    /// How many runs.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// No run (no row).
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The runs, each the indices of its rows.
    pub fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| &self.rows[start as usize..end as usize])
    }

    /// Run `j`, the indices of its rows.
    pub fn run(&self, j: usize) -> &[u32] {
        let start = if j == 0 { 0 } else { self.ends[j - 1] as usize };
        &self.rows[start..self.ends[j] as usize]
    }

    /// Appends `other`'s runs after these.
    fn append(&mut self, other: Self) {
        let base = self.rows.len() as u32;
        self.rows.extend(other.rows);
        self.ends.extend(other.ends.iter().map(|&end| base + end));
    }
}

/// The distinct rows among rows `0..len` (each sorted): the index of each one's first
/// occurrence, with how many of the rows equal it, in order of first occurrence (rows stored in
/// that order are then read in ascending addresses). Sorted by hash on rayon, with no map of
/// rows.
///
/// # Panics
/// With more than 2³² − 1 rows.
pub fn distinct_rows<'r>(len: usize, row: impl Fn(usize) -> &'r [u32] + Sync) -> Vec<(u32, u64)> {
    distinct_of_keys(by_hash(len, &row), row)
}

/// [`distinct_rows`] from the rows' keys sorted by hash alone ([`by_hash`]).
fn distinct_of_keys<'r>(
    mut keys: Vec<(u64, u32)>,
    row: impl Fn(usize) -> &'r [u32] + Sync,
) -> Vec<(u32, u64)> {
    // Each run of one hash ordered and counted in one pass, on rayon: a run of one row (almost
    // every run) is read once, where ordering the runs and then comparing neighbours read
    // every repeated row twice.
    let first = |same: &[(u64, u32)]| same.iter().map(|k| k.1).min().expect("a run has a row");
    let parts: Vec<Vec<(u32, u64)>> = hash_parts(&mut keys)
        .into_par_iter()
        .map(|part| {
            let mut out = Vec::new();
            for one_hash in part.chunk_by_mut(|a, b| a.0 == b.0) {
                if order_one_hash(one_hash, &row) {
                    out.push((first(one_hash), one_hash.len() as u64));
                } else {
                    for same in one_hash.chunk_by(|a, b| row(a.1 as usize) == row(b.1 as usize)) {
                        out.push((first(same), same.len() as u64));
                    }
                }
            }
            out
        })
        .collect();
    let mut out = parts.concat();
    out.par_sort_unstable();
    out
}

/// [`distinct_rows`] from the rows' keys in [`RowOrder`]'s order.
fn distinct_in_order<'r>(
    sorted: &[(u64, u32)],
    row: impl Fn(usize) -> &'r [u32],
) -> Vec<(u32, u64)> {
    let mut out: Vec<(u32, u64)> = Vec::new();
    for (j, &(hash, r)) in sorted.iter().enumerate() {
        let (previous_hash, previous) = if j > 0 { sorted[j - 1] } else { (!hash, 0) };
        if j > 0 && previous_hash == hash && row(previous as usize) == row(r as usize) {
            let group = out.last_mut().expect("a row before");
            group.0 = group.0.min(r);
            group.1 += 1;
        } else {
            out.push((r, 1));
        }
    }
    out.par_sort_unstable();
    out
}

/// A distinct row held a different number of times by the two multisets compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmatchedRow {
    /// The row, sorted.
    pub row: Vec<u32>,
    /// How many times the first multiset holds it.
    pub left: u64,
    /// How many times the second holds it.
    pub right: u64,
}

/// The distinct rows `left` and `right` hold a different number of times, at most `limit` of
/// them, sorted by row: empty exactly when the two multisets are equal. Both sides are sorted
/// by [`RowMultiset`]'s order (rayon) and merged in ranges of hashes on rayon, so the cost is
/// `O(R log R)` comparisons for `R` rows, with no hash map of rows (a map of `Vec` keys cost a
/// minute at ten million).
///
/// # Panics
/// With more than 2³² − 1 rows on a side.
pub fn unmatched_rows(
    left: &impl SortedRows,
    right: &impl SortedRows,
    limit: usize,
) -> Vec<UnmatchedRow> {
    let (a, b) = rayon::join(|| RowOrder::of(left), || RowOrder::of(right));
    unmatched_rows_in_order((left, &a), (right, &b), limit)
}

/// [`unmatched_rows`] with each side's [`RowOrder`] made already (each must be its rows').
pub fn unmatched_rows_in_order(
    left: (&impl SortedRows, &RowOrder),
    right: (&impl SortedRows, &RowOrder),
    limit: usize,
) -> Vec<UnmatchedRow> {
    merged(left, right, limit, None::<&fn(u32) -> bool>, 4 * rayon::current_num_threads()).0
}

/// [`unmatched_rows_in_order`], and the rows both sides share, run by run: for each distinct
/// row held by some left row `r` with `keep(r)`, one run of its left rows (as `r`) then its
/// right rows (as `left.count() + r`), in the orders' order. One merge finds both: an audit
/// that compares a publication with its original and then reads the rows they share reads
/// every row once (a second merge for the runs took 1.3 s at 10⁷ transactions).
///
/// # Panics
/// With more than 2³² − 1 rows on both sides together.
pub fn unmatched_rows_and_runs(
    left: (&impl SortedRows, &RowOrder),
    right: (&impl SortedRows, &RowOrder),
    limit: usize,
    keep: impl Fn(u32) -> bool + Sync,
) -> (Vec<UnmatchedRow>, EqualRuns) {
    merged(left, right, limit, Some(&keep), 4 * rayon::current_num_threads())
}

/// Both sides merged in about `pieces` ranges of hashes on rayon (tests compare counts): the
/// first `limit` unmatched rows, sorted by row, and with `keep` the runs of equal rows across.
fn merged<K: Fn(u32) -> bool + Sync>(
    (left, a): (&impl SortedRows, &RowOrder),
    (right, b): (&impl SortedRows, &RowOrder),
    limit: usize,
    keep: Option<&K>,
    pieces: usize,
) -> (Vec<UnmatchedRow>, EqualRuns) {
    let offset = keep.map(|_| {
        u32::try_from(left.count())
            .ok()
            .filter(|&n| u32::try_from(right.count()).is_ok_and(|m| n.checked_add(m).is_some()))
            .expect("at most 2³² − 1 rows on both sides together")
    });
    let (a, b) = (&a.keys, &b.keys);
    let found: Vec<(Vec<UnmatchedRow>, EqualRuns)> = hash_ranges(a, b, pieces)
        .into_par_iter()
        .map(|(in_a, in_b)| {
            let runs = keep.zip(offset);
            merge_range((&a[in_a], left), (&b[in_b], right), limit, runs)
        })
        .collect();
    let mut unmatched = Vec::new();
    let mut runs = EqualRuns::default();
    for (off, more) in found {
        unmatched.extend(off);
        runs.append(more);
    }
    unmatched.truncate(limit);
    unmatched.sort_unstable_by(|p, q| p.row.cmp(&q.row));
    (unmatched, runs)
}

/// Two sides' sorted keys cut into about `pieces` ranges of hashes, in order: at hashes of the
/// left side's quantiles, so that a row's copies on both sides, which share a hash, fall in
/// one range, and the ranges in turn are the order of one merge.
fn hash_ranges(
    a: &[(u64, u32)],
    b: &[(u64, u32)],
    pieces: usize,
) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let mut cuts: Vec<u64> =
        (1..pieces.max(1)).filter_map(|p| a.get(p * a.len() / pieces).map(|k| k.0)).collect();
    cuts.dedup();
    let bounds = |keys: &[(u64, u32)]| -> Vec<usize> {
        let mut at = vec![0];
        at.extend(cuts.iter().map(|&c| keys.partition_point(|k| k.0 < c)));
        at.push(keys.len());
        at
    };
    let (in_a, in_b) = (bounds(a), bounds(b));
    (0..in_a.len() - 1).map(|p| (in_a[p]..in_a[p + 1], in_b[p]..in_b[p + 1])).collect()
}

/// One range of both sides' sorted keys merged: its first `limit` unmatched rows, in merge
/// order; and with `runs` (`keep` and the right side's offset), its runs of equal rows across,
/// for which the merge goes on past the limit while left rows remain.
fn merge_range<K: Fn(u32) -> bool>(
    (a, left): (&[(u64, u32)], &impl SortedRows),
    (b, right): (&[(u64, u32)], &impl SortedRows),
    limit: usize,
    runs: Option<(&K, u32)>,
) -> (Vec<UnmatchedRow>, EqualRuns) {
    let key_a = |x: usize| (a[x].0, left.sorted_row(a[x].1 as usize));
    let key_b = |y: usize| (b[y].0, right.sorted_row(b[y].1 as usize));
    let (mut x, mut y) = (0, 0);
    let mut out = Vec::new();
    let mut shared = EqualRuns::default();
    loop {
        let listing = out.len() < limit;
        if !((x < a.len() && (listing || runs.is_some())) || (y < b.len() && listing)) {
            break;
        }
        // The next distinct row of either side, and how many times each side holds it.
        let next = match (x < a.len(), y < b.len()) {
            (true, true) => key_a(x).min(key_b(y)),
            (true, false) => key_a(x),
            _ => key_b(y),
        };
        let (from_x, from_y) = (x, y);
        while x < a.len() && key_a(x) == next {
            x += 1;
        }
        while y < b.len() && key_b(y) == next {
            y += 1;
        }
        let (on_left, on_right) = ((x - from_x) as u64, (y - from_y) as u64);
        if on_left != on_right && listing {
            out.push(UnmatchedRow { row: next.1.to_vec(), left: on_left, right: on_right });
        }
        if let Some((keep, offset)) = runs
            && a[from_x..x].iter().any(|k| keep(k.1))
        {
            shared.rows.extend(a[from_x..x].iter().map(|k| k.1));
            shared.rows.extend(b[from_y..y].iter().map(|k| offset + k.1));
            shared.ends.push(shared.rows.len() as u32);
        }
    }
    (out, shared)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_logs_keep_their_order_and_the_limit() {
        let mut first = ViolationLog::new();
        first.push(0);
        let mut second = ViolationLog::new();
        for v in 1..=MAX_VIOLATIONS {
            second.push(v);
        }
        first.append(second);
        assert!(first.is_full());
        let found = first.finish(()).unwrap_err();
        assert_eq!(found.list(), (0..MAX_VIOLATIONS).collect::<Vec<_>>());
        assert!(found.truncated(), "the last violation did not fit");
    }

    #[test]
    fn shares_compared_exactly() {
        assert!(!share_exceeds(1, 2, 0.5));
        assert!(share_exceeds(2, 3, 0.5));
        assert!(!share_exceeds(0, 3, 0.0));
        assert!(share_exceeds(1, u64::MAX, 0.0));
        assert!(!share_exceeds(5, 0, 0.1));
        assert!(!share_exceeds(u64::MAX, 1, 1e300));
        // 0.3 is the double just below 3/10, read as the decimal 0.3: 3 of 10 is not above.
        assert!(!share_exceeds(3, 10, 0.3));
        assert!(share_exceeds(3_000_000_001, 10_000_000_000, 0.3));
        assert!(!share_exceeds(1, 10, 0.1));
        // 1/3 prints as 0.3333333333333333: a third is above that decimal.
        assert!(share_exceeds(1, 3, 1.0 / 3.0));
        assert!(!share_exceeds(1, 4, 0.25));
        assert!(share_exceeds(1, 1 << 60, f64::MIN_POSITIVE));
        assert!(share_exceeds(u64::MAX, u64::MAX - 1, 1.0));
        assert!(!share_exceeds(u64::MAX, u64::MAX, 1.0));
    }

    /// Each run's indices, ascending (a run's order within is the sort's).
    fn each_run_sorted(runs: &EqualRuns) -> Vec<Vec<u32>> {
        runs.iter()
            .map(|run| {
                let mut run = run.to_vec();
                run.sort_unstable();
                run
            })
            .collect()
    }

    /// The runs across two sides are the classes of a map from row to indices, for the rows
    /// some kept left row holds: its left indices, then its right ones past the left side's
    /// count; the other rows in no run. Merged in several ranges (about eight on two
    /// threads) or in one, with unmatched rows listed up to a limit of one (which the merge
    /// goes past for the runs) or all: the same runs, and the unmatched rows the merge alone
    /// finds. Counts the cases with a run of several rows on both sides, and with a row left
    /// out though the left side holds it.
    #[test]
    fn equal_runs_across_are_the_classes_of_kept_rows() {
        use proptest::prelude::*;
        let rows = || prop::collection::vec(prop::collection::btree_set(0u32..4, 0..3), 0..200);
        let strategy = (rows(), rows(), prop::collection::vec(any::<bool>(), 200));
        use proptest::test_runner::{Config, TestRunner};
        let exercised = std::sync::atomic::AtomicU32::new(0);
        let mut runner = TestRunner::new(Config { cases: 128, ..Config::default() });
        let result = runner.run(&strategy, |(left, right, kept)| {
            let sorted = |rows: Vec<std::collections::BTreeSet<u32>>| {
                let mut multiset = RowMultiset::new();
                for row in rows {
                    multiset.push(row);
                }
                multiset
            };
            let (left, right) = (sorted(left), sorted(right));
            let orders = (RowOrder::of(&left), RowOrder::of(&right));
            let keep = |r: u32| kept[r as usize];
            let sides = ((&left, &orders.0), (&right, &orders.1));
            let (unmatched, runs) = unmatched_rows_and_runs(sides.0, sides.1, MAX_VIOLATIONS, keep);
            prop_assert_eq!(&unmatched, &unmatched_rows(&left, &right, MAX_VIOLATIONS));
            let (first, in_one) = merged(sides.0, sides.1, 1, Some(&keep), 1);
            prop_assert_eq!(&in_one, &runs);
            prop_assert_eq!(first.len(), unmatched.len().min(1));
            // By row: whether a left row holding it is kept, its left and its right indices.
            type Class = (bool, Vec<u32>, Vec<u32>);
            let mut expected: std::collections::BTreeMap<&[u32], Class> = Default::default();
            for (r, &kept) in kept.iter().enumerate().take(left.len()) {
                let class = expected.entry(left.row(r)).or_default();
                class.0 |= kept;
                class.1.push(r as u32);
            }
            for r in 0..right.len() {
                if let Some(class) = expected.get_mut(right.row(r)) {
                    class.2.push((left.len() + r) as u32);
                }
            }
            let mut expected: Vec<Vec<u32>> = expected
                .into_values()
                .filter(|class| class.0)
                .map(|(_, mut on_left, on_right)| {
                    on_left.extend(on_right);
                    on_left
                })
                .collect();
            expected.sort_unstable();
            let mut found = each_run_sorted(&runs);
            found.sort_unstable();
            prop_assert_eq!(&found, &expected);
            let both = runs.iter().any(|run| {
                let on_left = run.iter().filter(|&&r| (r as usize) < left.len()).count();
                on_left > 1 && run.len() > on_left + 1
            });
            let left_out =
                runs.iter().flatten().filter(|&&r| (r as usize) < left.len()).count() < left.len();
            if both && left_out {
                exercised.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(())
        });
        result.unwrap();
        // Counted over the passing run only (a failure panics above).
        let exercised = exercised.into_inner();
        assert!(
            exercised >= 32,
            "only {exercised} of 128 cases had runs of several rows on both sides and rows left out"
        );
    }

    /// Rows sharing a hash but not equal (a collision, made here by hand: every key hashed 7,
    /// ordered by row as `RowOrder` orders one hash) are split into runs by row, on both
    /// sides, and a row no kept left row holds is in none, whatever the limit on unmatched rows.
    #[test]
    fn rows_of_one_hash_are_split_across_sides_where_they_differ() {
        let multiset = |rows: &[&[u32]]| {
            let mut multiset = RowMultiset::new();
            for row in rows {
                multiset.push(row.iter().copied());
            }
            multiset
        };
        let left = multiset(&[&[1], &[2], &[1], &[3]]);
        let right = multiset(&[&[2], &[1], &[4], &[3]]);
        let order = |rows: &RowMultiset| {
            let mut keys: Vec<(u64, u32)> = (0..rows.len() as u32).map(|r| (7, r)).collect();
            keys.sort_by(|a, b| rows.row(a.1 as usize).cmp(rows.row(b.1 as usize)));
            RowOrder { keys }
        };
        let (a, b) = (order(&left), order(&right));
        let (unmatched, runs) = unmatched_rows_and_runs((&left, &a), (&right, &b), 1, |r| r != 3);
        // [1] is held twice on the left and once on the right, [4] on the right only: the
        // limit lists the first, and the merge goes on for the runs past it.
        assert_eq!(unmatched, vec![UnmatchedRow { row: vec![1], left: 2, right: 1 }]);
        // [1] at left 0 and 2, right 1 (4 + 1); [2] at left 1, right 0; [3] left out.
        assert_eq!(each_run_sorted(&runs), vec![vec![0, 2, 5], vec![1, 4]]);
    }

    #[test]
    fn log_stops_at_its_limit() {
        let mut log = ViolationLog::new();
        for i in 0..MAX_VIOLATIONS {
            assert!(log.push(i));
        }
        assert!(!log.push(99));
        let err = log.finish(()).unwrap_err();
        assert!(err.truncated());
        assert_eq!(err.list().len(), MAX_VIOLATIONS);
        assert!(err.to_string().starts_with("20 or more violation(s)"));
        assert!(err.to_string().ends_with("\n  - … and at least 15 more"), "{err}");
        let mut few = ViolationLog::new();
        for i in 0..7 {
            few.push(i);
        }
        let err = few.finish(()).unwrap_err();
        assert!(err.to_string().starts_with("7 violation(s)\n  - 0"));
        assert!(err.to_string().ends_with("\n  - 4\n  - … and 2 more"), "{err}");
        assert!(ViolationLog::<u8>::new().finish(7).is_ok());
    }

    proptest::proptest! {
        /// The merge finds exactly the rows a count per distinct row finds unequal, with their
        /// counts, whatever order the rows and their codes come in.
        #[test]
        fn unmatched_rows_are_those_counted_differently(
            left in proptest::collection::vec(proptest::collection::vec(0u32..4, 0..3), 0..30),
            right in proptest::collection::vec(proptest::collection::vec(0u32..4, 0..3), 0..30),
            limit in 1usize..40,
        ) {
            let mut counts: std::collections::BTreeMap<Vec<u32>, (u64, u64)> = Default::default();
            let (mut a, mut b) = (RowMultiset::new(), RowMultiset::new());
            for row in &left {
                a.push(row.iter().copied());
                let mut key = row.clone();
                key.sort_unstable();
                counts.entry(key).or_default().0 += 1;
            }
            for row in &right {
                b.push(row.iter().rev().copied());
                let mut key = row.clone();
                key.sort_unstable();
                counts.entry(key).or_default().1 += 1;
            }
            let expected: Vec<UnmatchedRow> = counts
                .into_iter()
                .filter(|(_, (l, r))| l != r)
                .map(|(row, (left, right))| UnmatchedRow { row, left, right })
                .collect();
            let found = unmatched_rows(&a, &b, limit);
            // Within the limit, the merge's order decides which are listed: each listed one is
            // one of the expected, and all are listed when they fit.
            proptest::prop_assert!(found.iter().all(|u| expected.contains(u)));
            proptest::prop_assert_eq!(found.len(), expected.len().min(limit));
            proptest::prop_assert_eq!(unmatched_rows(&a, &a, limit), Vec::new());
            // Merged in ranges, the same rows as in one merge.
            let (order_a, order_b) = (RowOrder::of(&a), RowOrder::of(&b));
            for pieces in [2, 5, 64] {
                proptest::prop_assert_eq!(
                    &merged((&a, &order_a), (&b, &order_b), limit, None::<&fn(u32) -> bool>, pieces).0,
                    &merged((&a, &order_a), (&b, &order_b), limit, None::<&fn(u32) -> bool>, 1).0
                );
            }
            // A database read in place compares as the multiset of its rows copied out.
            let db = crate::TransactionDb::from_int_transactions(
                left.iter().map(|row| row.iter().map(|&i| i + 7).collect::<Vec<u32>>()),
            );
            let copied = RowMultiset::from_rows(db.len(), |r, row| row.extend(db.transaction(r)));
            proptest::prop_assert_eq!(unmatched_rows(&db, &copied, limit), Vec::new());
            proptest::prop_assert_eq!(unmatched_rows(&db, &b, limit), unmatched_rows(&copied, &b, limit));
            proptest::prop_assert_eq!(RowOrder::of(&db).distinct(&db), distinct_rows(db.len(), |r| db.transaction(r)));
            // Filled in chunks, the same multiset.
            let filled = RowMultiset::from_rows(left.len(), |r, row| row.extend(left[r].iter().rev()));
            proptest::prop_assert_eq!(unmatched_rows(&filled, &a, limit), Vec::new());
            proptest::prop_assert_eq!(filled.len(), a.len());
        }

        /// Distinct rows are the rows a count per row finds, each once, with its count.
        /// (`distinct_of_keys_orders_runs_of_several_rows` forces shared hashes and parts.)
        #[test]
        fn distinct_rows_are_counted_rows(
            rows in proptest::collection::vec(proptest::collection::btree_set(0u32..4, 0..3), 0..40),
        ) {
            let rows: Vec<Vec<u32>> = rows.into_iter().map(|r| r.into_iter().collect()).collect();
            let mut expected: std::collections::BTreeMap<&[u32], u64> = Default::default();
            for row in &rows {
                *expected.entry(row).or_default() += 1;
            }
            let found: std::collections::BTreeMap<&[u32], u64> =
                distinct_rows(rows.len(), |r| &rows[r]).into_iter().map(|(r, w)| (rows[r as usize].as_slice(), w)).collect();
            let firsts: Vec<u32> = distinct_rows(rows.len(), |r| &rows[r]).into_iter().map(|(r, _)| r).collect();
            let expected_firsts: Vec<u32> = (0..rows.len() as u32)
                .filter(|&r| !rows[..r as usize].contains(&rows[r as usize]))
                .collect();
            proptest::prop_assert_eq!(firsts, expected_firsts);
            proptest::prop_assert_eq!(found, expected);
        }
    }

    /// Keys cut into parts hold whole runs of one hash, and distinct rows found from keys whose
    /// hashes are shared by different rows (a weak hash forced: a row's length) and cut into
    /// several parts are the rows a count finds, in order of first occurrence.
    #[test]
    fn distinct_of_keys_orders_runs_of_several_rows() {
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        let rows: Vec<Vec<u32>> = (0..50_000)
            .map(|_| {
                let mut row: Vec<u32> = (0..next() % 4).map(|_| next() % 6).collect();
                row.sort_unstable();
                row.dedup();
                row
            })
            .collect();
        let mut keys: Vec<(u64, u32)> =
            rows.iter().enumerate().map(|(r, row)| (row.len() as u64, r as u32)).collect();
        keys.sort_by_key(|k| k.0);
        let parts =
            hash_parts(&mut keys.clone()).into_iter().map(|p| p.to_vec()).collect::<Vec<_>>();
        assert!(parts.len() > 1, "{} parts", parts.len());
        assert_eq!(parts.concat(), keys);
        for pair in parts.windows(2) {
            assert_ne!(pair[0].last().map(|k| k.0), pair[1].first().map(|k| k.0), "a run cut");
        }
        let mut expected: std::collections::BTreeMap<&[u32], (u32, u64)> = Default::default();
        for (r, row) in rows.iter().enumerate() {
            expected.entry(row).or_insert((r as u32, 0)).1 += 1;
        }
        let mut expected: Vec<(u32, u64)> = expected.into_values().collect();
        expected.sort_unstable();
        assert!(expected.len() > 20, "several rows of each length");
        assert_eq!(distinct_of_keys(keys, |r| &rows[r]), expected);
    }
}
