//! The independent checker: re-derives the privacy degree the auditor names from the published
//! groups and the auditor's own list of sensitive items, and checks the groups against the
//! original when given. It imports nothing from the algorithm, and never trusts the file's
//! own `p` or sensitive list to lower what is checked; every count from the file is compared
//! in widened arithmetic.

use std::collections::{HashMap, HashSet};
use std::fmt;

use rayon::prelude::*;
use serde::Serialize;
use txanon_data::audit::{
    EqualRuns, MAX_VIOLATIONS, RowMultiset, RowOrder, SortedRows, ViolationLog, Violations,
    unmatched_rows_and_runs,
};
use txanon_data::{ItemId, ParamError, TransactionDb};

use crate::error::CahdError;
use crate::publish::{GROUPS_FORMAT, PublishedGroups};

/// The guarantee an auditor wants verified: privacy degree `p` for the items the auditor
/// considers sensitive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CahdClaim {
    p: u64,
    sensitive: HashSet<String>,
}

impl CahdClaim {
    /// Degree `p` for the sensitive items `sensitive` (labels).
    ///
    /// # Errors
    /// [`ParamError::OutOfRange`] for `p < 2` (which protects nothing) or an empty list.
    pub fn new(p: u64, sensitive: impl IntoIterator<Item = String>) -> Result<Self, ParamError> {
        if p < 2 {
            return Err(ParamError::OutOfRange {
                name: "p",
                value: p.to_string(),
                reason: "a privacy degree protects only for p ≥ 2",
            });
        }
        let sensitive: HashSet<String> = sensitive.into_iter().collect();
        if sensitive.is_empty() {
            return Err(ParamError::OutOfRange {
                name: "sensitive",
                value: "an empty list".into(),
                reason: "name at least one sensitive item",
            });
        }
        Ok(Self { p, sensitive })
    }

    /// The degree.
    pub fn p(&self) -> u64 {
        self.p
    }
}

/// A way CAHD's published groups break the claim. Groups are numbered from 0 in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
// Serialized with its kind, as front ends hand violations over as objects (Python).
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum CahdViolation {
    /// The format tag is not [`GROUPS_FORMAT`].
    Format {
        /// The tag found.
        found: String,
    },
    /// The file's list of sensitive items names one twice.
    SensitiveListedTwice {
        /// The item.
        item: String,
    },
    /// The file's item table names one label twice.
    ItemListedTwice {
        /// The label.
        item: String,
    },
    /// An item index outside the file's item table.
    UnknownItem {
        /// The index.
        id: u32,
        /// Items in the table.
        items: usize,
    },
    /// No group.
    NoGroup,
    /// A group without transactions.
    EmptyGroup {
        /// The group.
        group: usize,
    },
    /// A sensitive item (the auditor's, or the file's) among a transaction's QID items: it is
    /// published linked to its transaction.
    SensitiveInQid {
        /// The group.
        group: usize,
        /// The item.
        item: String,
    },
    /// An item twice in one transaction.
    ItemTwice {
        /// The group.
        group: usize,
        /// The item.
        item: String,
    },
    /// A group counting an item that the file does not declare sensitive.
    UndeclaredSensitive {
        /// The group.
        group: usize,
        /// The item.
        item: String,
    },
    /// A group counting one sensitive item twice.
    CountedTwice {
        /// The group.
        group: usize,
        /// The item.
        item: String,
    },
    /// A count of 0, or above the group's size.
    CountOutOfRange {
        /// The group.
        group: usize,
        /// The item.
        item: String,
        /// Its count.
        count: u64,
        /// The group's size.
        size: u64,
    },
    /// A sensitive item in more than `1/p` of a group's transactions.
    DegreeBelow {
        /// The group.
        group: usize,
        /// The item.
        item: String,
        /// Its count.
        count: u64,
        /// The group's size.
        size: u64,
        /// The claim's degree.
        p: u64,
    },
    /// Another number of transactions than the original.
    RecordCount {
        /// Published.
        published: usize,
        /// Original.
        original: usize,
    },
    /// The published QID itemsets are not the original transactions less their sensitive
    /// items (as multisets).
    QidNotFromOriginal {
        /// A QID itemset published more often than the original holds it (labels, sorted),
        /// or held more often than published.
        itemset: Vec<String>,
    },
    /// A group counting a sensitive item another number of times than the original
    /// transactions its QID itemsets stand for can hold it: where a QID itemset identifies its
    /// transactions, exactly their sensitive items.
    GroupSensitive {
        /// The group.
        group: usize,
        /// The item.
        item: String,
        /// The group's count.
        published: u64,
        /// The fewest occurrences its transactions can hold.
        least: u64,
        /// The most.
        most: u64,
    },
    /// The published QID file (`qid.dat`) is not the groups' QID itemsets, group after group.
    QidFile {
        /// The first row (1-based) that differs, or one past the shorter side.
        row: usize,
        /// What the file holds there (labels, sorted), if anything.
        found: Option<Vec<String>>,
        /// What the groups hold there, if anything.
        expected: Option<Vec<String>>,
    },
    /// A sensitive item counted otherwise over all groups than it occurs in the original.
    SensitiveTotal {
        /// The item.
        item: String,
        /// Its published total.
        published: u64,
        /// Its occurrences in the original.
        original: u64,
    },
}

