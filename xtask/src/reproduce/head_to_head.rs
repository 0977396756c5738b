//! Experiment `head-to-head`: every transaction family on the same data at matched privacy
//! levels (4, 8, 16), under one adversary and one utility yardstick (`txanon-evaluate`), on
//! BMS-WebView-1, BMS-WebView-2, retail and the T40 sample: 10 random sensitive items (seeded,
//! the CAHD papers' convention), 50 random categories for swapping (the swap paper's Section
//! 5.1); the privacy–utility frontier per adversary, which points no other beats, and each
//! family's own guarantee checked against the common adversary.

use std::time::Instant;

use anyhow::Result;
use serde::Serialize;
use txanon_attack::AttackParams;
use txanon_data::{QuestParams, TransactionDb, random_categories, random_items};
use txanon_evaluate::frontier::{Adversary, standings, verdict};
use txanon_evaluate::{EvaluateParams, Evaluation, Outcome, evaluate};

use super::claims::{Claim, every, predicate};
use super::output::slug;
use super::rows::{Grid, Setting, col, table, volatile};
use super::{Context, Figure, Legend, Output, ResultTable, Series};

const LEVELS: [usize; 3] = [4, 8, 16];
/// The CAHD papers pick 10 sensitive items at random.
const SENSITIVE: usize = 10;
/// The swap paper's artificial categorization: 50 categories.
const CATEGORIES: usize = 50;
/// The yardstick's supports s₁ and s₂ (shares): `txanon evaluate`'s defaults on sparse data;
/// on dense data (transactions of 20 items or more on average, the T40 sample) 0.5% lists
/// more than the yardstick's million itemsets of at most 4 items, so twice as high.
fn supports(db: &txanon_data::TransactionDb) -> [f64; 2] {
    if db.stats().avg_len >= 20.0 { [0.02, 0.01] } else { [0.01, 0.005] }
}
/// Targets attacked on data of 10 items a transaction or more (retail, the T40 sample): a
/// uniform sample, the same for every method. Every target of BMS-WebView-1 and -2 is attacked.
/// Long transactions make every group of anatomy's and CAHD's publications hold the known
/// items, so each adversary weighs most of the groups: attacking every target there took most
/// of the experiment's time.
const SAMPLED_TARGETS: usize = 2_500;

/// The targets attacked on `db`: every one, or [`SAMPLED_TARGETS`] at random on long
/// transactions.
fn targets(db: &TransactionDb) -> Option<usize> {
    (db.stats().avg_len >= 10.0).then_some(SAMPLED_TARGETS)
}

/// The strongest adversary: the frontier and the verdict are read at this q.
const STRONGEST: usize = 4;
/// Coherence's p: the guarantee covers adversaries knowing at most this many public items.
const COHERENCE_P: usize = 2;
/// kᵐ-anonymity's m: as many known items as coherence's p, so that both guarantees speak of
/// the same adversaries.
const KM_M: usize = COHERENCE_P;

#[derive(Serialize)]
struct DataRow<'a> {
    dataset: &'a str,
    transactions: usize,
    items: usize,
    occurrences: usize,
    #[serde(rename = "sensitive items")]
    sensitive: String,
    #[serde(rename = "holding a sensitive item")]
    holding: usize,
    categories: Option<usize>,
    #[serde(rename = "s₁ %")]
    s1: f64,
    #[serde(rename = "s₂ %")]
    s2: f64,
    seconds: f64,
}

#[derive(Serialize)]
struct PrivacyRow<'a> {
    dataset: &'a str,
    method: &'a str,
    level: Option<usize>,
    q: usize,
    targets: usize,
    #[serde(rename = "re-id mean")]
    reid_mean: f64,
    #[serde(rename = "re-id p95")]
    reid_p95: f64,
    #[serde(rename = "re-id max")]
    reid_max: f64,
    #[serde(rename = "re-id above 1/2")]
    reid_above_2: f64,
    #[serde(rename = "re-id above 1/10")]
    reid_above_10: f64,
    #[serde(rename = "sensitive targets")]
    sensitive_targets: usize,
    #[serde(rename = "sensitive mean")]
    sensitive_mean: f64,
    #[serde(rename = "sensitive p95")]
    sensitive_p95: f64,
    #[serde(rename = "sensitive max")]
    sensitive_max: f64,
    #[serde(rename = "tendency mean")]
    tendency_mean: Option<f64>,
}

