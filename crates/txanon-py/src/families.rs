//! `txanon.anonymize.<family>`: each family's options, named and bounded as the CLI's, turned
//! into the family's validated parameters, and its release made by `txanon-publish`, the code
//! the CLI publishes through.

use std::path::PathBuf;

use pyo3::prelude::*;
use txanon_anatomy::{AnatomyParams, ItemPartitioning};
use txanon_band::GraphKind;
use txanon_cahd::{BandOrder, CahdParams};
use txanon_coherence::{CoherenceParams, Engine};
use txanon_data::progress::Progress;
use txanon_km::{Algorithm, Hierarchy, KmParams};
use txanon_mining::MinSupport;
use txanon_swap::{Method, Search, SwapParams};

use crate::convert::{
    Int, Reading, anatomy_diversity, data, sensitive, swap_method, swap_ties, whole, word,
};
use crate::errors::{Failure, detached, watched};
use crate::publication::{Owned, Publication};

/// The seed: any 64-bit unsigned integer, or none (the operating system's 256 bits).
pub(crate) fn seed(value: Option<Int>) -> Result<Option<u64>, Failure> {
    value.map(|s| whole("seed", s, 0u64, u64::MAX)).transpose()
}

fn reading(
    format: Option<String>,
    tid_column: Option<String>,
    item_column: Option<String>,
) -> Reading {
    Reading { format, tid_column, item_column }
}

/// CAHD (see `txanon.anonymize.cahd`).
#[pyfunction]
#[pyo3(signature = (data_, *, p, sensitive_=None, sensitive_random=None, alpha=None, band="aat", progress=None, seed_=None, format=None, tid_column=None, item_column=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn anonymize_cahd(
    py: Python<'_>,
    data_: &Bound<'_, PyAny>,
    p: Int,
    sensitive_: Option<Vec<String>>,
    sensitive_random: Option<Int>,
    alpha: Option<Int>,
    band: &str,
    progress: Option<Bound<'_, PyAny>>,
    seed_: Option<Int>,
    format: Option<String>,
    tid_column: Option<String>,
    item_column: Option<String>,
) -> PyResult<Publication> {
    let seed = seed(seed_)?;
    let watch = Progress::new();
    let p = whole("p", p, 2usize, usize::MAX)?;
    let alpha = whole("alpha", alpha.unwrap_or_else(|| Int::from(3)), 1usize, usize::MAX)?;
    let order = match word("band", band, &["aat", "sym-pad", "none"])? {
        "aat" => BandOrder::Rcm(GraphKind::SharedItems),
        "sym-pad" => BandOrder::Rcm(GraphKind::SymmetrizedPadded),
        _ => BandOrder::Input,
    };
    let data = data(py, data_, &reading(format, tid_column, item_column))?;
    let drawn = sensitive_random.is_some();
    let items = sensitive("sensitive", &data.db, sensitive_, sensitive_random, seed)?;
    let params = CahdParams::new(p)
        .alpha(alpha)
        .order(order)
        .seed(seed)
        .progress(watch.clone())
        .check()
        .map_err(Failure::from)?;
    let mut release = watched(py, &watch, progress.as_ref(), || {
        Ok(txanon_publish::cahd::release(&data.name, &data.db, &items, &params)?)
    })?;
    if drawn {
        release = release.with_drawn_sensitive(&data.db, &items);
    }
    Ok(Publication::new(release, data, None).attackable(items, None, None))
}

/// kᵐ-anonymity's `k`, `m` and `max_combinations` (by default 2·10⁸), bounded as the CLI
/// bounds them.
pub(crate) fn km_numbers(
    k: Int,
    m: Int,
    max_combinations: Option<Int>,
) -> Result<(u32, usize, u64), Failure> {
    let k = whole("k", k, 2u32, u32::MAX)?;
    let m = whole("m", m, 1usize, usize::MAX)?;
    let max_combinations = whole(
        "max_combinations",
        max_combinations.unwrap_or_else(|| Int::from(200_000_000)),
        1u64,
        txanon_km::MAX_COUNTERS,
    )?;
    Ok((k, m, max_combinations))
}

/// The fanout of a built hierarchy (by default 5), bounded as the CLI bounds it.
pub(crate) fn fanout_of(fanout: Option<Int>) -> Result<usize, Failure> {
    whole("fanout", fanout.unwrap_or_else(|| Int::from(5)), 2usize, 1_000_000)
}

