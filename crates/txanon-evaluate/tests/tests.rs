//! The evaluation end to end on generated data: every method's guarantee visible in the
//! attack, levels out of reach reported, and a report page that is well formed and needs
//! nothing outside itself.

use txanon_attack::AttackParams;
use txanon_data::{QuestParams, TransactionDb, random_categories, random_items};
use txanon_evaluate::frontier::{Adversary, standings, verdict};
use txanon_evaluate::{EvaluateParams, Evaluation, Method, Outcome, evaluate, report};

fn data() -> TransactionDb {
    QuestParams::new(1500, 6.0, 3.0, 120).seed(3).check().unwrap().generate()
}

fn run(db: &TransactionDb, params: EvaluateParams) -> Evaluation {
    let sensitive = random_items(db, 6, 1).unwrap();
    let categories = random_categories(db, 8, 1).unwrap();
    let params = params
        .attack(AttackParams::new().draws(3).seed(5))
        .queries(200)
        .seed(Some(5))
        .check()
        .unwrap();
    let mut steps = Vec::new();
    let e =
        evaluate(db, &sensitive, Some(&categories), &params, &mut |p| steps.push(p.done)).unwrap();
    assert_eq!(steps.first(), Some(&0));
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "progress only moves on");
    e
}

#[test]
fn every_method_is_attacked_and_measured() {
    let db = data();
    let e = run(&db, EvaluateParams::new().levels(vec![2, 4]).anatomy_columns(Some(2)));
    // Two references, then anatomy, cahd, coherence, km at two levels and swap once.
    assert_eq!(e.points.len(), 2 + 4 * 2 + 1);
    assert_eq!(e.points[0].method, "original");
    assert_eq!(e.points[1].method, "sensitive removed");
    for p in &e.points {
        let Outcome::Published { privacy, utility, .. } = &p.outcome else { continue };
        assert_eq!(privacy.by_known.len(), 4);
        // CAHD's privacy degree: no adversary links a sensitive item above 1/p.
        if p.method == "cahd" {
            let bound = 1.0 / p.level.unwrap() as f64 + 1e-12;
            assert!(privacy.by_known.iter().all(|k| k.sensitive.max <= bound), "{p:?}");
        }
        // Removing the sensitive items leaves nothing to infer about them.
        if p.method == "sensitive removed" {
            assert!(privacy.by_known.iter().all(|k| k.sensitive.max == 0.0));
            assert_eq!(utility.workload_error, 1.0);
        }
        if p.method == "original" {
            assert_eq!(utility.itemsets[0].f1, 1.0);
            assert_eq!(utility.item_loss, 0.0);
            // With categories, the original records show their tendencies to the adversary.
            assert!(privacy.by_known[0].tendency.is_some());
        }
        // kᵐ-anonymity: an adversary who knows at most m = 2 items (generalized to what covers
        // them) finds at least k records, so picks the target's with probability at most 1/k.
        if p.method == "km" {
            let bound = 1.0 / p.level.unwrap() as f64 + 1e-12;
            assert!(privacy.by_known[..2].iter().all(|k| k.reidentification.max <= bound), "{p:?}");
            assert!(utility.item_loss < 1.0, "a generalized item is read as one of its items");
        }
        if p.method == "swap" {
            assert!(privacy.by_known[0].tendency.is_some());
            assert_eq!(utility.item_loss, 0.0, "swapping moves items, it loses none");
        }
    }
    // Suppression can only lower the chance of finding one's own record.
    let mean = |method: &str, level: Option<usize>| {
        e.points.iter().find(|p| p.method == method && p.level == level).and_then(|p| {
            match &p.outcome {
                Outcome::Published { privacy, .. } => {
                    Some(privacy.by_known[1].reidentification.mean)
                }
                Outcome::Infeasible { .. } => None,
            }
        })
    };
    let original = mean("original", None).unwrap();
    let coherent = mean("coherence", Some(4)).expect("coherence publishes at level 4");
    assert!(coherent <= original + 1e-12);
}