impl fmt::Display for CahdViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Format { found } => write!(f, "format {found:?}, expected {GROUPS_FORMAT:?}"),
            Self::SensitiveListedTwice { item } => {
                write!(f, "sensitive item {item:?} is listed twice")
            }
            Self::ItemListedTwice { item } => write!(f, "item {item:?} is listed twice"),
            Self::UnknownItem { id, items } => {
                write!(f, "item index {id} is outside the table of {items} items")
            }
            Self::NoGroup => write!(f, "no group"),
            Self::EmptyGroup { group } => write!(f, "group {group} is empty"),
            Self::SensitiveInQid { group, item } => {
                write!(f, "group {group}: sensitive item {item:?} among the QID items")
            }
            Self::ItemTwice { group, item } => {
                write!(f, "group {group}: item {item:?} twice in one transaction")
            }
            Self::UndeclaredSensitive { group, item } => {
                write!(f, "group {group}: counts {item:?}, which is not declared sensitive")
            }
            Self::CountedTwice { group, item } => {
                write!(f, "group {group}: sensitive item {item:?} counted twice")
            }
            Self::CountOutOfRange { group, item, count, size } => {
                write!(f, "group {group}: {item:?} counted {count} times in {size} transactions")
            }
            Self::DegreeBelow { group, item, count, size, p } => write!(
                f,
                "group {group}: {item:?} in {count} of {size} transactions, more than 1/{p}"
            ),
            Self::RecordCount { published, original } => {
                write!(f, "{published} transactions published, the original has {original}")
            }
            Self::QidNotFromOriginal { itemset } => write!(
                f,
                "QID itemset {{{}}} is published another number of times than the original holds it",
                itemset.join(",")
            ),
            Self::GroupSensitive { group, item, published, least, most } => write!(
                f,
                "group {group}: {item:?} counted {published} times, where its transactions in the original hold it {}",
                if least == most {
                    format!("{least} times")
                } else {
                    format!("{least} to {most} times")
                }
            ),
            Self::QidFile { row, found, expected } => {
                let show = |r: &Option<Vec<String>>| match r {
                    Some(items) => format!("{{{}}}", items.join(",")),
                    None => "nothing".to_string(),
                };
                write!(
                    f,
                    "qid file row {row}: {}, where the groups hold {}",
                    show(found),
                    show(expected)
                )
            }
            Self::SensitiveTotal { item, published, original } => write!(
                f,
                "sensitive item {item:?} counted {published} times in all, {original} in the original"
            ),
        }
    }
}

/// CAHD's violations, as the error carries them.
pub type CahdViolations = Violations<CahdViolation>;

/// What the audit found in published groups that keep the claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CahdAuditReport {
    /// The degree verified.
    pub p: u64,
    /// What the file claims (printed, never used).
    pub file_claims_p: usize,
    /// Groups.
    pub groups: usize,
    /// Published transactions.
    pub records: usize,
    /// The smallest group.
    pub smallest_group: usize,
    /// The achieved degree `min over groups and sensitive items of |G| / count` (the paper's
    /// `p^P`); infinite when no group holds a sensitive item.
    pub achieved: f64,
    /// Whether the groups were checked against the original.
    pub original_checked: bool,
}

/// Verifies `published` under `claim`, from the groups alone: the format is known; the item
/// table names each label once and every item index is inside it (the auditor's sensitive
/// labels are looked up there, so a label cannot hide behind a second index); the file's
/// sensitive list names each item once; every group holds a transaction; no QID itemset holds
/// a sensitive item (the auditor's or the file's) or an item twice; every group counts only
/// declared sensitive items, each once, with a count from 1 to its size; and every count `c`
/// of a group `G` satisfies `c · p ≤ |G|`, so no sensitive item is linked to a transaction of
/// its group with probability above `1/p`.
///
/// With `original`: as many transactions; the published QID itemsets are, as a multiset, the
/// original transactions less the auditor's and the file's sensitive items (compared by
/// label: an original item the table lacks matches nothing published); and every sensitive
/// item is counted over all groups as often as it occurs in the original. The multisets are
/// compared by sorting both sides' itemsets by a hash and then by their items (exact: the hash
/// only orders), on rayon.
///
/// # Errors
/// [`CahdError::Audit`] with the violations found.
///
/// # Complexity
/// `O(S + N log N)`: the file's size, and sorting both sides' QID itemsets.
pub fn audit(
    published: &PublishedGroups,
    claim: &CahdClaim,
    original: Option<&TransactionDb>,
) -> Result<CahdAuditReport, CahdError> {
    audit_with(published, claim, original.map(|db| (db, None)))
}

