//! The independent checker: from the original, the publication, the key linking published
//! records to original ones and the categories, decide for every record whether the method did
//! what it claims, and whether the record's tendency is still shown.
//!
//! It imports nothing from the algorithm: a record's tendency is recomputed here from the
//! paper's definition (a category heavier than the record's mean per category, the first in
//! the categories' order among equally heavy ones; or several items of one category only), so
//! a bug in the algorithm's own tendency cannot hide from it.

use std::collections::HashMap;
use std::fmt;

use rayon::prelude::*;
use serde::Serialize;
use txanon_data::audit::{ViolationLog, Violations};
use txanon_data::{Categorized, ItemId, TransactionDb};

use crate::error::SwapError;
use crate::params::{Method, Ties};

/// What the auditor wants verified: that the publication is what `method` publishes, and that
/// at most `max_exposed` records still show their tendency beyond what the method leaves
/// exposed by design ([`SwapClaim::exposed_by_design`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapClaim {
    method: Method,
    max_exposed: usize,
    ties: Ties,
}

impl SwapClaim {
    /// `method`'s guarantee with no record exposed beyond its design.
    pub fn new(method: Method) -> Self {
        Self { method, max_exposed: 0, ties: Ties::First }
    }

    /// Which of a record's equally heavy heaviest categories must be hidden: the first
    /// (the paper's, the default), or under [`Ties::All`] every one of them, and then a
    /// published record shows the tendency when any of its own heaviest categories is one.
    pub fn ties(mut self, ties: Ties) -> Self {
        self.ties = ties;
        self
    }

