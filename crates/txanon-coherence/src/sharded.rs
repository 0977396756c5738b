//! The greedy suppression over transactions split into shards that no one process holds
//! (`txanon.spark`'s one suppression set): the driver decides every suppression exactly as
//! [`anonymize`] does; the shards count.
//!
//! The greedy algorithm reads two families of itemsets fixed after the pre-step: the moles
//! (public itemsets of at most `p` items that occur, rare or breaching) and the nuggets
//! (itemsets in at least `k′` transactions). Suppressing an item removes the members holding
//! it and changes nothing of the others (their supports and inferences do not involve it), so
//! each step's counts follow from the two families alone. The driver lists both from the
//! shards' counts and runs the greedy loop over them, as the enumeration engine does:
//!
//! 1. [`ShardRequest::Lengths`]: the longest transaction (the attacker's effective `p`) and
//!    how many transactions have each number of public items (the same work estimate
//!    [`anonymize`] refuses by);
//! 2. [`ShardRequest::Itemsets`]: every public itemset of at most `p` items with its support
//!    and its support together with each private item, summed over the shards (the caller
//!    sums by itemset and private item, then keeps per itemset its support and the largest
//!    count of a private item); the moles follow, their subsets' breaches included;
//! 3. [`ShardRequest::Candidates`]: each shard's itemsets in at least `⌈k′ · n_j / n⌉` of its
//!    `n_j` transactions. An itemset in `k′` of the union's `n` is in at least `k′ · n_j / n`
//!    of some shard's (else the shares would sum below `k′`), so these candidates hold every
//!    nugget (Savasere, Omiecinski and Navathe's partition);
//! 4. [`ShardRequest::Supports`]: the candidates' supports, summed: the nuggets.
//!
//! A property test checks the suppressions, the mole and nugget counts and the refusals
//! against [`anonymize`] on random data cut into random shards.
//!
//! The driver holds every mole and every nugget (the enumeration engine's lists, limited by
//! [`CoherenceParams::enumeration_limit`](crate::CoherenceParams::enumeration_limit)):
//! statistics, never a transaction.
//!
//! [`anonymize`]: crate::anonymize

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use txanon_data::{ItemId, ParamError, TransactionDb};
use txanon_mining::{Algorithm, MinSupport, MiningParams, frequent_itemsets};

use crate::algorithm::{Reason, next_suppression};
use crate::engines::Listing;
use crate::error::CoherenceError;
use crate::params::ValidCoherenceParams;
use crate::working::breaches;

/// The most items an itemset key holds (32 bits each): the largest `p` over shards.
pub const MAX_SHARDED_P: usize = 4;

/// What the driver asks every shard to count. Items travel as labels; an itemset as the
/// ranks of its items in the list the request carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "count", rename_all = "kebab-case")]
pub enum ShardRequest {
    /// The shard's longest transaction, and how many of its transactions hold each number of
    /// the public items `public`.
    Lengths {
        /// The public items.
        public: Vec<String>,
    },
    /// Every itemset of 1 to `p` of the public items `public` that occurs, with its support
    /// and its support together with each of the private items `private`.
    Itemsets {
        /// The public items, in rank order.
        public: Vec<String>,
        /// The private items, in rank order.
        private: Vec<String>,
        /// The most items of an itemset counted (1 to [`MAX_SHARDED_P`]).
        p: usize,
    },
    /// Every itemset over `items` in at least `⌈support · n_j / transactions⌉` of the shard's
    /// `n_j` transactions (at least one): the candidates of the union's nuggets.
    Candidates {
        /// The items, in rank order.
        items: Vec<String>,
        /// The union's nugget support `k′`.
        support: u32,
        /// The union's transactions `n`.
        transactions: u64,
        /// A shard's refusal: more candidates than this.
        limit: u64,
    },
    /// The support of each of `itemsets` (ranks into `items`, ascending).
    Supports {
        /// The items, in rank order.
        items: Vec<String>,
        /// The itemsets.
        itemsets: Vec<Vec<u32>>,
    },
}

/// The key of [`ShardCounts::Itemsets`]' support rows (no private item).
pub const NO_PRIVATE: u32 = u32::MAX;

/// The part of the key space, among `parts`, that an itemset's rows (its support and its
/// private counts) fall in: an engine sums a [`ShardCounts::Itemsets`] answer part by part
/// ([`sum_itemset_rows`]), so that no one task holds every row.
///
/// # Panics
/// With no part.
pub fn itemset_part(key: u128, parts: u32) -> u32 {
    assert!(parts > 0, "at least one part");
    let mixed = txanon_data::mix64((key >> 64) as u64 ^ txanon_data::mix64(key as u64 ^ 0xc0e));
    (mixed % u64::from(parts)) as u32
}

/// The rows `(itemset key, private item or [`NO_PRIVATE`], count)` of one part from every
/// shard, in any order, summed by itemset and private item: what
/// [`Shards::itemsets`] returns for the part, ascending by key, then private item.
pub fn sum_itemset_rows(mut rows: Vec<(u128, u32, u64)>) -> Vec<(u128, u32, u64)> {
    rows.sort_unstable_by_key(|&(key, private, _)| (key, private));
    let mut summed: Vec<(u128, u32, u64)> = Vec::new();
    for (key, private, count) in rows {
        match summed.last_mut() {
            Some(last) if (last.0, last.1) == (key, private) => {
                last.2 = last.2.saturating_add(count);
            }
            _ => summed.push((key, private, count)),
        }
    }
    summed
}

