//! Experiment `anatomy`: multi-dimension anatomy on Connect and T40I10D100K, the anatomy paper's
//! Figures 3–7, in both readings of its l-diversity.
//!
//! - **Definition 5** (the default, what bounds an attacker by `1/l`): the paper's k-medoids
//!   columns, repaired so that every column admits l (no value above `1/l` of all records);
//!   without the repair almost none of the paper's settings are feasible (the `clustered` rows).
//! - **Distinct values** (the paper's Example 4 and Theorem 2): the paper's columns unchanged,
//!   buckets with at least l distinct values per column.
//!
//! Per setting: whether it publishes, items the repair moved, buckets, suppressed records,
//! `ln` of the faked-record count (Figure 3), anatomization time (Figure 7); rules of 2–4 items
//! of the original and the flattened publication per confidence (Figures 4 and 5),
//! and the accuracy ratio AR = M/N (Figure 6). Then a scaling series on Quest data.

use std::collections::HashMap;

use anyhow::Result;
use serde::Serialize;
use txanon_anatomy::{
    AnatomyParams, AnatomyPublication, Diversity, ItemPartitioning, admitted_l, anonymize,
    item_partition, l_bound,
};
use txanon_data::{QuestParams, TransactionDb};
use txanon_metrics::{ItemAlignment, rule_accuracy};
use txanon_mining::{
    Algorithm, MinSupport, MiningParams, Rule, RuleParams, frequent_itemsets, rules,
};

mod claims;

use crate::reproduce::output::slug;
use crate::reproduce::rows::{Grid, Outcome, Setting, col, table, volatile};
use crate::reproduce::{Context, Figure, Output, Series};
use claims::ar_note;

const T40_NAME: &str = "T40I10D100K sample (real, 10k)";
const QUEST_T40_NAME: &str = "Quest T40I10D100K (generated, 100k)";

const CONFIDENCES: [f64; 9] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/// Rules of 2 to 4 items at confidence ≥ 0.1. The paper mines with Apriori; FP-Growth finds
/// the same itemsets (txanon-mining's tests check it against the independent Apriori) several
/// times faster.
fn rules_of(db: &TransactionDb, support: f64) -> Result<Vec<Rule>> {
    let params = MiningParams::new(MinSupport::Fraction(support)).max_len(Some(4)).check()?;
    let found = frequent_itemsets(db, Algorithm::FpGrowth, &params)?;
    Ok(rules::generate(&found, &RuleParams::new(CONFIDENCES[0]).max_len(Some(4)).check()?, false)?)
}

fn at_least(rules: &[Rule], confidence: f64) -> Vec<Rule> {
    rules.iter().filter(|r| r.confidence() >= confidence).cloned().collect()
}

/// The two readings of l-diversity compared, plus the paper's partition under Definition 5.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Reading {
    /// Definition 5 on repaired columns.
    Definition5,
    /// Definition 5 on the paper's columns as clustered.
    Definition5Clustered,
    /// Definition 5 on columns built for it (no clustering).
    Definition5Diverse,

    /// Distinct values on the paper's columns.
    Distinct,
}

impl Reading {
    fn name(self) -> &'static str {
        match self {
            Reading::Definition5 => "Def. 5, repaired columns",
            Reading::Definition5Clustered => "Def. 5, clustered columns",
            Reading::Definition5Diverse => "Def. 5, diverse columns",

            Reading::Distinct => "distinct values, clustered columns",
        }
    }

    fn short(self) -> &'static str {
        match self {
            Reading::Definition5 => "Def. 5 repaired",
            Reading::Definition5Clustered => "Def. 5 clustered",
            Reading::Definition5Diverse => "Def. 5 diverse",

            Reading::Distinct => "distinct",
        }
    }

    fn params(self, p: usize, l: usize, seed: u64) -> Result<txanon_anatomy::ValidAnatomyParams> {
        let params = AnatomyParams::new(p, l).seed(Some(seed));
        Ok(match self {
            Reading::Definition5 => params,
            Reading::Definition5Clustered => params.partitioning(ItemPartitioning::Clustered),
            Reading::Definition5Diverse => params.partitioning(ItemPartitioning::Diverse),

            Reading::Distinct => {
                params.diversity(Diversity::Distinct).partitioning(ItemPartitioning::Clustered)
            }
        }
        .check()?)
    }
}

