//! Who swaps with whom: the destination selections of Algorithm 2 (partial swapping) and
//! Algorithm 4 (full swapping), and the random partners of RandSwap.
//!
//! A record takes part in at most one swap, as source or as destination: the paper does not
//! say, and a record swapped twice could get its own tendency back. Sources are taken in a
//! seeded order (see [`crate::anonymize`]) and a destination is chosen among the records not
//! yet paired; among equally dissimilar destinations, the first in the same order.

use std::cmp::{Ordering, Reverse};

use rand::Rng;
use rand_chacha::ChaCha20Rng;
use txanon_data::progress::Progress;
use txanon_data::sets::intersection_len as shared_count;
use txanon_data::{ItemId, TransactionDb};

use crate::params::{Search, Ties};
use crate::tendency::{Tendency, tied_categories};

/// The items of `t` in the categories `gs` (a few: a record's tendency).
pub(crate) fn items_in(t: &[ItemId], category_of: &[u32], gs: &[u32]) -> Vec<ItemId> {
    let mut items = Vec::new();
    items_in_into(t, category_of, gs, &mut items);
    items
}

/// [`items_in`], appended to `items`.
fn items_in_into(t: &[ItemId], category_of: &[u32], gs: &[u32], items: &mut Vec<ItemId>) {
    items.extend(t.iter().copied().filter(|&i| gs.contains(&category_of[i as usize])));
}

/// `shared / union` as an exact fraction, so that equal similarities compare equal.
#[derive(Debug, Clone, Copy)]
struct Jaccard {
    shared: u64,
    union: u64,
}

impl Jaccard {
    fn of(shared: usize, a: usize, b: usize) -> Self {
        Self { shared: shared as u64, union: (a + b - shared).max(1) as u64 }
    }

    fn less_than(self, other: Jaccard) -> bool {
        self.shared * other.union < other.shared * self.union
    }
}

/// Records of the unpaired set examined at least for a Jaccard-0 destination before the index
/// is asked.
const QUICK_LOOK: usize = 64;

/// A candidate destination ordered by similarity, then by its place in the seeded order.
#[derive(Debug, Clone, Copy)]
struct Ranked {
    jaccard: Jaccard,
    rank: u32,
    record: usize,
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.jaccard.shared * other.jaccard.union)
            .cmp(&(other.jaccard.shared * self.jaccard.union))
            .then(self.rank.cmp(&other.rank))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ranked {}

/// The records still available as destinations, by rank in the seeded order, with how many of
/// each category: what both swappings search (each record's category is given by the caller).
/// A [`LiveOrder`] over the ranks: a search walks from the front past the records taken
/// without stepping over each (an ordered set's inserts and removals showed in the profile at
/// 10⁷ records).
struct Pool {
    live: LiveOrder,
    available: usize,
    in_category: Vec<usize>,
}

impl Pool {
    /// The records `rec` of `r` for which `category(rec)` is some category.
    fn new(r: &Records<'_>, category: impl Fn(usize) -> Option<u32>) -> Self {
        let categories = r.category_of.iter().copied().max().map_or(0, |m| m as usize + 1);
        let mut in_category = vec![0; categories];
        let mut available = 0;
        let live = LiveOrder::new(r.order.len(), |p| match category(r.order[p] as usize) {
            Some(g) => {
                in_category[g as usize] += 1;
                available += 1;
                true
            }
            None => false,
        });
        Self { live, available, in_category }
    }

    /// Whether record `rec` is available.
    fn contains(&self, r: &Records<'_>, rec: usize) -> bool {
        self.live.is_live(r.rank[rec] as usize)
    }

    /// Available records of a category other than `g`.
    fn others(&self, g: u32) -> usize {
        self.available - self.in_category[g as usize]
    }

    /// Record `rec` (of category `g`) is no longer available.
    fn remove(&mut self, r: &Records<'_>, rec: usize, g: u32) {
        let p = r.rank[rec] as usize;
        if self.live.is_live(p) {
            self.live.remove(p);
            self.available -= 1;
            self.in_category[g as usize] -= 1;
        }
    }