/// A shard's answer to a [`ShardRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardCounts {
    /// The longest transaction, and per number of public items the transactions holding it.
    Lengths {
        /// Items of the longest transaction.
        longest: u64,
        /// `histogram[l]`: transactions with `l` public items.
        histogram: Vec<u64>,
    },
    /// `(key, private, count)`, ascending: an itemset's key (ranks plus one, from the low 32
    /// bits up) with [`NO_PRIVATE`] and its support, or with a private item's rank and the
    /// transactions holding both.
    Itemsets(Vec<(u128, u32, u64)>),
    /// The candidates (ranks, ascending), sorted.
    Candidates(Vec<Vec<u32>>),
    /// Each asked itemset's support, in the order asked.
    Supports(Vec<u64>),
}

/// The key of an itemset of at most [`MAX_SHARDED_P`] ranks: rank `+ 1` in each 32-bit lane,
/// from the low lane up.
pub fn itemset_key(ranks: &[u32]) -> u128 {
    ranks.iter().enumerate().fold(0, |k, (lane, &r)| k | ((u128::from(r) + 1) << (32 * lane)))
}

/// The ranks of an [`itemset_key`].
pub fn itemset_of_key(key: u128) -> Vec<u32> {
    (0..MAX_SHARDED_P)
        .map(|lane| ((key >> (32 * lane)) & 0xFFFF_FFFF) as u32)
        .take_while(|&x| x > 0)
        .map(|x| x - 1)
        .collect()
}

/// Each item of `db` as its rank in `listed` (`None` when not listed).
fn ranks_of(db: &TransactionDb, listed: &[String]) -> Vec<Option<u32>> {
    let rank: FxHashMap<&str, u32> =
        listed.iter().enumerate().map(|(r, l)| (l.as_str(), r as u32)).collect();
    (0..db.num_items() as ItemId)
        .map(|i| rank.get(db.label(i).to_string().as_str()).copied())
        .collect()
}

/// [`ShardRequest::Itemsets`]' count: the itemsets of 1 to `p` public ranks, each prefix's
/// extensions by one rank counted in a line of the ranks (and with the private ranks in a
/// map, for the few transactions that hold one), then each extension extended in turn from
/// the transactions that hold it. Hashing every subset of every transaction into one map of
/// some millions of keys took most of the request (128 s of a 508 s run at 10⁷ on Spark,
/// docs/SPARK.md); a line stays in cache.
struct ExtensionCount {
    /// Per distinct transaction: its public ranks (ascending), its private ranks, how often it
    /// occurs.
    public: Vec<Vec<u32>>,
    private: Vec<Vec<u32>>,
    times: Vec<u64>,
    p: usize,
    /// Per lane: the prefix's support with each rank added.
    support: Vec<Vec<u64>>,
    /// Per lane: `(rank, private rank)` → the transactions holding the prefix and both.
    together: Vec<FxHashMap<(u32, u32), u64>>,
    /// Per lane and rank: the transactions holding the prefix and the rank, each with the
    /// position after the rank.
    holding: Vec<Vec<Vec<(u32, u32)>>>,
    counted: Vec<(u128, u32, u64)>,
}

impl ExtensionCount {
    /// Counts the extensions of the prefix `key` (its `lane` ranks) in `tails` (transactions
    /// holding it, each with where its ranks after the prefix start), and recurses.
    fn extend(&mut self, tails: &[(u32, u32)], key: u128, lane: usize) {
        let mut support = std::mem::take(&mut self.support[lane]);
        let mut together = std::mem::take(&mut self.together[lane]);
        let mut holding = std::mem::take(&mut self.holding[lane]);
        let further = lane + 1 < self.p;
        let mut seen: Vec<u32> = Vec::new();
        for &(t, from) in tails {
            let (ranks, secret) = (&self.public[t as usize], &self.private[t as usize]);
            let times = self.times[t as usize];
            for (j, &r) in ranks.iter().enumerate().skip(from as usize) {
                if support[r as usize] == 0 {
                    seen.push(r);
                }
                support[r as usize] += times;
                for &s in secret {
                    *together.entry((r, s)).or_insert(0) += times;
                }
                if further {
                    holding[r as usize].push((t, j as u32 + 1));
                }
            }
        }
        let with = |r: u32| key | ((u128::from(r) + 1) << (32 * lane));
        self.counted.extend(together.drain().map(|((r, s), c)| (with(r), s, c)));
        for &r in &seen {
            self.counted.push((with(r), NO_PRIVATE, support[r as usize]));
            support[r as usize] = 0;
            if further {
                let next = std::mem::take(&mut holding[r as usize]);
                self.extend(&next, with(r), lane + 1);
                holding[r as usize] = next;
                holding[r as usize].clear();
            }
        }
        self.support[lane] = support;
        self.together[lane] = together;
        self.holding[lane] = holding;
    }
}

