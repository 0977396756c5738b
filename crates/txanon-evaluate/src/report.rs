//! The evaluation as a data holder reads it: one self-contained HTML page (inline SVG, no
//! script, no network, well-formed XML so that any parser reads it) that opens with the decision
//! and where the data came from, and a flat CSV with every figure.

use std::fmt::Write;

use crate::chart::{Axis, Chart, ChartPoint, Marker, Series};
use crate::frontier::{Adversary, verdict};
use crate::{Evaluation, Outcome, Point};

/// Colours of the methods, in [`crate::Method::ALL`] order, then of anything else.
const COLOURS: [&str; 6] = ["#1b9e77", "#d95f02", "#7570b3", "#66a61e", "#e7298a", "#666666"];

fn colour(method: &str) -> &'static str {
    match method {
        "anatomy" => COLOURS[0],
        "cahd" => COLOURS[1],
        "coherence" => COLOURS[2],
        "km" => COLOURS[3],
        "swap" => COLOURS[4],
        "original" => "#000000",
        "sensitive removed" => "#8c8c8c",
        _ => COLOURS[5],
    }
}

/// `text` safe inside the page's markup and attribute values.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Where the evaluated data came from and what evaluated it, for the report's first screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The data as the run named it: a file's path, or what was handed over in memory.
    pub data: String,
    /// The file's sha256, when it was a file.
    pub sha256: Option<String>,
    /// The file's size in bytes, when it was a file.
    pub bytes: Option<u64>,
    /// The day of the evaluation (UTC, `YYYY-MM-DD`).
    pub date: String,
    /// The tool's version.
    pub version: String,
    /// The commit it was built from (`unknown` outside a build that records it).
    pub commit: String,
}

/// What each method protects against and what it costs, in one sentence for a data holder.
fn in_one_sentence(method: &str) -> &'static str {
    match method {
        "anatomy" => {
            "Anatomy keeps every item but splits each record's items into columns shuffled \
             within buckets of records, so that no item value is tied to a person with \
             probability above 1/L; combinations of items across columns can then only be \
             estimated."
        }
        "cahd" => {
            "CAHD publishes the ordinary items as they are and only counts of the sensitive \
             items per group of similar baskets, so that no sensitive item is linked to a person \
             above 1/L; it does not stop anyone finding a person's record by the ordinary \
             items."
        }
        "coherence" => {
            "Coherence deletes ordinary items until every combination of a few of them is \
             shared by at least L baskets and reveals no sensitive item above 1/L; the deleted \
             items and the patterns they were part of are lost."
        }
        "km" => {
            "kᵐ-anonymity replaces items by broader groups of items until any few items a \
             person is known to have match at least L baskets; detail is lost as items merge \
             into groups."
        }
        "swap" => {
            "Swapping exchanges the dominant category of a person's items with another \
             person's, so that a person's tendency cannot be read off a record; every item's \
             count is kept, but items move between people."
        }
        _ => "",
    }
}

/// A share as a percentage, rounded for reading: one decimal, `< 0.1` for a positive share
/// that rounds to nothing.
fn percent(v: f64) -> String {
    let p = v * 100.0;
    if p == 0.0 {
        "0".into()
    } else if p.abs() < 0.05 {
        "< 0.1".into()
    } else {
        format!("{p:.1}")
    }
}

/// The smallest round bound above every value (an axis's top).
fn round_up(max: f64) -> f64 {
    [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0]
        .into_iter()
        .find(|&b| b >= max * 1.04)
        .unwrap_or_else(|| (max * 1.04).ceil())
}

/// The short label of a point in a chart.
fn short_label(p: &Point) -> String {
    match (p.method.as_str(), p.level) {
        ("sensitive removed", _) => "no sensitive".into(),
        ("coherence", Some(l)) => format!("coh {l}"),
        ("anatomy", Some(l)) => format!("anat {l}"),
        (m, Some(l)) => format!("{m} {l}"),
        (m, None) => m.to_string(),
    }
}

