//! The graphs over transactions that RCM reorders: the pattern of A·Aᵀ, walked through the items
//! without being built, and explicit symmetric patterns such as A + Aᵀ of the padded matrix.

use nalgebra_sparse::pattern::SparsityPattern;
use rayon::prelude::*;
use txanon_data::fetch::{FIRST_LINE, fetched_ahead};
use txanon_data::{ItemId, ItemIndex, TransactionDb};

/// Bandwidth and profile of a symmetric pattern under an ordering.
///
/// With `π(v)` the position of vertex `v`: the bandwidth is the largest `|π(u) − π(v)|` over
/// the edges; the profile (envelope size) is `Σ_v (π(v) − f_v)`, where `f_v` is the smallest
/// position among `v` and its neighbours, the lower envelope of the symmetric matrix row by row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Envelope {
    /// Largest distance in the ordering between two adjacent vertices.
    pub bandwidth: u64,
    /// Sum over rows of the distance from the first non-zero of the row to the diagonal.
    pub profile: u64,
}

/// Scratch space of searches over a pattern: a vertex (or item) is marked when its stamp equals
/// the search's epoch, so a new search costs no clearing; marked vertices and items can carry a
/// value (a position, a span) for the same reason.
#[derive(Debug, Clone)]
pub struct SearchState {
    epoch: u32,
    vertices: Vec<u32>,
    items: Vec<u32>,
    values: Vec<u32>,
    spans: Vec<(u32, u32)>,
}

impl SearchState {
    /// Stamps for `vertices` vertices and `items` items (0 for explicit graphs).
    pub fn new(vertices: usize, items: usize) -> Self {
        Self {
            epoch: 1,
            vertices: vec![0; vertices],
            items: vec![0; items],
            values: vec![0; vertices],
            spans: vec![(0, 0); items],
        }
    }

    /// Marks `vertices` in a new search, each with its index in the slice as value.
    fn number(&mut self, vertices: &[u32]) {
        self.restart();
        for (k, &v) in vertices.iter().enumerate() {
            self.mark(v);
            self.values[v as usize] = k as u32;
        }
    }

    /// Starts a new search: nothing is marked.
    pub fn restart(&mut self) {
        self.epoch += 1;
    }

    /// Marks `v`; false if it was already marked in this search.
    pub fn mark(&mut self, v: u32) -> bool {
        let slot = &mut self.vertices[v as usize];
        let fresh = *slot != self.epoch;
        *slot = self.epoch;
        fresh
    }

    /// True when `v` is marked in this search.
    pub fn is_marked(&self, v: u32) -> bool {
        self.vertices[v as usize] == self.epoch
    }

    fn mark_item(&mut self, i: ItemId) -> bool {
        let slot = &mut self.items[i as usize];
        let fresh = *slot != self.epoch;
        *slot = self.epoch;
        fresh
    }
}

/// What a search over a pattern needs: the crate's internals, in a module no other crate can
/// name, so that [`Pattern`] is sealed (its implementations are this crate's two graphs) and
/// these methods stay out of the public surface.
pub(crate) mod walk {
    use super::{Envelope, SearchState};

    /// The breadth-first walk of reverse Cuthill-McKee.
    pub trait Walk {
        /// Fresh search stamps sized for this pattern.
        fn search_state(&self) -> SearchState;

        /// Appends to `out`, and marks, every neighbour of `v` not yet marked in `state`.
        /// Within one breadth-first search (every vertex expanded at most once, after being
        /// marked) the appended vertices are exactly `v`'s unmarked neighbours.
        fn expand(&self, v: u32, state: &mut SearchState, out: &mut Vec<u32>);

        /// Bandwidth and profile of the subgraph on `vertices` (a union of connected
        /// components), with `vertices[k]` at position `k`. `state` is scratch space (its marks
        /// are lost).
        fn envelope_of(&self, vertices: &[u32], state: &mut SearchState) -> Envelope;
    }
}

/// A symmetric sparsity pattern over vertices `0..order()`: what reverse Cuthill-McKee needs of
/// a graph, and what bandwidth and profile are measured on. Sealed: [`SharedItems`] and
/// [`Explicit`] are its implementations.
pub trait Pattern: Sync + walk::Walk {
    /// Number of vertices.
    fn order(&self) -> usize;

    /// The degree of every vertex: its neighbours other than itself.
    fn degrees(&self) -> Vec<u32>;