/// One dataset of the experiment and the paper's setting for it.
struct Data {
    name: String,
    short: &'static str,
    db: TransactionDb,
    columns: usize,
    ls: Vec<usize>,
    support: f64,
    /// Whether the diverse columns run here: where the repaired ones fall short of the paper's
    /// l and the builder is quick (it takes 1.6 s on Connect at p = 10, 84 s on the T40 sample
    /// at p = 20, whose 47 items per column it moves one at a time).
    diverse: bool,
}

/// Which l each item partition admits at one of the paper's settings (Definition 5), beside the
/// bound no partition into p columns exceeds.
#[derive(Serialize)]
struct ReachRow<'a> {
    dataset: &'a str,
    p: usize,
    l: usize,
    #[serde(rename = "no partition exceeds")]
    bound: f64,
    #[serde(rename = "clustered admits")]
    clustered: usize,
    #[serde(rename = "repaired admits")]
    repaired: usize,
    #[serde(rename = "diverse admits")]
    diverse: Option<usize>,
    reachable: bool,
}

/// The largest l the clustered, the repaired (aimed at each l) and the diverse partitions admit at every
/// setting, and the entropy bound ([`txanon_anatomy::l_bound`]). `admitted` holds what the
/// runs that published already measured on their own partitions; the others' partitions are
/// built again here.
fn reach_rows<'a>(
    settings: &'a [Data],
    admitted: &HashMap<(String, &'static str, usize), usize>,
    seed: u64,
) -> Result<Vec<ReachRow<'a>>> {
    let mut rows = Vec::new();
    for s in settings {
        let of = |reading: Reading, l: usize| -> Result<usize> {
            if let Some(&known) = admitted.get(&(s.name.clone(), reading.name(), l)) {
                return Ok(known);
            }
            let columns = item_partition(&s.db, &reading.params(s.columns, l, seed)?)?;
            Ok(admitted_l(&s.db, &columns))
        };
        // The clustering does not depend on l.
        let clustered = of(Reading::Definition5Clustered, s.ls[0])?;
        let diverse =
            if s.diverse { Some(of(Reading::Definition5Diverse, s.ls[0])?) } else { None };
        let bound = l_bound(&s.db, s.columns);
        for &l in &s.ls {
            let repaired = of(Reading::Definition5, l)?;
            rows.push(ReachRow {
                dataset: &s.name,
                p: s.columns,
                l,
                bound,
                clustered,
                repaired,
                diverse,
                reachable: clustered.max(repaired).max(diverse.unwrap_or(0)) >= l,
            });
        }
    }
    Ok(rows)
}

/// One anatomization that published: the anatomy-settings row (Figures 3 and 7).
#[derive(Serialize)]
struct RunRow {
    dataset: String,
    reading: &'static str,
    p: usize,
    l: usize,
    #[serde(rename = "items moved")]
    items_moved: usize,
    buckets: usize,
    #[serde(rename = "mean bucket")]
    mean_bucket: f64,
    suppressed: usize,
    #[serde(rename = "ln faked records")]
    ln_faked: f64,
    seconds: f64,
}

/// Rules kept at one confidence (Figures 4-6).
#[derive(Serialize)]
struct RuleRow {
    dataset: String,
    reading: &'static str,
    p: usize,
    l: usize,
    #[serde(rename = "support %")]
    support: f64,
    confidence: f64,
    #[serde(rename = "rules original")]
    original: usize,
    #[serde(rename = "rules anonymized")]
    anonymized: usize,
    common: usize,
    #[serde(rename = "AR = M/N")]
    ar: f64,
}

