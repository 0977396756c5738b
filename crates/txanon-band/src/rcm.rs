//! Reverse Cuthill-McKee with a pseudo-peripheral start per connected component.

use rayon::prelude::*;
use txanon_data::progress::Progress;

use crate::graph::{Pattern, SearchState};

/// A reordering of the vertices: `order[k]` is the vertex at position `k`, `position[v]` the
/// position of vertex `v`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutation {
    order: Vec<u32>,
    position: Vec<u32>,
}

impl Permutation {
    /// The ordering that lists vertices as `order` does.
    ///
    /// # Panics
    /// When `order` is not a permutation of `0..order.len()`.
    pub fn from_order(order: Vec<u32>) -> Self {
        let mut position = vec![u32::MAX; order.len()];
        for (k, &v) in order.iter().enumerate() {
            assert!(
                (v as usize) < order.len() && position[v as usize] == u32::MAX,
                "not a permutation"
            );
            position[v as usize] = k as u32;
        }
        Self { order, position }
    }

    /// The original order, `0, 1, …, n − 1`.
    pub fn identity(n: usize) -> Self {
        Self::from_order((0..n as u32).collect())
    }

    /// Vertices in their new order.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// `position()[v]`: where vertex `v` goes.
    pub fn position(&self) -> &[u32] {
        &self.position
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True for the empty ordering.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// Where the Cuthill-McKee search of each connected component starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Start {
    /// George & Liu's pseudo-peripheral node (ACM TOMS 1979), found from the component's lowest
    /// (degree, id) vertex: the level structure is built, the search moves to the lowest
    /// (degree, id) vertex of the last level, and repeats while the eccentricity grows (eight
    /// level structures at most). Deep
    /// level structures, hence narrow levels: good for the bandwidth.
    PseudoPeripheral,
    /// The component's lowest (degree, id) vertex (scipy's `reverse_cuthill_mckee` takes a
    /// lowest-degree vertex, whichever its sort puts first).
    LowestDegree,
    /// Several peripheral candidates per component, keeping the ordering of the component with
    /// the smallest profile (ties: smaller bandwidth, then the earlier candidate): the
    /// George-Liu node, the lowest (degree, id) vertex, then, a third each, the lowest (degree,
    /// id) vertices of the last George-Liu level, a spread over the rest of that level, and a
    /// spread over the component's vertices of lowest degree; `candidates` in all at most, and
    /// no more than [`SEARCH_BUDGET`] allows.
    SmallestProfile {
        /// Candidates tried per component (at least 1).
        candidates: usize,
    },
}

/// What RCM orders vertices by (ties by vertex id): the starting vertices and the order in which
/// a vertex's neighbours join the sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ranking {
    /// Exact degrees ([`Pattern::degrees`]): the textbook algorithm. On the `A·Aᵀ` pattern they
    /// cost `Σ_i sup(i)²`, quadratic in the transactions at a fixed density.
    Exact,
    /// The pattern's [`Pattern::estimated_degrees`]: for [`SharedItems`](crate::SharedItems)
    /// the row sums of `A·Aᵀ`, `O(Σ|t|)`; exact degrees for an explicit pattern.
    Estimated,
}

/// Candidates [`reverse_cuthill_mckee`] tries per component with exact degrees.
pub const CANDIDATES: usize = 32;

/// Candidates [`reverse_cuthill_mckee`] tries per component with estimated degrees (fewer in
/// components too large for [`SEARCH_BUDGET`]): twice as many, which buys back what the
/// estimate costs (see [`reverse_cuthill_mckee`]).
pub const ESTIMATED_CANDIDATES: usize = 64;

/// The most work [`Pattern::degree_work`] that [`reverse_cuthill_mckee`] spends on exact
/// degrees (about 17·10⁹ visits: retail's `A·Aᵀ` needs 5.4·10⁹, a million Quest basket
/// transactions 7.3·10¹⁰).
pub const EXACT_DEGREE_WORK: u128 = 1 << 34;