    /// Allow up to `n` records whose tendency is still shown (beyond the method's design).
    pub fn max_exposed(mut self, n: usize) -> Self {
        self.max_exposed = n;
        self
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The exposed records allowed.
    pub fn allowed(&self) -> usize {
        self.max_exposed
    }

    /// Whether `method` leaves a record of this kind of tendency exposed by design, so that it
    /// is counted apart: partial swapping and partial suppression select nothing in a record
    /// of one category (Algorithm 1: no category above the mean); full swapping touches only
    /// those; split personality publishes every category of a record as a record of its own,
    /// which shows that category alone. Both swappings and RandSwap claim to hide every
    /// tendency.
    pub fn exposed_by_design(method: Method, single_category: bool) -> bool {
        match method {
            Method::PartSwap | Method::PartSupp => single_category,
            Method::FullSwap => !single_category,
            Method::SplitPerson => true,
            Method::PartAndFullSwap | Method::RandSwap => false,
        }
    }
}

/// A way a swap publication breaks its claim. Records are numbered from 1, as lines of the
/// original and of the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
// Serialized with its kind, as front ends hand violations over as objects (Python).
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SwapViolation {
    /// A published item the original does not have.
    ItemNotInOriginal {
        /// Its label.
        item: String,
    },
    /// The key does not have one entry per published record.
    KeyLength {
        /// Entries of the key.
        entries: usize,
        /// Published records.
        published: usize,
    },
    /// A key entry naming no record of the original.
    KeyOutOfRange {
        /// The published record (key line).
        published_record: usize,
        /// The original record it names (1-based).
        names: u64,
        /// Records of the original.
        records: usize,
    },
    /// An original record with no published record.
    NotPublished {
        /// The original record.
        record: usize,
    },
    /// An original record published more than once by a method that publishes each once.
    PublishedTwice {
        /// The original record.
        record: usize,
        /// How many published records it has.
        times: usize,
    },
    /// An item more often in the publication than in the original.
    OccurrencesGained {
        /// The item.
        item: String,
        /// Its occurrences in the original.
        original: u64,
        /// In the publication.
        published: u64,
    },
    /// An item less often in the publication than in the original, under a method that moves
    /// items but never loses one.
    OccurrencesLost {
        /// The item.
        item: String,
        /// Its occurrences in the original.
        original: u64,
        /// In the publication.
        published: u64,
    },
    /// A record without tendency changed by a swapping (only records with a tendency swap).
    ChangedWithoutTendency {
        /// The original record.
        record: usize,
    },
    /// Under a swapping (and RandSwap), a published record that lacks an item of its original
    /// outside the swapped categories: the record's own tendency categories and those of the
    /// items it received. A swap exchanges whole categories' items; anything else lost was
    /// moved by someone else.
    ChangedOutsideSwap {
        /// The original record.
        record: usize,
        /// An item of it, of a category it did not swap, missing from its published record.
        item: String,
    },
    /// Under PartSupp, a published record that is not its original less exactly the items of
    /// the original's tendency category.
    NotSuppressedAsClaimed {
        /// The original record.
        record: usize,
    },
    /// Under SplitPerson, published records that are not the original's items split by
    /// category, one record per category.
    NotASplit {
        /// The original record.
        record: usize,
    },
    /// Two records left unswapped, both still showing their tendencies, that could have been
    /// swapped with each other: they were not left for want of a partner.
    CouldHaveSwapped {
        /// One record.
        first: usize,
        /// The other.
        second: usize,
    },
    /// More records still show their tendency than the auditor allows.
    Exposed {
        /// Records whose tendency is shown, beyond the method's design.
        exposed: usize,
        /// What the auditor allows.
        allowed: usize,
        /// The first few of them.
        first: Vec<usize>,
    },
}

impl fmt::Display for SwapViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ItemNotInOriginal { item } => {
                write!(f, "published item {item} is not an item of the original")
            }
            Self::KeyLength { entries, published } => {
                write!(f, "the key has {entries} entries for {published} published records")
            }
            Self::KeyOutOfRange { published_record, names, records } => write!(
                f,
                "key line {published_record} names record {names}; the original has {records}"
            ),
            Self::NotPublished { record } => write!(f, "original record {record} is not published"),
            Self::PublishedTwice { record, times } => {
                write!(f, "original record {record} is published {times} times")
            }
            Self::OccurrencesGained { item, original, published } => write!(
                f,
                "item {item} occurs {published} times in the publication, {original} in the original"
            ),
            Self::OccurrencesLost { item, original, published } => write!(
                f,
                "item {item} occurs {published} times in the publication, {original} in the original: this method loses no item"
            ),
            Self::ChangedOutsideSwap { record, item } => write!(
                f,
                "record {record} lost item {item:?}, of a category it did not swap (neither its tendency nor one it received)"
            ),
            Self::ChangedWithoutTendency { record } => {
                write!(f, "record {record} has no tendency, yet its published record differs")
            }
            Self::NotSuppressedAsClaimed { record } => write!(
                f,
                "record {record} is not published as itself less its tendency category's items"
            ),
            Self::NotASplit { record } => {
                write!(f, "record {record} is not published as one record per category it holds")
            }
            Self::CouldHaveSwapped { first, second } => write!(
                f,
                "records {first} and {second} are left unswapped, showing their tendencies, though they could have swapped with each other"
            ),
            Self::Exposed { exposed, allowed, first } => write!(
                f,
                "{exposed} records still show their tendency (allowed: {allowed}); first: {first:?}"
            ),
        }
    }
}

