//! The band order and the group formation heuristic (the CAHD paper's Figure 7).

use crate::Cahd;
use txanon_data::{Family, MarkedDb};

use txanon_band::{BandEnvelopes, Permutation, band_order_while};
use txanon_data::fetch::{FIRST_LINE, fetched_ahead};
use txanon_data::progress::{Progress, Unit};
use txanon_data::{ItemId, TransactionDb};

use crate::audit::{CahdAuditReport, OriginalQids, audit, audit_against};
use crate::error::CahdError;
use crate::params::{BandOrder, ValidCahdParams};
use crate::publish::{PublishedGroups, publish, publish_while};

/// What group formation did, for the summary and the experiments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct GroupingStats {
    /// Transactions holding at least one sensitive item.
    pub sensitive_transactions: usize,
    /// Groups of `p` formed around a sensitive transaction.
    pub groups_formed: usize,
    /// Groups formed and rolled back because the rest could no longer be made private (some
    /// sensitive item would be in more than `1/p` of the remaining transactions).
    pub rolled_back: usize,
    /// Sensitive transactions without `p − 1` non-conflicting candidates in reach.
    pub without_candidates: usize,
    /// Size of the final group of all remaining transactions (0 if none remained).
    pub final_group: usize,
}

/// Transactions grouped, as indices into the input, in band order of their group's first
/// member; the last group holds the remaining transactions. Every transaction is in exactly one
/// group (built only by [`form_groups`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grouping {
    groups: Vec<Vec<u32>>,
    stats: GroupingStats,
}

impl Grouping {
    /// A grouping of this crate's making (every transaction in exactly one group).
    pub(crate) fn new(groups: Vec<Vec<u32>>, stats: GroupingStats) -> Self {
        Self { groups, stats }
    }

    /// The groups, as indices into the input.
    pub fn groups(&self) -> &[Vec<u32>] {
        &self.groups
    }

    /// What group formation did.
    pub fn stats(&self) -> GroupingStats {
        self.stats
    }
}

/// The anonymization: the published groups and what it took.
#[derive(Debug)]
pub struct CahdPublication {
    /// The published groups (shuffled; labels).
    pub published: PublishedGroups,
    /// The grouping before publication (input indices; not published).
    pub grouping: Grouping,
    /// Bandwidth and profile of the QID graph before and after reordering (RCM only).
    pub band: Option<BandEnvelopes>,
    /// The audit the groups passed: degree `p` for the sensitive items given, and the groups
    /// against the input.
    pub audit: CahdAuditReport,
}

/// Anonymizes `db` so that each item of `sensitive` is linked to any transaction with
/// probability at most `1/p`: reorders the transactions into a band over the QID items (all
/// items but the sensitive ones), forms groups ([`form_groups`]), and publishes each group's
/// QID itemsets with its sensitive items' counts, shuffled ([`PublishedGroups`]).
///
/// # Complexity
/// The band order (`txanon_band::band_order`: `O(Σ|t|)` per breadth-first search, a few
/// searches per component), then [`form_groups`], then the publication's sort and shuffle
/// (`O(Σ|t| log)`) and the audit (`O(Σ|t|)` with the original).
///
/// # Errors
/// [`CahdError::NoSensitiveItems`] for an empty `sensitive`; [`CahdError::Infeasible`] when a
/// sensitive item is in more than `1/p` of the transactions (no grouping can then be private);
/// [`CahdError::Audit`] if the groups fail their audit (a bug: nothing is returned to publish).
///
/// # Panics
/// When a sensitive item id is not an item of `db`.
pub fn anonymize(
    db: &TransactionDb,
    sensitive: &[ItemId],
    params: &ValidCahdParams,
) -> Result<CahdPublication, CahdError> {
    let is_sensitive = feasible_sensitive(db, sensitive, params.p())?;
    let claim = Cahd::claim(params, MarkedDb { db, marked: sensitive })?;
    // Nobody watching costs an atomic addition per block.
    let progress = params.progress_handle().cloned().unwrap_or_default();
    let mut rng = txanon_data::publication_rng(params.seed(), db);
    // The grouping runs on one core; the band's envelopes and the rows of the groups already
    // formed need no more of it and are made on the other core meanwhile. The audit's side of
    // the original needs no order: it is made while the band order is searched (on one core
    // for most of its time), where beside the grouping it took the other core from the
    // grouping's own split of the rows.
    let mut group = |order: &Permutation| {
        progress.begin("cahd: grouping (transactions in band order)", Unit::Items, db.len() as u64);
        let walk = Walk::Jumping;
        let degree = (params.p(), params.alpha());
        let grouping = |formed: &mut dyn FnMut(&[u32])| {
            let order = order.order();
            form_groups_walking(db, &is_sensitive, order, degree, walk, &progress, formed).0
        };
        publish_while(db, &is_sensitive, params.p(), &mut rng, grouping)
    };
    let ordered = || match params.order() {
        BandOrder::Rcm(kind) => {
            progress.begin("cahd: band order (RCM: vertices searched)", Unit::Items, 0);
            let keep: Vec<bool> = is_sensitive.iter().map(|&s| !s).collect();
            let (banded, grouped) = band_order_while(db, &keep, kind, Some(&progress), group);
            (Some(banded.envelopes), grouped)
        }
        BandOrder::Input => (None, group(&Permutation::identity(db.len()))),
    };
    let ((band, (grouping, published)), original) =
        rayon::join(ordered, || OriginalQids::of(db, &claim));
    progress.begin("cahd: auditing", Unit::Items, 0);
    let audit = audit_against(&published, &claim, &original)?;
    Ok(CahdPublication { published, grouping, band, audit })
}

/// The per-item sensitive flags of `sensitive`, once the privacy degree `p` is known to be
/// reachable: what every grouping of this crate starts from.
pub(crate) fn feasible_sensitive(
    db: &TransactionDb,
    sensitive: &[ItemId],
    p: usize,
) -> Result<Vec<bool>, CahdError> {
    if sensitive.is_empty() {
        return Err(CahdError::NoSensitiveItems);
    }
    let mut is_sensitive = vec![false; db.num_items()];
    for &s in sensitive {
        is_sensitive[s as usize] = true;
    }
    check_feasible(db, sensitive, p)?;
    Ok(is_sensitive)
}

