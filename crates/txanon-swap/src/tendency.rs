//! A record's personal tendency: the paper's weights `WR`, its mean tendency value `MTV`, and
//! Algorithm 1's choice of the items to move.

use txanon_data::ItemId;

/// What a record reveals of its owner's tendency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tendency {
    /// Some category weighs more than the mean `MTV(t) = |t| / (categories in t)`; the heaviest
    /// (the smallest category id among equally heavy ones) is the tendency (Algorithm 1).
    Category(u32),
    /// More than one item, all of one category: weight equal to `MTV`, so Algorithm 1 selects
    /// nothing, but the record shows one interest only (the full swapping of Algorithm 4).
    Single(u32),
    /// No category above the mean (every weight equal), or fewer than two items.
    None,
}

/// The categories of record `t` tied for the heaviest weight, ascending, when there are
/// several and they weigh more than the mean (a [`Tendency::Category`] with a tie); empty
/// otherwise.
pub fn tied_categories(t: &[ItemId], category_of: &[u32], scratch: &mut Vec<u32>) -> Vec<u32> {
    scratch.clear();
    scratch.extend(t.iter().map(|&i| category_of[i as usize]));
    scratch.sort_unstable();
    let runs: Vec<(u32, usize)> =
        scratch.chunk_by(|a, b| a == b).map(|r| (r[0], r.len())).collect();
    let heaviest = runs.iter().map(|r| r.1).max().unwrap_or(0);
    let tied: Vec<u32> = runs.iter().filter(|r| r.1 == heaviest).map(|r| r.0).collect();
    if tied.len() >= 2 && heaviest * runs.len() > t.len() { tied } else { Vec::new() }
}

/// The categories the paper's definition names as record `t`'s tendency: every category tied
/// for the heaviest weight when that weight is above the mean `|t| / (categories in t)` (one,
/// without a tie); empty when no category is (a record of one category included, whose
/// weight equals the mean).
pub fn heaviest_categories(t: &[ItemId], category_of: &[u32], scratch: &mut Vec<u32>) -> Vec<u32> {
    let tied = tied_categories(t, category_of, scratch);
    if !tied.is_empty() {
        return tied;
    }
    match tendency_of(t, category_of, scratch) {
        Tendency::Category(c) => vec![c],
        Tendency::Single(_) | Tendency::None => Vec::new(),
    }
}

/// The tendency of record `t` (ascending item ids) under the item → category map
/// `category_of`. `scratch` is reused between calls (its content does not matter).
pub fn tendency_of(t: &[ItemId], category_of: &[u32], scratch: &mut Vec<u32>) -> Tendency {
    if t.len() < 2 {
        return Tendency::None;
    }
    scratch.clear();
    scratch.extend(t.iter().map(|&i| category_of[i as usize]));
    scratch.sort_unstable();
    let (mut categories, mut best, mut best_weight, mut run) = (0usize, 0u32, 0usize, 0usize);
    for (k, &c) in scratch.iter().enumerate() {
        run += 1;
        if k + 1 == scratch.len() || scratch[k + 1] != c {
            categories += 1;
            // Strictly heavier only: ascending ids make the first of equals the smallest.
            if run > best_weight {
                (best, best_weight) = (c, run);
            }
            run = 0;
        }
    }
    if categories == 1 {
        Tendency::Single(best)
    } else if best_weight * categories > t.len() {
        // WR > MTV ⇔ WR · (number of categories) > |t|, in integers.
        Tendency::Category(best)
    } else {
        Tendency::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_against_the_mean() {
        // Categories: items 0-2 → 0, 3-5 → 1, 6-8 → 2.
        let cats = [0, 0, 0, 1, 1, 1, 2, 2, 2];
        let mut s = Vec::new();
        // {0, 1, 3}: weights 2 and 1, MTV 1.5: category 0.
        assert_eq!(tendency_of(&[0, 1, 3], &cats, &mut s), Tendency::Category(0));
        // {0, 3}: 1 and 1 = MTV: nothing.
        assert_eq!(tendency_of(&[0, 3], &cats, &mut s), Tendency::None);
        // {0, 1, 3, 4, 6}: 2, 2, 1, MTV 5/3: both above, the smaller id.
        assert_eq!(tendency_of(&[0, 1, 3, 4, 6], &cats, &mut s), Tendency::Category(0));
        // {3, 4, 5}: one category.
        assert_eq!(tendency_of(&[3, 4, 5], &cats, &mut s), Tendency::Single(1));
        assert_eq!(tendency_of(&[3], &cats, &mut s), Tendency::None);
    }

    #[test]
    fn ties_above_the_mean_only() {
        let cats = [0, 0, 0, 1, 1, 1, 2, 2, 2];
        let mut s = Vec::new();
        // 2, 2, 1 against 5/3: categories 0 and 1 tie.
        assert_eq!(tied_categories(&[0, 1, 3, 4, 6], &cats, &mut s), [0, 1]);
        // 2, 1: no tie.
        assert!(tied_categories(&[0, 1, 3], &cats, &mut s).is_empty());
        // 1, 1: tied, but not above the mean.
        assert!(tied_categories(&[0, 3], &cats, &mut s).is_empty());
        // 2, 2, 2: every weight equals the mean.
        assert!(tied_categories(&[0, 1, 3, 4, 6, 7], &cats, &mut s).is_empty());
    }
}
