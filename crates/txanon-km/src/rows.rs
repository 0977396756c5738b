//! The row layouts a counting pass reads: rows in one flat buffer, rows packed with their
//! end and weight, and the data generalized by a cut.

use rayon::prelude::*;
use txanon_data::{ItemIndex, ItemLabels, PairBlocks, TransactionDb};

/// Input rows per chunk of [`FlatRows`], and the bits of a row's place in its chunk in its
/// code.
const CHUNK_BITS: u32 = 16;

/// Rows of ranks or ids in chunks, each made on its own and left where it was made: joining
/// them into one buffer was a copy of every row on one core at each pass. A row is named by
/// its code, its chunk's number above its place in the chunk ([`CHUNK_BITS`]).
pub(crate) struct FlatRows {
    chunks: Vec<Chunk>,
}

/// One chunk's rows: row `j` is `flat[ends[j]..ends[j + 1]]`.
struct Chunk {
    flat: Vec<u32>,
    ends: Vec<usize>,
}

impl FlatRows {
    pub(crate) fn len(&self) -> usize {
        self.chunks.iter().map(|c| c.ends.len() - 1).sum()
    }

    /// The row coded `code`.
    pub(crate) fn row(&self, code: u32) -> &[u32] {
        let chunk = &self.chunks[(code >> CHUNK_BITS) as usize];
        let j = (code & ((1 << CHUNK_BITS) - 1)) as usize;
        &chunk.flat[chunk.ends[j]..chunk.ends[j + 1]]
    }

    /// The rows in their order as a database over `labels` (their ids below its length).
    pub(crate) fn into_db(self, labels: ItemLabels) -> TransactionDb {
        let mut ends = Vec::with_capacity(self.len() + 1);
        ends.push(0);
        let mut flat = Vec::with_capacity(self.chunks.iter().map(|c| c.flat.len()).sum());
        for chunk in self.chunks {
            let base = flat.len();
            flat.extend_from_slice(&chunk.flat);
            ends.extend(chunk.ends[1..].iter().map(|&e| base + e));
        }
        TransactionDb::from_parts(ends, flat, labels)
    }

    /// `keyed(row, code)` of every row, in the rows' order, on rayon.
    pub(crate) fn keyed<K: Send + Copy + Default>(
        &self,
        keyed: impl Fn(&[u32], u32) -> K + Sync,
    ) -> Vec<K> {
        // Each chunk fills its own part of one vector.
        let mut all = vec![K::default(); self.len()];
        let mut parts = Vec::with_capacity(self.chunks.len());
        let mut rest: &mut [K] = &mut all;
        for chunk in &self.chunks {
            let (part, after) = std::mem::take(&mut rest).split_at_mut(chunk.ends.len() - 1);
            parts.push(part);
            rest = after;
        }
        parts.into_par_iter().zip(&self.chunks).enumerate().for_each(|(c, (part, chunk))| {
            for (j, slot) in part.iter_mut().enumerate() {
                let code = (c as u32) << CHUNK_BITS | j as u32;
                *slot = keyed(&chunk.flat[chunk.ends[j]..chunk.ends[j + 1]], code);
            }
        });
        all
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

    /// Per rank, the places it holds in the rows, ascending: transposed in blocks of whole
    /// rows on rayon.
    pub(crate) fn places(&self, ranks: usize) -> Places {
        // Each block's even share of the words, its start moved forward to the start of a
        // row: past the first end marker at or after the cut (no rank and no weight equals
        // it), and its weight.
        let len = self.words.len();
        let blocks = ItemIndex::blocks_for(len / 8);
        let mut bounds: Vec<usize> = (0..blocks)
            .map(|b| match b * len / blocks {
                0 => 0,
                cut => {
                    self.words[cut..].iter().position(|&r| r == END).map_or(len, |e| cut + e + 2)
                }
            })
            .collect();
        bounds.push(len);
        Places(ItemIndex::transpose(ranks, &RowBlocks { words: &self.words, bounds }))
    }
}

/// [`PackedRows`] in blocks of whole rows, each pair a rank and a place holding it.
struct RowBlocks<'a> {
    words: &'a [u32],
    /// Block `b` is `words[bounds[b]..bounds[b + 1]]`.
    bounds: Vec<usize>,
}

impl PairBlocks for RowBlocks<'_> {
    fn blocks(&self) -> usize {
        self.bounds.len() - 1
    }

    fn each_pair(&self, block: usize, mut pair: impl FnMut(u32, u32)) {
        let (from, to) = (self.bounds[block], self.bounds[block + 1]);
        let mut weight_next = false;
        for (place, &r) in self.words[from..to].iter().enumerate() {
            if std::mem::take(&mut weight_next) {
                continue;
            }
            if r == END {
                weight_next = true;
            } else {
                // Below 2³²: checked before the search.
                pair(r, (from + place) as u32);
            }
        }
    }
}

/// Per rank, its places in [`PackedRows`].
pub(crate) struct Places(ItemIndex);

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

    pub(crate) fn of(&self, rank: u32) -> &[u32] {
        self.0.transactions(rank)
    }
}

/// The transactions of `db` of at least `min_len` items after mapping each item `i` to
/// `map[i]` (duplicates merged, ascending), in order; with `marked`, only those holding a value
/// it marks. With neither filter, transaction `r`'s code is `r`.
///
/// # Panics
/// With 2³² transactions or more (checked before the search).
pub(crate) fn generalize(
    db: &TransactionDb,
    map: &[u32],
    min_len: usize,
    marked: Option<&[bool]>,
) -> FlatRows {
    // Chunks of transactions generalized on rayon into one flat buffer each: a `Vec` per row
    // was ten million allocations, and sorting them chased a pointer per comparison.
    const CHUNK: usize = 1 << CHUNK_BITS;
    let n = db.len();
    assert!(u32::try_from(n).is_ok(), "rows are coded in 32 bits");
    let chunks: Vec<Chunk> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (mut flat, mut ends) = (Vec::new(), vec![0]);
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
            Chunk { flat, ends }
        })
        .collect();
    FlatRows { chunks }
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