/// What [`audit`] found in a publication that keeps its claim.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SwapAuditReport {
    /// Records of the original.
    pub records: usize,
    /// Records published.
    pub published_records: usize,
    /// Occurrences of items in the original.
    pub occurrences: u64,
    /// Occurrences an item has fewer of in the publication (summed over items): RandSwap's
    /// collisions, PartSupp's suppressions.
    pub occurrences_lost: u64,
    /// Original records whose tendency is a category above the mean.
    pub with_tendency: usize,
    /// Original records of several items all in one category.
    pub single_category: usize,
    /// Original records whose published items differ.
    pub changed: usize,
    /// Records (either kind) whose tendency some published record of theirs still shows,
    /// beyond the method's design: at most the claim's allowance.
    pub exposed: usize,
    /// Records the method leaves exposed by design ([`SwapClaim::exposed_by_design`]).
    pub exposed_by_design: usize,
    /// Records left unswapped for want of a partner, showing their tendency: the audit has
    /// verified that no two of them could have been swapped with each other (the paper's
    /// algorithms leave such records as they are).
    pub exposed_unmatched: usize,
    /// Changed records whose tendency is still shown: swaps that are not true swaps.
    pub false_swaps: usize,
    /// The allowance verified.
    pub max_exposed: usize,
}

impl SwapAuditReport {
    /// Adds the per-record counts of `block` (a block of records checked on its own).
    fn add_counts(&mut self, block: &SwapAuditReport) {
        self.with_tendency += block.with_tendency;
        self.single_category += block.single_category;
        self.changed += block.changed;
        self.exposed += block.exposed;
        self.exposed_by_design += block.exposed_by_design;
        self.false_swaps += block.false_swaps;
    }
}

/// What a record shows of its owner's tendency, by the paper's definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    /// A category heavier than the mean weight per category (the first of equally heavy ones).
    AboveMean(u32),
    /// Several items, one category.
    OneCategory(u32),
    Nothing,
}

impl Shown {
    fn category(self) -> Option<u32> {
        match self {
            Shown::AboveMean(g) | Shown::OneCategory(g) => Some(g),
            Shown::Nothing => None,
        }
    }
}

/// The tendency a record of these items' categories shows. `scratch` is reused between
/// calls (its content does not matter).
fn shown(categories: impl Iterator<Item = u32>, scratch: &mut Vec<u32>) -> Shown {
    scratch.clear();
    scratch.extend(categories);
    if scratch.len() < 2 {
        return Shown::Nothing;
    }
    scratch.sort_unstable();
    // Runs of equal categories: the heaviest, and among equally heavy the smallest id (the
    // first name in order), since runs come in ascending order and only a heavier one wins.
    let (mut best, mut weight, mut count) = (scratch[0], 0u64, 0u64);
    for run in scratch.chunk_by(|a, b| a == b) {
        count += 1;
        if run.len() as u64 > weight {
            (best, weight) = (run[0], run.len() as u64);
        }
    }
    if count == 1 {
        Shown::OneCategory(best)
    } else if weight * count > scratch.len() as u64 {
        // weight > items / count, the mean weight per category present.
        Shown::AboveMean(best)
    } else {
        Shown::Nothing
    }
}

/// Every category of the heaviest weight in a record of these items' categories, ascending,
/// when the record shows a tendency ([`shown`]): one category, or several tied. Kept apart
/// from [`shown`] so that the paper's rule (the first of equally heavy ones) stays as it is.
fn heaviest(categories: impl Iterator<Item = u32>, scratch: &mut Vec<u32>) -> Vec<u32> {
    scratch.clear();
    scratch.extend(categories);
    if scratch.len() < 2 {
        return Vec::new();
    }
    scratch.sort_unstable();
    let weights: Vec<(u32, u64)> =
        scratch.chunk_by(|a, b| a == b).map(|run| (run[0], run.len() as u64)).collect();
    let top = weights.iter().map(|w| w.1).max().unwrap_or(0);
    if weights.len() == 1 || top * weights.len() as u64 > scratch.len() as u64 {
        weights.iter().filter(|w| w.1 == top).map(|w| w.0).collect()
    } else {
        Vec::new()
    }
}

