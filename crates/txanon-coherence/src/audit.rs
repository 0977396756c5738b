//! The independent checker: (h,k,p)-coherence verified from the published transactions and the
//! auditor's private items, and the publication checked against the original when given.
//!
//! It shares no code with the algorithm (no mole border, no engine, no miner): a depth-first
//! search over the public itemsets that occur, in item order, with the transaction lists of
//! each node, checks every itemset of at most `p` items. A perfect extension of a node (an item
//! in every one of its transactions) gives itemsets with the node's own transactions, hence
//! the node's own support and inferences: it is never branched on; children of a node with the
//! same transactions are one class, searched once. Identical transactions are one row with a
//! weight. So `k` identical wide transactions cost one pass, the items of a wide transaction
//! that occur nowhere else are one class, and a violation in a wide transaction is found after
//! one scan of it; the search stops once
//! [`MAX_VIOLATIONS`](txanon_data::audit::MAX_VIOLATIONS) are found.

use std::collections::HashMap;
use std::fmt;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use txanon_data::audit::{
    MAX_VIOLATIONS, RowMultiset, ViolationLog, Violations, distinct_rows, share_exceeds,
    unmatched_rows,
};
use txanon_data::fetch::{FIRST_LINE, fetched_ahead};
use txanon_data::progress::{Progress, Unit};
use txanon_data::sets::each_subset_up_to;
use txanon_data::{ItemId, ParamError, TransactionDb};

use crate::error::CoherenceError;

mod union;
pub use union::{ShardKeyedItemsets, UNION_MAX_P, UnionPart, shard_keyed_itemsets, union_part};

/// The guarantee an auditor wants verified: no attacker who knows at most `p` public items of a
/// person finds fewer than `k` transactions matching them, or infers a private item with
/// probability above `h`; the private items (labels) are part of the claim, since every other
/// item is public.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoherenceClaim {
    h: f64,
    k: u64,
    p: u64,
    private: Vec<String>,
}

impl CoherenceClaim {
    /// `(h, k, p)`.
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `h` outside `[0, 1)` (`h ≥ 1` bounds nothing), `k < 2`
    /// (a cohort of one is no cohort), or `p < 1`.
    pub fn new(h: f64, k: u64, p: u64) -> Result<Self, ParamError> {
        let bad = |name, value: String, reason| Err(ParamError::OutOfRange { name, value, reason });
        if !(0.0..1.0).contains(&h) {
            return bad("h", h.to_string(), "a probability bound in [0, 1): h ≥ 1 bounds nothing");
        }
        if k < 2 {
            return bad("k", k.to_string(), "at least 2: k = 1 forbids nothing");
        }
        if p < 1 {
            return bad("p", p.to_string(), "an attacker knows at least one item");
        }
        Ok(Self { h, k, p, private: Vec::new() })
    }

    /// The private items, by label (none by default: every item public). A label the
    /// publication does not hold is inferred from nothing.
    pub fn private(mut self, labels: Vec<String>) -> Self {
        self.private = labels;
        self
    }

    /// The private items' labels.
    pub fn private_items(&self) -> &[String] {
        &self.private
    }

    /// The breach bound.
    pub fn h(&self) -> f64 {
        self.h
    }

    /// The cohort size.
    pub fn k(&self) -> u64 {
        self.k
    }

    /// The attacker's power.
    pub fn p(&self) -> u64 {
        self.p
    }
}

/// A way a publication breaks (h,k,p)-coherence or its origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
// Serialized with its kind, as front ends hand violations over as objects (Python).
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum CoherenceViolation {
    /// Fewer than `k` transactions: the empty itemset, known to every attacker, is a mole.
    TooFewTransactions {
        /// Transactions.
        transactions: usize,
        /// The claim's `k`.
        k: u64,
    },
    /// A public itemset of at most `p` items that occurs in fewer than `k` transactions.
    RareItemset {
        /// The itemset (labels, ascending by id).
        itemset: Vec<String>,
        /// Its support.
        support: u64,
        /// The claim's `k`.
        k: u64,
    },
    /// A private item inferred above `h` from a public itemset (the empty one included).
    Breach {
        /// The itemset known.
        itemset: Vec<String>,
        /// The private item inferred.
        private: String,
        /// Transactions of the itemset holding it.
        count: u64,
        /// The itemset's support.
        support: u64,
    },
    /// Another number of transactions than the original.
    RecordCount {
        /// Published.
        published: usize,
        /// Original.
        original: usize,
    },
    /// A published item the original does not have.
    ItemNotInOriginal {
        /// The item.
        item: String,
    },
    /// A private item whose occurrences changed: private items are never suppressed.
    PrivateChanged {
        /// The item.
        item: String,
        /// Occurrences in the original.
        original: u64,
        /// In the publication.
        published: u64,
    },
    /// A public item neither kept everywhere nor suppressed everywhere.
    PartlySuppressed {
        /// The item.
        item: String,
        /// Occurrences in the original.
        original: u64,
        /// In the publication.
        published: u64,
    },
    /// The published transactions are not the original's less the suppressed items.
    TransactionsNotFromOriginal {
        /// A transaction (labels, sorted) published another number of times than the original
        /// less its suppressed items holds it.
        transaction: Vec<String>,
    },
}

