//! The evaluation as a data holder reads it: one self-contained HTML page (inline SVG, no
//! script, no network, well-formed XML so that any parser reads it), and a flat CSV.

use std::fmt::Write;

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
        _ => COLOURS[5],
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// One frontier chart: utility across, risk up; a point per method and level.
///
/// Long as one function: one SVG chart drawn top to bottom (axes, points, labels, legend).
fn chart(e: &Evaluation, a: Adversary, strongest: usize) -> Option<String> {
    let points: Vec<(&Point, f64, f64)> =
        e.points.iter().filter_map(|p| Some((p, p.f1()?, p.risk(a, strongest)?))).collect();
    if points.is_empty() {
        return None;
    }
    let (w, h, left, right, top, bottom) = (600.0, 380.0, 60.0, 190.0, 20.0, 50.0);
    let x = |v: f64| left + v.clamp(0.0, 1.0) * (w - left - right);
    let y = |v: f64| h - bottom - v.clamp(0.0, 1.0) * (h - top - bottom);
    let mut s = String::new();
    let (name, what) = (a.name(), a.risk());
    let _ = write!(
        s,
        "<figure><svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" \
         aria-label=\"{name}\"><rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>"
    );
    for k in 0..=4 {
        let v = f64::from(k) / 4.0;
        let _ = write!(
            s,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#dddddd\"/>\
             <line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#dddddd\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\">{v:.2}</text>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{v:.2}</text>",
            x(v),
            y(0.0),
            x(v),
            y(1.0),
            x(0.0),
            y(v),
            x(1.0),
            y(v),
            x(v),
            y(0.0) + 15.0,
            x(0.0) - 5.0,
            y(v) + 4.0,
        );
    }
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\">frequent-itemset F1 \
         at {:.2}% support (utility →)</text>\
         <text x=\"14\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\" \
         transform=\"rotate(-90 14 {:.1})\">mean {} risk, q = {strongest} (↑ worse)</text>",
        (x(0.0) + x(1.0)) / 2.0,
        h - 12.0,
        e.settings.supports[0] * 100.0,
        (y(0.0) + y(1.0)) / 2.0,
        (y(0.0) + y(1.0)) / 2.0,
        escape(name),
    );
    for (p, u, r) in &points {
        let (cx, cy) = (x(*u), y(*r));
        let c = colour(&p.method);
        let mark = match p.method.as_str() {
            "original" => format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"9\" height=\"9\" fill=\"#000000\"/>",
                cx - 4.5,
                cy - 4.5
            ),
            "sensitive removed" => format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"9\" height=\"9\" fill=\"#999999\" \
                 transform=\"rotate(45 {cx:.1} {cy:.1})\"/>",
                cx - 4.5,
                cy - 4.5
            ),
            _ => format!(
                "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"5\" fill=\"{c}\" fill-opacity=\"0.8\"/>"
            ),
        };
        let _ = write!(
            s,
            "<g><title>{}: F1 {u:.3}, risk {r:.4}</title>{mark}<text x=\"{:.1}\" y=\"{:.1}\" \
             font-size=\"10\" fill=\"{c}\">{}</text></g>",
            escape(&p.label()),
            cx + 7.0,
            cy - 5.0,
            escape(&p.level.map_or_else(|| p.method.clone(), |l| l.to_string())),
        );
    }
    let mut methods: Vec<&str> = Vec::new();
    for p in &e.points {
        if !methods.contains(&p.method.as_str()) {
            methods.push(&p.method);
        }
    }
    for (k, m) in methods.iter().enumerate() {
        let ly = top + 10.0 + 18.0 * k as f64;
        let lx = w - right + 60.0;
        let _ = write!(
            s,
            "<circle cx=\"{lx:.1}\" cy=\"{ly:.1}\" r=\"5\" fill=\"{}\"/><text x=\"{:.1}\" \
             y=\"{:.1}\" font-size=\"11\">{}</text>",
            match *m {
                "original" => "#000000",
                "sensitive removed" => "#999999",
                other => colour(other),
            },
            lx + 9.0,
            ly + 4.0,
            escape(m)
        );
    }
    let _ = write!(
        s,
        "</svg><figcaption>{}: {}. Each point is a method at a level (its label); the black \
         square is the original, the grey diamond the original with its sensitive items \
         removed. Lower and further right is better.</figcaption></figure>",
        escape(name),
        escape(what)
    );
    Some(s)
}

fn fmt(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 0.01 {
        format!("{v:.3}")
    } else {
        format!("{v:.2e}")
    }
}

