//! Multi-dimension anatomy with l-diversity for transaction data ("Privacy Preservation in
//! Transaction Databases based on Anatomy technique", CSE 2010).
//!
//! 1. **Item partition**: items are clustered into `p` columns by k-medoids on `d = 1 − φ²`
//!    (`txanon-correlate`), so that correlated items share a column; then, by default, repaired
//!    ([`ItemPartitioning::Repaired`]) until every column admits l; or built for that from the
//!    start ([`ItemPartitioning::Diverse`], which reaches higher l where the columns' top values
//!    bind). [`admitted_l`] says which l a partition admits and [`l_bound`] what none exceeds.
//! 2. **Record partition** (the paper's Figure 2): one scan, in a random order, forms buckets in
//!    which, for every column, no value (the itemset `t ∩ C_j`, **the empty set included as a
//!    value**) is held by more than `1/l` of the bucket. Leftovers go to a bucket that stays
//!    l-diverse; those that fit nowhere alone form one more bucket, absorbing as few existing
//!    buckets as make it l-diverse. The paper suppresses them instead; but a union of l-diverse
//!    buckets is l-diverse, so once the whole input is (which is checked first, and otherwise
//!    refused with the column and value at fault) no record needs to be lost, and none is.
//! 3. **Publication**: the anatomized table (per bucket and column, the multiset of values, in
//!    canonical order) and its flattened form (each bucket's columns permuted independently by
//!    ChaCha20 and re-joined into records), which the paper mines.
//! 4. **Audit**: [`audit`] re-derives l-diversity, for the [`AnatomyClaim`] the auditor names,
//!    from the published table, and checks the flattened records and the original against it
//!    when given; it shares no code with the algorithm, and [`anonymize`] returns only
//!    publications that passed it.
//!
//! # Which l-diversity, and which l is reachable
//! The paper's Definition 5 bounds the share of the most frequent value of every bucket and
//! column by `1/l` ([`Diversity::Frequency`], the default), and its Corollary 1 and Theorem 1
//! (inference with probability at most `1/l`) follow from it. Its Example 4, though, calls a
//! table 2-diverse in which one value holds 3 of 5 records, and its Theorem 2 argues from "at
//! least l distinct values" ([`Diversity::Distinct`], offered, weaker). With the empty set
//! counted, Definition 5 is out of reach of the paper's own columns on its own datasets: a
//! column whose top value holds more than `1/l` of all records rules out every record
//! partition (the sum over buckets of that value's count would exceed `n/l`). The repair moves
//! items between columns until that cannot happen; the `anatomy` experiment of
//! `cargo xtask reproduce` shows which settings each choice reaches and what it costs.
//!
//! ```
//! use txanon_anatomy::{AnatomyClaim, AnatomyParams, Diversity, anonymize, audit};
//! use txanon_data::QuestParams;
//!
//! let db = QuestParams::new(2000, 10.0, 4.0, 100).seed(1).check()?.generate();
//! let params = AnatomyParams::new(4, 3).seed(Some(7)).check()?;
//! // `anonymize` returns only a publication that passed its audit...
//! let published = anonymize(&db, &params)?;
//! assert_eq!(published.audit.records as usize + published.suppressed, db.len());
//! // ...and an auditor repeats it from the files, for the guarantee the auditor names.
//! let claim = AnatomyClaim::new(3, Diversity::Frequency)?;
//! let report = audit(&published.table, &claim, Some(&published.flattened), Some(&db))?;
//! assert!(report.worst_share <= 1.0 / 3.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod algorithm;
mod audit;
mod error;
mod family;
mod params;
mod reach;
mod repair;
mod table;
mod values;

pub use algorithm::{
    AnatomyPublication, ItemPartition, anonymize, complete_partition, item_partition,
    ln_faked_records,
};
pub use audit::{AnatomyAuditReport, AnatomyClaim, AnatomyViolation, AnatomyViolations, audit};
pub use error::AnatomyError;
pub use family::{Anatomy, AnatomyFiles};
pub use params::{AnatomyParams, Diversity, ItemPartitioning, ValidAnatomyParams};
pub use reach::{admitted_l, l_bound};
pub use table::{AnatomizedTable, Bucket, TABLE_FORMAT, ValueCount};