impl fmt::Display for CoherenceViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = |items: &[String]| format!("{{{}}}", items.join(","));
        match self {
            Self::TooFewTransactions { transactions, k } => {
                write!(f, "{transactions} transactions, fewer than k = {k}")
            }
            Self::RareItemset { itemset, support, k } => write!(
                f,
                "public itemset {} occurs in {support} transactions, fewer than k = {k}",
                set(itemset)
            ),
            Self::Breach { itemset, private, count, support } => {
                write!(f, "Pr({private} | {}) = {count}/{support}, above h", set(itemset))
            }
            Self::RecordCount { published, original } => {
                write!(f, "{published} transactions published, the original has {original}")
            }
            Self::ItemNotInOriginal { item } => {
                write!(f, "published item {item} is not an item of the original")
            }
            Self::PrivateChanged { item, original, published } => write!(
                f,
                "private item {item} occurs {published} times, {original} in the original: private items are never suppressed"
            ),
            Self::PartlySuppressed { item, original, published } => write!(
                f,
                "public item {item} occurs {published} times, {original} in the original: an item is kept or suppressed everywhere"
            ),
            Self::TransactionsNotFromOriginal { transaction } => write!(
                f,
                "transaction {} is published another number of times than the original less its suppressed items holds it",
                set(transaction)
            ),
        }
    }
}

/// Coherence's violations, as the error carries them.
pub type CoherenceViolations = Violations<CoherenceViolation>;

/// What the audit found in data that keeps the claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoherenceAuditReport {
    /// The claim verified.
    pub claim: CoherenceClaim,
    /// Transactions.
    pub transactions: usize,
    /// Classes of public itemsets checked (an itemset with its perfect extensions: one
    /// transaction list, one check).
    pub classes_checked: u64,
    /// The largest `Pr(s | γ)` met, over private items `s` and public itemsets `γ` of at most
    /// `p` items (the empty one included).
    pub worst_breach: f64,
    /// Public items of the original suppressed, when the original was given.
    pub suppressed_items: Option<usize>,
}

/// Verifies that `published` is (h,k,p)-coherent for the private items `private` (labels;
/// those absent from `published` are inferred from nothing) under `claim`: at least `k` transactions, and for every public itemset `γ` of
/// at most `p` items that occurs (the empty one included), support at least `k` and no
/// private item in more than `h` of its transactions.
///
/// With `original` (matched by label): as many transactions; every published item an original
/// item; every private item as often as in the original; every public item kept everywhere or
/// suppressed everywhere; and the published transactions, as a multiset, the original's less
/// the suppressed items.
///
/// # Errors
/// [`CoherenceError::Audit`] with the violations found.
///
/// # Complexity
/// For each class of itemsets visited, one scan of its transactions: `O(Σ_γ Σ_{t ∋ γ} |t|)`
/// over the classes of at most `p` base items with support at least `k`, stopping early at
/// violations; linear in the data for the wide transactions described in the module docs.
pub fn audit(
    published: &TransactionDb,
    claim: &CoherenceClaim,
    original: Option<&TransactionDb>,
) -> Result<CoherenceAuditReport, CoherenceError> {
    audit_with_progress(published, claim, original, &Progress::default())
}

/// [`audit`], its phases shown on `progress`: the search's subtrees below each item (counted
/// by their transactions), then the comparison with the original.
///
/// # Errors
/// As [`audit`].
pub fn audit_with_progress(
    published: &TransactionDb,
    claim: &CoherenceClaim,
    original: Option<&TransactionDb>,
    progress: &Progress,
) -> Result<CoherenceAuditReport, CoherenceError> {
    audit_copying(published, claim, original, progress, (COPIED_BRANCH, DISTINCT_BY_SORT))
}

