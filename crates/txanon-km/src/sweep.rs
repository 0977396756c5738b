//! A counting pass over a cut of few nodes in one sweep of the packed rows: every itemset of
//! the pass's sizes (at most three ranks) counted in dense tables, a cell per combination of
//! the ranks that occur, each thread sweeping its own blocks of rows in the order they lie in
//! memory; then the rare ones listed in the count tree's preorder, as the branch counters list
//! them. The branch counters read each row once per rank it holds, a cache miss each at
//! millions of rows; the sweep reads it once. At AA's cuts for k = 100 on Quest data (538 nodes
//! for the pairs, 110 for the triples) a thread's tables take 1.2 and 0.9 MB, about a core's
//! cache. Where the triples do not fit at once, the first ranks are split into parts whose
//! triples do, and the rows are swept once per part (the triples of AA's first pass over 538
//! nodes in seven). Rows of weight one whose combinations outnumber a word per cell over 64
//! rows are counted as popcounts of their columns' bitsets instead (a Gram), as the branch
//! counters count long rows.

use std::ops::RangeInclusive;

use rayon::prelude::*;

use crate::rows::{END, PackedRows};

/// When a pass sweeps: tables of at most 4 MiB a thread, of `u32` cells or, for `k` below
/// 256, of byte cells capped at 255; long rows by the rule of [`Shape::gram_share`].
pub(crate) const SWEEP: Sweep = Sweep { max_cells: 1 << 20, byte_cells: 1 << 22, gram_share: None };

/// When a pass sweeps its rows: tables of at most `max_cells` `u32` cells or, where `k` is
/// below 256, `byte_cells` byte cells (a support only has to be told apart below `k`); and the
/// combinations past which a row of weight one goes to the Gram (`None`: the words the Gram
/// reads for one row).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sweep {
    pub(crate) max_cells: usize,
    pub(crate) byte_cells: usize,
    pub(crate) gram_share: Option<u64>,
}

/// A table's cell: a support, capped where the type is narrow.
trait Cell: Copy + Default + Send + Sync {
    /// Adds `x`, capped at the type's largest value.
    fn add(&mut self, x: u32);
    fn get(self) -> u32;
}

impl Cell for u32 {
    /// Exact: a support is at most the number of transactions, below 2³² (checked before the
    /// search).
    fn add(&mut self, x: u32) {
        *self += x;
    }

    fn get(self) -> u32 {
        self
    }
}

impl Cell for u8 {
    fn add(&mut self, x: u32) {
        *self = self.saturating_add(u8::try_from(x).unwrap_or(u8::MAX));
    }

    fn get(self) -> u32 {
        u32::from(self)
    }
}

/// Words of packed rows a thread sweeps at a time.
const BLOCK_WORDS: usize = 1 << 18;

/// Bitset words of the long rows' columns ANDed at a time, small enough for the caches.
const GRAM_WORDS: usize = 256;

/// The dense tables' shape: which sizes, and a column per rank that occurs, in rank order.
struct Shape {
    sizes: RangeInclusive<usize>,
    /// Per rank, its column (`u32::MAX`: the rank occurs in no row).
    column: Vec<u32>,
    /// Per column, its rank.
    rank: Vec<u32>,
    /// Per column `a`, its pairs' first cell less `a + 1`: the pair `{a, b}` is at this plus
    /// `b` (wrapping, which cancels).
    pair_lines: Vec<usize>,
    /// Per pair of columns `a < b` (at the pair's cell), its triples' first cell less `b + 1`:
    /// the triple `{a, b, c}` is at this plus `c`.
    triple_lines: Vec<usize>,
    pairs: usize,
    /// Combinations past which a row of weight one is counted in the Gram: by default those
    /// of the whole width over 64, a word per pair and triple cell shared by 64 rows.
    gram_share: u64,
}

impl Shape {
    fn width(&self) -> usize {
        self.rank.len()
    }

    fn counts(&self, size: usize) -> bool {
        self.sizes.contains(&size)
    }