/// Vertices visited by the candidate searches of one component at most (unless two candidates
/// exceed it), and by George & Liu's level structures beyond the first two: 64 candidates up
/// to 262,144 vertices, 16 at a million, 2 at ten million (where each search of the whole
/// component costs seconds of cache misses; on Quest basket data at both sizes the starts kept
/// reach the profile that 64 and 6 reached, docs/SCALE.md).
pub const SEARCH_BUDGET: usize = 1 << 24;

/// Level structures George & Liu's search builds per component at most (it stops earlier, as
/// soon as the eccentricity stops growing).
const PERIPHERAL_STEPS: usize = 8;

/// Components at least this large evaluate their candidates in parallel (each worker needs its
/// own `O(n + m)` scratch, not worth allocating for small components).
const PARALLEL_COMPONENT: usize = 4096;

/// Reverse Cuthill-McKee from the best of several peripheral starts per component
/// ([`Start::SmallestProfile`]): [`CANDIDATES`] starts with exact degrees when they cost at most
/// [`EXACT_DEGREE_WORK`], else [`ESTIMATED_CANDIDATES`] with [`Ranking::Estimated`], so that the
/// ordering stays linear in the data (exact degrees of `A·Aᵀ` are quadratic in the
/// transactions at a fixed density). The estimate with twice the starts keeps the profile within
/// 2% of the exact one: +0.6% on BMS-WebView-1, +1.5% on BMS-WebView-2, −0.3% on retail (with
/// 32 starts it was +2.7% on BMS-WebView-2).
///
/// The profile is the figure that matters for CAHD (how close similar transactions sit), and no
/// single start wins it everywhere: on BMS-WebView-2's `A·Aᵀ` the best start is a vertex of the
/// last George-Liu level, not the George-Liu node (1.54·10⁹ against 1.74·10⁹); on
/// BMS-WebView-1's padded `A + Aᵀ`, where 32,699 vertices share the lowest degree, the profile
/// varies sevenfold with the start (2.3·10⁷ to 1.7·10⁸).
pub fn reverse_cuthill_mckee(graph: &impl Pattern) -> Permutation {
    reverse_cuthill_mckee_reporting(graph, None)
}

/// [`reverse_cuthill_mckee`], reporting to `progress` the vertices its breadth-first searches
/// visit: a count while George & Liu's search runs (it decides as it goes how many level
/// structures to build), then, once a component's candidate starts are chosen, a total (the
/// visits so far, one search of the component per candidate, one visit per vertex not yet
/// reached), so that the rate gives an estimate of the time left. The caller names the phase.
pub fn reverse_cuthill_mckee_reporting(
    graph: &impl Pattern,
    progress: Option<&Progress>,
) -> Permutation {
    if graph.degree_work() <= EXACT_DEGREE_WORK {
        ordering(graph, Start::SmallestProfile { candidates: CANDIDATES }, Ranking::Exact, progress)
    } else {
        ordering(
            graph,
            Start::SmallestProfile { candidates: ESTIMATED_CANDIDATES },
            Ranking::Estimated,
            progress,
        )
    }
}

/// Reverse Cuthill-McKee (Cuthill & McKee, 1969; reversed as George, 1971) from the given
/// [`Start`] in each connected component, vertices ranked by [`Ranking`].
///
/// Components are taken in increasing order of their lowest (degree, id) vertex. From the
/// start, a breadth-first search appends each vertex's unvisited neighbours in increasing
/// (degree, id) order (degree: the ranking's); the whole sequence is reversed at the end (each component stays
/// contiguous). Every tie is broken by vertex id, so the result is deterministic.
///
/// # Complexity
/// The ranking (whatever the pattern's degrees or estimate cost), a sort of the vertices, and
/// per component a few breadth-first searches (a pseudo-peripheral search, then one per
/// candidate start), each `O(cost of expanding the component)`: `O(nnz)` for an explicit
/// pattern, `O(Σ|t|)` for [`SharedItems`](crate::SharedItems). Extra space `O(n + m)`.
pub fn reverse_cuthill_mckee_from(
    graph: &impl Pattern,
    start: Start,
    ranking: Ranking,
) -> Permutation {
    ordering(graph, start, ranking, None)
}