/// Audits `published` (any dictionary: items are matched to `original`'s by label) against
/// `original` under `claim`, through `key` (for each published record, the 0-based original
/// record it comes from) and the item → category map of `original`.
///
/// Checked for every method: every published item is an original item and none occurs more
/// often than in the original; the key has one entry per published record, each naming an
/// original record, and every original record is published (exactly once, but under
/// SplitPerson). Then per method: the swappings lose no occurrence and change no record
/// without a tendency; PartSupp publishes each record less exactly its tendency category's
/// items; SplitPerson publishes each record as one record per category it holds. Finally, for
/// every record with a tendency, whether some published record of it shows the same tendency:
/// those beyond the method's design must number at most the claim's allowance. Records a
/// swapping left unchanged for want of a partner count apart when no two of them could have
/// swapped with each other (at the end of the paper's pairing no two such records remain).
///
/// # Errors
/// [`SwapError::Audit`] with the violations found.
///
/// # Complexity
/// `O(N)` expected time and space in the occurrences of both databases, plus `O(U² · w)` for
/// the `U` records left unswapped (at most 50 million pair checks).
pub fn audit(
    original: Categorized<'_>,
    published: &TransactionDb,
    key: &[u32],
    claim: &SwapClaim,
) -> Result<SwapAuditReport, SwapError> {
    let (category_of, original) = (original.category_of(), original.db());
    let mut log = ViolationLog::new();
    let to_original = items_are_original_items(original, published, &mut log);
    if key.len() != published.len() {
        log.push(SwapViolation::KeyLength { entries: key.len(), published: published.len() });
    }
    log.stop_if_any().map_err(SwapError::Audit)?;
    let rows_of = every_record_published(key, original.len(), claim.method, &mut log);
    log.stop_if_any().map_err(SwapError::Audit)?;
    let mut report = SwapAuditReport {
        records: original.len(),
        published_records: published.len(),
        max_exposed: claim.max_exposed,
        ..SwapAuditReport::default()
    };
    occurrences_as_the_method_keeps_them(
        original,
        published,
        &to_original,
        claim.method,
        &mut report,
        &mut log,
    );
    let records = Records { original, published, to_original: &to_original, category_of, claim };
    // The records' checks in blocks on rayon, joined in the records' order: the counts add
    // up, and the violations and first exposed records are those one pass in order finds.
    let blocks: Vec<Checked> = (0..original.len().div_ceil(BLOCK))
        .into_par_iter()
        .map_init(Scratch::default, |scratch, b| {
            let mut checked = Checked::default();
            for o in b * BLOCK..((b + 1) * BLOCK).min(original.len()) {
                records.check(o, rows_of.of(o), &mut checked, scratch);
            }
            checked
        })
        .collect();
    let mut exposure = Exposure::default();
    for block in blocks {
        report.add_counts(&block.report);
        exposure.append(block.exposure);
        log.append(block.log);
    }
    exposure.within_the_allowance(original, category_of, claim, &mut report, &mut log);
    log.finish(report).map_err(SwapError::Audit)
}

/// Check: every published item is an original item (by label). Returns the published ids in
/// the original's numbering (`ItemId::MAX` for an item that is not one).
fn items_are_original_items(
    original: &TransactionDb,
    published: &TransactionDb,
    log: &mut ViolationLog<SwapViolation>,
) -> Vec<ItemId> {
    (0..published.num_items() as ItemId)
        .map(|i| {
            let label = published.label(i).to_string();
            original.labels().find(&label).unwrap_or_else(|| {
                log.push(SwapViolation::ItemNotInOriginal { item: label });
                ItemId::MAX
            })
        })
        .collect()
}

/// Each original record's published records (ascending), flat.
struct RowsOf {
    /// Record `o`'s are `rows[starts[o]..starts[o + 1]]`.
    starts: Vec<usize>,
    rows: Vec<usize>,
}

impl RowsOf {
    fn of(&self, o: usize) -> &[usize] {
        &self.rows[self.starts[o]..self.starts[o + 1]]
    }
}