/// Answers `request` from one shard's transactions.
///
/// # Errors
/// [`CoherenceError::Params`] for itemsets of more than [`MAX_SHARDED_P`] items or ranks
/// beyond the request's items; [`CoherenceError::TooManyToList`] when the candidates exceed
/// the request's limit.
pub fn count_shard(
    db: &TransactionDb,
    request: &ShardRequest,
) -> Result<ShardCounts, CoherenceError> {
    match request {
        ShardRequest::Lengths { public } => {
            let rank = ranks_of(db, public);
            let mut histogram = Vec::new();
            let mut longest = 0;
            for t in db.iter() {
                longest = longest.max(t.len() as u64);
                let l = t.iter().filter(|&&i| rank[i as usize].is_some()).count();
                if histogram.len() <= l {
                    histogram.resize(l + 1, 0);
                }
                histogram[l] += 1;
            }
            Ok(ShardCounts::Lengths { longest, histogram })
        }
        ShardRequest::Itemsets { public, private, p } => {
            if !(1..=MAX_SHARDED_P).contains(p) {
                return Err(ParamError::OutOfRange {
                    name: "p",
                    value: p.to_string(),
                    reason: "1 to 4 items over shards (an itemset's key holds four)",
                }
                .into());
            }
            let public_rank = ranks_of(db, public);
            let private_rank = ranks_of(db, private);
            // Identical transactions once, with their multiplicity.
            let mut rows: FxHashMap<&[ItemId], u64> = FxHashMap::default();
            for t in db.iter() {
                *rows.entry(t).or_insert(0) += 1;
            }
            let mut ranked = ExtensionCount {
                public: Vec::with_capacity(rows.len()),
                private: Vec::with_capacity(rows.len()),
                times: Vec::with_capacity(rows.len()),
                p: *p,
                support: vec![vec![0; public.len()]; *p],
                together: vec![FxHashMap::default(); *p],
                holding: vec![vec![Vec::new(); public.len()]; *p],
                counted: Vec::new(),
            };
            for (t, times) in rows {
                let mut pu: Vec<u32> = t.iter().filter_map(|&i| public_rank[i as usize]).collect();
                pu.sort_unstable();
                ranked.public.push(pu);
                ranked.private.push(t.iter().filter_map(|&i| private_rank[i as usize]).collect());
                ranked.times.push(times);
            }
            let every: Vec<(u32, u32)> = (0..ranked.public.len() as u32).map(|r| (r, 0)).collect();
            ranked.extend(&every, 0, 0);
            let mut counted = ranked.counted;
            counted.sort_unstable();
            Ok(ShardCounts::Itemsets(counted))
        }
        ShardRequest::Candidates { items, support, transactions, limit } => {
            let n = db.len() as u128;
            if n == 0 {
                return Ok(ShardCounts::Candidates(Vec::new()));
            }
            let whole = u128::from((*transactions).max(1));
            let share = (u128::from(*support) * n).div_ceil(whole).max(1);
            let threshold = u32::try_from(share).unwrap_or(u32::MAX);
            let params = MiningParams::new(MinSupport::Count(threshold)).limit(*limit).check()?;
            let found = match frequent_itemsets(db, Algorithm::FpGrowth, &params) {
                Err(txanon_mining::MiningError::LimitExceeded { .. }) => {
                    return Err(CoherenceError::TooManyToList {
                        what: "nuggets' candidates (one shard alone has more)",
                        itemsets: limit.saturating_add(1),
                        limit: *limit,
                    });
                }
                found => found?,
            };
            let rank = ranks_of(db, items);
            let mut candidates: Vec<Vec<u32>> = Vec::with_capacity(found.len());
            for (set, _) in found.iter() {
                let mut ranks = Vec::with_capacity(set.len());
                for &i in set {
                    ranks.push(rank[i as usize].ok_or_else(|| unlisted(db, i))?);
                }
                ranks.sort_unstable();
                candidates.push(ranks);
            }
            candidates.sort_unstable();
            Ok(ShardCounts::Candidates(candidates))
        }
        ShardRequest::Supports { items, itemsets } => {
            if itemsets.iter().flatten().any(|&r| r as usize >= items.len()) {
                return Err(ParamError::OutOfRange {
                    name: "request",
                    value: "an itemset's rank".into(),
                    reason: "ranks into the request's items",
                }
                .into());
            }
            Ok(ShardCounts::Supports(supports_of(db, items, itemsets)))
        }
    }
}

fn unlisted(db: &TransactionDb, item: ItemId) -> CoherenceError {
    ParamError::OutOfRange {
        name: "request",
        value: db.label(item).to_string(),
        reason: "an item of the shard the request's items do not list",
    }
    .into()
}

/// The support in `db` of each of `itemsets` (ranks into `items`): a depth-first walk over
/// the itemsets in sorted order, each transaction list its prefix's intersected with its last
/// item's, so that shared prefixes are intersected once.
fn supports_of(db: &TransactionDb, items: &[String], itemsets: &[Vec<u32>]) -> Vec<u64> {
    let rank = ranks_of(db, items);
    let mut tids: Vec<Vec<u32>> = vec![Vec::new(); items.len()];
    for (t, row) in db.iter().enumerate() {
        for &i in row {
            if let Some(r) = rank[i as usize] {
                tids[r as usize].push(t as u32);
            }
        }
    }
    let mut order: Vec<usize> = (0..itemsets.len()).collect();
    order.sort_unstable_by(|&a, &b| itemsets[a].cmp(&itemsets[b]));
    let mut out = vec![0u64; itemsets.len()];
    // The path's items and each prefix's transactions.
    let mut path: Vec<u32> = Vec::new();
    let mut lists: Vec<Vec<u32>> = Vec::new();
    for at in order {
        let set = &itemsets[at];
        let shared = path.iter().zip(set).take_while(|(a, b)| a == b).count();
        path.truncate(shared);
        lists.truncate(shared);
        for &r in &set[shared..] {
            let own = &tids[r as usize];
            let next = match lists.last() {
                None => own.clone(),
                Some(prefix) => {
                    let mut both = Vec::new();
                    txanon_data::sets::intersection(prefix, own, &mut both);
                    both
                }
            };
            path.push(r);
            lists.push(next);
        }
        out[at] = lists.last().map_or(db.len(), Vec::len) as u64;
    }
    out
}

/// One itemset's counts summed over the shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SummedItemset {
    /// Its [`itemset_key`].
    key: u128,
    /// Its support.
    support: u64,
    /// The most transactions of it holding one private item (0 when none).
    worst: u64,
}

