//! Errors of the miners.

use txanon_data::ParamError;

/// Errors of the miners.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MiningError {
    /// A parameter outside its valid range.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// A listing would exceed the configured itemset (or rule) limit.
    #[error(
        "more than {limit} {what}: listing stopped before exhausting memory (raise the limit, \
         raise the minimum support, bound the length, or count only)"
    )]
    LimitExceeded {
        /// The limit that was reached.
        limit: u64,
        /// What was being listed: "itemsets", "rules", "candidates".
        what: &'static str,
    },
    /// A count that does not fit in 128 bits.
    #[error("the number of frequent itemsets exceeds 2^128")]
    CountOverflow,
    /// Two parameters that cannot be combined.
    #[error("{0}")]
    Unsupported(&'static str),
}

impl txanon_data::Classify for MiningError {
    /// Parameters are the caller's; a listing over its limit or a count past 128 bits is a
    /// setting this data cannot meet.
    fn kind(&self) -> txanon_data::ErrorKind {
        use txanon_data::ErrorKind;
        match self {
            MiningError::Params(_) | MiningError::Unsupported(_) => ErrorKind::BadInput,
            MiningError::LimitExceeded { .. } | MiningError::CountOverflow => ErrorKind::Infeasible,
        }
    }
}
