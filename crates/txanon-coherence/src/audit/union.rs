//! The union's (h,k,p)-coherence counted by an engine in parts: each shard's public itemsets
//! keyed by its own item ids and cut into pieces by a route every shard computes alike from the
//! labels ([`ShardKeyedItemsets`]); each part's pieces summed and decided in one task
//! ([`union_part`]). Rows of labels per itemset and shard, summed by Spark's `groupBy`, took
//! most of coherence's union audit at 10⁷ transactions (docs/SPARK.md, "Measured").

use rustc_hash::FxHashMap;
use txanon_data::audit::{MAX_VIOLATIONS, share_exceeds};
use txanon_data::{ItemId, ItemLabels, TransactionDb, mix64};

use super::{CoherenceClaim, CoherenceViolation, UnionItemset, union_violations};
use crate::error::CoherenceError;

/// The most public items of an itemset a key holds (32 bits each).
pub const UNION_MAX_P: usize = 4;

/// The private item of a support's count (none).
const NO_PRIVATE: u32 = u32::MAX;

/// One shard's public itemsets of at most `p` items (the empty one included) with their
/// supports and their counts with each private item, keyed by the shard's own item ids
/// ([`shard_keyed_itemsets`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardKeyedItemsets {
    /// The shard's items, by id.
    pub labels: Vec<String>,
    /// `(key, private, count)`: the itemset's ids plus one in 32-bit lanes from the low lane
    /// up, ascending (0 is the empty itemset); a private item's id and the transactions
    /// holding both, or `u32::MAX` and the itemset's support. Ascending.
    pub counts: Vec<(u128, u32, u64)>,
}

/// The bytes of one count in a piece: 16 of key, 4 of private, 8 of count, little-endian.
const COUNT_BYTES: usize = 28;

/// [`shard_itemsets`](super::shard_itemsets) keyed by the shard's item ids
/// ([`ShardKeyedItemsets`]), for an engine to cut into [`ShardKeyedItemsets::pieces`].
///
/// # Errors
/// [`CoherenceError::UnionTooWide`] when `p` and a published transaction both exceed
/// [`UNION_MAX_P`] public items (a key holds at most that many).
///
/// # Complexity
/// As [`shard_itemsets`](super::shard_itemsets): `Σ_r Σ_{i ≤ p} C(|r|, i) · (1 + s_r)` over
/// the distinct published transactions `r` with `s_r` private items, each count a cell of a
/// dense line (the private ones hashed), plus a scan of the line's items met per prefix.
pub fn shard_keyed_itemsets(
    published: &TransactionDb,
    claim: &CoherenceClaim,
) -> Result<ShardKeyedItemsets, CoherenceError> {
    let private: std::collections::HashSet<&str> =
        claim.private.iter().map(String::as_str).collect();
    let labels: Vec<String> =
        (0..published.num_items() as ItemId).map(|i| published.label(i).to_string()).collect();
    let is_private: Vec<bool> = labels.iter().map(|l| private.contains(l.as_str())).collect();
    let mut rows: FxHashMap<&[ItemId], u64> = FxHashMap::default();
    for t in published.iter() {
        *rows.entry(t).or_insert(0) += 1;
    }
    let longest = rows
        .keys()
        .map(|r| r.iter().filter(|&&i| !is_private[i as usize]).count())
        .max()
        .unwrap_or(0);
    let p = usize::try_from(claim.p).unwrap_or(usize::MAX);
    let most = p.min(longest);
    if most > UNION_MAX_P {
        return Err(CoherenceError::UnionTooWide { p, most: UNION_MAX_P });
    }
    // Each distinct row as its public words (dense ranks of the public ids met, ascending with
    // the ids) and its private items (their indices among the private ids met).
    let public_ids: Vec<ItemId> =
        (0..labels.len() as ItemId).filter(|&i| !is_private[i as usize]).collect();
    let private_ids: Vec<ItemId> =
        (0..labels.len() as ItemId).filter(|&i| is_private[i as usize]).collect();
    let mut word_of = vec![u32::MAX; labels.len()];
    for (w, &i) in public_ids.iter().enumerate() {
        word_of[i as usize] = w as u32;
    }
    for (q, &i) in private_ids.iter().enumerate() {
        word_of[i as usize] = q as u32;
    }
    let mut words: Vec<Vec<u32>> = Vec::with_capacity(rows.len());
    let mut secrets: Vec<Vec<u32>> = Vec::with_capacity(rows.len());
    let mut weights: Vec<u64> = Vec::with_capacity(rows.len());
    for (row, times) in rows {
        let mut public: Vec<u32> = Vec::with_capacity(row.len());
        let mut secret: Vec<u32> = Vec::new();
        for &i in row {
            if is_private[i as usize] { &mut secret } else { &mut public }
                .push(word_of[i as usize]);
        }
        public.sort_unstable();
        words.push(public);
        secrets.push(secret);
        weights.push(times);
    }
    let d = public_ids.len();
    let np = private_ids.len();
    let mut search = Projection {
        words: &words,
        secrets: &secrets,
        weights: &weights,
        public_ids: &public_ids,
        private_ids: &private_ids,
        most,
        counts: vec![vec![0; d]; most],
        together: (0..most).map(|_| FxHashMap::default()).collect(),
        buckets: (0..most).map(|_| vec![Vec::new(); d]).collect(),
        out: Vec::new(),
    };
    // The empty itemset: every transaction, and each private item's.
    search.out.push((0, NO_PRIVATE, weights.iter().sum()));
    let mut alone = vec![0u64; np];
    for (secret, &times) in secrets.iter().zip(&weights) {
        for &q in secret {
            alone[q as usize] += times;
        }
    }
    for (q, &c) in alone.iter().enumerate() {
        if c > 0 {
            search.out.push((0, private_ids[q], c));
        }
    }
    if most > 0 {
        let all: Vec<(u32, u32)> = (0..words.len() as u32).map(|r| (r, 0)).collect();
        search.extend(&all, 0, 0);
    }
    let mut counts = search.out;
    counts.sort_unstable();
    Ok(ShardKeyedItemsets { labels, counts })
}