#[test]
fn levels_out_of_reach_are_reported_with_their_reason() {
    let db = data();
    // Twenty columns over 120 items leave most record values empty: no l = 8 bucket exists,
    // whatever the item partition.
    let e = run(
        &db,
        EvaluateParams::new()
            .methods(vec![Method::Anatomy])
            .levels(vec![8])
            .anatomy_columns(Some(20)),
    );
    let refused: Vec<&str> = e
        .points
        .iter()
        .filter_map(|p| match &p.outcome {
            Outcome::Infeasible { reason } => Some(reason.as_str()),
            Outcome::Published { .. } => None,
        })
        .collect();
    assert_eq!(refused.len(), 1, "{:?}", e.points);
    assert!(refused[0].contains("8-diverse") || refused[0].contains("l = 8"), "{}", refused[0]);
    let page = report::html(&e, &provenance());
    assert!(page.contains("Out of reach on this data") && page.contains("anatomy 8"));
    // The refusal in words: the level, and why no item partition reaches it (records of
    // fewer items than columns leave some column empty too often).
    assert!(page.contains("no item partition into 20 columns reaches l = 8"), "{}", refused[0]);
    let csv = report::csv(&e);
    assert!(csv.lines().any(|l| l.starts_with("\"anatomy\",8,infeasible")));
    // Every line of the CSV has the header's fields.
    let fields = |l: &str| l.split(',').count();
    let header = fields(csv.lines().next().unwrap());
    assert!(csv.lines().filter(|l| !l.contains("infeasible")).all(|l| fields(l) == header));
}

fn provenance() -> report::Provenance {
    report::Provenance {
        data: "/data/quest.dat".into(),
        sha256: Some("ab12".into()),
        bytes: Some(1234),
        date: "2026-11-28".into(),
        version: "9.9.9".into(),
        commit: "c0ffee".into(),
    }
}