/// [`audit`] against the original, with its side of the comparison made beforehand
/// ([`OriginalQids::of`]; while the groups are formed, by the caller). The audit uses it where
/// the publication's item table and sensitive items code the original as it assumed, and codes
/// the original again otherwise: the same checks, the same report.
///
/// # Errors
/// [`CahdError::Audit`] with the violations found.
pub fn audit_against(
    published: &PublishedGroups,
    claim: &CahdClaim,
    original: &OriginalQids<'_>,
) -> Result<CahdAuditReport, CahdError> {
    audit_with(published, claim, Some((original.original, Some(original))))
}

fn audit_with(
    published: &PublishedGroups,
    claim: &CahdClaim,
    original: Option<(&TransactionDb, Option<&OriginalQids<'_>>)>,
) -> Result<CahdAuditReport, CahdError> {
    let p = claim.p;
    let mut log = ViolationLog::new();
    if published.format != GROUPS_FORMAT {
        log.push(CahdViolation::Format { found: published.format.clone() });
    }
    let index = items_listed_once(published, &mut log);
    let declared = sensitive_declared_once(published, &mut log);
    // Sensitive: the file's declared items and the auditor's, whatever the file declares.
    let mut is_sensitive = declared.clone();
    for item in &claim.sensitive {
        if let Some(&k) = index.get(item.as_str()) {
            is_sensitive[k as usize] = true;
        }
    }
    if published.groups.is_empty() {
        log.push(CahdViolation::NoGroup);
    }
    // counted_in[s] = g + 1 once group g has counted s.
    let mut counted_in = vec![0usize; published.items.len()];
    let groups_checked = || {
        let (mut records, mut smallest, mut achieved) = (0usize, usize::MAX, f64::INFINITY);
        for (g, group) in published.groups.iter().enumerate() {
            if log.is_full() {
                break;
            }
            let size = group.qid.len();
            records += size;
            smallest = smallest.min(size);
            if size == 0 {
                log.push(CahdViolation::EmptyGroup { group: g });
            }
            qid_rows_hold_no_sensitive_item(published, g, &is_sensitive, &mut log);
            let degree =
                counts_keep_the_degree(published, g, p, &declared, &mut counted_in, &mut log);
            achieved = achieved.min(degree);
        }
        (records, smallest, achieved)
    };
    // The groups are checked on one core (a second at 10⁷), while the published rows are
    // read and ordered for the comparison with the original (discarded if a group fails).
    let ((records, smallest, achieved), theirs) =
        rayon::join(groups_checked, || original.map(|_| PublishedQids::of(published)));
    log.stop_if_any().map_err(CahdError::Audit)?;
    if let (Some((original, prepared)), Some(theirs)) = (original, &theirs) {
        let sides = ((original, prepared), theirs);
        check_original(published, sides, claim, &index, &is_sensitive, &mut log);
    }
    log.finish(CahdAuditReport {
        p,
        file_claims_p: published.p,
        groups: published.groups.len(),
        records,
        smallest_group: smallest,
        achieved,
        original_checked: original.is_some(),
    })
    .map_err(CahdError::Audit)
}

/// Check: every item label is listed once. Returns each label's index.
fn items_listed_once<'p>(
    published: &'p PublishedGroups,
    log: &mut ViolationLog<CahdViolation>,
) -> HashMap<&'p str, u32> {
    let mut index: HashMap<&str, u32> = HashMap::with_capacity(published.items.len());
    for (k, label) in published.items.iter().enumerate() {
        if index.insert(label, k as u32).is_some() {
            log.push(CahdViolation::ItemListedTwice { item: label.clone() });
        }
    }
    index
}

/// Check: the declared sensitive items are known items, each declared once. Returns which
/// items the file declares sensitive.
fn sensitive_declared_once(
    published: &PublishedGroups,
    log: &mut ViolationLog<CahdViolation>,
) -> Vec<bool> {
    let m = published.items.len();
    let mut declared = vec![false; m];
    for &s in &published.sensitive {
        if s as usize >= m {
            log.push(CahdViolation::UnknownItem { id: s, items: m });
        } else if std::mem::replace(&mut declared[s as usize], true) {
            log.push(CahdViolation::SensitiveListedTwice { item: published.label(s) });
        }
    }
    declared
}