/// [`reverse_cuthill_mckee_from`], reporting its searches' visits to `progress`.
fn ordering(
    graph: &impl Pattern,
    start: Start,
    ranking: Ranking,
    progress: Option<&Progress>,
) -> Permutation {
    let degrees: Vec<u64> = match ranking {
        Ranking::Exact => graph.degrees_cancellable(progress).into_iter().map(u64::from).collect(),
        Ranking::Estimated => graph.estimated_degrees(),
    };
    let n = graph.order();
    let key = |v: u32| (degrees[v as usize], v);
    let mut by_degree: Vec<u32> = (0..n as u32).collect();
    sort_by_key_once(&mut by_degree, &key, &mut Vec::new(), true);
    let mut placed = graph.search_state();
    let mut work =
        Work { search: graph.search_state(), probe: graph.search_state(), component: Vec::new() };
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut best: Vec<u32> = Vec::new();
    let mut ends: Vec<usize> = Vec::new();
    for &seed in &by_degree {
        if placed.is_marked(seed) {
            continue;
        }
        if let Some(progress) = progress {
            // Until the component is searched, the vertices left bound its size.
            progress.set_total(progress.done() + (n - order.len()) as u64);
        }
        // The component of `seed` is among the vertices not placed yet: a search that has
        // reached all of them has reached its whole component (at scale, one component holds
        // nearly every vertex).
        let unplaced = n - order.len();
        let (candidates, size, mut searched) =
            start_candidates(graph, seed, start, &key, unplaced, &mut work, progress);
        if let Some(progress) = progress {
            // From here the work is known: a search of this component per candidate, and at
            // least a visit per vertex of the components still to come.
            let searches = size.max(1) as u64 * candidates.len() as u64;
            let unreached = (n - order.len()).saturating_sub(size.max(1)) as u64;
            progress.set_total(progress.done() + searches + unreached);
        }
        let mut given: Vec<Option<Vec<u32>>> = candidates
            .iter()
            .map(|c| {
                let at = searched.iter().position(|(first, _)| first == c)?;
                Some(searched.swap_remove(at).1)
            })
            .collect();
        let reach = if size > 0 { size } else { unplaced };
        best_sequence(graph, &candidates, &mut given, reach, &key, &mut work, &mut best, progress);
        for &v in &best {
            placed.mark(v);
        }
        order.extend_from_slice(&best);
        ends.push(order.len());
    }
    // The reversal is of the whole Cuthill-McKee sequence, components included: the component
    // found first (from the lowest-degree seed, isolated vertices first of all) ends up last.
    let mut reversed = Vec::with_capacity(n);
    let mut end = order.len();
    for &start in ends.iter().rev().skip(1).chain(std::iter::once(&0)) {
        reversed.extend_from_slice(&order[start..end]);
        end = start;
    }
    Permutation::from_order(reversed)
}

/// Scratch space of one ordering: the searches' stamps and a component's sequence.
struct Work {
    search: SearchState,
    probe: SearchState,
    component: Vec<u32>,
}

