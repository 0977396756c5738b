//! The three ways of counting moles and nuggets per item (see [`Engine`](crate::Engine)).

mod bitsets;
mod counting;
mod edges;
mod enumerate;

pub(crate) use counting::{CountedMoles, MinedNuggets, occurring};
pub(crate) use edges::EdgeMoles;
pub(crate) use enumerate::{ListedMoles, ListedNuggets, Listing};

use crate::error::CoherenceError;
use crate::working::Working;

/// Per public item, how many moles (or nuggets) hold it, kept up to date as items are
/// suppressed.
pub(crate) trait Counter: std::fmt::Debug + Send {
    /// The current count of each public index.
    fn counts(&self) -> &[u128];

    /// Public item `v` is being suppressed (`w` still holds it): subtract from every other
    /// item's count the moles (nuggets) holding both, and zero `v`'s.
    fn suppress(&mut self, w: &Working, v: u32) -> Result<(), CoherenceError>;

    /// Whether [`suppress`](Self::suppress) reads the transactions' items (`w.public`), which
    /// must then have lost every item suppressed before. When neither counter does, the greedy
    /// loop leaves the items as they are: removing each from its transactions was a quarter of
    /// the loop at 10⁷ transactions with 270 private items.
    fn reads_rows(&self) -> bool;
}

/// Least transactions holding a suppressed item for a greedy step's counters to be updated on
/// two workers: below it a step is too short to pay for waking one. (At ten million
/// transactions and k′ = 10,000 every public item is above it; on BMS-WebView none is.)
pub(crate) const PARALLEL_STEP: usize = 1 << 12;

/// `(a(), b())`, on two workers when `parallel`.
pub(crate) fn both<A: Send, B: Send>(
    parallel: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if parallel { rayon::join(a, b) } else { (a(), b()) }
}
