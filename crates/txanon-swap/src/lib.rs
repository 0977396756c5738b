//! Hiding personal tendency in set-valued data by item swapping (Gunawan, Mambo, "Data
//! Anonymization for Hiding Personal Tendency in Set-Valued Database Publication", Future
//! Internet 11(6):138, 2019), with the baselines the paper compares it with.
//!
//! Every item has a category; a record's tendency is its heaviest category when that weighs
//! more than the record's mean per category ([`tendency_of`]). Partial swapping moves those
//! items to the least similar record (Jaccard) of another tendency and takes that record's back;
//! full swapping exchanges whole single-category records; RandSwap, PartSupp and SplitPerson are
//! the baselines ([`Method`]).
//!
//! - [`anonymize`]: any method, published in a shuffled order, audited before it is returned.
//! - [`audit`]: the independent checker of a [`SwapClaim`], from the original, the publication
//!   and the key; it shares no code with the algorithm.
//!
//! ```
//! use txanon_data::{Categorized, ItemCategories, TransactionDb};
//! use txanon_swap::{Method, SwapParams, anonymize};
//!
//! // Items 1-3 are category 0, items 4-6 category 1.
//! let db = TransactionDb::from_int_transactions([vec![1, 2, 4], vec![3, 5, 6], vec![1, 4]]);
//! let categories = ItemCategories::new(vec![0, 0, 0, 1, 1, 1], vec!["a".into(), "b".into()]);
//! let params = SwapParams::new(Method::PartSwap).seed(Some(1)).check()?;
//! let swapped = anonymize(Categorized::new(&db, &categories)?, &params)?;
//! // {1, 2, 4} (tendency a) and {3, 5, 6} (tendency b) exchange {1, 2} and {5, 6}.
//! assert_eq!(swapped.stats.pairs, 1);
//! assert_eq!((swapped.audit.exposed, swapped.audit.false_swaps), (0, 0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod algorithm;
mod audit;
mod error;
mod family;
mod pairing;
mod params;
mod tendency;

pub use algorithm::{SwapPublication, SwapStats, anonymize};
pub use audit::{SwapAuditReport, SwapClaim, SwapViolation, SwapViolations, audit};
pub use error::SwapError;
pub use family::{Swap, SwapAuditInputs};
pub use params::{Method, Search, SwapParams, Ties, ValidSwapParams};
pub use tendency::{Tendency, heaviest_categories, tendency_of, tied_categories};

#[cfg(test)]
mod autotraits {
    fn send_sync<T: Send + Sync>() {}

    #[test]
    fn public_types_are_send_and_sync() {
        send_sync::<super::SwapPublication>();
        send_sync::<super::SwapError>();
    }
}
