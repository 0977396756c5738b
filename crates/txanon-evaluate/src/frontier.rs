//! Which publications are worth publishing against an adversary: the points no other point
//! beats on risk and on both utility measures at once (the Pareto frontier), and the verdict
//! in words.
//!
//! A point beats another when its mean risk is no higher, its frequent-itemset F1 (at the
//! first support) no lower and its workload error no higher, and one of the three is strictly
//! better. Two utility measures, not one: removing the sensitive items costs rare-item F1
//! nothing but answers every count query about them with 0, which only the workload sees.

use serde::Serialize;

use crate::{Evaluation, Outcome, Point};

/// Differences below this are ties: the measures are sums of floats.
const TIE: f64 = 1e-9;

/// An adversary of the comparison, each read from [`txanon_attack::KnownItems`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Adversary {
    /// Links the target to its own published record.
    Reidentification,
    /// Names a sensitive item the target holds.
    SensitiveInference,
    /// Names the target's tendency (the heaviest category of its items).
    TendencyInference,
}

impl Adversary {
    /// Every adversary, in report order.
    pub const ALL: [Adversary; 3] =
        [Adversary::Reidentification, Adversary::SensitiveInference, Adversary::TendencyInference];

    /// The adversary's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Adversary::Reidentification => "re-identification",
            Adversary::SensitiveInference => "sensitive inference",
            Adversary::TendencyInference => "tendency inference",
        }
    }

    /// What its risk is, in one phrase.
    pub fn risk(self) -> &'static str {
        match self {
            Adversary::Reidentification => "probability of linking the target to its own record",
            Adversary::SensitiveInference => "probability given to the target's sensitive item",
            Adversary::TendencyInference => "probability of naming the target's tendency",
        }
    }
}

impl Point {
    /// The mean risk against `adversary` knowing `q` items, when the point was attacked at `q`
    /// and has targets for that adversary.
    pub fn risk(&self, adversary: Adversary, q: usize) -> Option<f64> {
        let Outcome::Published { privacy, .. } = &self.outcome else { return None };
        let at =
            privacy.by_known.iter().find(|k| k.known == q && k.reidentification.targets > 0)?;
        match adversary {
            Adversary::Reidentification => Some(at.reidentification.mean),
            Adversary::SensitiveInference => {
                (at.sensitive.targets > 0).then_some(at.sensitive.mean)
            }
            Adversary::TendencyInference => at.tendency.filter(|t| t.targets > 0).map(|t| t.mean),
        }
    }

    /// The frequent-itemset F1 at the first support, when published.
    pub fn f1(&self) -> Option<f64> {
        match &self.outcome {
            Outcome::Published { utility, .. } => utility.itemsets.first().map(|i| i.f1),
            Outcome::Infeasible { .. } => None,
        }
    }

    /// Whether the point is a reference (the original, or the original without its sensitive
    /// items): shown beside the methods, never on a frontier, never beating one.
    pub fn is_reference(&self) -> bool {
        matches!(self.method.as_str(), "original" | "sensitive removed")
    }

    /// The point as reports name it: the method, and its level when it has one.
    pub fn label(&self) -> String {
        match self.level {
            Some(l) => format!("{} {l}", self.method),
            None => self.method.clone(),
        }
    }
}

/// A published point's place against one adversary.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing<'a> {
    /// The point.
    pub point: &'a Point,
    /// Its mean risk.
    pub risk: f64,
    /// Its F1 at the first support.
    pub f1: f64,
    /// Its workload error.
    pub workload_error: f64,
    /// The points that beat it: a publication beaten by the unprotected original buys nothing
    /// for its loss.
    pub beaten_by: Vec<&'a Point>,
}

impl Standing<'_> {
    /// Whether nothing beats it; a reference is never on the frontier, whatever its place.
    pub fn on_frontier(&self) -> bool {
        self.beaten_by.is_empty() && !self.point.is_reference()
    }

    fn beats(&self, other: &Self) -> bool {
        let no_worse = self.risk <= other.risk + TIE
            && self.f1 >= other.f1 - TIE
            && self.workload_error <= other.workload_error + TIE;
        let better = self.risk < other.risk - TIE
            || self.f1 > other.f1 + TIE
            || self.workload_error < other.workload_error - TIE;
        no_worse && better
    }
}

/// Every point attacked by `adversary` at `q`, in the evaluation's order, with the points
/// that beat it.
pub fn standings(e: &Evaluation, adversary: Adversary, q: usize) -> Vec<Standing<'_>> {
    let mut all: Vec<Standing<'_>> = e
        .points
        .iter()
        .filter_map(|p| {
            let Outcome::Published { utility, .. } = &p.outcome else { return None };
            Some(Standing {
                point: p,
                risk: p.risk(adversary, q)?,
                f1: p.f1()?,
                workload_error: utility.workload_error,
                beaten_by: Vec::new(),
            })
        })
        .collect();
    for i in 0..all.len() {
        let beaten_by: Vec<&Point> =
            all.iter().filter(|s| s.beats(&all[i])).map(|s| s.point).collect();
        all[i].beaten_by = beaten_by;
    }
    all
}

