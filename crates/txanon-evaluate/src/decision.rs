//! From an evaluation to a decision: the data holder names the threats and the risk they
//! accept; the decision is the publication that keeps the most utility among those whose
//! measured risk stays within that budget against every named threat and every number of
//! known items evaluated, with the runner-up and why it lost, or, when none qualifies, the
//! budget the safest one would meet. The references (the original, sensitive items removed)
//! are never candidates.
//!
//! Utility is the frequent-itemset F1 at the first support, ties broken by the lower workload
//! error, then by the evaluation's order (so the decision is deterministic for a seed).

use serde::Serialize;

use crate::frontier::Adversary;
use crate::{Evaluation, Method, Outcome, Point};

/// What the data holder accepts: at most `max_risk` against each of `threats`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Budget {
    /// The threats named.
    pub threats: Vec<Adversary>,
    /// The largest mean risk accepted against each, for every number of known items.
    pub max_risk: f64,
}

/// A candidate publication as the decision weighs it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    /// The method.
    pub method: String,
    /// Its level, when it has one.
    pub level: Option<usize>,
    /// Its largest mean risk over the named threats and the numbers of known items.
    pub worst_risk: f64,
    /// Where that largest risk was measured: the threat and the number of known items.
    pub worst_at: (Adversary, usize),
    /// Frequent-itemset F1 at the first support.
    pub f1: f64,
    /// Workload error.
    pub workload_error: f64,
}

impl Choice {
    /// The point as reports name it.
    pub fn label(&self) -> String {
        match self.level {
            Some(l) => format!("{} {l}", self.method),
            None => self.method.clone(),
        }
    }
}

/// The decision.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// The budget it answers.
    pub budget: Budget,
    /// The numbers of known items every risk was taken over.
    pub known: Vec<usize>,
    /// The publication to make, when one qualifies.
    pub recommended: Option<Choice>,
    /// The next best, when there is one, and why it lost.
    pub runner_up: Option<(Choice, String)>,
    /// When none qualifies: the candidate of least risk, whose worst risk is the budget it
    /// would meet.
    pub safest: Option<Choice>,
    /// The methods left out, and why (a threat not measured on them).
    pub unmeasured: Vec<String>,
    /// The decision in words.
    pub text: String,
}

/// The threat a word names, as `--threat` takes it: `reidentification`, `sensitive`,
/// `tendency`.
pub fn threat(word: &str) -> Option<Adversary> {
    match word {
        "reidentification" => Some(Adversary::Reidentification),
        "sensitive" => Some(Adversary::SensitiveInference),
        "tendency" => Some(Adversary::TendencyInference),
        _ => None,
    }
}

/// `p` weighed against `threats` over `known`: its worst risk and where, or `None` when a
/// threat was not measured on it at some q.
fn weigh(p: &Point, threats: &[Adversary], known: &[usize]) -> Option<Choice> {
    let Outcome::Published { utility, .. } = &p.outcome else { return None };
    let mut worst: Option<(f64, (Adversary, usize))> = None;
    for &threat in threats {
        for &q in known {
            let risk = p.risk(threat, q)?;
            if worst.is_none_or(|(w, _)| risk > w) {
                worst = Some((risk, (threat, q)));
            }
        }
    }
    let (worst_risk, worst_at) = worst?;
    Some(Choice {
        method: p.method.clone(),
        level: p.level,
        worst_risk,
        worst_at,
        f1: p.f1()?,
        workload_error: utility.workload_error,
    })
}

/// Whether `a` keeps more utility than `b`.
fn better(a: &Choice, b: &Choice) -> bool {
    a.f1 > b.f1 || (a.f1 == b.f1 && a.workload_error < b.workload_error)
}

/// Why `loser` lost to `winner`, both within the budget.
fn lost(loser: &Choice, winner: &Choice) -> String {
    if loser.f1 < winner.f1 {
        format!("it keeps less: F1 {:.3} against {:.3}", loser.f1, winner.f1)
    } else if loser.workload_error > winner.workload_error {
        format!(
            "the same F1, a larger workload error: {:.3} against {:.3}",
            loser.workload_error, winner.workload_error
        )
    } else {
        "it ties, and comes later in the evaluation's order".into()
    }
}

fn risk_words(c: &Choice) -> String {
    format!("{:.3} ({} with q = {})", c.worst_risk, c.worst_at.0.name(), c.worst_at.1)
}

