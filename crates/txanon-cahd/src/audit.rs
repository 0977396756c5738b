//! The independent checker: re-derives the privacy degree the auditor names from the published
//! groups and the auditor's own list of sensitive items, and checks the groups against the
//! original when given. It imports nothing from the algorithm, and never trusts the file's
//! own `p` or sensitive list to lower what is checked; every count from the file is compared
//! in widened arithmetic.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::Serialize;
use txanon_data::audit::{ViolationLog, Violations};
use txanon_data::{ParamError, TransactionDb};

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
#[derive(Debug, Clone, PartialEq, Eq)]
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
pub struct AuditReport {
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

/// Verifies `published` under `claim`, from the groups alone: the format is known; the file's
/// sensitive list names each item once; every group holds a transaction; no QID itemset holds
/// a sensitive item (the auditor's or the file's) or an item twice; every group counts only
/// declared sensitive items, each once, with a count from 1 to its size; and every count `c`
/// of a group `G` satisfies `c · p ≤ |G|`, so no sensitive item is linked to a transaction of
/// its group with probability above `1/p`.
///
/// With `original`: as many transactions; the published QID itemsets are, as a multiset, the
/// original transactions less the auditor's and the file's sensitive items; and every
/// sensitive item is counted over all groups as often as it occurs in the original.
///
/// # Errors
/// [`CahdError::Audit`] with the violations found.
///
/// # Complexity
/// `O(S + N log N)`: the file's size, and sorting the original's QID itemsets.
pub fn audit(
    published: &PublishedGroups,
    claim: &CahdClaim,
    original: Option<&TransactionDb>,
) -> Result<AuditReport, CahdError> {
    let p = claim.p;
    let mut log = ViolationLog::new();
    if published.format != GROUPS_FORMAT {
        log.push(CahdViolation::Format { found: published.format.clone() });
    }
    let mut declared: HashSet<&str> = HashSet::new();
    for item in &published.sensitive {
        if !declared.insert(item) {
            log.push(CahdViolation::SensitiveListedTwice { item: item.clone() });
        }
    }
    let is_sensitive = |item: &str| claim.sensitive.contains(item) || declared.contains(item);
    if published.groups.is_empty() {
        log.push(CahdViolation::NoGroup);
    }
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
        for t in &group.qid {
            let mut seen = HashSet::with_capacity(t.len());
            for item in t {
                if is_sensitive(item) {
                    log.push(CahdViolation::SensitiveInQid { group: g, item: item.clone() });
                }
                if !seen.insert(item.as_str()) {
                    log.push(CahdViolation::ItemTwice { group: g, item: item.clone() });
                }
            }
        }
        let mut counted = HashSet::new();
        for (item, count) in &group.sensitive {
            let (count, size) = (*count as u64, size as u64);
            if !declared.contains(item.as_str()) {
                log.push(CahdViolation::UndeclaredSensitive { group: g, item: item.clone() });
            }
            if !counted.insert(item.as_str()) {
                log.push(CahdViolation::CountedTwice { group: g, item: item.clone() });
            }
            if count == 0 || count > size {
                log.push(CahdViolation::CountOutOfRange {
                    group: g,
                    item: item.clone(),
                    count,
                    size,
                });
            } else if u128::from(count) * u128::from(p) > u128::from(size) {
                log.push(CahdViolation::DegreeBelow {
                    group: g,
                    item: item.clone(),
                    count,
                    size,
                    p,
                });
            } else {
                achieved = achieved.min(size as f64 / count as f64);
            }
        }
    }
    log.stop_if_any().map_err(CahdError::Audit)?;
    if let Some(original) = original {
        check_original(published, original, &is_sensitive, &mut log);
    }
    log.finish(AuditReport {
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

fn check_original(
    published: &PublishedGroups,
    original: &TransactionDb,
    is_sensitive: &dyn Fn(&str) -> bool,
    log: &mut ViolationLog<CahdViolation>,
) {
    let records = published.groups.iter().map(|g| g.qid.len()).sum::<usize>();
    if records != original.len() {
        log.push(CahdViolation::RecordCount { published: records, original: original.len() });
        return;
    }
    // QID itemsets as sorted label lists: +1 per original, −1 per published.
    let mut balance: HashMap<Vec<String>, i64> = HashMap::new();
    let mut totals: HashMap<String, (u64, u64)> = HashMap::new();
    for t in original.iter() {
        let mut qid = Vec::with_capacity(t.len());
        for &i in t {
            let label = original.label(i).to_string();
            if is_sensitive(&label) {
                totals.entry(label).or_default().1 += 1;
            } else {
                qid.push(label);
            }
        }
        qid.sort_unstable();
        *balance.entry(qid).or_default() += 1;
    }
    for group in &published.groups {
        for t in &group.qid {
            let mut qid = t.clone();
            qid.sort_unstable();
            *balance.entry(qid).or_default() -= 1;
        }
        for (item, count) in &group.sensitive {
            let total = &mut totals.entry(item.clone()).or_default().0;
            *total = total.saturating_add(*count as u64);
        }
    }
    let mut off: Vec<Vec<String>> =
        balance.into_iter().filter(|(_, b)| *b != 0).map(|(q, _)| q).collect();
    off.sort_unstable();
    for itemset in off {
        if !log.push(CahdViolation::QidNotFromOriginal { itemset }) {
            return;
        }
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
}