    /// The pairs and triples a row of `len` ranks adds to.
    fn combinations(&self, len: u64) -> u64 {
        let pairs = len * len.saturating_sub(1) / 2;
        let triples = pairs * len.saturating_sub(2) / 3;
        u64::from(self.counts(2)) * pairs + u64::from(self.counts(3)) * triples
    }
}

/// One sweep of a pass: the triples of the first columns `firsts`, and with `low` the singles
/// and pairs. A pass whose triples do not fit at once sweeps its rows once per part, each
/// part's tables in the caches (`triples` cells, counted from the part's first triple).
#[derive(Debug, Clone)]
struct Part {
    firsts: std::ops::Range<usize>,
    low: bool,
    triples: usize,
}

/// Sweeps of one pass at most: each reads every row.
const MAX_PARTS: usize = 16;

/// One thread's supports: singles, pairs, triples.
struct Tables<C> {
    singles: Vec<C>,
    pairs: Vec<C>,
    triples: Vec<C>,
}

impl<C: Cell> Tables<C> {
    fn zero(shape: &Shape, part: &Part) -> Self {
        let w = shape.width();
        Self {
            singles: vec![C::default(); if part.low && shape.counts(1) { w } else { 0 }],
            pairs: vec![C::default(); if part.low { shape.pairs } else { 0 }],
            triples: vec![C::default(); part.triples],
        }
    }

    fn sum(mut self, other: Self) -> Self {
        for (mine, theirs) in [
            (&mut self.singles, &other.singles),
            (&mut self.pairs, &other.pairs),
            (&mut self.triples, &other.triples),
        ] {
            for (x, y) in mine.iter_mut().zip(theirs) {
                x.add(y.get());
            }
        }
        self
    }

    /// Adds the part's combinations of one row (its columns, ascending) `x` times each.
    fn add(&mut self, shape: &Shape, part: &Part, row: &[u32], x: u32) {
        if part.low && shape.counts(1) {
            for &a in row {
                self.singles[a as usize].add(x);
            }
        }
        if !shape.counts(2) && !shape.counts(3) {
            return;
        }
        for (p, &a) in row.iter().enumerate() {
            let triples = shape.counts(3) && part.firsts.contains(&(a as usize));
            if !part.low && !triples {
                continue;
            }
            let after_a = &row[p + 1..];
            let pair_line = shape.pair_lines[a as usize];
            for (q, &b) in after_a.iter().enumerate() {
                let ab = pair_line.wrapping_add(b as usize);
                if part.low {
                    self.pairs[ab].add(x);
                }
                if triples {
                    let line = shape.triple_lines[ab];
                    for &c in &after_a[q + 1..] {
                        self.triples[line.wrapping_add(c as usize)].add(x);
                    }
                }
            }
        }
    }
}

