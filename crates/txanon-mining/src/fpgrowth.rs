//! FP-Growth (Han, Pei & Yin, SIGMOD 2000) with perfect-extension pruning.
//!
//! The database, reduced to its frequent items and sorted lexicographically by descending
//! support, is stored as a prefix tree (the FP-tree): nodes in arrays, each with its item, count
//! and parent, and for each item the list of its nodes. Because the transactions are sorted,
//! each one shares exactly its longest common prefix with the one before, so the tree is built
//! without any child search.
//!
//! The conditional database of an item `j` is the set of paths from its nodes to the root. One
//! walk up those paths counts the supports of the items above `j`. Its tree is then built by
//! *projection*: walking up again, every ancestor whose item stays frequent gets one copy in the
//! new tree (remembered in a scratch slot of the ancestor) holding the weight that enters it
//! first-hand, and the walk stops at the first ancestor already copied; one bottom-up pass over
//! the new nodes, by descending item, then adds each node's weight to its parent. The new tree
//! keeps the shape of the old one, so no child is searched for here either. Paths that become
//! equal only after infrequent items are dropped stay separate branches: the node lists stay
//! correct, the tree is merely less compressed.
//!
//! Once a conditional database has at most 64 frequent items it leaves the tree: each path
//! becomes one 64-bit mask with its weight (equal masks merged), and the search continues on
//! that short array with bit operations instead of pointer chases. On T40I10D100K at 0.5% this
//! cut the single-threaded time from 1.2 s to 0.4 s (docs/PERFORMANCE.md); most conditional
//! databases are small, and walking trees is bound by memory latency, not work.
//!
//! Items of the conditional database whose support equals the prefix's are *perfect
//! extensions*: they are removed from the tree and carried along, and every itemset found is
//! reported with them as an [`ItemsetClass`]. Top-level branches run on the rayon pool, each with
//! a [`fork`](ItemsetVisitor::fork) of the visitor, merged back in item order.

use std::ops::ControlFlow;

use txanon_data::ItemId;
use txanon_data::progress::Progress;

use crate::class::{ItemsetClass, ItemsetVisitor};
use crate::recode::RecodedDb;

const ROOT: u32 = 0;
const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Node {
    item: u32,
    count: u32,
    parent: u32,
}

/// A prefix tree over local item codes `0..m`; a parent's code is always below its child's.
#[derive(Debug, Default)]
struct FpTree {
    nodes: Vec<Node>,
    /// Local code → database item id.
    decode: Vec<ItemId>,
    /// Local code → support in this (conditional) database.
    supports: Vec<u32>,
    /// Nodes of code `j` are `by_item[item_start[j]..item_start[j + 1]]`.
    item_start: Vec<u32>,
    by_item: Vec<u32>,
}

impl FpTree {
    fn clear(&mut self) {
        self.nodes.clear();
        self.nodes.push(Node { item: NONE, count: 0, parent: ROOT });
        self.decode.clear();
        self.supports.clear();
    }

    /// Builds the tree of the sorted, merged transactions: each shares exactly its longest
    /// common prefix with the one before, so no child is ever searched for.
    fn from_db(db: &RecodedDb) -> Self {
        let mut tree = FpTree::default();
        tree.clear();
        let mut path: Vec<u32> = Vec::new();
        let mut previous: &[u32] = &[];
        for i in 0..db.len() {
            let (t, w) = db.get(i);
            let common = t.iter().zip(previous).take_while(|(a, b)| a == b).count();
            path.truncate(common);
            for &node in &path {
                tree.nodes[node as usize].count += w;
            }
            for &item in &t[common..] {
                let parent = path.last().copied().unwrap_or(ROOT);
                path.push(tree.nodes.len() as u32);
                tree.nodes.push(Node { item, count: w, parent });
            }
            previous = t;
        }
        tree.decode = db.decode.clone();
        tree.supports = db.supports.clone();
        tree.index_items();
        tree
    }

    /// Groups node indices by item (counting sort, creation order within an item).
    fn index_items(&mut self) {
        let m = self.decode.len();
        self.item_start.clear();
        self.item_start.resize(m + 1, 0);
        for node in &self.nodes[1..] {
            self.item_start[node.item as usize + 1] += 1;
        }
        for j in 0..m {
            self.item_start[j + 1] += self.item_start[j];
        }
        self.by_item.clear();
        self.by_item.resize(self.nodes.len() - 1, 0);
        let mut next: Vec<u32> = self.item_start[..m].to_vec();
        for (index, node) in self.nodes.iter().enumerate().skip(1) {
            let slot = &mut next[node.item as usize];
            self.by_item[*slot as usize] = index as u32;
            *slot += 1;
        }
    }

