//! The audit's count of every itemset of at most three items in one sweep of the distinct
//! rows, for a publication of few items (a cut of some hundred nodes, as AA's at k = 100):
//! the singles, pairs and triples each in a dense table of a cell per combination of item
//! ids, then walked in the depth-first search's preorder. The search reads each row once per
//! item it holds, and at millions of rows each of those reads is a cache miss; the sweep reads
//! the rows once, in the order they lie in memory, into tables that stay in a core's cache.
//! Rows whose pairs and triples cost more than a bit in each column's bitset are counted as
//! popcounts of their columns' ANDs instead (a Gram of bitsets, as the search's long tails).

use rayon::prelude::*;
use txanon_data::ItemId;

/// The most cells (`u32` each, 4 MiB) of the tables, singles, pairs and triples together.
pub(super) const DENSE_CELLS: usize = 1 << 20;

/// Rows counted together on one thread.
const CHUNK: usize = 1 << 14;

/// Bitset words of the long rows' columns ANDed together, small enough for the caches.
const BLOCK: usize = 256;

/// Where each itemset's cell is.
pub(super) struct Layout {
    width: usize,
    m: usize,
    /// Per pair `a < b` (at `a · width + b`), the first cell of its triples `{a, b, c}`, less
    /// `b + 1`: the triple's cell is this plus `c` (wrapping, which cancels).
    triple_lines: Vec<usize>,
    triples: usize,
    /// The additions past which a row of weight one is counted in the Gram.
    gram_share: u64,
}

impl Layout {
    /// The tables of the itemsets of at most `m` items over `width` items, when `m ≤ 3` and
    /// they fit in `max_cells`.
    pub(super) fn fitting(width: usize, m: u64, max_cells: usize) -> Option<Self> {
        let m = usize::try_from(m).ok().filter(|&m| (1..=3).contains(&m))?;
        let w = width as u128;
        let cells = w
            + if m >= 2 { w * w } else { 0 }
            + if m >= 3 { w * w.saturating_sub(1) * w.saturating_sub(2) / 6 } else { 0 };
        if cells > max_cells as u128 {
            return None;
        }
        let mut triple_lines = vec![0usize; if m >= 3 { width * width } else { 0 }];
        let mut triples = 0usize;
        if m >= 3 {
            for a in 0..width {
                for b in a + 1..width {
                    triple_lines[a * width + b] = triples.wrapping_sub(b + 1);
                    triples += width - b - 1;
                }
            }
        }
        let mut layout = Self { width, m, triple_lines, triples, gram_share: 0 };
        // A word per pair and triple cell, shared by 64 rows.
        layout.gram_share = layout.additions(width as u64) / 64;
        Some(layout)
    }

    /// What counting a row of `len` items by additions costs, in cells added to.
    fn additions(&self, len: u64) -> u64 {
        let pairs = if self.m >= 2 { len * len.saturating_sub(1) / 2 } else { 0 };
        let triples = if self.m >= 3 { pairs * len.saturating_sub(2) / 3 } else { 0 };
        pairs + triples
    }
}

/// The supports of every itemset of at most `m` items (in `u32`: a support is at most the
/// number of rows, which [`txanon_data::audit::RowOrder`] keeps below 2³²).
pub(super) struct DenseCounts {
    singles: Vec<u32>,
    /// `{a, b}` with `a < b` at `a · width + b`.
    pairs: Vec<u32>,
    triples: Vec<u32>,
}

impl DenseCounts {
    fn zero(layout: &Layout) -> Self {
        let w = layout.width;
        Self {
            singles: vec![0; w],
            pairs: vec![0; if layout.m >= 2 { w * w } else { 0 }],
            triples: vec![0; layout.triples],
        }
    }

    fn add(mut self, other: Self) -> Self {
        for (mine, theirs) in [
            (&mut self.singles, &other.singles),
            (&mut self.pairs, &other.pairs),
            (&mut self.triples, &other.triples),
        ] {
            for (x, y) in mine.iter_mut().zip(theirs) {
                *x += y;
            }
        }
        self
    }