/// kᵐ-anonymity (see `txanon.anonymize.km`).
#[pyfunction]
#[pyo3(signature = (data_, *, k, m, hierarchy=None, fanout=None, build="order", algorithm="aa", max_cuts=None, max_combinations=None, progress=None, seed_=None, format=None, tid_column=None, item_column=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn anonymize_km(
    py: Python<'_>,
    data_: &Bound<'_, PyAny>,
    k: Int,
    m: Int,
    hierarchy: Option<PathBuf>,
    fanout: Option<Int>,
    build: &str,
    algorithm: &str,
    max_cuts: Option<Int>,
    max_combinations: Option<Int>,
    progress: Option<Bound<'_, PyAny>>,
    seed_: Option<Int>,
    format: Option<String>,
    tid_column: Option<String>,
    item_column: Option<String>,
) -> PyResult<Publication> {
    let seed = seed(seed_)?;
    let watch = Progress::new();
    let (k, m, max_combinations) = km_numbers(k, m, max_combinations)?;
    let fanout = fanout_of(fanout)?;
    let build = word("build", build, &["order", "cooccurrence"])?;
    let algorithm = match word("algorithm", algorithm, &["aa", "da", "oa"])? {
        "aa" => Algorithm::Apriori,
        "da" => Algorithm::Direct,
        _ => Algorithm::Optimal,
    };
    let max_cuts =
        whole("max_cuts", max_cuts.unwrap_or_else(|| Int::from(1_000_000)), 1u64, u64::MAX)?;
    let data = data(py, data_, &reading(format, tid_column, item_column))?;
    let params = KmParams::new(k, m)
        .algorithm(algorithm)
        .max_cuts(max_cuts)
        .max_combinations(max_combinations)
        .seed(seed)
        .progress(watch.clone())
        .check()
        .map_err(Failure::from)?;
    let release = watched(py, &watch, progress.as_ref(), || {
        let (hierarchy, described) = match &hierarchy {
            Some(path) => {
                (Hierarchy::read(path).map_err(|e| Failure::of(&e))?, path.display().to_string())
            }
            None if build == "order" => (
                Hierarchy::balanced(&data.db, fanout).map_err(|e| Failure::of(&e))?,
                format!("balanced, fanout {fanout}"),
            ),
            None => (
                Hierarchy::by_cooccurrence(&data.db, fanout).map_err(|e| Failure::of(&e))?,
                format!("co-occurrence, fanout {fanout}"),
            ),
        };
        Ok(txanon_publish::km::release(&data.name, &data.db, &hierarchy, &described, &params)?)
    })?;
    Ok(Publication::new(release, data, None).attackable(Vec::new(), None, None))
}

/// (h,k,p)-coherence (see `txanon.anonymize.coherence`).
#[pyfunction]
#[pyo3(signature = (data_, *, h, k, p, nugget_support, sensitive_=None, sensitive_random=None, engine="counting", max_itemsets=None, progress=None, seed_=None, format=None, tid_column=None, item_column=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn anonymize_coherence(
    py: Python<'_>,
    data_: &Bound<'_, PyAny>,
    h: f64,
    k: Int,
    p: Int,
    nugget_support: &Bound<'_, PyAny>,
    sensitive_: Option<Vec<String>>,
    sensitive_random: Option<Int>,
    engine: &str,
    max_itemsets: Option<Int>,
    progress: Option<Bound<'_, PyAny>>,
    seed_: Option<Int>,
    format: Option<String>,
    tid_column: Option<String>,
    item_column: Option<String>,
) -> PyResult<Publication> {
    let seed = seed(seed_)?;
    let watch = Progress::new();
    if !(0.0..1.0).contains(&h) {
        return Err(Failure::bad_input(format!(
            "h = {h}: out of range, allowed 0 to 1 (1 excluded)"
        ))
        .into());
    }
    let k = whole("k", k, 2u32, u32::MAX)?;
    let p = whole("p", p, 1usize, usize::MAX)?;
    let engine = match word("engine", engine, &["counting", "border-edges", "enumerate"])? {
        "counting" => Engine::Counting,
        "border-edges" => Engine::BorderEdges,
        _ => Engine::Enumerate,
    };
    let max_itemsets = whole(
        "max_itemsets",
        max_itemsets.unwrap_or_else(|| Int::from(1_000_000_000_000)),
        1u64,
        u64::MAX,
    )?;
    let nugget_support: MinSupport = nugget_support
        .str()?
        .to_string()
        .parse()
        .map_err(|why| Failure::bad_input(format!("nugget_support: {why}")))?;
    let data = data(py, data_, &reading(format, tid_column, item_column))?;
    let drawn = sensitive_random.is_some();
    let private = sensitive("sensitive", &data.db, sensitive_, sensitive_random, seed)?;
    let params = CoherenceParams::new(h, k, p, nugget_support.count(data.db.len()))
        .engine(engine)
        .max_itemsets(max_itemsets)
        .seed(seed)
        .progress(watch.clone())
        .check()
        .map_err(Failure::from)?;
    let mut release = watched(py, &watch, progress.as_ref(), || {
        Ok(txanon_publish::coherence::release(&data.name, &data.db, &private, &params)?)
    })?;
    if drawn {
        release = release.with_drawn_sensitive(&data.db, &private);
    }
    Ok(Publication::new(release, data, None).attackable(private, None, None))
}

