//! Tendency hiding's release: the published transactions, the drawn categorization (when it
//! was drawn), the summary; the key stays with the caller, never in the publication.

use std::fmt::Write as _;

use serde::Serialize;
use txanon_data::{Categorized, ItemCategories, TransactionDb};
use txanon_swap::{Search, SwapAuditReport, SwapStats, Ties, ValidSwapParams, anonymize};

use crate::error::{PublishError, Result};
use crate::outcome::Outcome;
use crate::release::{Content, Release};

#[derive(Debug, Serialize)]
struct Summary {
    input: String,
    method: &'static str,
    ties: Ties,
    /// partswap's search window (`--window`); absent: the paper's whole candidate bucket.
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<u64>,
    categories: usize,
    #[serde(flatten)]
    stats: SwapStats,
    audit: SwapAuditReport,
}

/// What the data holder keeps of a swap run: for each published record, the input record it
/// comes from. It undoes the anonymization: never published.
#[derive(Clone)]
pub struct SwapKey(Vec<u32>);

impl std::fmt::Debug for SwapKey {
    /// Never its content: the key is a secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SwapKey({} records)", self.0.len())
    }
}

impl SwapKey {
    /// The 0-based input record of each published record.
    pub fn records(&self) -> &[u32] {
        &self.0
    }

    /// Reads a key file as [`SwapKey::to_text`] writes it: per published record, the 1-based
    /// input record it comes from.
    ///
    /// # Errors
    /// An unreadable file, or a line that is not a record number ([`PublishError::Usage`],
    /// naming the line).
    pub fn read(path: &std::path::Path) -> Result<Self> {
        let text = txanon_data::read_text(path)?;
        let mut key = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.parse::<u32>() {
                Ok(k) if k >= 1 => key.push(k - 1),
                _ => {
                    return Err(PublishError::Usage(format!(
                        "{}:{}: expected a record number (1-based), found {line:?}",
                        path.display(),
                        n + 1
                    )));
                }
            }
        }
        Ok(Self(key))
    }

    /// The key file's text, as `txanon audit swap --key` reads it (1-based record numbers).
    pub fn to_text(&self) -> String {
        let mut key = String::from(
            "# SECRET, not for publication: for each published record (line order), the input\n\
             # record (1-based) it comes from. `txanon audit swap --key` reads it.\n",
        );
        for &k in &self.0 {
            writeln!(key, "{}", k + 1).expect("writing to a String");
        }
        key
    }
}

/// How the categories of a swap run were chosen.
#[derive(Debug, Clone, Copy)]
pub enum CategoriesFrom {
    /// The data holder's file.
    File,
    /// Drawn at random into this many categories (published as categories.txt).
    Random(usize),
}

/// Anonymizes `db` (read from `input`) by swapping tendencies over `categories`; `key_kept`
/// says whether the caller keeps the key (the manifest says so, never where). The publication
/// has passed its audit against `db`.
///
/// # Errors
/// Swap's refusals and failures; categories that do not fit the data.
pub fn release(
    input: &str,
    db: &TransactionDb,
    categories: &ItemCategories,
    from: CategoriesFrom,
    params: &ValidSwapParams,
    key_kept: bool,
) -> Result<(Release, SwapKey)> {
    let categorized = Categorized::new(db, categories).map_err(PublishError::family)?;
    let swapped = anonymize(categorized, params).map_err(PublishError::family)?;
    let method = params.method();
    let summary = Summary {
        input: input.to_string(),
        method: method.name(),
        ties: params.ties(),
        window: match params.search() {
            Search::Window(w) => Some(w.get() as u64),
            Search::Indexed | Search::Exhaustive => None,
        },
        categories: categories.len(),
        stats: swapped.stats.clone(),
        audit: swapped.audit.clone(),
    };
    let outcome = Outcome::transactions(
        &format!("swap/{}", method.name()),
        db,
        &swapped.published,
        "--method",
    )
    .did(format!(
        "{} of {} records changed ({} pairs); {} records hold a tendency",
        swapped.audit.changed, swapped.audit.records, swapped.stats.pairs, swapped.audit.with_tendency
    ))
    .audited(format!(
        "{} as published, {} records still showing their tendency beyond its design (at most {} allowed)",
        method.name(),
        swapped.audit.exposed,
        params.max_exposed()
    ));
    let random_categories = match from {
        CategoriesFrom::Random(n) => Some(n),
        CategoriesFrom::File => None,
    };
    let key = SwapKey(swapped.key().to_vec());
    let mut release = Release::new(
        format!("swap/{}", method.name()),
        &summary,
        &swapped.audit,
        params.seed().is_some(),
        outcome,
    )?
    .parameters(serde_json::json!({
        "method": method.name(),
        "categories": categories.len(),
        "random_categories": random_categories,
        "max_exposed": params.max_exposed(),
        "ties": params.ties(),
    }))
    .with("published", Content::Transactions(swapped.published.into()));
    if random_categories.is_some() {
        let mut text =
            String::from("# item category (txanon anonymize swap --random-categories)\n");
        for (i, &c) in categories.categories().iter().enumerate() {
            writeln!(text, "{} {}", db.label(i as u32), categories.names()[c as usize])
                .expect("writing to a String");
        }
        release = release.with("categories.txt", Content::Text(text));
    }
    release.note = Some(if key_kept {
        "a key linking every published record to its input record exists, kept by the data holder outside this publication"
    } else {
        "no key was kept"
    });
    Ok((release, key))
}