    /// The nodes from `node` up to the root, the root excluded (none when `node` is the root).
    fn ancestors(&self, node: u32) -> impl Iterator<Item = Node> + '_ {
        let mut up = node;
        std::iter::from_fn(move || {
            (up != ROOT).then(|| {
                let ancestor = self.nodes[up as usize];
                up = ancestor.parent;
                ancestor
            })
        })
    }

    fn nodes_of(&self, item: usize) -> &[u32] {
        &self.by_item[self.item_start[item] as usize..self.item_start[item + 1] as usize]
    }

    fn items(&self) -> usize {
        self.decode.len()
    }
}

/// A conditional tree and the scratch slots of its nodes, one per recursion depth.
#[derive(Debug, Default)]
struct Level {
    tree: FpTree,
    copy_of: Vec<u32>,
}

/// Per-thread working memory, reused across the whole search.
#[derive(Debug)]
struct Search {
    min_count: u32,
    min_len: usize,
    max_len: usize,
    base: Vec<ItemId>,
    perfect: Vec<ItemId>,
    counts: Vec<u32>,
    new_code: Vec<u32>,
    touched: Vec<u32>,
    levels: Vec<Level>,
    /// Conditional databases of at most 64 items as (bitmask, weight), one per depth.
    mask_levels: Vec<Vec<(u64, u32)>>,
    /// Database item id of each bit of the current bitmask database.
    mask_decode: [ItemId; 64],
}

impl Search {
    fn new(db: &RecodedDb, min_count: u32, min_len: usize, max_len: usize) -> Self {
        let m = db.decode.len();
        Self {
            min_count,
            min_len,
            max_len,
            base: Vec::new(),
            perfect: db.universal.clone(),
            counts: vec![0; m],
            new_code: vec![NONE; m],
            touched: Vec::new(),
            levels: (0..db.max_len() + 1).map(|_| Level::default()).collect(),
            mask_levels: (0..db.max_len() + 2).map(|_| Vec::new()).collect(),
            mask_decode: [0; 64],
        }
    }

    /// Reports the class of the current base and perfect extensions.
    fn visit_class(
        &self,
        support: u32,
        leaf: bool,
        visitor: &mut impl ItemsetVisitor,
    ) -> ControlFlow<()> {
        visitor.visit(&ItemsetClass {
            base: &self.base,
            perfect: &self.perfect,
            support,
            min_len: self.min_len,
            max_len: self.max_len,
            leaf,
        })
    }

    /// Reports the class of the current base plus `extension`, the only frequent item left.
    fn visit_extension(
        &mut self,
        extension: ItemId,
        support: u32,
        visitor: &mut impl ItemsetVisitor,
    ) -> ControlFlow<()> {
        self.base.push(extension);
        let flow = self.visit_class(support, true, visitor);
        self.base.pop();
        flow
    }

    /// Mines every item of `tree`, deepest first.
    fn mine_tree(
        &mut self,
        tree: &FpTree,
        copy_of: &mut [u32],
        depth: usize,
        visitor: &mut impl ItemsetVisitor,
    ) -> ControlFlow<()> {
        for item in (0..tree.items()).rev() {
            self.mine_item(tree, copy_of, item, depth, visitor)?;
        }
        ControlFlow::Continue(())
    }

    /// Reports the class of `base ∪ {item}` and mines its conditional database.
    fn mine_item(
        &mut self,
        tree: &FpTree,
        copy_of: &mut [u32],
        item: usize,
        depth: usize,
        visitor: &mut impl ItemsetVisitor,
    ) -> ControlFlow<()> {
        let support = tree.supports[item];
        self.base.push(tree.decode[item]);
        let perfect_mark = self.perfect.len();

        // Supports of the items above `item` in its conditional database.
        count_above(tree, tree.nodes_of(item), &mut self.counts);
        let mut kept = 0u32;
        let mut single: Option<(ItemId, u32)> = None;
        let mut kept_supports = [0u32; 64];
        for above in 0..item {
            let count = std::mem::take(&mut self.counts[above]);
            self.new_code[above] = NONE;
            if count == support {
                self.perfect.push(tree.decode[above]);
            } else if count >= self.min_count {
                if let Some(slot) = kept_supports.get_mut(kept as usize) {
                    *slot = count;
                    self.mask_decode[kept as usize] = tree.decode[above];
                }
                self.new_code[above] = kept;
                kept += 1;
                single = Some((tree.decode[above], count));
            }
        }

        let mut flow = self.visit_class(support, kept == 0, visitor);
        if flow.is_continue() && kept > 0 && self.base.len() < self.max_len {
            if kept == 1 {
                // One frequent item above: its class is the whole conditional search.
                let (extension, count) = single.expect("kept one item");
                flow = self.visit_extension(extension, count, visitor);
            } else if kept <= 64 {
                // Few items left: a list of bitmasks beats a tree from here on.
                let mut masks = std::mem::take(&mut self.mask_levels[depth]);
                masks.clear();
                masks_above(tree, tree.nodes_of(item), &self.new_code, &mut masks);
                merge_duplicates(&mut masks);
                let items = if kept == 64 { u64::MAX } else { (1 << kept) - 1 };
                flow = self.mine_masks(&masks, items, &kept_supports, depth + 1, visitor);
                self.mask_levels[depth] = masks;
            } else {
                let mut level = std::mem::take(&mut self.levels[depth]);
                self.project(tree, copy_of, item, kept, &mut level);
                flow = self.mine_tree(&level.tree, &mut level.copy_of, depth + 1, visitor);
                self.levels[depth] = level;
            }
        }
        self.base.pop();
        self.perfect.truncate(perfect_mark);
        flow
    }

