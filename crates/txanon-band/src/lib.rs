//! Band-matrix reordering of transaction data: the first step of CAHD (Ghinita, Tao, Kalnis,
//! ICDE 2008), which orders transactions so that similar ones sit together.
//!
//! - [`SharedItems`]: the transaction similarity graph (two transactions adjacent when they
//!   share an item), the pattern of `A·Aᵀ`, walked through the items and never built.
//! - [`Explicit`]: an explicit symmetric pattern, such as [`Explicit::symmetrized_padded`], the
//!   cheaper `A + Aᵀ` of the padded matrix that a reimplementation of CAHD used.
//! - [`reverse_cuthill_mckee`]: RCM from the best of several peripheral starts per component
//!   (the George-Liu pseudo-peripheral node first), by profile.
//! - [`Pattern::envelope`]: bandwidth and profile under an ordering; [`sparsity_svg`]: the
//!   picture of a pattern before and after.
//!
//! ```
//! use txanon_band::{Permutation, Pattern, SharedItems, reverse_cuthill_mckee};
//! use txanon_data::TransactionDb;
//!
//! // Transactions 0 and 3 share item 7; 1 and 2 share item 9; 0 and 2 share item 5.
//! let db = TransactionDb::from_int_transactions([vec![5, 7], vec![9], vec![5, 9], vec![7]]);
//! let graph = SharedItems::all_items(&db);
//! let band = reverse_cuthill_mckee(&graph);
//! let before = graph.envelope(Permutation::identity(db.len()).position());
//! let after = graph.envelope(band.position());
//! assert_eq!((before.bandwidth, after.bandwidth), (3, 1));
//! assert!(after.profile < before.profile);
//! ```
#![deny(missing_docs)]

mod graph;
mod picture;
mod rcm;

pub use graph::{Envelope, Explicit, Pattern, SharedItems};
pub use picture::{CELLS, sparsity_svg};
pub use rcm::{
    CANDIDATES, ESTIMATED_CANDIDATES, EXACT_DEGREE_WORK, Permutation, Ranking, SEARCH_BUDGET,
    Start, reverse_cuthill_mckee, reverse_cuthill_mckee_from, reverse_cuthill_mckee_reporting,
};

use txanon_data::TransactionDb;
use txanon_data::progress::Progress;

/// Which graph over the transactions to reorder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GraphKind {
    /// The pattern of `A·Aᵀ`: transactions adjacent when they share a kept item (CAHD's).
    SharedItems,
    /// `A + Aᵀ` of `A` padded to a square (the reimplementation's cheaper variant).
    SymmetrizedPadded,
}

/// Bandwidth and profile of a graph in the input order and in the band order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BandEnvelopes {
    /// In the input order.
    pub before: Envelope,
    /// In the band order.
    pub after: Envelope,
}

/// The band order of the transactions and what it did to the graph's envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Banded {
    /// The transactions in band order.
    pub permutation: Permutation,
    /// The graph's bandwidth and profile before and after.
    pub envelopes: BandEnvelopes,
}

/// The RCM ordering of the transactions of `db` over the items with `keep[i]` true, on the
/// graph `kind`, and the bandwidth and profile of that graph before (input order) and after.
/// For [`GraphKind::SymmetrizedPadded`] the padding vertices are dropped from the transaction
/// order, and the envelopes are those of the padded matrix. RCM's searches report to
/// `progress` ([`reverse_cuthill_mckee_reporting`]) under the caller's phase; the envelopes,
/// a scan of the graph each (both at once), are the phase [`ENVELOPES_PHASE`].
///
/// # Panics
/// When `keep` is not one flag per item of `db`.
pub fn band_order(
    db: &TransactionDb,
    keep: &[bool],
    kind: GraphKind,
    progress: Option<&Progress>,
) -> Banded {
    let measuring = |_: &Permutation| {
        if let Some(progress) = progress {
            progress.begin(ENVELOPES_PHASE, txanon_data::progress::Unit::Items, 0);
        }
    };
    band_order_while(db, keep, kind, progress, measuring).0
}

/// [`band_order`], with `during` run on the transactions' band order while the envelopes are
/// measured (the envelopes report no phase of their own: `during` reports its own). The
/// envelopes are a summary; what the order is for need not wait for them (CAHD's grouping runs
/// on one core, the envelopes on the other).
///
/// # Panics
/// When `keep` is not one flag per item of `db`.
pub fn band_order_while<R: Send>(
    db: &TransactionDb,
    keep: &[bool],
    kind: GraphKind,
    progress: Option<&Progress>,
    during: impl FnOnce(&Permutation) -> R + Send,
) -> (Banded, R) {
    match kind {
        GraphKind::SharedItems => {
            let graph = SharedItems::new(db, keep.to_vec());
            let ordering = reverse_cuthill_mckee_reporting(&graph, progress);
            let (done, (before, after)) =
                rayon::join(|| during(&ordering), || envelopes(&graph, &ordering));
            let envelopes = BandEnvelopes { before, after };
            (Banded { permutation: ordering, envelopes }, done)
        }
        GraphKind::SymmetrizedPadded => {
            let graph = Explicit::symmetrized_padded(db, keep);
            let ordering = reverse_cuthill_mckee_reporting(&graph, progress);
            let n = db.len() as u32;
            let transactions = ordering.order().iter().copied().filter(|&v| v < n).collect();
            let permutation = Permutation::from_order(transactions);
            let (done, (before, after)) =
                rayon::join(|| during(&permutation), || envelopes(&graph, &ordering));
            (Banded { permutation, envelopes: BandEnvelopes { before, after } }, done)
        }
    }
}

/// The phase [`band_order`] reports while it measures the envelopes.
pub const ENVELOPES_PHASE: &str = "band: bandwidth and profile, input order and band order";

/// The envelope of `graph` in the input order and in `ordering`, measured at once.
fn envelopes(graph: &impl Pattern, ordering: &Permutation) -> (Envelope, Envelope) {
    rayon::join(
        || graph.envelope(Permutation::identity(graph.order()).position()),
        || graph.envelope(ordering.position()),
    )
}

#[cfg(test)]
mod autotraits {
    fn send_sync<T: Send + Sync>() {}

    #[test]
    fn public_types_are_send_and_sync() {
        send_sync::<super::Permutation>();
        send_sync::<super::Envelope>();
        send_sync::<super::Explicit>();
        send_sync::<super::SharedItems<'static>>();
    }
}
