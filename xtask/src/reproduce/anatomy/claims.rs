//! The anatomy paper's claims (Figures 3-7) as predicates over the experiment's rows, and the
//! note that explains its AR against confidence.

use super::{
    CONFIDENCES, CONNECT_LS, ReachRow, Reading, ReasonRow, RuleRow, RunRow, ScalingRow, T40_LS,
    T40_NAME, Tried,
};
use crate::reproduce::claims::{
    Claim, Decision, Outcome, by_construction, every, never_falls, not_comparable, predicate,
};

/// `values` joined by commas between `before` and `after`, or a dash when there are none.
fn listed(before: &str, values: impl Iterator<Item = String>, after: &str) -> String {
    let values: Vec<String> = values.collect();
    if values.is_empty() {
        "—".to_string()
    } else {
        format!("{before}{}{after}", values.join(", "))
    }
}

/// What moves AR with confidence, measured on the T40 sample at its first published l: the
/// rules within one column (whose values a bucket publishes exactly) against those across
/// columns (whose combinations the per-bucket permutation breaks).
pub(super) fn ar_note(reasons: &[ReasonRow]) -> Option<String> {
    let at = |c: f64| {
        reasons.iter().find(|r| {
            r.dataset == T40_NAME
                && r.reading == Reading::Definition5.name()
                && (r.confidence - c).abs() < 1e-9
        })
    };
    let (lo, hi) = (at(CONFIDENCES[0])?, at(CONFIDENCES[CONFIDENCES.len() - 1])?);
    let show = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.2}"));
    Some(format!(
        "AR against confidence, measured (`anatomy-ar-reason`, T40 sample, l = {}): rules within one column are {:.1}% of the original's at 10% confidence and {:.1}% at 90%, and are kept (AR within {} and {}): a bucket publishes each column's values exactly. Rules across columns are kept only by chance recombination, which reproduces a low-confidence rule sometimes (AR across {} at 10%) and a high-confidence one never ({} at 90%). So AR falls as confidence rises when the across-column rules that survive at low confidence outweigh the within-column share's growth, and rises otherwise; the paper does not say how it reconstructs transactions for mining (here: one random recombination per bucket).",
        lo.l,
        lo.within_share,
        hi.within_share,
        show(lo.ar_within),
        show(hi.ar_within),
        show(lo.ar_across),
        show(hi.ar_across),
    ))
}

/// What the anatomy experiment ran, as the claims read it.
pub(super) struct Ran<'a> {
    pub tried: &'a Tried,
    pub reach: &'a [ReachRow<'a>],
    pub runs: &'a [RunRow],
    pub rules: &'a [RuleRow],
    pub reasons: &'a [ReasonRow],
    pub scaling: &'a [ScalingRow],
    pub connect: bool,
    pub t40: bool,
}

/// A paper claim decided on the paper's columns: where they publish none of its settings the
/// run has nothing to decide it on, and says so.
fn on_papers_columns(ran_data: bool, decision: Decision) -> Decision {
    if ran_data && decision.outcome == Outcome::NotRun {
        not_comparable("the paper's columns publish none of its settings here", decision.test)
    } else {
        decision
    }
}

/// The least-squares slope of ln(seconds) against ln(records): the time's exponent.
fn exponent(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let logs: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x.ln(), y.max(1e-9).ln())).collect();
    let n = logs.len() as f64;
    let (mx, my) = logs.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let sxx: f64 = logs.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// The paper's claims (its abstract, Figures 3-7) as predicates over our rows: each decided on
