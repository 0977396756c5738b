//! An anchor's transactions cut to the items that matter after it, in one buffer, with each
//! item's places: how the searches read the pairs `(x, y)`, `x` before `y`, that follow an
//! anchor in its transactions.

/// Marks the end of a row in a [`Projection`]; the low bits hold the row's index.
const ROW_END: u32 = 1 << 31;

/// Most words of one projection: its places are `u32`, and a row's index must fit below
/// [`ROW_END`] (a row holds at least three words).
pub(crate) const PROJECTION_LIMIT: usize = u32::MAX as usize;

/// Rows of local item indices (as a caller numbered them), each ended by a [`ROW_END`] word,
/// kept only when they hold at least two items; and per local item, the places just after it in
/// the rows where another item follows it.
///
/// Reading, for item `x`, only the words after `x` in its rows visits each pair of a row once
/// and each word from one buffer, where reading the rows from the working data (a `Vec` each)
/// cost a cache miss per row and its items, most of them items that were not wanted.
#[derive(Debug, Default)]
pub(crate) struct Projection {
    words: Vec<u32>,
    /// Per row kept, its index among the rows given.
    sources: Vec<u32>,
    /// Pairs `(x, y)`, `x` before `y` in a row, counted with repetition.
    pairs: u64,
    /// `after[start[x]..start[x + 1]]`: the places after local item `x`.
    start: Vec<usize>,
    after: Vec<u32>,
}

impl Projection {
    /// Projects `rows` (each in the order its pairs are to be read): `local(item)` is one more
    /// than the item's local index, or 0 to leave it out. `None` when the projection would take
    /// more than `limit` words (or [`PROJECTION_LIMIT`]), or a local index does not fit below
    /// [`ROW_END`].
    pub fn new<'a>(
        rows: impl IntoIterator<Item = &'a [u32]>,
        mut local: impl FnMut(u32) -> u32,
        limit: usize,
    ) -> Option<Self> {
        let limit = limit.min(PROJECTION_LIMIT);
        let mut p = Self::default();
        // Per local index, one more than it: how many places follow it (then where they start).
        let mut counts = vec![0usize];
        for (source, row) in rows.into_iter().enumerate() {
            let from = p.words.len();
            for &x in row {
                let l = local(x);
                if l > ROW_END {
                    return None;
                }
                if l != 0 {
                    p.words.push(l - 1);
                    if counts.len() <= l as usize {
                        counts.resize(l as usize + 1, 0);
                    }
                }
            }
            if p.words.len() - from < 2 {
                // No pair in it.
                p.words.truncate(from);
                continue;
            }
            if p.words.len() >= limit {
                return None;
            }
            // Every item but the row's last has a successor here.
            for &x in &p.words[from..p.words.len() - 1] {
                counts[x as usize + 1] += 1;
            }
            let kept = (p.words.len() - from) as u64;
            p.pairs += kept * (kept - 1) / 2;
            p.words.push(ROW_END | p.sources.len() as u32);
            p.sources.push(u32::try_from(source).ok()?);
        }
        let locals = counts.len() - 1;
        for x in 0..locals {
            counts[x + 1] += counts[x];
        }
        let mut cursor = counts[..locals].to_vec();
        p.after = vec![0u32; counts[locals]];
        for (at, pair) in p.words.windows(2).enumerate() {
            if pair[0] & ROW_END == 0 && pair[1] & ROW_END == 0 {
                let x = pair[0] as usize;
                p.after[cursor[x]] = at as u32 + 1;
                cursor[x] += 1;
            }
        }
        p.start = counts;
        Some(p)
    }

    /// The pairs `(x, y)`, `x` before `y` in a row, counted once per row holding them: the
    /// followers [`each_after`](Self::each_after) visits over all items.
    pub fn pairs(&self) -> u64 {
        self.pairs
    }

    /// The rows kept, as indices among the rows given.
    pub fn sources(&self) -> &[u32] {
        &self.sources
    }

    /// For each kept row where local item `x` has a successor (none when `x` is in no row kept): `follower(y)` for each item `y`
    /// after it, then `end(place, row)` with the place after `x` (for [`following`]) and the
    /// row's index in [`sources`](Self::sources).
    ///
    /// [`following`]: Self::following
    #[inline]
    pub fn each_after(
        &self,
        x: usize,
        mut follower: impl FnMut(u32),
        mut end: impl FnMut(usize, usize),
    ) {
        let Some(&[first, past]) = self.start.get(x..x + 2) else { return };
        for &from in &self.after[first..past] {
            let from = from as usize;
            for &y in &self.words[from..] {
                if y & ROW_END != 0 {
                    end(from, (y & !ROW_END) as usize);
                    break;
                }
                follower(y);
            }
        }
    }

    /// The items of a row from `place` (as [`each_after`](Self::each_after) gave it) to its
    /// end.
    pub fn following(&self, place: usize) -> impl Iterator<Item = u32> + '_ {
        self.words[place..].iter().copied().take_while(|&y| y & ROW_END == 0)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::Projection;

    proptest! {
        /// Each local item's followers are those after it in the rows given (less the items
        /// left out), row by row; rows with fewer than two items kept are not kept; a limit
        /// below the words needed refuses.
        #[test]
        fn followers_are_the_items_after(
            rows in prop::collection::vec(prop::collection::btree_set(0u32..20, 0..8), 0..30),
            left_out in prop::collection::btree_set(0u32..20, 0..6),
        ) {
            let rows: Vec<Vec<u32>> = rows.into_iter().map(|r| r.into_iter().collect()).collect();
            let local = |x: u32| if left_out.contains(&x) { 0 } else { x + 1 };
            let p = Projection::new(rows.iter().map(Vec::as_slice), local, usize::MAX).unwrap();
            let kept: Vec<Vec<u32>> = rows
                .iter()
                .map(|r| r.iter().copied().filter(|x| !left_out.contains(x)).collect())
                .collect();
            let expected_sources: Vec<u32> =
                (0..rows.len() as u32).filter(|&i| kept[i as usize].len() >= 2).collect();
            prop_assert_eq!(p.sources(), expected_sources.as_slice());
            for x in 0..20u32 {
                let mut expected = Vec::new();
                for (i, r) in kept.iter().enumerate() {
                    if let Some(at) = r.iter().position(|&y| y == x)
                        && at + 1 < r.len()
                    {
                        expected.push((i as u32, r[at + 1..].to_vec()));
                    }
                }
                let mut found = Vec::new();
                let followers = std::cell::RefCell::new(Vec::new());
                p.each_after(x as usize, |y| followers.borrow_mut().push(y), |place, row| {
                    let seen = std::mem::take(&mut *followers.borrow_mut());
                    assert_eq!(p.following(place).collect::<Vec<_>>(), seen);
                    found.push((p.sources()[row], seen));
                });
                prop_assert_eq!(found, expected, "item {}", x);
            }
            let pairs: usize = kept.iter().map(|r| r.len() * r.len().saturating_sub(1) / 2).sum();
            prop_assert_eq!(p.pairs(), pairs as u64);
            let words: usize = kept.iter().filter(|r| r.len() >= 2).map(|r| r.len() + 1).sum();
            if words > 0 {
                let refused = Projection::new(rows.iter().map(Vec::as_slice), local, words - 1);
                prop_assert!(refused.is_none());
            }
        }
    }
}