    /// Counts `rows` (each sorted, of items below the layout's width) with their weights.
    pub(super) fn of_rows(
        layout: &Layout,
        rows: &[&[ItemId]],
        weights: &[u64],
        advance: impl Fn(u64) + Sync,
    ) -> Self {
        let is_long = |row: &[ItemId], w: u64| {
            w == 1 && layout.additions(row.len() as u64) > layout.gram_share
        };
        let long: Vec<&[ItemId]> =
            rows.iter().zip(weights).filter(|&(r, &w)| is_long(r, w)).map(|(r, _)| *r).collect();
        let counted = rows
            .par_chunks(CHUNK)
            .zip(weights.par_chunks(CHUNK))
            .fold(
                || Self::zero(layout),
                |mut counts, (rows, weights)| {
                    for (&row, &w) in rows.iter().zip(weights) {
                        let x = u32::try_from(w).expect("a weight below 2³²");
                        if is_long(row, w) {
                            for &a in row {
                                counts.singles[a as usize] += x;
                            }
                        } else {
                            counts.add_row(layout, row, x);
                        }
                    }
                    advance(rows.len() as u64);
                    counts
                },
            )
            .reduce_with(Self::add)
            .unwrap_or_else(|| Self::zero(layout));
        if long.is_empty() { counted } else { counted.add(Self::gram(layout, &long)) }
    }

    /// Adds one row's itemsets, `x` each.
    fn add_row(&mut self, layout: &Layout, row: &[ItemId], x: u32) {
        let w = layout.width;
        for (p, &a) in row.iter().enumerate() {
            self.singles[a as usize] += x;
            if layout.m < 2 {
                continue;
            }
            let after_a = &row[p + 1..];
            for (q, &b) in after_a.iter().enumerate() {
                let ab = a as usize * w + b as usize;
                self.pairs[ab] += x;
                if layout.m >= 3 {
                    let line = layout.triple_lines[ab];
                    for &c in &after_a[q + 1..] {
                        self.triples[line.wrapping_add(c as usize)] += x;
                    }
                }
            }
        }
    }

    /// The pairs and triples of `rows` (weight one each; no singles) from a bitset per
    /// column: an itemset's support is the popcount of its columns' AND, summed over blocks of
    /// words on rayon.
    fn gram(layout: &Layout, rows: &[&[ItemId]]) -> Self {
        let w = layout.width;
        let words = rows.len().div_ceil(64);
        let mut bits = vec![0u64; w * words];
        for (t, row) in rows.iter().enumerate() {
            for &a in *row {
                bits[a as usize * words + t / 64] |= 1 << (t % 64);
            }
        }
        let blocks: Vec<usize> = (0..words).step_by(BLOCK).collect();
        blocks
            .into_par_iter()
            .fold(
                || Self::zero(layout),
                |mut counts, from| {
                    let to = words.min(from + BLOCK);
                    let column = |a: usize| &bits[a * words + from..a * words + to];
                    let mut ab = vec![0u64; to - from];
                    for a in 0..w {
                        if column(a).iter().all(|&x| x == 0) {
                            continue;
                        }
                        for b in a + 1..w {
                            let mut both = 0u32;
                            for ((x, p), q) in ab.iter_mut().zip(column(a)).zip(column(b)) {
                                *x = p & q;
                                both += x.count_ones();
                            }
                            if both == 0 {
                                continue;
                            }
                            counts.pairs[a * w + b] += both;
                            if layout.m >= 3 {
                                let line = layout.triple_lines[a * w + b];
                                for c in b + 1..w {
                                    let all: u32 = ab
                                        .iter()
                                        .zip(column(c))
                                        .map(|(p, q)| (p & q).count_ones())
                                        .sum();
                                    counts.triples[line.wrapping_add(c)] += all;
                                }
                            }
                        }
                    }
                    counts
                },
            )
            .reduce_with(Self::add)
            .unwrap_or_else(|| Self::zero(layout))
    }