    /// [`Pattern::degrees`], stopped by a cancelled `progress` (see
    /// [`Progress::checkpoint`](txanon_data::progress::Progress::checkpoint)): seconds of work
    /// on a large implicit `A·Aᵀ`, with nothing to count meanwhile.
    fn degrees_cancellable(&self, progress: Option<&txanon_data::progress::Progress>) -> Vec<u32> {
        if let Some(p) = progress {
            p.checkpoint();
        }
        self.degrees()
    }

    /// What [`Pattern::degrees`] costs at most, in visits, which [`reverse_cuthill_mckee`](crate::reverse_cuthill_mckee)
    /// weighs against [`EXACT_DEGREE_WORK`](crate::EXACT_DEGREE_WORK): `Σ sup(i)²` over the kept
    /// items of `A·Aᵀ`, the stored entries of an explicit pattern.
    fn degree_work(&self) -> u128;

    /// A cheap stand-in for [`Pattern::degrees`] where exact degrees cost more than the
    /// ordering itself, for [`Ranking::Estimated`](crate::Ranking::Estimated): RCM needs the
    /// vertices' ranking, not their exact degrees. The exact degrees unless the pattern says
    /// otherwise.
    fn estimated_degrees(&self) -> Vec<u64> {
        self.degrees().into_iter().map(u64::from).collect()
    }

    /// Bandwidth and profile when vertex `v` sits at `position[v]`: the envelope of every
    /// vertex, listed by position.
    ///
    /// # Complexity
    /// `O(n)` for the listing, then the walk's: `O(Σ|t| + m)` for [`SharedItems`] (the bandwidth
    /// is the widest span of one item's positions, and a row's first non-zero the smallest
    /// span start among its items), `O(nnz)` for [`Explicit`].
    ///
    /// # Panics
    /// When `position` is not a permutation of `0..order()`.
    fn envelope(&self, position: &[u32]) -> Envelope {
        assert_eq!(position.len(), self.order(), "one position per vertex");
        let mut vertices = vec![u32::MAX; position.len()];
        for (v, &p) in position.iter().enumerate() {
            vertices[p as usize] = v as u32;
        }
        assert!(vertices.iter().all(|&v| v != u32::MAX), "not a permutation");
        self.envelope_of(&vertices, &mut self.search_state())
    }

    /// The pattern under the ordering, downsampled to `cells × cells`: cell `(a, b)` counts
    /// the edges `(u, v)` (both directions, with the diagonal) with `π(u)` in row block `a` and
    /// `π(v)` in column block `b`; for [`SharedItems`] an edge counts once per shared item.
    fn density(&self, position: &[u32], cells: usize) -> Vec<Vec<u64>>;
}

/// The transaction similarity graph of CAHD: two transactions are adjacent when they share an
/// item of `keep` (the QID items), the pattern of `A·Aᵀ` with `A` restricted to those items.
///
/// The graph is never built: `A·Aᵀ` of BMS-WebView-1 has about 136 million non-zeros, and a
/// transaction's neighbours are simply the transactions of its items. A breadth-first search
/// scans each item's transactions once, when the first transaction holding the item is
/// expanded (all of them become marked then), so a whole search costs `O(Σ|t|)`, not the
/// `O(nnz(A·Aᵀ))` of an explicit graph.
#[derive(Debug)]
pub struct SharedItems<'a> {
    db: &'a TransactionDb,
    keep: Vec<bool>,
    index: ItemIndex,
}

impl<'a> SharedItems<'a> {
    /// The graph of `db` over the items with `keep[i]` true.
    ///
    /// # Panics
    /// When `keep` is not one flag per item of `db`.
    pub fn new(db: &'a TransactionDb, keep: Vec<bool>) -> Self {
        assert_eq!(keep.len(), db.num_items(), "one flag per item");
        Self { db, keep, index: ItemIndex::new(db) }
    }

    /// The graph over every item of `db`.
    pub fn all_items(db: &'a TransactionDb) -> Self {
        Self::new(db, vec![true; db.num_items()])
    }

    fn kept(&self, t: usize) -> impl Iterator<Item = ItemId> + '_ {
        self.db.transaction(t).iter().copied().filter(|&i| self.keep[i as usize])
    }
}

