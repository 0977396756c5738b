//! Experiment `coherence`: (h,k,p)-coherence on BMS-WebView-1, BMS-WebView-2 and retail with a
//! random 10% of the items private (seeded): items suppressed, nuggets retained and time,
//! varying p (1–4), k (5–50) and h (20%–80%) one at a time around p = 3, k = 10, h = 40%, with
//! k′ = 0.1% of the transactions; the counting engine beside the enumeration reference (and
//! the paper's border-edge engine where it finishes), to show where enumeration gives out.
//!
//! Every engine that runs must suppress the same items in the same order: the experiment fails
//! otherwise, so its tables double as a cross-check on real data.

use anyhow::{Result, bail};
use serde::Serialize;
use txanon_coherence::{
    CoherenceError, CoherenceParams, CoherencePublication, Engine, Reason, nuggets,
};
use txanon_data::{QuestParams, TransactionDb, random_items};

use super::claims::{Claim, above_one, by_construction, every, median, setting_on};
use super::rows::{Big, Col, Grid, Setting as Shown, col, infeasible, table, timed, volatile};
use super::{Context, Figure, FigureKind, Output, Series};

/// The paper's default setting.
const BASE: Setting = Setting { p: 3, k: 10, h: 0.4 };
const PS: [usize; 4] = [1, 2, 3, 4];
const KS: [u32; 6] = [5, 10, 20, 30, 40, 50];
const HS: [f64; 4] = [0.2, 0.4, 0.6, 0.8];
/// The border-edge engine (the paper's Compute-δ) runs only up to this p: at p = 3 it took
/// over 300 s on BMS-WebView-1 and -2 (docs/PERFORMANCE.md).
const EDGES_MAX_P: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Setting {
    p: usize,
    k: u32,
    h: f64,
}

/// The settings of one axis, each labelled with the value that varies.
fn axis(name: &str) -> Vec<(f64, Setting)> {
    match name {
        "p" => PS.iter().map(|&p| (p as f64, Setting { p, ..BASE })).collect(),
        "k" => KS.iter().map(|&k| (k as f64, Setting { k, ..BASE })).collect(),
        _ => HS.iter().map(|&h| (100.0 * h, Setting { h, ..BASE })).collect(),
    }
}

/// One setting's row: the counting engine's publication, and the references beside it.
#[derive(Serialize)]
struct Row<'a> {
    dataset: &'a str,
    varied: &'static str,
    p: usize,
    k: u32,
    #[serde(rename = "h %")]
    h: f64,
    #[serde(rename = "k′")]
    k2: u32,
    #[serde(rename = "private items")]
    private: usize,
    #[serde(rename = "items suppressed (pre-step)")]
    pre_step: usize,
    #[serde(rename = "items suppressed (greedy)")]
    greedy: usize,
    #[serde(rename = "public items suppressed %")]
    suppressed: f64,
    #[serde(rename = "occurrences suppressed %")]
    occurrences: f64,
    moles: Big,
    #[serde(rename = "minimal moles")]
    minimal_moles: usize,
    #[serde(rename = "nuggets before")]
    nuggets_before: Big,
    #[serde(rename = "nuggets after")]
    nuggets_after: Big,
    #[serde(rename = "nuggets retained %")]
    retained: f64,
    enumeration: String,
    #[serde(rename = "border-edges")]
    border_edges: String,
    #[serde(rename = "counting seconds")]
    counting_seconds: f64,
    #[serde(rename = "enumeration seconds")]
    enumeration_seconds: Option<f64>,
    #[serde(rename = "border-edges seconds")]
    edges_seconds: Option<f64>,
    #[serde(rename = "speed-up over enumeration")]
    speed_up: Option<f64>,
}

const SPEC: &[Col] = &[
    col("h %", 0),
    col("public items suppressed %", 1),
    col("occurrences suppressed %", 1),
    col("nuggets retained %", 1),
    volatile("counting seconds", 3),
    volatile("enumeration seconds", 3),
    volatile("border-edges seconds", 3),
    volatile("speed-up over enumeration", 1),
];

