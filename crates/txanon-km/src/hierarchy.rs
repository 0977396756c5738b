//! Generalization hierarchies: a tree over the items, read from a file or built from the data.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use txanon_correlate::PairCounts;
use txanon_data::{DataError, ItemId, Location, ParamError, TransactionDb};

use crate::error::KmError;

/// A node of a [`Hierarchy`], `0..len`.
pub type NodeId = u32;

const NO_PARENT: NodeId = NodeId::MAX;

/// A generalization hierarchy: a rooted tree whose leaves are items and whose inner nodes
/// are the generalized items a publication may show in their place.
///
/// Invariant: one root, every other node has exactly one parent, every node is below the root
/// (no cycle), labels are unique. Leaves are numbered in depth-first order, so the leaves
/// below a node are one range of that order ([`leaf_range`](Self::leaf_range)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hierarchy {
    labels: Vec<String>,
    parent: Vec<NodeId>,
    child_offsets: Vec<u32>,
    children: Vec<NodeId>,
    root: NodeId,
    /// Depth-first leaf range `[start, end)` of every node.
    leaf_start: Vec<u32>,
    leaf_end: Vec<u32>,
    /// The leaves in depth-first order.
    leaves: Vec<NodeId>,
    /// Edges on the longest path down to a leaf (0 for a leaf).
    height: Vec<u32>,
    by_label: HashMap<String, NodeId>,
}

/// A hierarchy file's content that is not a tree: which line (1-based; 0 when the whole file
/// is at fault) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TreeError {
    line: u64,
    reason: String,
}

impl Hierarchy {
    /// Reads a hierarchy file: one `child parent` pair per line, labels as in the data,
    /// separated by a tab or a comma when the line holds one (so labels may contain spaces),
    /// else by blanks; blank lines and `#` comments are skipped.
    ///
    /// # Errors
    /// [`DataError::Parse`] naming the line of a pair without two labels, a node that is its
    /// own parent, a node given a second parent, or a node on a cycle; [`DataError::Invalid`]
    /// for a file without pairs or with more than one root.
    pub fn read(path: &Path) -> Result<Self, DataError> {
        let text = txanon_data::read_text(path)?;
        Self::parse(&text).map_err(|e| {
            if e.line == 0 {
                DataError::Invalid { path: path.to_path_buf(), reason: e.reason }
            } else {
                DataError::Parse {
                    location: Location { path: path.to_path_buf(), line: e.line, column: 0 },
                    reason: e.reason,
                }
            }
        })
    }

    /// Parses a hierarchy from text, as [`read`](Self::read) does from a file.
    ///
    /// # Errors
    /// As [`read`](Self::read), with `<memory>` as the file.
    pub fn from_text(text: &str) -> Result<Self, DataError> {
        Self::parse(text).map_err(|e| DataError::Parse {
            location: Location { path: "<memory>".into(), line: e.line, column: 0 },
            reason: e.reason,
        })
    }