/// Check: the key names an original record for every published record, and every original
/// record is published, once (several times only under SplitPerson). Returns each original
/// record's published records.
fn every_record_published(
    key: &[u32],
    records: usize,
    method: Method,
    log: &mut ViolationLog<SwapViolation>,
) -> RowsOf {
    let mut starts = vec![0usize; records + 1];
    for (p, &o) in key.iter().enumerate() {
        if (o as usize) < records {
            starts[o as usize + 1] += 1;
        } else {
            log.push(SwapViolation::KeyOutOfRange {
                published_record: p + 1,
                names: u64::from(o) + 1,
                records,
            });
        }
    }
    for o in 0..records {
        let times = starts[o + 1];
        if times == 0 {
            log.push(SwapViolation::NotPublished { record: o + 1 });
        } else if times > 1 && method != Method::SplitPerson {
            log.push(SwapViolation::PublishedTwice { record: o + 1, times });
        }
        starts[o + 1] += starts[o];
    }
    let mut next = starts.clone();
    let mut rows = vec![0usize; starts[records]];
    for (p, &o) in key.iter().enumerate() {
        if (o as usize) < records {
            rows[next[o as usize]] = p;
            next[o as usize] += 1;
        }
    }
    RowsOf { starts, rows }
}

/// Check: no item occurs more often than in the original, and under the methods that move or
/// split items (every one but RandSwap and PartSupp) none occurs less often. Counts the
/// occurrences and those lost into `report`.
fn occurrences_as_the_method_keeps_them(
    original: &TransactionDb,
    published: &TransactionDb,
    to_original: &[ItemId],
    method: Method,
    report: &mut SwapAuditReport,
    log: &mut ViolationLog<SwapViolation>,
) {
    let mut before = vec![0u64; original.num_items()];
    for t in original.iter() {
        for &i in t {
            before[i as usize] += 1;
        }
    }
    let mut after = vec![0u64; original.num_items()];
    for t in published.iter() {
        for &i in t {
            after[to_original[i as usize] as usize] += 1;
        }
    }
    let exact = matches!(
        method,
        Method::PartSwap | Method::FullSwap | Method::PartAndFullSwap | Method::SplitPerson
    );
    report.occurrences = before.iter().sum();
    for (i, (&b, &a)) in before.iter().zip(&after).enumerate() {
        let item = || original.label(i as ItemId).to_string();
        if a > b {
            log.push(SwapViolation::OccurrencesGained { item: item(), original: b, published: a });
        } else if a < b {
            report.occurrences_lost += b - a;
            if exact {
                log.push(SwapViolation::OccurrencesLost {
                    item: item(),
                    original: b,
                    published: a,
                });
            }
        }
    }
}

/// Records checked per block of the parallel pass.
const BLOCK: usize = 16_384;

/// What the checks of one block of records found.
#[derive(Default)]
struct Checked {
    /// Its counts (the per-record ones only).
    report: SwapAuditReport,
    exposure: Exposure,
    log: ViolationLog<SwapViolation>,
}

/// Buffers reused from record to record.
#[derive(Default)]
struct Scratch {
    row: Vec<ItemId>,
    together: Vec<ItemId>,
    categories: Vec<u32>,
    received: Vec<u32>,
}

/// What the per-record checks read.
struct Records<'a> {
    original: &'a TransactionDb,
    published: &'a TransactionDb,
    to_original: &'a [ItemId],
    category_of: &'a [u32],
    claim: &'a SwapClaim,
}

