//! Membership disclosure: can an adversary who knows a person's values tell from the
//! publication whether the person is in the data? The TKDE paper's measure: the number of
//! *matching buckets* of the original tuples against that of fake tuples built from real
//! column values. A tuple matches a bucket when each of its column values occurs in the
//! bucket; an original tuple always matches its own, and when fake tuples match about as
//! many buckets the publication does not tell them apart.
//!
//! For the baselines the same question: a tuple matches an Anatomy group when its exact
//! quasi-identifiers are a QIT row of the group and its sensitive value is in the group's
//! ST, and a Mondrian class when the class's cells cover its values.

use std::collections::{HashMap, HashSet};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::Serialize;

use crate::bucketized::AnatomyTables;
use crate::cell::{Cell, Resolver};
use crate::generalized::GeneralizedTable;
use crate::microdata::Microdata;
use crate::sliced::SlicedTable;

/// Tuples as text, one value per attribute of the [`Microdata`] they come from, in its order.
pub type Tuples = Vec<Vec<String>>;

/// Counts of tuples by number of matching buckets: 0, 1, 2–10, 11–20, more than 20 (the
/// paper's bins).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Histogram {
    /// No matching bucket.
    pub none: usize,
    /// Exactly one.
    pub one: usize,
    /// 2 to 10.
    pub few: usize,
    /// 11 to 20.
    pub some: usize,
    /// More than 20.
    pub many: usize,
}

impl Histogram {
    /// The histogram of `matches`.
    pub fn of(matches: &[usize]) -> Self {
        let mut h = Histogram::default();
        for &m in matches {
            match m {
                0 => h.none += 1,
                1 => h.one += 1,
                2..=10 => h.few += 1,
                11..=20 => h.some += 1,
                _ => h.many += 1,
            }
        }
        h
    }