/// The decision for `budget` on `e`.
pub fn decide(e: &Evaluation, budget: &Budget) -> Decision {
    let known = e.settings.known.clone();
    let mut weighed = Vec::new();
    let mut unmeasured = Vec::new();
    for p in e.points.iter().filter(|p| Method::parse(&p.method).is_some()) {
        if !matches!(p.outcome, Outcome::Published { .. }) {
            continue;
        }
        match weigh(p, &budget.threats, &known) {
            Some(c) => weighed.push(c),
            None => unmeasured.push(p.label()),
        }
    }
    let threats: Vec<&str> = budget.threats.iter().map(|t| t.name()).collect();
    let threats = threats.join(" and ");
    let max_q = known.iter().max().copied().unwrap_or(0);
    let mut qualifying: Vec<&Choice> =
        weighed.iter().filter(|c| c.worst_risk <= budget.max_risk).collect();
    // A stable sort keeps the evaluation's order among ties.
    qualifying
        .sort_by(|a, b| b.f1.total_cmp(&a.f1).then(a.workload_error.total_cmp(&b.workload_error)));
    let mut decision = Decision {
        budget: budget.clone(),
        known: known.clone(),
        recommended: None,
        runner_up: None,
        safest: None,
        unmeasured,
        text: String::new(),
    };
    let Some(&best) = qualifying.first() else {
        let safest = weighed.iter().min_by(|a, b| a.worst_risk.total_cmp(&b.worst_risk));
        decision.text = match safest {
            Some(s) => format!(
                "No publication keeps the risk of {threats} at or below {} for every q up to {max_q}. \
                 The safest is {}, at {}: it would meet a budget of {:.3}.",
                budget.max_risk,
                s.label(),
                risk_words(s),
                s.worst_risk
            ),
            None => format!("No publication was measured against {threats}."),
        };
        decision.safest = safest.cloned();
        return decision;
    };
    let mut text = format!(
        "For a risk of {threats} at or below {} for every q up to {max_q}, publish {}: it keeps \
         F1 {:.3} (workload error {:.3}) with a worst risk of {}.",
        budget.max_risk,
        best.label(),
        best.f1,
        best.workload_error,
        risk_words(best)
    );
    let runner_up = match qualifying.get(1) {
        Some(&second) => Some((second.clone(), lost(second, best))),
        None => weighed
            .iter()
            .filter(|c| c.worst_risk > budget.max_risk && better(c, best))
            .min_by(|a, b| {
                b.f1.total_cmp(&a.f1).then(a.workload_error.total_cmp(&b.workload_error))
            })
            .map(|c| {
                (
                    c.clone(),
                    format!(
                        "it keeps more (F1 {:.3}) but its worst risk is {}",
                        c.f1,
                        risk_words(c)
                    ),
                )
            }),
    };
    if let Some((c, why)) = &runner_up {
        text.push_str(&format!(" The runner-up, {}, lost: {why}.", c.label()));
    }
    decision.text = text;
    decision.recommended = Some(best.clone());
    decision.runner_up = runner_up;
    decision
}

/// What a command that publishes a point needs of the evaluation's run.
#[derive(Debug, Clone)]
pub struct CommandContext {
    /// The data, as the command names it.
    pub input: String,
    /// How the sensitive items are given (`--sensitive FILE`), if any.
    pub sensitive: Option<String>,
    /// How the categories are given (`--categories FILE`), if any.
    pub categories: Option<String>,
    /// Anatomy's columns in the evaluation.
    pub anatomy_columns: usize,
    /// Coherence's p.
    pub coherence_p: usize,
    /// kᵐ-anonymity's m.
    pub km_m: usize,
}