/// Why AR moves with confidence: the original's rules whose items all lie in one column (a
/// bucket publishes each column's values exactly) against those across columns (whose
/// combinations the per-bucket permutation breaks), and each kind's AR.
#[derive(Serialize)]
struct ReasonRow {
    dataset: String,
    reading: &'static str,
    p: usize,
    l: usize,
    confidence: f64,
    rules: usize,
    #[serde(rename = "within one column")]
    within: usize,
    #[serde(rename = "within one column %")]
    within_share: f64,
    #[serde(rename = "AR within")]
    ar_within: Option<f64>,
    #[serde(rename = "AR across")]
    ar_across: Option<f64>,
}

#[derive(Serialize)]
struct ScalingRow {
    records: usize,
    reading: &'static str,
    p: usize,
    l: usize,
    buckets: usize,
    seconds: f64,
    #[serde(rename = "microseconds per record")]
    per_record: f64,
    /// Runs timed (the median reported).
    runs: usize,
}

/// One setting tried, and whether it published.
struct TriedSetting {
    dataset: String,
    reading: Reading,
    p: usize,
    l: usize,
    published: bool,
}

/// The settings tried, published or refused: what the reachability claims count.
#[derive(Default)]
struct Tried(Vec<TriedSetting>);

impl Tried {
    fn of(&self, dataset: &str, reading: Reading) -> impl Iterator<Item = &TriedSetting> {
        self.0.iter().filter(move |t| t.dataset == dataset && t.reading == reading)
    }
}

/// Anatomizes one setting through the grid: the publication and its seconds, or `None` when
/// the family refused it (the refusal recorded once in the grid).
impl Runs {
    #[allow(clippy::too_many_arguments)]
    fn one(
        &mut self,
        table: &str,
        dataset: &str,
        db: &TransactionDb,
        reading: Reading,
        p: usize,
        l: usize,
        seed: u64,
    ) -> Result<Option<(AnatomyPublication, f64)>> {
        let params = reading.params(p, l, seed)?;
        let setting = [
            ("dataset", dataset.to_string()),
            ("reading", reading.name().to_string()),
            ("p", p.to_string()),
            ("l", l.to_string()),
        ];
        let outcome = self.grid.attempt(table, Setting(&setting), || anonymize(db, &params))?;
        let published = match outcome {
            Outcome::Published { value, seconds } => Some((value, seconds)),
            Outcome::Refused => None,
        };
        if !self.tried.of(dataset, reading).any(|t| t.p == p && t.l == l) {
            self.tried.0.push(TriedSetting {
                dataset: dataset.to_string(),
                reading,
                p,
                l,
                published: published.is_some(),
            });
        }
        Ok(published)
    }
}

fn run_row(
    dataset: &str,
    reading: Reading,
    p: usize,
    l: usize,
    a: &AnatomyPublication,
    seconds: f64,
) -> RunRow {
    RunRow {
        dataset: dataset.to_string(),
        reading: reading.name(),
        p,
        l,
        items_moved: a.items_moved.len(),
        buckets: a.buckets,
        mean_bucket: a.flattened.len() as f64 / a.buckets as f64,
        suppressed: a.suppressed,
        ln_faked: a.ln_faked_records,
        seconds,
    }
}

