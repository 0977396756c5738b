//! The slicing experiment's learners: one-hot features fitted on the original training data,
//! naive Bayes (written here, see `naive_bayes`) and linfa's decision tree, and the accuracy of
//! each trained on a publication and tested on the original test split.

use anyhow::{Context as _, Result};
use linfa::prelude::*;
use linfa_trees::DecisionTree;
use ndarray::{Array1, Array2};
use txanon_data::AttributeType;
use txanon_slicing::Microdata;

use super::slicing::Rows;

#[derive(Debug, Clone, Copy)]
pub(super) enum Classifier {
    NaiveBayes,
    DecisionTree,
}

impl Classifier {
    pub(super) const ALL: [Classifier; 2] = [Classifier::NaiveBayes, Classifier::DecisionTree];

    pub(super) fn name(self) -> &'static str {
        match self {
            Classifier::NaiveBayes => "naive Bayes",
            Classifier::DecisionTree => "decision tree",
        }
    }
}

/// One-hot features from text rows, fitted on the original training data.
pub(super) struct Featurizer {
    names: Vec<String>,
    /// Per attribute: categorical labels, or numeric interval upper bounds.
    kinds: Vec<Encoding>,
}

enum Encoding {
    Categories(Vec<String>),
    Intervals(Vec<f64>),
}

impl Encoding {
    fn width(&self) -> usize {
        match self {
            Encoding::Categories(v) => v.len(),
            Encoding::Intervals(b) => b.len() + 1,
        }
    }

    fn slot(&self, text: &str) -> Option<usize> {
        match self {
            Encoding::Categories(v) => v.binary_search_by(|x| x.as_str().cmp(text)).ok(),
            Encoding::Intervals(bounds) => {
                let x: f64 = text.parse().ok()?;
                Some(bounds.partition_point(|&b| b < x))
            }
        }
    }
}

impl Featurizer {
    pub(super) fn new(train: &Microdata) -> Self {
        let kinds = (0..train.attributes())
            .map(|a| match train.kind(a) {
                AttributeType::Categorical => Encoding::Categories(
                    (0..train.domain(a) as u32).map(|c| train.label(a, c).to_string()).collect(),
                ),
                AttributeType::Numeric => {
                    let mut xs: Vec<f64> =
                        train.codes(a).iter().map(|&c| train.number(a, c).unwrap_or(0.0)).collect();
                    xs.sort_by(f64::total_cmp);
                    let mut bounds: Vec<f64> =
                        (1..10).map(|i| xs[(i * xs.len() / 10).min(xs.len() - 1)]).collect();
                    bounds.dedup();
                    Encoding::Intervals(bounds)
                }
            })
            .collect();
        Featurizer { names: train.names().to_vec(), kinds }
    }

    fn matrix(&self, rows: &Rows, skip: &[usize]) -> Array2<f64> {
        let offsets: Vec<Option<usize>> = {
            let mut at = 0;
            self.kinds
                .iter()
                .enumerate()
                .map(|(a, k)| {
                    if skip.contains(&a) {
                        None
                    } else {
                        let o = at;
                        at += k.width();
                        Some(o)
                    }
                })
                .collect()
        };
        let width: usize = self
            .kinds
            .iter()
            .enumerate()
            .filter(|(a, _)| !skip.contains(a))
            .map(|(_, k)| k.width())
            .sum();
        let mut x = Array2::<f64>::zeros((rows.len(), width));
        for (r, row) in rows.iter().enumerate() {
            for (a, kind) in self.kinds.iter().enumerate() {
                if let (Some(o), Some(slot)) = (offsets[a], kind.slot(&row[a])) {
                    x[[r, o + slot]] = 1.0;
                }
            }
        }
        x
    }

