//! Experiment `anatomy`: multi-dimension anatomy on Connect and T40I10D100K (the anatomy paper's
//! Figures 3–7), preceded by the feasibility of each setting.
//!
//! The paper's settings (Connect p = 10, l = 5…10; T40I10D100K p = 20, l = 6…12) are first
//! checked: with the paper's item partition (k-medoids on `1 − φ²`) and Definition 5 with the
//! empty set as a value, a column whose most frequent value is held by more than `1/l` of all
//! records makes every record partition fail. The table says which settings are reachable and
//! the largest l each partition admits; rules, accuracy, faked records and times are measured
//! at the settings that are.

use anyhow::Result;
use txanon_anatomy::{AnatomyError, AnatomyParams, anatomize};
use txanon_data::{QuestParams, TransactionDb};
use txanon_metrics::{ItemAlignment, rule_accuracy};
use txanon_mining::{
    Algorithm, MinSupport, MiningParams, Rule, RuleParams, frequent_itemsets, rules,
};

use super::{Context, Figure, FigureKind, Output, ResultTable, Series, Value};

const CONFIDENCES: [f64; 9] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/// Rules of 2 to 4 items at confidence ≥ 0.1 (Apriori, as the paper).
fn rules_of(db: &TransactionDb, support: f64) -> Result<Vec<Rule>> {
    let params = MiningParams::new(MinSupport::Fraction(support)).max_len(Some(4)).check()?;
    let found = frequent_itemsets(db, Algorithm::Apriori, &params)?;
    Ok(rules::generate(&found, &RuleParams::new(CONFIDENCES[0]).max_len(Some(4)).check()?, false)?)
}

fn at_least(rules: &[Rule], confidence: f64) -> Vec<Rule> {
    rules.iter().filter(|r| r.confidence() >= confidence).cloned().collect()
}

struct Setting {
    name: String,
    db: TransactionDb,
    columns: usize,
    ls: Vec<usize>,
    support: f64,
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<Output> {
    let mut settings = Vec::new();
    if ctx.quick {
        let db = QuestParams::new(3000, 10.0, 4.0, 150).seed(ctx.seed).check()?.generate();
        settings.push(Setting {
            name: "quest T10I4D3K N150".into(),
            db,
            columns: 5,
            ls: vec![2, 3, 4],
            support: 0.02,
        });
    } else {
        if let Some((_, db)) = ctx.real("connect")? {
            settings.push(Setting {
                name: "connect".into(),
                db,
                columns: 10,
                ls: vec![2, 5, 6, 8, 10],
                support: 0.8,
            });
        }
        if let Some((_, db)) = ctx.real("t40-sample")? {
            settings.push(Setting {
                name: "T40I10D100K sample (real, 10k)".into(),
                db,
                columns: 20,
                ls: vec![2, 6, 8, 10, 12],
                support: 0.01,
            });
        }
        settings.push(Setting {
            name: "Quest T40I10D100K (generated, 100k)".into(),
            db: ctx.quest_t40().clone(),
            columns: 20,
            ls: vec![2, 6, 8, 10, 12],
            support: 0.01,
        });
    }

    let mut feasibility = ResultTable::new(
        "anatomy-feasibility",
        &["dataset", "p", "l", "result", "buckets", "suppressed", "ln faked records", "seconds"],
    );
    feasibility.volatile = vec!["seconds".into()];
    let mut rule_table = ResultTable::new(
        "anatomy-rules",
        &[
            "dataset",
            "p",
            "l",
            "support",
            "confidence",
            "rules original",
            "rules anonymized",
            "AR = M/N",
        ],
    );
    let mut out = Output::default();
    let mut faked = Figure {
        name: "anatomy-faked-records".into(),
        title: "ln of the number of records the anatomized table reconstructs to".into(),
        x_label: "l".into(),
        y_label: "ln(faked records)".into(),
        kind: FigureKind::Line { log_x: false, log_y: false },
        categories: Vec::new(),
        series: Vec::new(),
    };
    for s in &settings {
        let original = rules_of(&s.db, s.support)?;
        let mut points = Vec::new();
        for &l in &s.ls {
            let params = AnatomyParams::new(s.columns, l).seed(Some(ctx.seed)).check()?;
            let started = std::time::Instant::now();
            match anatomize(&s.db, &params) {
                Ok(a) => {
                    let seconds = started.elapsed().as_secs_f64();
                    feasibility.push(vec![
                        s.name.clone().into(),
                        s.columns.into(),
                        l.into(),
                        "l-diverse".into(),
                        a.buckets.into(),
                        a.suppressed.into(),
                        Value::Float(a.ln_faked_records, 2),
                        Value::Float(seconds, 3),
                    ]);
                    points.push((l as f64, a.ln_faked_records));
                    let anonymized = ItemAlignment::new(&s.db, &a.flattened)
                        .rules(&rules_of(&a.flattened, s.support)?);
                    for c in CONFIDENCES {
                        let (o, n) = (at_least(&original, c), at_least(&anonymized, c));
                        rule_table.push(vec![
                            s.name.clone().into(),
                            s.columns.into(),
                            l.into(),
                            Value::Float(s.support * 100.0, 2),
                            Value::Float(c, 1),
                            o.len().into(),
                            n.len().into(),
                            Value::Float(rule_accuracy(&o, &n).ratio, 4),
                        ]);
                    }
                }
                Err(e @ (AnatomyError::Infeasible { .. } | AnatomyError::NotDiverse { .. })) => {
                    feasibility.push(vec![
                        s.name.clone().into(),
                        s.columns.into(),
                        l.into(),
                        format!("infeasible: {e}").into(),
                        Value::Empty,
                        Value::Empty,
                        Value::Empty,
                        Value::Empty,
                    ]);
                }
                Err(e) => return Err(e.into()),
            }
        }
        if !points.is_empty() {
            faked.series.push(Series { label: format!("{}, p = {}", s.name, s.columns), points });
        }
    }
    out.notes.push(
        "Settings marked infeasible cannot be l-diverse under Definition 5 with the empty set as a value: some column's most frequent value (often the empty set, on Connect a near-universal itemset) covers more than 1/l of all records, so every bucket partition fails. The paper reports results at these settings without saying how."
            .into(),
    );
    out.parameters = vec![
        ("seed".into(), ctx.seed.to_string()),
        (
            "rules".into(),
            "Apriori, 2 to 4 items, confidence 10%..90%; support 80% (Connect), 1% (T40)".into(),
        ),
    ];
    out.tables.push(feasibility);
    out.tables.push(rule_table);
    if !faked.series.is_empty() {
        out.figures.push(faked);
    }
    Ok(out)
}
