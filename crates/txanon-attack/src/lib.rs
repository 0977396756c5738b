//! Empirical privacy of any publication: one model of what a publication tells an adversary,
//! and the adversaries every method is measured against.
//!
//! - [`View`]: a publication as groups of records published per factor (records as they are,
//!   anatomy's buckets, CAHD's groups), with the probability of every record it is consistent
//!   with. The crate knows no family: each family's publication is converted into a view by
//!   whoever holds it (`txanon-evaluate`), exactly as its paper's adversary reads it.
//! - [`attack`]: adversaries who know `q` of a target's public items, drawn at random, and
//!   what they conclude ([`View::posterior`]): the target's own record (re-identification),
//!   the target's sensitive items, the target's tendency (for swapping); summarized over
//!   targets as [`Risk`]s.
//! - [`estimated_itemsets`] and [`View::support`]: the supports a data user estimates from the
//!   same view, for the utility side of the comparison.
//!
//! ```
//! use txanon_attack::{AttackParams, Target, Value, ViewBuilder, attack};
//!
//! // A group of two records: {0, 1} and {0}; item 2 (sensitive) held by one of them.
//! let mut view = ViewBuilder::new(3);
//! let g = view.group_with_counts(
//!     2,
//!     vec![vec![Value::new(vec![0, 1], 1), Value::new(vec![0], 1)]],
//!     &[(2, 1)],
//! )?;
//! let view = view.finish();
//! let target = Target {
//!     public: vec![0, 1],
//!     sensitive: vec![2],
//!     own: view.locate(g, &[0, 1, 2]),
//!     labels: vec![],
//! };
//! // Knowing item 0 only, the adversary finds both records: 1/2 each, and item 2 with 1/2.
//! let p = view.posterior(&target, &[0])?;
//! assert_eq!(p.reidentification, 0.25); // the own record is {0,1} with item 2: 1/2 · 1/2
//! assert_eq!(p.sensitive, vec![(2, 0.5)]);
//! let report = attack(&view, &[target], &AttackParams::new().known(vec![1, 2]).check()?)?;
//! assert_eq!(report.by_known[1].reidentification.mean, 0.5); // knowing {0,1}: one record
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod attack;
mod error;
mod itemsets;
mod view;

pub use attack::{
    AttackParams, AttackReport, KnownItems, Posterior, Risk, Target, ValidAttackParams, attack,
};
pub use error::ViewError;
pub use itemsets::{TooManyItemsets, estimated_itemsets};
pub use view::{Own, Value, View, ViewBuilder};

#[cfg(test)]
mod autotraits {
    fn send_sync<T: Send + Sync>() {}

    /// Views and reports cross threads (evaluate attacks publications in parallel).
    #[test]
    fn public_types_are_send_and_sync() {
        send_sync::<super::View>();
        send_sync::<super::ViewBuilder>();
        send_sync::<super::AttackParams>();
        send_sync::<super::ValidAttackParams>();
        send_sync::<super::AttackReport>();
        send_sync::<super::Risk>();
        send_sync::<super::ViewError>();
        send_sync::<super::TooManyItemsets>();
    }
}