/// Runs the experiment: the settings of Figures 4-7 with their rules, Figure 3's faked
/// records, and time against n; then the reachability of every setting.
pub fn run(ctx: &Context) -> Result<Output> {
    let settings = datasets(ctx)?;
    let mut state = Runs::default();
    let mut out = Output::default();
    let rules = rule_study(ctx, &settings, &mut state, &mut out)?;
    let faked = faked_study(ctx, &settings, &mut state)?;
    let (scaling, scaling_figure) = scaling_study(ctx, &mut state)?;
    let RuleStudy { rules: rule_rows, reasons, admitted, time: time_figure } = rules;
    out.data = settings.iter().map(|s| s.name.clone()).collect();
    let connect = settings.iter().any(|s| s.short == "Connect");
    let t40 =
        settings.iter().any(|s| s.short.starts_with("T40") || s.short.starts_with("Quest T40"));
    describe(ctx, &mut out, connect, t40, &reasons);
    let reach = reach_rows(&settings, &admitted, ctx.seed)?;
    let ran = claims::Ran {
        tried: &state.tried,
        reach: &reach,
        runs: &state.rows,
        rules: &rule_rows,
        reasons: &reasons,
        scaling: &scaling,
        connect,
        t40,
    };
    out.claims = claims::claims(&ran, ctx.quick);
    out.refusals = state.grid.into_refusals();
    out.tables.push(table("anatomy-reach", &reach, &[col("no partition exceeds", 1)]));
    out.tables.push(table(
        "anatomy-settings",
        &state.rows,
        &[col("mean bucket", 1), col("ln faked records", 2), volatile("seconds", 3)],
    ));
    out.tables.push(table(
        "anatomy-rules",
        &rule_rows,
        &[col("support %", 2), col("confidence", 1), col("AR = M/N", 4)],
    ));
    out.tables.push(table(
        "anatomy-ar-reason",
        &reasons,
        &[
            col("confidence", 1),
            col("within one column %", 1),
            col("AR within", 4),
            col("AR across", 4),
        ],
    ));
    out.tables.push(table(
        "anatomy-scaling",
        &scaling,
        &[volatile("seconds", 3), volatile("microseconds per record", 2)],
    ));
    out.figures.push(faked);
    out.figures.push(time_figure);
    out.figures.push(scaling_figure);
    Ok(out)
}

/// The experiment's notes and settings: why Definition 5 refuses the paper's columns, the
/// data, why rules are lost.
fn describe(ctx: &Context, out: &mut Output, connect: bool, t40: bool, reasons: &[ReasonRow]) {
    out.note_if(
        connect || t40,
        "Definition 5 counts the empty set as a value. On the paper's own columns (k-medoids on 1 - phi^2, the `clustered` rows) a column of rare items is empty in most records and Connect's near-universal items make one itemset dominate a column, so almost every setting of the paper is refused: no record partition can be l-diverse. The repaired columns (items moved until every column's top value is under 1/l of the records, aiming at 1/(1.25 l)) reach most of them, and the diverse columns (built for Definition 5 on a sample, no clustering: items by entropy, then moves and swaps that lower the largest top share) more where the top values bind (`anatomy-reach`: the largest l each partition admits, against 2^(Σ h(i) / p), which no partition into p columns exceeds, h(i) the entropy of item i's presence; the bound is loose, so l beyond what our partitions admit is not shown unreachable); the distinct-values reading, which the paper's Example 4 uses, reaches all of them on the paper's columns but bounds no probability.",
    );
    out.note_if(
        t40,
        "The T40I10D100K sample is the real first 10,000 transactions; the 100k rows are Quest data generated with T = 40, I = 10, N = 1000 (the full file is not available here). The paper does not state its minimum support: 1% gives about 129,000 rules of 2-4 items on the sample and 183,000 on the Quest data; Connect uses 80% (139,000 rules).",
    );
    if let Some(note) = ar_note(reasons) {
        out.notes.push(note);
    }
    out.parameters = vec![
        ("seed".into(), ctx.seed.to_string()),
        (
            "rules".into(),
            "the itemsets of the paper's Apriori (mined by FP-Growth), 2 to 4 items, confidence 10%..90%; support 80% (Connect), 1% (T40)".into(),
        ),
        ("headroom".into(), "0.25 (the default)".into()),
    ];
}