impl Records<'_> {
    /// Published record `p` in the original's numbering, ascending, into `row`.
    fn published_row(&self, p: usize, row: &mut Vec<ItemId>) {
        row.clear();
        row.extend(self.published.transaction(p).iter().map(|&i| self.to_original[i as usize]));
        row.sort_unstable();
    }

    /// The checks of original record `o`, published as `rows`: what the method may change,
    /// PartSupp's and SplitPerson's forms, and whether the record's tendency is still shown.
    fn check(&self, o: usize, rows: &[usize], checked: &mut Checked, scratch: &mut Scratch) {
        let Checked { report, exposure, log } = checked;
        let method = self.claim.method;
        let swapping =
            matches!(method, Method::PartSwap | Method::FullSwap | Method::PartAndFullSwap);
        let t = self.original.transaction(o);
        let category_of = self.category_of;
        let tendency = shown(t.iter().map(|&i| category_of[i as usize]), &mut scratch.categories);
        // Changed: the published records, together, are not the original record. One
        // published record (every method but SplitPerson) stays in `scratch.row` for the
        // checks below.
        let changed = if let [p] = rows {
            self.published_row(*p, &mut scratch.row);
            scratch.row.as_slice() != t
        } else {
            scratch.together.clear();
            for &p in rows {
                self.published_row(p, &mut scratch.row);
                scratch.together.extend_from_slice(&scratch.row);
            }
            scratch.together.sort_unstable();
            scratch.together.as_slice() != t
        };
        report.changed += usize::from(changed);
        match tendency {
            Shown::AboveMean(_) => report.with_tendency += 1,
            Shown::OneCategory(_) => report.single_category += 1,
            Shown::Nothing => {}
        }
        if swapping && changed && tendency == Shown::Nothing {
            log.push(SwapViolation::ChangedWithoutTendency { record: o + 1 });
        }
        // The categories the claim wants hidden: the first heaviest, or every tied one.
        let (tied, one);
        let hidden: &[u32] = match (tendency, self.claim.ties) {
            (Shown::AboveMean(_), Ties::All) => {
                tied =
                    heaviest(t.iter().map(|&i| category_of[i as usize]), &mut scratch.categories);
                &tied
            }
            (shown_category, _) => {
                one = shown_category.category();
                one.as_slice()
            }
        };
        if let [_] = rows {
            let row = scratch.row.as_slice();
            if swapping || method == Method::RandSwap {
                self.changed_only_by_its_swap(o, row, hidden, &mut scratch.received, log);
            }
            if method == Method::PartSupp {
                self.suppressed_as_claimed(o, row, tendency, hidden, log);
            }
        }
        if method == Method::SplitPerson
            && !is_split(t, rows, category_of, |p, r| self.published_row(p, r))
        {
            log.push(SwapViolation::NotASplit { record: o + 1 });
        }
        let Some(g) = tendency.category() else { return };
        if !self.still_shown(rows, hidden, g, scratch) {
            return;
        }
        report.false_swaps += usize::from(changed);
        exposure.classify(o, method, tendency, changed, hidden, g, report);
    }

    /// Check: a swapped record loses only items of the categories it swapped (its own
    /// tendency's, or one it received). `row` is its published record.
    fn changed_only_by_its_swap(
        &self,
        o: usize,
        row: &[ItemId],
        hidden: &[u32],
        received: &mut Vec<u32>,
        log: &mut ViolationLog<SwapViolation>,
    ) {
        let t = self.original.transaction(o);
        let category_of = self.category_of;
        received.clear();
        received.extend(
            row.iter().filter(|i| t.binary_search(i).is_err()).map(|&i| category_of[i as usize]),
        );
        let lost = t.iter().find(|&&i| {
            let c = category_of[i as usize];
            !hidden.contains(&c) && !received.contains(&c) && row.binary_search(&i).is_err()
        });
        if let Some(&i) = lost {
            log.push(SwapViolation::ChangedOutsideSwap {
                record: o + 1,
                item: self.original.label(i).to_string(),
            });
        }
    }

    /// Check (PartSupp): the record is published (as `row`) less exactly its tendency's items.
    fn suppressed_as_claimed(
        &self,
        o: usize,
        row: &[ItemId],
        tendency: Shown,
        hidden: &[u32],
        log: &mut ViolationLog<SwapViolation>,
    ) {
        let t = self.original.transaction(o);
        let kept = |i: &&ItemId| match tendency {
            Shown::AboveMean(_) => !hidden.contains(&self.category_of[**i as usize]),
            _ => true,
        };
        if !row.iter().eq(t.iter().filter(kept)) {
            log.push(SwapViolation::NotSuppressedAsClaimed { record: o + 1 });
        }
    }

    /// Whether some published record of this record still shows its tendency `g` (under
    /// [`Ties::All`], any of the `hidden` categories among its own heaviest). One published
    /// record is already in `scratch.row`.
    fn still_shown(&self, rows: &[usize], hidden: &[u32], g: u32, scratch: &mut Scratch) -> bool {
        let shows = |row: &[ItemId], categories: &mut Vec<u32>| {
            let of = row.iter().map(|&i| self.category_of[i as usize]);
            match self.claim.ties {
                Ties::First => shown(of, categories).category() == Some(g),
                Ties::All => heaviest(of, categories).iter().any(|c| hidden.contains(c)),
            }
        };
        if let [_] = rows {
            return shows(&scratch.row, &mut scratch.categories);
        }
        rows.iter().any(|&p| {
            self.published_row(p, &mut scratch.row);
            shows(&scratch.row, &mut scratch.categories)
        })
    }
}

