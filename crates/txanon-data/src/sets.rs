//! Sorted sets (strictly ascending slices): the workspace's one intersection count.
//!
//! Transactions, itemsets and tidsets are all kept sorted, and counting what two of them share
//! is an inner loop of mining metrics, borders, Jaccard distances and cahd's candidate ranking.
//! Two strategies, chosen by the lengths: a merge walks both sets (`O(|a| + |b|)`); galloping
//! searches the longer set for each element of the shorter, doubling its step then bisecting
//! (`O(|s| log(|l| / |s|))`), which wins when one set is much shorter than the other.

/// How many times longer one set must be than the other before [`intersection_len`] gallops
/// through it. Measured by `cargo bench -p txanon-data --bench sets` (docs/PERFORMANCE.md):
/// galloping overtakes the merge between the ratios 16 and 32.
pub const GALLOP_RATIO: usize = 32;

/// `|a ∩ b|` of two strictly ascending slices: a merge when their lengths are alike, galloping
/// through the longer one when it is at least [`GALLOP_RATIO`] times the shorter.
///
/// # Complexity
/// `O(min(|a| + |b|, s · log(l / s)))` comparisons for the shorter length `s` and longer `l`; no
/// allocation.
///
/// ```
/// assert_eq!(txanon_data::sets::intersection_len(&[1, 2, 3], &[2, 3, 4]), 2);
/// ```
pub fn intersection_len<T: Ord>(a: &[T], b: &[T]) -> usize {
    debug_assert!(a.windows(2).all(|w| w[0] < w[1]) && b.windows(2).all(|w| w[0] < w[1]));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len().saturating_mul(GALLOP_RATIO) <= long.len() {
        galloping_intersection_len(short, long)
    } else {
        merge_intersection_len(short, long)
    }
}

/// `out = a ∩ b` of two strictly ascending slices, by the strategy of [`intersection_len`].
///
/// ```
/// let mut out = Vec::new();
/// txanon_data::sets::intersection(&[1, 2, 3], &[2, 3, 4], &mut out);
/// assert_eq!(out, [2, 3]);
/// ```
pub fn intersection<T: Ord + Copy>(a: &[T], b: &[T], out: &mut Vec<T>) {
    out.clear();
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len().saturating_mul(GALLOP_RATIO) <= long.len() {
        gallop(short, long, |x| out.push(*x));
    } else {
        merge(short, long, |x| out.push(*x));
    }
}

/// `|a ∩ b|` by one merge pass over both slices.
///
/// # Complexity
/// `O(|a| + |b|)`.
pub fn merge_intersection_len<T: Ord>(a: &[T], b: &[T]) -> usize {
    let mut shared = 0;
    merge(a, b, |_| shared += 1);
    shared
}

/// Calls `found` with every element of `a ∩ b`, ascending, by one merge pass.
fn merge<'a, T: Ord>(a: &'a [T], b: &[T], mut found: impl FnMut(&'a T)) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                found(&a[i]);
                i += 1;
                j += 1;
            }
        }
    }
}

/// `|short ∩ long|` by galloping: each element of `short` is searched for in what is left of
/// `long`, by steps 1, 2, 4, … until overshot, then by bisection.
///
/// # Complexity
/// `O(|short| · log(|long| / |short|))`.
pub fn galloping_intersection_len<T: Ord>(short: &[T], long: &[T]) -> usize {
    let mut shared = 0;
    gallop(short, long, |_| shared += 1);
    shared
}

/// Calls `found` with every element of `short ∩ long`, ascending, by galloping.
fn gallop<'a, T: Ord>(short: &'a [T], long: &[T], mut found: impl FnMut(&'a T)) {
    let mut rest = long;
    for x in short {
        let at = seek(rest, x);
        if rest.get(at) == Some(x) {
            found(x);
            rest = &rest[at + 1..];
        } else {
            rest = &rest[at..];
        }
        if rest.is_empty() {
            break;
        }
    }
}

/// The position of the first element of the ascending `rest` not below `x`: steps 1, 2, 4, …
/// until one overshoots, then bisection below it (`O(log d)` for `d` that position).
fn seek<T: Ord>(rest: &[T], x: &T) -> usize {
    let mut step = 1;
    while step < rest.len() && rest[step] < *x {
        step *= 2;
    }
    rest[..rest.len().min(step + 1)].partition_point(|y| y < x)
}