/// Publishes `grouping` (shuffled by the publication RNG) and audits it against the privacy
/// degree of `params` and the items of `sensitive`: what every grouping of this crate ends with.
pub(crate) fn publish_audited(
    db: &TransactionDb,
    sensitive: &[ItemId],
    is_sensitive: &[bool],
    grouping: Grouping,
    band: Option<BandEnvelopes>,
    params: &ValidCahdParams,
) -> Result<CahdPublication, CahdError> {
    let mut rng = txanon_data::publication_rng(params.seed(), db);
    let published = publish(db, is_sensitive, grouping.groups(), params.p(), &mut rng);
    let claim = Cahd::claim(params, MarkedDb { db, marked: sensitive })?;
    let audit = audit(&published, &claim, Some(db))?;
    Ok(CahdPublication { published, grouping, band, audit })
}

/// Fails when some sensitive item is in more than `1/p` of all transactions.
fn check_feasible(db: &TransactionDb, sensitive: &[ItemId], p: usize) -> Result<(), CahdError> {
    let n = db.len();
    match sensitive.iter().map(|&s| (s, db.supports()[s as usize] as usize)).max_by_key(|x| x.1) {
        Some((s, support)) if support as u128 * p as u128 > n as u128 => {
            Err(CahdError::Infeasible {
                item: db.label(s).to_string(),
                support,
                transactions: n,
                p,
                max_p: n / support.max(1),
            })
        }
        _ => Ok(()),
    }
}

/// "The nearest position at or beyond `k`" over a set of positions that only shrinks: a
/// union-find with path halving, each position outside the set linked towards its neighbour
/// (near-constant amortized time per query).
#[derive(Debug)]
struct Links {
    /// `ahead[k] == k` for a position in the set, else a position further ahead; `n` is the
    /// end.
    ahead: Vec<u32>,
    /// The same backwards, shifted by one: `behind[k + 1]` for position `k`, `0` the start.
    behind: Vec<u32>,
}

/// The root of `k` in a union-find whose links only point one way (path halving).
fn root(links: &mut [u32], mut k: usize) -> usize {
    while links[k] as usize != k {
        let up = links[links[k] as usize];
        links[k] = up;
        k = up as usize;
    }
    k
}

impl Links {
    /// Every position of `0..n`.
    fn new(n: usize) -> Self {
        Self { ahead: (0..=n as u32).collect(), behind: (0..=n as u32).collect() }
    }

    /// The nearest position of the set at `k` or beyond it (before it, `backwards`); `k` may
    /// lie outside `0..n` (then there is none that way).
    fn nearest(&mut self, k: isize, backwards: bool) -> Option<usize> {
        let n = self.ahead.len() - 1;
        if backwards {
            let k = usize::try_from(k).ok()?.min(n.checked_sub(1)?);
            root(&mut self.behind, k + 1).checked_sub(1)
        } else {
            let k = usize::try_from(k.max(0)).ok()?;
            (k < n).then(|| root(&mut self.ahead, k)).filter(|&r| r < n)
        }
    }

    fn remove(&mut self, pos: usize) {
        self.ahead[pos] = pos as u32 + 1;
        self.behind[pos + 1] = pos as u32;
    }
}

/// One sensitive item's holders (positions in band order, ascending) and the gaps between
/// consecutive holders known to hold no ungrouped position. Gaps only empty as positions are
/// grouped, so a gap found empty is linked once and stays linked: a walk over a run of holders
/// whose gaps the scan has emptied jumps it whole.
#[derive(Debug)]
struct Holders {
    positions: Vec<u32>,
    /// Union-find over holder indices: `ahead[j] == j` unless the gap after holder `j` is
    /// known empty (then it points to a later holder).
    ahead: Vec<u32>,
    /// The same for the gap before holder `j`, pointing to an earlier holder.
    behind: Vec<u32>,
}

impl Holders {
    fn new(positions: Vec<u32>) -> Self {
        let indices: Vec<u32> = (0..positions.len() as u32).collect();
        Self { positions, ahead: indices.clone(), behind: indices }
    }
}

/// The positions (in band order) not yet grouped, and each sensitive item's holders among all
/// positions. A candidate walk asks for the nearest ungrouped position holding none of its
/// transaction's sensitive items: where the nearest ungrouped one holds such an item, the walk
/// jumps the run of that item's holders with no ungrouped position between them, instead of
/// testing them one by one. Where a band keeps an item's holders together and the scan has
/// grouped the transactions between them, a walk would otherwise pass all the holders ahead of
/// it, `r²` steps for `r` of them: quadratic in the data once the non-sensitive transactions
/// near a run are used up (10⁷ transactions with 5% of the items sensitive, docs/SCALE.md).
#[derive(Debug)]
struct Ungrouped<'a> {
    any: Links,
    /// By sensitive item rank.
    holders: Vec<Holders>,
    grouped: Vec<bool>,
    remaining: usize,
    /// The sensitive items (ascending) of the transaction at each position.
    sensitive: &'a TransactionDb,
    /// For each item of `sensitive` (aligned with its items), the position's index among the
    /// item's holders: a walk meeting a holder found it by a binary search among thousands of
    /// holders, a fifth of the grouping at 10⁷ with 270 sensitive items.
    holder_index: Vec<u32>,
    /// The rank of each sensitive item (by item id).
    rank: &'a [usize],
    /// Gaps found empty, for the tests: how often a walk really jumped.
    gaps_linked: u64,
}