/// The data of Figures 4-7: the paper's Connect and T40I10D100K (the real sample and a Quest
/// stand-in of its full size), or generated data in `--quick`.
fn datasets(ctx: &Context) -> Result<Vec<Data>> {
    let mut settings = Vec::new();
    if ctx.quick {
        let db = QuestParams::new(3000, 10.0, 4.0, 150).seed(ctx.seed).check()?.generate();
        settings.push(Data {
            name: "quest T10I4D3K N150".into(),
            short: "Quest T10I4D3K",
            db,
            columns: 5,
            ls: vec![2, 3, 4],
            support: 0.02,
            diverse: true,
        });
    } else {
        if let Some((_, db)) = ctx.real("connect")? {
            settings.push(Data {
                name: "connect".into(),
                short: "Connect",
                db,
                columns: 10,
                ls: CONNECT_LS.to_vec(),
                support: 0.8,
                diverse: true,
            });
        }
        if let Some((_, db)) = ctx.real("t40-sample")? {
            settings.push(Data {
                name: T40_NAME.into(),
                short: "T40 sample",
                db,
                columns: 20,
                ls: T40_LS.to_vec(),
                support: 0.01,
                diverse: false,
            });
        }
        settings.push(Data {
            name: QUEST_T40_NAME.into(),
            short: "Quest T40 100k",
            db: ctx.quest_t40().clone(),
            columns: 20,
            ls: T40_LS.to_vec(),
            support: 0.01,
            diverse: false,
        });
    }

    Ok(settings)
}

/// What every study of the experiment adds to: the runs, and the settings tried and refused.
#[derive(Default)]
struct Runs {
    grid: Grid,
    tried: Tried,
    rows: Vec<RunRow>,
}

