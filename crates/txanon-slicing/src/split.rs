//! Mondrian's cuts (LeFevre, DeWitt, Ramakrishnan, ICDE 2006): the widest attribute of a
//! partition, cut at its median, shared by slicing's tuple partition, the Mondrian baseline
//! and column generalization.

use txanon_data::AttributeType;

use crate::cell::Cell;
use crate::microdata::Microdata;

/// Cuts partitions (row lists) along attributes `dims`.
#[derive(Debug)]
pub(crate) struct Splitter<'a> {
    data: &'a Microdata,
    dims: Vec<usize>,
    /// Per dimension, the whole table's extent: the numeric range, or distinct values − 1.
    extent: Vec<f64>,
    /// Per dimension, a generation mark per code, to count a partition's distinct values.
    marks: Vec<Vec<u32>>,
    generation: u32,
}

impl<'a> Splitter<'a> {
    pub(crate) fn new(data: &'a Microdata, dims: Vec<usize>) -> Self {
        let extent = dims
            .iter()
            .map(|&a| match data.kind(a) {
                AttributeType::Numeric => {
                    let last = data.domain(a).saturating_sub(1) as u32;
                    data.number(a, last).unwrap_or(0.0) - data.number(a, 0).unwrap_or(0.0)
                }
                AttributeType::Categorical => data.domain(a).saturating_sub(1) as f64,
            })
            .collect();
        let marks = dims.iter().map(|&a| vec![0; data.domain(a)]).collect();
        Self { data, dims, extent, marks, generation: 0 }
    }

    /// The dimensions in which `rows` has more than one value, widest first (Mondrian's
    /// normalized width: the partition's range over the table's, numeric by value and
    /// categorical by distinct values), ties to the earlier dimension.
    pub(crate) fn by_width(&mut self, rows: &[u32]) -> Vec<usize> {
        self.generation += 1;
        let g = self.generation;
        let mut widths = Vec::with_capacity(self.dims.len());
        for (d, &a) in self.dims.iter().enumerate() {
            if self.extent[d] <= 0.0 {
                continue;
            }
            let codes = self.data.codes(a);
            let width = match self.data.kind(a) {
                AttributeType::Numeric => {
                    let (lo, hi) = rows.iter().fold((u32::MAX, 0), |(lo, hi), &r| {
                        let c = codes[r as usize];
                        (lo.min(c), hi.max(c))
                    });
                    if lo >= hi {
                        continue;
                    }
                    let n = |c| self.data.number(a, c).unwrap_or(0.0);
                    (n(hi) - n(lo)) / self.extent[d]
                }
                AttributeType::Categorical => {
                    let marks = &mut self.marks[d];
                    let mut distinct = 0usize;
                    for &r in rows {
                        let c = codes[r as usize] as usize;
                        if marks[c] != g {
                            marks[c] = g;
                            distinct += 1;
                        }
                    }
                    if distinct < 2 {
                        continue;
                    }
                    (distinct - 1) as f64 / self.extent[d]
                }
            };
            widths.push((width, d));
        }
        widths.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        widths.into_iter().map(|(_, d)| self.dims[d]).collect()
    }

    /// `rows` cut along attribute `a` at the median code: every row with a code below the cut
    /// goes left, so equal values stay together (Mondrian's strict partitioning). Of the two
    /// cuts around the median (below it, or up to it) the more balanced one that leaves both
    /// sides non-empty; `None` when all rows share one code.
    pub(crate) fn cut(&self, rows: &[u32], a: usize) -> Option<(Vec<u32>, Vec<u32>)> {
        let codes = self.data.codes(a);
        let mut values: Vec<u32> = rows.iter().map(|&r| codes[r as usize]).collect();
        let mid = values.len() / 2;
        let median = *values.select_nth_unstable(mid).1;
        let below = values.iter().filter(|&&c| c < median).count();
        let up_to = values.iter().filter(|&&c| c <= median).count();
        let n = values.len();
        let balance = |left: usize| (2 * left).abs_diff(n);
        let threshold = match (below > 0, up_to < n) {
            (true, true) if balance(below) <= balance(up_to) => median,
            (_, true) => median + 1,
            (true, false) => median,
            (false, false) => return None,
        };
        let (left, right) = rows.iter().partition(|&&r| codes[r as usize] < threshold);
        Some((left, right))
    }
}

/// The published cell of attribute `a` over `rows`: the value itself when there is one, else
/// the numeric range or the set of categories present.
pub(crate) fn cell_of(data: &Microdata, rows: &[u32], a: usize) -> String {
    let codes = data.codes(a);
    let mut present: Vec<u32> = rows.iter().map(|&r| codes[r as usize]).collect();
    present.sort_unstable();
    present.dedup();
    let cell = match (present.as_slice(), data.kind(a)) {
        ([one], _) => Cell::Exact(data.label(a, *one).to_string()),
        (many, AttributeType::Numeric) => {
            let number = |c: u32| data.number(a, c).expect("numeric");
            Cell::Range(number(many[0]), number(many[many.len() - 1]))
        }
        (many, AttributeType::Categorical) => {
            Cell::Set(many.iter().map(|&c| data.label(a, c).to_string()).collect())
        }
    };
    cell.to_string()
}

/// Mondrian's recursive partitioning of `rows` along `dims`: a partition is cut along its
/// widest dimension for which `allowable` accepts both halves (the next widest when it does
/// not), and is final when no dimension gives an allowable cut. Partitions are returned in a
/// deterministic order (depth first, left before right).
pub(crate) fn mondrian(
    data: &Microdata,
    rows: Vec<u32>,
    dims: Vec<usize>,
    allowable: impl Fn(&[u32]) -> bool,
) -> Vec<Vec<u32>> {
    let mut splitter = Splitter::new(data, dims);
    let mut done = Vec::new();
    let mut stack = vec![rows];
    while let Some(part) = stack.pop() {
        let mut cut = None;
        for a in splitter.by_width(&part) {
            if let Some((left, right)) = splitter.cut(&part, a)
                && allowable(&left)
                && allowable(&right)
            {
                cut = Some((left, right));
                break;
            }
        }
        match cut {
            Some((left, right)) => {
                stack.push(right);
                stack.push(left);
            }
            None => done.push(part),
        }
    }
    done
}