impl walk::Walk for SharedItems<'_> {
    fn search_state(&self) -> SearchState {
        SearchState::new(self.db.len(), self.db.num_items())
    }

    fn expand(&self, v: u32, state: &mut SearchState, out: &mut Vec<u32>) {
        for i in self.kept(v as usize) {
            if state.mark_item(i) {
                for &u in self.index.transactions(i) {
                    if state.mark(u) {
                        out.push(u);
                    }
                }
            }
        }
    }

    /// One pass over the rows in position order. A row's first non-zero is the smallest first
    /// position among its items, and an item's first position is final once a row holding it
    /// has been seen, so each row's share of the profile is known when the row is read; only
    /// the bandwidth waits for the items' last positions. (Two passes, the spans first, read
    /// every row twice, each a cache miss when the order is far from the input's.) No vertex is
    /// marked: the items carry the state.
    fn envelope_of(&self, vertices: &[u32], state: &mut SearchState) -> Envelope {
        state.restart();
        let mut touched = Vec::new();
        let mut profile = 0u64;
        // Rows are read in the sequence's order, each a cache miss at scale: a batch's first
        // lines are fetched together before it is scanned.
        let rows = fetched_ahead(vertices, |v| self.db.transaction(v as usize), FIRST_LINE);
        for (k, v) in rows.enumerate() {
            let k = k as u32;
            let mut first = k;
            for i in self.kept(v as usize) {
                if state.mark_item(i) {
                    state.spans[i as usize] = (k, k);
                    touched.push(i);
                } else {
                    // Positions only grow: the first stays, the last is this one.
                    let span = &mut state.spans[i as usize];
                    span.1 = k;
                    first = first.min(span.0);
                }
            }
            profile += u64::from(k - first);
        }
        let bandwidth = touched
            .iter()
            .map(|&i| (state.spans[i as usize].1 - state.spans[i as usize].0) as u64)
            .max()
            .unwrap_or(0);
        Envelope { bandwidth, profile }
    }
}

impl Pattern for SharedItems<'_> {
    fn order(&self) -> usize {
        self.db.len()
    }

    fn degree_work(&self) -> u128 {
        (0..self.db.num_items())
            .filter(|&i| self.keep[i])
            .map(|i| u128::from(self.db.supports()[i]).pow(2))
            .sum()
    }

    /// `|∪_{i ∈ t} T(i)| − 1` for each transaction `t` with a kept item, rayon over
    /// transactions. Items held by at least `n/64` transactions (and 64) are kept as bitsets of
    /// the transactions: a transaction holding one gets its neighbourhood as the OR of its
    /// frequent items' bitsets, with its rarer items' transactions set bit by bit, and a
    /// popcount. Other transactions mark their neighbours with their own id in a stamp array
    /// (no clearing between transactions). Stamping alone costs `Σ_i sup(i)²` (the multiplicity
    /// count of `A·Aᵀ`): 5.4·10⁹ on retail, whose most frequent item is in 57% of the
    /// transactions; with the bitsets a transaction costs at most `n/64` words per frequent
    /// item. Extra space: the bitsets, and `n` words (stamps) plus `n/64` words per worker.
    fn degrees(&self) -> Vec<u32> {
        self.degrees_cancellable(None)
    }

    fn degrees_cancellable(&self, progress: Option<&txanon_data::progress::Progress>) -> Vec<u32> {
        let n = self.db.len();
        let words = n.div_ceil(64);
        let frequent_at = (n / 64).max(64);
        let mut bitset_of: Vec<Option<usize>> = vec![None; self.db.num_items()];
        let mut bitsets: Vec<Vec<u64>> = Vec::new();
        for i in 0..self.db.num_items() as ItemId {
            let ts = self.index.transactions(i);
            if self.keep[i as usize] && ts.len() >= frequent_at {
                let mut bits = vec![0u64; words];
                for &u in ts {
                    bits[u as usize / 64] |= 1 << (u % 64);
                }
                bitset_of[i as usize] = Some(bitsets.len());
                bitsets.push(bits);
            }
        }
        (0..n)
            .into_par_iter()
            .with_min_len(1024)
            .map_init(
                || (vec![u32::MAX; n], vec![0u64; words]),
                |(stamp, union), t| {
                    if let Some(p) = progress {
                        p.checkpoint();
                    }
                    let mut frequent = self.kept(t).filter_map(|i| bitset_of[i as usize]);
                    let Some(first) = frequent.next() else {
                        let mut count = 0u32;
                        for i in self.kept(t) {
                            for &u in self.index.transactions(i) {
                                if stamp[u as usize] != t as u32 {
                                    stamp[u as usize] = t as u32;
                                    count += 1;
                                }
                            }
                        }
                        return count.saturating_sub(1);
                    };
                    union.copy_from_slice(&bitsets[first]);
                    for b in frequent {
                        for (w, x) in union.iter_mut().zip(&bitsets[b]) {
                            *w |= x;
                        }
                    }
                    for i in self.kept(t).filter(|&i| bitset_of[i as usize].is_none()) {
                        for &u in self.index.transactions(i) {
                            union[u as usize / 64] |= 1 << (u % 64);
                        }
                    }
                    union.iter().map(|w| w.count_ones()).sum::<u32>() - 1
                },
            )
            .collect()
    }

    /// `Σ_{i ∈ t} (sup(i) − 1)` over the kept items of `t`: the row sum of `A·Aᵀ` less its
    /// diagonal entry, an upper bound of the degree that counts a neighbour once per item it
    /// shares. `O(Σ|t|)`, against the exact degrees' `Σ sup(i)²`.
    fn estimated_degrees(&self) -> Vec<u64> {
        (0..self.db.len())
            .into_par_iter()
            .with_min_len(4096)
            .map(|t| self.kept(t).map(|i| u64::from(self.db.supports()[i as usize]) - 1).sum())
            .collect()
    }

    fn density(&self, position: &[u32], cells: usize) -> Vec<Vec<u64>> {
        let n = self.order().max(1);
        let block = |p: u32| (p as usize * cells / n).min(cells - 1);
        let mut grid = vec![vec![0u64; cells]; cells];
        let mut counts: Vec<(usize, u64)> = Vec::new();
        for i in 0..self.db.num_items() as ItemId {
            if !self.keep[i as usize] {
                continue;
            }
            let mut blocks: Vec<usize> =
                self.index.transactions(i).iter().map(|&t| block(position[t as usize])).collect();
            blocks.sort_unstable();
            counts.clear();
            for run in blocks.chunk_by(|a, b| a == b) {
                counts.push((run[0], run.len() as u64));
            }
            for &(a, ca) in &counts {
                for &(b, cb) in &counts {
                    grid[a][b] += ca * cb;
                }
            }
        }
        grid
    }
}