/// The engines' runs of one setting: counting, and the references where they ran.
struct Runs {
    counted: std::result::Result<CoherencePublication, CoherenceError>,
    counting_seconds: f64,
    listed: Option<(std::result::Result<CoherencePublication, CoherenceError>, f64)>,
    edges: Option<(std::result::Result<CoherencePublication, CoherenceError>, f64)>,
}

/// One engine's run: the result (or the refusal) and its seconds, audited.
fn run_engine(
    db: &TransactionDb,
    private: &[u32],
    s: Setting,
    k2: u32,
    engine: Engine,
    seed: u64,
) -> Result<(std::result::Result<CoherencePublication, CoherenceError>, f64)> {
    let params = CoherenceParams::new(s.h, s.k, s.p, k2).engine(engine).seed(Some(seed)).check()?;
    let (result, seconds) = timed(|| txanon_coherence::anonymize(db, private, &params));
    match &result {
        // `anonymize` audits its publication before it returns it.
        Ok(_) => {}
        Err(e) if infeasible(e) => {}
        Err(e) => bail!("{engine:?}: {e}"),
    }
    Ok((result, seconds))
}

/// Runs the experiment: every dataset along the p, k and h axes, each setting by every
/// engine that can run it.
pub fn run(ctx: &Context) -> Result<Output> {
    let data = ctx.transaction_data(&["bms1", "bms2", "retail"], |seed| {
        Ok((
            "quest-T5I2D3K".into(),
            QuestParams::new(3000, 5.0, 2.0, 200).seed(seed).check()?.generate(),
        ))
    })?;
    let mut out = Output::on(&data);
    let mut rows = Vec::new();
    let mut grid = Grid::default();
    let mut time_figure = Figure::new(
        "coherence-time",
        "Time against p (k = 10, h = 40%): counting through the border vs the enumeration reference",
        "p",
        "seconds (log)",
        FigureKind::Line { log_x: false, log_y: true },
    );
    for (name, db) in &data {
        rows.extend(dataset_study(ctx, name, db, &mut grid, &mut out, &mut time_figure)?);
    }
    out.figures.push(time_figure);
    out.claims = claims(&out, &rows);
    describe(ctx, &mut out);
    out.parameters = vec![
        ("seed".into(), ctx.seed.to_string()),
        ("private".into(), "10% of the items, at random".into()),
        ("k′".into(), "0.1% of the transactions (at least 1)".into()),
        ("default".into(), "p = 3, k = 10, h = 40%".into()),
    ];
    out.tables.push(table("coherence", &rows, SPEC));
    out.refusals = grid.into_refusals();
    Ok(out)
}

