//! The data the greedy algorithm works on: public and private parts of every transaction, over
//! dense indices, with the suppressed public items removed as it goes.

use rayon::prelude::*;
use txanon_data::fetch::{BATCH, FIRST_LINE, fetch_batch};
use txanon_data::{ItemId, ItemIndex, Label, TransactionDb};

/// Transactions split into public items (dense indices `0..P`, only those kept by the
/// pre-step) and private items (dense indices `0..S`).
#[derive(Debug, Clone)]
pub(crate) struct Working {
    /// Original item id of each public index.
    pub public_ids: Vec<ItemId>,
    /// Original item id of each private index.
    pub private_ids: Vec<ItemId>,
    /// Per transaction, its public indices, ascending; suppressed items are removed while a
    /// counter reads them (`Counter::reads_rows`), else left in place.
    pub public: Vec<Vec<u32>>,
    /// Per transaction, its private indices, ascending (read through
    /// [`private_of`](Self::private_of) in passes over an item's transactions).
    pub private: Vec<Vec<u32>>,
    /// Bit `t` set when transaction `t` holds a private item.
    holds_private: Vec<u64>,
    /// Per public index, the transactions that held it before any suppression, ascending.
    pub tids: ItemIndex,
}

/// Whether an item ends up public, private, or was dropped by the pre-step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Public(u32),
    Private(u32),
    Dropped,
}

impl Working {
    /// The maximal public itemsets that occur (the mole border's `L`): the distinct public
    /// parts of the transactions that no other contains.
    pub fn maximal_public(&self) -> Vec<Vec<u32>> {
        txanon_border::maximal_only(self.public.iter().filter(|t| !t.is_empty()).cloned().collect())
    }

    /// Splits `db`: `roles[i]` says what item `i` becomes, the public indices numbered in the
    /// order of the item ids, and the private ones too.
    pub fn new(db: &TransactionDb, roles: &[Role]) -> Self {
        let public_count = roles.iter().filter(|r| matches!(r, Role::Public(_))).count();
        let private_count = roles.iter().filter(|r| matches!(r, Role::Private(_))).count();
        let mut public_ids = vec![0; public_count];
        let mut private_ids = vec![0; private_count];
        for (i, r) in roles.iter().enumerate() {
            match *r {
                Role::Public(j) => public_ids[j as usize] = i as ItemId,
                Role::Private(j) => private_ids[j as usize] = i as ItemId,
                Role::Dropped => {}
            }
        }
        debug_assert!(public_ids.is_sorted() && private_ids.is_sorted(), "roles in id order");
        // A row's items ascend and the roles number items in id order, so each part comes out
        // ascending. The rows split on rayon (at 10⁷ transactions, two allocations each were
        // seconds on one core), their transpose in blocks.
        let (public, private): (Vec<Vec<u32>>, Vec<Vec<u32>>) = (0..db.len())
            .into_par_iter()
            .map(|t| {
                let items = db.transaction(t);
                let part = |private: bool| -> Vec<u32> {
                    let index = |&i: &ItemId| match roles[i as usize] {
                        Role::Public(j) if !private => Some(j),
                        Role::Private(j) if private => Some(j),
                        _ => None,
                    };
                    let mut part = Vec::with_capacity(items.iter().filter_map(index).count());
                    part.extend(items.iter().filter_map(index));
                    part
                };
                (part(false), part(true))
            })
            .unzip();
        let tids = ItemIndex::of_rows(public_count, &public);
        let mut holds_private = vec![0u64; private.len().div_ceil(64)];
        for (t, part) in private.iter().enumerate() {
            holds_private[t / 64] |= u64::from(!part.is_empty()) << (t % 64);
        }
        Self { public_ids, private_ids, public, private, tids, holds_private }
    }

    /// Transaction `t`'s private indices, ascending. One bit is read first: where most
    /// transactions hold none (95% with 10 of 5,000 Quest items private), the bits (1.25 MB at
    /// 10⁷ transactions) stay in cache, where each part's vector was a cache miss per
    /// transaction in every pass over an item's transactions (the non-mole search's and the
    /// singles' breach tests, docs/PERFORMANCE.md).
    pub fn private_of(&self, t: u32) -> &[u32] {
        let t = t as usize;
        if self.holds_private[t / 64] >> (t % 64) & 1 == 0 { &[] } else { &self.private[t] }
    }

    /// Number of public indices.
    pub fn public_items(&self) -> usize {
        self.public_ids.len()
    }

    /// Removes public item `v` from every transaction.
    pub fn suppress(&mut self, v: u32) {
        // The rows are scattered: each batch's first lines are fetched together, then edited.
        for batch in self.tids.transactions(v).chunks(BATCH) {
            fetch_batch(batch, |t| &self.public[t as usize], FIRST_LINE);
            for &t in batch {
                let list = &mut self.public[t as usize];
                if let Ok(at) = list.binary_search(&v) {
                    list.remove(at);
                }
            }
        }
    }

    /// The public parts as a database whose item labels (and ids) are the public indices.
    pub fn public_db(&self) -> TransactionDb {
        let p = self.public_items() as u32;
        TransactionDb::from_int_row_fn(self.public.len(), p, |t, row| {
            row.extend_from_slice(&self.public[t]);
        })
    }