/// The records whose tendency is still shown, by why.
#[derive(Default)]
struct Exposure {
    /// The first exposed records (1-based), for the violation.
    first: Vec<usize>,
    /// Unchanged records a partial swapping left for want of a partner, with their hidden
    /// categories; excused if no two of them could have swapped.
    unmatched_partial: Vec<(usize, Vec<u32>)>,
    /// The same for full swapping.
    unmatched_full: Vec<(usize, Vec<u32>)>,
}

impl Exposure {
    /// Counts record `o`, whose tendency `g` is still shown: by the method's design, left for
    /// want of a partner (excused later if no two such could swap), or exposed.
    #[allow(clippy::too_many_arguments)]
    fn classify(
        &mut self,
        o: usize,
        method: Method,
        tendency: Shown,
        changed: bool,
        hidden: &[u32],
        g: u32,
        report: &mut SwapAuditReport,
    ) {
        let single = matches!(tendency, Shown::OneCategory(_));
        if SwapClaim::exposed_by_design(method, single) {
            report.exposed_by_design += 1;
        } else if !changed
            && matches!(method, Method::PartSwap | Method::PartAndFullSwap)
            && !single
        {
            self.unmatched_partial.push((o, hidden.to_vec()));
        } else if !changed && matches!(method, Method::FullSwap | Method::PartAndFullSwap) && single
        {
            self.unmatched_full.push((o, vec![g]));
        } else {
            report.exposed += 1;
            self.note(o);
        }
    }

    /// `later`'s records after this one's, as one pass in order would have found them.
    fn append(&mut self, later: Exposure) {
        for o in later.first {
            if self.first.len() < 10 {
                self.first.push(o);
            }
        }
        self.unmatched_partial.extend(later.unmatched_partial);
        self.unmatched_full.extend(later.unmatched_full);
    }

    fn note(&mut self, o: usize) {
        if self.first.len() < 10 {
            self.first.push(o + 1);
        }
    }

    /// Check: the records left unswapped are excused only if no two of them could have
    /// swapped; the exposed records number at most the claim's allowance.
    fn within_the_allowance(
        mut self,
        original: &TransactionDb,
        category_of: &[u32],
        claim: &SwapClaim,
        report: &mut SwapAuditReport,
        log: &mut ViolationLog<SwapViolation>,
    ) {
        let partial = std::mem::take(&mut self.unmatched_partial);
        let full = std::mem::take(&mut self.unmatched_full);
        let partial_excused = no_two_could_swap(original, category_of, &partial, false, log);
        let full_excused = no_two_could_swap(original, category_of, &full, true, log);
        for (excused, list) in [(partial_excused, &partial), (full_excused, &full)] {
            if excused {
                report.exposed_unmatched += list.len();
            } else {
                report.exposed += list.len();
                for (o, _) in list {
                    self.note(*o);
                }
            }
        }
        if report.exposed > claim.max_exposed {
            log.push(SwapViolation::Exposed {
                exposed: report.exposed,
                allowed: claim.max_exposed,
                first: self.first,
            });
        }
    }
}