/// Check: group `g`'s QID rows hold known items, none sensitive (the file's or the
/// auditor's), none twice.
fn qid_rows_hold_no_sensitive_item(
    published: &PublishedGroups,
    g: usize,
    is_sensitive: &[bool],
    log: &mut ViolationLog<CahdViolation>,
) {
    let m = published.items.len();
    let mut row: Vec<u32> = Vec::new();
    for t in &published.groups[g].qid {
        for &item in t {
            if item as usize >= m {
                log.push(CahdViolation::UnknownItem { id: item, items: m });
            } else if is_sensitive[item as usize] {
                log.push(CahdViolation::SensitiveInQid { group: g, item: published.label(item) });
            }
        }
        // A row in ascending order (as CAHD writes them) holds no item twice; another is
        // sorted to find its repeats.
        if t.windows(2).all(|w| w[0] < w[1]) {
            continue;
        }
        row.clear();
        row.extend_from_slice(t);
        row.sort_unstable();
        for twice in row.windows(2).filter(|w| w[0] == w[1]) {
            log.push(CahdViolation::ItemTwice { group: g, item: published.label(twice[0]) });
        }
    }
}

/// Check: group `g` counts known, declared sensitive items, each once, each between 1 and
/// the group's size and at most `size / p` (the privacy degree). Returns the degree the
/// group achieves (`size / count` at its most frequent item; infinite with none).
fn counts_keep_the_degree(
    published: &PublishedGroups,
    g: usize,
    p: u64,
    declared: &[bool],
    counted_in: &mut [usize],
    log: &mut ViolationLog<CahdViolation>,
) -> f64 {
    let m = published.items.len();
    let group = &published.groups[g];
    let size = group.qid.len() as u64;
    let label = |id: u32| published.label(id);
    let mut achieved = f64::INFINITY;
    for &(item, count) in &group.sensitive {
        let count = count as u64;
        if item as usize >= m {
            log.push(CahdViolation::UnknownItem { id: item, items: m });
            continue;
        }
        if !declared[item as usize] {
            log.push(CahdViolation::UndeclaredSensitive { group: g, item: label(item) });
        }
        if std::mem::replace(&mut counted_in[item as usize], g + 1) == g + 1 {
            log.push(CahdViolation::CountedTwice { group: g, item: label(item) });
        }
        if count == 0 || count > size {
            log.push(CahdViolation::CountOutOfRange { group: g, item: label(item), count, size });
        } else if u128::from(count) * u128::from(p) > u128::from(size) {
            log.push(CahdViolation::DegreeBelow { group: g, item: label(item), count, size, p });
        } else {
            achieved = achieved.min(size as f64 / count as f64);
        }
    }
    achieved
}

/// The original's side of the comparison with a publication: each transaction's QID itemset
/// coded by a publication's item table, with its order by hash, and which transactions hold a
/// sensitive item. It reads the original only, so it can be made before the publication
/// exists, assuming what a faithful publication lists ([`OriginalQids::of`]).
#[derive(Debug)]
pub struct OriginalQids<'a> {
    original: &'a TransactionDb,
    /// Each original item's code: its index in the publication's table, or past the table.
    code: Vec<u32>,
    /// Whether each original item is sensitive (the auditor's or the file's).
    sensitive: Vec<bool>,
    rows: RowMultiset,
    order: RowOrder,
    holds_sensitive: Vec<bool>,
}

impl<'a> OriginalQids<'a> {
    /// The side a publication that lists `original`'s items in id order, with the claim's
    /// sensitive items declared, would give (as CAHD publishes): code `i` for item `i`.
    pub fn of(original: &'a TransactionDb, claim: &CahdClaim) -> Self {
        let code = (0..original.num_items() as u32).collect();
        let sensitive = (0..original.num_items() as ItemId)
            .map(|i| claim.sensitive.contains(&original.label(i).to_string()))
            .collect();
        Self::coded(original, code, sensitive)
    }

    fn coded(original: &'a TransactionDb, code: Vec<u32>, sensitive: Vec<bool>) -> Self {
        let rows = RowMultiset::from_rows(original.len(), |r, row| {
            let t = original.transaction(r);
            row.extend(t.iter().filter(|&&i| !sensitive[i as usize]).map(|&i| code[i as usize]));
        });
        let (order, holds_sensitive) = rayon::join(
            || RowOrder::of(&rows),
            || {
                (0..original.len())
                    .into_par_iter()
                    .map(|r| original.transaction(r).iter().any(|&i| sensitive[i as usize]))
                    .collect()
            },
        );
        Self { original, code, sensitive, rows, order, holds_sensitive }
    }
}