    /// The available records, in the seeded order.
    fn records<'a>(&'a mut self, r: &'a Records<'_>) -> impl Iterator<Item = usize> + 'a {
        let mut from = 0;
        std::iter::from_fn(move || {
            let p = self.live.first_from(from);
            (p < r.order.len()).then(|| {
                from = p + 1;
                r.order[p] as usize
            })
        })
    }
}

/// Every record's tendency as categories, flat: the searches ask for them once per candidate
/// they consider, hundreds of millions of times on skewed data, so a slice read.
pub(crate) struct TendencyCategories {
    /// Record `r`'s categories are `categories[starts[r]..starts[r + 1]]`.
    starts: Vec<u32>,
    categories: Vec<u32>,
}

impl TendencyCategories {
    /// Each record's heaviest category (the first of equally heavy ones), or under
    /// [`Ties::All`] every category tied for the heaviest; none without a tendency.
    pub(crate) fn new(
        db: &TransactionDb,
        category_of: &[u32],
        tendency: &[Tendency],
        ties: Ties,
    ) -> Self {
        let mut starts = Vec::with_capacity(db.len() + 1);
        let mut categories = Vec::new();
        let mut scratch = Vec::new();
        starts.push(0);
        for (r, t) in tendency.iter().enumerate() {
            if let Tendency::Category(g) = *t {
                let tied = match ties {
                    Ties::First => Vec::new(),
                    Ties::All => tied_categories(db.transaction(r), category_of, &mut scratch),
                };
                if tied.is_empty() {
                    categories.push(g);
                } else {
                    categories.extend_from_slice(&tied);
                }
            }
            starts.push(categories.len() as u32);
        }
        Self { starts, categories }
    }

    fn of(&self, r: usize) -> &[u32] {
        &self.categories[self.starts[r] as usize..self.starts[r + 1] as usize]
    }
}

/// What partial swapping knows of every record.
pub(crate) struct Records<'a> {
    pub db: &'a TransactionDb,
    pub category_of: &'a [u32],
    pub tendency: &'a [Tendency],
    /// The categories of each record's tendency.
    pub categories: &'a TendencyCategories,
    /// Position of each record in the seeded order.
    pub rank: &'a [u32],
    /// The records in the seeded order.
    pub order: &'a [u32],
    /// Where the pairing counts the records it has gone through.
    pub progress: &'a Progress,
}

impl Records<'_> {
    fn category(&self, r: usize) -> Option<u32> {
        match self.tendency[r] {
            Tendency::Category(g) => Some(g),
            _ => None,
        }
    }

    /// The categories of `r`'s tendency: its heaviest (the first of equally heavy ones), or
    /// under [`crate::Ties::All`] every one tied for the heaviest; none without a tendency.
    pub(crate) fn categories(&self, r: usize) -> &[u32] {
        self.categories.of(r)
    }

    /// The items of `t` that its tendency moves.
    pub(crate) fn moving(&self, t: usize, items: &[ItemId]) -> Vec<ItemId> {
        items_in(items, self.category_of, self.categories(t))
    }

    /// [`Records::moving`], appended to `moving`.
    pub(crate) fn moving_into(&self, t: usize, items: &[ItemId], moving: &mut Vec<ItemId>) {
        items_in_into(items, self.category_of, self.categories(t), moving);
    }

    /// Whether `c` has a tendency of categories other than `t`'s.
    fn apart(&self, t: usize, c: usize) -> bool {
        let theirs = self.categories(c);
        !theirs.is_empty() && !self.categories(t).iter().any(|g| theirs.contains(g))
    }

    /// Whether `c` may take `t`'s tendency items (`moving`) and give its own: a tendency of
    /// other categories, and no item of either side already present on the other.
    fn eligible(&self, t: usize, moving: &[ItemId], c: usize) -> bool {
        if c == t || !self.apart(t, c) {
            return false;
        }
        let tc = self.db.transaction(c);
        if shared_count(moving, tc) > 0 {
            return false;
        }
        let back = self.moving(c, tc);
        shared_count(&back, self.db.transaction(t)) == 0
    }
}

/// Partial swapping's pairs `(source, destination)`, in the order they were made.
pub(crate) fn partial_pairs(records: &Records<'_>, search: Search) -> Vec<(u32, u32)> {
    match search {
        Search::Exhaustive => partial_exhaustive(records),
        Search::Indexed => partial_indexed(records),
        Search::Window(w) => partial_windowed(records, w.get()),
    }
}