/// Anatomy's parameters as `txanon.anonymize.anatomy` takes them. The partitioning and the
/// headroom say how to build the columns, so they are refused beside given columns.
#[allow(clippy::too_many_arguments)]
fn anatomy_params(
    columns: Int,
    l: Int,
    diversity: &str,
    partitioning: Option<&str>,
    headroom: Option<f64>,
    item_columns: Option<Vec<Vec<String>>>,
    seed: Option<u64>,
) -> PyResult<AnatomyParams> {
    let columns = whole("columns", columns, 1usize, usize::MAX)?;
    let l = whole("l", l, 2usize, usize::MAX)?;
    let diversity = anatomy_diversity(diversity)?;
    if item_columns.is_some() {
        let building = [("partitioning", partitioning.is_some()), ("headroom", headroom.is_some())];
        if let Some((name, _)) = building.iter().find(|(_, given)| *given) {
            return Err(Failure::bad_input(format!(
                "item_columns and {name}: give the columns, or say how to build them, not both"
            ))
            .into());
        }
    }
    let partitioning = match word(
        "partitioning",
        partitioning.unwrap_or("repaired"),
        &["repaired", "clustered", "diverse"],
    )? {
        "repaired" => ItemPartitioning::Repaired,
        "clustered" => ItemPartitioning::Clustered,
        _ => ItemPartitioning::Diverse,
    };
    let headroom = headroom.unwrap_or(0.25);
    if !(headroom >= 0.0 && headroom.is_finite()) {
        return Err(Failure::bad_input(format!(
            "headroom = {headroom}: out of range, allowed 0 or more (finite)"
        ))
        .into());
    }
    Ok(AnatomyParams::new(columns, l)
        .seed(seed)
        .diversity(diversity)
        .partitioning(partitioning)
        .headroom(headroom)
        .item_columns(item_columns))
}

/// Multi-dimension anatomy (see `txanon.anonymize.anatomy`).
#[pyfunction]
#[pyo3(signature = (data_, *, columns, l, diversity="frequency", partitioning=None, headroom=None, item_columns=None, progress=None, seed_=None, format=None, tid_column=None, item_column=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn anonymize_anatomy(
    py: Python<'_>,
    data_: &Bound<'_, PyAny>,
    columns: Int,
    l: Int,
    diversity: &str,
    partitioning: Option<&str>,
    headroom: Option<f64>,
    item_columns: Option<Vec<Vec<String>>>,
    progress: Option<Bound<'_, PyAny>>,
    seed_: Option<Int>,
    format: Option<String>,
    tid_column: Option<String>,
    item_column: Option<String>,
) -> PyResult<Publication> {
    let seed = seed(seed_)?;
    let watch = Progress::new();
    let params = anatomy_params(columns, l, diversity, partitioning, headroom, item_columns, seed)?;
    let data = data(py, data_, &reading(format, tid_column, item_column))?;
    let params = params.progress(watch.clone()).check().map_err(Failure::from)?;
    let release = watched(py, &watch, progress.as_ref(), || {
        Ok(txanon_publish::anatomy::release(&data.name, &data.db, &params)?)
    })?;
    Ok(Publication::new(release, data, None).attackable(Vec::new(), None, None))
}