/// the paper's columns (k-medoids on 1 − φ², Definition 5), with a row of its own for our repaired
/// and diverse columns.
///
/// Long as one function: each claim is a few lines reading the tables as the paper states it, in
/// the paper's order; apart, they would be twenty functions of one use each.
pub(super) fn claims(ran: &Ran<'_>, quick: bool) -> Vec<Claim> {
    let Ran { tried, reach, runs, rules, reasons, scaling, connect, t40 } = *ran;
    let def5 = Reading::Definition5;
    let paper = Reading::Definition5Clustered;
    let t40_setting =
        "the first 10,000 transactions of T40I10D100K (all that is available here), p = 20";
    let connect_setting = "Connect, p = 10";
    let mut claims = Vec::new();
    // Figures 4 and 5's settings: which l publish, on the paper's columns and on ours (more than
    // one bucket: one bucket of every record is no partition).
    let single = |d: &str, l: usize, p: usize| {
        runs.iter().any(|r| {
            r.dataset == d
                && (r.reading == def5.name() || r.reading == Reading::Definition5Diverse.name())
                && r.p == p
                && r.l == l
                && r.buckets == 1
        })
    };
    for (d, long, p, asked, ids, setting, ran_data) in [
        (
            "connect",
            "Connect",
            10,
            CONNECT_LS,
            ("anatomy-connect-l", "anatomy-connect-l-ours"),
            connect_setting,
            connect,
        ),
        (
            T40_NAME,
            "T40I10D100K",
            20,
            T40_LS,
            ("anatomy-t40-l", "anatomy-t40-l-ours"),
            t40_setting,
            t40,
        ),
    ] {
        let theirs: Vec<usize> =
            tried.of(d, paper).filter(|t| t.p == p && t.published).map(|t| t.l).collect();
        let diverse: Vec<usize> = tried
            .of(d, Reading::Definition5Diverse)
            .filter(|t| t.p == p && t.published)
            .map(|t| t.l)
            .collect();
        let ours: Vec<usize> = tried
            .of(d, def5)
            .filter(|t| t.p == p && (t.published || diverse.contains(&t.l)))
            .map(|t| t.l)
            .filter(|&l| !single(d, l, p))
            .collect();
        let here: Vec<&ReachRow<'_>> = reach.iter().filter(|r| r.dataset == d).collect();
        let clustered = here.iter().map(|r| r.clustered).max();
        let best = here.iter().map(|r| r.repaired.max(r.diverse.unwrap_or(0))).max();
        let bound = here.first().map(|r| r.bound);
        let show = |v: Option<usize>| v.map_or("—".into(), |b| b.to_string());
        let settings = if ran_data { asked.len() } else { 0 };
        claims.push(Claim::new(
            ids.0,
            format!("{long} anonymizes at l = {asked:?} under Definition 5 on the paper's columns (k-medoids on 1 − φ²)"),
            setting,
            "every l of the figure",
            format!(
                "published at l = {theirs:?}; the paper's columns admit l ≤ {}; no partition admits l > {}",
                show(clustered),
                bound.map_or("—".into(), |b| format!("{b:.1}"))
            ),
            every((theirs.len(), settings), "an l-diverse anatomy published"),
        ));
        claims.push(Claim::new(
            ids.1,
            format!("{long} anonymizes at l = {asked:?} on our repaired or diverse columns, in more than one bucket"),
            setting,
            "every l of the figure",
            format!("published at l = {ours:?} in more than one bucket; our columns admit l ≤ {}", show(best)),
            every((ours.len(), settings), "an l-diverse anatomy of more than one bucket published"),
        ));
    }
    // Figure 3: faked records against l, on the paper's columns and on ours.
    let faked = |reading: Reading| -> Vec<f64> {
        runs.iter()
            .filter(|r| r.dataset == T40_NAME && r.reading == reading.name() && r.p == 20)
            .map(|r| r.ln_faked)
            .collect()
    };
    for (id, reading) in [("anatomy-faked-l", paper), ("anatomy-faked-l-ours", def5)] {
        let f = faked(reading);
        let d = predicate(
            t40.then(|| never_falls(&f)).flatten(),
            "ln(faked records) never falls as l rises, p = 20",
        );
        claims.push(Claim::new(
            id,
            format!("Faked records grow with l ({})", reading.short()),
            t40_setting,
            "ln(faked) rises with l",
            listed("ln(faked records) ", f.iter().map(|v| format!("{v:.1}")), ""),
            if reading == paper { on_papers_columns(t40, d) } else { d },
        ));
    }
    // Figure 3, the other axis: at each l, ln(faked) against p.
    let mut by_p = (0, 0);
    let ls: Vec<usize> = {
        let mut v: Vec<usize> =
            runs.iter().filter(|r| r.dataset == T40_NAME).map(|r| r.l).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    for l in ls {
        let mut curve: Vec<(usize, f64)> = runs
            .iter()
            .filter(|r| r.dataset == T40_NAME && r.reading == def5.name() && r.l == l)
            .map(|r| (r.p, r.ln_faked))
            .collect();
        curve.sort_by_key(|c| c.0);
        if curve.len() >= 2 {
            by_p.1 += 1;
            by_p.0 += usize::from(curve.windows(2).all(|w| w[1].1 > w[0].1));
        }
    }
    claims.push(Claim::new(
        "anatomy-faked-p",
        "Faked records grow exponentially with p, the number of columns",
        "the T40 sample, p = 5-20, our repaired columns",
        "ln(faked) rises with p",
        if by_p.1 == 0 {
            "—".to_string()
        } else {
            format!("rises with p at {} of {} l", by_p.0, by_p.1)
        },
        if t40 && by_p.1 > 0 {
            by_construction("the faked records are Σ over buckets of |B|^p by Theorem 2's count: exponential in p by definition")
        } else {
            predicate(None, "")
        },
    ));
    // Figures 4 and 5: rules of the anonymized data against the original's, per confidence.
    let kept =
        |reading: Reading, d: &str, p: usize, confidence: &dyn Fn(f64) -> bool| -> Vec<f64> {
            rules
                .iter()
                .filter(|r| r.dataset == d && r.reading == reading.name() && r.p == p)
                .filter(|r| confidence(r.confidence) && r.original > 0)
                .map(|r| r.anonymized as f64 / r.original as f64)
                .collect()
        };
    let range = |v: &[f64]| {
        let (lo, hi) =
            v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        if v.is_empty() { "—".to_string() } else { format!("{lo:.2}-{hi:.2}") }
    };
    for (id, reading) in [("anatomy-connect-rules", paper), ("anatomy-connect-rules-ours", def5)] {
        let k = kept(reading, "connect", 10, &|_| true);
        let d = predicate(
            (connect && !k.is_empty()).then(|| k.iter().all(|r| (r - 1.0).abs() <= 0.1)),
            "anonymized/original rules within 10% of 1 at every confidence and published l (our reading of \"much small\")",
        );
        claims.push(Claim::new(
            id,
            format!(
                "Connect: the anonymized data has nearly as many rules as the original ({})",
                reading.short()
            ),
            "Connect, p = 10, rules of 2-4 items",
            "\"much small\" difference",
            format!("anonymized/original rules {}", range(&k)),
            if reading == paper { on_papers_columns(connect, d) } else { d },
        ));
    }
    for (id, reading) in [("anatomy-t40-rules", paper), ("anatomy-t40-rules-ours", def5)] {
        let low = kept(reading, T40_NAME, 20, &|c| c < 0.15);
        let high = kept(reading, T40_NAME, 20, &|c| c > 0.15);
        let d = predicate(
            (t40 && !low.is_empty() && !high.is_empty()).then(|| {
                low.iter().all(|r| (r - 1.0).abs() <= 0.1)
                    && high.iter().all(|r| (0.4..=0.6).contains(&(1.0 - r)))
            }),
            "within 10% at 10% confidence, and 40%-60% of the rules lost at every higher confidence and published l",
        );
        claims.push(Claim::new(
            id,
            format!(
                "T40: at 10% confidence few rules are lost; above it 40%-60% are ({})",
                reading.short()
            ),
            t40_setting,
            "small at 10%; 40%-60% fewer above",
            format!("anonymized/original rules {} at 10%, {} above", range(&low), range(&high)),
            if reading == paper { on_papers_columns(t40, d) } else { d },
        ));
    }
    // Figure 7: time against l on the T40 sample at p = 20 (times vary run to run).
    for (id, reading) in [("anatomy-time-l", paper), ("anatomy-time-l-ours", def5)] {
        let mut times: Vec<(usize, f64)> = runs
            .iter()
            .filter(|r| r.dataset == T40_NAME && r.reading == reading.name() && r.p == 20)
            .map(|r| (r.l, r.seconds))
            .collect();
        times.sort_by_key(|t| t.0);
        let d = predicate(
            t40.then(|| never_falls(&times.iter().map(|t| t.1).collect::<Vec<_>>())).flatten(),
            "time never falls as l rises (one run per l: times vary run to run)",
        );
        claims.push(Claim::new(
            id,
            format!("Anonymization time rises slightly with l ({})", reading.short()),
            t40_setting,
            "rises slightly",
            listed(
                "seconds ",
                times.iter().map(|t| format!("{:.2}", t.1)),
                &format!(
                    " at l = {}",
                    times.iter().map(|t| t.0.to_string()).collect::<Vec<_>>().join(", ")
                ),
            ),
            if reading == paper { on_papers_columns(t40, d) } else { d },
        ));
    }
    // Figure 6: AR against confidence on T40, the best l at each end.
    for (id, reading) in [("anatomy-ar", paper), ("anatomy-ar-ours", def5)] {
        let best_at = |confidence: f64| {
            rules
                .iter()
                .filter(|r| r.dataset == T40_NAME && r.reading == reading.name())
                .filter(|r| (r.confidence - confidence).abs() < 1e-9)
                .map(|r| r.ar)
                .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
        };
        let (lo, hi) = (best_at(CONFIDENCES[0]), best_at(CONFIDENCES[CONFIDENCES.len() - 1]));
        let reason_at = |confidence: f64| {
            reasons.iter().find(|r| {
                r.dataset == T40_NAME
                    && r.reading == reading.name()
                    && (r.confidence - confidence).abs() < 1e-9
            })
        };
        let why = match (reason_at(CONFIDENCES[0]), reason_at(CONFIDENCES[CONFIDENCES.len() - 1])) {
            (Some(a), Some(b)) => format!(
                "; rules within one column {:.0}% at 10% confidence, {:.0}% at 90% (l = {}), AR within {} vs across {} at 10%",
                a.within_share,
                b.within_share,
                a.l,
                a.ar_within.map_or("—".into(), |v| format!("{v:.2}")),
                a.ar_across.map_or("—".into(), |v| format!("{v:.2}")),
            ),
            _ => String::new(),
        };
        let d = predicate(
            if t40 { lo.zip(hi).map(|(lo, hi)| hi < lo) } else { None },
            "the best AR at 90% confidence below the best at 10%",
        );
        claims.push(Claim::new(
            id,
            format!("AR (rules kept) rises as confidence falls ({})", reading.short()),
            t40_setting,
            "rises as confidence falls",
            match (lo, hi) {
                (Some(lo), Some(hi)) => {
                    format!("AR {lo:.2} at 10% confidence, {hi:.2} at 90% (best l){why}")
                }
                _ => "—".to_string(),
            },
            if reading == paper { on_papers_columns(t40, d) } else { d },
        ));
    }
    // The abstract: linear time, the exponent of time against records on each series.
    let mut series: Vec<(&str, Vec<(f64, f64)>)> = Vec::new();
    for r in scaling {
        match series.iter_mut().find(|(name, _)| *name == r.reading) {
            Some((_, points)) => points.push((r.records as f64, r.seconds)),
            None => series.push((r.reading, vec![(r.records as f64, r.seconds)])),
        }
    }
    let exponents: Vec<(&str, f64)> =
        series.iter().filter_map(|(name, points)| Some((*name, exponent(points)?))).collect();
    claims.push(
        Claim::new(
            "anatomy-linear",
            "Anatomization takes time linear in the number of records",
            if quick {
                "Quest T10I4 data, 2,000-8,000 records, p = 5 (stand-in)".to_string()
            } else {
                "Quest T40I10 data (T40I10D100K's generator and shape), 25,000-400,000 records, p = 20; the paper's columns and ours".to_string()
            },
            "linear time",
            if exponents.is_empty() {
                "—".into()
            } else {
                exponents
                    .iter()
                    .map(|(name, e)| format!("{name}: time ∝ n^{e:.2}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            },
            every(
                (exponents.iter().filter(|(_, e)| *e <= 1.15).count(), exponents.len()),
                "the fitted exponent of time against records at most 1.15 (medians of 3 runs below 200,000 records)",
            ),
        )
        .stand_in(quick),
    );
    for c in &mut claims {
        if quick {
            c.stand_in = true;
        }
    }
    claims
}