/// The `txanon anonymize` command that publishes `choice` with the setting the evaluation ran,
/// into `out` (randomness from the operating system, as a normal run's; the evaluation's
/// seed is never written out).
pub fn command(
    choice: &Choice,
    e: &Evaluation,
    context: &CommandContext,
    out: &str,
) -> Option<String> {
    let method = Method::parse(&choice.method)?;
    let level = choice.level;
    let input = &context.input;
    let sensitive = context.sensitive.as_deref().unwrap_or("--sensitive FILE");
    let line = match method {
        Method::Anatomy => {
            format!("txanon anonymize anatomy {input} -c {} -l {}", context.anatomy_columns, level?)
        }
        Method::Cahd => format!("txanon anonymize cahd {input} -p {} {sensitive}", level?),
        Method::Coherence => {
            let l = level?;
            let nugget = crate::coherence_nugget_support(e.data.transactions, l);
            format!(
                "txanon anonymize coherence {input} --h {} --k {l} --p {} --nugget-support {nugget} {sensitive}",
                1.0 / l as f64,
                context.coherence_p
            )
        }
        Method::Km => format!("txanon anonymize km {input} --k {} --m {}", level?, context.km_m),
        Method::Swap => format!(
            "txanon anonymize swap {input} {} --method partswap --ties all --max-exposed {}",
            context.categories.as_deref().unwrap_or("--categories FILE"),
            e.data.transactions
        ),
    };
    Some(format!("{line} -o {out}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontier::tests::{evaluation, point};

    fn budget(max_risk: f64) -> Budget {
        Budget { threats: vec![Adversary::Reidentification], max_risk }
    }

    fn evaluated() -> Evaluation {
        evaluation(vec![
            // The references: safe-looking or useful, never candidates.
            point("original", None, 0.30, 1.0, 0.0),
            point("sensitive removed", None, 0.01, 0.99, 0.0),
            point("cahd", Some(4), 0.30, 0.99, 0.01),
            point("km", Some(4), 0.04, 0.41, 0.30),
            point("km", Some(8), 0.02, 0.35, 0.40),
            point("anatomy", Some(4), 0.05, 0.41, 0.20),
        ])
    }

    #[test]
    fn the_most_useful_within_the_budget_wins_and_the_runner_up_says_why() {
        let d = decide(&evaluated(), &budget(0.05));
        let best = d.recommended.as_ref().unwrap();
        // anatomy 4 and km 4 keep the same F1; anatomy's workload error is lower.
        assert_eq!(best.label(), "anatomy 4");
        let (second, why) = d.runner_up.as_ref().unwrap();
        assert_eq!(second.label(), "km 4");
        assert!(why.contains("workload error"), "{why}");
        assert!(
            d.text.starts_with("For a risk of re-identification at or below 0.05"),
            "{}",
            d.text
        );
        assert!(d.safest.is_none());
    }

    #[test]
    fn a_tighter_budget_changes_the_choice_and_names_what_lost_on_risk() {
        let d = decide(&evaluated(), &budget(0.03));
        assert_eq!(d.recommended.as_ref().unwrap().label(), "km 8");
        let (second, why) = d.runner_up.as_ref().unwrap();
        assert!(second.worst_risk > 0.03);
        assert!(why.contains("keeps more"), "{why}");
    }

    #[test]
    fn no_candidate_within_the_budget_names_the_budget_the_safest_meets() {
        let d = decide(&evaluated(), &budget(0.001));
        assert!(d.recommended.is_none() && d.runner_up.is_none());
        let safest = d.safest.as_ref().unwrap();
        // "sensitive removed" is safer, but a reference is never a candidate.
        assert_eq!(safest.label(), "km 8");
        assert!(d.text.contains("would meet a budget of 0.020"), "{}", d.text);
    }

    #[test]
    fn an_unmeasured_threat_leaves_a_point_out() {
        let e = evaluated();
        let tendency = Budget { threats: vec![Adversary::TendencyInference], max_risk: 1.0 };
        let d = decide(&e, &tendency);
        assert!(d.recommended.is_none());
        assert_eq!(d.unmeasured.len(), 4);
        assert!(d.text.contains("No publication was measured against tendency inference"));
    }

    #[test]
    fn the_command_publishes_the_recommended_setting() {
        let e = evaluated();
        let d = decide(&e, &budget(0.05));
        let context = CommandContext {
            input: "data.dat".into(),
            sensitive: Some("--sensitive s.txt".into()),
            categories: None,
            anatomy_columns: 10,
            coherence_p: 2,
            km_m: 2,
        };
        let line = command(d.recommended.as_ref().unwrap(), &e, &context, "out/").unwrap();
        assert_eq!(line, "txanon anonymize anatomy data.dat -c 10 -l 4 -o out/");
        let km = command(&d.runner_up.unwrap().0, &e, &context, "out/").unwrap();
        assert_eq!(km, "txanon anonymize km data.dat --k 4 --m 2 -o out/");
    }
}