/// The paper's search: Jaccard against every record.
fn partial_exhaustive(r: &Records<'_>) -> Vec<(u32, u32)> {
    let mut paired = vec![false; r.db.len()];
    let mut pairs = Vec::new();
    for &t in r.order {
        let t = t as usize;
        if r.category(t).is_none() || paired[t] {
            continue;
        }
        let tt = r.db.transaction(t);
        let moving = r.moving(t, tt);
        let mut best: Option<(Jaccard, usize)> = None;
        for &c in r.order {
            let c = c as usize;
            if paired[c] || !r.eligible(t, &moving, c) {
                continue;
            }
            let tc = r.db.transaction(c);
            let j = Jaccard::of(shared_count(tt, tc), tt.len(), tc.len());
            if best.is_none_or(|(b, _)| j.less_than(b)) {
                best = Some((j, c));
            }
        }
        if let Some((_, c)) = best {
            paired[t] = true;
            paired[c] = true;
            pairs.push((t as u32, c as u32));
        }
    }
    pairs
}

/// An inverted index over the records with a tendency (only they can be destinations), and
/// per record its overlap with the source being served. Built at the first count: on Quest
/// baskets no source needs it (each finds a record sharing nothing in its first look), and
/// building it reads every occurrence and holds a list per item.
struct Overlaps {
    /// Per item, the records holding it (paired ones dropped as they are met); empty until
    /// the first count.
    lists: Vec<Vec<u32>>,
    /// Per item, the records with a tendency holding it: the lists' lengths until they are
    /// built.
    holders: Vec<usize>,
    built: bool,
    /// Items shared with the current source, per record (0 for records not in `touched`).
    shared: Vec<u32>,
    /// Records with a non-zero `shared`.
    touched: Vec<u32>,
}

impl Overlaps {
    fn new(r: &Records<'_>) -> Self {
        let mut holders = vec![0; r.db.num_items()];
        for rec in 0..r.db.len() {
            if r.category(rec).is_some() {
                for &i in r.db.transaction(rec) {
                    holders[i as usize] += 1;
                }
            }
        }
        Self { lists: Vec::new(), holders, built: false, shared: Vec::new(), touched: Vec::new() }
    }

    /// The length of item `i`'s list.
    fn listed(&self, i: ItemId) -> usize {
        if self.built { self.lists[i as usize].len() } else { self.holders[i as usize] }
    }

    /// The lists as [`Overlaps::new`] would have built them up front: nothing has left them
    /// before the first count.
    fn build(&mut self, r: &Records<'_>) {
        self.lists = self.holders.iter().map(|&h| Vec::with_capacity(h)).collect();
        for rec in 0..r.db.len() {
            if r.category(rec).is_some() {
                for &i in r.db.transaction(rec) {
                    self.lists[i as usize].push(rec as u32);
                }
            }
        }
        self.shared = vec![0; r.db.len()];
        self.built = true;
    }

    /// Counts, for every unpaired record other than `t`, the items it shares with `t`.
    fn count(&mut self, r: &Records<'_>, t: usize, items: &[ItemId], paired: &[bool]) {
        if !self.built {
            self.build(r);
        }
        let Self { lists, shared, touched, .. } = self;
        for &i in items {
            // Paired records leave the lists as they are met, so each is dropped once; the
            // rest are counted in the same pass.
            lists[i as usize].retain(|&c| {
                if paired[c as usize] {
                    return false;
                }
                if c as usize != t {
                    if shared[c as usize] == 0 {
                        touched.push(c);
                    }
                    shared[c as usize] += 1;
                }
                true
            });
        }
    }

    /// Forgets the counts of the last source.
    fn clear(&mut self) {
        for &c in &self.touched {
            self.shared[c as usize] = 0;
        }
        self.touched.clear();
    }
}

