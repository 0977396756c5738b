//! Whether each column's values in the flattened records are all among the original's, counted
//! with multiplicity: the check against the original once the flattened records are known to
//! hold exactly the table's multisets.
//!
//! Ten million records make tens of millions of values per side, most of them distinct, so a
//! count of one column in one hash map waits on memory at every value. Both sides are read once,
//! every column's value of a record keyed together, and scattered by a hash of the value into
//! partitions small enough that each partition's count stays in a core's cache.

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use txanon_data::TransactionDb;

/// Records read per task at least.
const BLOCK: usize = 1 << 14;
/// Values of one column aimed at per partition: its count, about 25 bytes a distinct value,
/// stays within a core's share of the last-level cache.
const PER_PART: usize = 1 << 16;
/// At most this many partitions per column (a power of two): the scatter writes to every
/// partition of every column at once.
const MAX_PARTS: usize = 128;

/// Each item of a database, by id: its (column, position) in the table.
pub(super) type Places = [Option<(usize, u32)>];

/// How the values of the columns are keyed and partitioned.
pub(super) struct Keying {
    /// `bits[j]`: the bits of one position (plus one) of column `j`.
    bits: Vec<u32>,
    /// Partitions per column, a power of two.
    parts: usize,
}

impl Keying {
    /// For columns of these widths and about `records` records per side; `parts` forces the
    /// number of partitions (a power of two), as the tests do.
    pub(super) fn new(widths: &[usize], records: usize, parts: Option<usize>) -> Self {
        let bits =
            widths.iter().map(|&w| (u64::BITS - (w as u64).leading_zeros()).max(1)).collect();
        let parts = parts.unwrap_or_else(|| (records / PER_PART).clamp(1, MAX_PARTS));
        // The power of two at most `parts`.
        Keying { bits, parts: 1 << parts.ilog2() }
    }

    /// `value` of column `j` as one word: each position plus one in `bits[j]` bits, so that no
    /// digit is zero and values of different lengths differ; `None` when it does not fit.
    fn key(&self, j: usize, value: impl ExactSizeIterator<Item = u32>) -> Option<u64> {
        let bits = self.bits[j];
        if value.len() as u64 * u64::from(bits) > u64::from(u64::BITS) {
            return None;
        }
        // Shifting in two steps keeps a 64-bit digit (a column of 2⁶⁴ − 1 items) defined.
        Some(value.fold(0u64, |key, k| ((key << (bits - 1)) << 1) | (u64::from(k) + 1)))
    }

    fn part_of_key(&self, key: u64) -> usize {
        spread(key) as usize & (self.parts - 1)
    }

    fn part_of_long(&self, value: impl ExactSizeIterator<Item = u32>) -> usize {
        let h = value.len() as u64;
        let h = value.fold(h, |h, k| spread(h ^ u64::from(k)));
        h as usize & (self.parts - 1)
    }
}