/// An explicit symmetric pattern: CSR offsets and neighbour lists (a vertex's own entry, if
/// stored, is ignored by degrees and searches).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explicit {
    offsets: Vec<usize>,
    neighbours: Vec<u32>,
}

impl Explicit {
    /// The pattern of a square [`SparsityPattern`] (rows as vertices).
    ///
    /// # Panics
    /// When the pattern is not square or not symmetric (a contract of the caller).
    pub fn from_pattern(pattern: &SparsityPattern) -> Self {
        assert_eq!(pattern.major_dim(), pattern.minor_dim(), "a square pattern");
        let explicit = Self {
            offsets: pattern.major_offsets().to_vec(),
            neighbours: pattern.minor_indices().iter().map(|&j| j as u32).collect(),
        };
        debug_assert!(explicit.is_symmetric(), "a symmetric pattern");
        explicit
    }

    /// The reimplementation's cheaper graph: `A` (transactions × kept items) padded with empty
    /// rows or columns to a square `N × N`, `N = max(n, m)`, then `B = A + Aᵀ`. Vertex `v` is
    /// transaction `v` (when `v < n`) and item `v` (when `v < m`) at once: its neighbours are
    /// the items of transaction `v` read as vertices, and the transactions holding item `v`.
    /// This mixes the two index spaces, which is the variant's cost: it is a graph on
    /// transactions only where `n ≥ m`, and then only loosely related to their similarity.
    ///
    /// Built row by row as the merge of the two (each ascending, an entry in both once): at 10⁷
    /// transactions, building `A`, `Aᵀ` and their sum as `nalgebra_sparse` patterns of `usize`
    /// indices allocated about 4 GB and was a third of CAHD's time with this band.
    pub fn symmetrized_padded(db: &TransactionDb, keep: &[bool]) -> Self {
        let (n, m) = (db.len(), db.num_items());
        let size = n.max(m);
        let holders = ItemIndex::new(db);
        let kept: usize =
            (0..m).filter(|&i| keep[i]).map(|i| holders.transactions(i as ItemId).len()).sum();
        let mut offsets = Vec::with_capacity(size + 1);
        offsets.push(0);
        let mut neighbours: Vec<u32> = Vec::with_capacity(2 * kept);
        for v in 0..size {
            // `A`'s row `v`: the kept items of transaction `v`; `Aᵀ`'s: the transactions of
            // item `v`, when kept.
            let items = if v < n { db.transaction(v) } else { &[] };
            let mut items = items.iter().copied().filter(|&i| keep[i as usize]).peekable();
            let holding: &[u32] =
                if v < m && keep[v] { holders.transactions(v as ItemId) } else { &[] };
            let mut holding = holding.iter().copied().peekable();
            loop {
                let next = match (items.peek(), holding.peek()) {
                    (Some(&i), Some(&t)) if i == t => {
                        holding.next();
                        items.next()
                    }
                    (Some(&i), Some(&t)) if i < t => items.next(),
                    (Some(_), Some(_)) | (None, Some(_)) => holding.next(),
                    (Some(_), None) => items.next(),
                    (None, None) => break,
                };
                neighbours.extend(next);
            }
            offsets.push(neighbours.len());
        }
        let explicit = Self { offsets, neighbours };
        debug_assert!(explicit.is_symmetric(), "a symmetric pattern");
        explicit
    }

