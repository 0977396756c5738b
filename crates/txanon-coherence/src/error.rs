//! Errors of the coherence family.

use txanon_border::BorderError;
use txanon_data::ParamError;
use txanon_mining::MiningError;

/// Errors of anonymization and audit.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoherenceError {
    /// A parameter outside its valid range.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// The empty itemset is a mole: no suppression of public items can make the data coherent.
    #[error("no (h,k,p)-cohesion exists: {0}")]
    NoCohesion(String),
    /// The enumeration reference would list too many itemsets.
    #[error(
        "the enumeration reference would list {subsets} public itemsets (with repeats), over its limit of {limit}: use the counting engine"
    )]
    TooLarge {
        /// Itemsets that would be listed.
        subsets: u64,
        /// The limit.
        limit: u64,
    },
    /// More public itemsets to examine than the limit allows ([`crate::CoherenceParams::max_itemsets`]).
    #[error(
        "p = {p} means examining about {itemsets} public itemsets of at most {p} items (counted with repeats over the transactions after the pre-step), over the limit of {limit} (--max-itemsets): lower p, raise k or the nugget support so that the pre-step drops more items, or raise the limit"
    )]
    TooManyItemsets {
        /// The attacker's power.
        p: usize,
        /// The estimate.
        itemsets: u64,
        /// The limit.
        limit: u64,
    },
    /// One suppression set over shards lists every mole and nugget on the driver, and there
    /// would be more than the limit ([`crate::CoherenceParams::enumeration_limit`]).
    #[error(
        "one suppression set over shards lists the {what} on the driver: about {itemsets}, over the limit of {limit}: suppress per shard, or lower p, or raise k or the nugget support"
    )]
    TooManyToList {
        /// What would be listed.
        what: &'static str,
        /// How many.
        itemsets: u64,
        /// The limit.
        limit: u64,
    },
    /// The union's audit in parts keys an itemset by at most four public items
    /// ([`crate::UNION_MAX_P`]), and the claim's `p` and a published transaction exceed it.
    #[error(
        "p = {p}: the union's audit in parts counts itemsets of at most {most} public items, and a shard publishes a transaction with more: audit the union on one machine"
    )]
    UnionTooWide {
        /// The claim's `p` met by a published transaction.
        p: usize,
        /// The most the keys hold.
        most: usize,
    },
    /// A piece of the union's counts that is not what a shard's count writes: a failure of
    /// the engine that carried it.
    #[error("a piece of the union's counts is malformed: {0}")]
    MalformedPiece(&'static str),
    /// A count beyond 128 bits.
    #[error(transparent)]
    Border(#[from] BorderError),
    /// Mining failed (a count beyond 128 bits, or a listing over its limit).
    #[error(transparent)]
    Mining(#[from] MiningError),
    /// Published data that breaks the claim audited.
    #[error("audit failed: {0}")]
    Audit(crate::audit::CoherenceViolations),
}

impl txanon_data::Classify for CoherenceError {
    fn kind(&self) -> txanon_data::ErrorKind {
        use txanon_data::ErrorKind;
        match self {
            CoherenceError::Params(_) => ErrorKind::BadInput,
            CoherenceError::NoCohesion(_)
            | CoherenceError::TooLarge { .. }
            | CoherenceError::TooManyItemsets { .. }
            | CoherenceError::TooManyToList { .. }
            | CoherenceError::UnionTooWide { .. } => ErrorKind::Infeasible,
            CoherenceError::MalformedPiece(_) => ErrorKind::Internal,
            CoherenceError::Border(e) => txanon_data::Classify::kind(e),
            CoherenceError::Mining(e) => txanon_data::Classify::kind(e),
            CoherenceError::Audit(_) => ErrorKind::AuditFailed,
        }
    }
}
