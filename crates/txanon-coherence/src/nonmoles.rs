//! Non-moles and minimal moles of length at most `p`, level by level.

use std::borrow::Cow;

use rayon::prelude::*;

use txanon_data::progress::{Progress, Unit};

use crate::extension::{Extended, Known, Scratch, Under, extend};
use crate::flatsets::{FlatSets, IdLists};
use crate::projection::{PROJECTION_LIMIT, Projection};
use crate::working::{Working, breaches};

/// The public itemsets of length `1..=p` that are not moles (support at least `k`, breach
/// probability at most `h`), and the minimal moles, the mole border's `U`.
///
/// Non-moles are closed downwards (a subset of a non-mole has at least its support, and its
/// breach probability is a maximum over fewer subsets), so a level-wise search finds them all
/// from the single items up, the way Apriori finds frequent itemsets: each candidate extends a
/// non-mole by a larger item that co-occurs with it, and needs every other subset to be a
/// non-mole. A candidate that fails is a mole whose proper subsets all are not: a minimal mole.
#[derive(Debug, Clone)]
pub(crate) struct NonMoles {
    /// The non-moles, each ascending, shortest first.
    pub sets: FlatSets,
    /// The minimal moles, each ascending, shortest first, when listed (else empty).
    pub minimal: Vec<Vec<u32>>,
    /// How many minimal moles there are, listed or not.
    pub minimal_count: usize,
    /// Per public index, the non-moles holding it (ids into `sets`).
    pub by_item: IdLists,
    /// False once a non-mole holds a suppressed item.
    pub alive: Vec<bool>,
}

impl NonMoles {
    /// Searches `w` (no item suppressed yet beyond the pre-step). The minimal moles are listed
    /// only when `list_minimal` (the border-edge engine and the border itself need them; the
    /// counting engine needs their number: 38.6 million at a million Quest transactions).
    ///
    /// # Complexity
    /// Per non-mole `γ` with transactions `T(γ)`: `Σ_{t ∈ T(γ)} |t|` to count its extensions
    /// and their private items, and as much again to bucket the extensions' transactions when
    /// another level follows; the non-moles two levels before the last are scanned twice (see
    /// `last_two_levels`), so that only one worker's share of transaction lists is held at the
    /// end. Non-moles are frequent at support `k`, hence few.
    ///
    /// Each level is a phase of `progress`, counting the transactions read.
    pub fn find(w: &Working, settings: (f64, u32, usize, bool), progress: &Progress) -> Self {
        Self::find_projecting(w, settings, progress, Limits::default())
    }

