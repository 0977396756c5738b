//! Correlation-aware anonymization of sparse transaction data, CAHD (Ghinita, Tao, Kalnis, "On
//! the Anonymization of Sparse High-Dimensional Data", ICDE 2008; journal version "Anonymous
//! Publication of Sensitive Transactional Data", IEEE TKDE 2011).
//!
//! Some items are sensitive; the others are quasi-identifiers (QID). CAHD publishes the QID
//! items of every transaction exactly, but only in groups: per group, the counts of each
//! sensitive item, so that an attacker who knows a person's QID items can link a sensitive item
//! to that person with probability at most `1/p` (the privacy degree).
//!
//! 1. **Band order** (`txanon-band`): reverse Cuthill-McKee on the graph of transactions
//!    sharing QID items, so that similar transactions sit close together.
//! 2. **Groups** ([`form_groups`], the paper's Figure 7): each sensitive transaction is grouped
//!    with `p − 1` non-conflicting neighbours in the band that share most QID items with it;
//!    a histogram of the ungrouped sensitive items rolls back a group that would leave the
//!    rest impossible to protect; the rest forms the last group.
//! 3. **Publication** ([`PublishedGroups`]): groups and transactions within them shuffled by
//!    ChaCha20 (the sensitive transaction is otherwise first in its group, and a weak generator
//!    would give it away).
//! 4. **Audit** ([`audit`]): the privacy degree the auditor names ([`CahdClaim`]), for the
//!    auditor's own sensitive items, re-derived from the published groups (and the original
//!    when given); `anonymize` returns only groups that passed it.
//! 5. **Utility** ([`reconstruction_error`]): the paper's KL-divergence over group-by queries.
//!
//! [`perm_mondrian`] is the paper's comparator: Mondrian's partitioning over the QID items,
//! each partition published as a group in the same format (and through the same audit).
//!
//! ```
//! use txanon_cahd::{CahdClaim, CahdParams, anonymize, audit};
//! use txanon_data::TransactionDb;
//!
//! // Item 9 is sensitive; it must not be tied to a transaction with probability above 1/2.
//! let db = TransactionDb::from_int_transactions([
//!     vec![1, 2, 9], vec![1, 2], vec![3, 4], vec![3, 4, 9], vec![1, 3],
//! ]);
//! let nine = db.labels().find("9").unwrap();
//! let published = anonymize(&db, &[nine], &CahdParams::new(2).seed(Some(1)).check()?)?;
//! // `anonymize` has audited the groups; an auditor does it again from the file alone.
//! let claim = CahdClaim::new(2, ["9".to_string()])?;
//! let report = audit(&published.published, &claim, None)?;
//! assert!(report.achieved >= 2.0);
//! assert_eq!(report.records, 5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod algorithm;
mod audit;
mod baseline;
mod error;
mod family;
mod params;
mod publish;
mod reconstruction;

pub use algorithm::{CahdPublication, Grouping, GroupingStats, anonymize, form_groups};
pub use audit::{
    CahdAuditReport, CahdClaim, CahdViolation, CahdViolations, OriginalQids, audit, audit_against,
    audit_qid_file,
};
pub use baseline::perm_mondrian;
pub use error::CahdError;
pub use family::Cahd;
pub use params::{BandOrder, CahdParams, ValidCahdParams};
pub use publish::{GROUPS_FORMAT, PublishedGroup, PublishedGroups};
pub use reconstruction::{
    QidDraw, ReconstructionError, ValidWorkload, Workload, reconstruction_error,
};

#[cfg(test)]
mod autotraits {
    fn send_sync<T: Send + Sync>() {}

    #[test]
    fn public_types_are_send_and_sync() {
        send_sync::<super::CahdPublication>();
        send_sync::<super::PublishedGroups>();
        send_sync::<super::CahdError>();
    }
}