#[derive(Serialize)]
struct UtilityRow<'a> {
    dataset: &'a str,
    method: &'a str,
    level: Option<usize>,
    setting: &'a str,
    #[serde(rename = "F1 at s₁")]
    f1_1: f64,
    #[serde(rename = "Jaccard at s₁")]
    jaccard_1: f64,
    #[serde(rename = "F1 at s₂")]
    f1_05: f64,
    #[serde(rename = "Jaccard at s₂")]
    jaccard_05: f64,
    #[serde(rename = "workload error")]
    workload_error: f64,
    /// The original's rules at s₁ (confidence 0.5): "rules kept" is a share of these.
    rules: usize,
    #[serde(rename = "rules kept")]
    rules_kept: f64,
    #[serde(rename = "item loss")]
    item_loss: f64,
    #[serde(rename = "Diss")]
    diss: f64,
    seconds: f64,
}

#[derive(Serialize)]
struct FrontierRow<'a> {
    dataset: &'a str,
    adversary: &'static str,
    point: String,
    #[serde(rename = "mean risk")]
    risk: f64,
    #[serde(rename = "F1 at s₁")]
    f1: f64,
    #[serde(rename = "workload error")]
    workload_error: f64,
    #[serde(rename = "on the frontier")]
    on_frontier: bool,
    #[serde(rename = "beaten by")]
    beaten_by: String,
}

/// Runs the experiment: every family evaluated at every level on every dataset, then its
/// tables, frontiers and verdicts.
pub fn run(ctx: &Context) -> Result<Output> {
    let data = ctx.transaction_data(&["bms1", "bms2", "retail", "t40-sample"], |seed| {
        Ok((
            "quest-T20I4D2K".into(),
            QuestParams::new(2000, 20.0, 4.0, 300).seed(seed).check()?.generate(),
        ))
    })?;
    let mut out = Output::on(&data);
    out.parameters = parameters(ctx);
    let mut grid = Grid::default();
    let evaluations = evaluations(ctx, &data)?;
    let rows = rows(&evaluations, &mut grid, &mut out);
    out.claims = claims(&rows.privacy, &evaluations);
    out.notes.extend(beyond_coherence_p(&rows.privacy));
    out.tables = tables(&rows);
    out.refusals = grid.into_refusals();
    Ok(out)
}

/// The settings every evaluation shares, as the report states them.
fn parameters(ctx: &Context) -> Vec<(String, String)> {
    vec![
        (
            "levels L".into(),
            format!(
                "{LEVELS:?} (anatomy l = L, CAHD p = L, coherence k = L with h = 1/L, km k = L; swapping once)"
            ),
        ),
        ("sensitive items".into(), format!("{SENSITIVE} drawn at random (seed {})", ctx.seed)),
        ("categories (swap's C)".into(), format!("{CATEGORIES} at random, equal shares")),
        (
            "q".into(),
            format!(
                "1, 2, 3, 4 public items known, 10 draws per target; every target, or {SAMPLED_TARGETS} drawn at random (the same for every method) on data of 10 items a transaction or more"
            ),
        ),
        (
            "supports s₁, s₂".into(),
            "1% and 0.5%; 2% and 1% on data of 20 items a transaction or more".into(),
        ),
        ("anatomy".into(), "10 item columns (the paper's p)".into()),
        ("coherence".into(), format!("p = {COHERENCE_P}, k′ = max(k, 0.1% of the transactions)")),
        (
            "km".into(),
            format!(
                "m = {KM_M}, AA over the balanced hierarchy of fanout 5; a known item matches a published item that generalizes it"
            ),
        ),
        ("swap".into(), "PartSwap, every tied heaviest category".into()),
    ]
}

/// Each dataset evaluated: every family at every level, attacked and measured; with the
/// seconds it took.
fn evaluations<'a>(
    ctx: &Context,
    data: &'a [(String, TransactionDb)],
) -> Result<Vec<(&'a str, Evaluation, f64)>> {
    let mut evaluations = Vec::new();
    for (name, db) in data {
        let sensitive = random_items(db, SENSITIVE.min(db.num_items()), ctx.seed)?;
        let categories = random_categories(db, CATEGORIES.min(db.num_items()), ctx.seed)?;
        let params = EvaluateParams::new()
            .levels(LEVELS.to_vec())
            .supports(supports(db).to_vec())
            .coherence_p(COHERENCE_P)
            .km_m(KM_M)
            .attack(AttackParams::new().seed(ctx.seed).sample(targets(db)))
            .seed(Some(ctx.seed))
            .check()?;
        eprintln!("   {name}: {} transactions", db.len());
        let started = Instant::now();
        let e = evaluate(db, &sensitive, Some(&categories), &params, &mut |p| {
            eprintln!(
                "     {:6.1} s {}/{} {}",
                started.elapsed().as_secs_f64(),
                p.done,
                p.total,
                p.what
            );
        })?;
        evaluations.push((name.as_str(), e, started.elapsed().as_secs_f64()));
    }
    Ok(evaluations)
}