    fn parse(text: &str) -> Result<Self, TreeError> {
        let mut pairs = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line_no = n as u64 + 1;
            let line = line.strip_prefix('\u{feff}').unwrap_or(line);
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = if trimmed.contains('\t') {
                trimmed.split('\t').map(str::trim).collect()
            } else if trimmed.contains(',') {
                trimmed.split(',').map(str::trim).collect()
            } else {
                trimmed.split_whitespace().collect()
            };
            if fields.len() != 2 || fields.iter().any(|f| f.is_empty()) {
                return Err(TreeError {
                    line: line_no,
                    reason: format!(
                        "expected two labels (child parent), found {} field(s)",
                        fields.iter().filter(|f| !f.is_empty()).count()
                    ),
                });
            }
            pairs.push((fields[0].to_string(), fields[1].to_string(), line_no));
        }
        Self::from_pairs(pairs)
    }

    /// Builds the tree from `(child, parent, line)` triples.
    fn from_pairs(pairs: Vec<(String, String, u64)>) -> Result<Self, TreeError> {
        if pairs.is_empty() {
            return Err(TreeError { line: 0, reason: "no child-parent pair".into() });
        }
        let mut by_label: HashMap<String, NodeId> = HashMap::new();
        let mut labels: Vec<String> = Vec::new();
        let mut intern = |label: &str, labels: &mut Vec<String>| -> NodeId {
            if let Some(&id) = by_label.get(label) {
                return id;
            }
            let id = labels.len() as NodeId;
            labels.push(label.to_string());
            by_label.insert(label.to_string(), id);
            id
        };
        let mut edges = Vec::with_capacity(pairs.len());
        for (child, parent, line) in &pairs {
            if child == parent {
                return Err(TreeError {
                    line: *line,
                    reason: format!("{child} is its own parent"),
                });
            }
            let c = intern(child, &mut labels);
            let p = intern(parent, &mut labels);
            edges.push((c, p, *line));
        }
        let n = labels.len();
        let mut parent = vec![NO_PARENT; n];
        let mut parent_line = vec![0u64; n];
        for &(c, p, line) in &edges {
            if parent[c as usize] != NO_PARENT {
                return Err(TreeError {
                    line,
                    reason: format!(
                        "{} already has the parent {} (line {}): a hierarchy is a tree",
                        labels[c as usize],
                        labels[parent[c as usize] as usize],
                        parent_line[c as usize]
                    ),
                });
            }
            parent[c as usize] = p;
            parent_line[c as usize] = line;
        }
        let roots: Vec<NodeId> =
            (0..n as NodeId).filter(|&v| parent[v as usize] == NO_PARENT).collect();
        if roots.len() > 1 {
            return Err(TreeError {
                line: 0,
                reason: format!(
                    "{} nodes have no parent ({}, {}{}): a hierarchy has one root",
                    roots.len(),
                    labels[roots[0] as usize],
                    labels[roots[1] as usize],
                    if roots.len() > 2 { ", …" } else { "" }
                ),
            });
        }
        let Some(&root) = roots.first() else {
            // Every node has a parent: the parent links close a cycle.
            return Err(TreeError {
                line: edges[0].2,
                reason: "every node has a parent, so the pairs form a cycle and there is no root"
                    .into(),
            });
        };
        let mut hierarchy = Self::assemble(labels, parent, root, by_label);
        // A node not reached from the root lies on a cycle (each node has one parent).
        if let Some(v) = (0..n).find(|&v| hierarchy.leaf_end[v] == u32::MAX) {
            return Err(TreeError {
                line: parent_line[v],
                reason: format!(
                    "{} is on a cycle of parents, not below the root {}",
                    hierarchy.labels[v], hierarchy.labels[root as usize]
                ),
            });
        }
        hierarchy.by_label.shrink_to_fit();
        Ok(hierarchy)
    }

    /// Children lists, the depth-first leaf order and heights, from the parent links. A node
    /// the walk from `root` does not reach keeps `leaf_end = u32::MAX`.
    fn assemble(
        labels: Vec<String>,
        parent: Vec<NodeId>,
        root: NodeId,
        by_label: HashMap<String, NodeId>,
    ) -> Self {
        let n = labels.len();
        let mut child_offsets = vec![0u32; n + 1];
        for (v, &p) in parent.iter().enumerate() {
            if p != NO_PARENT && v as NodeId != root {
                child_offsets[p as usize + 1] += 1;
            }
        }
        for v in 0..n {
            child_offsets[v + 1] += child_offsets[v];
        }
        let mut fill = child_offsets.clone();
        let mut children = vec![0 as NodeId; child_offsets[n] as usize];
        // Children in the order of their ids: the order they first appear in the source.
        for (v, &p) in parent.iter().enumerate() {
            if p != NO_PARENT && v as NodeId != root {
                children[fill[p as usize] as usize] = v as NodeId;
                fill[p as usize] += 1;
            }
        }
        let mut leaf_start = vec![u32::MAX; n];
        let mut leaf_end = vec![u32::MAX; n];
        let mut height = vec![0u32; n];
        let mut leaves = Vec::new();
        // Iterative depth-first walk: (node, next child index).
        let mut stack: Vec<(NodeId, u32)> = vec![(root, 0)];
        leaf_start[root as usize] = 0;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            let (lo, hi) = (child_offsets[v as usize], child_offsets[v as usize + 1]);
            if lo == hi {
                leaf_start[v as usize] = leaves.len() as u32;
                leaves.push(v);
                leaf_end[v as usize] = leaves.len() as u32;
                stack.pop();
                continue;
            }
            if lo + *next < hi {
                let c = children[(lo + *next) as usize];
                *next += 1;
                leaf_start[c as usize] = leaves.len() as u32;
                stack.push((c, 0));
            } else {
                leaf_end[v as usize] = leaves.len() as u32;
                height[v as usize] = children[lo as usize..hi as usize]
                    .iter()
                    .map(|&c| height[c as usize] + 1)
                    .max()
                    .unwrap_or(0);
                stack.pop();
            }
        }
        Self {
            labels,
            parent,
            child_offsets,
            children,
            root,
            leaf_start,
            leaf_end,
            leaves,
            height,
            by_label,
        }
    }

    /// The paper's balanced hierarchy of fanout `f` over the data's items: the items in the
    /// order of their labels (numeric for integer labels: the item ids of BMS-WebView), cut
    /// into consecutive groups of `f`, the groups again into groups of `f`, up to one root.
    /// An inner node is labelled `L{level}:{first leaf}-{last leaf}`, the root `*`.
    ///
    /// # Errors
    /// [`KmError::Params`] for `f < 2` or data without items; [`KmError::Hierarchy`] when an
    /// item's label is one of the generated labels.
    pub fn balanced(db: &TransactionDb, fanout: usize) -> Result<Self, KmError> {
        check_fanout(db, fanout)?;
        let groups = |nodes: &[Vec<ItemId>], _level: usize| -> Vec<Vec<usize>> {
            (0..nodes.len()).collect::<Vec<_>>().chunks(fanout).map(<[usize]>::to_vec).collect()
        };
        Self::build_levels(db, groups)
    }

    /// A data-driven hierarchy of fanout `f`: at each level the nodes (first the items) are
    /// grouped by co-occurrence. The most frequent ungrouped node opens a group and takes the
    /// `f − 1` ungrouped nodes most correlated with it (largest φ², the anatomy paper's eq. 4,
    /// counted on the data generalized to that level; ties by label order); then the next.
    /// Labels as in [`balanced`](Self::balanced), a node named by its first and last leaf in
    /// label order.
    ///
    /// # Errors
    /// As [`balanced`](Self::balanced).
    ///
    /// # Complexity
    /// Per level, one pair count of the generalized data and `O(v²)` φ² evaluations for its
    /// `v` nodes.
    pub fn by_cooccurrence(db: &TransactionDb, fanout: usize) -> Result<Self, KmError> {
        check_fanout(db, fanout)?;
        if db.num_items() > MAX_COOCCURRENCE_ITEMS {
            return Err(KmError::Hierarchy(format!(
                "the co-occurrence hierarchy compares every pair of items: at most {MAX_COOCCURRENCE_ITEMS} items, the data has {}; use the balanced hierarchy or a hierarchy file",
                db.num_items()
            )));
        }
        let groups = |nodes: &[Vec<ItemId>], _level: usize| -> Vec<Vec<usize>> {
            // The data generalized to this level's nodes.
            let mut node_of_item = vec![0u32; db.num_items()];
            for (v, items) in nodes.iter().enumerate() {
                for &i in items {
                    node_of_item[i as usize] = v as u32;
                }
            }
            let mut rows: Vec<Vec<u32>> = Vec::with_capacity(db.len());
            for t in db.iter() {
                let mut row: Vec<u32> = t.iter().map(|&i| node_of_item[i as usize]).collect();
                row.sort_unstable();
                row.dedup();
                rows.push(row);
            }
            let generalized = TransactionDb::from_int_transactions(rows.iter());
            // `from_int_transactions` renumbers the labels that occur; map back.
            let mut id_of_node = vec![None; nodes.len()];
            for id in 0..generalized.num_items() as ItemId {
                let v: usize = generalized.label(id).to_string().parse().expect("integer labels");
                id_of_node[v] = Some(id);
            }
            let pairs = PairCounts::new(&generalized);
            let support = |v: usize| id_of_node[v].map_or(0, |id| pairs.support(id));
            // φ² with the sign of the association: the transaction form is as large for two
            // items that never meet as for two that always do, and only the latter belong
            // under one node.
            let n = pairs.transactions().max(1) as f64;
            let phi2 = |a: usize, b: usize| match (id_of_node[a], id_of_node[b]) {
                (Some(x), Some(y)) => {
                    let (fa, fb) = (pairs.support(x) as f64 / n, pairs.support(y) as f64 / n);
                    let fab = pairs.pair(x, y) as f64 / n;
                    let phi = txanon_correlate::phi2_transaction(fa, fb, fab);
                    if fab >= fa * fb { phi } else { -phi }
                }
                _ => 0.0,
            };
            let mut by_support: Vec<usize> = (0..nodes.len()).collect();
            by_support.sort_by_key(|&v| (std::cmp::Reverse(support(v)), v));
            let mut grouped = vec![false; nodes.len()];
            let mut out = Vec::new();
            for &seed in &by_support {
                if grouped[seed] {
                    continue;
                }
                grouped[seed] = true;
                let mut candidates: Vec<(f64, usize)> =
                    (0..nodes.len()).filter(|&v| !grouped[v]).map(|v| (phi2(seed, v), v)).collect();
                candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                let mut group = vec![seed];
                for &(_, v) in candidates.iter().take(fanout - 1) {
                    grouped[v] = true;
                    group.push(v);
                }
                group.sort_unstable();
                out.push(group);
            }
            out.sort();
            out
        };
        Self::build_levels(db, groups)
    }

    /// Builds a hierarchy level by level: `group(nodes, level)` partitions the current nodes
    /// (each given by the items below it, ascending) into the children lists of the next
    /// level, until one node is left.
    fn build_levels(
        db: &TransactionDb,
        group: impl Fn(&[Vec<ItemId>], usize) -> Vec<Vec<usize>>,
    ) -> Result<Self, KmError> {
        let m = db.num_items();
        let mut labels: Vec<String> = (0..m as ItemId).map(|i| db.label(i).to_string()).collect();
        let mut parent: Vec<NodeId> = vec![NO_PARENT; m];
        // The current level: node ids and the items below each.
        let mut level_nodes: Vec<NodeId> = (0..m as NodeId).collect();
        let mut level_items: Vec<Vec<ItemId>> = (0..m as ItemId).map(|i| vec![i]).collect();
        let mut level = 0;
        while level_nodes.len() > 1 {
            level += 1;
            let groups = group(&level_items, level);
            debug_assert!(groups.len() < level_nodes.len(), "each level must shrink");
            let last_level = groups.len() == 1;
            let mut next_nodes = Vec::with_capacity(groups.len());
            let mut next_items = Vec::with_capacity(groups.len());
            for g in groups {
                let mut items: Vec<ItemId> =
                    g.iter().flat_map(|&v| level_items[v].iter().copied()).collect();
                items.sort_unstable();
                let label = if last_level {
                    "*".to_string()
                } else {
                    let first = db.label(items[0]);
                    let last = db.label(*items.last().expect("a group holds a node"));
                    format!("L{level}:{first}-{last}")
                };
                let id = labels.len() as NodeId;
                labels.push(label);
                parent.push(NO_PARENT);
                for &v in &g {
                    parent[level_nodes[v] as usize] = id;
                }
                next_nodes.push(id);
                next_items.push(items);
            }
            level_nodes = next_nodes;
            level_items = next_items;
        }
        let root = level_nodes[0];
        let mut by_label = HashMap::with_capacity(labels.len());
        for (v, l) in labels.iter().enumerate() {
            if by_label.insert(l.clone(), v as NodeId).is_some() {
                return Err(KmError::Hierarchy(format!(
                    "the generated node label {l} is also an item's label: give a hierarchy file"
                )));
            }
        }
        Ok(Self::assemble(labels, parent, root, by_label))
    }

    /// The hierarchy as a file [`read`](Self::read) accepts: `child parent` lines, parents
    /// before their children, children in order (so reading it back gives the same tree).
    ///
    /// # Errors
    /// [`KmError::Hierarchy`] when a label holds a tab, a comma or a line break, which the
    /// format cannot carry.
    pub fn to_text(&self) -> Result<String, KmError> {
        if let Some(l) = self.labels.iter().find(|l| l.contains(['\t', ',', '\n', '\r'])) {
            return Err(KmError::Hierarchy(format!(
                "the label {l:?} holds a tab, comma or line break and cannot be written"
            )));
        }
        let mut out = String::new();
        let mut queue = std::collections::VecDeque::from([self.root]);
        while let Some(v) = queue.pop_front() {
            for &c in self.children(v) {
                let (child, parent) = (&self.labels[c as usize], &self.labels[v as usize]);
                let sep = if child.contains(' ') || parent.contains(' ') { '\t' } else { ' ' };
                writeln!(out, "{child}{sep}{parent}").expect("writing to a string");
                queue.push_back(c);
            }
        }
        Ok(out)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// False: a hierarchy has at least its root.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The root.
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// A node's label.
    pub fn label(&self, v: NodeId) -> &str {
        &self.labels[v as usize]
    }

    /// The node labelled `label`.
    pub fn find(&self, label: &str) -> Option<NodeId> {
        self.by_label.get(label).copied()
    }

    /// A node's parent (`None` for the root).
    pub fn parent(&self, v: NodeId) -> Option<NodeId> {
        let p = self.parent[v as usize];
        (v != self.root && p != NO_PARENT).then_some(p)
    }

    /// A node's children.
    pub fn children(&self, v: NodeId) -> &[NodeId] {
        let (lo, hi) = (self.child_offsets[v as usize], self.child_offsets[v as usize + 1]);
        &self.children[lo as usize..hi as usize]
    }

    /// True for a leaf.
    pub fn is_leaf(&self, v: NodeId) -> bool {
        self.children(v).is_empty()
    }

    /// The leaves in depth-first order.
    pub fn leaves(&self) -> &[NodeId] {
        &self.leaves
    }

    /// The positions `[start, end)` in [`leaves`](Self::leaves) of the leaves below `v`.
    pub fn leaf_range(&self, v: NodeId) -> std::ops::Range<usize> {
        self.leaf_start[v as usize] as usize..self.leaf_end[v as usize] as usize
    }

    /// Number of leaves below `v` (1 for a leaf).
    pub fn leaf_count(&self, v: NodeId) -> usize {
        self.leaf_range(v).len()
    }

    /// Edges on the longest path from `v` down to a leaf (0 for a leaf).
    pub fn height(&self, v: NodeId) -> u32 {
        self.height[v as usize]
    }

    /// True when `a` is `v` or one of its ancestors.
    pub fn covers(&self, a: NodeId, v: NodeId) -> bool {
        let (ra, rv) = (self.leaf_range(a), self.leaf_range(v));
        // Leaf ranges are nested or disjoint and never empty, so two nodes with equal ranges
        // lie on one chain of single children, where the higher one is the ancestor.
        if ra.start > rv.start || rv.end > ra.end {
            return false;
        }
        ra != rv || self.height(a) >= self.height(v)
    }

    /// `v`, its parent, and so on up to the root.
    pub fn ancestors_or_self(&self, v: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(Some(v), move |&u| self.parent(u))
    }

    /// The leaf of every item of `db` (indexed by item id), matched by label.
    ///
    /// # Errors
    /// [`KmError::Hierarchy`] naming an item that is not in the hierarchy or is an inner
    /// node of it.
    pub fn leaves_of_items(&self, db: &TransactionDb) -> Result<Vec<NodeId>, KmError> {
        (0..db.num_items() as ItemId).map(|i| self.leaf_of(&db.label(i).to_string())).collect()
    }

    /// The leaf labelled `label`, an item of the data.
    ///
    /// # Errors
    /// [`KmError::Hierarchy`] when no node has that label, or an inner node has.
    pub fn leaf_of(&self, label: &str) -> Result<NodeId, KmError> {
        match self.find(label) {
            None => Err(KmError::Hierarchy(format!(
                "item {label} of the data is not a node of the hierarchy"
            ))),
            Some(v) if !self.is_leaf(v) => Err(KmError::Hierarchy(format!(
                "item {label} of the data is an inner node of the hierarchy, not a leaf"
            ))),
            Some(v) => Ok(v),
        }
    }

    /// The number of cuts of the hierarchy (saturating): a leaf has one, an inner node its
    /// own plus the product of its children's.
    pub fn cut_count(&self) -> u128 {
        let mut count = vec![1u128; self.len()];
        // Children have smaller heights; visit by height.
        let mut order: Vec<NodeId> = (0..self.len() as NodeId).collect();
        order.sort_by_key(|&v| self.height(v));
        for v in order {
            if !self.is_leaf(v) {
                let product = self
                    .children(v)
                    .iter()
                    .fold(1u128, |acc, &c| acc.saturating_mul(count[c as usize]));
                count[v as usize] = product.saturating_add(1);
            }
        }
        count[self.root as usize]
    }
}