/// [`audit_with_progress`], its branches of at least `copied_branch` rows searched on a copy of
/// their rows, and the distinct transactions of a publication of at least `distinct_by_sort`
/// found by a sort (tests compare both ways of each).
fn audit_copying(
    published: &TransactionDb,
    claim: &CoherenceClaim,
    original: Option<&TransactionDb>,
    progress: &Progress,
    (copied_branch, distinct_by_sort): (usize, usize),
) -> Result<CoherenceAuditReport, CoherenceError> {
    // A short phase (one pass), shown without a total: nothing advances it.
    progress.begin("coherence audit: distinct transactions", Unit::Items, 0);
    let n = published.len();
    let (h, k) = (claim.h, claim.k);
    let private = claim.private.as_slice();
    // The comparison with the original reads both sides' rows into multisets on rayon, beside
    // the distinct transactions (one core for most of their sort at 10⁷) and the search, in a
    // log of its own, merged as if it had run after them.
    let searched = || {
        let mut log = ViolationLog::new();
        let label = |i: ItemId| published.label(i).to_string();
        let mut is_private = vec![false; published.num_items()];
        // A private item the publication does not hold is inferred from nothing.
        for s in private.iter().filter_map(|s| published.labels().find(s)) {
            is_private[s as usize] = true;
        }
        if (n as u64) < k {
            log.push(CoherenceViolation::TooFewTransactions { transactions: n, k });
        }
        // Public and private parts of every transaction, compressed rows.
        // Identical transactions merged into one row with a weight: k copies of a wide
        // transaction are one row, whose every itemset has the same transactions.
        // Both ways number the distinct transactions in order of first occurrence: the same rows.
        let mut public = Rows::default();
        let mut secret = Rows::default();
        let split = |t: &[ItemId], public: &mut Rows, secret: &mut Rows| {
            public.push(t.iter().copied().filter(|&i| !is_private[i as usize]));
            secret.push(t.iter().copied().filter(|&i| is_private[i as usize]));
        };
        if n >= distinct_by_sort {
            for (t, count) in distinct_rows(n, |t| published.transaction(t)) {
                split(published.transaction(t as usize), &mut public, &mut secret);
                *public.weights.last_mut().expect("pushed") = count;
            }
        } else {
            let mut distinct: FxHashMap<&[ItemId], u32> = FxHashMap::default();
            let mut weights = Vec::new();
            for t in published.iter() {
                let row = *distinct.entry(t).or_insert_with(|| {
                    split(t, &mut public, &mut secret);
                    weights.push(0);
                    weights.len() as u32 - 1
                });
                weights[row as usize] += 1;
            }
            public.weights = weights;
        }
        secret.weights.clone_from(&public.weights);
        // Public items renumbered by ascending support (the usual order of itemset search): the
        // rare items of a wide transaction come first, where each is one small class, and a node
        // ending in a frequent item scans only the frequent rest of a wide transaction.
        let mut support = vec![0u64; published.num_items()];
        for (t, &w) in public.weights.iter().enumerate() {
            for &i in public.row(t as u32) {
                support[i as usize] += w;
            }
        }
        let mut by_support: Vec<ItemId> =
            (0..published.num_items() as ItemId).filter(|&i| support[i as usize] > 0).collect();
        by_support.sort_by_key(|&i| (support[i as usize], i));
        let mut rank = vec![0 as ItemId; published.num_items()];
        for (r, &i) in by_support.iter().enumerate() {
            rank[i as usize] = r as ItemId;
        }
        for t in 0..public.weights.len() {
            let (start, end) = (public.offsets[t], public.offsets[t + 1]);
            let row = &mut public.items[start..end];
            for i in row.iter_mut() {
                *i = rank[*i as usize];
            }
            row.sort_unstable();
        }
        // An itemset of ranks, as its items' labels in id order.
        let ranked_labels = |ranks: &[ItemId]| -> Vec<String> {
            let mut ids: Vec<ItemId> = ranks.iter().map(|&r| by_support[r as usize]).collect();
            ids.sort_unstable();
            ids.into_iter().map(label).collect()
        };
        let mut worst = 0.0f64;
        let mut private_counts = vec![0u64; published.num_items()];
        let all: Vec<u32> = (0..public.weights.len() as u32).collect();
        if let Some(v) = breach((&all, n as u64), &secret, &mut private_counts, h, &mut worst) {
            log.push(CoherenceViolation::Breach {
                itemset: Vec::new(),
                private: label(v.0),
                count: v.1,
                support: n as u64,
            });
        }
        let mut classes = 1u64;
        if n as u64 >= k && !log.is_full() {
            let labels = (&ranked_labels as ItemsetLabels<'_>, &label as ItemLabel<'_>);
            let items = published.num_items();
            let found = search(&public, &secret, claim, items, labels, (progress, copied_branch));
            classes += found.classes;
            worst = worst.max(found.worst);
            log.append(found.log);
        }
        (log, worst, classes)
    };
    let compared = || {
        original.map(|original| {
            let mut own = ViolationLog::new();
            let gone = check_original(published, private, original, &mut own);
            (own, gone)
        })
    };
    let ((mut log, worst, classes), compared) = rayon::join(searched, compared);
    let mut suppressed_items = None;
    match compared {
        // After a violation, the check stops once its items are compared, at no violation of
        // its own (`check_original` returns `None` when its log is not empty).
        Some((_, Some(_))) if !log.is_empty() => {}
        Some((own, gone)) => {
            log.append(own);
            suppressed_items = gone.map(|s| s.len());
        }
        None => {}
    }
    log.finish(CoherenceAuditReport {
        claim: claim.clone(),
        transactions: n,
        classes_checked: classes,
        worst_breach: worst,
        suppressed_items,
    })
    .map_err(CoherenceError::Audit)
}

