//! The last level's extension: each child of a grandparent extended by the larger children's
//! last items, from the grandparent's projection or the working data, into non-moles and
//! minimal moles.

use rustc_hash::FxHashSet;
use txanon_data::fetch::{FIRST_LINE, fetched_ahead};

use crate::nonmoles::{Grandparent, Level};
use crate::projection::Projection;
use crate::working::{Working, breaches};

/// What extending the children of one grandparent reads: its projection and its rows'
/// transactions.
pub(crate) struct Under<'a> {
    pub(crate) w: &'a Working,
    pub(crate) g: &'a Grandparent<'a>,
    pub(crate) projection: &'a Projection,
    /// Per row of the projection, its transaction, and whether it holds a private item.
    pub(crate) tids: &'a [u32],
    pub(crate) private: &'a [bool],
    /// The children's last items.
    pub(crate) children: &'a [u32],
    pub(crate) known: &'a Known,
    /// Whether a child's extensions are read from the counts in order (else listed as met).
    pub(crate) dense: bool,
    pub(crate) settings: (f64, u32, bool),
}

impl Under<'_> {
    /// Child `x` extended by the larger children's last items that follow it, into `out`: the
    /// non-moles, and the minimal moles. The counters (per child, per child, per private
    /// item) are zero on entry and on return.
    ///
    /// Long as one function: the last level's hot loop, each child's rows read once with its
    /// counters in locals; apart, they would be passed per row.
    pub(crate) fn extend(
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
pub(crate) struct PrivateRows<'a> {
    pub(crate) projection: &'a Projection,
    pub(crate) rows: &'a [(usize, usize)],
    pub(crate) tids: &'a [u32],
}

impl PrivateRows<'_> {
    /// For each extension in `touched` (ascending, every follower in the rows among them),
    /// the most transactions one private item shares with it, into `worst`: the rows' private
    /// items bucketed by extension (a counting sort), then counted per bucket. `pairs` and
    /// `seen` (per local item, per private item) are zero on entry and on return.
    pub(crate) fn most_private(
        &self,
        w: &Working,
        touched: &[u32],
        (pairs, seen): (&mut [u32], &mut [u32]),
        worst: &mut [u32],
    ) {
        let private = |row: usize| w.private_of(self.tids[row]);
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
pub(crate) enum Candidate {
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
pub(crate) fn candidate(
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
pub(crate) struct Known {
    pub(crate) items: usize,
    pub(crate) singles: Vec<bool>,
    /// Row-major `items × items` bits, `None` when too large.
    pub(crate) pairs: Option<Vec<u64>>,
    pub(crate) longer: FxHashSet<Vec<u32>>,
}

/// Largest pair bitset; beyond it pairs go to the hash set.
pub(crate) const PAIR_BITS_BYTES: usize = 64 << 20;

impl Known {
    pub(crate) fn new(items: usize) -> Self {
        let words = (items * items).div_ceil(64);
        let pairs = (words * 8 <= PAIR_BITS_BYTES).then(|| vec![0u64; words]);
        Self { items, singles: vec![false; items], pairs, longer: FxHashSet::default() }
    }

    pub(crate) fn insert(&mut self, set: &[u32]) {
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

    pub(crate) fn contains(&self, set: &[u32]) -> bool {
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
pub(crate) struct Scratch {
    /// Per public index, its support among the transactions extended.
    pub(crate) extensions: Vec<u32>,
    /// Per public index, its (extension, private item) pairs, then its write cursor.
    pub(crate) private_pairs: Vec<u32>,
    /// Per private index, its count within one extension's transactions.
    pub(crate) private_seen: Vec<u32>,
    /// Per public index, the write cursor of its transactions.
    pub(crate) tid_cursor: Vec<u32>,
    /// Per public index, one more than its child's index in a grandparent's projection.
    pub(crate) child_of: Vec<u32>,
}

impl Scratch {
    pub(crate) fn new(w: &Working) -> Self {
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
pub(crate) struct Extended {
    /// The non-moles, concatenated (each `|γ| + 1` items).
    pub(crate) nonmoles: Vec<u32>,
    /// Their transactions, in the same order, when another level follows (else empty).
    pub(crate) within: Vec<Vec<u32>>,
    /// The minimal moles, when listed.
    pub(crate) minimal: Vec<Vec<u32>>,
    /// How many minimal moles, listed or not.
    pub(crate) moles: usize,
}

/// The candidates extending non-mole `gamma` (transactions `tids`) by a larger co-occurring
/// item: one pass over `gamma`'s transactions gives every extension's support and every
/// (extension, private item) co-occurrence, so the breach test needs no second pass; the
/// transactions of each extension are bucketed only if another level will extend it.
pub(crate) fn extend(
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
    // Each transaction's rows are scattered over the working data (a cache miss each at
    // scale): a batch's first lines are fetched together before it is scanned.
    for t in fetched_ahead(tids, |t| &w.public[t as usize], FIRST_LINE) {
        let private = w.private_of(t).len() as u32;
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
        let private = w.private_of(t);
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