/// Anatomy's item partition built from `data_` (a sample), by label, completed with the items
/// of `supports` the sample lacks (`txanon_anatomy::complete_partition`): the columns
/// `txanon.spark` gives every shard.
#[pyfunction]
#[pyo3(signature = (data_, *, columns, l, supports, diversity="frequency", partitioning=None, headroom=None, seed_=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn anatomy_item_columns(
    py: Python<'_>,
    data_: &Bound<'_, PyAny>,
    columns: Int,
    l: Int,
    supports: Vec<(String, u64)>,
    diversity: &str,
    partitioning: Option<&str>,
    headroom: Option<f64>,
    seed_: Option<Int>,
) -> PyResult<Vec<Vec<String>>> {
    let seed = seed(seed_)?;
    let params = anatomy_params(columns, l, diversity, partitioning, headroom, None, seed)?;
    let params = params.check().map_err(Failure::from)?;
    let data = data(py, data_, &reading(None, None, None))?;
    let db = &data.db;
    let partition =
        detached(py, || txanon_anatomy::item_partition(db, &params).map_err(|e| Failure::of(&e)))?;
    let mut labelled: Vec<Vec<String>> =
        partition.iter().map(|c| c.iter().map(|&i| db.label(i).to_string()).collect()).collect();
    txanon_anatomy::complete_partition(&mut labelled, &supports);
    Ok(labelled)
}

/// Tendency hiding (see `txanon.anonymize.swap`).
#[pyfunction]
#[pyo3(signature = (data_, *, method="partswap", categories=None, random_categories=None, max_exposed=None, ties="first", window=None, key_out=None, progress=None, seed_=None, format=None, tid_column=None, item_column=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn anonymize_swap(
    py: Python<'_>,
    data_: &Bound<'_, PyAny>,
    method: &str,
    categories: Option<PathBuf>,
    random_categories: Option<Int>,
    max_exposed: Option<Int>,
    ties: &str,
    window: Option<Int>,
    key_out: Option<PathBuf>,
    progress: Option<Bound<'_, PyAny>>,
    seed_: Option<Int>,
    format: Option<String>,
    tid_column: Option<String>,
    item_column: Option<String>,
) -> PyResult<Publication> {
    let seed = seed(seed_)?;
    let watch = Progress::new();
    let (method, ties) = (swap_method(method)?, swap_ties(ties)?);
    let max_exposed =
        whole("max_exposed", max_exposed.unwrap_or_else(|| Int::from(0)), 0usize, usize::MAX)?;
    let window = window.map(|w| whole("window", w, 1usize, usize::MAX)).transpose()?;
    if window.is_some() && !matches!(method, Method::PartSwap | Method::PartAndFullSwap) {
        return Err(Failure::bad_input(
            "window bounds partial swapping's search: it applies to method partswap and both",
        )
        .into());
    }
    let random_categories =
        random_categories.map(|n| whole("random_categories", n, 1usize, usize::MAX)).transpose()?;
    let data = data(py, data_, &reading(format, tid_column, item_column))?;
    let (categories, from) = match (&categories, random_categories) {
        (Some(_), Some(_)) => {
            return Err(Failure::bad_input(
                "categories and random_categories: give the categories' file, or draw them, not both",
            )
            .into());
        }
        (Some(path), None) => (
            txanon_data::read_categories(path, &data.db).map_err(Failure::from)?.0,
            txanon_publish::swap::CategoriesFrom::File,
        ),
        (None, Some(n)) => (
            txanon_data::random_categories(&data.db, n, txanon_data::draw_seed(seed, &data.db))
                .map_err(Failure::from)?,
            txanon_publish::swap::CategoriesFrom::Random(n),
        ),
        (None, None) => {
            return Err(Failure::bad_input(
                "categories: give the items' categories (a file of `item category` lines), or draw them with random_categories",
            )
            .into());
        }
    };
    let search = match window.and_then(std::num::NonZeroUsize::new) {
        Some(w) => Search::Window(w),
        None => Search::Indexed,
    };
    let params = SwapParams::new(method)
        .search(search)
        .seed(seed)
        .progress(watch.clone())
        .max_exposed(max_exposed)
        .ties(ties)
        .check()
        .map_err(Failure::from)?;
    let kept = key_out.is_some();
    let (release, key) = watched(py, &watch, progress.as_ref(), || {
        Ok(txanon_publish::swap::release(&data.name, &data.db, &categories, from, &params, kept)?)
    })?;
    if let Some(path) = &key_out {
        // The key undoes the anonymization: readable by its owner alone from the moment it
        // exists, and never part of a publication (write() refuses a directory holding it).
        let text = key.to_text();
        txanon_data::write_atomic_with_mode(path, 0o600, |file| -> Result<(), Failure> {
            std::io::Write::write_all(file, text.as_bytes()).map_err(|e| {
                Failure::bad_input(format!("key_out {}: cannot be written: {e}", path.display()))
            })
        })?;
    }
    let key = key.records().to_vec();
    Ok(Publication::new(release, data, key_out).attackable(Vec::new(), Some(categories), Some(key)))
}