impl<'a> Ungrouped<'a> {
    fn new(sensitive: &'a TransactionDb, rank: &'a [usize], items: usize) -> Self {
        let n = sensitive.len();
        // One pass over the positions (each one's items read once) lists the holders.
        let mut positions: Vec<Vec<u32>> = vec![Vec::new(); items];
        let mut holder_index = Vec::with_capacity(sensitive.items().len());
        for (pos, mine) in sensitive.iter().enumerate() {
            for &s in mine {
                let holders = &mut positions[rank[s as usize]];
                holder_index.push(holders.len() as u32);
                holders.push(pos as u32);
            }
        }
        Self {
            any: Links::new(n),
            holders: positions.into_iter().map(Holders::new).collect(),
            grouped: vec![false; n],
            remaining: n,
            sensitive,
            holder_index,
            rank,
            gaps_linked: 0,
        }
    }

    fn is_grouped(&self, pos: usize) -> bool {
        self.grouped[pos]
    }

    /// The nearest ungrouped position at `k` or beyond (before it, `backwards`) that holds
    /// none of the sensitive items marked `mine` (by item id); or, once the search passes
    /// `limit` (the caller knows the answer beyond it), an ungrouped position past it.
    fn nearest_clear(
        &mut self,
        k: isize,
        backwards: bool,
        mine: &[bool],
        limit: Option<usize>,
    ) -> Option<usize> {
        let past = |u: usize| limit.is_some_and(|l| if backwards { u < l } else { u > l });
        let mut at = k;
        loop {
            let u = self.any.nearest(at, backwards)?;
            if past(u) {
                return Some(u);
            }
            let theirs = self.sensitive.transaction(u);
            // Marked by item: a binary search of `mine` per item met was a sixth of the
            // grouping at 10⁷ with 270 sensitive items.
            let Some(k) = theirs.iter().position(|&s| mine[s as usize]) else {
                return Some(u);
            };
            let j = self.holder_index[self.sensitive.offsets()[u] + k] as usize;
            at = self.past_run(self.rank[theirs[k] as usize], j, backwards, past)? as isize;
        }
    }

    /// The nearest ungrouped position beyond holder `j` of the item ranked `r` (before it,
    /// `backwards`) that does not hold the item, or the first one found `past` the caller's
    /// limit.
    fn past_run(
        &mut self,
        r: usize,
        mut j: usize,
        backwards: bool,
        past: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let holders = &mut self.holders[r];
        loop {
            if backwards {
                j = root(&mut holders.behind, j);
                let v = self.any.nearest(holders.positions[j] as isize - 1, true)?;
                match j.checked_sub(1) {
                    Some(before) if v <= holders.positions[before] as usize && !past(v) => {
                        holders.behind[j] = before as u32;
                        self.gaps_linked += 1;
                    }
                    _ => return Some(v),
                }
            } else {
                j = root(&mut holders.ahead, j);
                let v = self.any.nearest(holders.positions[j] as isize + 1, false)?;
                match holders.positions.get(j + 1) {
                    Some(&after) if v >= after as usize && !past(v) => {
                        holders.ahead[j] = j as u32 + 1;
                        self.gaps_linked += 1;
                    }
                    _ => return Some(v),
                }
            }
        }
    }

    fn remove(&mut self, pos: usize) {
        self.grouped[pos] = true;
        self.remaining -= 1;
        self.any.remove(pos);
    }

    /// The positions left, in band order.
    fn rest(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.grouped.len()).filter(|&k| !self.grouped[k])
    }
}

/// The last candidate walk of each set of sensitive items, for the next transaction holding
/// the same set: between the two, positions were only grouped, never freed, and which ones
/// conflict depends on the set alone. So while none of the last walk's candidates has been
/// grouped, its candidates before its start are still the nearest clear positions below it, and
/// its candidates after its start are still every clear position up to its farthest. A walk
/// from a later position of the same set stops at the last walk's start (backwards) or starts
/// from its farthest (forwards) and takes the rest from its lists: the leftovers of a band with
/// 5% of the items sensitive are long runs of their holders, which every walk passed again
/// (at 10⁷ with 270 sensitive items and the sym-pad band, 1.6·10⁹ look-ups of the nearest
/// ungrouped position without the last walks, 4.3·10⁸ with them).
///
/// Direct-mapped by a hash of the set: a slot holds the last walk of the last set hashed to
/// it, known by its start's sensitive items, so memory is bounded whatever the number of sets.
#[derive(Debug)]
struct LastWalks {
    reach: usize,
    /// Per slot, the walk's start ([`LastWalks::NONE`] for none) and its lists' lengths.
    start: Vec<(u32, u32, u32)>,
    /// Per slot, `2 · reach` positions: the candidates before the start, nearest first, then
    /// those after it, nearest first.
    lists: Vec<u32>,
}

/// A previous walk of the transaction's own sensitive items whose candidates are all still
/// ungrouped.
#[derive(Debug, Clone, Copy)]
struct Reusable<'w> {
    start: usize,
    /// Each nearest first, at most `reach`: a list shorter than `reach` met the band's end.
    before: &'w [u32],
    after: &'w [u32],
}

impl LastWalks {
    const NONE: u32 = u32::MAX;
    /// The lists' memory, in positions: a few hundred thousand sets at 10⁷ with 270 sensitive
    /// items, most of which recur within a few thousand positions.
    const POSITIONS: usize = 1 << 23;

    /// For walks of `reach` candidates each way over `n` positions; none kept where the
    /// positions do not fit in `u32` or a walk would not fit in the lists' memory.
    fn new(reach: usize, n: usize) -> Self {
        let slots = if n < Self::NONE as usize && reach > 0 && 2 * reach <= Self::POSITIONS {
            ((Self::POSITIONS / (2 * reach)).next_power_of_two() / 2).min(n.next_power_of_two())
        } else {
            0
        };
        Self { reach, start: vec![(Self::NONE, 0, 0); slots], lists: vec![0; slots * 2 * reach] }
    }