/// The published QID itemsets as the comparison with the original reads them, in the file's
/// order of groups and rows, with their order by hash.
struct PublishedQids<'p> {
    rows: PublishedRows<'p>,
    order: RowOrder,
}

/// The published QID itemsets, each sorted: read where they are when the file lists each in
/// ascending order (as CAHD writes them), copied and sorted otherwise.
enum PublishedRows<'p> {
    InPlace(Vec<&'p [u32]>),
    Sorted(RowMultiset),
}

impl SortedRows for PublishedRows<'_> {
    fn count(&self) -> usize {
        match self {
            Self::InPlace(rows) => rows.len(),
            Self::Sorted(rows) => rows.len(),
        }
    }

    fn sorted_row(&self, r: usize) -> &[u32] {
        match self {
            Self::InPlace(rows) => rows[r],
            Self::Sorted(rows) => rows.row(r),
        }
    }
}

impl<'p> PublishedQids<'p> {
    fn of(published: &'p PublishedGroups) -> Self {
        let rows: Vec<&[u32]> =
            published.groups.iter().flat_map(|g| g.qid.iter().map(Vec::as_slice)).collect();
        // Copying ten million rows cost about a second of a core at 10⁷ (a third of it the
        // kernel clearing the copy's new pages), for rows almost always in order already. A
        // copy is read on rayon, as the original's.
        let rows = if rows.par_iter().all(|row| row.is_sorted()) {
            PublishedRows::InPlace(rows)
        } else {
            PublishedRows::Sorted(RowMultiset::from_rows(rows.len(), |r, row| {
                row.extend_from_slice(rows[r]);
            }))
        };
        let order = RowOrder::of(&rows);
        Self { rows, order }
    }
}