/// From this many transactions up, the audit finds the distinct ones by a sort on rayon
/// (`txanon_data::audit::distinct_rows`), below it in a hash map: at BMS-WebView-1's 60,000
/// (few distinct rows, in cache) the map took half the time, at 10⁷ Quest baskets (most rows
/// distinct, each look-up a cache miss) the sort ran on both cores (docs/PERFORMANCE.md).
const DISTINCT_BY_SORT: usize = 1 << 20;

/// Compressed rows of item ids, each the distinct transaction it stands for `weight` times.
#[derive(Debug, Default)]
struct Rows {
    offsets: Vec<usize>,
    items: Vec<ItemId>,
    weights: Vec<u64>,
    /// Bit `t` set when row `t` holds an item: a breach test reads the private rows of every
    /// transaction of a class, most of them empty with few private items, and the bits stay
    /// in cache where each row's offsets were a cache miss (a third of the search at 10⁷
    /// transactions with 10 private items).
    held: Vec<u64>,
}

impl Rows {
    fn push(&mut self, row: impl Iterator<Item = ItemId>) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        let before = self.items.len();
        self.items.extend(row);
        self.offsets.push(self.items.len());
        let t = self.weights.len();
        self.weights.push(0);
        if t.is_multiple_of(64) {
            self.held.push(0);
        }
        self.held[t / 64] |= u64::from(self.items.len() > before) << (t % 64);
    }

    /// Whether row `t` holds an item.
    fn holds(&self, t: u32) -> bool {
        self.held[t as usize / 64] >> (t % 64) & 1 != 0
    }

    fn row(&self, t: u32) -> &[ItemId] {
        &self.items[self.offsets[t as usize]..self.offsets[t as usize + 1]]
    }

    /// Rows `tids`, in that order, each cut to its items after `after` (all when `None`),
    /// with their weights.
    fn copy(&self, tids: &[u32], after: Option<ItemId>) -> Self {
        let mut out = Self::default();
        for &t in tids {
            let row = self.row(t);
            let from = after.map_or(0, |a| row.partition_point(|&i| i <= a));
            out.push(row[from..].iter().copied());
            *out.weights.last_mut().expect("pushed") = self.weights[t as usize];
        }
        out
    }
}

/// The private item most often among `tids` (standing for `total` transactions), if its share
/// exceeds `h`: `(item, count)`. Updates `worst` with the largest share met. `counts` is zero
/// on entry and on return.
fn breach(
    (tids, total): (&[u32], u64),
    secret: &Rows,
    counts: &mut [u64],
    h: f64,
    worst: &mut f64,
) -> Option<(ItemId, u64)> {
    if tids.is_empty() || secret.offsets.is_empty() {
        return None;
    }
    let mut touched = Vec::new();
    for &t in tids.iter().filter(|&&t| secret.holds(t)) {
        let w = secret.weights[t as usize];
        for &s in secret.row(t) {
            if counts[s as usize] == 0 {
                touched.push(s);
            }
            counts[s as usize] += w;
        }
    }
    let mut top: Option<(ItemId, u64)> = None;
    for &s in &touched {
        let c = counts[s as usize];
        if top.is_none_or(|(best, bc)| c > bc || (c == bc && s < best)) {
            top = Some((s, c));
        }
        counts[s as usize] = 0;
    }
    let (s, c) = top?;
    *worst = worst.max(c as f64 / total as f64);
    share_exceeds(c, total, h).then_some((s, c))
}

/// A node of the search: its base itemset (no perfect extension) and its transactions.
struct Node {
    base: Vec<ItemId>,
    tids: Vec<u32>,
    /// The transactions `tids` stand for (counted when the node was found).
    support: u64,
}

/// Labels of an itemset of ranks (public items), in item order.
type ItemsetLabels<'a> = &'a (dyn Fn(&[ItemId]) -> Vec<String> + Sync);

/// The label of a private item.
type ItemLabel<'a> = &'a (dyn Fn(ItemId) -> String + Sync);

/// What a search (or one branch of it) found: classes visited, the worst share, violations.
struct Found {
    classes: u64,
    worst: f64,
    log: ViolationLog<CoherenceViolation>,
}