    fn slot(&self, set: &[ItemId]) -> Option<usize> {
        if self.start.is_empty() || set.is_empty() {
            return None;
        }
        let mut h = 0x243F_6A88_85A3_08D3_u64;
        for &s in set {
            h = (h ^ u64::from(s)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        Some((h >> 32) as usize & (self.start.len() - 1))
    }

    /// The last walk from a position holding exactly `set`, if none of its candidates is
    /// grouped since.
    fn reusable<'w, 's>(
        &'w self,
        set: &[ItemId],
        sensitive_of: impl Fn(usize) -> &'s [ItemId],
        is_grouped: impl Fn(usize) -> bool,
    ) -> Option<Reusable<'w>> {
        let slot = self.slot(set)?;
        let (start, before, after) = self.start[slot];
        if start == Self::NONE || sensitive_of(start as usize) != set {
            return None;
        }
        let lists = &self.lists[slot * 2 * self.reach..(slot + 1) * 2 * self.reach];
        let (before, after) =
            (&lists[..before as usize], &lists[self.reach..self.reach + after as usize]);
        if before.iter().chain(after).any(|&k| is_grouped(k as usize)) {
            return None;
        }
        Some(Reusable { start: start as usize, before, after })
    }

    /// Keeps the walk from `start` (holding `set`): `before` and `after` it, nearest first.
    fn keep(&mut self, set: &[ItemId], start: usize, before: &[usize], after: &[usize]) {
        let Some(slot) = self.slot(set) else { return };
        self.start[slot] = (start as u32, before.len() as u32, after.len() as u32);
        let lists = &mut self.lists[slot * 2 * self.reach..(slot + 1) * 2 * self.reach];
        for (to, &k) in lists.iter_mut().zip(before) {
            *to = k as u32;
        }
        for (to, &k) in lists[self.reach..].iter_mut().zip(after) {
            *to = k as u32;
        }
    }
}

/// The candidates walked around `pos`, `before` it (nearest first) and `after` it (nearest
/// first), merged nearest first into `out`, a predecessor before a successor at the same
/// distance.
fn nearest_first(pos: usize, before: &[usize], after: &[usize], out: &mut Vec<usize>) {
    out.clear();
    let (mut b, mut a) = (before.iter().peekable(), after.iter().peekable());
    loop {
        let take_before = match (b.peek(), a.peek()) {
            (Some(&&x), Some(&&y)) => pos - x <= y - pos,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return,
        };
        out.extend(if take_before { b.next() } else { a.next() });
    }
}

/// The candidates `by_distance` (in [`nearest_first`]'s order) best first into `out`: most QID
/// items shared (`shared`, aligned with them) first, the order by distance kept among equals,
/// so the rule's order (most shared, then nearest, then the predecessor) by one counting pass,
/// where a sort of `u128` keys of the three compared every pair it met (1% of
/// `form-groups/quest-1M` with 270 sensitive items, 4% with ten).
fn most_shared_first(
    by_distance: &[usize],
    shared: &[u32],
    starts: &mut Vec<usize>,
    out: &mut Vec<usize>,
) {
    let most = shared.iter().copied().max().unwrap_or(0) as usize;
    // `starts[most − s]`: where the candidates sharing `s` items begin in `out`.
    starts.clear();
    starts.resize(most + 2, 0);
    for &s in shared {
        starts[most - s as usize + 1] += 1;
    }
    for j in 1..starts.len() {
        starts[j] += starts[j - 1];
    }
    out.clear();
    out.resize(by_distance.len(), 0);
    for (&k, &s) in by_distance.iter().zip(shared) {
        let at = &mut starts[most - s as usize];
        out[*at] = k;
        *at += 1;
    }
}

/// A proof, before any candidate is ranked, that no `p − 1` of them can join a group.
///
/// The members taken share no sensitive item with each other, so each item of a set `H` that
/// every candidate holding a sensitive item holds one of (a hitting set) is in at most one of
/// them: at most `|H|` such members, plus every candidate holding none. `H` is built in one
/// pass: each candidate that holds none of `H` yet adds its item held by the most candidates.
/// The proof is given up once the bound reaches `p − 1`. At 10⁷ with 270 sensitive items, 2.0
/// of the 2.9 million sensitive transactions find no group, and their candidates' QID rows
/// were read and ranked for nothing.
#[derive(Debug)]
struct Unfillable {
    /// How many candidates hold each item (by item id), or [`Unfillable::IN_H`] once the item
    /// is in `H`; zero between proofs.
    holding: Vec<u32>,
    /// The items counted, to be set back to zero.
    counted: Vec<ItemId>,
}

impl Unfillable {
    const IN_H: u32 = u32::MAX;

    fn new(items: usize) -> Self {
        Self { holding: vec![0; items], counted: Vec::new() }
    }

    /// Whether the bound proves that fewer than `needed` of `candidates` share no sensitive
    /// item (their lists, ascending, from `sensitive_of`) with each other.
    fn proven<'s>(
        &mut self,
        candidates: &[usize],
        sensitive_of: impl Fn(usize) -> &'s [ItemId],
        needed: usize,
    ) -> bool {
        // Candidates holding no sensitive item are often enough alone (before the final group
        // comes near, most transactions are found a group).
        let mut bound = candidates.iter().filter(|&&k| sensitive_of(k).is_empty()).count();
        if bound >= needed {
            return false;
        }
        for &k in candidates {
            for &s in sensitive_of(k) {
                let holding = &mut self.holding[s as usize];
                if *holding == 0 {
                    self.counted.push(s);
                }
                *holding += 1;
            }
        }
        let mut proven = true;
        for &k in candidates {
            // The item held most (the highest id among equals) as one key, unless one is in
            // `H`: zero for none, as every item counted is held once at least.
            let mut most = 0u64;
            for &s in sensitive_of(k) {
                let holding = self.holding[s as usize];
                if holding == Self::IN_H {
                    most = 0;
                    break;
                }
                most = most.max(u64::from(holding) << 32 | u64::from(s));
            }
            if most == 0 {
                continue;
            }
            self.holding[most as u32 as usize] = Self::IN_H;
            bound += 1;
            if bound >= needed {
                proven = false;
                break;
            }
        }
        for s in self.counted.drain(..) {
            self.holding[s as usize] = 0;
        }
        proven
    }
}

/// A set of sensitive item ranks, one bit each.
#[derive(Debug)]
struct RankSet(Vec<u64>);