    /// Public and private parts as one database: public index `j` is label `j`, private index
    /// `j` is label `P + j` (labels are the ids).
    pub fn full_db(&self) -> TransactionDb {
        let p = self.public_items() as u32;
        let labels = p + self.private_ids.len() as u32;
        TransactionDb::from_int_row_fn(self.public.len(), labels, |t, row| {
            row.extend_from_slice(&self.public[t]);
            row.extend(self.private[t].iter().map(|&s| s + p));
        })
    }

    /// The transactions now holding public item `v`, without `v`: public parts only, or with
    /// the private parts (labels as in [`full_db`](Self::full_db)).
    ///
    /// The rows go into one array (a vector per row, built for every suppression, was a
    /// quarter of coherence's time at 10⁷ records with 270 private items); each is ascending,
    /// the private labels above every public one.
    pub fn conditional(&self, v: u32, with_private: bool) -> TransactionDb {
        let p = self.public_items() as u32;
        let mut offsets = vec![0];
        let mut labels = Vec::new();
        // The rows are scattered: a batch's first lines are fetched together first, the
        // private parts' too when they are read (with 270 of 5,000 Quest items private, 67% of
        // the transactions hold one).
        for batch in self.tids.transactions(v).chunks(BATCH) {
            fetch_batch(batch, |t| &self.public[t as usize], FIRST_LINE);
            if with_private {
                fetch_batch(batch, |t| self.private_of(t), FIRST_LINE);
            }
            for &t in batch {
                let public = &self.public[t as usize];
                let Ok(at) = public.binary_search(&v) else { continue };
                labels.extend_from_slice(&public[..at]);
                labels.extend_from_slice(&public[at + 1..]);
                if with_private {
                    labels.extend(self.private_of(t).iter().map(|&s| s + p));
                }
                offsets.push(labels.len());
            }
        }
        TransactionDb::from_int_rows(offsets, labels)
    }
}

/// The roles of `db`'s items for tests: those labelled in `private` private, every other public,
/// each side numbered in id order.
#[cfg(test)]
pub(crate) fn roles_with_private(
    db: &TransactionDb,
    private: &std::collections::BTreeSet<u32>,
) -> Vec<Role> {
    let (mut public, mut secret) = (0, 0);
    (0..db.num_items() as ItemId)
        .map(|i| match db.label(i) {
            Label::Int(l) if private.contains(&l) => (Role::Private(secret), secret += 1).0,
            _ => (Role::Public(public), public += 1).0,
        })
        .collect()
}

/// Counts reported per item of a database built by this module, moved to the public indices
/// (labels `≥ public_items` are private and dropped).
pub(crate) fn by_public_index(
    db: &TransactionDb,
    counts: &[u128],
    public_items: usize,
) -> Vec<u128> {
    let mut out = vec![0u128; public_items];
    for (i, &c) in counts.iter().enumerate() {
        if let Some(j) = public_index(db, i as ItemId, public_items) {
            out[j as usize] = c;
        }
    }
    out
}

/// The public index of item `i` of a database built by this module, `None` for a private one
/// (labels `≥ public_items`).
pub(crate) fn public_index(db: &TransactionDb, i: ItemId, public_items: usize) -> Option<u32> {
    match db.label(i) {
        Label::Int(label) if (label as usize) < public_items => Some(label),
        _ => None,
    }
}

/// `count / support > h`: a private item inferred above the bound. The quotient of two integers
/// is rounded to the nearest double as `h`'s decimal is, so a quotient equal to `h` is not
/// above it.
pub(crate) fn breaches(count: u32, support: u32, h: f64) -> bool {
    count as f64 / support as f64 > h
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Each transaction's private part read through its bit is the part itself, across word
    /// boundaries of the bits (up to 200 transactions). Counts the cases with transactions
    /// holding a private item beside ones holding none.
    #[test]
    fn a_private_part_read_through_its_bit_is_the_part() {
        let strategy = (
            prop::collection::vec(prop::collection::btree_set(0u32..10, 0..5), 1..200),
            prop::collection::vec(0u8..3, 10),
        );
        let exercised = txanon_testkit::exercised(200, strategy, |(rows, kinds)| {
            let rows: Vec<Vec<u32>> = rows.iter().map(|t| t.iter().copied().collect()).collect();
            let db = TransactionDb::from_int_transactions(rows);
            let (mut public, mut private) = (0, 0);
            let roles: Vec<Role> = (0..db.num_items())
                .map(|i| {
                    let label: usize = db.label(i as ItemId).to_string().parse().unwrap();
                    match kinds[label] {
                        0 => Role::Dropped,
                        1 => (Role::Public(public), public += 1).0,
                        _ => (Role::Private(private), private += 1).0,
                    }
                })
                .collect();
            let w = Working::new(&db, &roles);
            for (t, part) in w.private.iter().enumerate() {
                prop_assert_eq!(w.private_of(t as u32), part.as_slice());
            }
            let holding = w.private.iter().filter(|p| !p.is_empty()).count();
            Ok(holding > 0 && holding < w.private.len())
        });
        exercised.at_least(0.5, "transactions with and without a private item");
    }
}