fn check_original(
    published: &PublishedGroups,
    ((original, prepared), theirs): (
        (&TransactionDb, Option<&OriginalQids<'_>>),
        &PublishedQids<'_>,
    ),
    claim: &CahdClaim,
    index: &HashMap<&str, u32>,
    is_sensitive: &[bool],
    log: &mut ViolationLog<CahdViolation>,
) {
    let records = published.groups.iter().map(|g| g.qid.len()).sum::<usize>();
    if records != original.len() {
        log.push(CahdViolation::RecordCount { published: records, original: original.len() });
        return;
    }
    let m = published.items.len();
    // Each original item, by label, once: its code (the table's index, or m + its id when the
    // table lacks it, so it matches no published item) and whether it is sensitive.
    let (code, sensitive): (Vec<u32>, Vec<bool>) = (0..original.num_items() as ItemId)
        .map(|i| {
            let label = original.label(i).to_string();
            match index.get(label.as_str()) {
                Some(&k) => (k, is_sensitive[k as usize]),
                None => (
                    (m as u64 + u64::from(i)).min(u64::from(u32::MAX)) as u32,
                    claim.sensitive.contains(&label),
                ),
            }
        })
        .unzip();
    let name = |c: u32| match published.items.get(c as usize) {
        Some(label) => label.clone(),
        None => original.label(c - m as u32).to_string(),
    };
    // The side made beforehand serves where it coded the original as this table does.
    let fresh;
    let ours = match prepared.filter(|q| q.code == code && q.sensitive == sensitive) {
        Some(prepared) => prepared,
        None => {
            fresh = OriginalQids::coded(original, code, sensitive);
            &fresh
        }
    };
    let (code, sensitive) = (&ours.code, &ours.sensitive);
    // Each code names one label (an original item is coded m + its id only when the table
    // lacks its label), so distinct rows are distinct itemsets. The same merge finds the runs
    // of equal QID itemsets across the sides that `check_groups_sensitive` bounds: only those
    // some transaction with a sensitive item has can bound anything.
    let (unmatched, runs) = unmatched_rows_and_runs(
        (&ours.rows, &ours.order),
        (&theirs.rows, &theirs.order),
        MAX_VIOLATIONS,
        |r| ours.holds_sensitive[r as usize],
    );
    let mut off: Vec<Vec<String>> = unmatched
        .into_iter()
        .map(|row| {
            let mut itemset: Vec<String> = row.row.iter().map(|&c| name(c)).collect();
            itemset.sort_unstable();
            itemset
        })
        .collect();
    off.sort_unstable();
    for itemset in off {
        if !log.push(CahdViolation::QidNotFromOriginal { itemset }) {
            return;
        }
    }
    // Sensitive totals, by label: the original's from its supports, the file's from its counts.
    let mut counted = vec![0u64; m];
    for group in &published.groups {
        for &(item, count) in &group.sensitive {
            counted[item as usize] = counted[item as usize].saturating_add(count as u64);
        }
    }
    let mut totals: HashMap<String, (u64, u64)> = HashMap::new();
    for (k, &c) in counted.iter().enumerate() {
        if c > 0 || is_sensitive[k] {
            totals.entry(published.items[k].clone()).or_default().0 = c;
        }
    }
    for i in (0..original.num_items()).filter(|&i| sensitive[i]) {
        totals.entry(original.label(i as ItemId).to_string()).or_default().1 =
            u64::from(original.supports()[i]);
    }
    let mut totals: Vec<(String, (u64, u64))> = totals.into_iter().collect();
    totals.sort_unstable();
    for (item, (published, original)) in totals {
        if published != original
            && !log.push(CahdViolation::SensitiveTotal { item, published, original })
        {
            return;
        }
    }
    check_groups_sensitive(published, original, ours.rows.len(), &runs, code, sensitive, log);
}

/// Each group's sensitive counts against what its transactions can hold. A QID itemset `q`
/// held by `n` original transactions, `k` of them with sensitive item `s`, and published `c`
/// times in a group, brings that group between `max(0, c − (n − k))` and `min(c, k)`
/// occurrences of `s`, whichever of `q`'s transactions it holds: summed over the group's
/// itemsets, the bounds its count of `s` must lie within. Where `q`'s transactions agree on
/// `s` (an identifying QID), the bounds meet: the group must carry exactly their items, so
/// transactions or sensitive items exchanged between groups are caught.
///
/// The bounds are kept in one slot per item a group counts, found by a binary search among the
/// group's items: a map keyed by (group, item) took a hashed lookup per pair summed (14.5
/// million at 10⁷ Quest transactions with 270 sensitive items) and per count checked. A pair
/// the group does not count matters only where some itemset forces a lower bound above 0 (a
/// violation); those are summed again in full, for their report, in a second pass.
///
/// `runs` are the runs of equal QID itemsets across the `n` original transactions (`r`) and
/// the published rows (`n + r`), for the itemsets some original transaction with a sensitive
/// item has: only those can bound anything.
///
/// Long as one function: the bounds of every group's counts come from one pass over the original's
/// QID itemsets, whose runs the groups share.
fn check_groups_sensitive(
    published: &PublishedGroups,
    original: &TransactionDb,
    n: usize,
    runs: &EqualRuns,
    code: &[u32],
    sensitive: &[bool],
    log: &mut ViolationLog<CahdViolation>,
) {
    let group_of: Vec<u32> = published
        .groups
        .iter()
        .enumerate()
        .flat_map(|(g, group)| std::iter::repeat_n(g as u32, group.qid.len()))
        .collect();
    // Each group's counted items, ascending, each with its slot in `bounds`. The audit stopped
    // before here if a group counted an item twice, so an item has one slot in its group.
    let mut starts = Vec::with_capacity(published.groups.len() + 1);
    let mut counted: Vec<(u32, usize)> = Vec::new();
    for group in &published.groups {
        starts.push(counted.len());
        let from = counted.len();
        counted.extend(group.sensitive.iter().map(|&(item, _)| item).zip(from..));
        counted[from..].sort_unstable();
    }
    starts.push(counted.len());
    let counted_by = |g: u32| &counted[starts[g as usize]..starts[g as usize + 1]];
    let sides = Sides { n, original, code, sensitive, group_of: &group_of };
    // A run of one original transaction and one published row (an identifying QID itemset:
    // almost every run) bounds its group's counts exactly by that transaction's sensitive
    // items. Such pairs are read in the original's order (sorted by original row), their
    // sensitive items keyed by published row, and those sorted and summed in the
    // publication's order, group after group: each side is read in ascending addresses, where
    // reading the original's rows in the runs' order (by hash) was a cache miss per run, most
    // of the bounds' 2.1 s at 10⁷ transactions with 270 sensitive items. The other runs are
    // summed as runs.
    let (mut pairs, others): (Vec<u64>, Vec<u32>) = (0..runs.len())
        .into_par_iter()
        .map(|j| match *runs.run(j) {
            [r, p] if (r as usize) < n && p as usize >= n => {
                Ok((u64::from(r) << 32) | (p as usize - n) as u64)
            }
            _ => Err(j as u32),
        })
        .partition_map(|pair| match pair {
            Ok(pair) => rayon::iter::Either::Left(pair),
            Err(j) => rayon::iter::Either::Right(j),
        });
    pairs.par_sort_unstable();
    let mut held: Vec<u64> = pairs
        .par_iter()
        .flat_map_iter(|&pair| {
            let (r, p) = ((pair >> 32) as usize, pair as u32);
            let t = original.transaction(r).iter().filter(|&&i| sensitive[i as usize]);
            t.map(move |&i| (u64::from(p) << 32) | u64::from(code[i as usize]))
        })
        .collect();
    drop(pairs);
    held.par_sort_unstable();
    // By slot: (least, most); and the (group, item) pairs that the group does not count though
    // an itemset it holds forces some.
    let mut bounds = vec![(0u64, 0u64); counted.len()];
    let mut forced: HashSet<(u32, u32)> = HashSet::new();
    for &key in &held {
        let (p, s) = ((key >> 32) as usize, key as u32);
        let g = group_of[p];
        match slot(counted_by(g), s) {
            Some(at) => {
                bounds[at].0 += 1;
                bounds[at].1 += 1;
            }
            None => {
                forced.insert((g, s));
            }
        }
    }
    drop(held);
    // The other runs, each a few rows read at random, summed on rayon as additions to slots.
    let (added, also) = others
        .par_iter()
        .fold(
            || (Vec::new(), HashSet::new(), RunItems::default()),
            |(mut added, mut forced, mut run_items), &j| {
                if let Some(n_q) = run_items.of(runs.run(j as usize), &sides) {
                    let add = |at, least, most| added.push((at, least, most));
                    run_items.bound(n_q, counted_by, add, &mut forced);
                }
                (added, forced, run_items)
            },
        )
        .map(|(added, forced, _)| (added, forced))
        .reduce(
            || (Vec::new(), HashSet::new()),
            |(mut added, mut forced), (more, also)| {
                added.extend(more);
                forced.extend(also);
                (added, forced)
            },
        );
    for (at, least, most) in added {
        bounds[at].0 += least;
        bounds[at].1 += most;
    }
    forced.extend(also);
    let mut run_items = RunItems::default();
    // The uncounted pairs with a bound forced, summed in full for their report.
    let mut uncounted: HashMap<(u32, u32), (u64, u64)> = HashMap::new();
    if !forced.is_empty() {
        let groups: HashSet<u32> = forced.iter().map(|&(g, _)| g).collect();
        for run in runs.iter() {
            let Some(n_q) = run_items.of(run, &sides) else { continue };
            for &(g, c) in run_items.in_groups.iter().filter(|(g, _)| groups.contains(g)) {
                for &(s, k) in run_items.items.iter().filter(|&&(s, _)| forced.contains(&(g, s))) {
                    let entry = uncounted.entry((g, s)).or_default();
                    entry.0 += c.saturating_sub(n_q - k);
                    entry.1 += c.min(k);
                }
            }
        }
    }
    let label = |c: u32| match published.items.get(c as usize) {
        Some(label) => label.clone(),
        None => original.label(c - published.items.len() as u32).to_string(),
    };
    let mut found: Vec<(usize, u32, u64, u64, u64)> = Vec::new();
    for (g, group) in published.groups.iter().enumerate() {
        for &(item, count) in &group.sensitive {
            let at = slot(counted_by(g as u32), item).expect("each counted item has its slot");
            let (least, most) = bounds[at];
            let count = count as u64;
            if count < least || count > most {
                found.push((g, item, count, least, most));
            }
        }
    }
    // What a group does not count at all, though its transactions must hold it.
    found.extend(
        uncounted.into_iter().map(|((g, s), (least, most))| (g as usize, s, 0, least, most)),
    );
    found.sort_unstable();
    for (group, item, published, least, most) in found {
        if !log.push(CahdViolation::GroupSensitive {
            group,
            item: label(item),
            published,
            least,
            most,
        }) {
            return;
        }
    }
}

/// The slot in the bounds of item `s` among a group's counted `(item, slot)`, ascending by
/// item; `None` when the group does not count `s`.
fn slot(counted: &[(u32, usize)], s: u32) -> Option<usize> {
    counted.binary_search_by_key(&s, |&(item, _)| item).ok().map(|j| counted[j].1)
}

/// What a run's indices stand for: below `n`, the original's rows; from `n`, the published
/// rows, each in its group.
struct Sides<'a> {
    n: usize,
    original: &'a TransactionDb,
    code: &'a [u32],
    sensitive: &'a [bool],
    group_of: &'a [u32],
}