    /// Number of stored entries (both directions, with any diagonal entries).
    pub fn entries(&self) -> usize {
        self.neighbours.len()
    }

    /// The neighbours of `v` (possibly including `v` itself).
    pub fn row(&self, v: u32) -> &[u32] {
        &self.neighbours[self.offsets[v as usize]..self.offsets[v as usize + 1]]
    }

    fn is_symmetric(&self) -> bool {
        (0..self.order() as u32)
            .all(|v| self.row(v).iter().all(|&u| self.row(u).binary_search(&v).is_ok()))
    }
}

impl walk::Walk for Explicit {
    fn search_state(&self) -> SearchState {
        SearchState::new(self.order(), 0)
    }

    fn expand(&self, v: u32, state: &mut SearchState, out: &mut Vec<u32>) {
        for &u in self.row(v) {
            if state.mark(u) {
                out.push(u);
            }
        }
    }

    /// Each vertex's share is its own (the sum and the maximum take them in any order): when
    /// the vertices are most of the graph they are read in id order, the rows in memory order,
    /// where in the sequence's order each row is a cache miss and so is most neighbours'
    /// position (at 10⁷ transactions the padded graph's envelopes were a third of CAHD's time
    /// with this band).
    fn envelope_of(&self, vertices: &[u32], state: &mut SearchState) -> Envelope {
        state.number(vertices);
        let (mut bandwidth, mut profile) = (0u64, 0u64);
        let mut add = |v: u32, p: u32| {
            let mut first = p;
            for &u in self.row(v) {
                debug_assert!(state.is_marked(u), "vertices must be whole components");
                let q = state.values[u as usize];
                bandwidth = bandwidth.max(p.abs_diff(q) as u64);
                first = first.min(q);
            }
            profile += (p - first) as u64;
        };
        if vertices.len() >= self.order() / 2 {
            for v in 0..self.order() as u32 {
                if state.is_marked(v) {
                    add(v, state.values[v as usize]);
                }
            }
        } else {
            for (p, &v) in vertices.iter().enumerate() {
                add(v, p as u32);
            }
        }
        Envelope { bandwidth, profile }
    }
}

impl Pattern for Explicit {
    fn order(&self) -> usize {
        self.offsets.len() - 1
    }

    fn degree_work(&self) -> u128 {
        self.entries() as u128
    }

    fn degrees(&self) -> Vec<u32> {
        (0..self.order() as u32)
            .map(|v| self.row(v).iter().filter(|&&u| u != v).count() as u32)
            .collect()
    }

    fn density(&self, position: &[u32], cells: usize) -> Vec<Vec<u64>> {
        let n = self.order().max(1);
        let block = |p: u32| (p as usize * cells / n).min(cells - 1);
        let mut grid = vec![vec![0u64; cells]; cells];
        for v in 0..self.order() as u32 {
            for &u in self.row(v) {
                grid[block(position[v as usize])][block(position[u as usize])] += 1;
            }
        }
        grid
    }
}