/// One dataset along the three axes: its rows, a figure per axis, its times against p. The
/// default setting lies on every axis and runs once.
///
/// Long as one function: the default setting lies on the three axes and runs once, which ties the
/// axes' loops together.
fn dataset_study<'a>(
    ctx: &Context,
    name: &'a str,
    db: &TransactionDb,
    grid: &mut Grid,
    out: &mut Output,
    time_figure: &mut Figure,
) -> Result<Vec<Row<'a>>> {
    let mut rows = Vec::new();
    let private = random_items(db, (db.num_items() / 10).max(1), ctx.seed)?;
    let public_items = db.num_items() - private.len();
    let k2 = ((db.len() as f64 * 0.001).ceil() as u32).max(1);
    let nuggets_before = nuggets(db, k2)?;
    let mut counting_times = Vec::new();
    let mut enumeration_times = Vec::new();
    // The default setting lies on every axis: each setting runs once.
    let mut done: Vec<(Setting, Runs)> = Vec::new();
    for varied in ["p", "k", "h"] {
        let mut suppressed_series = Vec::new();
        let mut retained_series = Vec::new();
        for (x, s) in axis(varied) {
            if !done.iter().any(|(d, _)| *d == s) {
                let (counted, counting_seconds) =
                    run_engine(db, &private, s, k2, Engine::Counting, ctx.seed)?;
                // The reference runs on the p axis (and so at the default); on retail, at
                // p = 4 and, on the real data, along the k and h axes it is a slow
                // reference.
                let slow = s.p >= 4 || name == "retail" || (varied != "p" && !ctx.quick);
                let listed = if slow && !ctx.slow_references {
                    None
                } else {
                    Some(run_engine(db, &private, s, k2, Engine::Enumerate, ctx.seed)?)
                };
                let edges = if s.p <= EDGES_MAX_P {
                    Some(run_engine(db, &private, s, k2, Engine::BorderEdges, ctx.seed)?)
                } else {
                    None
                };
                done.push((s, Runs { counted, counting_seconds, listed, edges }));
            }
            let Runs { counted, counting_seconds, listed, edges } =
                &done.iter().find(|(d, _)| *d == s).expect("run above").1;
            let counting_seconds = *counting_seconds;
            let Verdicts { enumeration, enumeration_seconds, border_edges } =
                verdicts(name, s, counted, listed.as_ref(), edges.as_ref())?;
            if varied == "p" {
                counting_times.push((x, counting_seconds.max(1e-4)));
                if let Some(t) = enumeration_seconds {
                    enumeration_times.push((x, t.max(1e-4)));
                }
            }
            let r = match counted {
                Ok(r) => r,
                Err(e) => {
                    let setting = [
                        ("dataset", name.to_string()),
                        ("p", s.p.to_string()),
                        ("k", s.k.to_string()),
                        ("h", s.h.to_string()),
                    ];
                    if varied == "p" || s != BASE {
                        grid.refuse("coherence", Shown(&setting), e);
                    }
                    continue;
                }
            };
            let pre = r
                .suppressed
                .iter()
                .filter(|x| matches!(x.reason, Reason::Infrequent { .. }))
                .count();
            let suppressed = 100.0 * r.suppressed.len() as f64 / public_items.max(1) as f64;
            let nuggets_after = nuggets(&r.published, k2)?;
            let retained = 100.0 * nuggets_after as f64 / (nuggets_before as f64).max(1.0);
            suppressed_series.push((x, suppressed));
            retained_series.push((x, retained));
            rows.push(Row {
                dataset: name,
                varied,
                p: s.p,
                k: s.k,
                h: 100.0 * s.h,
                k2,
                private: private.len(),
                pre_step: pre,
                greedy: r.suppressed.len() - pre,
                suppressed,
                occurrences: 100.0 * r.occurrences_suppressed as f64 / r.occurrences.max(1) as f64,
                moles: Big(r.moles),
                minimal_moles: r.minimal_moles,
                nuggets_before: Big(nuggets_before),
                nuggets_after: Big(nuggets_after),
                retained,
                enumeration,
                border_edges,
                counting_seconds,
                enumeration_seconds,
                edges_seconds: edges.as_ref().map(|(_, t)| *t),
                speed_up: enumeration_seconds.map(|t| t / counting_seconds.max(1e-9)),
            });
        }
        out.figures.push(axis_figure(name, varied, suppressed_series, retained_series));
    }
    time_figure.series.push(Series { label: format!("{name}: counting"), points: counting_times });
    time_figure
        .series
        .push(Series { label: format!("{name}: enumeration"), points: enumeration_times });
    Ok(rows)
}

/// What the reference engines say of a setting beside the counting engine.
struct Verdicts {
    enumeration: String,
    enumeration_seconds: Option<f64>,
    border_edges: String,
}

