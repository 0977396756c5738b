//! Errors of the kᵐ-anonymity family.

use txanon_data::{DataError, ParamError};

/// Errors of anonymization and audit.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KmError {
    /// A parameter outside its valid range.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// A hierarchy file that is not a tree, or a hierarchy that does not fit the data.
    #[error(transparent)]
    Data(#[from] DataError),
    /// A hierarchy that does not describe the data's items.
    #[error("the hierarchy does not fit the data: {0}")]
    Hierarchy(String),
    /// No cut of the hierarchy makes the data kᵐ-anonymous.
    #[error("no generalization is kᵐ-anonymous: {0}")]
    Unreachable(String),
    /// The optimal search would visit more cuts than allowed.
    #[error(
        "the hierarchy has {cuts} cuts, over the optimal search's limit of {limit}: use the Apriori algorithm (AA)"
    )]
    TooManyCuts {
        /// Cuts of the hierarchy (saturated at `u128::MAX`).
        cuts: u128,
        /// The limit.
        limit: u64,
    },
    /// A counting pass could hold more distinct itemsets than allowed.
    #[error(
        "counting the itemsets of {sizes} items of the data generalized so far could take {combinations} counters, over the limit of {limit} (--max-combinations): AA (--algorithm aa) counts fewer than DA; else a smaller m or a coarser hierarchy"
    )]
    TooManyCombinations {
        /// The bound on the distinct itemsets of the pass (saturated at `u64::MAX`).
        combinations: u64,
        /// The limit.
        limit: u64,
        /// The itemset sizes of the pass.
        sizes: String,
    },
    /// Published data that breaks the claim audited.
    #[error("audit failed: {0}")]
    Audit(crate::audit::KmViolations),
}

impl txanon_data::Classify for KmError {
    fn kind(&self) -> txanon_data::ErrorKind {
        use txanon_data::ErrorKind;
        match self {
            KmError::Params(_) | KmError::Hierarchy(_) => ErrorKind::BadInput,
            KmError::Data(e) => txanon_data::Classify::kind(e),
            KmError::Unreachable(_)
            | KmError::TooManyCuts { .. }
            | KmError::TooManyCombinations { .. } => ErrorKind::Infeasible,
            KmError::Audit(_) => ErrorKind::AuditFailed,
        }
    }
}