/// Among `apart`, the records sharing an item with `t` (counted in `overlaps`) whose tendency
/// is of other categories, the least similar eligible one (ties by rank). The least similar is
/// found by one scan and is most often eligible; only when it is not are the rest ordered and
/// tried least similar first, so the collision checks run on few of them.
fn least_similar_eligible(
    r: &Records<'_>,
    t: usize,
    apart: &[u32],
    overlaps: &Overlaps,
) -> Option<usize> {
    let tt = r.db.transaction(t);
    let moving = r.moving(t, tt);
    let ranked = |&c: &u32| {
        let c = c as usize;
        let j = Jaccard::of(overlaps.shared[c] as usize, tt.len(), r.db.transaction(c).len());
        Ranked { jaccard: j, rank: r.rank[c], record: c }
    };
    let least = apart.iter().map(ranked).min()?;
    if r.eligible(t, &moving, least.record) {
        return Some(least.record);
    }
    let mut rest: std::collections::BinaryHeap<Reverse<Ranked>> =
        apart.iter().map(ranked).filter(|c| c.record != least.record).map(Reverse).collect();
    while let Some(Reverse(candidate)) = rest.pop() {
        if r.eligible(t, &moving, candidate.record) {
            return Some(candidate.record);
        }
    }
    None
}

/// The same answer without comparing every pair. A destination sharing no item with `t` has
/// Jaccard 0, the minimum, and is eligible as soon as its tendency differs (no item of either
/// side can collide); the first such record in the seeded order is the answer. Only when every
/// candidate shares an item are the sharing records, found through an inverted index, compared.
fn partial_indexed(r: &Records<'_>) -> Vec<(u32, u32)> {
    let n = r.db.len();
    // Unpaired records with a tendency.
    let mut unpaired = Pool::new(r, |rec| r.category(rec));
    let mut overlaps = Overlaps::new(r);
    let mut in_t = vec![false; r.db.num_items()];
    let mut paired = vec![false; n];
    let mut pairs = Vec::new();
    let average_len = (r.db.occurrences() / n.max(1)).max(1);
    // The records sharing an item with the source whose tendency is of other categories.
    let mut apart: Vec<u32> = Vec::new();
    for (done, &t) in r.order.iter().enumerate() {
        if done % 65_536 == 65_535 {
            r.progress.advance(65_536);
        }
        let t = t as usize;
        let Some(g) = r.category(t) else { continue };
        if paired[t] {
            continue;
        }
        let others = unpaired.others(g);
        if others == 0 {
            paired[t] = true;
            unpaired.remove(r, t, g);
            continue;
        }
        let tt = r.db.transaction(t);
        for &i in tt {
            in_t[i as usize] = true;
        }
        // Jaccard 0: the first record in the seeded order of another tendency sharing nothing.
        // It is usually among the first few; a bounded look, then the index says whether one
        // exists at all before the whole set is walked. The look goes as far as it costs less
        // than the index would: counting the overlaps walks every list of `t`'s items, and
        // looking at a record reads about an average record's items (on retail, where the
        // records left late in the order share a popular item with most others, counting was
        // most of the time).
        let sharing_nothing = |c: usize| r.db.transaction(c).iter().all(|&i| !in_t[i as usize]);
        let listed: usize = tt.iter().map(|&i| overlaps.listed(i)).sum();
        let look = QUICK_LOOK.max(listed / average_len);
        let mut found =
            unpaired.records(r).take(look).find(|&c| r.apart(t, c) && sharing_nothing(c));
        if found.is_none() {
            overlaps.count(r, t, tt, &paired);
            apart.clear();
            apart.extend(overlaps.touched.iter().filter(|&&c| r.apart(t, c as usize)));
            let sharing_others = apart.len();
            // `others` counts the records of another heaviest category: exactly the records
            // apart from `t` when each tendency is one category, an upper bound when tied
            // categories count; then a record sharing nothing may still not be apart.
            found = if sharing_others < others {
                unpaired.records(r).find(|&c| overlaps.shared[c] == 0 && r.apart(t, c))
            } else {
                None
            };
            if found.is_none() {
                found = least_similar_eligible(r, t, &apart, &overlaps);
            }
            overlaps.clear();
        }
        for &i in tt {
            in_t[i as usize] = false;
        }
        // A source that found no destination leaves the candidates too: eligibility is
        // symmetric and the unpaired records only become fewer, so no later source could take
        // it. Left in, such records gather at the front of the order and every later search
        // would walk past them.
        let leaving = match found {
            Some(c) => {
                pairs.push((t as u32, c as u32));
                vec![t, c]
            }
            None => vec![t],
        };
        for rec in leaving {
            paired[rec] = true;
            unpaired.remove(r, rec, r.category(rec).expect("has a tendency"));
        }
    }
    pairs
}