/// Pair checks spent proving that records left unswapped had no partner; beyond it they are
/// not excused (a publication that leaves that many unswapped is suspect anyway).
const PAIR_BUDGET: u64 = 50_000_000;

/// Whether no two of the unswapped records `left` (original record, tendency categories)
/// could have been swapped with each other by the paper's rules: for full swapping, records of
/// one category only and different categories; for partial swapping, tendencies of no common
/// category, neither holding an item of the other's tendency categories. A pair that could is
/// logged.
fn no_two_could_swap(
    original: &TransactionDb,
    category_of: &[u32],
    left: &[(usize, Vec<u32>)],
    full: bool,
    log: &mut ViolationLog<SwapViolation>,
) -> bool {
    let mut budget = PAIR_BUDGET;
    for (x, (a, ga)) in left.iter().enumerate() {
        for (b, gb) in &left[x + 1..] {
            let (a, b) = (*a, *b);
            if ga.iter().any(|g| gb.contains(g)) {
                continue;
            }
            if budget == 0 {
                return false;
            }
            budget -= 1;
            let (ta, tb) = (original.transaction(a), original.transaction(b));
            let holds_of = |t: &[ItemId], other: &[ItemId], g: &[u32]| {
                other
                    .iter()
                    .any(|&i| g.contains(&category_of[i as usize]) && t.binary_search(&i).is_ok())
            };
            if full || (!holds_of(tb, ta, ga) && !holds_of(ta, tb, gb)) {
                log.push(SwapViolation::CouldHaveSwapped { first: a + 1, second: b + 1 });
                return false;
            }
        }
    }
    true
}

/// Whether the published records `rows` of original record `t` are `t` split by category: one
/// non-empty record per category `t` holds, each exactly `t`'s items of that category (an
/// empty `t`: one empty record).
fn is_split(
    t: &[ItemId],
    rows: &[usize],
    category_of: &[u32],
    mut row_of: impl FnMut(usize, &mut Vec<ItemId>),
) -> bool {
    let mut by_category: HashMap<u32, Vec<ItemId>> = HashMap::new();
    for &i in t {
        by_category.entry(category_of[i as usize]).or_default().push(i);
    }
    if t.is_empty() {
        let mut row = Vec::new();
        return rows.len() == 1 && {
            row_of(rows[0], &mut row);
            row.is_empty()
        };
    }
    if rows.len() != by_category.len() {
        return false;
    }
    let mut row = Vec::new();
    for &p in rows {
        row_of(p, &mut row);
        let Some(&first) = row.first() else { return false };
        let c = category_of[first as usize];
        match by_category.remove(&c) {
            Some(items) if items == row => {}
            _ => return false,
        }
    }
    by_category.is_empty()
}

/// Swap's own violations, as the error carries them.
pub type SwapViolations = Violations<SwapViolation>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tendencies_by_definition() {
        let s = &mut Vec::new();
        assert_eq!(shown([0, 0, 1].into_iter(), s), Shown::AboveMean(0));
        assert_eq!(shown([0, 1].into_iter(), s), Shown::Nothing);
        // 2, 2, 1 against a mean of 5/3: both heavy; the smaller id.
        assert_eq!(shown([2, 2, 1, 1, 0].into_iter(), s), Shown::AboveMean(1));
        assert_eq!(shown([3, 3, 3].into_iter(), s), Shown::OneCategory(3));
        assert_eq!(shown([3].into_iter(), s), Shown::Nothing);
        assert_eq!(shown(std::iter::empty(), s), Shown::Nothing);
    }
}