/// A 64-bit mixer (splitmix64's finalizer), unlike the count maps' own hash: the keys of one
/// partition still spread over a map's slots.
fn spread(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// One side's values, by column and partition (`j * parts + p`): the values that fit in a word
/// as keys, the others in an arena as their length followed by their positions.
struct Scattered {
    short: Vec<Vec<u64>>,
    long: Vec<Vec<u32>>,
}

/// Every record's value in every column, scattered in a few ranges of records per thread;
/// `None` if an item of `db` is in no column.
fn scatter(
    db: &TransactionDb,
    at: &Places,
    keying: &Keying,
    columns: usize,
) -> Option<Vec<Scattered>> {
    let cells = columns * keying.parts;
    let ranges = (rayon::current_num_threads() * 4).min(db.len().div_ceil(BLOCK)).max(1);
    let per_range = db.len().div_ceil(ranges);
    (0..ranges)
        .into_par_iter()
        .map(|range| {
            let records = range * per_range..db.len().min((range + 1) * per_range);
            // Each record adds one value to one partition of each column: the keys' room
            // reserved once, with some slack, rather than grown by copies.
            let room = records.len() / keying.parts + records.len() / keying.parts / 16 + 16;
            let mut out = Scattered {
                short: (0..cells).map(|_| Vec::with_capacity(room)).collect(),
                long: vec![Vec::new(); cells],
            };
            let mut places: Vec<u64> = Vec::new();
            for r in records {
                places.clear();
                for &i in db.transaction(r) {
                    let (j, k) = at[i as usize]?;
                    places.push((j as u64) << 32 | u64::from(k));
                }
                places.sort_unstable();
                let mut rest = &places[..];
                for j in 0..columns {
                    let here = rest.iter().take_while(|&&x| (x >> 32) as usize == j).count();
                    let value = rest[..here].iter().map(|&x| x as u32);
                    rest = &rest[here..];
                    match keying.key(j, value.clone()) {
                        Some(key) => {
                            out.short[j * keying.parts + keying.part_of_key(key)].push(key)
                        }
                        None => {
                            let long = &mut out.long
                                [j * keying.parts + keying.part_of_long(value.clone())];
                            long.push(here as u32);
                            long.extend(value);
                        }
                    }
                }
            }
            Some(out)
        })
        .collect()
}

/// Each value of an arena of lengths and positions.
fn values(arena: &[u32]) -> impl Iterator<Item = &[u32]> {
    let mut rest = arena;
    std::iter::from_fn(move || {
        let (&len, tail) = rest.split_first()?;
        let (value, tail) = tail.split_at(len as usize);
        rest = tail;
        Some(value)
    })
}

/// Whether some column holds a value more often in `flattened` than in `original` (or an item
/// of either is in no column of `at`/`at_flattened`); `widths` are the columns' item counts.
pub(super) fn falls_short(
    widths: &[usize],
    original: &TransactionDb,
    at: &Places,
    flattened: &TransactionDb,
    at_flattened: &Places,
    parts: Option<usize>,
) -> bool {
    let keying = Keying::new(widths, original.len().max(flattened.len()), parts);
    let columns = widths.len();
    let (supply, demand) = rayon::join(
        || scatter(original, at, &keying, columns),
        || scatter(flattened, at_flattened, &keying, columns),
    );
    let (Some(supply), Some(demand)) = (supply, demand) else { return true };
    (0..columns * keying.parts).into_par_iter().any(|cell| {
        let held: usize = supply.iter().map(|s| s.short[cell].len()).sum();
        let mut counts: FxHashMap<u64, u64> =
            FxHashMap::with_capacity_and_hasher(held, Default::default());
        for key in supply.iter().flat_map(|s| &s.short[cell]) {
            *counts.entry(*key).or_default() += 1;
        }
        let short =
            demand.iter().flat_map(|d| &d.short[cell]).any(|key| match counts.get_mut(key) {
                Some(left) if *left > 0 => {
                    *left -= 1;
                    false
                }
                _ => true,
            });
        if short {
            return true;
        }
        let mut counts: FxHashMap<&[u32], u64> = FxHashMap::default();
        for value in supply.iter().flat_map(|s| values(&s.long[cell])) {
            *counts.entry(value).or_default() += 1;
        }
        demand.iter().flat_map(|d| values(&d.long[cell])).any(|value| match counts.get_mut(value) {
            Some(left) if *left > 0 => {
                *left -= 1;
                false
            }
            _ => true,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// Every value of at most `fits` positions of a column keyed apart from every other, at the
    /// edges of its width: distinct values never share a key, and longer ones find no key.
    #[test]
    fn keys_keep_distinct_values_apart() {
        for width in [1usize, 2, 3, 7, 8, 1000, 1 << 20, u32::MAX as usize] {
            let keying = Keying::new(&[width], 1, None);
            let bits = keying.bits[0] as usize;
            let fits = 64 / bits;
            let top = (width - 1) as u32;
            let edge: Vec<u32> = [0, 1, top / 2, top.saturating_sub(1), top]
                .into_iter()
                .filter(|&k| k <= top)
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let values = crate::audit::tests::ascending_values(&edge, fits.min(4) + 1);
            let mut seen = BTreeMap::new();
            for v in &values {
                match keying.key(0, v.iter().copied()) {
                    Some(key) => {
                        assert!(v.len() <= fits, "width {width}: {v:?} keyed past {fits}");
                        if let Some(other) = seen.insert(key, v.clone()) {
                            panic!("width {width}: {v:?} and {other:?} share key {key}");
                        }
                    }
                    None => assert!(v.len() > fits, "width {width}: {v:?} fits"),
                }
            }
        }
    }

    /// The last position of column 2, as wide as a column can be.
    const TOP: (usize, u32) = (2, u32::MAX);

    /// Records as rows of item ids: item `3r + c` is position `r` of column `c`, item 30 is
    /// [`TOP`].
    fn records(rows: &[Vec<(usize, u32)>]) -> TransactionDb {
        let id = |(c, k): (usize, u32)| if (c, k) == TOP { 30 } else { k * 3 + c as u32 };
        TransactionDb::from_int_transactions(
            rows.iter().map(|row| row.iter().map(|&x| id(x)).collect::<Vec<_>>()),
        )
    }

    fn places(db: &TransactionDb) -> Vec<Option<(usize, u32)>> {
        (0..db.num_items() as u32)
            .map(|i| {
                let id: u32 = db.label(i).to_string().parse().expect("an integer label");
                Some(if id == 30 { TOP } else { ((id % 3) as usize, id / 3) })
            })
            .collect()
    }

    /// The multiset of each column's values, by brute force.
    fn column_values(rows: &[Vec<(usize, u32)>]) -> BTreeMap<(usize, Vec<u32>), u64> {
        let mut counts = BTreeMap::new();
        for row in rows {
            for j in 0..3 {
                let mut value: Vec<u32> =
                    row.iter().filter(|&&(c, _)| c == j).map(|&(_, k)| k).collect();
                value.sort_unstable();
                value.dedup();
                *counts.entry((j, value)).or_insert(0) += 1;
            }
        }
        counts
    }

    /// The verdict equals brute force's, in one partition and in eight, with values that fit
    /// a word and values that do not (column 2 is 2³² wide: two of its positions do not fit),
    /// over label spaces of their own as two files have; the flattened side is the original's
    /// columns dealt to its records in a random order (never short), then maybe one record
    /// replaced, or one item of it replaced, added or dropped (short when that adds a value,
    /// often one position away from a value the original holds). At least a fifth of the cases are short, and a
    /// tenth hold values that fit no word in eight partitions.
    #[test]
    fn the_verdict_is_brute_forces() {
        use proptest::prelude::*;
        use rand::{SeedableRng, seq::SliceRandom};
        #[derive(Debug, Clone)]
        enum Edit {
            Row(Vec<(usize, u32)>),
            /// Item `i` of the record replaced (added past its end): a value one position off.
            Item(usize, (usize, u32)),
            Drop(usize),
        }
        let item = || prop_oneof![(0usize..2, 0u32..4), (Just(2usize), 0u32..6), Just(TOP)];
        let row = || prop::collection::vec(item(), 0..9);
        let edit = prop_oneof![
            row().prop_map(Edit::Row),
            (0usize..9, item()).prop_map(|(i, x)| Edit::Item(i, x)),
            (0usize..9).prop_map(Edit::Drop),
        ];
        let strategy = (
            prop::collection::vec(row(), 1..40),
            prop::option::of((0usize..40, edit)),
            any::<u64>(),
            prop_oneof![Just(1usize), Just(8)],
        );
        let long = std::sync::atomic::AtomicU32::new(0);
        let exercised =
            txanon_testkit::exercised(400, strategy, |(original, edit, seed, parts)| {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                let mut columns: Vec<Vec<Vec<(usize, u32)>>> = (0..3)
                    .map(|j| {
                        original
                            .iter()
                            .map(|r| r.iter().copied().filter(|&(c, _)| c == j).collect())
                            .collect()
                    })
                    .collect();
                for column in &mut columns {
                    column.shuffle(&mut rng);
                }
                let mut flattened: Vec<Vec<(usize, u32)>> = (0..original.len())
                    .map(|r| columns.iter().flat_map(|c| c[r].iter().copied()).collect())
                    .collect();
                if let Some((r, edit)) = edit {
                    let record = &mut flattened[r % original.len()];
                    match edit {
                        Edit::Row(row) => *record = row,
                        Edit::Item(i, x) if i < record.len() => record[i] = x,
                        Edit::Item(_, x) => record.push(x),
                        Edit::Drop(i) if i < record.len() => drop(record.remove(i)),
                        Edit::Drop(_) => (),
                    }
                }
                let (supply, demand) = (column_values(&original), column_values(&flattened));
                let expected =
                    demand.iter().any(|(value, n)| supply.get(value).copied().unwrap_or(0) < *n);
                let (o, f) = (records(&original), records(&flattened));
                let widths = [4, 4, 1 << 32];
                let found = falls_short(&widths, &o, &places(&o), &f, &places(&f), Some(parts));
                prop_assert_eq!(found, expected);
                if parts > 1 && demand.keys().any(|(j, v)| *j == 2 && v.len() > 1) {
                    long.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                Ok(expected)
            });
        let long = long.into_inner();
        assert!(
            long * 10 >= exercised.cases,
            "{long} of {} cases with long values",
            exercised.cases
        );
        exercised.at_least(0.2, "short");
    }
}