/// The vertices to try as the first of the component of `seed`, the component's size when it
/// was searched (0 otherwise), and the Cuthill-McKee sequences George & Liu's search already
/// made: `seed` itself, the pseudo-peripheral vertex, or several candidates ([`Start`]). The
/// component has at most `reach` vertices.
fn start_candidates(
    graph: &impl Pattern,
    seed: u32,
    start: Start,
    key: &impl Fn(u32) -> (u64, u32),
    reach: usize,
    work: &mut Work,
    progress: Option<&Progress>,
) -> (Vec<u32>, usize, Searched) {
    let Work { search: scratch, component, .. } = work;
    match start {
        Start::LowestDegree => (vec![seed], 0, Vec::new()),
        Start::PseudoPeripheral => {
            let (root, _, searched) =
                pseudo_peripheral(graph, seed, key, reach, scratch, component, progress);
            (vec![root], component.len(), searched)
        }
        Start::SmallestProfile { candidates } => {
            let (root, last, searched) =
                pseudo_peripheral(graph, seed, key, reach, scratch, component, progress);
            let mut c = vec![root, seed];
            let mut ends = last;
            ends.sort_unstable_by_key(|&v| key(v));
            // A third from the low-degree end of the last level (where George-Liu would go
            // next), a third spread over the rest of it, a third spread over the
            // component's lowest-degree vertices (where scipy starts): neighbouring ids
            // tend to be alike, and one far end can be much better than the next.
            let rest = candidates.saturating_sub(2);
            let third = rest.div_ceil(3);
            let head = third.min(ends.len());
            c.extend_from_slice(&ends[..head]);
            let spread = |pool: &[u32], want: usize, c: &mut Vec<u32>| {
                let stride = pool.len().div_ceil(want.max(1)).max(1);
                c.extend(pool.iter().step_by(stride).take(want));
            };
            spread(&ends[head..], third, &mut c);
            let lowest = component.iter().map(|&v| key(v).0).min().unwrap_or(0);
            let mut low: Vec<u32> =
                component.iter().copied().filter(|&v| key(v).0 == lowest).collect();
            low.sort_unstable();
            spread(&low, rest.saturating_sub(2 * third), &mut c);
            let mut seen = Vec::new();
            c.retain(|v| {
                let fresh = !seen.contains(v);
                seen.push(*v);
                fresh
            });
            // Each candidate is a search of the whole component: beyond the budget, fewer
            // candidates (the George-Liu node and the lowest vertex always), so the cost stays
            // linear in the data.
            let affordable = (SEARCH_BUDGET / component.len().max(1)).max(2);
            c.truncate(candidates.min(affordable).max(1));
            (c, component.len(), searched)
        }
    }
}

/// Into `best`, the reversed Cuthill-McKee sequence of the component from the candidate of
/// least profile (then bandwidth, then the earlier candidate); `given[k]`, when set, is the
/// sequence of `candidates[k]`, already searched. The component has at most `reach` vertices
/// (its size, where known); components of at least `PARALLEL_COMPONENT` vertices try their
/// candidates on rayon.
#[allow(clippy::too_many_arguments)]
fn best_sequence(
    graph: &impl Pattern,
    candidates: &[u32],
    given: &mut [Option<Vec<u32>>],
    reach: usize,
    key: &(impl Fn(u32) -> (u64, u32) + Sync),
    work: &mut Work,
    best: &mut Vec<u32>,
    progress: Option<&Progress>,
) {
    let Work { search: scratch, probe, component } = work;
    let searched = |visited: usize| {
        if let Some(progress) = progress {
            progress.advance(visited as u64);
        }
    };
    if candidates.len() == 1 {
        match given[0].take() {
            Some(sequence) => *best = sequence,
            None => {
                cuthill_mckee(graph, candidates[0], key, reach, scratch, best, progress);
            }
        }
        searched(best.len());
        best.reverse();
    } else if reach >= PARALLEL_COMPONENT {
        *best = candidates
            .par_iter()
            .zip(given.par_iter_mut())
            .enumerate()
            .map_init(
                || (graph.search_state(), graph.search_state()),
                |(search, probe), (k, (&first, given))| {
                    let mut sequence = given.take().unwrap_or_else(|| {
                        let mut sequence = Vec::new();
                        cuthill_mckee(graph, first, key, reach, search, &mut sequence, progress);
                        sequence
                    });
                    searched(sequence.len());
                    sequence.reverse();
                    let e = graph.envelope_of(&sequence, probe);
                    ((e.profile, e.bandwidth, k), sequence)
                },
            )
            .min_by_key(|(rank, _)| *rank)
            .expect("candidates")
            .1;
    } else {
        let mut best_rank = None;
        for (k, &first) in candidates.iter().enumerate() {
            match given[k].take() {
                Some(sequence) => *component = sequence,
                None => {
                    cuthill_mckee(graph, first, key, reach, scratch, component, progress);
                }
            }
            searched(component.len());
            component.reverse();
            let e = graph.envelope_of(component, probe);
            if best_rank.is_none_or(|r| (e.profile, e.bandwidth, k) < r) {
                best_rank = Some((e.profile, e.bandwidth, k));
                std::mem::swap(best, component);
            }
        }
    }
}

/// How many vertices a search expands between two looks at whether it was cancelled.
const CHECKPOINT_VERTICES: usize = 4096;

