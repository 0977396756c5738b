//! Non-moles and minimal moles of length at most `p`, level by level.

use std::borrow::Cow;

use rayon::prelude::*;
use rustc_hash::FxHashSet;

use txanon_data::progress::{Progress, Unit};

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
    fn find_projecting(
        w: &Working,
        (h, k, p, list_minimal): (f64, u32, usize, bool),
        progress: &Progress,
        limits: Limits,
    ) -> Self {
        let private_count = w.private_ids.len();
        let mut private_counts = vec![0u32; private_count];
        let mut breach = |tids: &[u32]| -> bool {
            let mut touched = Vec::new();
            let mut worst = 0;
            for &t in tids {
                for &s in &w.private[t as usize] {
                    if private_counts[s as usize] == 0 {
                        touched.push(s);
                    }
                    private_counts[s as usize] += 1;
                    worst = worst.max(private_counts[s as usize]);
                }
            }
            for s in touched {
                private_counts[s as usize] = 0;
            }
            breaches(worst, tids.len() as u32, h)
        };
        let mut sets = FlatSets::default();
        let mut minimal = Vec::new();
        let mut minimal_count = 0;
        let mut known = Known::new(w.public_items());
        // Each non-mole of the level with its transactions (the single items' are `w`'s own).
        let mut level: Vec<(Vec<u32>, Cow<'_, [u32]>)> = Vec::new();
        for (j, tids) in w.tids.iter().enumerate() {
            let itemset = vec![j as u32];
            if tids.len() < k as usize || breach(tids) {
                minimal_count += 1;
                if list_minimal {
                    minimal.push(itemset);
                }
            } else {
                known.insert(&itemset);
                level.push((itemset, Cow::Borrowed(tids.as_slice())));
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

/// Slices of the level before the last in [`last_two_levels`], of about equal work (the
/// length of their transaction lists): enough that one slice's share of the last level is
/// small beside all of it, few enough that each slice has work for both workers. Slices of 32
/// grandparents made BMS-WebView-2 at p = 3 a third slower, and 16 slices 17% slower: a heavy
/// item's share leaves the other worker idle at the end of a slice.
const SLICES: usize = 16;

/// Least work of a slice (transaction ids read): below it the slices' barriers cost more than
/// the memory they save (BMS-WebView-2, 0.36 million ids at p = 3, is one slice).
const MIN_SLICE_WORK: usize = 1 << 22;

/// Itemsets of lengths `1..`, flat: those of one length in one buffer, in the order pushed,
/// ids counted shortest first. A non-mole costs its items' words, where a `Vec` each cost
/// three words and an allocation (at p = 3 on kosarak-shaped data, tens of millions of them).
#[derive(Debug, Clone, Default)]
pub(crate) struct FlatSets {
    /// `by_len[l - 1]`: the itemsets of length `l`, concatenated.
    by_len: Vec<Vec<u32>>,
}

impl FlatSets {
    /// Appends `set` (not empty).
    pub fn push(&mut self, set: &[u32]) {
        self.append(set.len(), set);
    }

    /// Appends the itemsets of length `len` concatenated in `flat`.
    fn append(&mut self, len: usize, flat: &[u32]) {
        debug_assert!(len > 0 && flat.len().is_multiple_of(len));
        if self.by_len.len() < len {
            self.by_len.resize_with(len, Vec::new);
        }
        self.by_len[len - 1].extend_from_slice(flat);
    }

    /// Appends the itemsets of length `len` concatenated in `flat`, without a copy when
    /// there are none of that length yet.
    fn append_owned(&mut self, len: usize, flat: Vec<u32>) {
        match self.by_len.get_mut(len - 1) {
            Some(held) if !held.is_empty() => held.extend_from_slice(&flat),
            Some(held) => *held = flat,
            None => {
                self.by_len.resize_with(len - 1, Vec::new);
                self.by_len.push(flat);
            }
        }
    }

    /// How many itemsets.
    pub fn len(&self) -> usize {
        self.by_len.iter().enumerate().map(|(l, flat)| flat.len() / (l + 1)).sum()
    }

    /// The itemset of id `id`: ids count the shorter itemsets first.
    pub fn get(&self, mut id: usize) -> &[u32] {
        for (l, flat) in self.by_len.iter().enumerate() {
            let count = flat.len() / (l + 1);
            if id < count {
                return &flat[id * (l + 1)..(id + 1) * (l + 1)];
            }
            id -= count;
        }
        panic!("itemset id out of range")
    }

    /// Every itemset in id order.
    pub fn iter(&self) -> impl Iterator<Item = &[u32]> + Clone {
        self.by_len.iter().enumerate().flat_map(|(l, flat)| flat.chunks_exact(l + 1))
    }
}

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

/// Per item, the ascending ids of the itemsets of a [`FlatSets`] holding it, each list stored
/// as the gaps between its ids in LEB128 (seven bits a byte): one to three bytes an id where a
/// `u32` took four. At 10⁷ kosarak-shaped transactions and p = 3, the plain lists were as large
/// as the 280 million non-moles themselves.
#[derive(Debug, Clone)]
pub(crate) struct IdLists {
    offsets: Vec<usize>,
    bytes: Vec<u8>,
}

impl IdLists {
    /// The lists of `sets`' items, all below `items`: a pass to size each list, one to fill.
    pub fn new(items: usize, sets: &FlatSets) -> Self {
        let gaps = |f: &mut dyn FnMut(usize, u64)| {
            let mut last: Vec<Option<usize>> = vec![None; items];
            for (id, s) in sets.iter().enumerate() {
                for &i in s {
                    let i = i as usize;
                    let gap = last[i].map_or(id, |l| id - l);
                    last[i] = Some(id);
                    f(i, gap as u64);
                }
            }
        };
        let mut offsets = vec![0usize; items + 1];
        gaps(&mut |i, gap| offsets[i + 1] += leb128_len(gap));
        for i in 0..items {
            offsets[i + 1] += offsets[i];
        }
        let mut bytes = vec![0u8; offsets[items]];
        let mut cursor = offsets[..items].to_vec();
        gaps(&mut |i, mut gap| {
            loop {
                let low = (gap & 0x7f) as u8;
                gap >>= 7;
                bytes[cursor[i]] = if gap == 0 { low } else { low | 0x80 };
                cursor[i] += 1;
                if gap == 0 {
                    break;
                }
            }
        });
        Self { offsets, bytes }
    }

    /// The ids of the itemsets holding `item`, ascending.
    pub fn ids(&self, item: u32) -> impl Iterator<Item = u32> + '_ {
        let i = item as usize;
        let mut bytes = self.bytes[self.offsets[i]..self.offsets[i + 1]].iter();
        let mut id: Option<u64> = None;
        std::iter::from_fn(move || {
            let (mut gap, mut shift) = (0u64, 0);
            loop {
                let b = *bytes.next()?;
                gap |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b & 0x80 == 0 {
                    break;
                }
            }
            let next = id.map_or(gap, |l| l + gap);
            id = Some(next);
            Some(u32::try_from(next).expect("ids were written from usize positions in 32 bits"))
        })
    }
}

/// Bytes of `v` in LEB128.
fn leb128_len(v: u64) -> usize {
    (64 - v.max(1).leading_zeros() as usize).div_ceil(7)
}

/// One level's itemsets: the non-moles (flat, each of the level's length), and the minimal
/// moles (listed when asked) and their number.
#[derive(Default)]
struct Level {
    sets: Vec<u32>,
    minimal: Vec<Vec<u32>>,
    minimal_count: usize,
}

impl Level {
    /// Files the candidates one non-mole extended to.
    fn add(&mut self, found: Extended) {
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
fn last_two_levels(
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
fn begin_level(progress: &Progress, len: usize, level: &[(Vec<u32>, Cow<'_, [u32]>)]) {
    let total = level.iter().map(|(_, tids)| tids.len() as u64).sum();
    let phase = format!("coherence: non-moles of {len} items (transactions read)");
    progress.begin(phase, Unit::Items, total);
}

/// A non-mole of the level before the last two, with its children: the non-moles one item
/// longer that extend it, flat (each `|γ| + 1` items, ascending by their last item).
struct Grandparent<'a> {
    gamma: &'a [u32],
    tids: &'a [u32],
    children: &'a [u32],
}

/// The last level under grandparent `g`: each child `γx` extended by a larger child's last
/// item `y` (the only extensions whose subset `γy` is a non-mole), from `g`'s projection;
/// from the working data when the projection is too large. The same non-moles, minimal
/// moles and order as [`extend`] on each child, in one level per run of children (several
/// when they were extended in parallel), in the children's order.
fn grandchildren(
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
    let private: Vec<bool> = tids.iter().map(|&t| !w.private[t as usize].is_empty()).collect();
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

/// How the last level is searched under each grandparent.
#[derive(Debug, Clone, Copy)]
struct Limits {
    /// Most words of a grandparent's projection; beyond it, its children's transactions are
    /// read from the working data.
    projection: usize,
    /// Least pairs (with repetition) in a grandparent's projection for its children to be
    /// extended in parallel: below it, the grandparent is one worker's share of a slice.
    parallel_pairs: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self { projection: PROJECTION_LIMIT, parallel_pairs: 1 << 24 }
    }
}

/// What extending the children of one grandparent reads: its projection and its rows'
/// transactions.
struct Under<'a> {
    w: &'a Working,
    g: &'a Grandparent<'a>,
    projection: &'a Projection,
    /// Per row of the projection, its transaction, and whether it holds a private item.
    tids: &'a [u32],
    private: &'a [bool],
    /// The children's last items.
    children: &'a [u32],
    known: &'a Known,
    /// Whether a child's extensions are read from the counts in order (else listed as met).
    dense: bool,
    settings: (f64, u32, bool),
}

impl Under<'_> {
    /// Child `x` extended by the larger children's last items that follow it, into `out`: the
    /// non-moles, and the minimal moles. The counters (per child, per child, per private
    /// item) are zero on entry and on return.
    fn extend(
        &self,
        x: usize,
        (extensions, private_pairs, private_seen): (&mut [u32], &mut [u32], &mut [u32]),
        subset: &mut Vec<u32>,
        out: &mut Level,
    ) {
        let (h, k, list_minimal) = self.settings;
        let len = self.g.gamma.len() + 1;
        let child = &self.g.children[x * len..(x + 1) * len];
        let mut touched = Vec::new();
        // Rows holding a private item: the place after the child in one, and the row.
        let mut private_rows: Vec<(usize, usize)> = Vec::new();
        // Each extension's support, and the rows where private items count.
        let private_row = |place, row| {
            if self.private[row] {
                private_rows.push((place, row));
            }
        };
        if self.dense {
            self.projection.each_after(x, |y| extensions[y as usize] += 1, private_row);
            let larger = x as u32 + 1..self.children.len() as u32;
            touched.extend(larger.filter(|&y| extensions[y as usize] != 0));
        } else {
            let first_met = |y: u32| {
                if extensions[y as usize] == 0 {
                    touched.push(y);
                }
                extensions[y as usize] += 1;
            };
            self.projection.each_after(x, first_met, private_row);
            touched.sort_unstable();
        }
        let mut worst = vec![0; touched.len()];
        if !private_rows.is_empty() {
            let rows =
                PrivateRows { projection: self.projection, rows: &private_rows, tids: self.tids };
            rows.most_private(self.w, &touched, (private_pairs, private_seen), &mut worst);
        }
        for (y, most) in touched.into_iter().zip(worst) {
            let support = std::mem::take(&mut extensions[y as usize]);
            let y = self.children[y as usize];
            // The subsets that drop an item of γ (the one dropping `x` is the child `γy`).
            let tested = &child[..len - 1];
            match candidate(child, y, tested, self.known, subset, (support, most), (h, k)) {
                Candidate::NotMinimal => continue,
                Candidate::Mole => {
                    out.minimal_count += 1;
                    if list_minimal {
                        out.minimal.push(child.iter().copied().chain([y]).collect());
                    }
                    continue;
                }
                Candidate::NonMole => {}
            }
            out.sets.extend(child.iter().copied().chain([y]));
        }
    }
}

/// The rows of a grandparent's projection that hold a private item, where a child has
/// followers: the place after the child, and the row (its transaction in `tids`).
struct PrivateRows<'a> {
    projection: &'a Projection,
    rows: &'a [(usize, usize)],
    tids: &'a [u32],
}

impl PrivateRows<'_> {
    /// For each extension in `touched` (ascending, every follower in the rows among them),
    /// the most transactions one private item shares with it, into `worst`: the rows' private
    /// items bucketed by extension (a counting sort), then counted per bucket. `pairs` and
    /// `seen` (per local item, per private item) are zero on entry and on return.
    fn most_private(
        &self,
        w: &Working,
        touched: &[u32],
        (pairs, seen): (&mut [u32], &mut [u32]),
        worst: &mut [u32],
    ) {
        let private = |row: usize| &w.private[self.tids[row] as usize];
        for &(place, row) in self.rows {
            let n = private(row).len() as u32;
            for y in self.projection.following(place) {
                pairs[y as usize] += n;
            }
        }
        let mut start = Vec::with_capacity(touched.len() + 1);
        start.push(0usize);
        for &y in touched {
            let n = std::mem::take(&mut pairs[y as usize]) as usize;
            pairs[y as usize] = *start.last().expect("non-empty") as u32;
            start.push(start.last().expect("non-empty") + n);
        }
        let mut bucketed = vec![0u32; *start.last().expect("non-empty")];
        for &(place, row) in self.rows {
            let held = private(row);
            for y in self.projection.following(place) {
                let at = pairs[y as usize] as usize;
                bucketed[at..at + held.len()].copy_from_slice(held);
                pairs[y as usize] += held.len() as u32;
            }
        }
        for (j, &y) in touched.iter().enumerate() {
            pairs[y as usize] = 0;
            let run = &bucketed[start[j]..start[j + 1]];
            for &s in run {
                seen[s as usize] += 1;
                worst[j] = worst[j].max(seen[s as usize]);
            }
            for &s in run {
                seen[s as usize] = 0;
            }
        }
    }
}

/// What a candidate `prefix ∪ {y}` is.
enum Candidate {
    /// A subset of it is a mole: it is a mole, but not a minimal one.
    NotMinimal,
    /// A minimal mole.
    Mole,
    /// A non-mole: its subsets are, and it has support at least `k` and no breach.
    NonMole,
}

/// Candidate `prefix ∪ {y}` with `support` transactions, `most` of them holding one private
/// item: its subsets that drop an item of `tested` (a run of `prefix`; the others are known
/// non-moles) are looked up in `known`, then its support and breach probability tested.
fn candidate(
    prefix: &[u32],
    y: u32,
    tested: &[u32],
    known: &Known,
    subset: &mut Vec<u32>,
    (support, most): (u32, u32),
    (h, k): (f64, u32),
) -> Candidate {
    let all_non_moles = tested.iter().all(|drop| {
        subset.clear();
        subset.extend(prefix.iter().filter(|i| *i != drop));
        subset.push(y);
        known.contains(subset)
    });
    if !all_non_moles {
        Candidate::NotMinimal
    } else if support < k || breaches(most, support, h) {
        Candidate::Mole
    } else {
        Candidate::NonMole
    }
}

/// The non-moles found so far, for the subset test of a candidate: single items and pairs in
/// bitsets (the test runs once per candidate and subset, tens of millions of times on dense
/// settings, where hashing dominated), longer itemsets in a hash set.
struct Known {
    items: usize,
    singles: Vec<bool>,
    /// Row-major `items × items` bits, `None` when too large.
    pairs: Option<Vec<u64>>,
    longer: FxHashSet<Vec<u32>>,
}

/// Largest pair bitset; beyond it pairs go to the hash set.
const PAIR_BITS_BYTES: usize = 64 << 20;

impl Known {
    fn new(items: usize) -> Self {
        let words = (items * items).div_ceil(64);
        let pairs = (words * 8 <= PAIR_BITS_BYTES).then(|| vec![0u64; words]);
        Self { items, singles: vec![false; items], pairs, longer: FxHashSet::default() }
    }

    fn insert(&mut self, set: &[u32]) {
        match (set, &mut self.pairs) {
            ([a], _) => self.singles[*a as usize] = true,
            ([a, b], Some(bits)) => {
                let at = *a as usize * self.items + *b as usize;
                bits[at / 64] |= 1 << (at % 64);
            }
            _ => {
                self.longer.insert(set.to_vec());
            }
        }
    }

    fn contains(&self, set: &[u32]) -> bool {
        match (set, &self.pairs) {
            ([a], _) => self.singles[*a as usize],
            ([a, b], Some(bits)) => {
                let at = *a as usize * self.items + *b as usize;
                bits[at / 64] & (1 << (at % 64)) != 0
            }
            _ => self.longer.contains(set),
        }
    }
}

/// A worker's counters, all zero between calls of [`extend`].
struct Scratch {
    /// Per public index, its support among the transactions extended.
    extensions: Vec<u32>,
    /// Per public index, its (extension, private item) pairs, then its write cursor.
    private_pairs: Vec<u32>,
    /// Per private index, its count within one extension's transactions.
    private_seen: Vec<u32>,
    /// Per public index, the write cursor of its transactions.
    tid_cursor: Vec<u32>,
    /// Per public index, one more than its child's index in a grandparent's projection.
    child_of: Vec<u32>,
}

impl Scratch {
    fn new(w: &Working) -> Self {
        let private = w.private.iter().flatten().copied().max().map_or(0, |m| m as usize + 1);
        Self {
            extensions: vec![0; w.public_items()],
            private_pairs: vec![0; w.public_items()],
            private_seen: vec![0; private],
            tid_cursor: vec![0; w.public_items()],
            child_of: vec![0; w.public_items()],
        }
    }
}

/// The candidates one non-mole `γ` extends to.
#[derive(Default)]
struct Extended {
    /// The non-moles, concatenated (each `|γ| + 1` items).
    nonmoles: Vec<u32>,
    /// Their transactions, in the same order, when another level follows (else empty).
    within: Vec<Vec<u32>>,
    /// The minimal moles, when listed.
    minimal: Vec<Vec<u32>>,
    /// How many minimal moles, listed or not.
    moles: usize,
}

/// The candidates extending non-mole `gamma` (transactions `tids`) by a larger co-occurring
/// item: one pass over `gamma`'s transactions gives every extension's support and every
/// (extension, private item) co-occurrence, so the breach test needs no second pass; the
/// transactions of each extension are bucketed only if another level will extend it.
fn extend(
    w: &Working,
    gamma: &[u32],
    tids: &[u32],
    known: &Known,
    (h, k, last_level, list_minimal): (f64, u32, bool, bool),
    scratch: &mut Scratch,
    subset: &mut Vec<u32>,
) -> Extended {
    let last = *gamma.last().expect("non-empty");
    let mut touched = Vec::new();
    // First pass: each extension's support and how many (extension, private item) pairs it
    // has; second pass: the private items of each extension's transactions, bucketed by
    // extension (a counting sort: sorting the pairs dominated dense, high-h settings).
    let Scratch { extensions, private_pairs, private_seen, tid_cursor, .. } = scratch;
    for &t in tids {
        let private = w.private[t as usize].len() as u32;
        for &x in &w.public[t as usize] {
            if x > last {
                if extensions[x as usize] == 0 {
                    touched.push(x);
                }
                extensions[x as usize] += 1;
                private_pairs[x as usize] += private;
            }
        }
    }
    touched.sort_unstable();
    let mut start = Vec::with_capacity(touched.len() + 1);
    start.push(0usize);
    for &x in &touched {
        let n = std::mem::take(&mut private_pairs[x as usize]) as usize;
        private_pairs[x as usize] = *start.last().expect("non-empty") as u32;
        start.push(start.last().expect("non-empty") + n);
    }
    let mut bucketed = vec![0u32; *start.last().expect("non-empty")];
    for &t in tids {
        let private = &w.private[t as usize];
        if private.is_empty() {
            continue;
        }
        for &x in &w.public[t as usize] {
            if x > last {
                let at = private_pairs[x as usize] as usize;
                bucketed[at..at + private.len()].copy_from_slice(private);
                private_pairs[x as usize] += private.len() as u32;
            }
        }
    }
    // The transactions of each extension, bucketed the same way in one more pass (ascending,
    // as `tids` is), when another level will extend the non-moles among them: linear in the
    // pass already made, where intersecting `tids` with each extension's list cost a binary
    // search per transaction per extension (two thirds of the set-up at a million
    // transactions).
    let (within, tid_start) = if last_level {
        (Vec::new(), Vec::new())
    } else {
        let mut tid_start = Vec::with_capacity(touched.len() + 1);
        tid_start.push(0usize);
        for &x in &touched {
            tid_cursor[x as usize] = *tid_start.last().expect("non-empty") as u32;
            tid_start.push(tid_start.last().expect("non-empty") + extensions[x as usize] as usize);
        }
        let mut within = vec![0u32; *tid_start.last().expect("non-empty")];
        for &t in tids {
            for &x in &w.public[t as usize] {
                if x > last {
                    within[tid_cursor[x as usize] as usize] = t;
                    tid_cursor[x as usize] += 1;
                }
            }
        }
        (within, tid_start)
    };
    let mut worst = Vec::with_capacity(touched.len());
    for (j, &x) in touched.iter().enumerate() {
        private_pairs[x as usize] = 0;
        let run = &bucketed[start[j]..start[j + 1]];
        let mut most = 0;
        for &s in run {
            let c = &mut private_seen[s as usize];
            *c += 1;
            most = most.max(*c);
        }
        for &s in run {
            private_seen[s as usize] = 0;
        }
        worst.push(most);
    }
    let mut out = Extended::default();
    for (j, (x, worst_private)) in touched.into_iter().zip(worst).enumerate() {
        let support = std::mem::take(&mut extensions[x as usize]);
        // Every subset but the prefix itself must be a non-mole.
        match candidate(gamma, x, gamma, known, subset, (support, worst_private), (h, k)) {
            Candidate::NotMinimal => continue,
            Candidate::Mole => {
                out.moles += 1;
                if list_minimal {
                    out.minimal.push(gamma.iter().copied().chain([x]).collect());
                }
                continue;
            }
            Candidate::NonMole => {}
        }
        out.nonmoles.extend(gamma.iter().copied().chain([x]));
        if !last_level {
            out.within.push(within[tid_start[j]..tid_start[j + 1]].to_vec());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{FlatSets, Limits, NonMoles};
    use crate::working::{Role, Working};
    use proptest::prelude::*;
    use txanon_data::TransactionDb;
    use txanon_data::progress::Progress;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// The last level found from each grandparent's projection, its children extended one
        /// after the other or in parallel, is the one found from the working data (the
        /// fallback when a projection would be too large), in the same order, with the same
        /// minimal moles; and so is a mix of the three (limits some grandparents exceed).
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
            let (mut public, mut secret) = (0, 0);
            let roles: Vec<Role> = (0..db.num_items())
                .map(|i| match db.label(i as u32) {
                    txanon_data::Label::Int(l) if private.contains(&l) => {
                        secret += 1;
                        Role::Private(secret - 1)
                    }
                    _ => {
                        public += 1;
                        Role::Public(public - 1)
                    }
                })
                .collect();
            let w = Working::new(&db, &roles);
            let settings = (h, k, p, true);
            let progress = Progress::default();
            let rows = Limits { projection: 0, ..Limits::default() };
            let by_rows = NonMoles::find_projecting(&w, settings, &progress, rows);
            let parallel = Limits { parallel_pairs: 0, ..Limits::default() };
            let mixed = Limits { projection: mixed_limit, parallel_pairs: mixed_pairs };
            for limits in [Limits::default(), parallel, mixed] {
                let projected = NonMoles::find_projecting(&w, settings, &progress, limits);
                prop_assert_eq!(projected.sets.iter().collect::<Vec<_>>(), by_rows.sets.iter().collect::<Vec<_>>());
                prop_assert_eq!(&projected.minimal, &by_rows.minimal);
                prop_assert_eq!(projected.minimal_count, by_rows.minimal_count);
            }
        }
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
        let lists = super::IdLists::new(4, &sets);
        for item in 0..4u32 {
            let expected: Vec<u32> = (0..rows.len() as u32)
                .filter(|&id| sets.get(id as usize).contains(&item))
                .collect();
            assert_eq!(lists.ids(item).collect::<Vec<_>>(), expected, "item {item}");
        }
        assert_eq!(super::leb128_len(0), 1);
        assert_eq!(super::leb128_len(127), 1);
        assert_eq!(super::leb128_len(128), 2);
        assert_eq!(super::leb128_len(u64::from(u32::MAX)), 5);
    }
}