/// The keys of the itemsets of `sizes` ranks that the rows hold in fewer than `k` transactions,
/// with `fresh` only those holding a rank it marks, in the count tree's preorder, one list per
/// branch (smallest rank) that has any, as [`crate::search::Search::violations`] lists them:
/// `None` when the sizes go past three or the tables would pass the sweep's cells. `present`
/// says per rank whether a row holds it ([`crate::search::combination_bound`]'s).
pub(crate) fn rare_by_sweep(
    rows: &PackedRows,
    present: &[bool],
    sizes: RangeInclusive<usize>,
    k: u32,
    fresh: Option<&[bool]>,
    sweep: Sweep,
    advance: impl Fn(u64) + Sync,
) -> Option<Vec<Vec<u128>>> {
    if *sizes.start() < 1 || *sizes.end() > 3 {
        return None;
    }
    let ranks = present.len();
    let rank: Vec<u32> = (0..ranks as u32).filter(|&r| present[r as usize]).collect();
    let width = rank.len();
    let w = width as u128;
    let needs_pairs = sizes.contains(&2) || sizes.contains(&3);
    let low_cells =
        u128::from(sizes.contains(&1)) * w + u128::from(needs_pairs) * w * w.saturating_sub(1) / 2;
    let cells = low_cells
        + u128::from(sizes.contains(&3)) * w * w.saturating_sub(1) * w.saturating_sub(2) / 6;
    let parts_within = |limit: usize| parts(width, sizes.contains(&3), low_cells, limit);
    // `u32` cells in one sweep, else bytes (for k below 256) in as few sweeps as they take,
    // else `u32` in as many.
    let (wide, parts) = if cells <= sweep.max_cells as u128 {
        (true, parts_within(sweep.max_cells)?)
    } else if let Some(parts) = parts_within(sweep.byte_cells).filter(|_| k <= u32::from(u8::MAX)) {
        (false, parts)
    } else {
        (true, parts_within(sweep.max_cells)?)
    };
    let blocks = row_blocks(&rows.words);
    let mut column = vec![u32::MAX; ranks];
    for (c, &r) in rank.iter().enumerate() {
        column[r as usize] = c as u32;
    }
    let mut pair_lines = vec![0usize; if needs_pairs { width } else { 0 }];
    let mut pairs = 0usize;
    for (a, line) in pair_lines.iter_mut().enumerate() {
        *line = pairs.wrapping_sub(a + 1);
        pairs += width - a - 1;
    }
    // Each part's triples counted from its own first cell.
    let mut triple_lines = vec![0usize; if sizes.contains(&3) { pairs } else { 0 }];
    if sizes.contains(&3) {
        for part in &parts {
            let mut triples = 0usize;
            for a in part.firsts.clone() {
                for b in a + 1..width {
                    triple_lines[pair_lines[a].wrapping_add(b)] = triples.wrapping_sub(b + 1);
                    triples += width - b - 1;
                }
            }
        }
    }
    let mut shape = Shape { sizes, column, rank, pair_lines, triple_lines, pairs, gram_share: 0 };
    shape.gram_share = sweep.gram_share.unwrap_or(shape.combinations(width as u64) / 64);
    Some(if wide {
        let tables: Vec<Tables<u32>> =
            parts.iter().map(|part| count(&shape, part, &blocks, &advance)).collect();
        rare_in_preorder(&shape, &parts, &tables, k, fresh)
    } else {
        let tables: Vec<Tables<u8>> =
            parts.iter().map(|part| count(&shape, part, &blocks, &advance)).collect();
        rare_in_preorder(&shape, &parts, &tables, k, fresh)
    })
}

/// The first columns split into parts whose triples, with the singles and pairs
/// (`low_cells`), fit in `limit` cells, the first part also counting the singles and pairs:
/// `None` past [`MAX_PARTS`] or where one column's triples do not fit.
fn parts(width: usize, triples: bool, low_cells: u128, limit: usize) -> Option<Vec<Part>> {
    let room = (limit as u128).checked_sub(low_cells)?;
    if !triples {
        return Some(vec![Part { firsts: 0..width, low: true, triples: 0 }]);
    }
    let mut parts = Vec::new();
    let mut from = 0;
    let mut cells = 0u128;
    for a in 0..width {
        let own = ((width - a - 1) * (width - a).saturating_sub(2) / 2) as u128;
        if own > room {
            return None;
        }
        if cells + own > room {
            parts.push(Part { firsts: from..a, low: parts.is_empty(), triples: cells as usize });
            (from, cells) = (a, 0);
        }
        cells += own;
    }
    parts.push(Part { firsts: from..width, low: parts.is_empty(), triples: cells as usize });
    (parts.len() <= MAX_PARTS).then_some(parts)
}