/// Each itemset's support and largest private count, from rows `(key, private, count)`
/// summed by key and private item.
fn by_itemset(rows: Vec<(u128, u32, u64)>) -> Vec<SummedItemset> {
    let mut summed: FxHashMap<u128, SummedItemset> = FxHashMap::default();
    for (key, s, c) in rows {
        let e = summed.entry(key).or_insert(SummedItemset { key, support: 0, worst: 0 });
        if s == NO_PRIVATE {
            e.support = c;
        } else {
            e.worst = e.worst.max(c);
        }
    }
    summed.into_values().collect()
}

/// The shards, as the driver reaches them: each request answered by every shard
/// ([`count_shard`]) and the answers combined.
pub trait Shards {
    /// For a [`ShardRequest::Lengths`]: the longest transaction of all, and the histograms
    /// summed.
    ///
    /// # Errors
    /// A shard's error, or the caller's own (a failed job).
    fn lengths(&mut self, request: &ShardRequest) -> Result<(u64, Vec<u64>), CoherenceError>;

    /// For a [`ShardRequest::Itemsets`]: the shards' rows `(key, private, count)` summed by
    /// key and private item, in any order.
    ///
    /// # Errors
    /// As [`Shards::lengths`].
    fn itemsets(&mut self, request: &ShardRequest)
    -> Result<Vec<(u128, u32, u64)>, CoherenceError>;

    /// For a [`ShardRequest::Candidates`]: the shards' candidates, each once, in any order.
    ///
    /// # Errors
    /// As [`Shards::lengths`].
    fn candidates(&mut self, request: &ShardRequest) -> Result<Vec<Vec<u32>>, CoherenceError>;

    /// For a [`ShardRequest::Supports`]: each itemset's supports summed, in the order asked.
    ///
    /// # Errors
    /// As [`Shards::lengths`].
    fn supports(&mut self, request: &ShardRequest) -> Result<Vec<u64>, CoherenceError>;
}

/// One suppression set over every shard: what [`anonymize`](crate::anonymize) decides over
/// their union.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardedSuppression {
    /// The suppressed items (labels) with their reasons: the pre-step's in item order, then
    /// the greedy algorithm's in order, as [`crate::CoherencePublication::suppressed`].
    #[serde(with = "wire")]
    pub suppressed: Vec<(String, Reason)>,
    /// As [`crate::CoherencePublication::moles`].
    pub moles: u128,
    /// As [`crate::CoherencePublication::minimal_moles`].
    pub minimal_moles: usize,
    /// As [`crate::CoherencePublication::nuggets_before`].
    pub nuggets_before: u128,
    /// As [`crate::CoherencePublication::nuggets_after`].
    pub nuggets_after: u128,
    /// The union's transactions.
    pub transactions: u64,
    /// Moles and nuggets the driver listed.
    pub listed: u64,
    /// The requests the shards answered.
    pub requests: usize,
}

/// The suppressions as the driver hands them to the shards: each reason externally tagged,
/// because serde buffers an internally tagged enum ([`Reason`]'s `step`) through a form that
/// holds no 128-bit number.
mod wire {
    use super::Reason;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    enum Step {
        Infrequent(u32),
        Greedy(u128, u128),
    }

    pub fn serialize<S: Serializer>(steps: &[(String, Reason)], to: S) -> Result<S::Ok, S::Error> {
        let wire: Vec<(&str, Step)> = steps
            .iter()
            .map(|(item, reason)| {
                let step = match *reason {
                    Reason::Infrequent { support } => Step::Infrequent(support),
                    Reason::Greedy { moles, nuggets } => Step::Greedy(moles, nuggets),
                };
                (item.as_str(), step)
            })
            .collect();
        wire.serialize(to)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        from: D,
    ) -> Result<Vec<(String, Reason)>, D::Error> {
        let wire: Vec<(String, Step)> = Vec::deserialize(from)?;
        Ok(wire
            .into_iter()
            .map(|(item, step)| {
                let reason = match step {
                    Step::Infrequent(support) => Reason::Infrequent { support },
                    Step::Greedy(moles, nuggets) => Reason::Greedy { moles, nuggets },
                };
                (item, reason)
            })
            .collect())
    }
}