    /// [`find`](Self::find) with the last level's `limits` (tests compare each way).
    ///
    /// Long as one function: the level search's driver, whose slices, grandparents, projections and
    /// fallback share the level's buffers.
    fn find_projecting(
        w: &Working,
        (h, k, p, list_minimal): (f64, u32, usize, bool),
        progress: &Progress,
        limits: Limits,
    ) -> Self {
        let breaching = singles_breaching(w, h, limits.singles_matrix);
        let mut sets = FlatSets::default();
        let mut minimal = Vec::new();
        let mut minimal_count = 0;
        let mut known = Known::new(w.public_items());
        // Each non-mole of the level with its transactions (the single items' are `w`'s own).
        let mut level: Vec<(Vec<u32>, Cow<'_, [u32]>)> = Vec::new();
        for j in 0..w.public_items() as u32 {
            let tids = w.tids.transactions(j);
            let itemset = vec![j];
            if tids.len() < k as usize || breaching[j as usize] {
                minimal_count += 1;
                if list_minimal {
                    minimal.push(itemset);
                }
            } else {
                known.insert(&itemset);
                level.push((itemset, Cow::Borrowed(tids)));
            }
        }
        for depth in 1..p {
            // Nothing left to extend: no longer non-mole exists.
            if level.is_empty() {
                break;
            }
            let last_level = depth + 1 == p;
            if depth + 2 == p {
                // The last two levels, without holding the transactions of every non-mole of
                // the next (at ten million transactions and p = 3, every pair's: 2 GB).
                for (s, _) in &level {
                    sets.push(s);
                }
                let settings = (h, k, p, list_minimal);
                let tail =
                    last_two_levels(w, &level, (&mut known, &mut sets), settings, progress, limits);
                minimal_count += tail.minimal_count;
                minimal.extend(tail.minimal);
                level.clear();
                break;
            }
            // Each non-mole of the level extends independently (rayon); results are merged in
            // the level's order, so the outcome does not depend on scheduling.
            begin_level(progress, depth + 1, &level);
            let found: Vec<Extended> = level
                .par_iter()
                .map_init(
                    || (Scratch::new(w), Vec::with_capacity(p)),
                    |(scratch, subset), (gamma, tids)| {
                        let settings = (h, k, last_level, list_minimal);
                        let found = extend(w, gamma, tids, &known, settings, scratch, subset);
                        progress.advance(tids.len() as u64);
                        found
                    },
                )
                .collect();
            let mut next = Vec::new();
            for found in found {
                minimal_count += found.moles;
                minimal.extend(found.minimal);
                if last_level {
                    // Filed flat as found: the last level is neither extended nor a subset
                    // tested.
                    sets.append(depth + 1, &found.nonmoles);
                } else {
                    let children = found.nonmoles.chunks_exact(depth + 1);
                    next.extend(
                        children.zip(found.within).map(|(s, t)| (s.to_vec(), Cow::Owned(t))),
                    );
                }
            }
            for (s, _) in &level {
                sets.push(s);
            }
            for (s, _) in &next {
                known.insert(s);
            }
            level = next;
        }
        for (s, _) in &level {
            sets.push(s);
        }
        let by_item = IdLists::new(w.public_items(), &sets);
        let alive = vec![true; sets.len()];
        Self { sets, minimal, minimal_count, by_item, alive }
    }

    /// For every public index, the live non-moles holding it and `v` (for `u = v`: holding
    /// `v`); then marks those holding `v` dead.
    pub fn remove(&mut self, v: u32, out: &mut [u128]) {
        for id in self.by_item.ids(v) {
            if !std::mem::replace(&mut self.alive[id as usize], false) {
                continue;
            }
            for &u in self.sets.get(id as usize) {
                out[u as usize] += 1;
            }
        }
    }

    /// Live non-moles holding each public index.
    pub fn per_item(&self, items: usize) -> Vec<u128> {
        let mut out = vec![0u128; items];
        for (id, s) in self.sets.iter().enumerate() {
            if self.alive[id] {
                for &u in s {
                    out[u as usize] += 1;
                }
            }
        }
        out
    }
}

/// Largest single items' co-occurrence counts with the private items (`P × S` counters per
/// worker, all workers') built in one pass over the transactions.
const SINGLES_MATRIX_BYTES: usize = 64 << 20;

/// Per public item, whether one private item is in more than `h` of its transactions; beyond
/// `matrix_bytes` of counters, each item's transactions are read for their private items.
///
/// One pass over the transactions in order counts every (public, private) pair they hold,
/// each worker into its own `P × S` matrix, summed: reading each item's transactions for their
/// private parts was a cache miss per transaction and item (6 s on one core at 10⁷ transactions
/// with 270 of 5,000 items private, 67% of the transactions holding one).
fn singles_breaching(w: &Working, h: f64, matrix_bytes: usize) -> Vec<bool> {
    let (items, private) = (w.public_items(), w.private_ids.len());
    let breach_of =
        |j: usize, worst: u32| breaches(worst, w.tids.transactions(j as u32).len() as u32, h);
    let workers = rayon::current_num_threads();
    if items.saturating_mul(private).saturating_mul(4 * workers) <= matrix_bytes {
        let share = w.public.len().div_ceil(workers).max(1);
        let pairs = w
            .public
            .par_chunks(share)
            .zip(w.private.par_chunks(share))
            .map(|(public, secret)| {
                let mut m = vec![0u32; items * private];
                for (t, s) in public.iter().zip(secret).filter(|(_, s)| !s.is_empty()) {
                    for &j in t {
                        let row = &mut m[j as usize * private..(j as usize + 1) * private];
                        for &s in s {
                            row[s as usize] += 1;
                        }
                    }
                }
                m
            })
            .reduce_with(|mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            })
            .unwrap_or_default();
        (0..items)
            .map(|j| {
                let row = pairs.get(j * private..(j + 1) * private).unwrap_or_default();
                breach_of(j, row.iter().copied().max().unwrap_or(0))
            })
            .collect()
    } else {
        (0..items)
            .into_par_iter()
            .map_init(
                || (vec![0u32; private], Vec::new()),
                |(counts, touched), j| {
                    let mut worst = 0;
                    for &t in w.tids.transactions(j as u32) {
                        for &s in w.private_of(t) {
                            if counts[s as usize] == 0 {
                                touched.push(s);
                            }
                            counts[s as usize] += 1;
                            worst = worst.max(counts[s as usize]);
                        }
                    }
                    for s in touched.drain(..) {
                        counts[s as usize] = 0;
                    }
                    breach_of(j, worst)
                },
            )
            .collect()
    }
}