#[test]
fn the_page_is_well_formed_and_self_contained() {
    let db = data();
    let e = run(&db, EvaluateParams::new().levels(vec![2]).anatomy_columns(Some(2)));
    let page = report::html(&e, &provenance());
    // The first screen: the data's name, size, hash, the day, the tool; that nothing is
    // recommended without a budget, and how to ask for it.
    let first = &page[..page.find("<h2>What was compared").expect("the comparison")];
    for said in [
        "<h1>Which publication of quest.dat to make</h1><section class=\"decision\"><p id=\"decision\">No threat",
        "Data: /data/quest.dat, 1234 bytes, sha256 <code>ab12</code>",
        "Evaluated on 2026-11-28 by txanon 9.9.9 (commit c0ffee)",
        "No threat and no budget were named",
        "--max-risk 0.05",
    ] {
        assert!(first.contains(said), "{said} not on the first screen: {first}");
    }
    // One sentence per method run, none for a method not run.
    for m in [
        "Anatomy keeps every item",
        "CAHD publishes",
        "Coherence deletes",
        "replaces items by broader",
        "Swapping exchanges",
    ] {
        assert!(page.contains(m), "{m}");
    }
    // Well formed: an XML parser reads it to the end, every element closed.
    let mut reader = quick_xml::Reader::from_str(&page);
    let mut depth = 0i64;
    let mut svgs = 0;
    loop {
        match reader.read_event().expect("well-formed markup") {
            quick_xml::events::Event::Start(tag) => {
                depth += 1;
                if tag.name().as_ref() == b"svg" {
                    svgs += 1;
                }
            }
            quick_xml::events::Event::End(_) => depth -= 1,
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(depth, 0);
    // Per adversary (re-identification, sensitive, tendency): a chart per number of known
    // items, and the workload's error at the most.
    assert_eq!(svgs, 3 * (e.settings.known.len() + 1));
    assert!(!page.contains("width=\"600\""), "charts are sized to their column");
    // The verdict: one paragraph per adversary, each naming the frontier the module computes.
    for a in Adversary::ALL {
        let v = verdict(&e, a, 4).expect("every adversary attacked some point");
        assert!(!v.contains("the frontier is original"), "a reference is never on it: {v}");
        assert!(v.contains("For reference, the original has risk"), "{v}");
        let on: Vec<String> = standings(&e, a, 4)
            .iter()
            .filter(|s| s.on_frontier())
            .map(|s| s.point.label())
            .collect();
        assert!(v.contains(&format!("the frontier is {}.", on.join(", "))), "{v}");
        assert!(page.contains(&v.replace('&', "&amp;")), "the page states the verdict: {v}");
    }
    // Self-contained: nothing fetched, nothing run.
    for outside in ["http:", "https:", "src=", "href=", "<script", "<link", "url("] {
        assert!(!page.contains(outside), "the page refers outside itself: {outside}");
    }
    // results.json round-trips as JSON.
    let json = serde_json::to_string(&e).unwrap();
    assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok());
}

#[test]
fn parameters_are_checked() {
    assert_eq!(EvaluateParams::new().levels(vec![1]).check().unwrap_err().name(), "levels");
    assert_eq!(EvaluateParams::new().levels(vec![]).check().unwrap_err().name(), "levels");
    assert_eq!(EvaluateParams::new().methods(vec![]).check().unwrap_err().name(), "methods");
    assert_eq!(EvaluateParams::new().supports(vec![0.0]).check().unwrap_err().name(), "supports");
    assert_eq!(EvaluateParams::new().queries(0).check().unwrap_err().name(), "queries");
    let attack = |a: AttackParams| EvaluateParams::new().attack(a).check().unwrap_err().name();
    assert_eq!(attack(AttackParams::new().known(vec![40])), "known");
    assert_eq!(attack(AttackParams::new().draws(0)), "draws");
}

/// The adversary on one publication (`attack_published`, what Python's `txanon.attack` runs)
/// finds what the evaluation found on the same publication: each family made again with the
/// evaluation's settings and seed, attacked through its published parts and secrets.
#[test]
fn one_publication_attacked_alone_scores_as_in_the_evaluation() {
    use txanon_evaluate::{Published, attack_published};
    let db = data();
    let e = run(
        &db,
        EvaluateParams::new().levels(vec![4]).anatomy_columns(Some(2)).coherence_p(2).km_m(2),
    );
    let mut sensitive = random_items(&db, 6, 1).unwrap();
    sensitive.sort_unstable();
    let categories = random_categories(&db, 8, 1).unwrap();
    let attack = AttackParams::new().draws(3).seed(5).check().unwrap();
    let privacy = |method: &str| {
        let p = e.points.iter().find(|p| p.method == method).unwrap();
        let Outcome::Published { privacy, .. } = &p.outcome else { panic!("{method} refused") };
        serde_json::to_value(privacy).unwrap()
    };
    let alone = |published: Published<'_>| {
        serde_json::to_value(
            attack_published(&db, &sensitive, Some(&categories), published, &attack).unwrap(),
        )
        .unwrap()
    };
    let anatomy = txanon_anatomy::anonymize(
        &db,
        &txanon_anatomy::AnatomyParams::new(2, 4).seed(Some(5)).check().unwrap(),
    )
    .unwrap();
    assert_eq!(
        alone(Published::Anatomy { table: &anatomy.table, bucket_of: &anatomy.bucket_of }),
        privacy("anatomy")
    );
    let cahd = txanon_cahd::anonymize(
        &db,
        &sensitive,
        &txanon_cahd::CahdParams::new(4).seed(Some(5)).check().unwrap(),
    )
    .unwrap();
    assert_eq!(alone(Published::Cahd { groups: &cahd.published }), privacy("cahd"));
    let nuggets = u32::try_from(db.len().div_ceil(1000)).unwrap().max(4);
    let coherence = txanon_coherence::anonymize(
        &db,
        &sensitive,
        &txanon_coherence::CoherenceParams::new(0.25, 4, 2, nuggets).seed(Some(5)).check().unwrap(),
    )
    .unwrap();
    assert_eq!(
        alone(Published::Coherence { published: &coherence.published }),
        privacy("coherence")
    );
    let hierarchy = txanon_km::Hierarchy::balanced(&db, 5).unwrap();
    let km = txanon_km::anonymize(
        &db,
        &hierarchy,
        &txanon_km::KmParams::new(4, 2).seed(Some(5)).check().unwrap(),
    )
    .unwrap();
    assert_eq!(
        alone(Published::Km { published: &km.published, hierarchy: &hierarchy }),
        privacy("km")
    );
    let swap = txanon_swap::anonymize(
        txanon_data::Categorized::new(&db, &categories).unwrap(),
        &txanon_swap::SwapParams::new(txanon_swap::Method::PartSwap)
            .ties(txanon_swap::Ties::All)
            .max_exposed(db.len())
            .seed(Some(5))
            .check()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        alone(Published::Swap { published: &swap.published, key: swap.key() }),
        privacy("swap")
    );
}