    /// Calls `check` on every itemset that occurs, in the depth-first search's preorder (an
    /// itemset's extensions by later items after it), extending only those `check` returns
    /// `Extend` for; stops at `Stop`.
    pub(super) fn walk(&self, layout: &Layout, mut check: impl FnMut(&[ItemId], u64) -> Step) {
        let w = layout.width;
        for a in 0..w {
            let s = self.singles[a];
            if s == 0 {
                continue;
            }
            match check(&[a as ItemId], u64::from(s)) {
                Step::Stop => return,
                Step::Leave => continue,
                Step::Extend if layout.m < 2 => continue,
                Step::Extend => {}
            }
            for b in a + 1..w {
                let s = self.pairs[a * w + b];
                if s == 0 {
                    continue;
                }
                match check(&[a as ItemId, b as ItemId], u64::from(s)) {
                    Step::Stop => return,
                    Step::Leave => continue,
                    Step::Extend if layout.m < 3 => continue,
                    Step::Extend => {}
                }
                let line = layout.triple_lines[a * w + b];
                for c in b + 1..w {
                    let s = self.triples[line.wrapping_add(c)];
                    if s != 0
                        && matches!(
                            check(&[a as ItemId, b as ItemId, c as ItemId], u64::from(s)),
                            Step::Stop
                        )
                    {
                        return;
                    }
                }
            }
        }
    }
}

/// What the walk does after an itemset.
pub(super) enum Step {
    /// Checks its extensions (if it has fewer than `m` items).
    Extend,
    /// Skips its extensions.
    Leave,
    /// Stops the walk.
    Stop,
}

#[cfg(test)]
mod tests {
    use super::*;
    use txanon_data::mix64;

    /// Every itemset of at most `m` items of `rows` with its support, by definition.
    fn by_definition(rows: &[Vec<ItemId>], weights: &[u64], m: usize) -> Vec<(Vec<ItemId>, u64)> {
        let mut supports = std::collections::BTreeMap::<Vec<ItemId>, u64>::new();
        for (row, &w) in rows.iter().zip(weights) {
            txanon_data::sets::each_subset_up_to(row, m, &mut |set| {
                *supports.entry(set.to_vec()).or_default() += w;
            });
        }
        supports.into_iter().collect()
    }

    fn walked(counts: &DenseCounts, layout: &Layout) -> Vec<(Vec<ItemId>, u64)> {
        let mut seen = Vec::new();
        counts.walk(layout, |set, s| {
            seen.push((set.to_vec(), s));
            Step::Extend
        });
        seen
    }

    /// Past one block of bitset words (256 words: 16,384 rows), with rows of weight two and
    /// rows of one item among the others, the counts by additions, through the Gram and mixed
    /// are every itemset's support, walked in lexicographic order (a prefix first).
    #[test]
    fn the_tables_hold_every_itemsets_support_by_additions_and_through_the_gram() {
        let width = 20;
        let rows: Vec<Vec<ItemId>> = (0..40_000u64)
            .map(|j| {
                let bits = mix64(j);
                if j % 11 == 0 {
                    vec![(bits % width as u64) as ItemId]
                } else {
                    (0..width as ItemId)
                        .filter(|&i| bits >> i & 1 == 1 && bits >> 40 & 3 != 0)
                        .collect()
                }
            })
            .filter(|r| !r.is_empty())
            .collect();
        let weights: Vec<u64> = (0..rows.len() as u64).map(|j| 1 + u64::from(j % 7 == 0)).collect();
        let slices: Vec<&[ItemId]> = rows.iter().map(Vec::as_slice).collect();
        for m in 1..=3u64 {
            let expected = by_definition(&rows, &weights, m as usize);
            let mut layout = Layout::fitting(width, m, DENSE_CELLS).expect("fits");
            let mut gram_rows = Vec::new();
            for share in [u64::MAX, 0, layout.gram_share] {
                layout.gram_share = share;
                let long = slices
                    .iter()
                    .zip(&weights)
                    .filter(|&(r, &w)| w == 1 && layout.additions(r.len() as u64) > share)
                    .count();
                gram_rows.push(long);
                let counts = DenseCounts::of_rows(&layout, &slices, &weights, |_| {});
                assert_eq!(walked(&counts, &layout), expected, "m = {m}, share {share}");
            }
            if m >= 2 {
                assert_eq!(gram_rows[0], 0);
                assert!(gram_rows[1] > 256 * 64, "{gram_rows:?}");
                assert!(gram_rows[2] > 0 && gram_rows[2] < gram_rows[1], "{gram_rows:?}");
            }
        }
        assert!(Layout::fitting(width, 4, usize::MAX).is_none());
        // 180 + 180² + C(180, 3) = 988,440 cells; 190 needs 1,161,620.
        assert!(Layout::fitting(180, 3, DENSE_CELLS).is_some());
        assert!(Layout::fitting(190, 3, DENSE_CELLS).is_none());
    }
}