    /// Mines a conditional database of at most 64 items held as `(bitmask, weight)` rows; bit `b`
    /// is the item `mask_decode[b]`, `items` the bits present, `supports` their supports. The
    /// order of the bits is the tree's item order, so the search is the same as on a tree.
    fn mine_masks(
        &mut self,
        masks: &[(u64, u32)],
        items: u64,
        supports: &[u32; 64],
        depth: usize,
        visitor: &mut impl ItemsetVisitor,
    ) -> ControlFlow<()> {
        let mut remaining = items;
        while remaining != 0 {
            let j = 63 - remaining.leading_zeros() as usize;
            remaining &= !(1 << j);
            let support = supports[j];
            self.base.push(self.mask_decode[j]);
            let perfect_mark = self.perfect.len();
            let below = (1u64 << j) - 1;
            let mut counts = [0u32; 64];
            for &(mask, weight) in masks {
                if mask >> j & 1 != 0 {
                    let mut rest = mask & below;
                    while rest != 0 {
                        counts[rest.trailing_zeros() as usize] += weight;
                        rest &= rest - 1;
                    }
                }
            }
            let mut kept = 0u64;
            let mut candidates = items & below;
            while candidates != 0 {
                let b = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                if counts[b] == support {
                    self.perfect.push(self.mask_decode[b]);
                } else if counts[b] >= self.min_count {
                    kept |= 1 << b;
                }
            }
            let mut flow = self.visit_class(support, kept == 0, visitor);
            if flow.is_continue() && kept != 0 && self.base.len() < self.max_len {
                if kept.count_ones() == 1 {
                    let b = kept.trailing_zeros() as usize;
                    flow = self.visit_extension(self.mask_decode[b], counts[b], visitor);
                } else {
                    let mut sub = std::mem::take(&mut self.mask_levels[depth]);
                    sub.clear();
                    sub.extend(
                        masks
                            .iter()
                            .filter(|&&(mask, _)| mask >> j & 1 != 0 && mask & kept != 0)
                            .map(|&(mask, weight)| (mask & kept, weight)),
                    );
                    merge_duplicates(&mut sub);
                    flow = self.mine_masks(&sub, kept, &counts, depth + 1, visitor);
                    self.mask_levels[depth] = sub;
                }
            }
            self.base.pop();
            self.perfect.truncate(perfect_mark);
            flow?;
        }
        ControlFlow::Continue(())
    }