/// One run of equal QID itemsets, summed: the sensitive items its original transactions hold,
/// each with how many hold it, and the groups publishing it, each with how often (buffers kept
/// from run to run).
#[derive(Debug, Default)]
struct RunItems {
    held: Vec<u32>,
    /// `(item, transactions holding it)`, ascending by item.
    items: Vec<(u32, u64)>,
    /// The same as `(transactions holding it, item)`, most held first.
    by_count: Vec<(u64, u32)>,
    /// `(group, published rows)`, ascending by group.
    in_groups: Vec<(u32, u64)>,
}

impl RunItems {
    /// Sums `run` (indices into the candidates of `sides`): returns the number of original
    /// transactions, or `None` where no group publishes the itemset or its transactions hold
    /// no sensitive item.
    fn of(&mut self, run: &[u32], sides: &Sides<'_>) -> Option<u64> {
        let Sides { n, original, code, sensitive, group_of } = *sides;
        self.held.clear();
        self.in_groups.clear();
        let mut n_q = 0u64;
        for &r in run {
            let r = r as usize;
            if r < n {
                n_q += 1;
                let t = original.transaction(r);
                self.held.extend(
                    t.iter().filter(|&&i| sensitive[i as usize]).map(|&i| code[i as usize]),
                );
            } else {
                self.in_groups.push((group_of[r - n], 1));
            }
        }
        if self.in_groups.is_empty() || self.held.is_empty() {
            return None;
        }
        self.held.sort_unstable();
        self.items.clear();
        self.items.extend(self.held.chunk_by(|a, b| a == b).map(|s| (s[0], s.len() as u64)));
        self.by_count.clear();
        self.by_count.extend(self.items.iter().map(|&(s, k)| (k, s)));
        self.by_count.sort_unstable_by(|a, b| b.cmp(a));
        self.in_groups.sort_unstable();
        self.in_groups.dedup_by(|later, first| {
            let same = later.0 == first.0;
            if same {
                first.1 += later.1;
            }
            same
        });
        Some(n_q)
    }
}