/// The utility a chart puts across: F1 of the frequent itemsets, or the workload's error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Across {
    F1,
    WorkloadError,
}

/// One frontier chart: utility across, risk up, a point per method and level.
fn chart(e: &Evaluation, a: Adversary, q: usize, across: Across) -> Option<String> {
    let measured: Vec<(&Point, f64, f64)> = e
        .points
        .iter()
        .filter_map(|p| {
            let u = match (across, &p.outcome) {
                (Across::F1, _) => p.f1()?,
                (Across::WorkloadError, Outcome::Published { utility, .. }) => {
                    utility.workload_error
                }
                (Across::WorkloadError, Outcome::Infeasible { .. }) => return None,
            };
            Some((p, u, p.risk(a, q)?))
        })
        .collect();
    if measured.is_empty() {
        return None;
    }
    let mut series: Vec<Series> = Vec::new();
    for (p, u, r) in &measured {
        let name = if p.method == "sensitive removed" { "sensitive removed" } else { &p.method };
        let at = match series.iter().position(|s| s.name == name) {
            Some(at) => at,
            None => {
                series.push(Series {
                    name: name.to_string(),
                    marker: match p.method.as_str() {
                        "original" => Marker::Square,
                        "sensitive removed" => Marker::Diamond,
                        _ => Marker::Circle,
                    },
                    colour: colour(&p.method),
                    points: Vec::new(),
                });
                series.len() - 1
            }
        };
        let (utility, x) = match across {
            Across::F1 => (format!("F1 {u:.3}"), *u),
            Across::WorkloadError => (format!("count-query error {}%", percent(*u)), 100.0 * u),
        };
        series[at].points.push(ChartPoint {
            x,
            y: 100.0 * r,
            label: short_label(p),
            title: format!("{}: {utility}, {} risk {}%", p.label(), a.name(), percent(*r)),
        });
    }
    // Risks and errors in percent, up to a round bound above the largest.
    let top = 100.0 * round_up(measured.iter().map(|m| m.2).fold(0.0, f64::max));
    let x = match across {
        Across::F1 => Axis {
            name: format!(
                "frequent itemsets kept, F1 at {:.2}% support (→ more useful)",
                e.settings.supports[0] * 100.0
            ),
            lo: 0.0,
            hi: 1.0,
        },
        Across::WorkloadError => Axis {
            name: "count-query error, % (← more useful)".into(),
            lo: 0.0,
            hi: 100.0 * round_up(measured.iter().map(|m| m.1).fold(0.0, f64::max)),
        },
    };
    let chart = Chart {
        name: format!("{} risk against utility, {q} known items", a.name()),
        x,
        y: Axis { name: format!("mean {} risk, % (↑ worse)", a.name()), lo: 0.0, hi: top },
        series,
    };
    let (svg, unplaced) = chart.svg();
    let mut s = format!("<figure>{svg}<figcaption>{} risk with {q} known items", a.name());
    if across == Across::WorkloadError {
        s.push_str(", against the error of count queries");
    }
    s.push('.');
    if !unplaced.is_empty() {
        let _ = write!(s, " Unlabelled for want of room: {}.", escape(&unplaced.join(", ")));
    }
    s.push_str("</figcaption></figure>");
    Some(s)
}

const STYLE: &str = "body{font-family:sans-serif;margin:0 auto;padding:1em;max-width:72em;\
color:#222;line-height:1.45}h1{font-size:1.5em;margin:.2em 0 .4em}h2{margin-top:1.6em}\
.meta{color:#555;font-size:.9em;overflow-wrap:anywhere}code{overflow-wrap:anywhere}\
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:.6em}\
.decision{border-left:4px solid #1b9e77;padding:.1em 1em;background:#f6fbf9;font-size:1.05em}\
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,26em),1fr));\
gap:1em}figure{margin:0}figure svg{display:block;width:100%;height:auto}\
figcaption{font-size:.85em;color:#444}.scroll{overflow-x:auto;max-width:100%}\
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}\
td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;vertical-align:top}\
td.t,th.t{text-align:left}.infeasible{color:#a00}dt{font-weight:bold}dd{margin:0 0 .5em 1em}";