/// The depth-first search below the empty itemset. The root's children are checked here, then
/// each child's subtree is searched on its own thread; the branches' findings are joined in
/// the order one depth-first search would list them (the smallest item first).
fn search(
    public: &Rows,
    secret: &Rows,
    claim: &CoherenceClaim,
    private_items: usize,
    labels: (ItemsetLabels<'_>, ItemLabel<'_>),
    (progress, copied_branch): (&Progress, usize),
) -> Found {
    let items = public.items.iter().map(|&i| i as usize + 1).max().unwrap_or(0);
    let n = public.weights.len();
    let search = Search { public, secret, claim, labels };
    let mut found = Found { classes: 0, worst: 0.0, log: ViolationLog::new() };
    let scratch = || Scratch {
        counts: vec![0; items],
        private_counts: vec![0; private_items],
        lists: vec![Vec::new(); items],
    };
    let root = Node {
        base: Vec::new(),
        tids: (0..n as u32).collect(),
        support: public.weights.iter().sum(),
    };
    let children = search.visit(&root, &mut scratch(), &mut found);
    let total = children.iter().map(|c| c.tids.len() as u64).sum();
    progress.begin("coherence audit: itemsets below each item (transactions)", Unit::Items, total);
    // The children of most transactions are handed out first, one at a time.
    let branches: Vec<Found> = txanon_data::parallel::map_largest_first(
        children,
        |child| child.tids.len() as u64,
        scratch,
        |scratch, child| {
            // A branch is counted when it is done: its transactions, read again below it.
            let read = child.tids.len() as u64;
            let mut branch = Found { classes: 0, worst: 0.0, log: ViolationLog::new() };
            // Below the pairs, each node rereads rows of the branch in random order: from a
            // copy of the branch's rows (the items after its own), they are near each other
            // and shorter, where every read of the whole data's rows was a cache miss (three
            // quarters of the search at ten million kosarak-shaped transactions and p = 3).
            let copied;
            let (search, child) = if claim.p >= 3 && child.tids.len() >= copied_branch {
                let item = *child.base.last().expect("a branch has its item");
                copied = (public.copy(&child.tids, Some(item)), secret.copy(&child.tids, None));
                let tids = (0..child.tids.len() as u32).collect();
                let local = Search { public: &copied.0, secret: &copied.1, ..search };
                (local, Node { tids, ..child })
            } else {
                (search, child)
            };
            let mut stack = vec![child];
            while let Some(node) = stack.pop() {
                if branch.log.is_full() {
                    break;
                }
                let mut next = search.visit(&node, scratch, &mut branch);
                stack.extend(next.drain(..).rev());
            }
            progress.advance(read);
            branch
        },
    );
    for branch in branches {
        found.classes += branch.classes;
        found.worst = found.worst.max(branch.worst);
        found.log.append(branch.log);
    }
    found
}

/// Least rows of a branch for its search to read a copy of them (at p ≥ 3): fewer stay in
/// cache anyway.
const COPIED_BRANCH: usize = 1 << 12;

/// A worker's counters, all zero between visits.
struct Scratch {
    /// Per public rank, its count in a node's rows.
    counts: Vec<u64>,
    /// Per published item, its count as a private item in a class's rows.
    private_counts: Vec<u64>,
    /// Per public rank, its transactions among a node's (empty between visits).
    lists: Vec<Vec<u32>>,
}

/// What every visit reads.
#[derive(Clone, Copy)]
struct Search<'a> {
    public: &'a Rows,
    secret: &'a Rows,
    claim: &'a CoherenceClaim,
    labels: (ItemsetLabels<'a>, ItemLabel<'a>),
}

impl Search<'_> {
    /// Checks the classes one item below `node` (their support, their breaches) into `found`,
    /// and returns those to search further (below the claim's `p`), smallest item first.
    fn visit(&self, node: &Node, scratch: &mut Scratch, found: &mut Found) -> Vec<Node> {
        let (public, secret, claim) = (self.public, self.secret, self.claim);
        let (labels, private_label) = self.labels;
        let counts = &mut scratch.counts;
        // One distinct transaction: every item after the base is a perfect extension.
        if node.tids.len() == 1 && !node.base.is_empty() {
            return Vec::new();
        }
        let last = node.base.last().copied();
        let after =
            |row: &[ItemId]| -> usize { last.map_or(0, |a| row.partition_point(|&i| i <= a)) };
        // Count the items after the base's last in the node's transactions, and list each
        // one's transactions, in one pass (the rows are read in random order: each read is a
        // cache miss at scale, so a batch's first lines are fetched together first).
        let lists = &mut scratch.lists;
        let mut touched: Vec<ItemId> = Vec::new();
        for t in fetched_ahead(&node.tids, |t| public.row(t), FIRST_LINE) {
            let row = public.row(t);
            let w = public.weights[t as usize];
            for &b in &row[after(row)..] {
                let list = &mut lists[b as usize];
                if list.is_empty() {
                    touched.push(b);
                }
                list.push(t);
                counts[b as usize] += w;
            }
        }
        touched.sort_unstable();
        let support = node.support;
        let depth = node.base.len() as u64 + 1;
        // Children: not perfect extensions (those share the node's transactions and checks).
        let mut children: Vec<(ItemId, u64)> = Vec::new();
        let mut tid_lists: Vec<Vec<u32>> = Vec::new();
        let mut full = false;
        for &b in &touched {
            let c = std::mem::take(&mut counts[b as usize]);
            if c == support || full || c < claim.k {
                lists[b as usize].clear();
            }
            if c == support || full {
                continue;
            }
            if c < claim.k {
                let mut ranks = node.base.clone();
                ranks.push(b);
                let itemset = labels(&ranks);
                full = !found.log.push(CoherenceViolation::RareItemset {
                    itemset,
                    support: c,
                    k: claim.k,
                });
            } else {
                children.push((b, c));
                tid_lists.push(std::mem::take(&mut lists[b as usize]));
            }
        }
        if children.is_empty() || full {
            return Vec::new();
        }
        let lists = tid_lists;
        // Children with the same transactions are one class: `base ∪ {b₂} ∪ X` has the
        // transactions of `base ∪ {b₁} ∪ X`, of the same length, so the smallest item stands
        // for the others (the items of a wide transaction that occur nowhere else are one
        // child, not a million).
        let keep: Vec<bool> = {
            let mut seen: FxHashSet<&[u32]> = FxHashSet::default();
            lists.iter().map(|l| seen.insert(l.as_slice())).collect()
        };
        let mut next = Vec::new();
        for (((b, support), tids), _) in
            children.into_iter().zip(lists).zip(keep).filter(|(_, k)| *k)
        {
            found.classes += 1;
            let mut base = node.base.clone();
            base.push(b);
            if let Some((s, c)) = breach(
                (&tids, support),
                secret,
                &mut scratch.private_counts,
                claim.h,
                &mut found.worst,
            ) {
                let pushed = found.log.push(CoherenceViolation::Breach {
                    itemset: labels(&base),
                    private: private_label(s),
                    count: c,
                    support,
                });
                if !pushed {
                    return Vec::new();
                }
            }
            if depth < claim.p {
                next.push(Node { base, tids, support });
            }
        }
        next
    }
}