/// The reference engines' verdicts on setting `s`; an engine that made other suppressions
/// than the counting engine stops the experiment.
fn verdicts(
    name: &str,
    s: Setting,
    counted: &std::result::Result<CoherencePublication, CoherenceError>,
    listed: Option<&(std::result::Result<CoherencePublication, CoherenceError>, f64)>,
    edges: Option<&(std::result::Result<CoherencePublication, CoherenceError>, f64)>,
) -> Result<Verdicts> {
    let same = |other: &std::result::Result<CoherencePublication, CoherenceError>| match (
        counted, other,
    ) {
        (Ok(a), Ok(b)) => a.suppressed == b.suppressed,
        (Err(CoherenceError::NoCohesion(_)), Err(CoherenceError::NoCohesion(_))) => true,
        _ => false,
    };
    let (enumeration, enumeration_seconds) = match listed {
        None => ("not run (a slow reference: --slow-references)".to_string(), None),
        Some((Err(CoherenceError::TooLarge { subsets, .. }), _)) => {
            (format!("refused: {subsets} itemsets over the limit"), None)
        }
        Some((other, t)) if same(other) => (SAME.into(), Some(*t)),
        Some(_) => bail!("{name} {s:?}: enumeration and counting disagree"),
    };
    let border_edges = match edges {
        None => format!("not run (p > {EDGES_MAX_P})"),
        Some((other, _)) if same(other) => SAME.into(),
        Some(_) => bail!("{name} {s:?}: border edges and counting disagree"),
    };
    Ok(Verdicts { enumeration, enumeration_seconds, border_edges })
}

/// The figure of one axis: suppression and nuggets retained against it.
fn axis_figure(
    name: &str,
    varied: &str,
    suppressed: Vec<(f64, f64)>,
    retained: Vec<(f64, f64)>,
) -> Figure {
    let (x_label, what) = match varied {
        "p" => ("p (items known)", "p"),
        "k" => ("k", "k"),
        _ => ("h (%)", "h"),
    };
    let mut figure = Figure::line(
        &format!("coherence-{name}-{what}"),
        &format!(
            "{name}: suppression and utility against {what} (others at p = 3, k = 10, h = 40%)"
        ),
        x_label,
        "%",
    );
    figure.series.push(Series { label: "public items suppressed %".into(), points: suppressed });
    figure.series.push(Series { label: "nuggets retained %".into(), points: retained });
    figure
}

/// The experiment's notes: the private items and steps, and the engines.
fn describe(ctx: &Context, out: &mut Output) {
    out.notes.push(
        "Private items: a random 10% of the items (seeded), the rest public. The pre-step removes the public items in fewer than max(k, k′) transactions (the paper's Observation 2); the greedy loop then suppresses the item of largest |M(v)|/|N(v)| until no mole is left. Nuggets are all frequent itemsets at k′, of any length."
            .into(),
    );
    out.notes.push(format!(
        "Engines: `counting` (ours, the default) counts the moles per item through the mole border's two sides by FP-Growth, never listing them; `enumeration` lists every mole and nugget (refused over 300 million listed itemsets){}; `border-edges` is the paper's Section 6 (W over the border's edges, Compute-δ after each suppression), run only for p ≤ 2 since at p = 3 it ran over 300 s on BMS-WebView-1 and -2: the inclusion-exclusion over overlapping edges of long transactions is what does not scale. Every engine that ran made the same suppressions in the same order (the experiment checks it), and every publication passed the audit.",
        if ctx.slow_references {
            ""
        } else {
            "; it runs at p = 4, on retail and along the k and h axes only with --slow-references (they took 15 of the full run's 20 minutes), so it checks the counting engine at p = 1-3 and at the default on BMS-WebView-1 and -2"
        }
    ));
}

/// What a reference engine's column says when it made the counting engine's suppressions.
const SAME: &str = "ran: same suppressions";