    /// Builds the conditional tree of `item` into `level`, keeping the items with a new code.
    ///
    /// Walking up from each node of `item`, every kept ancestor without a copy gets one, holding
    /// the weight that enters it first-hand; the walk stops at the first ancestor already copied
    /// (its copy's path to the root exists). A bottom-up pass over the new nodes, by descending
    /// item, then adds each node's weight to its parent.
    fn project(
        &mut self,
        tree: &FpTree,
        copy_of: &mut [u32],
        item: usize,
        kept: u32,
        level: &mut Level,
    ) {
        let child = &mut level.tree;
        child.clear();
        child.decode.resize(kept as usize, 0);
        child.supports.resize(kept as usize, 0);
        for above in 0..item {
            let code = self.new_code[above];
            if code != NONE {
                child.decode[code as usize] = tree.decode[above];
                child.supports[code as usize] = 0;
            }
        }
        for &n in tree.nodes_of(item) {
            let node = tree.nodes[n as usize];
            let mut weight = node.count;
            let mut pending = NONE;
            let mut up = node.parent;
            while up != ROOT {
                let ancestor = tree.nodes[up as usize];
                let code = self.new_code[ancestor.item as usize];
                if code != NONE {
                    let existing = copy_of[up as usize];
                    if existing != 0 {
                        if pending != NONE {
                            child.nodes[pending as usize].parent = existing;
                        }
                        child.nodes[existing as usize].count += weight;
                        break;
                    }
                    let index = child.nodes.len() as u32;
                    child.nodes.push(Node { item: code, count: weight, parent: ROOT });
                    copy_of[up as usize] = index;
                    self.touched.push(up);
                    if pending != NONE {
                        child.nodes[pending as usize].parent = index;
                    }
                    pending = index;
                    // The weight now enters the copies above through this node's total.
                    weight = 0;
                }
                up = ancestor.parent;
            }
        }
        for &up in &self.touched {
            copy_of[up as usize] = 0;
        }
        self.touched.clear();
        child.index_items();
        for code in (0..kept as usize).rev() {
            for k in child.item_start[code]..child.item_start[code + 1] {
                let node = child.nodes[child.by_item[k as usize] as usize];
                child.supports[code] += node.count;
                if node.parent != ROOT {
                    child.nodes[node.parent as usize].count += node.count;
                }
            }
        }
        level.copy_of.clear();
        level.copy_of.resize(child.nodes.len(), 0);
    }
}

/// Merges rows with equal masks (summing weights) once there are enough to be worth sorting.
fn merge_duplicates(masks: &mut Vec<(u64, u32)>) {
    if masks.len() < 8 {
        return;
    }
    masks.sort_unstable_by_key(|&(mask, _)| mask);
    let mut write = 0;
    for read in 1..masks.len() {
        if masks[read].0 == masks[write].0 {
            masks[write].1 += masks[read].1;
        } else {
            write += 1;
            masks[write] = masks[read];
        }
    }
    masks.truncate(write + 1);
}

/// Walks from each node in `starts` up to the root: `step(state, ancestor)` for each node on
/// the path (the root and the node itself excluded), from the state `start(node)`, then
/// `end(node, state)`, the nodes in the order of `starts`.
///
/// The walks are pointer chases, bound by memory latency rather than work, so four run
/// interleaved: their loads are independent and overlap.
fn walk_up<S: Copy>(
    tree: &FpTree,
    starts: &[u32],
    start: impl Fn(Node) -> S,
    mut step: impl FnMut(&mut S, Node),
    mut end: impl FnMut(Node, S),
) {
    let nodes = &tree.nodes;
    let mut quads = starts.chunks_exact(4);
    for quad in quads.by_ref() {
        let heads: [Node; 4] = std::array::from_fn(|w| nodes[quad[w] as usize]);
        let mut ups = heads.map(|head| head.parent);
        let mut states = heads.map(&start);
        while ups.iter().all(|&up| up != ROOT) {
            for (up, state) in ups.iter_mut().zip(&mut states) {
                let ancestor = nodes[*up as usize];
                step(state, ancestor);
                *up = ancestor.parent;
            }
        }
        for ((head, up), mut state) in heads.into_iter().zip(ups).zip(states) {
            for ancestor in tree.ancestors(up) {
                step(&mut state, ancestor);
            }
            end(head, state);
        }
    }
    for &n in quads.remainder() {
        let head = nodes[n as usize];
        let mut state = start(head);
        for ancestor in tree.ancestors(head.parent) {
            step(&mut state, ancestor);
        }
        end(head, state);
    }
}

/// Adds the weight of each node in `starts` to the counter of every item on its path to the
/// root.
fn count_above(tree: &FpTree, starts: &[u32], counts: &mut [u32]) {
    let add = |weight: &mut u32, ancestor: Node| counts[ancestor.item as usize] += *weight;
    walk_up(tree, starts, |node| node.count, add, |_, _| {});
}

/// Appends to `masks` the path above each node in `starts` as a bitmask of the items given a
/// code in `new_code` (bit `new_code[item]`), with the node's count, in the order of `starts`;
/// paths with none are left out.
fn masks_above(tree: &FpTree, starts: &[u32], new_code: &[u32], masks: &mut Vec<(u64, u32)>) {
    let mark = |mask: &mut u64, ancestor: Node| {
        if let code @ 0..64 = new_code[ancestor.item as usize] {
            *mask |= 1 << code;
        }
    };
    let keep = |node: Node, mask: u64| {
        if mask != 0 {
            masks.push((mask, node.count));
        }
    };
    walk_up(tree, starts, |_| 0u64, mark, keep);
}