/// Slicing of relational microdata, or a baseline (see `txanon.anonymize.slicing`).
#[pyfunction]
#[pyo3(signature = (data_, *, schema, l, method="slicing", k=None, columns=None, sensitive_alone=false, column_spec=None, generalize=None, cut="first", bins=None, attributes=None, progress=None, seed_=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn anonymize_slicing(
    py: Python<'_>,
    data_: &Bound<'_, PyAny>,
    schema: PathBuf,
    l: Int,
    method: &str,
    k: Option<Int>,
    columns: Option<Int>,
    sensitive_alone: bool,
    column_spec: Option<String>,
    generalize: Option<Int>,
    cut: &str,
    bins: Option<Int>,
    attributes: Option<Vec<String>>,
    progress: Option<Bound<'_, PyAny>>,
    seed_: Option<Int>,
) -> PyResult<Publication> {
    use txanon_publish::slicing::{SlicingCut, SlicingMethod, SlicingOptions};
    let seed = seed(seed_)?;
    let Ok(input) = data_.extract::<PathBuf>() else {
        return Err(Failure::bad_input(
            "data: slicing reads relational microdata from a CSV file with its schema: pass the file's path",
        )
        .into());
    };
    let method = match word("method", method, &["slicing", "mondrian", "anatomy"])? {
        "slicing" => SlicingMethod::Slicing,
        "mondrian" => SlicingMethod::Mondrian,
        _ => SlicingMethod::Anatomy,
    };
    let cut = match word("cut", cut, &["first", "any"])? {
        "first" => SlicingCut::First,
        _ => SlicingCut::Any,
    };
    let options = SlicingOptions {
        l: whole("l", l, 2usize, usize::MAX)?,
        k: k.map(|k| whole("k", k, 1usize, usize::MAX)).transpose()?,
        columns: columns.map(|c| whole("columns", c, 2usize, usize::MAX)).transpose()?,
        sensitive_alone,
        column_spec,
        generalize: generalize.map(|g| whole("generalize", g, 1usize, usize::MAX)).transpose()?,
        cut,
        bins: whole("bins", bins.unwrap_or_else(|| Int::from(10)), 2usize, usize::MAX)?,
        attributes,
        method,
        seed,
    };
    // What the method would not use is refused, not silently dropped.
    let slicing = method == SlicingMethod::Slicing;
    let ignored = [
        ("columns", options.columns.is_some(), slicing),
        ("column_spec", options.column_spec.is_some(), slicing),
        ("sensitive_alone", options.sensitive_alone, slicing),
        ("generalize", options.generalize.is_some(), slicing),
        ("k", options.k.is_some(), method == SlicingMethod::Mondrian),
    ];
    if let Some((name, ..)) = ignored.iter().find(|(_, given, used)| *given && !used) {
        return Err(Failure::bad_input(format!(
            "{name} does not apply to method {}: leave it out",
            method.method().rsplit('/').next().unwrap_or("slicing")
        ))
        .into());
    }
    let watch = Progress::new();
    let release = watched(py, &watch, progress.as_ref(), || {
        let schema_of = txanon_data::Schema::from_path(&schema).map_err(|e| Failure::of(&e))?;
        let table = txanon_data::Table::read(&input, &schema_of).map_err(|e| Failure::of(&e))?;
        let mut microdata =
            txanon_slicing::Microdata::from_table(&table).map_err(|e| Failure::of(&e))?;
        if let Some(names) = &options.attributes {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            microdata = microdata.select(&names).map_err(|e| Failure::of(&e))?;
        }
        Ok(txanon_publish::slicing::release(
            &input.display().to_string(),
            &microdata,
            table.dropped_rows(),
            &options,
        )?)
    })?;
    let sources = vec![Owned::File(input), Owned::File(schema)];
    Ok(Publication::of_files(release, sources, None))
}