/// [`shard_keyed_itemsets`]' depth-first count: for each prefix, its extensions by one word
/// counted in a dense line (and with each private item in a map: the rows holding one are few,
/// and a dense line of words × private items can be far larger than the data), with a line,
/// a map and a bucket per word for each depth, reused across the prefixes of that depth.
/// Hashing every subset of every row into one map of some millions of itemsets took 5.1 s on
/// the 500,000 baskets of the criterion bench `union-shard-keyed` (that code is not kept);
/// the projection 2.1 s: the lines stay in cache.
struct Projection<'a> {
    /// Each distinct row's public words, ascending.
    words: &'a [Vec<u32>],
    /// Each distinct row's private items (indices into `private_ids`).
    secrets: &'a [Vec<u32>],
    weights: &'a [u64],
    /// The shard's id of each word.
    public_ids: &'a [ItemId],
    /// The shard's id of each private index.
    private_ids: &'a [ItemId],
    most: usize,
    counts: Vec<Vec<u64>>,
    /// Per depth: `(word, private)` → the transactions holding the prefix, the word and the
    /// private item.
    together: Vec<FxHashMap<(u32, u32), u64>>,
    /// Per depth and word: the rows holding the prefix and the word, each with the position
    /// after the word (where the word's own extensions start).
    buckets: Vec<Vec<Vec<(u32, u32)>>>,
    out: Vec<(u128, u32, u64)>,
}