/// The checks against the original; the number of public items suppressed.
fn check_original(
    published: &TransactionDb,
    private: &[String],
    original: &TransactionDb,
    log: &mut ViolationLog<CoherenceViolation>,
) -> Option<Vec<String>> {
    let private: std::collections::HashSet<&str> = private.iter().map(String::as_str).collect();
    if published.len() != original.len() {
        log.push(CoherenceViolation::RecordCount {
            published: published.len(),
            original: original.len(),
        });
        return None;
    }
    let mut published_support: HashMap<String, u64> = HashMap::new();
    for i in 0..published.num_items() as ItemId {
        let item = published.label(i).to_string();
        if original.labels().find(&item).is_none() {
            log.push(CoherenceViolation::ItemNotInOriginal { item: item.clone() });
        }
        published_support.insert(item, u64::from(published.supports()[i as usize]));
    }
    let mut suppressed = vec![false; original.num_items()];
    let mut gone = Vec::new();
    for i in 0..original.num_items() as ItemId {
        let item = original.label(i).to_string();
        let before = u64::from(original.supports()[i as usize]);
        let after = published_support.get(&item).copied().unwrap_or(0);
        if private.contains(item.as_str()) {
            if after != before {
                log.push(CoherenceViolation::PrivateChanged {
                    item,
                    original: before,
                    published: after,
                });
            }
        } else if after == 0 && before > 0 {
            suppressed[i as usize] = true;
            gone.push(item);
        } else if after != before {
            log.push(CoherenceViolation::PartlySuppressed {
                item,
                original: before,
                published: after,
            });
        }
    }
    if !log.is_empty() {
        return None;
    }
    // Both sides in the original's ids (a published label names one original item: checked
    // above), the original's rows less the suppressed items.
    let in_original: Vec<u32> = (0..published.num_items() as ItemId)
        .map(|i| original.labels().find(&published.label(i).to_string()).expect("checked above"))
        .collect();
    let (expected, found) = rayon::join(
        || {
            RowMultiset::from_rows(original.len(), |r, row| {
                row.extend(original.transaction(r).iter().filter(|&&i| !suppressed[i as usize]));
            })
        },
        || {
            RowMultiset::from_rows(published.len(), |r, row| {
                row.extend(published.transaction(r).iter().map(|&i| in_original[i as usize]));
            })
        },
    );
    for off in unmatched_rows(&found, &expected, MAX_VIOLATIONS) {
        let mut transaction: Vec<String> =
            off.row.iter().map(|&i| original.label(i).to_string()).collect();
        transaction.sort_unstable();
        if !log.push(CoherenceViolation::TransactionsNotFromOriginal { transaction }) {
            break;
        }
    }
    Some(gone)
}

/// What the audit of one shard of a publication found: everything but (h,k,p)-coherence,
/// which the shards' publications hold as a union only (see [`audit_shard`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoherenceShardAuditReport {
    /// The claim the shard belongs to.
    pub claim: CoherenceClaim,
    /// The shard's transactions.
    pub transactions: usize,
    /// The public items of the shard's original it suppressed (labels, in the original's
    /// order), when the original was given: the union keeps every item or suppresses it
    /// everywhere only when no shard publishes an item another suppressed.
    pub suppressed: Option<Vec<String>>,
}