/// Every itemset's support of one part: the short rows added in blocks on rayon, the long
/// ones through the Gram. Progress is the first part's.
fn count<C: Cell>(
    shape: &Shape,
    part: &Part,
    blocks: &[&[u32]],
    advance: &(impl Fn(u64) + Sync),
) -> Tables<C> {
    let is_long =
        |row: &[u32], x: u32| x == 1 && shape.combinations(row.len() as u64) > shape.gram_share;
    let (tables, long) = blocks
        .par_iter()
        .fold(
            || (Tables::<C>::zero(shape, part), Vec::<u32>::new()),
            |(mut tables, mut long), block| {
                let mut columns = Vec::new();
                for (row, x) in rows_of(block) {
                    columns.clear();
                    columns.extend(row.iter().map(|&r| shape.column[r as usize]));
                    if is_long(row, x) {
                        if part.low && shape.counts(1) {
                            for &a in &columns {
                                tables.singles[a as usize].add(1);
                            }
                        }
                        long.extend_from_slice(&columns);
                        long.push(END);
                    } else {
                        tables.add(shape, part, &columns, x);
                    }
                }
                if part.low {
                    advance(block.len() as u64);
                }
                (tables, long)
            },
        )
        .reduce_with(|(a, mut long), (b, more)| {
            long.extend_from_slice(&more);
            (a.sum(b), long)
        })
        .unwrap_or_else(|| (Tables::zero(shape, part), Vec::new()));
    if long.is_empty() { tables } else { tables.sum(gram(shape, part, &long)) }
}

/// The pairs and triples of `long` (rows of columns, each ended by [`END`], weight one) from a
/// bitset per column: an itemset's support is the popcount of its columns' AND, summed over
/// blocks of words on rayon.
fn gram<C: Cell>(shape: &Shape, part: &Part, long: &[u32]) -> Tables<C> {
    let w = shape.width();
    let count = long.iter().filter(|&&c| c == END).count();
    let words = count.div_ceil(64);
    let mut bits = vec![0u64; w * words];
    for (t, row) in long.split(|&c| c == END).take(count).enumerate() {
        for &a in row {
            bits[a as usize * words + t / 64] |= 1 << (t % 64);
        }
    }
    let column = |a: usize, from: usize, to: usize| &bits[a * words + from..a * words + to];
    let starts: Vec<usize> = (0..words).step_by(GRAM_WORDS).collect();
    starts
        .into_par_iter()
        .fold(
            || Tables::<C>::zero(shape, part),
            |mut tables, from| {
                let to = words.min(from + GRAM_WORDS);
                let mut ab = vec![0u64; to - from];
                for a in 0..w {
                    let triples = shape.counts(3) && part.firsts.contains(&a);
                    if !part.low && !triples || column(a, from, to).iter().all(|&x| x == 0) {
                        continue;
                    }
                    for b in a + 1..w {
                        let mut both = 0u32;
                        for ((x, p), q) in
                            ab.iter_mut().zip(column(a, from, to)).zip(column(b, from, to))
                        {
                            *x = p & q;
                            both += x.count_ones();
                        }
                        if both == 0 {
                            continue;
                        }
                        let pair = shape.pair_lines[a].wrapping_add(b);
                        if part.low {
                            tables.pairs[pair].add(both);
                        }
                        if triples {
                            let line = shape.triple_lines[pair];
                            for c in b + 1..w {
                                let all: u32 = ab
                                    .iter()
                                    .zip(column(c, from, to))
                                    .map(|(p, q)| (p & q).count_ones())
                                    .sum();
                                tables.triples[line.wrapping_add(c)].add(all);
                            }
                        }
                    }
                }
                tables
            },
        )
        .reduce_with(Tables::sum)
        .unwrap_or_else(|| Tables::zero(shape, part))
}