impl Projection<'_> {
    /// Counts the extensions by one word of the prefix `key` (`depth` words) in `tails`,
    /// records them, and goes on below each one while `most` allows.
    fn extend(&mut self, tails: &[(u32, u32)], key: u128, depth: usize) {
        let deeper = depth + 1 < self.most;
        let mut counts = std::mem::take(&mut self.counts[depth]);
        let mut together = std::mem::take(&mut self.together[depth]);
        let mut buckets = std::mem::take(&mut self.buckets[depth]);
        let mut met: Vec<u32> = Vec::new();
        for &(r, start) in tails {
            let row = &self.words[r as usize];
            let secret = &self.secrets[r as usize];
            let times = self.weights[r as usize];
            for (at, &w) in row.iter().enumerate().skip(start as usize) {
                let c = &mut counts[w as usize];
                if *c == 0 {
                    met.push(w);
                }
                *c += times;
                for &q in secret {
                    *together.entry((w, q)).or_insert(0) += times;
                }
                if deeper {
                    buckets[w as usize].push((r, at as u32 + 1));
                }
            }
        }
        let lane = 32 * depth;
        let extended = |w: u32| key | ((u128::from(self.public_ids[w as usize]) + 1) << lane);
        for ((w, q), c) in together.drain() {
            self.out.push((extended(w), self.private_ids[q as usize], c));
        }
        met.sort_unstable();
        for &w in &met {
            let set = extended(w);
            self.out.push((set, NO_PRIVATE, counts[w as usize]));
            counts[w as usize] = 0;
            if deeper {
                let below = std::mem::take(&mut buckets[w as usize]);
                self.extend(&below, set, depth + 1);
                // The bucket's buffer kept (emptied) for the next prefix at this depth.
                buckets[w as usize] = below;
                buckets[w as usize].clear();
            }
        }
        self.counts[depth] = counts;
        self.together[depth] = together;
        self.buckets[depth] = buckets;
    }
}

/// The key of ascending ids: each plus one in its 32-bit lane, from the low lane up.
fn lanes(ids: &[u32]) -> u128 {
    ids.iter().enumerate().fold(0, |k, (lane, &i)| k | ((u128::from(i) + 1) << (32 * lane)))
}

/// The ids of a key's lanes, from the low lane up.
fn ids_of(key: u128) -> impl Iterator<Item = u32> {
    (0..UNION_MAX_P)
        .map(move |lane| (key >> (32 * lane)) as u32)
        .take_while(|&w| w != 0)
        .map(|w| w - 1)
}

/// A label's part of the route: FNV-1a over its bytes, mixed.
fn label_hash(label: &str) -> u64 {
    let fnv = label
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    mix64(fnv)
}

impl ShardKeyedItemsets {
    /// The counts cut into `parts` pieces, each self-contained (the shard's labels, then its
    /// counts) for [`union_part`]: an itemset goes to the part its labels route it to, the
    /// same in every shard whatever its ids there.
    ///
    /// # Panics
    /// With no part.
    pub fn pieces(&self, parts: u32) -> Vec<Vec<u8>> {
        assert!(parts > 0, "at least one part");
        let hashes: Vec<u64> = self.labels.iter().map(|l| label_hash(l)).collect();
        let mut header = Vec::new();
        header.extend_from_slice(&(self.labels.len() as u32).to_le_bytes());
        for label in &self.labels {
            header.extend_from_slice(&(label.len() as u32).to_le_bytes());
            header.extend_from_slice(label.as_bytes());
        }
        let mut pieces: Vec<Vec<u8>> = vec![header; parts as usize];
        for &(key, private, count) in &self.counts {
            // A sum over the set (its labels' order differs between shards), then mixed.
            let sum = ids_of(key).fold(0u64, |h, i| h.wrapping_add(hashes[i as usize]));
            let piece = &mut pieces[(mix64(sum) % u64::from(parts)) as usize];
            piece.extend_from_slice(&key.to_le_bytes());
            piece.extend_from_slice(&private.to_le_bytes());
            piece.extend_from_slice(&count.to_le_bytes());
        }
        pieces
    }
}

/// What one part of the union holds ([`union_part`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct UnionPart {
    /// The part's distinct itemsets.
    pub itemsets: u64,
    /// The largest share of an itemset's transactions holding one private item (0 with none).
    pub worst_breach: f64,
    /// Whether the part holds the empty itemset and it is in fewer than `k` transactions
    /// (the union has too few).
    pub too_few_transactions: bool,
    /// The part's non-empty itemsets in fewer than `k` transactions.
    pub rare_itemsets: u64,
    /// The part's itemsets with a private item inferred above `h`.
    pub breaches: u64,
    /// The part's violations, at most `MAX_VIOLATIONS`, by itemset (its labels ranked as a
    /// reader ranks them: numerically when they are all integers).
    pub violations: Vec<CoherenceViolation>,
}