/// The page.
///
/// Long as one function: the page top to bottom, so its sections read in the order they render.
pub fn html(e: &Evaluation) -> String {
    let strongest = *e.settings.known.iter().max().expect("checked: at least one q");
    let mut s = String::new();
    s.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\
         <title>txanon evaluate</title><style>\
         body{font-family:sans-serif;margin:1.5em;max-width:78em;color:#222}\
         table{border-collapse:collapse;font-size:12px;margin:.5em 0 1.5em}\
         td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;vertical-align:top}\
         td.t,th.t{text-align:left}figure{display:inline-block;margin:0 1em 1em 0;\
         vertical-align:top;max-width:600px}figcaption{font-size:12px;color:#444}\
         .infeasible{color:#a00}</style></head><body>",
    );
    if let Some(decision) = &e.decision {
        let _ = write!(s, "<h1>The decision</h1><p>{}</p>", escape(&decision.text));
        if let Some(command) = &e.command {
            let _ = write!(
                s,
                "<p>Publish it with (the operating system seeds the run):</p><pre>{}</pre>",
                escape(command)
            );
        }
    }
    let d = &e.data;
    let _ = write!(
        s,
        "<h1>Privacy against utility, method by method</h1><p>{} transactions, {} items, {} \
         item occurrences; {} sensitive items ({}), held by {} transactions{}.</p>",
        d.transactions,
        d.items,
        d.occurrences,
        d.sensitive.len(),
        escape(&d.sensitive.join(", ")),
        d.holding_sensitive,
        d.categories.map_or_else(String::new, |c| format!("; {c} item categories")),
    );
    let st = &e.settings;
    let _ = write!(
        s,
        "<p>Every method runs at the levels {:?}, matched as each guarantee's \"one in L\": \
         anatomy's l = L, CAHD's p = L, coherence's k = L with h = 1/L; swapping has no level \
         and runs once. Each publication passed its own audit. The adversary knows q = {:?} of \
         a target's public items, drawn at random {} times per target ({}), and reads the \
         publication as its method's paper says: a record's probability is its expected count \
         among the records consistent with what is known. Utility is read the way a data user \
         reads each publication (supports of groups and buckets estimated as expected counts): \
         frequent itemsets of at most {} items at supports {}, a workload of {} count queries, \
         association rules at confidence {}, item loss and dissimilarity.</p>",
        st.levels,
        st.known,
        st.draws,
        st.targets
            .map_or_else(|| "every target".to_string(), |t| format!("a sample of {t} targets")),
        crate::MAX_ITEMSET,
        st.supports.iter().map(|v| format!("{:.2}%", v * 100.0)).collect::<Vec<_>>().join(" and "),
        st.queries,
        crate::RULE_CONFIDENCE,
    );
    s.push_str("<h2>The frontiers</h2>");
    for a in Adversary::ALL {
        if let Some(c) = chart(e, a, strongest) {
            s.push_str(&c);
        }
    }
    s.push_str("<h2>The verdict</h2>");
    for a in Adversary::ALL {
        if let Some(v) = verdict(e, a, strongest) {
            let _ = write!(s, "<p>{}</p>", escape(&v));
        }
    }
    let refused: Vec<&Point> =
        e.points.iter().filter(|p| matches!(p.outcome, Outcome::Infeasible { .. })).collect();
    if !refused.is_empty() {
        s.push_str("<h2>Levels out of reach</h2><ul>");
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
    s.push_str("<h2>The methods</h2><ul>");
    for (m, g) in &e.guarantees {
        let _ = write!(s, "<li><b>{}</b>: {}</li>", m.name(), escape(g));
    }
    s.push_str("</ul><h2>The table behind the charts</h2>");
    s.push_str(
        "<table><tr><th class=\"t\">method</th><th class=\"t\">setting</th><th>q</th>\
         <th>re-id mean</th><th>p95</th><th>p99</th><th>max</th><th>&gt; 1/2</th><th>&gt; 1/5</th>\
         <th>&gt; 1/10</th><th>sensitive mean</th><th>p99</th><th>max</th><th>tendency mean</th>\
         <th>F1</th><th>Jaccard</th><th>F1 (2nd)</th><th>workload error</th><th>rules kept</th>\
         <th>item loss</th><th>Diss</th><th>seconds</th><th class=\"t\">audit</th></tr>",
    );
    for p in &e.points {
        match &p.outcome {
            Outcome::Infeasible { reason } => {
                let _ = write!(
                    s,
                    "<tr><td class=\"t\">{}</td><td class=\"t infeasible\" colspan=\"22\">out of \
                     reach: {}</td></tr>",
                    escape(&p.label()),
                    escape(reason)
                );
            }
            Outcome::Published { setting, audit, privacy, utility, seconds } => {
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
                    let sv = &known.sensitive;
                    let _ = write!(
                        s,
                        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
                         <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                        known.known,
                        fmt(r.mean),
                        fmt(r.p95),
                        fmt(r.p99),
                        fmt(r.max),
                        fmt(r.above_1_in_2),
                        fmt(r.above_1_in_5),
                        fmt(r.above_1_in_10),
                        fmt(sv.mean),
                        fmt(sv.p99),
                        fmt(sv.max),
                        known.tendency.map_or_else(|| "–".into(), |t| fmt(t.mean)),
                    );
                    if k == 0 {
                        let first = utility.itemsets.first();
                        let second = utility.itemsets.get(1);
                        let _ = write!(
                            s,
                            "<td rowspan=\"{rows}\">{}</td><td rowspan=\"{rows}\">{}</td>\
                             <td rowspan=\"{rows}\">{}</td><td rowspan=\"{rows}\">{}</td>\
                             <td rowspan=\"{rows}\">{}</td><td rowspan=\"{rows}\">{}</td>\
                             <td rowspan=\"{rows}\">{}</td><td rowspan=\"{rows}\">{seconds:.2}</td>\
                             <td class=\"t\" rowspan=\"{rows}\">{}</td>",
                            first.map_or_else(|| "–".into(), |i| fmt(i.f1)),
                            first.map_or_else(|| "–".into(), |i| fmt(i.jaccard)),
                            second.map_or_else(|| "–".into(), |i| fmt(i.f1)),
                            fmt(utility.workload_error),
                            fmt(utility.rule_accuracy),
                            fmt(utility.item_loss),
                            fmt(utility.diss),
                            escape(audit),
                        );
                    }
                    s.push_str("</tr>");
                }
            }
        }
    }
    s.push_str(
        "</table><p>q: public items known. Re-identification: the probability the adversary \
         gives the target's own published record (0 when it is not among the consistent \
         ones); shares of targets above 1/2, 1/5, 1/10. Sensitive: for targets holding \
         sensitive items, the largest probability given to one of them. Targets with fewer \
         than q public items are not attacked at that q. Workload error: mean relative error \
         of estimated counts. Rules kept: the original's rules found again.</p></body></html>\n",
    );
    s
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
