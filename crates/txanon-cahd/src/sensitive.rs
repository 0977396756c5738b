//! Choosing sensitive items the way the CAHD paper's experiments did.

use txanon_data::{ItemId, ParamError, TransactionDb};

/// `m` distinct items of `db` drawn uniformly at random from the seed, as the CAHD paper's
/// experiments chose their sensitive items ("m items selected at random"), not by support. The
/// items are returned sorted. An item drawn this way can be too frequent for a given `p`
/// (support above `n/p`); [`anonymize`](crate::anonymize) then refuses and names it.
///
/// # Errors
/// [`ParamError::OutOfRange`] when `m` is 0 or more than the items of `db`.
pub fn random_sensitive_items(
    db: &TransactionDb,
    m: usize,
    seed: u64,
) -> Result<Vec<ItemId>, ParamError> {
    txanon_data::random_items(db, m, seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_distinct_seeded_and_bounded() {
        let db = TransactionDb::from_int_transactions((0..50u32).map(|i| vec![i, i + 50]));
        let a = random_sensitive_items(&db, 10, 1).unwrap();
        assert_eq!(a.len(), 10);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(a, random_sensitive_items(&db, 10, 1).unwrap());
        assert_ne!(a, random_sensitive_items(&db, 10, 2).unwrap());
        assert!(random_sensitive_items(&db, 0, 1).is_err());
        assert!(random_sensitive_items(&db, 101, 1).is_err());
    }
}
