//! Itemsets of up to four ranks packed in one `u128`, in the count tree's preorder.

/// Calls `f` with the key of every `size`-combination of `row` (ascending ranks): the ranks
/// plus one packed from the most significant 32 bits down, so that keys sort in the count
/// tree's preorder (a prefix before its extensions).
pub(crate) fn each_combination(row: &[u32], size: usize, mut f: impl FnMut(u128)) {
    debug_assert!((1..=4).contains(&size));
    let n = row.len();
    if n < size {
        return;
    }
    let mut idx: Vec<usize> = (0..size).collect();
    loop {
        let mut key = 0u128;
        for (j, &p) in idx.iter().enumerate() {
            key |= u128::from(row[p] + 1) << (96 - 32 * j);
        }
        f(key);
        // Next combination in lexicographic order.
        let mut j = size;
        while j > 0 {
            j -= 1;
            if idx[j] < n - size + j {
                idx[j] += 1;
                for l in j + 1..size {
                    idx[l] = idx[l - 1] + 1;
                }
                break;
            }
            if j == 0 {
                return;
            }
        }
    }
}

/// Calls `f` with the key of every `size`-combination of `row` (ascending ranks) that holds its
/// first rank: the combinations counted in that rank's count-tree branch.
pub(crate) fn each_combination_from(row: &[u32], size: usize, mut f: impl FnMut(u128)) {
    let Some((&first, rest)) = row.split_first() else { return };
    let top = u128::from(first + 1) << 96;
    if size == 1 {
        f(top);
        return;
    }
    // The rest's (size − 1)-combinations, one 32-bit place lower.
    each_combination(rest, size - 1, |key| f(top | key >> 32));
}

/// `C(n, r)` saturated at `u64::MAX` (a count that only meets a limit).
pub(crate) fn binomial(n: u64, r: u64) -> u64 {
    let (Ok(n), Ok(r)) = (usize::try_from(n), usize::try_from(r)) else { return u64::MAX };
    txanon_data::sets::binomial(n, r).map_or(u64::MAX, |c| u64::try_from(c).unwrap_or(u64::MAX))
}

/// The ranks packed in a count-tree key.
pub(crate) fn unpack(key: u128) -> impl Iterator<Item = u32> {
    (0..4)
        .map(move |j| ((key >> (96 - 32 * j)) & 0xffff_ffff) as u32)
        .take_while(|&r| r > 0)
        .map(|r| r - 1)
}