/// The evaluations' rows, table by table.
struct Rows<'a> {
    data: Vec<DataRow<'a>>,
    privacy: Vec<PrivacyRow<'a>>,
    utility: Vec<UtilityRow<'a>>,
    frontier: Vec<FrontierRow<'a>>,
}

/// The rows of every evaluation; refusals go to `grid`, verdicts and charts to `out`.
fn rows<'a>(
    evaluations: &'a [(&'a str, Evaluation, f64)],
    grid: &mut Grid,
    out: &mut Output,
) -> Rows<'a> {
    let (mut data_rows, mut privacy, mut utility, mut frontier) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (name, e, seconds) in evaluations {
        let name = *name;
        let d = &e.data;
        data_rows.push(DataRow {
            dataset: name,
            transactions: d.transactions,
            items: d.items,
            occurrences: d.occurrences,
            sensitive: d.sensitive.join(" "),
            holding: d.holding_sensitive,
            categories: d.categories,
            s1: 100.0 * e.settings.supports[0],
            s2: 100.0 * e.settings.supports[1],
            seconds: *seconds,
        });
        for p in &e.points {
            match &p.outcome {
                Outcome::Infeasible { reason } => grid.refuse(
                    "head-to-head",
                    Setting(&[
                        ("dataset", name.to_string()),
                        ("method", p.method.clone()),
                        ("L", p.level.map_or_else(String::new, |l| l.to_string())),
                    ]),
                    reason,
                ),
                Outcome::Published { setting, privacy: attack, utility: u, seconds, .. } => {
                    for k in &attack.by_known {
                        let (r, s) = (&k.reidentification, &k.sensitive);
                        privacy.push(PrivacyRow {
                            dataset: name,
                            method: &p.method,
                            level: p.level,
                            q: k.known,
                            targets: r.targets,
                            reid_mean: r.mean,
                            reid_p95: r.p95,
                            reid_max: r.max,
                            reid_above_2: r.above_1_in_2,
                            reid_above_10: r.above_1_in_10,
                            sensitive_targets: s.targets,
                            sensitive_mean: s.mean,
                            sensitive_p95: s.p95,
                            sensitive_max: s.max,
                            tendency_mean: k.tendency.filter(|t| t.targets > 0).map(|t| t.mean),
                        });
                    }
                    let at = |k: usize| u.itemsets.get(k).map_or((0.0, 0.0), |i| (i.f1, i.jaccard));
                    let ((f1_1, jaccard_1), (f1_05, jaccard_05)) = (at(0), at(1));
                    utility.push(UtilityRow {
                        dataset: name,
                        method: &p.method,
                        level: p.level,
                        setting,
                        f1_1,
                        jaccard_1,
                        f1_05,
                        jaccard_05,
                        workload_error: u.workload_error,
                        rules: u.rules,
                        rules_kept: u.rule_accuracy,
                        item_loss: u.item_loss,
                        diss: u.diss,
                        seconds: *seconds,
                    });
                }
            }
        }
        for adversary in Adversary::ALL {
            let standing = standings(e, adversary, STRONGEST);
            for s in &standing {
                frontier.push(FrontierRow {
                    dataset: name,
                    adversary: adversary.name(),
                    point: s.point.label(),
                    risk: s.risk,
                    f1: s.f1,
                    workload_error: s.workload_error,
                    on_frontier: s.on_frontier(),
                    beaten_by: s.beaten_by.iter().map(|p| p.label()).collect::<Vec<_>>().join(", "),
                });
            }
            if let Some(v) = verdict(e, adversary, STRONGEST) {
                out.notes.push(format!("**{name}.** {v}"));
            }
            if let Some(f) = chart(name, e, adversary) {
                out.figures.push(f);
            }
        }
    }
    Rows { data: data_rows, privacy, utility, frontier }
}