impl RunItems {
    /// Gives this run's bounds (over `n_q` original transactions) on each group's counted items
    /// (`counted_by`: a group's `(item, slot)`, ascending by item) to `add_to` (slot, least,
    /// most), and adds the pairs it forces on items a group does not count to `forced`.
    fn bound<'c>(
        &self,
        n_q: u64,
        counted_by: impl Fn(u32) -> &'c [(u32, usize)],
        mut add_to: impl FnMut(usize, u64, u64),
        forced: &mut HashSet<(u32, u32)>,
    ) {
        for &(g, c) in &self.in_groups {
            let counted = counted_by(g);
            let mut add = |at: usize, k: u64| add_to(at, c.saturating_sub(n_q - k), c.min(k));
            // The pairs both hold, from the shorter list: a short itemset is held by many
            // transactions with many sensitive items and published in many groups, and
            // every item against every group made the audit quadratic in such a run.
            if counted.len() <= self.items.len() {
                for &(s, at) in counted {
                    if let Ok(j) = self.items.binary_search_by_key(&s, |&(item, _)| item) {
                        add(at, self.items[j].1);
                    }
                }
            } else {
                for &(s, k) in &self.items {
                    if let Some(at) = slot(counted, s) {
                        add(at, k);
                    }
                }
            }
            // A bound above 0 (`k > n_q − c`) on an item the group does not count: only the
            // items most of the run holds can have one.
            for &(_, s) in self.by_count.iter().take_while(|&&(k, _)| k + c > n_q) {
                if slot(counted, s).is_none() {
                    forced.insert((g, s));
                }
            }
        }
    }
}

/// Verifies the published QID file (`qid.dat`, read as it is written: QID items, group after
/// group) against `published`: row `r` of the file holds exactly the labels of the `r`-th
/// QID itemset of the groups, in order, and nothing more.
///
/// # Errors
/// [`CahdError::Audit`] with the first row that differs.
pub fn audit_qid_file(published: &PublishedGroups, qid: &TransactionDb) -> Result<(), CahdError> {
    let mut log = ViolationLog::new();
    let labels = |items: &mut dyn Iterator<Item = String>| -> Vec<String> {
        let mut v: Vec<String> = items.collect();
        v.sort_unstable();
        v
    };
    let mut rows = published.groups.iter().flat_map(|g| &g.qid);
    let mut r = 0usize;
    loop {
        let expected = rows.next().map(|t| labels(&mut t.iter().map(|&k| published.label(k))));
        let found = (r < qid.len())
            .then(|| labels(&mut qid.transaction(r).iter().map(|&i| qid.label(i).to_string())));
        if expected.is_none() && found.is_none() {
            break;
        }
        if expected != found {
            log.push(CahdViolation::QidFile { row: r + 1, found, expected });
            break;
        }
        r += 1;
    }
    log.finish(()).map_err(CahdError::Audit)
}