/// Whether the strictly ascending slices `lists` share an element (the intersection of all of
/// them is not empty); `true` for no slice at all. A leapfrog search: the largest head seen so
/// far is sought in every slice by galloping, so each slice is crossed once, in steps that
/// skip what cannot be shared. Put the shortest slice first: a miss there ends the search
/// soonest. The slices are the search's cursors: each is left advanced past what was crossed
/// (the caller's buffer of slices is reused, nothing is allocated).
///
/// # Complexity
/// `O(Σ_j s · log(|l_j| / s))` comparisons for `s` the number of distinct heads sought, at most
/// the shortest slice's length plus one.
///
/// ```
/// use txanon_data::sets::share_an_element;
/// assert!(share_an_element(&mut [&[1, 4, 9][..], &[2, 4], &[0, 4, 5]]));
/// assert!(!share_an_element(&mut [&[1, 4, 9][..], &[2, 5], &[0, 4, 5]]));
/// ```
pub fn share_an_element<T: Ord + Copy>(lists: &mut [&[T]]) -> bool {
    debug_assert!(lists.iter().all(|l| l.windows(2).all(|w| w[0] < w[1])));
    let Some(first) = lists.first() else { return true };
    let Some(&start) = first.first() else { return false };
    let mut sought = start;
    // `agreeing` slices in a row hold `sought`; when all do, it is shared.
    let mut agreeing = 0;
    let mut j = 0;
    loop {
        let rest = &lists[j][seek(lists[j], &sought)..];
        lists[j] = rest;
        let Some(&head) = rest.first() else { return false };
        if head == sought {
            agreeing += 1;
            if agreeing == lists.len() {
                return true;
            }
        } else {
            sought = head;
            agreeing = 1;
        }
        j = (j + 1) % lists.len();
    }
}

/// `C(n, k)`, the number of `k`-subsets of an `n`-set, in 128 bits; `None` only when it
/// exceeds 2¹²⁸ (each step divides out the factor its divisor shares with the running value
/// first, so no intermediate product overflows before the result does). The one exact
/// binomial of the workspace (borders, mining's classes, the enumeration references, kᵐ's and
/// coherence's limits).
pub fn binomial(n: usize, k: usize) -> Option<u128> {
    if k > n {
        return Some(0);
    }
    if n < PASCAL_ROWS {
        return Some(u128::from(PASCAL[n][k]));
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        // c = C(n, i), and C(n, i + 1) = c · (n − i) / (i + 1) is an integer.
        c = times_over(c, (n - i) as u128, i as u128 + 1)?;
    }
    Some(c)
}

/// `C(n, k + 1)` from `c = C(n, k)`, `None` beyond 2¹²⁸: a walk along a row of Pascal's
/// triangle without recomputing each term.
pub fn next_binomial(c: u128, n: usize, k: usize) -> Option<u128> {
    if k >= n {
        return Some(0);
    }
    if n < PASCAL_ROWS {
        debug_assert_eq!(c, u128::from(PASCAL[n][k]), "c is not C(n, k)");
        return Some(u128::from(PASCAL[n][k + 1]));
    }
    times_over(c, (n - k) as u128, k as u128 + 1)
}

/// Rows of [`PASCAL`]: `C(63, 31)` is below 2⁶⁰.
const PASCAL_ROWS: usize = 64;

/// `PASCAL[n][k] = C(n, k)` for `n < 64`: mining asks for the binomials of a handful of
/// perfect extensions once per class, hundreds of thousands of times on dense data, and a
/// lookup replaces the exact walk's gcd and 128-bit divisions for them.
static PASCAL: [[u64; PASCAL_ROWS]; PASCAL_ROWS] = pascal();