/// The experiment's tables.
fn tables(rows: &Rows<'_>) -> Vec<ResultTable> {
    let risk = |name| col(name, 4);
    vec![
        table(
            "head-to-head-data",
            &rows.data,
            &[col("s₁ %", 1), col("s₂ %", 1), volatile("seconds", 1)],
        ),
        table(
            "head-to-head",
            &rows.frontier,
            &[risk("mean risk"), col("F1 at s₁", 4), col("workload error", 4)],
        ),
        table(
            "head-to-head-privacy",
            &rows.privacy,
            &[
                risk("re-id mean"),
                risk("re-id p95"),
                risk("re-id max"),
                risk("re-id above 1/2"),
                risk("re-id above 1/10"),
                risk("sensitive mean"),
                risk("sensitive p95"),
                risk("sensitive max"),
                risk("tendency mean"),
            ],
        ),
        table(
            "head-to-head-utility",
            &rows.utility,
            &[
                col("F1 at s₁", 4),
                col("Jaccard at s₁", 4),
                col("F1 at s₂", 4),
                col("Jaccard at s₂", 4),
                col("workload error", 4),
                col("rules kept", 4),
                col("item loss", 4),
                col("Diss", 4),
                volatile("seconds", 2),
            ],
        ),
    ]
}

/// The frontier chart of `adversary` on one dataset: F1 across, mean risk at the strongest q
/// up; a line per method through its levels, the references as single points.
fn chart(dataset: &str, e: &Evaluation, adversary: Adversary) -> Option<Figure> {
    let mut figure = Figure::line(
        &format!("head-to-head-{}-{}", slug(dataset), slug(adversary.name())),
        &format!("{dataset}: {} (q = {STRONGEST}) against utility", adversary.name()),
        &format!("frequent-itemset F1 at s₁ = {}% (utility →)", 100.0 * e.settings.supports[0]),
        &format!("mean {} risk (↑ worse)", adversary.name()),
    );
    figure.legend = Legend::UpperLeft;
    for p in &e.points {
        let Some(point) = p.f1().zip(p.risk(adversary, STRONGEST)) else { continue };
        match figure.series.iter_mut().find(|s| s.label == p.method) {
            Some(s) => s.points.push(point),
            None => figure.series.push(Series { label: p.method.clone(), points: vec![point] }),
        }
    }
    (!figure.series.is_empty()).then_some(figure)
}

/// The rows of `method`, for the datasets the run used.
fn rows_of<'r>(privacy: &'r [PrivacyRow<'r>], method: &str) -> Vec<&'r PrivacyRow<'r>> {
    privacy.iter().filter(|r| r.method == method && r.level.is_some()).collect()
}