/// Mines `db` with FP-Growth, reporting every class of frequent itemsets to `visitor`.
pub(crate) fn mine<V: ItemsetVisitor>(
    db: &RecodedDb,
    min_count: u32,
    (min_len, max_len): (usize, usize),
    parallel: bool,
    progress: Option<&Progress>,
    visitor: &mut V,
) {
    if db.transactions < min_count {
        return;
    }
    let mut search = Search::new(db, min_count, min_len, max_len);
    let root = ItemsetClass {
        base: &[],
        perfect: &search.perfect,
        support: db.transactions,
        min_len,
        max_len,
        leaf: db.decode.is_empty(),
    };
    if visitor.visit(&root).is_break() || db.decode.is_empty() || max_len == 0 {
        return;
    }
    let tree = FpTree::from_db(db);
    if let Some(progress) = progress {
        progress.set_total(tree.nodes.len() as u64 - 1);
    }
    let done = |item: usize| {
        if let Some(progress) = progress {
            progress.advance(tree.nodes_of(item).len() as u64);
        }
    };
    if !parallel {
        let mut copy_of = vec![0; tree.nodes.len()];
        for item in (0..tree.items()).rev() {
            if search.mine_item(&tree, &mut copy_of, item, 0, visitor).is_break() {
                return;
            }
            done(item);
        }
        return;
    }
    let template = &*visitor;
    // An item's conditional tree grows with its nodes; the items of most nodes are handed out
    // first, one at a time, where a split of the range left a run of them on one worker.
    let items: Vec<usize> = (0..tree.items()).rev().collect();
    let forks: Vec<V> = txanon_data::parallel::map_largest_first(
        items,
        |&item| tree.nodes_of(item).len() as u64,
        || (Search::new(db, min_count, min_len, max_len), vec![0; tree.nodes.len()]),
        |(search, copy_of), item| {
            let mut fork = template.fork();
            let _ = search.mine_item(&tree, copy_of, item, 0, &mut fork);
            done(item);
            fork
        },
    );
    for fork in forks {
        visitor.merge(fork);
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use txanon_data::TransactionDb;

    use super::*;

    /// The bitmask of the path above node `n`, one step at a time.
    fn mask_by_one_walk(tree: &FpTree, n: u32, new_code: &[u32]) -> u64 {
        let mut mask = 0u64;
        let mut up = tree.nodes[n as usize].parent;
        while up != ROOT {
            let ancestor = tree.nodes[up as usize];
            if new_code[ancestor.item as usize] != NONE {
                mask |= 1 << new_code[ancestor.item as usize];
            }
            up = ancestor.parent;
        }
        mask
    }

    fn depth(tree: &FpTree, mut n: u32) -> usize {
        let mut depth = 0;
        while n != ROOT {
            n = tree.nodes[n as usize].parent;
            depth += 1;
        }
        depth
    }

    /// The interleaved walks give every node's mask, in order, as one walk per node does.
    /// Counts the cases where some four nodes walked together had paths of unequal length (a
    /// walk finishing on its own after the others).
    #[test]
    fn interleaved_masks_are_the_masks_of_one_walk_each() {
        let strategy = (
            prop::collection::vec(prop::collection::btree_set(0u32..12, 0..9), 1..80),
            prop::collection::vec(any::<bool>(), 12),
        );
        let exercised = txanon_testkit::exercised(300, strategy, |(rows, coded)| {
            let rows: Vec<Vec<u32>> = rows.iter().map(|t| t.iter().copied().collect()).collect();
            let db = TransactionDb::from_int_transactions(rows);
            let tree = FpTree::from_db(&RecodedDb::new(&db, 1, false));
            let mut new_code = vec![NONE; tree.items()];
            let kept = new_code.iter_mut().zip(&coded).filter(|(_, keep)| **keep);
            for (next, (code, _)) in kept.enumerate() {
                *code = next as u32;
            }
            let mut unequal = false;
            for item in 0..tree.items() {
                let starts = tree.nodes_of(item);
                let mut masks = Vec::new();
                masks_above(&tree, starts, &new_code, &mut masks);
                let expected: Vec<(u64, u32)> = starts
                    .iter()
                    .map(|&n| (mask_by_one_walk(&tree, n, &new_code), tree.nodes[n as usize].count))
                    .filter(|&(mask, _)| mask != 0)
                    .collect();
                prop_assert_eq!(masks, expected);
                unequal |= starts
                    .chunks_exact(4)
                    .any(|quad| quad.iter().any(|&n| depth(&tree, n) != depth(&tree, quad[0])));
            }
            Ok(unequal)
        });
        exercised.at_least(0.3, "walked four paths of unequal length together");
    }
}