/// The most items [`Hierarchy::by_cooccurrence`] groups: its `O(v²)` comparisons take seconds
/// there.
pub const MAX_COOCCURRENCE_ITEMS: usize = 20_000;

fn check_fanout(db: &TransactionDb, fanout: usize) -> Result<(), KmError> {
    if fanout < 2 {
        return Err(ParamError::OutOfRange {
            name: "fanout",
            value: fanout.to_string(),
            reason: "at least 2: a node generalizes two or more children",
        }
        .into());
    }
    if db.num_items() == 0 {
        return Err(KmError::Hierarchy("the data has no item".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper() -> Hierarchy {
        Hierarchy::from_text("a1 A\na2 A\nb1 B\nb2 B\nA ALL\nB ALL\n").unwrap()
    }

    #[test]
    fn the_paper_hierarchy_is_read() {
        let h = paper();
        assert_eq!(h.len(), 7);
        assert_eq!(h.label(h.root()), "ALL");
        let a = h.find("A").unwrap();
        assert_eq!(h.leaf_count(a), 2);
        assert_eq!(h.leaf_count(h.root()), 4);
        assert_eq!(h.height(h.root()), 2);
        assert!(h.covers(a, h.find("a2").unwrap()));
        assert!(!h.covers(a, h.find("b1").unwrap()));
        assert!(h.covers(h.root(), a));
        assert!(!h.covers(a, h.root()));
        // {ALL}, {A, B}, {A, b1, b2}, {a1, a2, B}, {a1, a2, b1, b2}.
        assert_eq!(h.cut_count(), 5);
        let text = h.to_text().unwrap();
        assert_eq!(Hierarchy::from_text(&text).unwrap().to_text().unwrap(), text);
    }

    #[test]
    fn malformed_trees_name_their_line() {
        let line = |text: &str| match Hierarchy::from_text(text).unwrap_err() {
            DataError::Parse { location, reason } => (location.line, reason),
            other => panic!("{other}"),
        };
        assert_eq!(line("a A\nb\n").0, 2);
        assert_eq!(line("a A\nb b\n").0, 2);
        assert!(line("a A\nb A\na B\nA R\nB R\n").1.contains("already has the parent"));
        assert_eq!(line("a A\nb A\nA R\nx y\ny x\n").0, 4, "x is on a cycle");
        assert!(Hierarchy::from_text("a A\nb B\n").unwrap_err().to_string().contains("one root"));
        assert!(
            Hierarchy::from_text("# nothing\n\n").unwrap_err().to_string().contains("no child")
        );
        // Labels with spaces through tabs or commas.
        let h = Hierarchy::from_text("whole milk\tdairy\nbutter,dairy\n").unwrap();
        assert_eq!(h.leaf_count(h.find("dairy").unwrap()), 2);
        let text = h.to_text().unwrap();
        assert_eq!(Hierarchy::from_text(&text).unwrap().to_text().unwrap(), text);
    }

    #[test]
    fn balanced_groups_items_in_label_order() {
        let db = TransactionDb::from_int_transactions([vec![1, 2, 3, 4, 5, 6, 7]]);
        let h = Hierarchy::balanced(&db, 3).unwrap();
        // 7 leaves, 3 groups (3 + 3 + 1), one root.
        assert_eq!(h.len(), 11);
        assert_eq!(h.label(h.root()), "*");
        let g = h.find("L1:1-3").unwrap();
        assert_eq!(h.children(g).iter().map(|&c| h.label(c)).collect::<Vec<_>>(), ["1", "2", "3"]);
        assert!(h.find("L1:7-7").is_some());
        assert_eq!(h.leaves_of_items(&db).unwrap().len(), 7);
        assert_eq!(Hierarchy::from_text(&h.to_text().unwrap()).unwrap().cut_count(), h.cut_count());
        assert!(Hierarchy::balanced(&db, 1).is_err());
        let clash = TransactionDb::from_str_transactions([vec!["*", "b"]]);
        assert!(Hierarchy::balanced(&clash, 2).is_err());
    }

    #[test]
    fn cooccurrence_groups_items_seen_together() {
        // 1 and 3 always together, 2 and 4 always together.
        let db = TransactionDb::from_int_transactions([
            vec![1, 3],
            vec![1, 3],
            vec![2, 4],
            vec![2, 4],
            vec![1, 3, 5],
            vec![2, 4],
        ]);
        let h = Hierarchy::by_cooccurrence(&db, 2).unwrap();
        let parent_label = |l: &str| h.label(h.parent(h.find(l).unwrap()).unwrap()).to_string();
        assert_eq!(parent_label("1"), parent_label("3"));
        assert_eq!(parent_label("2"), parent_label("4"));
        assert_ne!(parent_label("1"), parent_label("2"));
        assert_eq!(h.leaf_count(h.root()), 5);
    }
}
