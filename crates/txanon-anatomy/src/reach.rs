//! Which l an item partition admits under Definition 5, and the l that no partition into `p`
//! columns can exceed.
//!
//! Under Definition 5 (the empty set a value), a partition admits l exactly when, in every
//! column, the most frequent value is held by at most `n/l` records: necessary, since the
//! buckets partition the records and some bucket holds a value at least as often as the whole
//! does; sufficient, since the whole input is then one l-diverse bucket.
//!
//! No partition can exceed `2^(Σ_i h(i) / p)`, where `h(i)` is the binary entropy of item
//! `i`'s presence: a column's value is a function of its items' presence, so its entropy is at
//! most `Σ_{i∈C} h(i)`; a distribution of entropy `H` has a value of probability at least
//! `2^-H`; and the column with the least `Σ h` has at most the mean `Σ_i h(i) / p`.

use txanon_data::{ItemId, TransactionDb};

use crate::algorithm::ItemPartition;

/// The largest l the item partition `columns` admits under Definition 5: `n` over the count of
/// the most frequent value of any column (`usize::MAX` for an empty input).
pub fn admitted_l(db: &TransactionDb, columns: &ItemPartition) -> usize {
    let n = db.len();
    let mut column_of = vec![usize::MAX; db.num_items()];
    for (j, column) in columns.iter().enumerate() {
        for &i in column {
            column_of[i as usize] = j;
        }
    }
    let mut top = 0usize;
    let mut value: Vec<Vec<ItemId>> = vec![Vec::new(); columns.len()];
    let mut counts: Vec<std::collections::HashMap<Vec<ItemId>, usize>> =
        vec![std::collections::HashMap::new(); columns.len()];
    for t in db.iter() {
        for v in &mut value {
            v.clear();
        }
        for &i in t {
            if let Some(v) = value.get_mut(column_of[i as usize]) {
                v.push(i);
            }
        }
        for (j, v) in value.iter().enumerate() {
            let c = counts[j].entry(v.clone()).or_insert(0);
            *c += 1;
            top = top.max(*c);
        }
    }
    n.checked_div(top).unwrap_or(usize::MAX)
}

/// The upper bound on l over every partition of `db`'s items into `columns` columns:
/// `2^(Σ_i h(i) / columns)` (see the module docs), at most `n`.
pub fn l_bound(db: &TransactionDb, columns: usize) -> f64 {
    let n = db.len() as f64;
    if n == 0.0 || columns == 0 {
        return f64::INFINITY;
    }
    let bits: f64 = db
        .supports()
        .iter()
        .map(|&s| {
            let q = f64::from(s) / n;
            if q <= 0.0 || q >= 1.0 { 0.0 } else { -q * q.log2() - (1.0 - q) * (1.0 - q).log2() }
        })
        .sum();
    (bits / columns as f64).exp2().min(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(rows: &[&[u32]]) -> TransactionDb {
        TransactionDb::from_int_transactions(rows.iter().map(|r| r.to_vec()))
    }

    /// Brute force: every assignment of items to `p` labelled columns.
    fn best_l(db: &TransactionDb, p: usize) -> usize {
        let m = db.num_items();
        let mut best = 0;
        for code in 0..p.pow(m as u32) {
            let mut columns: ItemPartition = vec![Vec::new(); p];
            let mut c = code;
            for i in 0..m {
                columns[c % p].push(i as ItemId);
                c /= p;
            }
            best = best.max(admitted_l(db, &columns));
        }
        best
    }

    #[test]
    fn admitted_l_is_n_over_the_top_value() {
        // Column {a}: {a} in 3 of 4, so l ≤ 4/3 → 1; column {a, b}: values {a}, {a,b}, {}, {b}.
        let d = db(&[&[1], &[1, 2], &[1], &[2]]);
        assert_eq!(admitted_l(&d, &vec![vec![0], vec![1]]), 1);
        let d = db(&[&[1], &[1, 2], &[], &[2]]);
        assert_eq!(admitted_l(&d, &vec![vec![0, 1]]), 4);
    }

    #[test]
    fn no_partition_exceeds_the_bound() {
        let mut state = 7u64;
        let mut next = |k: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % k
        };
        for _ in 0..30 {
            let rows: Vec<Vec<u32>> =
                (0..40).map(|_| (0..6u32).filter(|_| next(3) == 0).collect()).collect();
            let d = TransactionDb::from_int_transactions(rows);
            if d.num_items() < 2 {
                continue;
            }
            for p in 1..=3 {
                let best = best_l(&d, p);
                let bound = l_bound(&d, p);
                assert!(best as f64 <= bound + 1e-9, "bound {bound} < best {best}");
            }
        }
    }
}