    /// Accuracy on `test` of `classifier` trained on `train` to predict `target`, without the
    /// attributes `drop`. Training rows whose target is not one of the original's labels (a
    /// generalized target) are left out.
    pub(super) fn accuracy(
        &self,
        train: &Rows,
        test: &Rows,
        target: &str,
        drop: &[&str],
        classifier: Classifier,
    ) -> Result<f64> {
        let t = self.names.iter().position(|n| n == target).context("target attribute")?;
        let mut skip: Vec<usize> =
            drop.iter().filter_map(|d| self.names.iter().position(|n| n == d)).collect();
        skip.push(t);
        let labelled = |rows: &Rows| -> (Rows, Array1<usize>) {
            let keep: Vec<(Vec<String>, usize)> = rows
                .iter()
                .filter_map(|r| self.kinds[t].slot(&r[t]).map(|y| (r.clone(), y)))
                .collect();
            let y = Array1::from_iter(keep.iter().map(|(_, y)| *y));
            (keep.into_iter().map(|(r, _)| r).collect(), y)
        };
        let (train_rows, train_y) = labelled(train);
        let (test_rows, test_y) = labelled(test);
        let train_x = self.matrix(&train_rows, &skip);
        let test_x = self.matrix(&test_rows, &skip);
        let predicted: Array1<usize> = match classifier {
            Classifier::NaiveBayes => {
                let widths: Vec<usize> = (0..self.kinds.len())
                    .filter(|a| !skip.contains(a))
                    .map(|a| self.kinds[a].width())
                    .collect();
                naive_bayes(&train_x, &train_y, &widths, &test_x)
            }
            Classifier::DecisionTree => DecisionTree::params()
                .max_depth(Some(12))
                .fit(&Dataset::new(train_x, train_y))?
                .predict(&test_x),
        };
        let right = predicted.iter().zip(test_y.iter()).filter(|(p, y)| p == y).count();
        Ok(right as f64 / test_y.len().max(1) as f64)
    }
}

/// Naive Bayes over one-hot attributes with Laplace smoothing: a value's probability in a
/// class is its count there plus one, over the class's rows plus the attribute's number of
/// values (`widths`: the attributes' slot counts, in order). Predicts the most probable class.
/// Written here rather than taken from linfa-bayes, whose 0.8.1 `MultinomialNb::fit` leaves a
/// `dbg!` that prints every class's parameters to stderr on each fit; on one-hot rows the
/// multinomial's per-feature probabilities are these divided by the number of attributes.
fn naive_bayes(
    x: &Array2<f64>,
    y: &Array1<usize>,
    widths: &[usize],
    test: &Array2<f64>,
) -> Array1<usize> {
    let values_of: Vec<f64> =
        widths.iter().flat_map(|&w| std::iter::repeat_n(w as f64, w)).collect();
    let classes = y.iter().copied().max().map_or(0, |m| m + 1);
    let width = x.ncols();
    let mut rows = vec![0.0f64; classes];
    let mut ones = vec![0.0f64; classes * width];
    for (row, &c) in x.rows().into_iter().zip(y.iter()) {
        rows[c] += 1.0;
        for (j, &v) in row.iter().enumerate() {
            ones[c * width + j] += v;
        }
    }
    let n: f64 = rows.iter().sum();
    let log_prior: Vec<f64> =
        rows.iter().map(|&r| ((r + 1.0) / (n + classes as f64)).ln()).collect();
    let log_p: Vec<f64> = (0..classes * width)
        .map(|i| ((ones[i] + 1.0) / (rows[i / width] + values_of[i % width])).ln())
        .collect();
    Array1::from_iter(test.rows().into_iter().map(|row| {
        let score = |c: usize| -> f64 {
            let present: f64 = row
                .iter()
                .enumerate()
                .filter(|&(_, &v)| v > 0.0)
                .map(|(j, _)| log_p[c * width + j])
                .sum();
            log_prior[c] + present
        };
        (0..classes)
            .filter(|&c| rows[c] > 0.0)
            .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
            .unwrap_or(0)
    }))
}
