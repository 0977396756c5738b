//! (h,k,p)-coherence (Xu, Fung, Wang, Fu, Pei, "Publishing Sensitive Transactions for Itemset
//! Utility", ICDM 2008): public items are suppressed, greedily, until no attacker who knows up
//! to `p` public items of a person can narrow them to fewer than `k` transactions or infer a
//! private item with probability above `h`, while as many frequent itemsets (nuggets) as
//! possible survive.
//!
//! - [`anonymize`]: the pre-step and the greedy algorithm of the paper's Figure 2, with the
//!   counts of moles and nuggets per item kept by one of three [`Engine`]s.
//! - [`audit`]: the independent checker of a [`CoherenceClaim`], from the published data and
//!   the private items (and the original when given); it shares no code with the algorithm.
//!
//! ```
//! use txanon_coherence::{CoherenceClaim, CoherenceParams, anonymize, audit};
//! use txanon_data::TransactionDb;
//!
//! // Item 9 is private. Item 1 alone identifies the first transaction (support 1 < k = 2).
//! let db = TransactionDb::from_int_transactions([
//!     vec![1, 2, 9], vec![2, 3], vec![2, 3], vec![3, 9], vec![2, 3],
//! ]);
//! let nine = db.labels().find("9").unwrap();
//! let params = CoherenceParams::new(0.5, 2, 2, 2).check()?;
//! let result = anonymize(&db, &[nine], &params)?;
//! // `anonymize` has audited its output; an auditor does it again from the data alone.
//! let claim = CoherenceClaim::new(0.5, 2, 2)?;
//! assert!(audit(&result.published, &claim.private(vec!["9".to_string()]), Some(&db)).is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod algorithm;
mod audit;
mod engines;
mod error;
mod extension;
mod family;
mod flatsets;
mod nonmoles;
mod params;
mod projection;
pub mod sharded;
mod working;

pub use algorithm::{
    CoherencePublication, MoleBorder, Reason, Suppressed, anonymize, mole_border, nuggets,
};
pub use audit::{
    CoherenceAuditReport, CoherenceClaim, CoherenceShardAuditReport, CoherenceViolation,
    CoherenceViolations, ShardItemsets, ShardKeyedItemsets, UNION_MAX_P, UnionItemset, UnionPart,
    audit, audit_shard, audit_with_progress, shard_itemsets, shard_keyed_itemsets, union_part,
    union_violations,
};
pub use error::CoherenceError;
pub use family::Coherence;
pub use params::{CoherenceParams, DEFAULT_MAX_ITEMSETS, Engine, ValidCoherenceParams};

#[cfg(test)]
mod autotraits {
    fn send_sync<T: Send + Sync>() {}

    #[test]
    fn public_types_are_send_and_sync() {
        send_sync::<super::CoherencePublication>();
        send_sync::<super::CoherenceError>();
    }
}