impl RankSet {
    fn new(ranks: usize) -> Self {
        Self(vec![0; ranks.div_ceil(64)])
    }

    fn insert(&mut self, r: usize) {
        self.0[r / 64] |= 1 << (r % 64);
    }

    fn remove(&mut self, r: usize) {
        self.0[r / 64] &= !(1 << (r % 64));
    }

    fn contains(&self, r: usize) -> bool {
        self.0[r / 64] & (1 << (r % 64)) != 0
    }
}

/// Whether two sorted lists of sensitive items share one.
fn conflicts(a: &[ItemId], b: &[ItemId]) -> bool {
    txanon_data::sets::intersection_len(a, b) > 0
}

/// The CAHD group formation heuristic (Ghinita, Tao, Kalnis, ICDE 2008, Figure 7), over the
/// transactions listed in `order` (band order).
///
/// A histogram `H` counts each sensitive item over the transactions not yet grouped. The
/// sensitive transactions are visited in band order; for each one `t` still ungrouped:
/// 1. its candidates are the `α·p` nearest ungrouped predecessors and the `α·p` nearest
///    ungrouped successors that share no sensitive item with `t` (conflicting ones are passed
///    over and do not count);
/// 2. they are ranked by the number of QID items they share with `t` (most first), then by
///    their distance to `t` in the band, then predecessors before successors;
/// 3. the group is `t` and the first `p − 1` ranked candidates that share no sensitive item
///    with `t` or with a candidate already taken. The paper asks only that candidates not
///    conflict with `t`; two candidates holding the same sensitive item would put it twice in a
///    group of `p`, above `|G|/p`, so they are kept apart too. Without `p − 1` such candidates
///    `t` is left for the final group;
/// 4. if, without the group, some sensitive item `s` would have `H[s]·p` above the number of
///    remaining transactions, the group is rolled back (`t` is left for the final group);
///    otherwise it is kept.
///
/// Finally every transaction not grouped forms one group, which step 4 keeps private.
///
/// # Complexity
/// `O(Σ|t|)` to split every transaction into its sensitive and QID items, once, laid out in
/// band order, and to list each sensitive item's holders (`O(Σ|t ∩ S|)` memory, with each
/// occurrence's index among its item's holders); `O(n)` for the walk; per sensitive
/// transaction, the candidate scan: `2αp` non-conflicting positions at least, reached by
/// union-find over the ungrouped positions and over the gaps between each conflicting item's
/// holders (a run of holders with no ungrouped position between them is one jump, in
/// near-constant amortized time), and only between the last walk of the same sensitive items
/// and `t` where none of that walk's candidates has been grouped since (`LastWalks`); a
/// proof that `t` can form no group, in two passes over the candidates' sensitive items
/// (`Unfillable`: most transactions left ungrouped are left there without their candidates'
/// QID rows being read); otherwise the candidates merged by distance and ordered by
/// similarity in one counting pass (each candidate's QID items looked up among `t`'s, marked
/// in an array by item); each candidate's conflicts a bit per sensitive item;
/// and `O(|S|)` for the histogram check.
pub fn form_groups(
    db: &TransactionDb,
    is_sensitive: &[bool],
    order: &[u32],
    p: usize,
    alpha: usize,
) -> Grouping {
    let (walk, none) = (Walk::Jumping, Progress::new());
    form_groups_walking(db, is_sensitive, order, (p, alpha), walk, &none, &mut |_| ()).0
}

/// How often a grouping's walk took its shortcuts, for the tests: whether they were exercised.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(test), allow(dead_code))]
struct Shortcuts {
    /// Gaps between an item's holders found empty (each one jumped from then on).
    gaps_linked: u64,
    /// Transactions left ungrouped on [`Unfillable`]'s proof, their candidates never ranked.
    proven_unfillable: u64,
    /// Walks that went by a last walk of [`LastWalks`]: backwards, forwards.
    walks_reused: [u64; 2],
}

/// How a candidate walk passes over the positions that conflict with its transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// Jumping each run of holders of a conflicting item whose gaps the scan has emptied, and
    /// leaving a transaction ungrouped as soon as [`Unfillable`] proves it must be.
    Jumping,
    /// One position at a time, every transaction's candidates ranked and tried (the tests'
    /// comparison: the groups must be the same).
    #[cfg_attr(not(test), allow(dead_code))]
    Stepping,
}