/// The verdict against `adversary` at `q` in words: the frontier, the methods some other
/// method beats at every level, each beaten point with what beats it, and where the references
/// stand. `None` when no point was attacked by this adversary.
pub fn verdict(e: &Evaluation, adversary: Adversary, q: usize) -> Option<String> {
    let standings = standings(e, adversary, q);
    if standings.is_empty() {
        return None;
    }
    let list = |points: &mut dyn Iterator<Item = &Point>| {
        points.map(Point::label).collect::<Vec<_>>().join(", ")
    };
    let frontier = list(&mut standings.iter().filter(|s| s.on_frontier()).map(|s| s.point));
    let mut text = if frontier.is_empty() {
        format!("Against {} with q = {q}, no publication was measured.", adversary.name())
    } else {
        format!(
            "Against {} with q = {q} (mean risk, F1 at {:.2}%, workload error), the frontier is {frontier}.",
            adversary.name(),
            e.settings.supports.first().map_or(0.0, |s| s * 100.0),
        )
    };
    let methods: Vec<&str> = {
        let mut m: Vec<&str> = Vec::new();
        for s in standings.iter().filter(|s| !s.point.is_reference()) {
            if !m.contains(&s.point.method.as_str()) {
                m.push(&s.point.method);
            }
        }
        m
    };
    for &winner in &methods {
        let beaten: Vec<&str> = methods
            .iter()
            .copied()
            .filter(|&loser| {
                loser != winner
                    && standings
                        .iter()
                        .filter(|s| s.point.method == loser)
                        .all(|s| s.beaten_by.iter().any(|b| b.method == winner))
            })
            .collect();
        if !beaten.is_empty() {
            text.push_str(&format!(" {winner} beats {} at every point.", beaten.join(" and ")));
        }
    }
    for s in standings.iter().filter(|s| !s.beaten_by.is_empty() && !s.point.is_reference()) {
        text.push_str(&format!(
            " {} is beaten by {}.",
            s.point.label(),
            list(&mut s.beaten_by.iter().copied())
        ));
    }
    for s in standings.iter().filter(|s| s.point.is_reference()) {
        text.push_str(&format!(
            " For reference, {} has risk {:.3} and F1 {:.3}.",
            if s.point.method == "original" {
                "the original"
            } else {
                "the original without its sensitive items"
            },
            s.risk,
            s.f1
        ));
    }
    Some(text)
}

#[cfg(test)]
pub(crate) mod tests {
    use txanon_attack::{AttackReport, KnownItems, Risk};

    use super::*;
    use crate::{Data, Itemsets, Settings, Utility};

    /// A published point with re-identification risk `risk`, F1 `f1` and workload error `error`.
    pub(crate) fn point(
        method: &str,
        level: Option<usize>,
        risk: f64,
        f1: f64,
        error: f64,
    ) -> Point {
        let risk = Risk { targets: 10, mean: risk, ..Risk::default() };
        Point {
            method: method.into(),
            level,
            outcome: Outcome::Published {
                setting: String::new(),
                audit: String::new(),
                privacy: AttackReport {
                    targets: 10,
                    draws: 1,
                    by_known: vec![KnownItems {
                        known: 4,
                        reidentification: risk,
                        sensitive: Risk::default(),
                        tendency: None,
                    }],
                },
                utility: Utility {
                    itemsets: vec![Itemsets {
                        support: 0.01,
                        original: 1,
                        published: 1,
                        f1,
                        jaccard: f1,
                    }],
                    workload_error: error,
                    rule_accuracy: 1.0,
                    rules: 0,
                    item_loss: 0.0,
                    diss: 0.0,
                },
                seconds: 0.0,
            },
        }
    }

    pub(crate) fn evaluation(points: Vec<Point>) -> Evaluation {
        Evaluation {
            data: Data {
                transactions: 0,
                items: 0,
                occurrences: 0,
                sensitive: Vec::new(),
                holding_sensitive: 0,
                categories: None,
            },
            settings: Settings {
                levels: vec![4],
                known: vec![4],
                draws: 1,
                targets: None,
                supports: vec![0.01],
                queries: 1,
                seeded: false,
                draws_seed: Some(0),
            },
            guarantees: Vec::new(),
            points,
            decision: None,
            command: None,
        }
    }