    /// Bin labels, in the order of [`Histogram::counts`].
    pub const BINS: [&'static str; 5] = ["0", "1", "2-10", "11-20", ">20"];

    /// The counts in bin order.
    pub fn counts(&self) -> [usize; 5] {
        [self.none, self.one, self.few, self.some, self.many]
    }
}

/// The original tuples as text.
pub fn original_tuples(data: &Microdata) -> Tuples {
    (0..data.len())
        .map(|r| (0..data.attributes()).map(|a| data.text(a, r).to_string()).collect())
        .collect()
}

/// `n` fake tuples: each column's values (attribute indices in `columns`) taken together from
/// an independently drawn original tuple, redrawn while the combination is an original tuple.
/// Gives up redrawing after `100 n` attempts (a table whose every combination exists).
pub fn fake_tuples(data: &Microdata, columns: &[Vec<usize>], n: usize, seed: u64) -> Tuples {
    let originals: HashSet<Vec<u32>> = (0..data.len())
        .map(|r| (0..data.attributes()).map(|a| data.codes(a)[r]).collect())
        .collect();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut attempts = 0usize;
    while out.len() < n && attempts < 100 * n.max(1) && !data.is_empty() {
        attempts += 1;
        let mut codes = vec![0u32; data.attributes()];
        for column in columns {
            let r = rng.random_range(0..data.len());
            for &a in column {
                codes[a] = data.codes(a)[r];
            }
        }
        if originals.contains(&codes) {
            continue;
        }
        out.push(codes.iter().enumerate().map(|(a, &c)| data.label(a, c).to_string()).collect());
    }
    out
}

/// Matching buckets of each tuple in a sliced table; `names` are the tuples' attributes.
pub fn sliced_matches(table: &SlicedTable, names: &[String], tuples: &[Vec<String>]) -> Vec<usize> {
    // Per column: its published cells (ids through a resolver, which also finds the cell
    // covering a value when the column is generalized) and the buckets holding each.
    let mut at = 0;
    let mut columns: Vec<ColumnCells> = Vec::new();
    for column in &table.meta.columns {
        let span = at..at + column.len();
        let mut resolver = Resolver::default();
        let mut holders: Vec<HashSet<u32>> = Vec::new();
        for row in &table.rows {
            let id = resolver.id_of_cells(&row.cells[span.clone()]);
            if id == holders.len() {
                holders.push(HashSet::new());
            }
            holders[id].insert(row.bucket);
        }
        let picks = column.iter().map(|name| names.iter().position(|n| n == name)).collect();
        columns.push((picks, resolver, holders));
        at = span.end;
    }
    tuples
        .iter()
        .map(|t| {
            let mut buckets: Option<HashSet<u32>> = None;
            for (picks, resolver, holders) in &mut columns {
                let Some(values) =
                    picks.iter().map(|p| p.map(|p| t[p].clone())).collect::<Option<Vec<_>>>()
                else {
                    return 0;
                };
                let Some(id) = resolver.resolve(&values) else { return 0 };
                let here = &holders[id];
                buckets = Some(match buckets {
                    None => here.clone(),
                    Some(prev) => prev.intersection(here).copied().collect(),
                });
            }
            buckets.map_or(0, |b| b.len())
        })
        .collect()
}

/// A published column for matching: where its attributes are in a tuple, its cells, and the
/// buckets holding each cell.
type ColumnCells = (Vec<Option<usize>>, Resolver, Vec<HashSet<u32>>);

/// Matching classes of each tuple in a generalized table.
pub fn generalized_matches(
    table: &GeneralizedTable,
    names: &[String],
    tuples: &[Vec<String>],
) -> Vec<usize> {
    let picks: Vec<Option<usize>> =
        table.meta.attributes.iter().map(|a| names.iter().position(|n| n == a)).collect();
    let s = table.meta.attributes.iter().position(|a| a == &table.meta.sensitive);
    let mut classes: HashMap<Vec<&str>, HashSet<&str>> = HashMap::new();
    for row in &table.rows {
        let qi = row.iter().enumerate().filter(|&(a, _)| Some(a) != s).map(|(_, c)| c.as_str());
        classes.entry(qi.collect()).or_default().insert(&row[s.unwrap_or(0)]);
    }
    let parsed: Vec<(Vec<Cell>, &HashSet<&str>)> = classes
        .iter()
        .map(|(qi, sens)| (qi.iter().map(|c| Cell::parse(c)).collect(), sens))
        .collect();
    let qi_picks: Vec<Option<usize>> =
        picks.iter().enumerate().filter(|&(a, _)| Some(a) != s).map(|(_, &p)| p).collect();
    let s_pick = s.and_then(|s| picks[s]);
    tuples
        .iter()
        .map(|t| {
            parsed
                .iter()
                .filter(|(cells, sens)| {
                    s_pick.is_some_and(|p| sens.contains(t[p].as_str()))
                        && cells
                            .iter()
                            .zip(&qi_picks)
                            .all(|(c, p)| p.is_some_and(|p| c.covers(&t[p])))
                })
                .count()
        })
        .collect()
}

/// Matching groups of each tuple in anatomy tables.
pub fn anatomy_matches(
    tables: &AnatomyTables,
    names: &[String],
    tuples: &[Vec<String>],
) -> Vec<usize> {
    let picks: Vec<Option<usize>> =
        tables.meta.quasi_identifiers.iter().map(|a| names.iter().position(|n| n == a)).collect();
    let s_pick = names.iter().position(|n| n == &tables.meta.sensitive);
    let mut groups_of: HashMap<Vec<&str>, HashSet<u32>> = HashMap::new();
    for (g, qi) in &tables.qit {
        groups_of.entry(qi.iter().map(String::as_str).collect()).or_default().insert(*g);
    }
    let values: HashSet<(u32, &str)> = tables.st.iter().map(|(g, v, _)| (*g, v.as_str())).collect();
    tuples
        .iter()
        .map(|t| {
            let Some(qi) =
                picks.iter().map(|p| p.map(|p| t[p].as_str())).collect::<Option<Vec<_>>>()
            else {
                return 0;
            };
            let Some(s) = s_pick.map(|p| t[p].as_str()) else { return 0 };
            groups_of
                .get(&qi)
                .map_or(0, |gs| gs.iter().filter(|&&g| values.contains(&(g, s))).count())
        })
        .collect()
}