/// [`form_groups`], walking as `walk` says, each group but the final one handed to `formed`
/// as it is formed, and how often the shortcuts were taken.
///
/// Long as one function: the paper's Figure 7 as one loop over the band order; the candidates, the
/// holders and the histogram's rollback share its state.
fn form_groups_walking(
    db: &TransactionDb,
    is_sensitive: &[bool],
    order: &[u32],
    (p, alpha): (usize, usize),
    walk: Walk,
    progress: &Progress,
    formed: &mut dyn FnMut(&[u32]),
) -> (Grouping, Shortcuts) {
    let n = order.len();
    // Each transaction's sensitive and QID items, split once and laid out in band order: the
    // walks read the rows of neighbouring positions, which were scattered over the input's
    // order, a cache miss each.
    let (sensitive, qid) = {
        let order: Vec<usize> = order.iter().map(|&t| t as usize).collect();
        db.select_split(&order, |i| is_sensitive[i as usize])
    };
    let sensitive_of = |pos: usize| sensitive.transaction(pos);
    let sensitive_items: Vec<ItemId> =
        (0..db.num_items() as ItemId).filter(|&i| is_sensitive[i as usize]).collect();
    let mut rank = vec![usize::MAX; db.num_items()];
    for (k, &s) in sensitive_items.iter().enumerate() {
        rank[s as usize] = k;
    }
    let mut histogram = vec![0usize; db.num_items()];
    for &s in &sensitive_items {
        histogram[s as usize] = db.supports()[s as usize] as usize;
    }
    let mut ungrouped = Ungrouped::new(&sensitive, &rank, sensitive_items.len());
    let mut stats = GroupingStats::default();
    let mut groups: Vec<Vec<u32>> = Vec::new();
    // At most every transaction on one side: α·p beyond n means all of them (and must not
    // overflow for any α a flag can hold).
    let reach = alpha.saturating_mul(p).min(n);
    // The candidates nearest first, the QID items each shares with the transaction at hand,
    // and best first (with the counting pass's starts).
    let mut by_distance: Vec<usize> = Vec::with_capacity(2 * reach);
    let mut shared: Vec<u32> = Vec::with_capacity(2 * reach);
    let (mut candidates, mut starts): (Vec<usize>, Vec<usize>) =
        (Vec::with_capacity(2 * reach), Vec::new());
    let (mut members, mut held): (Vec<usize>, Vec<ItemId>) = (Vec::new(), Vec::new());
    // The sensitive items of the group being formed, by rank: a candidate conflicts when it
    // holds one. Merging its list with the sorted list held so far, then sorting that list
    // again after each member taken, was a fifth of the grouping at 10⁷ with 270 sensitive
    // items, where most transactions try every candidate and find no `p − 1` free of
    // conflicts.
    let mut held_ranks = RankSet::new(sensitive_items.len());
    let mut walked: Vec<usize> = Vec::with_capacity(2 * reach);
    let (mut last_walks, mut walks_reused) = (LastWalks::new(reach, n), [0; 2]);
    let (mut unfillable, mut proven_unfillable) = (Unfillable::new(db.num_items()), 0);
    // The QID items of the transaction whose candidates are scored, by item.
    let mut in_t = vec![false; db.num_items()];
    // The sensitive items of the transaction whose candidates are walked, by item.
    let mut is_mine = vec![false; db.num_items()];
    for pos in 0..n {
        if pos % 65_536 == 65_535 {
            progress.advance(65_536);
        }
        let mine = sensitive_of(pos);
        if ungrouped.is_grouped(pos) || mine.is_empty() {
            continue;
        }
        stats.sensitive_transactions += 1;
        let t = qid.transaction(pos);
        walked.clear();
        let mut predecessors = 0;
        for &s in mine {
            is_mine[s as usize] = true;
        }
        // Every position the walk passes over conflicts with `mine`.
        let reuse = match walk {
            Walk::Jumping => last_walks.reusable(mine, sensitive_of, |k| ungrouped.is_grouped(k)),
            Walk::Stepping => None,
        };
        for backwards in [true, false] {
            let step = |k: usize| if backwards { k as isize - 1 } else { k as isize + 1 };
            // Backwards, the walk stops on passing the last walk's start; forwards, it starts
            // at the last walk's farthest candidate, past the ones it lists.
            let limit = reuse.map(|r| r.start).filter(|_| backwards);
            let mut next = |k: usize| match walk {
                Walk::Jumping => ungrouped.nearest_clear(step(k), backwards, &is_mine, limit),
                Walk::Stepping => {
                    let mut at = ungrouped.any.nearest(step(k), backwards);
                    while let Some(u) = at.filter(|&u| conflicts(sensitive_of(u), mine)) {
                        at = ungrouped.any.nearest(step(u), backwards);
                    }
                    at
                }
            };
            let (mut taken, mut from) = (0, Some(pos));
            if let Some(r) = reuse.filter(|_| !backwards) {
                let ahead = &r.after[r.after.partition_point(|&k| (k as usize) < pos)..];
                walked.extend(ahead.iter().map(|&k| k as usize));
                taken = ahead.len();
                // A list short of `reach` met the band's end: nothing clear lies beyond it.
                from = match r.after.last() {
                    Some(&last) if r.after.len() == reach => Some(pos.max(last as usize)),
                    _ => None,
                };
                walks_reused[1] += 1;
            }
            // The walk stops at its last candidate, before searching past it.
            let mut at = from.filter(|_| taken < reach).and_then(&mut next);
            while let Some(k) = at.filter(|_| taken < reach) {
                if let Some(r) = reuse.filter(|r| backwards && k < r.start) {
                    // Below the last walk's start, the clear positions are its list's.
                    walked.extend(r.before.iter().take(reach - taken).map(|&k| k as usize));
                    walks_reused[0] += 1;
                    break;
                }
                walked.push(k);
                taken += 1;
                at = if taken < reach { next(k) } else { None };
            }
            if backwards {
                predecessors = walked.len();
            }
        }
        if walk == Walk::Jumping {
            let (before, after) = walked.split_at(predecessors);
            last_walks.keep(mine, pos, before, after);
        }
        for &s in mine {
            is_mine[s as usize] = false;
        }
        if walk == Walk::Jumping && unfillable.proven(&walked, sensitive_of, p.saturating_sub(1)) {
            stats.without_candidates += 1;
            proven_unfillable += 1;
            continue;
        }
        let (before, after) = walked.split_at(predecessors);
        nearest_first(pos, before, after, &mut by_distance);
        // The candidates' rows lie apart in memory once the positions between them are grouped:
        // found first, then read with a batch's first lines fetched together, where reading
        // each as the walk met it waited for one cache miss after another.
        let row = |k: usize| qid.transaction(k);
        // The items shared with `t`, counted by looking each candidate's items up among `t`'s
        // marked ones: a merge of the two sorted lists branched on every item, and up to
        // `2αp` candidates are compared with the one `t`.
        for &i in t {
            in_t[i as usize] = true;
        }
        shared.clear();
        shared.extend(
            fetched_ahead(&by_distance, row, FIRST_LINE)
                .map(|k| row(k).iter().filter(|&&i| in_t[i as usize]).count() as u32),
        );
        for &i in t {
            in_t[i as usize] = false;
        }
        most_shared_first(&by_distance, &shared, &mut starts, &mut candidates);
        members.clear();
        members.push(pos);
        held.clear();
        held.extend_from_slice(mine);
        for &s in mine {
            held_ranks.insert(rank[s as usize]);
        }
        for &k in &candidates {
            if members.len() == p {
                break;
            }
            let theirs = sensitive_of(k);
            if !theirs.iter().any(|&s| held_ranks.contains(rank[s as usize])) {
                members.push(k);
                held.extend_from_slice(theirs);
                for &s in theirs {
                    held_ranks.insert(rank[s as usize]);
                }
            }
        }
        for &s in &held {
            held_ranks.remove(rank[s as usize]);
        }
        if members.len() < p {
            stats.without_candidates += 1;
            continue;
        }
        for &s in &held {
            histogram[s as usize] -= 1;
        }
        let left = ungrouped.remaining - members.len();
        if sensitive_items.iter().any(|&s| histogram[s as usize] * p > left) {
            for &s in &held {
                histogram[s as usize] += 1;
            }
            stats.rolled_back += 1;
            continue;
        }
        stats.groups_formed += 1;
        for &k in &members {
            ungrouped.remove(k);
        }
        members.sort_unstable();
        let group: Vec<u32> = members.iter().map(|&k| order[k]).collect();
        formed(&group);
        groups.push(group);
    }
    let rest: Vec<u32> = ungrouped.rest().map(|k| order[k]).collect();
    stats.final_group = rest.len();
    if !rest.is_empty() {
        groups.push(rest);
    }
    let shortcuts =
        Shortcuts { gaps_linked: ungrouped.gaps_linked, proven_unfillable, walks_reused };
    (Grouping { groups, stats }, shortcuts)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use proptest::prelude::*;

    use super::*;

    /// The candidates come best first as the rule says (most QID items shared, then nearest,
    /// then the predecessor), from the walks' two lists nearest first, at distances up to the
    /// largest a band order holds. Counts the cases with a tie on sharing and distance, which
    /// only the side decides.
    #[test]
    fn candidates_come_best_first_as_the_rule_says() {
        let distance = || prop_oneof![3 => 1usize..6, 1 => 1usize..(1 << 31)];
        let side = || prop::collection::btree_map(distance(), 0u32..4, 0..8);
        let strategy = ((1usize << 31)..(3usize << 31), side(), side());
        let exercised = txanon_testkit::exercised(2000, strategy, |(pos, before, after)| {
            let before: Vec<(usize, u32)> = before.into_iter().map(|(d, s)| (pos - d, s)).collect();
            let after: Vec<(usize, u32)> = after.into_iter().map(|(d, s)| (pos + d, s)).collect();
            let positions = |side: &[(usize, u32)]| side.iter().map(|c| c.0).collect::<Vec<_>>();
            let mut by_distance = Vec::new();
            nearest_first(pos, &positions(&before), &positions(&after), &mut by_distance);
            let shared_of: std::collections::HashMap<usize, u32> =
                before.iter().chain(&after).copied().collect();
            let shared: Vec<u32> = by_distance.iter().map(|k| shared_of[k]).collect();
            let (mut starts, mut best_first) = (Vec::new(), Vec::new());
            most_shared_first(&by_distance, &shared, &mut starts, &mut best_first);
            let mut expected: Vec<usize> = shared_of.keys().copied().collect();
            expected.sort_by_key(|&k| (std::cmp::Reverse(shared_of[&k]), pos.abs_diff(k), k));
            prop_assert_eq!(&best_first, &expected);
            Ok(before.iter().any(|&(k, s)| shared_of.get(&(2 * pos - k)) == Some(&s)))
        });
        exercised.at_least(0.05, "a tie on sharing and distance, decided by the side");
    }

    /// The groups of `rows` (items by label; sorted first if `sorted`, holders of the same
    /// items side by side as a band keeps them) in their order, the items whose label
    /// `sensitive` says sensitive: by the walk that takes its shortcuts, with how often it
    /// did, and by the walk that steps and tries every candidate.
    fn walked_both_ways(
        rows: &[std::collections::BTreeSet<u32>],
        sensitive: impl Fn(u32) -> bool,
        degree: (usize, usize),
        sorted: bool,
    ) -> ((Grouping, Shortcuts), Grouping) {
        let mut rows: Vec<Vec<u32>> = rows.iter().map(|t| t.iter().copied().collect()).collect();
        if sorted {
            rows.sort();
        }
        let db = TransactionDb::from_int_transactions(rows);
        let is_sensitive: Vec<bool> = (0..db.num_items() as ItemId)
            .map(|i| sensitive(db.label(i).to_string().parse::<u32>().unwrap()))
            .collect();
        let order: Vec<u32> = (0..db.len() as u32).collect();
        let none = Progress::new();
        let walking = |walk| {
            form_groups_walking(&db, &is_sensitive, &order, degree, walk, &none, &mut |_| ())
        };
        (walking(Walk::Jumping), walking(Walk::Stepping).0)
    }

    /// Jumping the runs of conflicting holders changes the cost, never the groups: the walks
    /// that test every position one by one form the same ones. Counts the cases in which some
    /// walk really jumped a run (a gap between two holders found empty).
    #[test]
    fn jumping_conflicting_runs_does_not_change_the_groups() {
        let strategy = (
            prop::collection::vec(prop::collection::btree_set(0u32..12, 1..5), 4..120),
            prop::collection::btree_set(0u32..12, 1..5),
            2usize..5,
            1usize..4,
            any::<bool>(),
        );
        let exercised =
            txanon_testkit::exercised(300, strategy, |(rows, sensitive, p, alpha, sorted)| {
                let is_sensitive = |label: u32| sensitive.contains(&label);
                let ((jumping, shortcuts), stepping) =
                    walked_both_ways(&rows, is_sensitive, (p, alpha), sorted);
                prop_assert_eq!(jumping, stepping);
                Ok(shortcuts.gaps_linked > 0)
            });
        exercised.at_least(0.5, "jumped a run of conflicting holders");
    }

    /// A last walk is given back only to its own set of sensitive items, and only while none
    /// of its candidates is grouped: with one slot (one position), every set shares it.
    #[test]
    fn a_last_walk_serves_only_its_own_items_while_its_candidates_are_ungrouped() {
        let rows: Vec<Vec<ItemId>> = vec![vec![1, 2], vec![3], vec![], vec![], vec![]];
        let sensitive_of = |k: usize| rows[k].as_slice();
        let mut walks = LastWalks::new(2, 1);
        assert_eq!(walks.start.len(), 1, "one slot");
        assert!(walks.reusable(&[1, 2], sensitive_of, |_| false).is_none(), "nothing kept yet");
        walks.keep(&[1, 2], 0, &[], &[2, 3]);
        let kept = walks.reusable(&[1, 2], sensitive_of, |_| false).expect("its own items");
        assert_eq!((kept.start, kept.before, kept.after), (0, &[][..], &[2, 3][..]));
        // Another set in the same slot is not served the walk of {1, 2}.
        assert!(walks.reusable(&[3], sensitive_of, |_| false).is_none());
        assert!(walks.reusable(&[1], sensitive_of, |_| false).is_none());
        // Once a candidate is grouped, the walk is stale.
        assert!(walks.reusable(&[1, 2], sensitive_of, |k| k == 3).is_none());
        // The slot now holds the walk of {3}, which replaces that of {1, 2}.
        walks.keep(&[3], 1, &[4], &[]);
        assert!(walks.reusable(&[1, 2], sensitive_of, |_| false).is_none());
        let kept = walks.reusable(&[3], sensitive_of, |_| false).expect("its own items");
        assert_eq!((kept.start, kept.before, kept.after), (1, &[4][..], &[][..]));
        // No walk is kept for a transaction without sensitive items, nor for walks that do not
        // fit the lists' memory.
        assert!(walks.slot(&[]).is_none());
        assert!(LastWalks::new(LastWalks::POSITIONS, 1 << 30).slot(&[1]).is_none());
    }

    /// Taking a walk's candidates from the last walk of the same sensitive items changes the
    /// cost, never the groups: the walks that test every position one by one form the same
    /// ones. The rows draw from few sensitive items, so that sets recur. Counts the cases in
    /// which a walk took candidates from a last walk, each way.
    #[test]
    fn reusing_the_last_walk_of_the_same_items_does_not_change_the_groups() {
        let strategy = (
            prop::collection::vec(prop::collection::btree_set(0u32..9, 1..5), 4..150),
            2usize..5,
            1usize..4,
            any::<bool>(),
        );
        let (backwards, forwards) = (AtomicU32::new(0), AtomicU32::new(0));
        let exercised = txanon_testkit::exercised(300, strategy, |(rows, p, alpha, sorted)| {
            // Items 0 to 3 are sensitive, 4 to 8 the QID.
            let ((reusing, shortcuts), stepping) =
                walked_both_ways(&rows, |label| label < 4, (p, alpha), sorted);
            prop_assert_eq!(reusing, stepping);
            let [b, f] = shortcuts.walks_reused;
            backwards.fetch_add(u32::from(b > 0), Ordering::Relaxed);
            forwards.fetch_add(u32::from(f > 0), Ordering::Relaxed);
            Ok(b > 0 && f > 0)
        });
        exercised.at_least(0.5, "reused a last walk both ways");
        eprintln!("reused backwards in {backwards:?} cases, forwards in {forwards:?}");
    }

    /// Leaving a transaction ungrouped on [`Unfillable`]'s proof changes the cost, never the
    /// groups: ranking and trying its candidates as the rule says forms the same ones. The
    /// rows hold many of few sensitive items, so that many transactions find no group. Counts
    /// the cases in which the proof was given.
    #[test]
    fn proving_a_transaction_unfillable_does_not_change_the_groups() {
        let strategy = (
            prop::collection::vec(prop::collection::btree_set(0u32..10, 1..6), 4..150),
            2usize..6,
            1usize..4,
            any::<bool>(),
        );
        let exercised = txanon_testkit::exercised(300, strategy, |(rows, p, alpha, sorted)| {
            // Items 0 to 5 are sensitive, 6 to 9 the QID.
            let ((proving, shortcuts), trying) =
                walked_both_ways(&rows, |label| label < 6, (p, alpha), sorted);
            prop_assert_eq!(proving, trying);
            Ok(shortcuts.proven_unfillable > 0)
        });
        exercised.at_least(0.25, "proved a transaction unfillable");
    }

    /// [`Unfillable`] never proves what is false: when it says fewer than `needed` candidates
    /// share no sensitive item with each other, the largest such set, found by trying every
    /// subset, is smaller. Counts the cases it proved, and those it could not although true.
    #[test]
    fn an_unfillable_proof_holds_against_every_subset() {
        let strategy =
            (prop::collection::vec(prop::collection::btree_set(0u32..8, 0..4), 0..12), 0usize..7);
        let unproven = AtomicU32::new(0);
        let exercised = txanon_testkit::exercised(3000, strategy, |(lists, needed)| {
            let lists: Vec<Vec<ItemId>> =
                lists.iter().map(|t| t.iter().copied().collect()).collect();
            let candidates: Vec<usize> = (0..lists.len()).collect();
            let mut bound = Unfillable::new(8);
            let proven = bound.proven(&candidates, |k| &lists[k], needed);
            // The largest set of candidates that pairwise share no item.
            let largest = (0u32..1 << lists.len())
                .filter(|set| {
                    let mut seen = 0u32;
                    (0..lists.len()).filter(|&k| set & (1 << k) != 0).all(|k| {
                        lists[k].iter().all(|&s| {
                            let fresh = seen & (1 << s) == 0;
                            seen |= 1 << s;
                            fresh
                        })
                    })
                })
                .map(u32::count_ones)
                .max()
                .unwrap_or(0) as usize;
            if proven {
                prop_assert!(largest < needed, "proved {needed} unreachable, {largest} reached");
            } else if largest < needed {
                unproven.fetch_add(1, Ordering::Relaxed);
            }
            // The counts and `H` are left empty for the next proof.
            prop_assert!(bound.holding.iter().all(|&h| h == 0));
            Ok(proven)
        });
        exercised.at_least(0.2, "proved the candidates unfillable");
        eprintln!("true but not proven: {}", unproven.into_inner());
    }
}