impl UnionPart {
    /// All the part's violations.
    pub fn total(&self) -> u64 {
        u64::from(self.too_few_transactions) + self.rare_itemsets + self.breaches
    }
}

/// One part's pieces (every shard's [`ShardKeyedItemsets::pieces`] of that part, in any order)
/// summed and decided under `claim` by [`union_violations`]' rule.
///
/// # Errors
/// [`CoherenceError::MalformedPiece`] for a piece that is not what
/// [`ShardKeyedItemsets::pieces`] writes.
pub fn union_part(pieces: &[&[u8]], claim: &CoherenceClaim) -> Result<UnionPart, CoherenceError> {
    let malformed = || CoherenceError::MalformedPiece("cut short, or an id it does not label");
    let mut ids: FxHashMap<String, u32> = FxHashMap::default();
    let mut labels: Vec<String> = Vec::new();
    let mut all: Vec<(u128, u32, u64)> = Vec::new();
    for piece in pieces {
        let mut at = 0usize;
        let mut take = |n: usize| -> Result<&[u8], CoherenceError> {
            let bytes =
                piece.get(at..at.checked_add(n).ok_or_else(malformed)?).ok_or_else(malformed)?;
            at += n;
            Ok(bytes)
        };
        let word = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("four bytes"));
        let n = word(take(4)?) as usize;
        let mut global = Vec::with_capacity(n.min(1 << 20));
        for _ in 0..n {
            let len = word(take(4)?) as usize;
            let label = std::str::from_utf8(take(len)?).map_err(|_| malformed())?;
            let next = labels.len() as u32;
            let id = *ids.entry(label.to_string()).or_insert_with(|| {
                labels.push(label.to_string());
                next
            });
            global.push(id);
        }
        let rest = &piece[at..];
        if !rest.len().is_multiple_of(COUNT_BYTES) {
            return Err(malformed());
        }
        let mut set: Vec<u32> = Vec::with_capacity(UNION_MAX_P);
        for c in rest.chunks_exact(COUNT_BYTES) {
            let key = u128::from_le_bytes(c[..16].try_into().expect("16 bytes"));
            let private = u32::from_le_bytes(c[16..20].try_into().expect("4 bytes"));
            let count = u64::from_le_bytes(c[20..].try_into().expect("8 bytes"));
            let global_of = |i: u32| global.get(i as usize).copied().ok_or_else(malformed);
            set.clear();
            for i in ids_of(key) {
                set.push(global_of(i)?);
            }
            set.sort_unstable();
            let private = if private == NO_PRIVATE { NO_PRIVATE } else { global_of(private)? };
            all.push((lanes(&set), private, count));
        }
    }
    all.sort_unstable_by_key(|&(key, private, _)| (key, private));
    // The labels' ranks among the part's, as a reader ranks them (the whole's ids).
    let (_, rank) = ItemLabels::ranked(&labels);
    let mut part = UnionPart {
        itemsets: 0,
        worst_breach: 0.0,
        too_few_transactions: false,
        rare_itemsets: 0,
        breaches: 0,
        violations: Vec::new(),
    };
    // The itemsets that break a bound (key, support, the worst private item and its count);
    // every other itemset only counted.
    type Breaking = (u128, u64, Option<(u32, u64)>);
    let mut breaking: Vec<Breaking> = Vec::new();
    let (h, k) = (claim.h, claim.k);
    for itemset in all.chunk_by(|a, b| a.0 == b.0) {
        part.itemsets += 1;
        let mut support = 0u64;
        let mut worst: Option<(u32, u64)> = None;
        for same in itemset.chunk_by(|a, b| a.1 == b.1) {
            let sum = same.iter().map(|c| c.2).fold(0u64, u64::saturating_add);
            if same[0].1 == NO_PRIVATE {
                support = sum;
            } else if worst.is_none_or(|(s, c)| {
                sum > c || (sum == c && rank[same[0].1 as usize] < rank[s as usize])
            }) {
                // Of equal counts, the private item a reader ranks first.
                worst = Some((same[0].1, sum));
            }
        }
        if let Some((_, count)) = worst
            && support > 0
        {
            part.worst_breach = part.worst_breach.max(count as f64 / support as f64);
        }
        // Doubles choose the candidates (a margin below h); the exact rule decides them.
        let breach = worst.is_some_and(|(_, count)| {
            count as f64 >= support as f64 * h * (1.0 - 1e-9) && share_exceeds(count, support, h)
        });
        if support < k {
            if itemset[0].0 == 0 {
                part.too_few_transactions = true;
            } else {
                part.rare_itemsets += 1;
            }
        }
        part.breaches += u64::from(breach);
        if support < k || breach {
            breaking.push((itemset[0].0, support, worst));
        }
    }
    // Named with their labels in the order a reader ranks them (the whole's ids), ascending
    // by those ranks, as the audit of the whole lists them.
    let mut named: Vec<(Vec<u32>, UnionItemset)> = breaking
        .into_iter()
        .map(|(key, support, worst)| {
            let mut set: Vec<u32> = ids_of(key).collect();
            set.sort_unstable_by_key(|&i| rank[i as usize]);
            let ranks = set.iter().map(|&i| rank[i as usize]).collect();
            let name = |i: u32| labels[i as usize].clone();
            (
                ranks,
                (set.into_iter().map(name).collect(), support, worst.map(|(s, c)| (name(s), c))),
            )
        })
        .collect();
    named.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let named: Vec<UnionItemset> = named.into_iter().map(|(_, n)| n).collect();
    let (violations, total) = union_violations(&named, claim);
    debug_assert_eq!(total, part.total(), "one rule, counted twice");
    debug_assert!(violations.len() <= MAX_VIOLATIONS);
    part.violations = violations;
    Ok(part)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use proptest::prelude::*;
    use txanon_data::TransactionDb;

    use super::{shard_keyed_itemsets, union_part};
    use crate::audit::{CoherenceClaim, UnionItemset, shard_itemsets, union_violations};
    use crate::error::CoherenceError;

    /// The union decided in parts (each shard keyed by its own ids, cut into random parts, each
    /// part summed apart) finds what the union of the labelled counts finds: as many
    /// itemsets, the same worst share, as many violations and, when they are few, the same.
    /// Shards number their items differently (an item absent from one shifts the others' ids),
    /// so the labels, not the ids, must meet. Counted: the cases with a violation over more
    /// than one part and more than one non-empty shard.
    #[test]
    fn parts_decide_what_the_labelled_union_decides() {
        let strategy = (
            prop::collection::vec(prop::collection::btree_set(0u32..14, 0..7), 2..70),
            prop::collection::vec(0usize..4, 70),
            1usize..4,
            1u32..5,
            prop::collection::btree_set(0u32..14, 0..3),
            (prop::sample::select(vec![0.25, 0.5, 0.75]), 2u64..5, 1u64..4),
        );
        txanon_testkit::exercised(
            256,
            strategy,
            |(ts, shard_of, shards, parts, private, (h, k, p))| {
                let rows: Vec<Vec<u32>> = ts.iter().map(|t| t.iter().copied().collect()).collect();
                let private: Vec<String> = private.iter().map(u32::to_string).collect();
                let claim = CoherenceClaim::new(h, k, p).unwrap().private(private);
                let mut labelled: BTreeMap<(Vec<String>, Option<String>), u64> = BTreeMap::new();
                let mut pieces: Vec<Vec<Vec<u8>>> = vec![Vec::new(); parts as usize];
                let mut non_empty = 0;
                for s in 0..shards {
                    let part = TransactionDb::from_int_transactions(
                        rows.iter()
                            .zip(&shard_of)
                            .filter(|&(_, &of)| of % shards == s)
                            .map(|(r, _)| r.clone())
                            .collect::<Vec<_>>(),
                    );
                    non_empty += usize::from(!part.is_empty());
                    for (set, s, c) in shard_itemsets(&part, &claim) {
                        *labelled.entry((set, s)).or_insert(0) += c;
                    }
                    let keyed = shard_keyed_itemsets(&part, &claim).unwrap();
                    for (j, piece) in keyed.pieces(parts).into_iter().enumerate() {
                        pieces[j].push(piece);
                    }
                }
                let mut union: BTreeMap<Vec<String>, UnionItemset> = BTreeMap::new();
                for ((set, s), c) in labelled {
                    let e = union.entry(set.clone()).or_insert((set, 0, None));
                    match s {
                        None => e.1 = c,
                        // Of equal counts, the private item ranked first (integers here).
                        Some(s) => {
                            let rank = |l: &str| l.parse::<u32>().unwrap();
                            if e.2
                                .as_ref()
                                .is_none_or(|w| c > w.1 || (c == w.1 && rank(&s) < rank(&w.0)))
                            {
                                e.2 = Some((s, c));
                            }
                        }
                    }
                }
                let union: Vec<UnionItemset> = union.into_values().collect();
                let worst = union
                    .iter()
                    .filter_map(|(_, support, w)| w.as_ref().map(|w| w.1 as f64 / *support as f64))
                    .fold(0.0, f64::max);
                let (expected, expected_total) = union_violations(&union, &claim);
                let (mut itemsets, mut found_worst, mut total) = (0, 0.0f64, 0);
                let mut found = Vec::new();
                let mut breaking_parts = 0;
                for part in &pieces {
                    let slices: Vec<&[u8]> = part.iter().map(Vec::as_slice).collect();
                    let decided = union_part(&slices, &claim).unwrap();
                    itemsets += decided.itemsets;
                    found_worst = found_worst.max(decided.worst_breach);
                    total += decided.total();
                    breaking_parts += usize::from(decided.total() > 0);
                    found.extend(decided.violations);
                }
                prop_assert_eq!(itemsets as usize, union.len());
                prop_assert_eq!(found_worst, worst);
                prop_assert_eq!(total, expected_total);
                if (expected_total as usize) == expected.len() {
                    let names = |v: &[crate::audit::CoherenceViolation]| -> BTreeSet<String> {
                        v.iter().map(|x| format!("{x:?}")).collect()
                    };
                    prop_assert_eq!(names(&found), names(&expected));
                }
                Ok(breaking_parts > 1 && non_empty > 1)
            },
        )
        .at_least(0.2, "violations over several parts and shards");
    }

    /// A piece cut short, or naming an id its labels do not hold, is refused, not read.
    #[test]
    fn malformed_pieces_are_refused() {
        let db = TransactionDb::from_int_transactions([vec![1, 2], vec![2, 3], vec![1, 3]]);
        let claim = CoherenceClaim::new(0.5, 2, 2).unwrap().private(vec!["3".to_string()]);
        let keyed = shard_keyed_itemsets(&db, &claim).unwrap();
        let piece = keyed.pieces(1).remove(0);
        assert!(union_part(&[&piece], &claim).is_ok());
        for cut in [1, 5, piece.len() - 1] {
            let short = &piece[..cut];
            assert!(matches!(union_part(&[short], &claim), Err(CoherenceError::MalformedPiece(_))));
        }
        // No label, and a count of the itemset of id 0.
        let mut piece = 0u32.to_le_bytes().to_vec();
        piece.extend_from_slice(&1u128.to_le_bytes());
        piece.extend_from_slice(&u32::MAX.to_le_bytes());
        piece.extend_from_slice(&3u64.to_le_bytes());
        assert!(matches!(union_part(&[&piece], &claim), Err(CoherenceError::MalformedPiece(_))));
    }

    /// A claim's `p` above what a key holds is refused when a published transaction has more
    /// public items, and counted up to the longest transaction otherwise.
    #[test]
    fn wide_itemsets_are_refused() {
        let claim = |p| CoherenceClaim::new(0.5, 2, p).unwrap().private(vec![]);
        let wide = TransactionDb::from_int_transactions([vec![1, 2, 3, 4, 5]]);
        assert!(matches!(
            shard_keyed_itemsets(&wide, &claim(5)),
            Err(CoherenceError::UnionTooWide { p: 5, most: 4 })
        ));
        assert!(shard_keyed_itemsets(&wide, &claim(4)).is_ok());
        let narrow = TransactionDb::from_int_transactions([vec![1, 2, 3]]);
        let keyed = shard_keyed_itemsets(&narrow, &claim(9)).unwrap();
        // 1 + 3 + 3 + 1 itemsets, each with its support.
        assert_eq!(keyed.counts.len(), 8);
    }
}