/// The suppressions the greedy algorithm makes over the union of the shards behind `shards`,
/// which hold `transactions` transactions whose items have the supports `supports` (label,
/// support); `private` are the private items' labels. The same suppressions, in the same
/// order with the same counts, as [`anonymize`](crate::anonymize) over the union.
///
/// # Errors
/// As [`anonymize`](crate::anonymize): [`CoherenceError::NoCohesion`],
/// [`CoherenceError::TooManyItemsets`]; [`CoherenceError::Params`] for a private label that
/// is not an item, an effective `p` above [`MAX_SHARDED_P`] or more than 2³² − 1
/// transactions; [`CoherenceError::TooManyToList`] when the moles or the nuggets' candidates
/// to list exceed the parameters' enumeration limit; whatever `shards` returns.
///
/// Long as one function: the steps of [`anonymize`](crate::anonymize) in order, each with its
/// request.
pub fn sharded_suppression(
    supports: &[(String, u64)],
    transactions: u64,
    private: &[String],
    params: &ValidCoherenceParams,
    shards: &mut dyn Shards,
) -> Result<ShardedSuppression, CoherenceError> {
    let (h, k, k2) = (params.h(), params.k(), params.nugget_support());
    let too_many = || ParamError::OutOfRange {
        name: "transactions",
        value: transactions.to_string(),
        reason: "at most 2³² − 1 over shards, as in one process",
    };
    let n = u32::try_from(transactions).map_err(|_| too_many())?;
    // The items in the order a read ranks them: the ids one process gives the union.
    let universe = TransactionDb::from_str_transactions([supports.iter().map(|(l, _)| l)]);
    let mut support = vec![0u32; universe.num_items()];
    for (label, s) in supports {
        let id = universe.labels().find(label).expect("a label of the universe");
        support[id as usize] = u32::try_from(*s).map_err(|_| too_many())?;
    }
    let label = |i: ItemId| universe.label(i).to_string();
    if n < k {
        return Err(CoherenceError::NoCohesion(format!(
            "{n} transactions, fewer than k = {k}: the empty itemset is a mole"
        )));
    }
    let mut is_private = vec![false; universe.num_items()];
    let mut private_ids = Vec::with_capacity(private.len());
    for s in private {
        let id = universe.labels().find(s).ok_or_else(|| ParamError::OutOfRange {
            name: "private",
            value: s.clone(),
            reason: "a label of the data",
        })?;
        is_private[id as usize] = true;
        private_ids.push(id);
    }
    if let Some(&s) = private_ids.iter().find(|&&s| breaches(support[s as usize], n, h)) {
        return Err(CoherenceError::NoCohesion(format!(
            "private item {} is in {} of {n} transactions, more than h = {h}: the empty itemset is a mole",
            label(s),
            support[s as usize]
        )));
    }
    // The pre-step, in item order.
    let threshold = k.max(k2);
    let mut suppressed: Vec<(String, Reason)> = Vec::new();
    let (mut public_ids, mut private_order) = (Vec::new(), Vec::new());
    let mut dropped = vec![false; universe.num_items()];
    for i in 0..universe.num_items() as ItemId {
        let s = support[i as usize];
        if is_private[i as usize] {
            private_order.push(i);
        } else if s < threshold {
            suppressed.push((label(i), Reason::Infrequent { support: s }));
            dropped[i as usize] = true;
        } else {
            public_ids.push(i);
        }
    }
    let public: Vec<String> = public_ids.iter().map(|&i| label(i)).collect();
    let private_labels: Vec<String> = private_order.iter().map(|&i| label(i)).collect();
    let mut requests = 0;
    let (longest, histogram) = shards.lengths(&ShardRequest::Lengths { public: public.clone() })?;
    requests += 1;
    let p = params.p().min(longest.max(1) as usize);
    let itemsets = examined(&histogram, public.len(), p);
    if itemsets > params.max_itemsets() {
        return Err(CoherenceError::TooManyItemsets { p, itemsets, limit: params.max_itemsets() });
    }
    if p > MAX_SHARDED_P {
        return Err(ParamError::OutOfRange {
            name: "p",
            value: p.to_string(),
            reason: "at most 4 with one suppression set over shards (an itemset's key holds four items); suppress per shard",
        }
        .into());
    }
    let limit = params.enumeration_limit();
    if itemsets > limit {
        return Err(CoherenceError::TooManyToList {
            what: "public itemsets of at most p items (the moles' candidates)",
            itemsets,
            limit,
        });
    }
    // The moles, from the union's supports and private counts: breaching itemsets with
    // support at least k, shortest first, so that each inherits its subsets' breaches.
    let request = ShardRequest::Itemsets { public: public.clone(), private: private_labels, p };
    let mut occurring = by_itemset(shards.itemsets(&request)?);
    requests += 1;
    occurring.sort_unstable_by_key(|s| (itemset_of_key(s.key).len(), s.key));
    let mut breaching: FxHashSet<u128> = FxHashSet::default();
    let mut moles: Vec<Vec<u32>> = Vec::new();
    let mut non_moles: FxHashSet<u128> = FxHashSet::default();
    let mut minimal_moles = 0;
    for s in &occurring {
        let set = itemset_of_key(s.key);
        let narrow = |x: u64| u32::try_from(x).map_err(|_| too_many());
        let breach = s.support >= u64::from(k)
            && (breaches(narrow(s.worst)?, narrow(s.support)?, h)
                || subsets_less_one(&set).any(|sub| breaching.contains(&itemset_key(&sub))));
        if breach {
            breaching.insert(s.key);
        }
        if s.support < u64::from(k) || breach {
            // Minimal: every subset one item shorter is a non-mole (singletons always are:
            // the empty itemset is none).
            if subsets_less_one(&set).all(|sub| non_moles.contains(&itemset_key(&sub))) {
                minimal_moles += 1;
            }
            moles.push(set);
        } else {
            non_moles.insert(s.key);
        }
    }
    drop((occurring, breaching, non_moles));
    // The nuggets, over every item (the input's, for the count before the pre-step).
    let items: Vec<String> = (0..universe.num_items() as ItemId).map(label).collect();
    let request =
        ShardRequest::Candidates { items: items.clone(), support: k2, transactions, limit };
    let candidates = shards.candidates(&request)?;
    requests += 1;
    if candidates.len() as u64 > limit {
        return Err(CoherenceError::TooManyToList {
            what: "nuggets' candidates",
            itemsets: candidates.len() as u64,
            limit,
        });
    }
    let summed =
        shards.supports(&ShardRequest::Supports { items, itemsets: candidates.clone() })?;
    requests += 1;
    let mut public_rank = vec![u32::MAX; universe.num_items()];
    for (r, &i) in public_ids.iter().enumerate() {
        public_rank[i as usize] = r as u32;
    }
    let mut nuggets_before = 0u128;
    let mut nuggets: Vec<Vec<u32>> = Vec::new();
    for (set, s) in candidates.iter().zip(summed) {
        if s < u64::from(k2) {
            continue;
        }
        nuggets_before += 1;
        if set.iter().any(|&i| dropped[i as usize]) {
            continue;
        }
        nuggets.push(
            set.iter().map(|&i| public_rank[i as usize]).filter(|&r| r != u32::MAX).collect(),
        );
    }
    let listed = (moles.len() + nuggets.len()) as u64;
    let mole_total = moles.len() as u128;
    // The nuggets held after the pre-step: those without a dropped item.
    let mut nuggets_after = nuggets.len() as u128;
    let mut moles = Listing::new(moles, public.len());
    let mut nuggets = Listing::new(nuggets, public.len());
    let mut alive = vec![true; public.len()];
    while let Some(v) = next_suppression(&moles.counts, &nuggets.counts, &alive, &public_ids) {
        let (m, nu) = (moles.counts[v], nuggets.counts[v]);
        suppressed.push((public[v].clone(), Reason::Greedy { moles: m, nuggets: nu }));
        nuggets_after =
            nuggets_after.checked_sub(nu).expect("a step loses at most the nuggets held");
        moles.remove(v as u32);
        nuggets.remove(v as u32);
        alive[v] = false;
    }
    Ok(ShardedSuppression {
        suppressed,
        moles: mole_total,
        minimal_moles,
        nuggets_before,
        nuggets_after,
        transactions,
        listed,
        requests,
    })
}