/// The Cuthill-McKee sequence of the component of `first` (not reversed), into `out`, and its
/// breadth-first levels: how many, and where the last one lies in `out`. The component has at
/// most `reach` vertices: once the sequence holds that many, the rest of it is known and is
/// not expanded (at ten million Quest transactions a search reaches every vertex in its first
/// quarter of a second of three and a half, and the rest was reading rows that add nothing).
/// A cancelled `progress` stops it (see [`Progress::checkpoint`]).
fn cuthill_mckee(
    graph: &impl Pattern,
    first: u32,
    key: &impl Fn(u32) -> (u64, u32),
    reach: usize,
    state: &mut SearchState,
    out: &mut Vec<u32>,
    progress: Option<&Progress>,
) -> (usize, std::ops::Range<usize>) {
    state.restart();
    out.clear();
    state.mark(first);
    out.push(first);
    let mut head = 0;
    // `out[level]` is the level being expanded; the next one is what its expansion appends.
    let (mut level, mut depth) = (0..1, 1);
    let mut packed = Vec::new();
    while head < out.len() && out.len() < reach {
        if head == level.end {
            level = level.end..out.len();
            depth += 1;
        }
        let v = out[head];
        head += 1;
        if let Some(p) = progress.filter(|_| head % CHECKPOINT_VERTICES == 0) {
            p.checkpoint();
        }
        let from = out.len();
        graph.expand(v, state, out);
        sort_by_key_once(&mut out[from..], key, &mut packed, false);
    }
    // Every vertex is in `out`. Past the level being expanded, what its expansion appended is
    // the next level, and the last: nothing is left for a level after it. (A search that ran
    // to its end stops at the end of its last level, which this leaves as it is.)
    if out.len() > level.end { (depth + 1, level.end..out.len()) } else { (depth, level) }
}

/// `vertices` sorted by `key` (a degree, then the vertex itself: `key(v).1 == v`), each key read
/// once into `packed`, one word a vertex where the degrees fit in 32 bits; `on_rayon`, sorted on
/// every thread. Sorting by the key itself read a degree at random on every comparison, a
/// cache miss with ten million vertices: at 10⁷ Quest transactions the sorts of the searches'
/// expansions and of the vertices by degree were 2.4 s on one core.
fn sort_by_key_once(
    vertices: &mut [u32],
    key: &impl Fn(u32) -> (u64, u32),
    packed: &mut Vec<u64>,
    on_rayon: bool,
) {
    const SHORT: usize = 32;
    packed.clear();
    let fits = vertices.len() >= SHORT
        && vertices.iter().all(|&v| {
            let (degree, tie) = key(v);
            debug_assert_eq!(tie, v, "a key's tie-break is its vertex");
            u32::try_from(degree).is_ok_and(|d| {
                packed.push(u64::from(d) << 32 | u64::from(v));
                true
            })
        });
    if !fits {
        vertices.sort_unstable_by_key(|&v| key(v));
        return;
    }
    if on_rayon {
        packed.par_sort_unstable();
    } else {
        packed.sort_unstable();
    }
    for (v, &p) in vertices.iter_mut().zip(packed.iter()) {
        *v = p as u32;
    }
}

/// Cuthill-McKee sequences (not reversed) already searched in a component, by first vertex.
type Searched = Vec<(u32, Vec<u32>)>;

