//! kᵐ-anonymity of set-valued data by item generalization (Terrovitis, Mamoulis, Kalnis,
//! "Privacy-preserving Anonymization of Set-valued Data", PVLDB 1(1), 2008): no adversary who
//! knows at most `m` items of a person's transaction can narrow it to fewer than `k`
//! published transactions. Every item is generalized to its ancestor on one cut of a
//! hierarchy, the same for every transaction (global recoding); no item is suppressed.
//!
//! - [`Hierarchy`]: the tree over the items, read from a file ([`Hierarchy::read`]), or the
//!   paper's balanced one of fanout `f` ([`Hierarchy::balanced`]), or one grouping items that
//!   occur together ([`Hierarchy::by_cooccurrence`]).
//! - [`anonymize`]: the cut found by Apriori Anonymization (AA), Direct Anonymization (DA) or
//!   the exhaustive Optimal Anonymization (OA), the data generalized by it, audited.
//! - [`information_loss`]: the paper's NCP of a generalization.
//! - [`sharded`]: AA and DA over shards no one process holds (the driver keeps the cut, the
//!   shards count), finding the cut [`anonymize`] finds over their union; [`audit_shard`] audits
//!   one shard of such a publication and [`shard_itemsets`] counts its itemsets for the union
//!   ([`shard_node_itemsets`] by the hierarchy's nodes, summed in parts by [`union_sums`]).
//! - [`audit`]: the independent checker of a [`KmClaim`] from the published transactions and
//!   the auditor's hierarchy (the cut and the original when given); it shares no code with
//!   the algorithms.
//!
//! ```
//! use txanon_data::TransactionDb;
//! use txanon_km::{Hierarchy, KmClaim, KmParams, anonymize, audit};
//!
//! // The paper's running example: {a1, b1} is in one transaction only.
//! let db = TransactionDb::from_str_transactions([
//!     vec!["a1", "b1", "b2"], vec!["a2", "b1"], vec!["a2", "b1", "b2"], vec!["a1", "a2", "b2"],
//! ]);
//! let hierarchy = Hierarchy::from_text("a1 A\na2 A\nb1 B\nb2 B\nA ALL\nB ALL\n")?;
//! let result = anonymize(&db, &hierarchy, &KmParams::new(2, 2).seed(Some(1)).check()?)?;
//! assert_eq!(result.cut, ["A", "b1", "b2"]);
//! // `anonymize` has audited its output; an auditor does it again from the data alone.
//! let claim = KmClaim::new(2, 2)?;
//! assert!(audit(&result.published, &hierarchy, &claim, None, Some(&db)).is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod algorithm;
mod audit;
mod combinations;
mod counter;
mod cut;
mod error;
mod family;
mod hierarchy;
mod optimal;
mod params;
mod rows;
mod search;
pub mod sharded;
mod sweep;

pub use algorithm::{KmPublication, anonymize};
pub use audit::{
    ItemsetSupports, KmAuditReport, KmClaim, KmShardAuditReport, KmViolation, KmViolations,
    NodeItemsetSupports, UnionSums, audit, audit_shard, audit_with_progress, node_itemset_labels,
    shard_itemsets, shard_node_itemsets, union_part, union_sums,
};
pub use cut::{Cut, InformationLoss, information_loss};
pub use error::KmError;
pub use family::{Km, KmAuditInputs, KmFiles, KmInput};
pub use hierarchy::{Hierarchy, MAX_COOCCURRENCE_ITEMS, NodeId};
pub use params::{Algorithm, KmParams, MAX_COUNTERS, MAX_M, ValidKmParams};

#[cfg(test)]
mod autotraits {
    fn send_sync<T: Send + Sync>() {}

    #[test]
    fn public_types_are_send_and_sync() {
        send_sync::<super::KmPublication>();
        send_sync::<super::KmError>();
        send_sync::<super::Hierarchy>();
    }
}