/// Slices of the level before the last in [`last_two_levels`], of about equal work (the
/// length of their transaction lists): enough that one slice's share of the last level is
/// small beside all of it, few enough that each slice has work for both workers. Slices of 32
/// grandparents made BMS-WebView-2 at p = 3 a third slower, and 16 slices 17% slower: a heavy
/// item's share leaves the other worker idle at the end of a slice.
const SLICES: usize = 16;

/// Least work of a slice (transaction ids read): below it the slices' barriers cost more than
/// the memory they save (BMS-WebView-2, 0.36 million ids at p = 3, is one slice).
const MIN_SLICE_WORK: usize = 1 << 22;

/// `items` cut in order into about [`SLICES`] runs of equal `work`, none under `least` but
/// the last.
fn slices<T>(items: &[T], work: impl Fn(&T) -> usize, least: usize) -> Vec<&[T]> {
    let total: usize = items.iter().map(&work).sum();
    let per_slice = (total / SLICES).max(least).max(1);
    let mut out = Vec::new();
    let (mut start, mut held) = (0, 0);
    for (end, item) in items.iter().enumerate() {
        held += work(item);
        if held >= per_slice || end + 1 == items.len() {
            out.push(&items[start..=end]);
            (start, held) = (end + 1, 0);
        }
    }
    out
}

/// One level's itemsets: the non-moles (flat, each of the level's length), and the minimal
/// moles (listed when asked) and their number.
#[derive(Default)]
pub(crate) struct Level {
    pub(crate) sets: Vec<u32>,
    pub(crate) minimal: Vec<Vec<u32>>,
    pub(crate) minimal_count: usize,
}

impl Level {
    /// Files the candidates one non-mole extended to.
    pub(crate) fn add(&mut self, found: Extended) {
        self.minimal_count += found.moles;
        self.minimal.extend(found.minimal);
        self.sets.extend_from_slice(&found.nonmoles);
    }
}