const fn pascal() -> [[u64; PASCAL_ROWS]; PASCAL_ROWS] {
    let mut rows = [[0u64; PASCAL_ROWS]; PASCAL_ROWS];
    let mut n = 0;
    while n < PASCAL_ROWS {
        rows[n][0] = 1;
        let mut k = 1;
        while k <= n {
            rows[n][k] = rows[n - 1][k - 1] + rows[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    rows
}

/// `c · a / b` for `b` dividing `c · a`, `None` only when the result exceeds 2¹²⁸: the factor
/// `b` shares with `c` is divided out of `c` first, the rest divides `a`.
fn times_over(c: u128, a: u128, b: u128) -> Option<u128> {
    let g = gcd(c, b);
    (c / g).checked_mul(a / (b / g))
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Calls `f` with every non-empty subset of at most `most` elements of `row`, each in `row`'s
/// order, depth first (`{a}`, `{a, b}`, `{a, b, c}`, …, `{b}`, …): the itemsets an audit counts
/// in a transaction.
///
/// ```
/// let mut seen = Vec::new();
/// txanon_data::sets::each_subset_up_to(&[1, 2, 3], 2, &mut |s| seen.push(s.to_vec()));
/// assert_eq!(seen, [vec![1], vec![1, 2], vec![1, 3], vec![2], vec![2, 3], vec![3]]);
/// ```
pub fn each_subset_up_to<T: Copy>(row: &[T], most: usize, f: &mut dyn FnMut(&[T])) {
    fn go<T: Copy>(row: &[T], most: usize, chosen: &mut Vec<T>, f: &mut dyn FnMut(&[T])) {
        for (j, &item) in row.iter().enumerate() {
            chosen.push(item);
            f(chosen);
            if chosen.len() < most {
                go(&row[j + 1..], most, chosen, f);
            }
            chosen.pop();
        }
    }
    go(row, most, &mut Vec::with_capacity(most.min(row.len())), f);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Both strategies, and the choice between them, count what a set intersection holds.
        #[test]
        fn every_strategy_counts_the_intersection(
            a in prop::collection::btree_set(0u32..400, 0..60),
            b in prop::collection::btree_set(0u32..400, 0..400),
        ) {
            let shared: Vec<u32> = a.intersection(&b).copied().collect();
            let expected = shared.len();
            let (a, b): (Vec<u32>, Vec<u32>) = (a.into_iter().collect(), b.into_iter().collect());
            let mut out = vec![7];
            intersection(&a, &b, &mut out);
            prop_assert_eq!(&out, &shared);
            intersection(&b, &a, &mut out);
            prop_assert_eq!(&out, &shared);
            prop_assert_eq!(merge_intersection_len(&a, &b), expected);
            prop_assert_eq!(galloping_intersection_len(&a, &b), expected);
            prop_assert_eq!(galloping_intersection_len(&b, &a), expected);
            prop_assert_eq!(intersection_len(&a, &b), expected);
            prop_assert_eq!(intersection_len(&b, &a), expected);
        }
    }

    proptest! {
        /// The leapfrog search answers what intersecting every slice answers.
        #[test]
        fn a_shared_element_is_found_exactly_when_one_exists(
            sets in prop::collection::vec(prop::collection::btree_set(0u32..60, 0..40), 0..5),
        ) {
            let shared = sets.iter().skip(1).fold(sets.first().cloned(), |acc, s| {
                acc.map(|a| a.intersection(s).copied().collect())
            });
            let expected = shared.is_none_or(|s: std::collections::BTreeSet<u32>| !s.is_empty());
            let lists: Vec<Vec<u32>> = sets.into_iter().map(|s| s.into_iter().collect()).collect();
            let mut slices: Vec<&[u32]> = lists.iter().map(Vec::as_slice).collect();
            prop_assert_eq!(share_an_element(&mut slices), expected);
        }
    }

    #[test]
    fn edges() {
        assert!(share_an_element::<u32>(&mut []));
        assert!(!share_an_element(&mut [&[][..], &[1]]));
        assert!(share_an_element(&mut [&[7u32][..]]));
        assert!(share_an_element(&mut [
            &[1u32, 2, 3, 1000][..],
            &(500..=1000).collect::<Vec<_>>()
        ]));
        let empty: [u32; 0] = [];
        assert_eq!(intersection_len(&empty, &[1, 2]), 0);
        assert_eq!(galloping_intersection_len(&[5], &[1, 2, 3, 4, 5]), 1);
        assert_eq!(galloping_intersection_len(&[0, 9], &[1, 2, 3, 4, 5]), 0);
        assert_eq!(galloping_intersection_len(&[1, 5], &[1, 5]), 2);
    }
}
