//! The row layouts a counting pass reads: rows in one flat buffer, rows packed with their
//! end and weight, and the data generalized by a cut.

use rayon::prelude::*;
use txanon_data::TransactionDb;

/// Rows of ranks or ids in one buffer.
pub(crate) struct FlatRows {
    pub(crate) flat: Vec<u32>,
    /// Row `j` is `flat[ends[j]..ends[j + 1]]`.
    pub(crate) ends: Vec<usize>,
}

impl FlatRows {
    pub(crate) fn len(&self) -> usize {
        self.ends.len() - 1
    }

    pub(crate) fn row(&self, j: usize) -> &[u32] {
        &self.flat[self.ends[j]..self.ends[j + 1]]
    }
}

/// The cache lines of each row [`PackedRows::tails`] fetches ahead: at kosarak-shaped 10⁷
/// rows, km's run took 91–95 s of CPU fetching none, 84 s one, 80–83 s three
/// (docs/PERFORMANCE.md, km).
pub(crate) const FETCH_LINES: usize = 3;

/// Marks a row's end in [`PackedRows`]; no rank reaches it.
pub(crate) const END: u32 = u32::MAX;

/// Rows of ranks with their multiplicities, each stored as its ranks, [`END`] and the
/// multiplicity: from any place in a row, its tail and weight are the next words, one fetch
/// where separate row bounds and weights were three cache misses per row a branch read.
#[derive(Default)]
pub(crate) struct PackedRows {
    pub(crate) words: Vec<u32>,
}

impl PackedRows {
    pub(crate) fn push(&mut self, row: &[u32], weight: u32) {
        debug_assert!(row.iter().all(|&r| r != END));
        self.words.extend_from_slice(row);
        self.words.push(END);
        self.words.push(weight);
    }

    pub(crate) fn add_to_last(&mut self, weight: u32) {
        *self.words.last_mut().expect("a row pushed") += weight;
    }

    /// The rows and their multiplicities, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&[u32], u32)> {
        let mut from = 0;
        std::iter::from_fn(move || {
            let end = from + self.words[from..].iter().position(|&r| r == END)?;
            let row = (&self.words[from..end], self.words[end + 1]);
            from = end + 2;
            Some(row)
        })
    }

    /// The ranks after the one at `place`, and the row's multiplicity.
    pub(crate) fn tail(&self, place: usize) -> (&[u32], u32) {
        let from = place + 1;
        let end =
            from + self.words[from..].iter().position(|&r| r == END).expect("every row is ended");
        (&self.words[from..end], self.words[end + 1])
    }

    /// [`PackedRows::tail`] of each of `places` in turn, the rows' first [`FETCH_LINES`] cache
    /// lines fetched a batch ahead ([`txanon_data::fetch`]).
    pub(crate) fn tails<'s>(
        &'s self,
        places: &'s [u32],
    ) -> impl Iterator<Item = (&'s [u32], u32)> + 's {
        txanon_data::fetch::fetched_ahead(places, |p| &self.words[p as usize..], FETCH_LINES)
            .map(|p| self.tail(p as usize))
    }

    /// Per rank, the places it holds in the rows, ascending.
    pub(crate) fn places(&self, ranks: usize) -> Places {
        let mut starts = vec![0usize; ranks + 1];
        let mut weight_next = false;
        for &r in &self.words {
            if std::mem::take(&mut weight_next) {
                continue;
            }
            if r == END {
                weight_next = true;
            } else {
                starts[r as usize + 1] += 1;
            }
        }
        for a in 0..ranks {
            starts[a + 1] += starts[a];
        }
        let mut next = starts[..ranks].to_vec();
        let mut at = vec![0u32; starts[ranks]];
        let mut weight_next = false;
        for (place, &r) in self.words.iter().enumerate() {
            if std::mem::take(&mut weight_next) {
                continue;
            }
            if r == END {
                weight_next = true;
            } else {
                // Below 2³²: checked before the search.
                at[next[r as usize]] = place as u32;
                next[r as usize] += 1;
            }
        }
        Places { starts, at }
    }
}

/// Per rank, its places in [`PackedRows`].
pub(crate) struct Places {
    pub(crate) starts: Vec<usize>,
    pub(crate) at: Vec<u32>,
}

impl Places {
    /// The ranks whose count-tree branches a pass counts, in rank order: those some row holds,
    /// and in a recount (`fresh`) none past the last fresh rank, whose branches hold no fresh
    /// itemset.
    pub(crate) fn branches(&self, ranks: usize, fresh: Option<&[bool]>) -> Vec<u32> {
        let last = fresh.map_or(Some(ranks), |f| f.iter().rposition(|&x| x));
        (0..ranks as u32)
            .filter(|&a| last.is_some_and(|last| a as usize <= last) && !self.of(a).is_empty())
            .collect()
    }
}

impl Places {
    pub(crate) fn of(&self, rank: u32) -> &[u32] {
        &self.at[self.starts[rank as usize]..self.starts[rank as usize + 1]]
    }
}

/// The transactions of `db` of at least `min_len` items after mapping each item `i` to
/// `map[i]` (duplicates merged, ascending), in order, in one buffer; with `marked`, only those
/// holding a value it marks.
pub(crate) fn generalize(
    db: &TransactionDb,
    map: &[u32],
    min_len: usize,
    marked: Option<&[bool]>,
) -> FlatRows {
    // Chunks of transactions generalized on rayon into one flat buffer each: a `Vec` per row
    // was ten million allocations, and sorting them chased a pointer per comparison.
    const CHUNK: usize = 1 << 16;
    let n = db.len();
    let chunks: Vec<(Vec<u32>, Vec<usize>)> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (mut flat, mut ends) = (Vec::new(), Vec::new());
            for r in c * CHUNK..n.min((c + 1) * CHUNK) {
                let t = db.transaction(r);
                if t.len() < min_len {
                    continue;
                }
                let from = flat.len();
                flat.extend(t.iter().map(|&i| map[i as usize]));
                flat[from..].sort_unstable();
                let kept = dedup_sorted(&mut flat[from..]);
                flat.truncate(from + kept);
                let unmarked = marked.is_some_and(|m| !flat[from..].iter().any(|&v| m[v as usize]));
                if kept < min_len || unmarked {
                    flat.truncate(from);
                } else {
                    ends.push(flat.len());
                }
            }
            (flat, ends)
        })
        .collect();
    let mut all = FlatRows { flat: Vec::new(), ends: vec![0] };
    for (flat, ends) in chunks {
        let base = all.flat.len();
        all.flat.extend_from_slice(&flat);
        all.ends.extend(ends.iter().map(|&e| base + e));
    }
    all
}

/// Keeps the first of each run of equal values of `sorted` at its front; returns how many.
pub(crate) fn dedup_sorted(sorted: &mut [u32]) -> usize {
    let mut kept = 0;
    for j in 0..sorted.len() {
        if kept == 0 || sorted[j] != sorted[kept - 1] {
            sorted[kept] = sorted[j];
            kept += 1;
        }
    }
    kept
}