/// The paper's claims about its own algorithm: the border-based greedy makes the choices
/// enumeration makes (the experiment stops on a disagreement), scales where enumeration does not,
/// and retains nuggets; and our counting engine's speed beside enumeration.
fn claims(out: &Output, rows: &[Row<'_>]) -> Vec<Claim> {
    let real = ["bms1", "bms2", "retail"].iter().any(|d| out.used(d));
    let setting = setting_on(
        real,
        "BMS-WebView-1, -2 and retail, random private items; the paper reports no experiments (\"not included in this paper due to the space\"), so the settings are ours",
    );
    let compared: Vec<&Row<'_>> = rows.iter().filter(|r| r.enumeration_seconds.is_some()).collect();
    // The paper's engine (Section 6's border edges) against enumeration, where both ran.
    let edges: Vec<f64> = rows
        .iter()
        .filter_map(|r| Some(r.enumeration_seconds? / r.edges_seconds?.max(1e-9)))
        .collect();
    let counting: Vec<f64> = compared.iter().filter_map(|r| r.speed_up).collect();
    // Nuggets retained at the paper's setting: p = 3, k = 10, h = 40%.
    let paper_setting: Vec<&Row<'_>> =
        rows.iter().filter(|r| r.p == 3 && r.k == 10 && (r.h - 40.0).abs() < 1e-9).collect();
    let mut seen = Vec::new();
    let retained: Vec<(&str, f64)> = paper_setting
        .iter()
        .filter(|r| {
            let first = !seen.contains(&r.dataset);
            seen.push(r.dataset);
            first
        })
        .map(|r| (r.dataset, r.retained))
        .collect();
    vec![
        Claim::new(
            "coherence-same",
            "The border-based greedy suppresses the same items, in the same order, as the greedy over enumerated moles",
            setting("every setting where the enumeration engine ran"),
            "exactly the same solution (Section 1)",
            format!(
                "same suppressions in {} of {} settings where enumeration ran",
                compared.iter().filter(|r| r.enumeration == SAME).count(),
                compared.len()
            ),
            if compared.is_empty() {
                every((0, 0), "")
            } else {
                by_construction(
                    "a disagreement stops the experiment, so this row cannot fail; the agreement is tested by txanon-coherence's property tests",
                )
            },
        )
        .stand_in(!real),
        Claim::new(
            "coherence-faster",
            "The paper's border-based counting (Section 6's border edges) is faster than enumerating the moles",
            setting("border edges (run for p ≤ 2) against enumeration, where both ran; times vary run to run"),
            "scalable: no need to generate all moles and nuggets",
            format!(
                "faster in {} of {} settings; median speed-up {:.1}×",
                above_one(&edges).0,
                edges.len(),
                median(&edges)
            ),
            every(above_one(&edges), "border edges faster than enumeration"),
        )
        .stand_in(!real),
        Claim::new(
            "coherence-faster-ours",
            "Our counting engine (FP-Growth over the mole border's two sides) is faster than enumerating the moles",
            setting("counting against enumeration, where enumeration ran; times vary run to run"),
            "not in the paper",
            format!(
                "faster in {} of {} settings; median speed-up {:.0}×",
                above_one(&counting).0,
                counting.len(),
                median(&counting)
            ),
            every(above_one(&counting), "counting faster than enumeration"),
        )
        .stand_in(!real),
        Claim::new(
            "coherence-nuggets",
            "The greedy suppression retains most nuggets (frequent itemsets) while it removes every mole",
            setting("p = 3, k = 10, h = 40%, k′ = 0.1%, per dataset"),
            "retaining nuggets as much as possible",
            if retained.is_empty() {
                "—".into()
            } else {
                retained.iter().map(|(d, r)| format!("{d}: {r:.1}% retained")).collect::<Vec<_>>().join("; ")
            },
            every(
                (retained.iter().filter(|(_, r)| *r >= 50.0).count(), retained.len()),
                "at least half of the nuggets retained (our reading of \"as much as possible\": the paper gives no figure)",
            ),
        )
        .stand_in(!real),
    ]
}