    #[test]
    fn a_point_is_beaten_only_when_no_worse_on_all_three_and_better_on_one() {
        let e = evaluation(vec![
            point("original", None, 0.9, 1.0, 0.0),
            point("a", Some(4), 0.2, 0.6, 0.3),
            point("a", Some(8), 0.1, 0.5, 0.3),
            point("b", Some(4), 0.2, 0.5, 0.3),
            point("b", Some(8), 0.1, 0.5, 0.4),
            point("c", None, 0.05, 0.2, 0.9),
            point("d", Some(4), 0.1, 0.5, 0.3),
            point("e", Some(4), 0.0, 0.0, 0.0),
            point("e", Some(8), 0.0, 0.0, 0.0),
            Point {
                method: "f".into(),
                level: Some(4),
                outcome: Outcome::Infeasible { reason: "no".into() },
            },
        ]);
        let s = standings(&e, Adversary::Reidentification, 4);
        let beaten: Vec<(String, Vec<String>)> = s
            .iter()
            .map(|s| (s.point.label(), s.beaten_by.iter().map(|p| p.label()).collect()))
            .collect();
        let expect =
            |l: &str, by: &[&str]| (l.to_string(), by.iter().map(|b| b.to_string()).collect());
        assert_eq!(
            beaten,
            vec![
                expect("original", &[]),
                expect("a 4", &[]),
                // a 8 and d 4 tie on all three: neither beats the other.
                expect("a 8", &[]),
                expect("b 4", &["a 4", "a 8", "d 4"]),
                expect("b 8", &["a 8", "d 4"]),
                expect("c", &[]),
                expect("d 4", &[]),
                // e 4 and e 8 equal: neither beats the other; risk 0 and error 0 keep them on it.
                expect("e 4", &[]),
                expect("e 8", &[]),
            ],
            "the infeasible point is not attacked and not listed"
        );
        let v = verdict(&e, Adversary::Reidentification, 4).unwrap();
        assert!(v.contains("the frontier is a 4, a 8, c, d 4, e 4, e 8."), "{v}");
        assert!(v.contains("For reference, the original has risk 0.900 and F1 1.000."), "{v}");
        assert!(!s[0].on_frontier() && s[0].beaten_by.is_empty(), "a reference is never on it");
        assert!(v.contains("a beats b at every point."), "{v}");
        assert!(v.contains("d beats b at every point."), "{v}");
        assert!(!v.contains("a beats d") && !v.contains("b beats"), "{v}");
        assert!(v.contains("b 8 is beaten by a 8, d 4."), "{v}");
        assert_eq!(verdict(&e, Adversary::TendencyInference, 4), None, "no point has a tendency");
        assert!(standings(&e, Adversary::Reidentification, 3).is_empty(), "no point at q = 3");
    }

    #[test]
    fn the_frontier_equals_a_brute_force_pareto_set() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let n = rng.random_range(1..12);
            // Coarse values so that ties happen.
            let mut v = || f64::from(rng.random_range(0..4u8)) / 4.0;
            let points: Vec<Point> = (0..n).map(|k| point("m", Some(k), v(), v(), v())).collect();
            let e = evaluation(points);
            let s = standings(&e, Adversary::Reidentification, 4);
            let value = |p: &Point| {
                let Outcome::Published { utility, .. } = &p.outcome else { unreachable!() };
                (
                    p.risk(Adversary::Reidentification, 4).unwrap(),
                    p.f1().unwrap(),
                    utility.workload_error,
                )
            };
            for a in &s {
                let (ra, fa, wa) = value(a.point);
                let by: Vec<&Point> = e
                    .points
                    .iter()
                    .filter(|b| {
                        let (rb, fb, wb) = value(b);
                        rb <= ra && fb >= fa && wb <= wa && (rb, fb, wb) != (ra, fa, wa)
                    })
                    .collect();
                assert_eq!(a.beaten_by, by);
                // A beaten point is beaten by a frontier point too (dominance is transitive).
                assert!(
                    by.is_empty()
                        || s.iter().any(|f| f.beaten_by.is_empty() && by.contains(&f.point))
                );
            }
        }
    }

    /// Every point's beaters are exactly those the definition names, checked against every
    /// pair on values from a small grid (so ties are common); the frontier is never empty; at
    /// least a third of the cases have a beaten point, so both sides are exercised.
    #[test]
    fn standings_match_the_definition() {
        use proptest::prelude::*;
        let value = || (0u8..4).prop_map(|v| f64::from(v) / 4.0);
        let points = prop::collection::vec((value(), value(), value()), 1..9);
        let exercised = txanon_testkit::exercised(300, points, |raw| {
            let points: Vec<Point> = raw
                .iter()
                .enumerate()
                .map(|(i, &(risk, f1, error))| point("m", Some(i), risk, f1, error))
                .collect();
            let e = evaluation(points);
            let standings = standings(&e, Adversary::Reidentification, 4);
            prop_assert_eq!(standings.len(), raw.len());
            for (i, s) in standings.iter().enumerate() {
                let (r, f, w) = raw[i];
                let expected: Vec<usize> = (0..raw.len())
                    .filter(|&j| {
                        let (rj, fj, wj) = raw[j];
                        rj <= r && fj >= f && wj <= w && (rj < r || fj > f || wj < w)
                    })
                    .collect();
                let got: Vec<usize> = s.beaten_by.iter().map(|p| p.level.unwrap()).collect();
                prop_assert_eq!(got, expected, "point {}", i);
            }
            prop_assert!(standings.iter().any(|s| s.beaten_by.is_empty()), "an empty frontier");
            Ok(standings.iter().any(|s| !s.beaten_by.is_empty()))
        });
        exercised.at_least(1.0 / 3.0, "had a beaten point");
    }
}