/// The rare itemsets (support in `1..k`) of the pass's sizes, by branch, each in preorder.
fn rare_in_preorder<C: Cell>(
    shape: &Shape,
    parts: &[Part],
    tables: &[Tables<C>],
    k: u32,
    fresh: Option<&[bool]>,
) -> Vec<Vec<u128>> {
    let w = shape.width();
    let key = |columns: &[usize]| {
        columns
            .iter()
            .enumerate()
            .fold(0u128, |key, (j, &c)| key | u128::from(shape.rank[c] + 1) << (96 - 32 * j))
    };
    let is_fresh = |c: usize| fresh.is_none_or(|f| f[shape.rank[c] as usize]);
    let rare = |support: u32| support > 0 && support < k;
    let mut branches = Vec::new();
    let low = &tables[0];
    let mut j = 0;
    for a in 0..w {
        while !parts[j].firsts.contains(&a) && j + 1 < parts.len() {
            j += 1;
        }
        let high = &tables[j];
        let mut branch = Vec::new();
        if shape.counts(1) && rare(low.singles[a].get()) && is_fresh(a) {
            branch.push(key(&[a]));
        }
        if !low.pairs.is_empty() {
            for b in a + 1..w {
                let ab = shape.pair_lines[a].wrapping_add(b);
                let pair = low.pairs[ab].get();
                if pair == 0 {
                    // No triple holds a pair no row holds.
                    continue;
                }
                if shape.counts(2) && rare(pair) && (is_fresh(a) || is_fresh(b)) {
                    branch.push(key(&[a, b]));
                }
                if shape.counts(3) {
                    let line = shape.triple_lines[ab];
                    for c in b + 1..w {
                        if rare(high.triples[line.wrapping_add(c)].get())
                            && (is_fresh(a) || is_fresh(b) || is_fresh(c))
                        {
                            branch.push(key(&[a, b, c]));
                        }
                    }
                }
            }
        }
        if !branch.is_empty() {
            branches.push(branch);
        }
    }
    branches
}

/// `words` in blocks of whole rows of about [`BLOCK_WORDS`] each.
fn row_blocks(words: &[u32]) -> Vec<&[u32]> {
    let mut blocks = Vec::new();
    let mut from = 0;
    while from < words.len() {
        let cut = (from + BLOCK_WORDS).min(words.len());
        // Past the first end marker at or after the cut (no rank and no weight equals it),
        // and its weight.
        let to = words[cut.saturating_sub(1)..]
            .iter()
            .position(|&r| r == END)
            .map_or(words.len(), |e| cut.saturating_sub(1) + e + 2);
        blocks.push(&words[from..to]);
        from = to;
    }
    blocks
}

/// The rows of a block of whole packed rows, with their weights.
fn rows_of(block: &[u32]) -> impl Iterator<Item = (&[u32], u32)> {
    let mut from = 0;
    std::iter::from_fn(move || {
        let end = from + block[from..].iter().position(|&r| r == END)?;
        let row = (&block[from..end], block[end + 1]);
        from = end + 2;
        Some(row)
    })
}

#[cfg(test)]
mod tests {
    use rustc_hash::FxHashMap;

    use super::*;
    use crate::combinations::{each_combination, unpack};
    use crate::search::combination_bound;

    /// The rare keys by brute force: every combination of every row counted in a map, those
    /// below `k` holding a fresh rank, by first rank, each branch ascending.
    fn by_definition(
        rows: &[(Vec<u32>, u32)],
        sizes: &RangeInclusive<usize>,
        k: u32,
        fresh: Option<&[bool]>,
    ) -> Vec<Vec<u128>> {
        let mut counts: FxHashMap<u128, u32> = FxHashMap::default();
        for (row, w) in rows {
            for size in sizes.clone() {
                each_combination(row, size, |key| *counts.entry(key).or_insert(0) += w);
            }
        }
        let mut rare: Vec<u128> = counts
            .into_iter()
            .filter(|&(key, c)| c < k && fresh.is_none_or(|f| unpack(key).any(|r| f[r as usize])))
            .map(|(key, _)| key)
            .collect();
        rare.sort_unstable();
        rare.chunk_by(|a, b| unpack(*a).next() == unpack(*b).next()).map(<[u128]>::to_vec).collect()
    }