/// The records of the seeded order still available, each found from any position in amortized
/// near-constant time: `next[p]` leads to the first live position at or after `p` (path
/// halving), so a walk does not step over the records already taken one by one.
struct LiveOrder {
    next: Vec<u32>,
}

impl LiveOrder {
    /// Live: the positions `p` for which `live(p)`, asked in ascending order; position `len`
    /// is the end.
    fn new(len: usize, mut live: impl FnMut(usize) -> bool) -> Self {
        let next = (0..=len).map(|p| if p == len || live(p) { p } else { p + 1 } as u32).collect();
        Self { next }
    }

    /// The first live position at or after `p` (the length when none).
    fn first_from(&mut self, mut p: usize) -> usize {
        while self.next[p] as usize != p {
            let up = self.next[p] as usize;
            self.next[p] = self.next[up];
            p = up;
        }
        p
    }

    /// Whether position `p` is still available.
    fn is_live(&self, p: usize) -> bool {
        self.next[p] as usize == p
    }

    /// Position `p` is taken.
    fn remove(&mut self, p: usize) {
        self.next[p] = p as u32 + 1;
    }
}

/// Flags of the source's items in [`partial_windowed`]'s scratch array.
const IN_SOURCE: u8 = 1;
const MOVING: u8 = 2;

/// The bounded search ([`Search::Window`]): for each source, the least similar eligible record
/// among the first `window` records of another tendency after it in the seeded order (ties by
/// that order); if none of them is eligible, the next `window`, and so on, so a destination is
/// found whenever the exact searches find one. A record sharing no item is the minimum and
/// ends the search at once. With a window as large as the candidates it is the exhaustive
/// search's answer. A source reads at most `window` records of another tendency (and the
/// records of its own met among them) when one of them is eligible, however many candidates
/// share an item with it: the exact searches read all of those.
fn partial_windowed(r: &Records<'_>, window: usize) -> Vec<(u32, u32)> {
    let n = r.db.len();
    let categories = r.category_of.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut in_category = vec![0usize; categories];
    for g in (0..n).filter_map(|rec| r.category(rec)) {
        in_category[g as usize] += 1;
    }
    let mut live_count: usize = in_category.iter().sum();
    let mut live = LiveOrder::new(n, |p| r.category(r.order[p] as usize).is_some());
    // Takes `rec` out of the candidates; returns how many of another category than its own
    // are left.
    let mut leave = |rec: usize, live: &mut LiveOrder| {
        let g = r.category(rec).expect("has a tendency") as usize;
        live.remove(r.rank[rec] as usize);
        in_category[g] -= 1;
        live_count -= 1;
        live_count - in_category[g]
    };
    let mut flags = vec![0u8; r.db.num_items()];
    let mut pairs = Vec::new();
    let mut position = 0;
    let mut reported = 0;
    loop {
        position = live.first_from(position);
        if position == n {
            break;
        }
        while reported + 65_536 <= position {
            r.progress.advance(65_536);
            reported += 65_536;
        }
        let t = r.order[position] as usize;
        // The source leaves the candidates whether or not it finds a destination (see
        // `partial_indexed`).
        let others = leave(t, &mut live);
        if others == 0 {
            continue;
        }
        let tt = r.db.transaction(t);
        let mine = r.categories(t);
        for &i in tt {
            let moving = mine.contains(&r.category_of[i as usize]);
            flags[i as usize] = IN_SOURCE | if moving { MOVING } else { 0 };
        }
        let mut best: Option<(Jaccard, usize)> = None;
        let mut read = 0;
        let mut p = live.first_from(position + 1);
        while p < n {
            let c = r.order[p] as usize;
            p = live.first_from(p + 1);
            if !r.apart(t, c) {
                continue;
            }
            let tc = r.db.transaction(c);
            let theirs = r.categories(c);
            let (mut shared, mut collides) = (0usize, false);
            for &i in tc {
                let f = flags[i as usize];
                if f != 0 {
                    shared += 1;
                    collides |= f & MOVING != 0 || theirs.contains(&r.category_of[i as usize]);
                }
            }
            if shared == 0 {
                best = Some((Jaccard::of(0, tt.len(), tc.len()), c));
                break;
            }
            let j = Jaccard::of(shared, tt.len(), tc.len());
            if !collides && best.is_none_or(|(b, _)| j.less_than(b)) {
                best = Some((j, c));
            }
            read += 1;
            if read % window == 0 && best.is_some() {
                break;
            }
        }
        for &i in tt {
            flags[i as usize] = 0;
        }
        if let Some((_, c)) = best {
            pairs.push((t as u32, c as u32));
            leave(c, &mut live);
        }
    }
    pairs
}