/// The subsets of `set` one item shorter (none for a singleton).
fn subsets_less_one(set: &[u32]) -> impl Iterator<Item = Vec<u32>> + '_ {
    let shorter = if set.len() > 1 { set.len() } else { 0 };
    (0..shorter).map(move |drop| {
        set.iter().enumerate().filter(|&(j, _)| j != drop).map(|(_, &i)| i).collect()
    })
}

/// [`anonymize`](crate::anonymize)'s estimate of the public itemsets to examine, from the
/// histogram of the transactions' public lengths: per length `i`, `Σ_l histogram[l] · C(l, i)`
/// capped by `C(P, i)`, saturating.
fn examined(histogram: &[u64], public_items: usize, p: usize) -> u64 {
    let binomial = |n: usize, i: usize| {
        if i > n {
            return 0;
        }
        txanon_border::binomial(n, i).map_or(u64::MAX, |c| u64::try_from(c).unwrap_or(u64::MAX))
    };
    let longest = histogram.iter().rposition(|&c| c > 0).unwrap_or(0);
    let mut total = 0u64;
    for i in 1..=p.min(longest) {
        let listed = histogram
            .iter()
            .enumerate()
            .fold(0u64, |sum, (l, &c)| sum.saturating_add(c.saturating_mul(binomial(l, i))));
        total = total.saturating_add(listed.min(binomial(public_items, i)));
        if total == u64::MAX {
            break;
        }
    }
    total
}