    /// The sweep, in `u32` cells and in byte cells capped at 255, by additions, through the
    /// Gram or mixed, and with a recount's fresh ranks, lists the rare itemsets brute force
    /// lists, by branch in preorder, over ranks with gaps (columns are not ranks); it declines
    /// past three items, past its cells, and in bytes for `k` above 255. At least a third of
    /// the cases hold an itemset in more than 255 transactions with `k` below 256, where byte
    /// cells cap.
    #[test]
    fn the_sweep_finds_what_counting_every_combination_finds() {
        use proptest::prelude::*;
        let strategy = (
            prop::collection::vec(
                (prop::collection::btree_set(0u32..14, 1..9), prop_oneof![Just(1u32), 2u32..120]),
                1..60,
            ),
            prop_oneof![2u32..8, 100u32..400],
            prop_oneof![Just(1..=1usize), Just(2..=2), Just(3..=3), Just(1..=3), Just(2..=3)],
            prop::option::of(0u32..1 << 14),
        );
        let exercised = txanon_testkit::exercised(400, strategy, |(rows, k, sizes, fresh_bits)| {
            // Ranks spread out to 0, 3, 6, …: most ranks occur in no row.
            let rows: Vec<(Vec<u32>, u32)> =
                rows.iter().map(|(r, w)| (r.iter().map(|&x| 3 * x).collect(), *w)).collect();
            let mut packed = PackedRows::default();
            for (row, w) in &rows {
                packed.push(row, *w);
            }
            let ranks = 3 * 14;
            let (_, present) = combination_bound(&packed, &sizes, ranks);
            let fresh: Option<Vec<bool>> = fresh_bits
                .map(|bits| (0..ranks as u32).map(|r| bits >> (r / 3) & 1 == 1).collect());
            let expected = by_definition(&rows, &sizes, k, fresh.as_deref());
            // No cell at all (one rank and no singles) fits any limit.
            let ranks_held: std::collections::BTreeSet<u32> =
                rows.iter().flat_map(|(r, _)| r.iter().copied()).collect();
            let no_cell = !sizes.contains(&1) && ranks_held.len() < 2;
            let bytes = Sweep { max_cells: 0, byte_cells: usize::MAX, gram_share: None };
            // Tables that hold the singles, the pairs and one first column's triples: a sweep
            // per part of the first columns.
            let w = ranks_held.len();
            let pairs_of = |n: usize| n * n.saturating_sub(1) / 2;
            let low = if sizes.contains(&1) { w } else { 0 } + pairs_of(w);
            let tight = low + pairs_of(w.saturating_sub(1));
            let mut sweeps = vec![
                Sweep { max_cells: tight, byte_cells: 0, gram_share: None },
                Sweep { max_cells: 0, byte_cells: tight, gram_share: None },
            ];
            for gram_share in [None, Some(0), Some(u64::MAX), Some(4)] {
                sweeps.push(Sweep { max_cells: usize::MAX, byte_cells: 0, gram_share });
                sweeps.push(Sweep { gram_share, ..bytes });
            }
            for sweep in sweeps {
                let found = rare_by_sweep(
                    &packed,
                    &present,
                    sizes.clone(),
                    k,
                    fresh.as_deref(),
                    sweep,
                    |_| (),
                );
                if sweep.max_cells == 0 && k > 255 && !no_cell {
                    prop_assert!(found.is_none());
                } else {
                    prop_assert_eq!(found.as_ref(), Some(&expected), "{:?}", sweep);
                }
            }
            let none = Sweep { max_cells: 0, byte_cells: 0, gram_share: None };
            let declined =
                rare_by_sweep(&packed, &present, sizes.clone(), k, None, none, |_| ()).is_none();
            let past_three =
                rare_by_sweep(&packed, &present, 4..=4, k, None, SWEEP, |_| ()).is_none();
            prop_assert!((declined || no_cell) && past_three);
            // A byte cell caps where a single (counted with size 1) or a pair (counted with
            // sizes 2 and 3) is held more than 255 times.
            let mut held: FxHashMap<u128, u64> = FxHashMap::default();
            for (row, w) in &rows {
                for size in 1..=2 {
                    if (size == 1 && sizes.contains(&1)) || (size == 2 && *sizes.end() >= 2) {
                        each_combination(row, size, |key| {
                            *held.entry(key).or_insert(0) += u64::from(*w)
                        });
                    }
                }
            }
            Ok(k <= 255 && held.values().any(|&s| s > 255))
        });
        exercised.at_least(0.33, "held an itemset past a byte cell's cap with k below 256");
    }