/// The page.
///
/// Long as one function: the page top to bottom, so its sections read in the order they render.
pub fn html(e: &Evaluation, provenance: &Provenance) -> String {
    let strongest = *e.settings.known.iter().max().expect("checked: at least one q");
    let mut s = String::new();
    let name = std::path::Path::new(&provenance.data)
        .file_name()
        .map_or_else(|| provenance.data.clone(), |n| n.to_string_lossy().into_owned());
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\
         <title>Which publication of {0}: txanon evaluate</title><style>{STYLE}</style></head>\
         <body><h1>Which publication of {0} to make</h1><section class=\"decision\">",
        escape(&name),
    );
    // The decision is the first heading's paragraph: what a data holder came for.
    match &e.decision {
        Some(decision) => {
            let _ = write!(s, "<p id=\"decision\">{}</p>", escape(&decision.text));
            if let Some(command) = &e.command {
                let _ = write!(
                    s,
                    "<p>Publish it with this command (the operating system seeds the run; the \
                     publication is audited before it is written):</p><pre>{}</pre>",
                    escape(command)
                );
            }
        }
        None => s.push_str(
            "<p id=\"decision\">No threat and no budget were named, so nothing is recommended: \
             the charts below show every choice. Run again with \
             <code>--threat reidentification</code> (or <code>sensitive</code>, \
             <code>tendency</code>) and <code>--max-risk 0.05</code> to have the most useful \
             publication within that risk chosen, and <code>--publish DIR</code> to have it \
             written.</p>",
        ),
    }
    let _ = write!(s, "</section><p class=\"meta\">Data: {}", escape(&provenance.data));
    if let Some(bytes) = provenance.bytes {
        let _ = write!(s, ", {bytes} bytes");
    }
    if let Some(sha) = &provenance.sha256 {
        let _ = write!(s, ", sha256 <code>{}</code>", escape(sha));
    }
    let _ = write!(
        s,
        ". Evaluated on {} by txanon {} (commit {}).</p>",
        escape(&provenance.date),
        escape(&provenance.version),
        escape(&provenance.commit)
    );
    let d = &e.data;
    let _ = write!(
        s,
        "<h2>What was compared</h2><p>{} transactions, {} distinct items, {} item occurrences; \
         {} items are treated as sensitive ({}) and {} transactions hold one{}.</p><ul>",
        d.transactions,
        d.items,
        d.occurrences,
        d.sensitive.len(),
        escape(&d.sensitive.join(", ")),
        d.holding_sensitive,
        d.categories.map_or_else(String::new, |c| format!("; the items fall in {c} categories")),
    );
    for (m, _) in &e.guarantees {
        let _ = write!(s, "<li><b>{}</b>: {}</li>", m.name(), in_one_sentence(m.name()));
    }
    let st = &e.settings;
    let _ = write!(
        s,
        "<li><b>original</b> and <b>sensitive removed</b>: the data as it is, and with its \
         sensitive items deleted, shown for reference; neither is ever recommended.</li></ul>\
         <p>Each method ran at the levels L = {}, matched as each guarantee's \"one in L\" \
         (swapping has no level and ran once), and each publication passed its own audit \
         before it was measured. The attacker knows q = {} of a person's ordinary items \
         ({} random draws per person, {}) and reads each publication as its method's paper \
         says it should be read.</p>",
        st.levels.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
        st.known.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
        st.draws,
        st.targets
            .map_or_else(|| "every person".to_string(), |t| format!("a sample of {t} people")),
    );
    s.push_str(
        "<h2>Risk against utility</h2><p>Lower is safer, further right (or, for the \
                error of count queries, further left) is more useful. Hover over a point for \
                its numbers.</p>",
    );
    for a in Adversary::ALL {
        let charts: Vec<String> = st
            .known
            .iter()
            .filter_map(|&q| chart(e, a, q, Across::F1))
            .chain(chart(e, a, strongest, Across::WorkloadError))
            .collect();
        if charts.is_empty() {
            continue;
        }
        let _ = write!(
            s,
            "<h3>{}</h3><p>The risk: the {}.</p><div class=\"charts\">{}</div>",
            escape(&capitalized(a.name())),
            escape(a.risk()),
            charts.concat()
        );
        if let Some(v) = verdict(e, a, strongest) {
            let _ = write!(s, "<p>{}</p>", escape(&v));
        }
    }
    let refused: Vec<&Point> =
        e.points.iter().filter(|p| matches!(p.outcome, Outcome::Infeasible { .. })).collect();
    if !refused.is_empty() {
        s.push_str("<h2>Out of reach on this data</h2><ul>");
        for p in refused {
            if let Outcome::Infeasible { reason } = &p.outcome {
                let _ = write!(
                    s,
                    "<li class=\"infeasible\"><b>{}</b>: {}</li>",
                    escape(&p.label()),
                    escape(reason)
                );
            }
        }
        s.push_str("</ul>");
    }
    s.push_str(
        "<h2>The numbers</h2><div class=\"scroll\"><table><tr><th class=\"t\">method</th>\
         <th class=\"t\">setting</th><th>known items</th><th>re-identification, mean %</th>\
         <th>re-identification, worst 1% of people, %</th><th>people above 1 in 5, %</th>\
         <th>sensitive inference, mean %</th><th>tendency inference, mean %</th>\
         <th>frequent itemsets kept (F1)</th><th>count-query error, %</th><th>rules kept, %</th>\
         <th>item occurrences lost, %</th><th>seconds</th></tr>",
    );
    for p in &e.points {
        match &p.outcome {
            Outcome::Infeasible { reason } => {
                let _ = write!(
                    s,
                    "<tr><td class=\"t\">{}</td><td class=\"t infeasible\" colspan=\"12\">out of \
                     reach: {}</td></tr>",
                    escape(&p.label()),
                    escape(reason)
                );
            }
            Outcome::Published { setting, privacy, utility, seconds, .. } => {
                let rows = privacy.by_known.len();
                for (k, known) in privacy.by_known.iter().enumerate() {
                    s.push_str("<tr>");
                    if k == 0 {
                        let _ = write!(
                            s,
                            "<td class=\"t\" rowspan=\"{rows}\">{}</td><td class=\"t\" \
                             rowspan=\"{rows}\">{}</td>",
                            escape(&p.label()),
                            escape(setting)
                        );
                    }
                    let r = &known.reidentification;
                    let _ = write!(
                        s,
                        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                        known.known,
                        percent(r.mean),
                        percent(r.p99),
                        percent(r.above_1_in_5),
                        percent(known.sensitive.mean),
                        known.tendency.map_or_else(|| "–".into(), |t| percent(t.mean)),
                    );
                    if k == 0 {
                        let _ = write!(
                            s,
                            "<td rowspan=\"{rows}\">{}</td><td rowspan=\"{rows}\">{}</td>\
                             <td rowspan=\"{rows}\">{}</td><td rowspan=\"{rows}\">{}</td>\
                             <td rowspan=\"{rows}\">{seconds:.1}</td>",
                            utility
                                .itemsets
                                .first()
                                .map_or_else(|| "–".into(), |i| format!("{:.2}", i.f1)),
                            percent(utility.workload_error),
                            percent(utility.rule_accuracy),
                            percent(utility.item_loss),
                        );
                    }
                    s.push_str("</tr>");
                }
            }
        }
    }
    let _ = writeln!(
        s,
        "</table></div><h3>What the columns mean</h3><dl>\
         <dt>known items</dt><dd>How many of a person's ordinary (non-sensitive) items the \
         attacker knows, drawn at random; people with fewer are not attacked at that number.</dd>\
         <dt>re-identification</dt><dd>The probability the attacker gives the person's own \
         published record, among the records consistent with what is known (0 when it is not \
         among them), averaged over people; the worst 1% is the level only 1% of people are \
         above; people above 1 in 5 is the share of people whose record the attacker picks with \
         probability above 20%.</dd>\
         <dt>sensitive inference</dt><dd>For people who hold a sensitive item: the largest \
         probability the attacker gives to one of their sensitive items.</dd>\
         <dt>tendency inference</dt><dd>The probability of naming the category a person's items \
         mostly fall in (measured when categories are given).</dd>\
         <dt>frequent itemsets kept (F1)</dt><dd>How well the sets of items bought together at \
         least {:.2}% of the time are found again in the publication: 1 is all of them and \
         nothing else, 0 none.</dd>\
         <dt>count-query error</dt><dd>The mean relative error of {} counts of baskets holding \
         a few given items, estimated from the publication.</dd>\
         <dt>rules kept</dt><dd>The share of the original's association rules (confidence at \
         least {}) found again.</dd>\
         <dt>item occurrences lost</dt><dd>The share of the original's item occurrences that \
         the publication no longer holds as they were.</dd>\
         <dt>seconds</dt><dd>The time to anonymize and audit.</dd></dl>\
         <p>Every figure, and more (each percentile, Jaccard similarity, the second support), \
         is in results.json and results.csv beside this page.</p></body></html>",
        st.supports[0] * 100.0,
        st.queries,
        crate::RULE_CONFIDENCE,
    );
    s
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// One line per point and `q`: every statistic of the attack and the yardstick.
pub fn csv(e: &Evaluation) -> String {
    let mut s = String::from(
        "method,level,outcome,q,targets,reid_mean,reid_p95,reid_p99,reid_max,reid_above_1_2,\
         reid_above_1_5,reid_above_1_10,sensitive_targets,sensitive_mean,sensitive_p95,\
         sensitive_p99,sensitive_max,tendency_targets,tendency_mean,f1_support_1,\
         jaccard_support_1,f1_support_2,jaccard_support_2,workload_error,rule_accuracy,\
         item_loss,diss,seconds,reason\n",
    );
    let level = |p: &Point| p.level.map_or_else(String::new, |l| l.to_string());
    let quoted = |t: &str| format!("\"{}\"", t.replace('"', "\"\""));
    for p in &e.points {
        match &p.outcome {
            Outcome::Infeasible { reason } => {
                let _ = writeln!(
                    s,
                    "{},{},infeasible{},{}",
                    quoted(&p.method),
                    level(p),
                    ",".repeat(25),
                    quoted(reason)
                );
            }
            Outcome::Published { privacy, utility, seconds, .. } => {
                for k in &privacy.by_known {
                    let (r, sv) = (&k.reidentification, &k.sensitive);
                    let it = |n: usize| {
                        utility
                            .itemsets
                            .get(n)
                            .map_or_else(|| ",".to_string(), |i| format!("{},{}", i.f1, i.jaccard))
                    };
                    let _ = writeln!(
                        s,
                        "{},{},published,{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3},",
                        quoted(&p.method),
                        level(p),
                        k.known,
                        r.targets,
                        r.mean,
                        r.p95,
                        r.p99,
                        r.max,
                        r.above_1_in_2,
                        r.above_1_in_5,
                        r.above_1_in_10,
                        sv.targets,
                        sv.mean,
                        sv.p95,
                        sv.p99,
                        sv.max,
                        k.tendency.map_or_else(String::new, |t| t.targets.to_string()),
                        k.tendency.map_or_else(String::new, |t| t.mean.to_string()),
                        it(0),
                        it(1),
                        utility.workload_error,
                        utility.rule_accuracy,
                        utility.item_loss,
                        utility.diss,
                        seconds,
                    );
                }
            }
        }
    }
    s
}