/// The largest of `value` over `rows` relative to the row's bound 1/L: at most 1 when every
/// row meets its guarantee; with the row that comes closest (or goes furthest).
fn worst<'r>(
    rows: &[&'r PrivacyRow<'r>],
    value: impl Fn(&PrivacyRow<'_>) -> f64,
) -> Option<(f64, &'r PrivacyRow<'r>)> {
    rows.iter()
        .map(|r| (value(r) * r.level.expect("a method's row has a level") as f64, *r))
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

fn described(w: Option<(f64, &PrivacyRow<'_>)>, what: &str) -> String {
    w.map_or_else(
        || "not run".into(),
        |(ratio, r)| {
            format!(
                "largest {what} × L = {ratio:.3} ({}, L = {}, q = {})",
                r.dataset,
                r.level.unwrap_or(0),
                r.q
            )
        },
    )
}

/// Each family's own guarantee, checked against the common adversary: what the guarantee
/// bounds must stay within it for every target.
fn claims(privacy: &[PrivacyRow<'_>], evaluations: &[(&str, Evaluation, f64)]) -> Vec<Claim> {
    let cahd = rows_of(privacy, "cahd");
    let cahd_worst = worst(&cahd, |r| r.sensitive_max);
    let coherence: Vec<&PrivacyRow<'_>> =
        rows_of(privacy, "coherence").into_iter().filter(|r| r.q <= COHERENCE_P).collect();
    let coherence_sensitive = worst(&coherence, |r| r.sensitive_max);
    let coherence_reid = worst(&coherence, |r| r.reid_max);
    let km: Vec<&PrivacyRow<'_>> =
        rows_of(privacy, "km").into_iter().filter(|r| r.q <= KM_M).collect();
    let km_reid = worst(&km, |r| r.reid_max);
    // No row (nothing run) is no verdict.
    let within = |w: Option<(f64, &PrivacyRow<'_>)>| w.map(|(ratio, _)| ratio <= 1.0 + 1e-9);
    // Tendency: swapping against the original, at the strongest q, per dataset.
    let tendency = |method: &str, dataset: &str| {
        privacy
            .iter()
            .find(|r| r.method == method && r.dataset == dataset && r.q == STRONGEST)
            .and_then(|r| r.tendency_mean)
    };
    let pairs: Vec<(&str, f64, f64)> = evaluations
        .iter()
        .filter_map(|(d, _, _)| Some((*d, tendency("original", d)?, tendency("swap", d)?)))
        .collect();
    let anatomy = rows_of(privacy, "anatomy");
    let anatomy_reid = worst(&anatomy, |r| r.reid_max);
    let anatomy_sensitive = worst(&anatomy, |r| r.sensitive_max);
    let bound = |w: Option<(f64, &PrivacyRow<'_>)>, what: &str| {
        predicate(
            within(w),
            format!("the largest {what} over every target attacked, level and q at most the bound"),
        )
    };
    let setting =
        |what: &str| format!("{what}; every dataset, level and adversary knowledge q of the run");
    vec![
        Claim::new(
            "h2h-anatomy",
            "An adversary links a target to its published record with probability at most 1/l",
            setting("anatomy, l = L"),
            "≤ 1/l (Corollary 1)",
            format!(
                "{}; the largest sensitive posterior × L is {} (Theorem 1 bounds a column's value, not an item)",
                described(anatomy_reid, "re-identification"),
                anatomy_sensitive.map_or("—".into(), |(r, _)| format!("{r:.3}"))
            ),
            bound(anatomy_reid, "re-identification × L"),
        ),
        Claim::new(
            "h2h-cahd",
            "Privacy degree p: no adversary links a sensitive item to a transaction with probability above 1/p (here whatever q public items it knows)",
            setting("CAHD, p = L"),
            "≤ 1/p",
            described(cahd_worst, "sensitive posterior"),
            bound(cahd_worst, "sensitive posterior × L"),
        ),
        Claim::new(
            "h2h-coherence-h",
            "An adversary knowing at most p public items infers no private item with probability above h",
            setting(&format!("coherence, q ≤ p = {COHERENCE_P}, h = 1/L")),
            "≤ h",
            described(coherence_sensitive, "sensitive posterior"),
            bound(coherence_sensitive, "sensitive posterior × L"),
        ),
        Claim::new(
            "h2h-coherence-k",
            "An adversary knowing at most p public items finds at least k transactions matching them, so links the target with probability at most 1/k",
            setting(&format!("coherence, q ≤ p = {COHERENCE_P}, k = L")),
            "≤ 1/k",
            described(coherence_reid, "re-identification"),
            bound(coherence_reid, "re-identification × L"),
        ),
        Claim::new(
            "h2h-km",
            "An adversary knowing at most m items of a transaction finds at least k published transactions holding them (or generalizations of them), so links the target with probability at most 1/k",
            setting(&format!("kᵐ-anonymity, q ≤ m = {KM_M}, k = L")),
            "≤ 1/k",
            described(km_reid, "re-identification"),
            bound(km_reid, "re-identification × L"),
        ),
        Claim::new(
            "h2h-swap",
            "Swapping hides the personal tendency: an adversary names it less often from the swapped data than from the original",
            setting(&format!("swapping once, q = {STRONGEST}")),
            "tendency hidden",
            pairs
                .iter()
                .map(|(d, o, s)| format!("{d}: {s:.3} swapped, {o:.3} original (q = {STRONGEST})"))
                .collect::<Vec<_>>()
                .join("; "),
            every(
                (pairs.iter().filter(|(_, o, s)| s < o).count(), pairs.len()),
                "the tendency named less often from the swapped data, on every dataset",
            ),
        ),
    ]
}

/// Coherence's guarantee says nothing about adversaries knowing more than p items: what they
/// get, measured.
fn beyond_coherence_p(privacy: &[PrivacyRow<'_>]) -> Option<String> {
    let beyond: Vec<&PrivacyRow<'_>> =
        rows_of(privacy, "coherence").into_iter().filter(|r| r.q > COHERENCE_P).collect();
    let sensitive = worst(&beyond, |r| r.sensitive_max)?;
    let reid = worst(&beyond, |r| r.reid_max)?;
    Some(format!(
        "Coherence beyond its p = {COHERENCE_P}, where its guarantee is silent: {}; {}. A ratio above 1 is an adversary knowing more items than the guarantee covers doing better than h or 1/k.",
        described(Some(sensitive), "sensitive posterior"),
        described(Some(reid), "re-identification"),
    ))
}