/// Full swapping's pairs: each record of one category (and several items), in the seeded
/// order, with the first unpaired such record of another category. Records of different
/// single categories share no item, so every candidate has Jaccard 0: the minimum is the
/// first in the order.
pub(crate) fn full_pairs(r: &Records<'_>) -> Vec<(u32, u32)> {
    let single = |rec: usize| match r.tendency[rec] {
        Tendency::Single(g) => Some(g),
        _ => None,
    };
    let mut unpaired = Pool::new(r, single);
    let mut pairs = Vec::new();
    for &t in r.order {
        let t = t as usize;
        let Some(g) = single(t) else { continue };
        if !unpaired.contains(r, t) || unpaired.others(g) == 0 {
            continue;
        }
        let c = unpaired
            .records(r)
            .find(|&c| single(c) != Some(g))
            .expect("counted: another category is unpaired");
        for rec in [t, c] {
            unpaired.remove(r, rec, single(rec).expect("single"));
        }
        pairs.push((t as u32, c as u32));
    }
    pairs
}

/// RandSwap's pairs: each record with a tendency, in the seeded order, with a uniformly random
/// record among those not yet paired (any record, tendency or not).
pub(crate) fn random_pairs(r: &Records<'_>, rng: &mut ChaCha20Rng) -> Vec<(u32, u32)> {
    let n = r.db.len();
    // The unpaired records in a vector, with each one's position, for O(1) removal.
    let mut pool: Vec<u32> = r.order.to_vec();
    let mut position = vec![0usize; n];
    for (p, &rec) in pool.iter().enumerate() {
        position[rec as usize] = p;
    }
    let remove = |pool: &mut Vec<u32>, position: &mut Vec<usize>, rec: usize| {
        let p = position[rec];
        let last = *pool.last().expect("present");
        pool.swap_remove(p);
        if last as usize != rec {
            position[last as usize] = p;
        }
        position[rec] = usize::MAX;
    };
    let mut pairs = Vec::new();
    for &t in r.order {
        let t = t as usize;
        if r.category(t).is_none() || position[t] == usize::MAX {
            continue;
        }
        remove(&mut pool, &mut position, t);
        if pool.is_empty() {
            break;
        }
        let c = pool[rng.random_range(0..pool.len())] as usize;
        remove(&mut pool, &mut position, c);
        pairs.push((t as u32, c as u32));
    }
    pairs
}

#[cfg(test)]
mod tests {

    use proptest::prelude::*;

    use super::*;
    use crate::tendency::{tendency_of, tied_categories};
    use std::collections::BTreeSet;

