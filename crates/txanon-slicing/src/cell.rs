//! Published cells: the one syntax of generalized values (`[lo..hi]` for a numeric range,
//! `{a|b|c}` for a set of categories, otherwise the value itself), written by Mondrian and
//! column generalization and read back by the audits, membership and learners.

use std::collections::HashMap;
use std::fmt;

/// A published cell: a value, a numeric range or a set of categories.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// One value, as published.
    Exact(String),
    /// Every number from `lo` to `hi`, both included.
    Range(f64, f64),
    /// Any of these categories.
    Set(Vec<String>),
}

impl Cell {
    /// Reads a published cell.
    pub fn parse(text: &str) -> Cell {
        if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']'))
            && let Some((lo, hi)) = inner.split_once("..")
            && let (Ok(lo), Ok(hi)) = (lo.parse(), hi.parse())
        {
            return Cell::Range(lo, hi);
        }
        if let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
            return Cell::Set(inner.split('|').map(str::to_string).collect());
        }
        Cell::Exact(text.to_string())
    }

    /// True for a range or a set.
    pub fn is_generalized(&self) -> bool {
        !matches!(self, Cell::Exact(_))
    }

    /// Whether an original value (as text) lies in the cell.
    pub fn covers(&self, value: &str) -> bool {
        match self {
            Cell::Exact(v) => v == value,
            Cell::Range(lo, hi) => value.parse::<f64>().is_ok_and(|x| *lo <= x && x <= *hi),
            Cell::Set(values) => values.iter().any(|v| v == value),
        }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Exact(v) => f.write_str(v),
            Cell::Range(lo, hi) => write!(f, "[{lo}..{hi}]"),
            Cell::Set(values) => write!(f, "{{{}}}", values.join("|")),
        }
    }
}

/// Maps tuples' values in some attributes to the published cells of those attributes: by
/// equality first, else by the (unique, for Mondrian boxes) cell covering them.
#[derive(Debug, Default)]
pub(crate) struct Resolver {
    ids: HashMap<Vec<String>, usize>,
    parsed: Vec<Vec<Cell>>,
    generalized: Vec<usize>,
    cache: HashMap<Vec<String>, Option<usize>>,
}

impl Resolver {
    pub(crate) fn id_of_cells(&mut self, cells: &[String]) -> usize {
        if let Some(&id) = self.ids.get(cells) {
            return id;
        }
        let id = self.parsed.len();
        let parsed: Vec<Cell> = cells.iter().map(|c| Cell::parse(c)).collect();
        if parsed.iter().any(Cell::is_generalized) {
            self.generalized.push(id);
        }
        self.parsed.push(parsed);
        self.ids.insert(cells.to_vec(), id);
        id
    }

    pub(crate) fn resolve(&mut self, values: &[String]) -> Option<usize> {
        if let Some(&id) = self.ids.get(values) {
            return Some(id);
        }
        if let Some(&hit) = self.cache.get(values) {
            return hit;
        }
        let hit = self
            .generalized
            .iter()
            .copied()
            .find(|&id| self.parsed[id].iter().zip(values).all(|(cell, v)| cell.covers(v)));
        self.cache.insert(values.to_vec(), hit);
        hit
    }
}