/// The two levels after `level` (whose non-moles are in `known`; the first level's are added),
/// found without holding the transactions of the first of them all at once: first its
/// itemsets alone (the last level's subset tests need all of them), then each of `level`'s
/// non-moles again, its transactions projected on its children (the first pass's non-moles
/// extending it) and each child extended from the projection ([`grandchildren`]). The second
/// pass repeats the first's reads of the rows (`Σ_{t ∈ T(γ)} |t|` per non-mole `γ` of
/// `level`), which is less than the last level's own work; the memory is one worker's share
/// of projections.
///
/// Their non-moles are appended to `sets` and their minimal moles returned, in the level-wise
/// search's order: the first level in `level`'s order, the second in its parents' order.
pub(crate) fn last_two_levels(
    w: &Working,
    level: &[(Vec<u32>, Cow<'_, [u32]>)],
    (known, sets): (&mut Known, &mut FlatSets),
    (h, k, p, list_minimal): (f64, u32, usize, bool),
    progress: &Progress,
    limits: Limits,
) -> Level {
    let len = level.first().map_or(1, |(gamma, _)| gamma.len() + 1);
    let scratch = || (Scratch::new(w), Vec::with_capacity(p));
    begin_level(progress, len, level);
    let first: Vec<Extended> = level
        .par_iter()
        .map_init(scratch, |(scratch, subset), (gamma, tids)| {
            let found = extend(w, gamma, tids, known, (h, k, true, list_minimal), scratch, subset);
            progress.advance(tids.len() as u64);
            found
        })
        .collect();
    let mut next = Level::default();
    // Where each grandparent's children start in `next.sets`: the second pass extends them
    // again without finding them again.
    let mut children_start = Vec::with_capacity(level.len() + 1);
    children_start.push(0);
    for found in first {
        next.add(found);
        children_start.push(next.sets.len());
    }
    for s in next.sets.chunks_exact(len) {
        known.insert(s);
    }
    let grandparents: Vec<Grandparent<'_>> = level
        .iter()
        .zip(children_start.windows(2))
        .map(|((gamma, tids), at)| Grandparent { gamma, tids, children: &next.sets[at[0]..at[1]] })
        .collect();
    let known = &*known;
    let mut tail = Level { sets: Vec::new(), minimal: next.minimal, ..Level::default() };
    tail.minimal_count = next.minimal_count;
    // The grandparents (at p = 3 the single items) in slices, each slice's last level filed
    // into `sets` before the next is searched: the last level is held once, beside one
    // slice's share. Collecting every grandparent's share first held it twice (at 10⁶
    // kosarak-shaped transactions and p = 3, 1.76 GB against 1.34 GB in slices).
    begin_level(progress, len + 1, level);
    for slice in slices(&grandparents, |g| g.tids.len(), MIN_SLICE_WORK) {
        let second: Vec<Vec<Level>> = slice
            .par_iter()
            .map_init(scratch, |(scratch, subset), g| {
                let settings = (h, k, list_minimal);
                let found = grandchildren(w, g, known, settings, scratch, subset, limits);
                progress.advance(g.tids.len() as u64);
                found
            })
            .collect();
        for found in second.into_iter().flatten() {
            tail.minimal_count += found.minimal_count;
            tail.minimal.extend(found.minimal);
            sets.append(len + 1, &found.sets);
        }
    }
    drop(grandparents);
    sets.append_owned(len, next.sets);
    tail
}

/// Begins the phase that finds the non-moles of `len` items from `level`'s: its total, the
/// transactions of `level`'s non-moles (each is read once per non-mole holding it).
pub(crate) fn begin_level(progress: &Progress, len: usize, level: &[(Vec<u32>, Cow<'_, [u32]>)]) {
    let total = level.iter().map(|(_, tids)| tids.len() as u64).sum();
    let phase = format!("coherence: non-moles of {len} items (transactions read)");
    progress.begin(phase, Unit::Items, total);
}

/// A non-mole of the level before the last two, with its children: the non-moles one item
/// longer that extend it, flat (each `|γ| + 1` items, ascending by their last item).
pub(crate) struct Grandparent<'a> {
    pub(crate) gamma: &'a [u32],
    pub(crate) tids: &'a [u32],
    pub(crate) children: &'a [u32],
}

/// The last level under grandparent `g`: each child `γx` extended by a larger child's last
/// item `y` (the only extensions whose subset `γy` is a non-mole), from `g`'s projection;
/// from the working data when the projection is too large. The same non-moles, minimal
/// moles and order as [`extend`] on each child, in one level per run of children (several
/// when they were extended in parallel), in the children's order.
pub(crate) fn grandchildren(
    w: &Working,
    g: &Grandparent<'_>,
    known: &Known,
    (h, k, list_minimal): (f64, u32, bool),
    scratch: &mut Scratch,
    subset: &mut Vec<u32>,
    limits: Limits,
) -> Vec<Level> {
    let len = g.gamma.len() + 1;
    let mut out = Level::default();
    let last = *g.gamma.last().expect("non-empty");
    let child_of = &mut scratch.child_of;
    for (c, child) in g.children.chunks_exact(len).enumerate() {
        child_of[child[len - 1] as usize] = c as u32 + 1;
    }
    // Each transaction of `g` cut to its children's last items: the only extensions of a
    // child `γx` whose subset `γy` is a non-mole.
    let rows = g.tids.iter().map(|&t| {
        let row = &w.public[t as usize];
        &row[row.partition_point(|&x| x <= last)..]
    });
    let projection = Projection::new(rows, |x| child_of[x as usize], limits.projection);
    for child in g.children.chunks_exact(len) {
        child_of[child[len - 1] as usize] = 0;
    }
    let Some(projection) = projection else {
        // The children's transactions, found again, and each child extended from them.
        let children = extend(w, g.gamma, g.tids, known, (h, k, false, false), scratch, subset);
        for (child, within) in children.nonmoles.chunks_exact(len).zip(&children.within) {
            out.add(extend(w, child, within, known, (h, k, true, list_minimal), scratch, subset));
        }
        return vec![out];
    };
    let tids: Vec<u32> = projection.sources().iter().map(|&r| g.tids[r as usize]).collect();
    let private: Vec<bool> = tids.iter().map(|&t| !w.private_of(t).is_empty()).collect();
    let children: Vec<u32> = g.children.chunks_exact(len).map(|c| c[len - 1]).collect();
    let under = Under {
        w,
        g,
        projection: &projection,
        tids: &tids,
        private: &private,
        children: &children,
        known,
        // Many pairs per child and extension: each child's extensions are read from the
        // counts in order, where listing them as first met and sorting the list cost a branch
        // per pair.
        dense: projection.pairs() >= (children.len() as u64).pow(2) / 2,
        settings: (h, k, list_minimal),
    };
    if projection.pairs() < limits.parallel_pairs {
        let Scratch { extensions, private_pairs, private_seen, .. } = scratch;
        for x in 0..children.len() {
            under.extend(x, (extensions, private_pairs, private_seen), subset, &mut out);
        }
        return vec![out];
    }
    // One grandparent's share can be most of a slice's (kosarak's most frequent items): its
    // children are extended in parallel too, each run of them into its own level, in order.
    let private_items = scratch.private_seen.len();
    (0..children.len())
        .into_par_iter()
        .fold(
            || {
                let counters = (vec![0; children.len()], vec![0; children.len()]);
                (counters, vec![0; private_items], Vec::new(), Level::default())
            },
            |(mut counters, mut seen, mut subset, mut out), x| {
                let scratch =
                    (counters.0.as_mut_slice(), counters.1.as_mut_slice(), seen.as_mut_slice());
                under.extend(x, scratch, &mut subset, &mut out);
                (counters, seen, subset, out)
            },
        )
        .map(|(_, _, _, out)| out)
        .collect()
}

/// How the single items' breaches are found, and the last level searched under each
/// grandparent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Most bytes of the single items' co-occurrence counts with the private items (all
    /// workers'); beyond it, each item's transactions are read for their private items.
    pub(crate) singles_matrix: usize,
    /// Most words of a grandparent's projection; beyond it, its children's transactions are
    /// read from the working data.
    pub(crate) projection: usize,
    /// Least pairs (with repetition) in a grandparent's projection for its children to be
    /// extended in parallel: below it, the grandparent is one worker's share of a slice.
    pub(crate) parallel_pairs: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            singles_matrix: SINGLES_MATRIX_BYTES,
            projection: PROJECTION_LIMIT,
            parallel_pairs: 1 << 24,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{FlatSets, Limits, NonMoles, singles_breaching};
    use crate::working::{Working, roles_with_private};
    use proptest::prelude::*;
    use txanon_data::TransactionDb;
    use txanon_data::progress::Progress;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// The last level found from each grandparent's projection, its children extended one
        /// after the other or in parallel, is the one found from the working data (the
        /// fallback when a projection would be too large), in the same order, with the same
        /// minimal moles; and so is a mix of the three (limits some grandparents exceed). The
        /// single items' breaches from the co-occurrence counts are those read from each
        /// item's transactions (the fallback past `SINGLES_MATRIX_BYTES`, taken by the rows).
        #[test]
        fn projections_find_what_the_rows_find(
            ts in prop::collection::vec(prop::collection::btree_set(0u32..14, 1..9), 10..60),
            private in prop::collection::btree_set(0u32..14, 0..3),
            h in prop::sample::select(vec![0.3, 0.6, 0.9]),
            k in 1u32..4,
            p in 2usize..5,
            mixed_limit in 4usize..60,
            mixed_pairs in 0u64..40,
        ) {
            let db = TransactionDb::from_int_transactions(ts.iter().map(|t| t.iter().copied().collect::<Vec<_>>()));
            let w = Working::new(&db, &roles_with_private(&db, &private));
            let settings = (h, k, p, true);
            let progress = Progress::default();
            let rows = Limits { singles_matrix: 0, projection: 0, ..Limits::default() };
            let by_rows = NonMoles::find_projecting(&w, settings, &progress, rows);
            let parallel = Limits { parallel_pairs: 0, ..Limits::default() };
            let mixed = Limits { projection: mixed_limit, parallel_pairs: mixed_pairs, ..Limits::default() };
            for limits in [Limits::default(), parallel, mixed] {
                let projected = NonMoles::find_projecting(&w, settings, &progress, limits);
                prop_assert_eq!(projected.sets.iter().collect::<Vec<_>>(), by_rows.sets.iter().collect::<Vec<_>>());
                prop_assert_eq!(&projected.minimal, &by_rows.minimal);
                prop_assert_eq!(projected.minimal_count, by_rows.minimal_count);
            }
        }
    }

    /// The single items' breaches from the co-occurrence counts (one matrix per worker, summed)
    /// are those read from each item's transactions and those of the definition. Counts the
    /// cases where some items breach and others do not.
    #[test]
    fn single_items_breach_alike_from_counts_and_rows() {
        let strategy = (
            prop::collection::vec(prop::collection::btree_set(0u32..12, 1..8), 1..80),
            prop::collection::btree_set(0u32..12, 1..5),
            prop::sample::select(vec![0.2, 0.4, 0.6]),
        );
        let exercised = txanon_testkit::exercised(300, strategy, |(ts, private, h)| {
            let db = TransactionDb::from_int_transactions(
                ts.iter().map(|t| t.iter().copied().collect::<Vec<_>>()),
            );
            let w = Working::new(&db, &roles_with_private(&db, &private));
            let from_counts = singles_breaching(&w, h, usize::MAX);
            prop_assert_eq!(&from_counts, &singles_breaching(&w, h, 0));
            let by_definition: Vec<bool> = (0..w.public_items() as u32)
                .map(|j| {
                    let tids = w.tids.transactions(j);
                    let worst = (0..w.private_ids.len() as u32)
                        .map(|s| {
                            tids.iter().filter(|&&t| w.private[t as usize].contains(&s)).count()
                        })
                        .max()
                        .unwrap_or(0);
                    worst as f64 / tids.len() as f64 > h
                })
                .collect();
            prop_assert_eq!(&from_counts, &by_definition);
            Ok(from_counts.contains(&true) && from_counts.contains(&false))
        });
        exercised.at_least(0.3, "items breaching beside items that do not");
    }

    /// Ids count the shorter itemsets first, whatever order the lengths were pushed in, and
    /// each id gives back the itemset pushed.
    #[test]
    fn flat_sets_number_shortest_first() {
        let pushed: Vec<Vec<u32>> =
            vec![vec![1, 2], vec![0], vec![3, 4, 5], vec![2, 3], vec![7], vec![0, 1, 9]];
        let mut sets = FlatSets::default();
        for s in &pushed {
            sets.push(s);
        }
        let mut expected = pushed.clone();
        expected.sort_by_key(Vec::len);
        assert_eq!(sets.len(), expected.len());
        for (id, s) in expected.iter().enumerate() {
            assert_eq!(sets.get(id), s.as_slice(), "id {id}");
        }
        assert_eq!(sets.iter().map(<[u32]>::to_vec).collect::<Vec<_>>(), expected);
    }

    /// The slices cover the items in order, each but the last holds at least its share of
    /// the work (and `least`), and there are at most `SLICES` + 1 of them.
    #[test]
    fn slices_cut_in_order_by_work() {
        let works: Vec<usize> =
            (0..500).map(|i| (i * 7919) % 97 + usize::from(i % 50 == 0) * 5000).collect();
        let total: usize = works.iter().sum();
        for least in [0, 1, 300, total / 3, total * 2] {
            let cut = super::slices(&works, |&w| w, least);
            assert_eq!(cut.concat(), works, "least {least}");
            let share = (total / super::SLICES).max(least).max(1);
            for s in &cut[..cut.len() - 1] {
                assert!(s.iter().sum::<usize>() >= share, "least {least}");
            }
            assert!(cut.len() <= super::SLICES + 1, "least {least}: {}", cut.len());
        }
        assert!(super::slices(&[] as &[usize], |&w| w, 1).is_empty());
    }

    /// Each item's list gives back, in order, the ids of the itemsets holding it, across gaps
    /// of one to three LEB128 bytes and ids from 0.
    #[test]
    fn id_lists_decode_what_was_written() {
        let mut sets = FlatSets::default();
        let mut rows: Vec<Vec<u32>> = Vec::new();
        for id in 0..40_000u32 {
            // Item 0 in every itemset (gaps of 1), item 1 in every 300th (two bytes), item 2
            // in the first and the last (a gap of three bytes), item 3 in none.
            let mut s = vec![0];
            if id % 300 == 7 {
                s.push(1);
            }
            if id == 0 || id == 39_999 {
                s.push(2);
            }
            rows.push(s);
        }
        rows.sort_by_key(Vec::len);
        for s in &rows {
            sets.push(s);
        }
        let lists = crate::flatsets::IdLists::new(4, &sets);
        for item in 0..4u32 {
            let expected: Vec<u32> = (0..rows.len() as u32)
                .filter(|&id| sets.get(id as usize).contains(&item))
                .collect();
            assert_eq!(lists.ids(item).collect::<Vec<_>>(), expected, "item {item}");
        }
        assert_eq!(crate::flatsets::leb128_len(0), 1);
        assert_eq!(crate::flatsets::leb128_len(127), 1);
        assert_eq!(crate::flatsets::leb128_len(128), 2);
        assert_eq!(crate::flatsets::leb128_len(u64::from(u32::MAX)), 5);
    }
}