    /// The parts of the first columns cover them in order, each within the room the singles
    /// and pairs leave, the first counting those; past the parts' limit or one column's room,
    /// none.
    #[test]
    fn parts_cover_the_first_columns_within_their_room() {
        let triples_of = |w: usize, a: usize| (w - a - 1) * (w - a).saturating_sub(2) / 2;
        for (w, room) in [(110usize, 20_000usize), (538, 1 << 22), (24, 400), (5, 6), (1, 0)] {
            let low = (w * w.saturating_sub(1) / 2) as u128;
            let split = parts(w, true, low, low as usize + room).expect("parts");
            assert_eq!(split[0].firsts.start, 0);
            assert_eq!(split.last().unwrap().firsts.end, w);
            for (j, part) in split.iter().enumerate() {
                assert_eq!(part.low, j == 0);
                let cells: usize = part.firsts.clone().map(|a| triples_of(w, a)).sum();
                assert_eq!(part.triples, cells);
                assert!(cells <= room, "{w}: {part:?}");
                if j > 0 {
                    assert_eq!(split[j - 1].firsts.end, part.firsts.start);
                }
            }
        }
        assert!(parts(110, true, 10, 5).is_none(), "no room for the pairs");
        assert!(parts(110, true, 0, 100).is_none(), "a column's triples past the room");
        assert!(parts(538, true, 0, 300_000).is_none(), "more parts than MAX_PARTS");
        assert_eq!(parts(538, false, 0, 300_000).map(|p| p.len()), Some(1));
    }

    /// Past one block of words on either side (many row blocks, and more than 256 bitset words
    /// of long rows), the sweep's lists are brute force's, by additions and through the Gram.
    #[test]
    fn the_sweep_counts_across_blocks() {
        let rows: Vec<(Vec<u32>, u32)> = (0..60_000u64)
            .map(|j| {
                let bits = txanon_data::mix64(j);
                let row: Vec<u32> = (0..24u32).filter(|&r| bits >> r & 1 == 1).collect();
                (row, 1 + u32::from(j % 5 == 0))
            })
            .filter(|(r, _)| !r.is_empty())
            .collect();
        let mut packed = PackedRows::default();
        for (row, w) in &rows {
            packed.push(row, *w);
        }
        assert!(row_blocks(&packed.words).len() > 2);
        let (_, present) = combination_bound(&packed, &(3..=3), 24);
        let sizes = 3..=3;
        // About 9,000 transactions hold each triple: some are rare and some not.
        let k = 9_000;
        let expected = by_definition(&rows, &sizes, k, None);
        let rare = expected.iter().map(Vec::len).sum::<usize>();
        assert!(rare > 100 && rare < 1900, "{rare} of 2,024 triples rare");
        for gram_share in [Some(u64::MAX), Some(0)] {
            let sweep = Sweep { max_cells: usize::MAX, byte_cells: 0, gram_share };
            let found = rare_by_sweep(&packed, &present, sizes.clone(), k, None, sweep, |_| {});
            assert_eq!(found.as_ref(), Some(&expected), "gram share {gram_share:?}");
        }
        let long = rows.iter().filter(|(_, w)| *w == 1).count();
        assert!(long > 256 * 64, "{long} rows in the Gram");
        // The triples in parts of the first columns, a sweep each, through the Gram too.
        let low: u128 = 24 * 23 / 2;
        let split = parts(24, true, low, low as usize + 400).expect("parts");
        assert!(split.len() > 3 && split.len() <= MAX_PARTS, "{split:?}");
        for gram_share in [Some(u64::MAX), Some(0)] {
            let sweep = Sweep { max_cells: low as usize + 400, byte_cells: 0, gram_share };
            let found = rare_by_sweep(&packed, &present, sizes.clone(), k, None, sweep, |_| {});
            assert_eq!(found.as_ref(), Some(&expected), "in parts, gram share {gram_share:?}");
        }
    }
}