    /// The window's definition, written plainly: sources in the order; for each, the records
    /// after it still unpaired whose tendency shares no category with its own, cut into runs
    /// of `window`; in the first run holding an eligible record (no item of either side's
    /// tendency already on the other side), the least similar by exact Jaccard, the first in
    /// the order among equals.
    fn by_definition(
        rows: &[BTreeSet<u32>],
        category_of: &[u32],
        tendencies: &[BTreeSet<u32>],
        order: &[usize],
        window: usize,
    ) -> Vec<(u32, u32)> {
        let mut taken = vec![false; rows.len()];
        let mut pairs = Vec::new();
        let moving = |r: usize| -> BTreeSet<u32> {
            rows[r]
                .iter()
                .copied()
                .filter(|&i| tendencies[r].contains(&category_of[i as usize]))
                .collect()
        };
        for (p, &t) in order.iter().enumerate() {
            if tendencies[t].is_empty() || taken[t] {
                continue;
            }
            taken[t] = true;
            let candidates: Vec<usize> = order[p + 1..]
                .iter()
                .copied()
                .filter(|&c| !taken[c] && !tendencies[c].is_empty())
                .filter(|&c| tendencies[c].is_disjoint(&tendencies[t]))
                .collect();
            let jaccard = |c: usize| {
                let shared = rows[t].intersection(&rows[c]).count() as u64;
                let union = rows[t].union(&rows[c]).count().max(1) as u64;
                (shared, union)
            };
            let eligible =
                |c: usize| moving(t).is_disjoint(&rows[c]) && moving(c).is_disjoint(&rows[t]);
            // A candidate sharing nothing is the minimum wherever it stands in its run.
            let zero = candidates.iter().position(|&c| jaccard(c).0 == 0);
            let mut found = None;
            for (k, run) in candidates.chunks(window).enumerate() {
                if zero.is_some_and(|z| z / window == k) {
                    found = Some(candidates[zero.unwrap()]);
                    break;
                }
                let mut best: Option<((u64, u64), usize)> = None;
                for &c in run.iter().filter(|&&c| eligible(c)) {
                    let j = jaccard(c);
                    if best.is_none_or(|(b, _)| {
                        (j.0 as u128) * (b.1 as u128) < (b.0 as u128) * (j.1 as u128)
                    }) {
                        best = Some((j, c));
                    }
                }
                if let Some((_, c)) = best {
                    found = Some(c);
                    break;
                }
            }
            if let Some(c) = found {
                taken[c] = true;
                pairs.push((t as u32, c as u32));
            }
        }
        pairs
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// The bounded search makes the definition's pairs for windows from one record to more
        /// than the candidates, under both tie rules.
        #[test]
        fn window_is_its_definition(
            rows in prop::collection::vec(prop::collection::btree_set(0u32..16, 0..7), 2..50),
            category_of in prop::collection::vec(0u32..4, 16),
            shuffle in prop::collection::vec(any::<u32>(), 50),
            window in 1usize..6,
            all_ties in any::<bool>(),
        ) {
            let db = TransactionDb::from_int_transactions(
                rows.iter().map(|t| t.iter().copied().collect::<Vec<_>>()));
            // Item ids are ranks of the labels 0..16 present; categories by label.
            let category_of: Vec<u32> =
                (0..db.num_items()).map(|i| category_of[db.label(i as u32).to_string().parse::<usize>().unwrap()]).collect();
            let rows: Vec<BTreeSet<u32>> = db.iter().map(|t| t.iter().copied().collect()).collect();
            let n = rows.len();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&r| (shuffle[r], r));
            let mut rank = vec![0u32; n];
            for (p, &r) in order.iter().enumerate() {
                rank[r] = p as u32;
            }
            let mut scratch = Vec::new();
            let tendency: Vec<Tendency> =
                db.iter().map(|t| tendency_of(t, &category_of, &mut scratch)).collect();
            let tied: std::collections::HashMap<u32, Vec<u32>> = if all_ties {
                (0..n)
                    .filter(|&r| matches!(tendency[r], Tendency::Category(_)))
                    .filter_map(|r| {
                        let tied = tied_categories(db.transaction(r), &category_of, &mut scratch);
                        (!tied.is_empty()).then_some((r as u32, tied))
                    })
                    .collect()
            } else {
                std::collections::HashMap::new()
            };
            let tendencies: Vec<BTreeSet<u32>> = (0..n)
                .map(|r| match (&tendency[r], tied.get(&(r as u32))) {
                    (Tendency::Category(_), Some(all)) => all.iter().copied().collect(),
                    (Tendency::Category(g), None) => BTreeSet::from([*g]),
                    _ => BTreeSet::new(),
                })
                .collect();
            let order32: Vec<u32> = order.iter().map(|&r| r as u32).collect();
            let progress = Progress::default();
            let ties = if all_ties { Ties::All } else { Ties::First };
            let categories = TendencyCategories::new(&db, &category_of, &tendency, ties);
            let records = Records {
                db: &db,
                category_of: &category_of,
                tendency: &tendency,
                categories: &categories,
                rank: &rank,
                order: &order32,
                progress: &progress,
            };
            let got = partial_windowed(&records, window);
            prop_assert_eq!(&got, &by_definition(&rows, &category_of, &tendencies, &order, window));
            let all = partial_windowed(&records, n);
            prop_assert_eq!(&all, &partial_exhaustive(&records));
        }
    }
}
