//! The band order and the group formation heuristic (the CAHD paper's Figure 7).

use std::cmp::Reverse;

use txanon_band::{BandEnvelopes, Permutation, band_order};
use txanon_data::{ItemId, TransactionDb};

use crate::audit::{AuditReport, CahdClaim, audit};
use crate::error::CahdError;
use crate::params::{BandOrder, ValidCahdParams};
use crate::publish::{PublishedGroups, publish};

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
pub struct Anonymized {
    /// The published groups (shuffled; labels).
    pub published: PublishedGroups,
    /// The grouping before publication (input indices; not published).
    pub grouping: Grouping,
    /// Bandwidth and profile of the QID graph before and after reordering (RCM only).
    pub band: Option<BandEnvelopes>,
    /// The audit the groups passed: degree `p` for the sensitive items given, and the groups
    /// against the input.
    pub audit: AuditReport,
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
) -> Result<Anonymized, CahdError> {
    let is_sensitive = feasible_sensitive(db, sensitive, params.p())?;
    let (ordering, band) = match params.order() {
        BandOrder::Rcm(kind) => {
            let keep: Vec<bool> = is_sensitive.iter().map(|&s| !s).collect();
            let banded = band_order(db, &keep, kind);
            (banded.permutation, Some(banded.envelopes))
        }
        BandOrder::Input => (Permutation::identity(db.len()), None),
    };
    let grouping = form_groups(db, &is_sensitive, ordering.order(), params.p(), params.alpha());
    publish_audited(db, sensitive, &is_sensitive, grouping, band, params)
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
) -> Result<Anonymized, CahdError> {
    let mut rng = txanon_data::publication_rng(params.seed());
    let published = publish(db, is_sensitive, grouping.groups(), params.p(), &mut rng);
    let claim =
        CahdClaim::new(params.p() as u64, sensitive.iter().map(|&s| db.label(s).to_string()))?;
    let audit = audit(&published, &claim, Some(db))?;
    Ok(Anonymized { published, grouping, band, audit })
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

/// Marker of "no position" in the linked list of ungrouped positions.
const NONE: u32 = u32::MAX;

/// The positions (in band order) not yet grouped, as a doubly linked list, so that a candidate
/// scan never visits a grouped position twice.
struct Ungrouped {
    prev: Vec<u32>,
    next: Vec<u32>,
    grouped: Vec<bool>,
    remaining: usize,
}

impl Ungrouped {
    fn new(n: usize) -> Self {
        Self {
            prev: (0..n as u32).map(|k| if k == 0 { NONE } else { k - 1 }).collect(),
            next: (0..n as u32).map(|k| if k as usize + 1 == n { NONE } else { k + 1 }).collect(),
            grouped: vec![false; n],
            remaining: n,
        }
    }

    fn is_grouped(&self, pos: usize) -> bool {
        self.grouped[pos]
    }

    /// The ungrouped positions before `pos`, nearest first (`backwards`), or after it.
    fn walk(&self, pos: usize, backwards: bool) -> impl Iterator<Item = usize> + '_ {
        let links = if backwards { &self.prev } else { &self.next };
        let linked = |k: u32| (k != NONE).then_some(k);
        std::iter::successors(linked(links[pos]), move |&k| linked(links[k as usize]))
            .map(|k| k as usize)
    }

    fn remove(&mut self, pos: usize) {
        self.grouped[pos] = true;
        self.remaining -= 1;
        let (a, b) = (self.prev[pos], self.next[pos]);
        if a != NONE {
            self.next[a as usize] = b;
        }
        if b != NONE {
            self.prev[b as usize] = a;
        }
    }

    /// The positions left, in band order.
    fn rest(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.grouped.len()).filter(|&k| !self.grouped[k])
    }
}

/// A candidate for a sensitive transaction's group, ordered best first: most QID items shared,
/// then nearest in the band, then the earlier position (predecessors before successors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    shared: Reverse<usize>,
    distance: usize,
    position: usize,
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
/// `O(Σ|t|)` to split every transaction into its sensitive and QID items, once; `O(n)` for the
/// walk; per sensitive transaction, the candidate scan (at least `2αp` positions, more where
/// conflicting or grouped ones are passed over; grouped ones are unlinked, so never visited
/// twice by a scan), a sort of the candidates by similarity (each an intersection of two QID
/// lists), and `O(|S|)` for the histogram check.
///
/// Missed optimization: the candidates are sorted in full though usually only the first `p − 1`
/// are taken (more only past conflicts); a partial selection would save the `log` factor.
pub fn form_groups(
    db: &TransactionDb,
    is_sensitive: &[bool],
    order: &[u32],
    p: usize,
    alpha: usize,
) -> Grouping {
    let n = order.len();
    // Each transaction's sensitive and QID items, split once.
    let sensitive = db.filter_items(|i| is_sensitive[i as usize]);
    let qid = db.filter_items(|i| !is_sensitive[i as usize]);
    let sensitive_of = |pos: usize| sensitive.transaction(order[pos] as usize);
    let sensitive_items: Vec<ItemId> =
        (0..db.num_items() as ItemId).filter(|&i| is_sensitive[i as usize]).collect();
    let mut histogram = vec![0usize; db.num_items()];
    for &s in &sensitive_items {
        histogram[s as usize] = db.supports()[s as usize] as usize;
    }
    let mut ungrouped = Ungrouped::new(n);
    let mut stats = GroupingStats::default();
    let mut groups: Vec<Vec<u32>> = Vec::new();
    // At most every transaction on one side: α·p beyond n means all of them (and must not
    // overflow for any α a flag can hold).
    let reach = alpha.saturating_mul(p).min(n);
    let mut candidates: Vec<Candidate> = Vec::with_capacity(2 * reach);
    for pos in 0..n {
        let mine = sensitive_of(pos);
        if ungrouped.is_grouped(pos) || mine.is_empty() {
            continue;
        }
        stats.sensitive_transactions += 1;
        let t = qid.transaction(order[pos] as usize);
        candidates.clear();
        for backwards in [true, false] {
            candidates.extend(
                ungrouped
                    .walk(pos, backwards)
                    .filter(|&k| !conflicts(sensitive_of(k), mine))
                    .take(reach)
                    .map(|k| Candidate {
                        shared: Reverse(txanon_data::sets::intersection_len(
                            t,
                            qid.transaction(order[k] as usize),
                        )),
                        distance: pos.abs_diff(k),
                        position: k,
                    }),
            );
        }
        candidates.sort_unstable();
        let mut members = vec![pos];
        let mut held = mine.to_vec();
        for c in &candidates {
            if members.len() == p {
                break;
            }
            let theirs = sensitive_of(c.position);
            if !conflicts(theirs, &held) {
                members.push(c.position);
                held.extend_from_slice(theirs);
                held.sort_unstable();
            }
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
        groups.push(members.iter().map(|&k| order[k]).collect());
    }
    let rest: Vec<u32> = ungrouped.rest().map(|k| order[k]).collect();
    stats.final_group = rest.len();
    if !rest.is_empty() {
        groups.push(rest);
    }
    Grouping { groups, stats }
}