/// George & Liu's pseudo-peripheral node finder, from `seed`: the node, the last level of its
/// level structure, and the Cuthill-McKee sequences of `seed`, of the node and of the last
/// vertex tried beyond it (a candidate of [`Start::SmallestProfile`] too); at most
/// [`PERIPHERAL_STEPS`] level structures, and no more than two beyond what [`SEARCH_BUDGET`]
/// allows. `component` gets the vertices of the component.
///
/// Each level structure is a Cuthill-McKee search: its levels are the breadth-first levels
/// whatever the order within a level, so the depth and the last level are George & Liu's, and
/// the searches of the seed and of the node, both candidates of [`Start::SmallestProfile`], are
/// not made again (at ten million vertices, two starts, each search is seconds of cache
/// misses, and the level structures ran on one core before the candidates' searches).
#[allow(clippy::too_many_arguments)]
fn pseudo_peripheral(
    graph: &impl Pattern,
    seed: u32,
    key: &impl Fn(u32) -> (u64, u32),
    reach: usize,
    state: &mut SearchState,
    component: &mut Vec<u32>,
    progress: Option<&Progress>,
) -> (u32, Vec<u32>, Searched) {
    let mut root = seed;
    let mut sequence = Vec::new();
    let (mut depth, mut last) = levels(graph, root, key, reach, state, &mut sequence, progress);
    component.clone_from(&sequence);
    let mut searched = vec![(seed, sequence)];
    let steps = (SEARCH_BUDGET / component.len().max(1)).clamp(2, PERIPHERAL_STEPS);
    if let Some(progress) = progress {
        // The caller's total bounded this first search by the vertices left; the others are
        // searches of this component, as many as `steps` allows (fewer if the eccentricity
        // stops growing: the caller sets the total again once the starts are chosen).
        let more = (steps - 1) as u64 * component.len() as u64;
        progress.set_total(progress.total().saturating_add(more));
    }
    for _ in 1..steps {
        let candidate = last.iter().copied().min_by_key(|&v| key(v)).expect("a last level");
        let mut sequence = Vec::new();
        let (d, l) = levels(graph, candidate, key, component.len(), state, &mut sequence, progress);
        if d <= depth {
            // The lowest vertex of the last level is also the first of the candidates taken
            // from that level: its search is kept rather than made again.
            searched.push((candidate, sequence));
            return (root, last, searched);
        }
        if root != seed {
            searched.pop();
        }
        searched.push((candidate, sequence));
        (root, depth, last) = (candidate, d, l);
    }
    (root, last, searched)
}

/// The number of breadth-first levels from `root` and its last level, with the Cuthill-McKee
/// sequence from `root` into `sequence`; `progress` gets the vertices reached.
fn levels(
    graph: &impl Pattern,
    root: u32,
    key: &impl Fn(u32) -> (u64, u32),
    reach: usize,
    state: &mut SearchState,
    sequence: &mut Vec<u32>,
    progress: Option<&Progress>,
) -> (usize, Vec<u32>) {
    let (depth, last) = cuthill_mckee(graph, root, key, reach, state, sequence, progress);
    if let Some(progress) = progress {
        progress.advance(sequence.len() as u64);
    }
    (depth, sequence[last].to_vec())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use txanon_data::TransactionDb;

    use super::*;
    use crate::SharedItems;
    use crate::graph::walk::Walk;

    /// A search told its component's size (or any bound at least that) stops expanding once it
    /// holds that many vertices, and gives the sequence, the depth and the last level of the
    /// search that expands every vertex. Counts the cases where a component of at least three
    /// levels was searched: those where whole levels' expansions were skipped.
    #[test]
    fn a_search_that_has_reached_its_component_stops_with_the_same_levels() {
        let strategy = prop::collection::vec(prop::collection::btree_set(0u32..12, 0..4), 1..40);
        txanon_testkit::exercised(300, strategy, |rows| {
            let db = TransactionDb::from_int_transactions(
                rows.iter().map(|r| r.iter().copied().collect::<Vec<_>>()),
            );
            let graph = SharedItems::all_items(&db);
            let degrees = graph.degrees();
            let key = |v: u32| (u64::from(degrees[v as usize]), v);
            let mut state = graph.search_state();
            let mut deep = false;
            for first in 0..db.len() as u32 {
                let mut full = Vec::new();
                let levels =
                    cuthill_mckee(&graph, first, &key, usize::MAX, &mut state, &mut full, None);
                let size = full.len();
                for reach in [size, size + 1, db.len()] {
                    let mut cut = Vec::new();
                    let cut_levels =
                        cuthill_mckee(&graph, first, &key, reach, &mut state, &mut cut, None);
                    prop_assert_eq!(&cut, &full, "reach {}", reach);
                    prop_assert_eq!(&cut_levels, &levels, "reach {}", reach);
                }
                deep |= levels.0 >= 3;
            }
            Ok(deep)
        })
        .at_least(0.5, "searched a component of three levels or more");
    }
}