/// `db` (a shard) with the items `suppressed` (labels) removed and its transactions shuffled,
/// as [`anonymize`](crate::anonymize) publishes its data once it has its suppressions.
pub fn publish_shard(
    db: &TransactionDb,
    suppressed: &[String],
    seed: Option<u64>,
) -> TransactionDb {
    use rand::seq::SliceRandom;
    let gone: FxHashSet<&str> = suppressed.iter().map(String::as_str).collect();
    let removed: Vec<bool> = (0..db.num_items() as ItemId)
        .map(|i| gone.contains(db.label(i).to_string().as_str()))
        .collect();
    let mut order: Vec<usize> = (0..db.len()).collect();
    order.shuffle(&mut txanon_data::publication_rng(seed, db));
    db.select(order).filter_items(|i| !removed[i as usize])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CoherenceParams;

    /// Rows of one part from several shards, summed by itemset and private item, ascending,
    /// each itemset's support after its private rows; nothing lost, nothing merged across keys.
    #[test]
    fn part_rows_sum_by_itemset_and_private_item() {
        let rows = vec![
            (5u128, NO_PRIVATE, 4),
            (2, 1, 1),
            (5, 0, 2),
            (2, NO_PRIVATE, 3),
            (5, NO_PRIVATE, 6),
            (2, 1, u64::MAX),
        ];
        assert_eq!(
            sum_itemset_rows(rows),
            [(2, 1, u64::MAX), (2, NO_PRIVATE, 3), (5, 0, 2), (5, NO_PRIVATE, 10)]
        );
        // A part among the parts asked for.
        for parts in [1, 2, 7] {
            assert!(itemset_part(5, parts) < parts);
        }
    }

    /// Shards in memory: each request answered by [`count_shard`] on every shard and combined
    /// as `txanon.spark` combines them.
    struct LocalShards {
        shards: Vec<TransactionDb>,
    }

    impl LocalShards {
        fn each(&self, request: &ShardRequest) -> Result<Vec<ShardCounts>, CoherenceError> {
            self.shards.iter().map(|s| count_shard(s, request)).collect()
        }
    }

    impl Shards for LocalShards {
        fn lengths(&mut self, request: &ShardRequest) -> Result<(u64, Vec<u64>), CoherenceError> {
            let (mut longest, mut summed) = (0, Vec::new());
            for answer in self.each(request)? {
                let ShardCounts::Lengths { longest: l, histogram } = answer else { panic!() };
                longest = longest.max(l);
                summed.resize(summed.len().max(histogram.len()), 0);
                for (s, c) in summed.iter_mut().zip(histogram) {
                    *s += c;
                }
            }
            Ok((longest, summed))
        }

        fn itemsets(
            &mut self,
            request: &ShardRequest,
        ) -> Result<Vec<(u128, u32, u64)>, CoherenceError> {
            let mut by_private: FxHashMap<(u128, u32), u64> = FxHashMap::default();
            for answer in self.each(request)? {
                let ShardCounts::Itemsets(rows) = answer else { panic!() };
                assert!(rows.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)));
                for (key, s, c) in rows {
                    *by_private.entry((key, s)).or_insert(0) += c;
                }
            }
            Ok(by_private.into_iter().map(|((key, s), c)| (key, s, c)).collect())
        }

        fn candidates(&mut self, request: &ShardRequest) -> Result<Vec<Vec<u32>>, CoherenceError> {
            let mut all = FxHashSet::default();
            for answer in self.each(request)? {
                let ShardCounts::Candidates(sets) = answer else { panic!() };
                all.extend(sets);
            }
            Ok(all.into_iter().collect())
        }

        fn supports(&mut self, request: &ShardRequest) -> Result<Vec<u64>, CoherenceError> {
            let ShardRequest::Supports { itemsets, .. } = request else { panic!() };
            let mut summed = vec![0; itemsets.len()];
            for answer in self.each(request)? {
                let ShardCounts::Supports(counts) = answer else { panic!() };
                for (s, c) in summed.iter_mut().zip(counts) {
                    *s += c;
                }
            }
            Ok(summed)
        }
    }

    fn labelled(db: &TransactionDb) -> Vec<Vec<String>> {
        let mut rows: Vec<Vec<String>> = db
            .iter()
            .map(|t| {
                let mut l: Vec<String> = t.iter().map(|&i| db.label(i).to_string()).collect();
                l.sort();
                l
            })
            .collect();
        rows.sort();
        rows
    }

    /// Over random shards of random data, the driver suppresses what `anonymize` suppresses
    /// over the whole, in the same order with the same counts, reports the same moles and
    /// nuggets, and refuses what it refuses; the shards' publications are the whole's as a
    /// multiset. Counted: the cases with a greedy step over more than one non-empty shard.
    #[test]
    fn shards_suppress_what_one_process_suppresses() {
        let strategy = (
            proptest::collection::vec(proptest::collection::btree_set(0u32..14, 0..7), 4..70),
            proptest::collection::vec(0usize..8, 70),
            1usize..5,
            (1u32..100, 2u32..5, 1usize..4, 1u32..6),
            proptest::collection::btree_set(0u32..14, 1..3),
        );
        txanon_testkit::exercised(
            256,
            strategy,
            |(rows, shard_of, shards, (h, k, p, k2), private)| {
                let rows: Vec<Vec<u32>> =
                    rows.iter().map(|r| r.iter().copied().collect()).collect();
                let whole = TransactionDb::from_int_transactions(rows.clone());
                let private: Vec<String> = private
                    .iter()
                    .map(u32::to_string)
                    .filter(|l| whole.labels().find(l).is_some())
                    .collect();
                let private_ids: Vec<ItemId> =
                    private.iter().map(|l| whole.labels().find(l).unwrap()).collect();
                // A decimal of two digits, as a user types it: the algorithm compares shares
                // as doubles, the audit as the decimal h prints as, and the two agree on these.
                let h = f64::from(h) / 100.0;
                let params = CoherenceParams::new(h, k, p, k2).seed(Some(5)).check().unwrap();
                let one = crate::anonymize(&whole, &private_ids, &params);
                let supports: Vec<(String, u64)> = (0..whole.num_items())
                    .map(|i| (whole.label(i as u32).to_string(), u64::from(whole.supports()[i])))
                    .collect();
                let parts: Vec<TransactionDb> = (0..shards)
                    .map(|s| {
                        TransactionDb::from_int_transactions(
                            rows.iter()
                                .zip(&shard_of)
                                .filter(|&(_, &of)| of % shards == s)
                                .map(|(r, _)| r.clone())
                                .collect::<Vec<_>>(),
                        )
                    })
                    .collect();
                let mut local = LocalShards { shards: parts };
                let sharded = sharded_suppression(
                    &supports,
                    rows.len() as u64,
                    &private,
                    &params,
                    &mut local,
                );
                let (one, sharded) = match (one, sharded) {
                    (Ok(one), Ok(sharded)) => (one, sharded),
                    (Err(a), Err(b)) => {
                        proptest::prop_assert_eq!(a.to_string(), b.to_string());
                        return Ok(false);
                    }
                    (a, b) => {
                        let a = a.map(|p| p.suppressed);
                        return Err(proptest::test_runner::TestCaseError::fail(format!(
                            "one process {a:?}, shards {b:?}"
                        )));
                    }
                };
                let expected: Vec<(String, Reason)> = one
                    .suppressed
                    .iter()
                    .map(|s| (whole.label(s.item).to_string(), s.reason))
                    .collect();
                proptest::prop_assert_eq!(&sharded.suppressed, &expected);
                proptest::prop_assert_eq!(sharded.moles, one.moles);
                proptest::prop_assert_eq!(sharded.minimal_moles, one.minimal_moles);
                proptest::prop_assert_eq!(sharded.nuggets_before, one.nuggets_before);
                proptest::prop_assert_eq!(sharded.nuggets_after, one.nuggets_after);
                let gone: Vec<String> = sharded.suppressed.iter().map(|s| s.0.clone()).collect();
                let mut union: Vec<Vec<String>> = Vec::new();
                for shard in &local.shards {
                    union.extend(labelled(&publish_shard(shard, &gone, Some(3))));
                }
                union.sort();
                proptest::prop_assert_eq!(union, labelled(&one.published));
                let greedy = expected.iter().any(|s| matches!(s.1, Reason::Greedy { .. }));
                let non_empty = local.shards.iter().filter(|s| !s.is_empty()).count();
                Ok(greedy && non_empty > 1)
            },
        )
        .at_least(0.2, "a greedy step over several shards");
    }

    /// What the driver would list beyond the enumeration limit is refused before it is listed
    /// (the moles' candidates) or kept (the nuggets' candidates); the limit itself is not.
    #[test]
    fn listings_over_the_limit_are_refused() {
        // Public items 0..=6, private item 9 in every third transaction.
        let rows: Vec<Vec<u32>> = (0..40)
            .map(|t| {
                let mut row = vec![t % 4, 4 + t % 3];
                if t % 3 == 0 {
                    row.push(9);
                }
                row
            })
            .collect();
        let whole = TransactionDb::from_int_transactions(rows.clone());
        let supports: Vec<(String, u64)> = (0..whole.num_items())
            .map(|i| (whole.label(i as u32).to_string(), u64::from(whole.supports()[i])))
            .collect();
        let run = |limit| {
            let params =
                CoherenceParams::new(0.5, 2, 2, 1).enumeration_limit(limit).check().unwrap();
            let mut local = LocalShards { shards: vec![whole.clone()] };
            sharded_suppression(&supports, 40, &["9".to_string()], &params, &mut local)
        };
        // The moles' candidates: 80 singletons listed, capped by the 7 public items, and 40
        // pairs, capped by C(7, 2) = 21.
        match run(27) {
            Err(CoherenceError::TooManyToList { itemsets: 28, limit: 27, .. }) => {}
            other => panic!("{other:?}"),
        }
        // The nuggets at support 1 are every itemset that occurs: 8 items, 12 public pairs,
        // 5 pairs with item 9, 4 triples.
        match run(28) {
            Err(CoherenceError::TooManyToList { what, limit: 28, .. }) => {
                assert!(what.contains("nuggets"));
            }
            other => panic!("{other:?}"),
        }
        assert!(run(29).is_ok());
    }

    /// The driver hands the suppressions to the shards as JSON: counts beyond 64 bits survive.
    #[test]
    fn suppressions_travel_as_json() {
        let sent = ShardedSuppression {
            suppressed: vec![
                ("a".into(), Reason::Infrequent { support: 3 }),
                ("b".into(), Reason::Greedy { moles: u128::MAX, nuggets: 1 << 100 }),
            ],
            moles: u128::MAX,
            minimal_moles: 2,
            nuggets_before: 1 << 90,
            nuggets_after: 0,
            transactions: 9,
            listed: 4,
            requests: 4,
        };
        let text = serde_json::to_string(&sent).unwrap();
        assert_eq!(serde_json::from_str::<ShardedSuppression>(&text).unwrap(), sent);
    }

    #[test]
    fn keys_round_trip_and_candidate_supports_count_what_brute_force_counts() {
        for s in [vec![], vec![0], vec![3, 9], vec![0, 1, 2, 4_000_000]] {
            assert_eq!(itemset_of_key(itemset_key(&s)), s);
        }
        let db = TransactionDb::from_int_transactions([
            vec![1, 2, 3],
            vec![1, 2],
            vec![2, 3, 5],
            vec![1, 3],
            vec![],
        ]);
        let items: Vec<String> = ["1", "2", "3", "4", "5"].map(String::from).to_vec();
        let sets =
            vec![vec![0, 1], vec![0], vec![1, 2], vec![0, 1, 2], vec![3], vec![], vec![2, 4]];
        let ShardCounts::Supports(found) =
            count_shard(&db, &ShardRequest::Supports { items, itemsets: sets }).unwrap()
        else {
            panic!()
        };
        assert_eq!(found, vec![2, 3, 2, 1, 0, 5, 1]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 200, ..proptest::prelude::ProptestConfig::default()
        })]

        /// The itemsets request counts what listing every subset of every transaction counts:
        /// each itemset of 1 to `p` of the requested public items that occurs, its support and
        /// its support with each requested private item; items outside both lists ignored.
        #[test]
        fn itemset_counts_are_what_brute_force_counts(
            ts in proptest::collection::vec(proptest::collection::btree_set(0u32..12, 0..8), 0..40),
            public in proptest::collection::btree_set(0u32..12, 0..10),
            private in proptest::collection::btree_set(0u32..12, 0..4),
            p in 1usize..5,
        ) {
            let db = TransactionDb::from_int_transactions(
                ts.iter().map(|t| t.iter().copied().collect::<Vec<u32>>()),
            );
            let private: Vec<u32> = private.difference(&public).copied().collect();
            let public: Vec<u32> = public.into_iter().collect();
            let request = ShardRequest::Itemsets {
                public: public.iter().map(u32::to_string).collect(),
                private: private.iter().map(u32::to_string).collect(),
                p,
            };
            let ShardCounts::Itemsets(found) = count_shard(&db, &request).unwrap() else {
                panic!()
            };
            let mut expected: std::collections::BTreeMap<(u128, u32), u64> = Default::default();
            let rank = |list: &[u32], i: u32| list.iter().position(|&x| x == i).map(|r| r as u32);
            for t in &ts {
                let pu: Vec<u32> = t.iter().filter_map(|&i| rank(&public, i)).collect();
                let pr: Vec<u32> = t.iter().filter_map(|&i| rank(&private, i)).collect();
                for mask in 1u32..(1 << pu.len()) {
                    if mask.count_ones() as usize > p {
                        continue;
                    }
                    let set: Vec<u32> =
                        (0..pu.len()).filter(|&b| mask >> b & 1 == 1).map(|b| pu[b]).collect();
                    let key = itemset_key(&set);
                    *expected.entry((key, NO_PRIVATE)).or_insert(0) += 1;
                    for &s in &pr {
                        *expected.entry((key, s)).or_insert(0) += 1;
                    }
                }
            }
            let expected: Vec<(u128, u32, u64)> =
                expected.into_iter().map(|((k, s), c)| (k, s, c)).collect();
            proptest::prop_assert_eq!(found, expected);
        }
    }
}