/// The audit of one shard of a publication whose shards share one suppression set: every
/// check of [`audit`] against the shard's original (as many transactions, private items
/// untouched, each public item kept or suppressed everywhere in the shard, the transactions
/// the original's less the suppressed items), not the supports and inferences, which hold
/// for the union only: the caller sums [`shard_itemsets`] over the shards and decides them
/// with [`union_violations`].
///
/// # Errors
/// [`CoherenceError::Audit`] with the violations found.
pub fn audit_shard(
    published: &TransactionDb,
    claim: &CoherenceClaim,
    original: Option<&TransactionDb>,
) -> Result<CoherenceShardAuditReport, CoherenceError> {
    let mut log = ViolationLog::new();
    let suppressed = original.and_then(|o| check_original(published, &claim.private, o, &mut log));
    log.finish(CoherenceShardAuditReport {
        claim: claim.clone(),
        transactions: published.len(),
        suppressed,
    })
    .map_err(CoherenceError::Audit)
}

/// One shard's counts for the union: `(itemset, private, count)`, the itemset a public
/// itemset of at most `p` items that occurs (labels; the empty itemset
/// included), with `None` and its support, and with each private item it occurs with and the
/// transactions holding both. Labels in the order of their ids, which rank the labels alike in
/// every shard.
pub type ShardItemsets = Vec<(Vec<String>, Option<String>, u64)>;

/// Every public itemset of at most `p` items of one shard that occurs, the empty one
/// included, with its support and its count with each private item (see [`ShardItemsets`]):
/// summed over the shards, the union's supports and inferences.
///
/// # Complexity
/// `Σ_r Σ_{i ≤ p} C(|r|, i) · (1 + s_r)` over the distinct published transactions `r` with
/// `s_r` private items.
pub fn shard_itemsets(published: &TransactionDb, claim: &CoherenceClaim) -> ShardItemsets {
    let private: std::collections::HashSet<&str> =
        claim.private.iter().map(String::as_str).collect();
    let is_private: Vec<bool> = (0..published.num_items() as ItemId)
        .map(|i| private.contains(published.label(i).to_string().as_str()))
        .collect();
    let mut rows: FxHashMap<&[ItemId], u64> = FxHashMap::default();
    for t in published.iter() {
        *rows.entry(t).or_insert(0) += 1;
    }
    let most = usize::try_from(claim.p).unwrap_or(usize::MAX);
    // Each itemset met gets an index the first time (one allocation per distinct itemset, not
    // per occurrence); its support and private counts are kept by index.
    let mut index: FxHashMap<Vec<ItemId>, usize> = FxHashMap::default();
    let mut sets: Vec<Vec<ItemId>> = Vec::new();
    let mut support: Vec<u64> = Vec::new();
    let mut together: FxHashMap<(usize, ItemId), u64> = FxHashMap::default();
    for (row, times) in rows {
        let public: Vec<ItemId> =
            row.iter().copied().filter(|&i| !is_private[i as usize]).collect();
        let secret: Vec<ItemId> = row.iter().copied().filter(|&i| is_private[i as usize]).collect();
        let mut add = |set: &[ItemId]| {
            let at = match index.get(set) {
                Some(&at) => at,
                None => {
                    index.insert(set.to_vec(), sets.len());
                    sets.push(set.to_vec());
                    support.push(0);
                    sets.len() - 1
                }
            };
            support[at] += times;
            for &s in &secret {
                *together.entry((at, s)).or_insert(0) += times;
            }
        };
        add(&[]);
        each_subset_up_to(&public, most, &mut add);
    }
    drop(index);
    let name = |i: ItemId| published.label(i).to_string();
    // In id order, which is the labels' order in every shard (ids rank the labels).
    let labels = |at: usize| -> Vec<String> { sets[at].iter().map(|&i| name(i)).collect() };
    let mut out: ShardItemsets = (0..sets.len())
        .map(|at| (labels(at), None, support[at]))
        .chain(together.into_iter().map(|((at, s), c)| (labels(at), Some(name(s)), c)))
        .collect();
    out.sort_unstable();
    out
}

/// One itemset of the union, its counts summed over the shards: the itemset (labels), its
/// support, and the private item most often with it and how often (`None` when none is).
pub type UnionItemset = (Vec<String>, u64, Option<(String, u64)>);