/// What the rules study measured (Figures 4-7).
struct RuleStudy {
    rules: Vec<RuleRow>,
    reasons: Vec<ReasonRow>,
    /// The l each published partition admits, by dataset, reading and l.
    admitted: HashMap<(String, &'static str, usize), usize>,
    /// Time against l (Figure 7).
    time: Figure,
}

/// Figures 4-7: for every dataset, reading and l, the rules of the original and of the
/// flattened publication per confidence, their accuracy, why rules are lost, and the time.
///
/// Long as one function: a setting's figures and two tables come from one publication's rules at
/// once; apart, each would mine them again or take six accumulators.
fn rule_study(
    ctx: &Context,
    settings: &[Data],
    state: &mut Runs,
    out: &mut Output,
) -> Result<RuleStudy> {
    let mut admitted = HashMap::new();
    let mut rule_rows = Vec::new();
    let mut reasons = Vec::new();
    let mut time_figure =
        Figure::line("anatomy-time", "Anatomization time against l (Figure 7)", "l", "seconds");
    for s in settings {
        let original = rules_of(&s.db, s.support)?;
        for reading in [
            Reading::Definition5,
            Reading::Definition5Clustered,
            Reading::Definition5Diverse,
            Reading::Distinct,
        ] {
            if reading == Reading::Definition5Diverse && !s.diverse {
                continue;
            }
            let mut counts = Figure::line(
                &format!("anatomy-rules-{}-{}", slug(&s.name), slug(reading.name())),
                &format!(
                    "Rules, {} p = {}, supp. {}%, {} (Fig. 4/5)",
                    s.short,
                    s.columns,
                    s.support * 100.0,
                    reading.short()
                ),
                "minimum confidence",
                "association rules",
            );
            counts.series.push(Series {
                label: "original".into(),
                points: CONFIDENCES
                    .iter()
                    .map(|&c| (c, at_least(&original, c).len() as f64))
                    .collect(),
            });
            let mut accuracy = Figure::line(
                &format!("anatomy-ar-{}-{}", slug(&s.name), slug(reading.name())),
                &format!("AR = M/N, {} p = {}, {} (Fig. 6)", s.short, s.columns, reading.short()),
                "minimum confidence",
                "AR",
            );
            let mut times = Vec::new();
            for &l in &s.ls {
                let Some((a, seconds)) = state.one(
                    "anatomy-settings",
                    &s.name,
                    &s.db,
                    reading,
                    s.columns,
                    l,
                    ctx.seed,
                )?
                else {
                    continue;
                };
                state.rows.push(run_row(&s.name, reading, s.columns, l, &a, seconds));
                if reading != Reading::Distinct {
                    admitted
                        .insert((s.name.clone(), reading.name(), l), admitted_l(&s.db, &a.columns));
                }
                times.push((l as f64, seconds));
                let anonymized = ItemAlignment::new(&s.db, &a.flattened)
                    .rules(&rules_of(&a.flattened, s.support)?);
                let mut count_points = Vec::new();
                let mut ar_points = Vec::new();
                let mut column_of = vec![usize::MAX; s.db.num_items()];
                for (j, column) in a.columns.iter().enumerate() {
                    for &i in column {
                        column_of[i as usize] = j;
                    }
                }
                let within = |r: &Rule| {
                    let mut columns =
                        r.antecedent.iter().chain(&r.consequent).map(|&i| column_of[i as usize]);
                    let first = columns.next();
                    columns.all(|c| Some(c) == first)
                };
                for c in CONFIDENCES {
                    let (o, n) = (at_least(&original, c), at_least(&anonymized, c));
                    let ar = rule_accuracy(&o, &n);
                    if reading == Reading::Definition5 {
                        let (inside, across): (Vec<Rule>, Vec<Rule>) =
                            o.iter().cloned().partition(|r| within(r));
                        let kept = |rules: &[Rule]| {
                            (!rules.is_empty()).then(|| rule_accuracy(rules, &n).ratio)
                        };
                        reasons.push(ReasonRow {
                            dataset: s.name.clone(),
                            reading: reading.name(),
                            p: s.columns,
                            l,
                            confidence: c,
                            rules: o.len(),
                            within: inside.len(),
                            within_share: 100.0 * inside.len() as f64 / o.len().max(1) as f64,
                            ar_within: kept(&inside),
                            ar_across: kept(&across),
                        });
                    }
                    rule_rows.push(RuleRow {
                        dataset: s.name.clone(),
                        reading: reading.name(),
                        p: s.columns,
                        l,
                        support: s.support * 100.0,
                        confidence: c,
                        original: o.len(),
                        anonymized: n.len(),
                        common: ar.matched,
                        ar: ar.ratio,
                    });
                    count_points.push((c, n.len() as f64));
                    ar_points.push((c, ar.ratio));
                }
                counts.series.push(Series { label: format!("l = {l}"), points: count_points });
                accuracy.series.push(Series { label: format!("l = {l}"), points: ar_points });
            }
            if counts.series.len() > 1 {
                out.figures.push(counts);
                out.figures.push(accuracy);
            }
            if !times.is_empty() {
                time_figure.series.push(Series {
                    label: format!("{}, {}", s.name, reading.name()),
                    points: times,
                });
            }
        }
    }
    Ok(RuleStudy { rules: rule_rows, reasons, admitted, time: time_figure })
}

/// Figure 3: ln of the faked-record count against l, for several p (the runs of the rules
/// study reused where they exist).
fn faked_study(ctx: &Context, settings: &[Data], state: &mut Runs) -> Result<Figure> {
    let (faked_db, faked_name, ps, ls) = if ctx.quick {
        (settings[0].db.clone(), settings[0].name.clone(), vec![3, 4, 5], vec![2, 3, 4])
    } else if let Some(s) = settings.iter().find(|s| s.name == T40_NAME) {
        (s.db.clone(), s.name.clone(), vec![5, 10, 15, 20], T40_LS.to_vec())
    } else {
        (ctx.quest_t40().clone(), QUEST_T40_NAME.into(), vec![5, 10, 15, 20], T40_LS.to_vec())
    };
    let mut faked = Figure::line(
        "anatomy-faked-records",
        &format!("ln of faked records, {faked_name} (Fig. 3)"),
        "l",
        "ln(faked records)",
    );
    for reading in [Reading::Definition5, Reading::Distinct] {
        for &p in &ps {
            let mut points = Vec::new();
            for &l in &ls {
                let done = state
                    .rows
                    .iter()
                    .find(|r| {
                        r.dataset == faked_name
                            && r.reading == reading.name()
                            && r.p == p
                            && r.l == l
                    })
                    .map(|r| r.ln_faked);
                let ln_faked = match done {
                    Some(v) => Some(v),
                    None => state
                        .one("anatomy-settings", &faked_name, &faked_db, reading, p, l, ctx.seed)?
                        .map(|(a, seconds)| {
                            state.rows.push(run_row(&faked_name, reading, p, l, &a, seconds));
                            a.ln_faked_records
                        }),
                };
                if let Some(v) = ln_faked {
                    points.push((l as f64, v));
                }
            }
            if !points.is_empty() {
                faked
                    .series
                    .push(Series { label: format!("p = {p}, {}", reading.short()), points });
            }
        }
    }
    Ok(faked)
}

/// The scaling study's grid: the sizes, the columns, the readings timed at their l, and the
/// Quest shape generated.
struct ScalingGrid {
    sizes: Vec<usize>,
    p: usize,
    points: [ReadingAt; 2],
    quest: Shape,
}

/// A reading of l-diversity at one l.
#[derive(Debug, Clone, Copy)]
struct ReadingAt {
    reading: Reading,
    l: usize,
}

/// A Quest generator's shape: average transaction and pattern lengths, items.
struct Shape {
    avg: f64,
    pattern: f64,
    items: u32,
}

/// Time against the number of records, Quest T40I10 data.
fn scaling_study(ctx: &Context, state: &mut Runs) -> Result<(Vec<ScalingRow>, Figure)> {
    let mut scaling = Vec::new();
    let mut scaling_figure = Figure::line(
        "anatomy-scaling",
        "Anatomization time against records (Quest T40I10; median of 3 below 200,000 records)",
        "records",
        "seconds",
    );
    let grid = if ctx.quick {
        ScalingGrid {
            sizes: vec![2_000, 4_000, 8_000],
            p: 5,
            points: [
                ReadingAt { reading: Reading::Definition5, l: 3 },
                ReadingAt { reading: Reading::Distinct, l: 6 },
            ],
            quest: Shape { avg: 10.0, pattern: 4.0, items: 150 },
        }
    } else {
        ScalingGrid {
            sizes: vec![25_000, 50_000, 100_000, 200_000, 400_000],
            p: 20,
            points: [
                ReadingAt { reading: Reading::Definition5, l: 6 },
                ReadingAt { reading: Reading::Distinct, l: 12 },
            ],
            quest: Shape { avg: 40.0, pattern: 10.0, items: 1000 },
        }
    };
    let ScalingGrid { sizes, p, points, quest: Shape { avg, pattern, items } } = grid;
    let mut curves: Vec<Vec<(f64, f64)>> = vec![Vec::new(); points.len()];
    for &n in &sizes {
        let db = QuestParams::new(n, avg, pattern, items).seed(ctx.seed).check()?.generate();
        let name = format!("Quest T{avg}I{pattern}, {n} records");
        for (k, &ReadingAt { reading, l }) in points.iter().enumerate() {
            // The median of three runs where a run is short: single timings on a shared machine
            // drift. From 200,000 records a run is long enough to stand alone.
            let runs = if n < 200_000 { 3 } else { 1 };
            let mut timed = Vec::new();
            for _ in 0..runs {
                let Some(run) =
                    state.one("anatomy-scaling", &name, &db, reading, p, l, ctx.seed)?
                else {
                    break;
                };
                timed.push(run);
            }
            if timed.len() < runs {
                continue;
            }
            timed.sort_by(|a, b| a.1.total_cmp(&b.1));
            let (a, seconds) = timed.swap_remove(runs / 2);
            scaling.push(ScalingRow {
                records: n,
                reading: reading.name(),
                p,
                l,
                buckets: a.buckets,
                seconds,
                per_record: seconds * 1e6 / n as f64,
                runs,
            });
            curves[k].push((n as f64, seconds));
        }
    }
    for (ReadingAt { reading, l }, points) in points.iter().zip(curves) {
        scaling_figure
            .series
            .push(Series { label: format!("p = {p}, l = {l}, {}", reading.short()), points });
    }
    Ok((scaling, scaling_figure))
}

/// The l of the Connect settings (Figure 4).
const CONNECT_LS: [usize; 4] = [5, 6, 8, 10];

/// The l of the T40 settings (Figures 4-7).
const T40_LS: [usize; 4] = [6, 8, 10, 12];