/// The violations of (h,k,p)-coherence among `itemsets`, the union's public itemsets of at
/// most `p` items with their summed counts (the empty itemset's support is the union's
/// transactions): an itemset below `k`, and a private item inferred above `h`, decided
/// exactly as [`audit`] decides them. At most `MAX_VIOLATIONS`, in the order given; the
/// second value counts them all.
pub fn union_violations(
    itemsets: &[UnionItemset],
    claim: &CoherenceClaim,
) -> (Vec<CoherenceViolation>, u64) {
    let mut found = Vec::new();
    let mut total = 0u64;
    let mut push = |v: CoherenceViolation| {
        total += 1;
        if found.len() < MAX_VIOLATIONS {
            found.push(v);
        }
    };
    for (itemset, support, worst) in itemsets {
        if *support < claim.k {
            if itemset.is_empty() {
                push(CoherenceViolation::TooFewTransactions {
                    transactions: usize::try_from(*support).unwrap_or(usize::MAX),
                    k: claim.k,
                });
            } else {
                push(CoherenceViolation::RareItemset {
                    itemset: itemset.clone(),
                    support: *support,
                    k: claim.k,
                });
            }
        }
        if let Some((private, count)) = worst
            && share_exceeds(*count, *support, claim.h)
        {
            push(CoherenceViolation::Breach {
                itemset: itemset.clone(),
                private: private.clone(),
                count: *count,
                support: *support,
            });
        }
    }
    (found, total)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use txanon_data::TransactionDb;
    use txanon_data::progress::Progress;

    use super::{CoherenceClaim, UnionItemset, audit, audit_copying, shard_itemsets};
    use super::{audit_shard, union_violations};
    use std::collections::BTreeMap;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// A branch searched on a copy of its rows finds what it finds on the whole data's, and
        /// distinct transactions found by a sort what they find in a map: the same report, or
        /// the same violations in the same order.
        #[test]
        fn copied_branches_find_the_same(
            ts in prop::collection::vec(prop::collection::btree_set(0u32..12, 1..8), 1..60),
            private in prop::collection::btree_set(0u32..12, 0..3),
            h in prop::sample::select(vec![0.3, 0.6, 0.9]),
            k in 2u64..4,
            p in 3u64..5,
        ) {
            let db = TransactionDb::from_int_transactions(
                ts.iter().map(|t| t.iter().copied().collect::<Vec<_>>()),
            );
            let private: Vec<String> = private.iter().map(u32::to_string).collect();
            let claim = CoherenceClaim::new(h, k, p).unwrap().private(private);
            let progress = Progress::default();
            let run = |copied, sorted| {
                format!("{:?}", audit_copying(&db, &claim, Some(&db), &progress, (copied, sorted)))
            };
            let reference = run(usize::MAX, usize::MAX);
            prop_assert_eq!(run(0, usize::MAX), reference.clone());
            prop_assert_eq!(run(usize::MAX, 0), reference.clone());
            prop_assert_eq!(run(0, 0), reference);
        }
    }

    /// The union's counts (`shard_itemsets` summed over random shards) decided by
    /// `union_violations` fail exactly the claims `audit` fails on the whole, with the same
    /// violations when they are few; each shard passes `audit_shard` against itself.
    /// Counted: the cases that fail over more than one non-empty shard.
    #[test]
    fn the_union_of_shards_fails_what_the_whole_fails() {
        let strategy = (
            prop::collection::vec(prop::collection::btree_set(0u32..12, 0..6), 2..60),
            prop::collection::vec(0usize..4, 60),
            1usize..4,
            prop::collection::btree_set(0u32..12, 0..3),
            (prop::sample::select(vec![0.25, 0.5, 0.75]), 2u64..4, 1u64..4),
        );
        txanon_testkit::exercised(256, strategy, |(ts, shard_of, shards, private, (h, k, p))| {
            let rows: Vec<Vec<u32>> = ts.iter().map(|t| t.iter().copied().collect()).collect();
            let whole = TransactionDb::from_int_transactions(rows.clone());
            let private: Vec<String> = private.iter().map(u32::to_string).collect();
            let claim = CoherenceClaim::new(h, k, p).unwrap().private(private);
            let mut summed: BTreeMap<(Vec<String>, Option<String>), u64> = BTreeMap::new();
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
                prop_assert!(audit_shard(&part, &claim, Some(&part)).is_ok());
                for (set, s, c) in shard_itemsets(&part, &claim) {
                    *summed.entry((set, s)).or_insert(0) += c;
                }
            }
            let mut union: BTreeMap<Vec<String>, UnionItemset> = BTreeMap::new();
            for ((set, s), c) in summed {
                let e = union.entry(set.clone()).or_insert((set, 0, None));
                match s {
                    None => e.1 = c,
                    Some(s) => {
                        if e.2.as_ref().is_none_or(|w| c > w.1) {
                            e.2 = Some((s, c));
                        }
                    }
                }
            }
            let union: Vec<UnionItemset> = union.into_values().collect();
            let (found, total) = union_violations(&union, &claim);
            match audit(&whole, &claim, None) {
                Ok(_) => prop_assert_eq!(total, 0, "{:?}", found),
                Err(crate::error::CoherenceError::Audit(v)) => {
                    prop_assert!(total > 0);
                    // Every violation the whole's audit names is one of the union's.
                    if !v.truncated() && total as usize == found.len() {
                        for one in v.list() {
                            let kind = |x: &super::CoherenceViolation| match x {
                                super::CoherenceViolation::Breach { itemset, support, .. } => {
                                    format!("breach {itemset:?} {support}")
                                }
                                other => format!("{other:?}"),
                            };
                            prop_assert!(
                                found.iter().any(|f| kind(f) == kind(one)),
                                "{:?} not in {:?}",
                                one,
                                found
                            );
                        }
                    }
                    return Ok(non_empty > 1);
                }
                Err(e) => panic!("{e}"),
            }
            Ok(false)
        })
        .at_least(0.2, "failed over several shards");
    }
}
