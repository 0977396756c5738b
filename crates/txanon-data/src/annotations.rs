//! Reading the annotations of a database: sensitive-item lists and item → category maps.

use std::collections::HashMap;
use std::path::Path;

use crate::db::{ItemCategories, TransactionDb};
use crate::error::{DataError, Result};
use crate::labels::ItemId;
use crate::read::read_text;

/// Looks `labels` up in the database's dictionary: the ids found (sorted, unique) and the labels
/// that are not items of the database.
pub fn resolve_labels(db: &TransactionDb, labels: &[String]) -> (Vec<ItemId>, Vec<String>) {
    let mut found = Vec::new();
    let mut unknown = Vec::new();
    for l in labels {
        match db.labels().find(l) {
            Some(id) => found.push(id),
            None => unknown.push(l.clone()),
        }
    }
    found.sort_unstable();
    found.dedup();
    (found, unknown)
}

/// Reads a list of item labels (whitespace- or comma-separated, `#` comments), as used for
/// sensitive-item files. Resolve them against a database with [`resolve_labels`].
pub fn read_label_list(path: &Path) -> Result<Vec<String>> {
    Ok(read_text(path)?
        .lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(|l| l.split(|c: char| c == ',' || c.is_whitespace()))
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect())
}

/// Reads an item → category file: one `item category` pair per line, separated by blanks or a
/// comma; `#` lines are comments. Category names are numbered in sorted order.
///
/// Returns the map and the number of file entries whose item is not in the database (ignored:
/// a category file usually describes a whole catalogue, the data a sample of it).
///
/// # Errors
/// [`DataError::Parse`] for a line without exactly two fields or an item given two different
/// categories; [`DataError::Invalid`] when items of the database have no category (the count and
/// the first few are named).
pub fn read_categories(path: &Path, db: &TransactionDb) -> Result<(ItemCategories, usize)> {
    let text = read_text(path)?;
    let mut category_of_label: Vec<Option<String>> = vec![None; db.num_items()];
    let mut unknown = 0;
    for (n, line) in text.lines().enumerate() {
        let line_no = n as u64 + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = trimmed
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty())
            .collect();
        if fields.len() != 2 {
            return Err(DataError::parse(
                path,
                line_no,
                0,
                format!("expected 2 fields (item category), found {}", fields.len()),
            ));
        }
        let Some(item) = db.labels().find(fields[0]) else {
            unknown += 1;
            continue;
        };
        let slot = &mut category_of_label[item as usize];
        match slot {
            Some(existing) if existing != fields[1] => {
                return Err(DataError::parse(
                    path,
                    line_no,
                    0,
                    format!(
                        "item {} is given category {:?} and, earlier, {existing:?}",
                        fields[0], fields[1]
                    ),
                ));
            }
            _ => *slot = Some(fields[1].to_owned()),
        }
    }
    let missing: Vec<String> = category_of_label
        .iter()
        .enumerate()
        .filter(|(_, c)| c.is_none())
        .map(|(i, _)| db.label(i as ItemId).to_string())
        .collect();
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(5).map(String::as_str).collect();
        return Err(DataError::invalid(
            path,
            format!(
                "{} items of the data have no category (first: {})",
                missing.len(),
                shown.join(", ")
            ),
        ));
    }
    let mut names: Vec<String> = category_of_label.iter().flatten().cloned().collect();
    names.sort_unstable();
    names.dedup();
    let index: HashMap<&str, u32> =
        names.iter().enumerate().map(|(i, n)| (n.as_str(), i as u32)).collect();
    let category_of = category_of_label.iter().flatten().map(|c| index[c.as_str()]).collect();
    Ok((ItemCategories::new(category_of, names), unknown))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("cats.txt");
        std::fs::write(&p, text).unwrap();
        (dir, p)
    }

    #[test]
    fn categories_read_and_checked() {
        let db = TransactionDb::from_int_transactions([vec![1, 2], vec![3]]);
        let (_d, p) = write("# item category\n1 fruit\n2,dairy\n3 fruit\n99 other\n");
        let (cats, unknown) = read_categories(&p, &db).unwrap();
        assert_eq!(unknown, 1);
        assert_eq!(cats.names(), &["dairy".to_string(), "fruit".to_string()]);
        assert_eq!(cats.categories(), &[1, 0, 1]);

        let (_d, p) = write("1 fruit\n2 dairy\n");
        let err = read_categories(&p, &db).unwrap_err().to_string();
        assert!(err.contains("1 items of the data have no category (first: 3)"), "{err}");
        let (_d, p) = write("1 fruit\n1 dairy\n2 x\n3 y\n");
        let err = read_categories(&p, &db).unwrap_err().to_string();
        assert!(err.contains(":2: item 1 is given category"), "{err}");
        let (_d, p) = write("1 fruit extra\n");
        assert!(
            read_categories(&p, &db).unwrap_err().to_string().contains(":1: expected 2 fields")
        );
    }

    #[test]
    fn labels_resolve() {
        let db = TransactionDb::from_int_transactions([vec![10, 20]]);
        let (ids, unknown) =
            resolve_labels(&db, &["20".into(), "7".into(), "10".into(), "20".into()]);
        assert_eq!(ids, vec![0, 1]);
        assert_eq!(unknown, vec!["7".to_string()]);
    }
}

/// `count` distinct items of `db` drawn uniformly at random with ChaCha8 from `seed`, sorted:
/// how the papers' experiments choose sensitive or private items ("m items at random", not by
/// support).
///
/// # Errors
/// [`ParamError::OutOfBounds`](crate::ParamError::OutOfBounds) when `count` is 0 or more than the
/// items of `db`.
pub fn random_items(
    db: &TransactionDb,
    count: usize,
    seed: u64,
) -> std::result::Result<Vec<ItemId>, crate::ParamError> {
    use rand::SeedableRng;
    if count == 0 || count > db.num_items() {
        return Err(crate::ParamError::OutOfBounds {
            name: "sensitive-random",
            value: count.to_string(),
            min: 1,
            max: db.num_items() as u64,
            what: "the items of the data",
        });
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut items: Vec<ItemId> = rand::seq::index::sample(&mut rng, db.num_items(), count)
        .into_iter()
        .map(|i| i as ItemId)
        .collect();
    items.sort_unstable();
    Ok(items)
}

/// The swap paper's artificial categorization (its Section 5.1): `count` categories, named `1`
/// to `count`, sharing the items of `db` in equal shares (sizes differ by at most one) at random
/// (ChaCha8 from `seed`), without overlap.
///
/// # Errors
/// [`ParamError::OutOfBounds`](crate::ParamError::OutOfBounds) when `count` is 0 or more than the
/// items of `db`.
pub fn random_categories(
    db: &TransactionDb,
    count: usize,
    seed: u64,
) -> std::result::Result<crate::ItemCategories, crate::ParamError> {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    if count == 0 || count > db.num_items() {
        return Err(crate::ParamError::OutOfBounds {
            name: "random-categories",
            value: count.to_string(),
            min: 1,
            max: db.num_items() as u64,
            what: "the items of the data",
        });
    }
    let mut items: Vec<usize> = (0..db.num_items()).collect();
    items.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    let mut category_of = vec![0u32; db.num_items()];
    for (position, item) in items.into_iter().enumerate() {
        category_of[item] = (position % count) as u32;
    }
    // Zero-padded, so that the names' order (the categories' ids) is their numeric order.
    let width = count.to_string().len();
    let names = (1..=count).map(|c| format!("{c:0width$}")).collect();
    Ok(crate::ItemCategories::new(category_of, names))
}

#[cfg(test)]
mod random_category_tests {
    use super::*;

    #[test]
    fn random_categories_share_items_equally_and_depend_on_the_seed() {
        let db = TransactionDb::from_int_transactions([(0..103).collect::<Vec<u32>>()]);
        let cats = random_categories(&db, 10, 1).unwrap();
        let mut sizes = vec![0; 10];
        for &c in cats.categories() {
            sizes[c as usize] += 1;
        }
        assert!(sizes.iter().all(|&s| s == 10 || s == 11), "{sizes:?}");
        assert_eq!(sizes.iter().sum::<usize>(), 103);
        assert_eq!(cats, random_categories(&db, 10, 1).unwrap());
        assert_ne!(cats, random_categories(&db, 10, 2).unwrap());
        assert!(random_categories(&db, 0, 1).is_err());
        assert!(random_categories(&db, 104, 1).is_err());
    }

    #[test]
    fn categories_read_back_keep_their_ids() {
        // The swap family breaks ties by category id: a written map read back must give
        // every item the same id, for every number of categories (9, 10 and 12 cross a
        // digit; names in another order than their ids must not matter).
        let db = TransactionDb::from_int_transactions([(0..60).collect::<Vec<u32>>()]);
        let dir = tempfile::tempdir().unwrap();
        for count in [9, 10, 12, 50] {
            let cats = random_categories(&db, count, 3).unwrap();
            let mut text = String::new();
            for (i, &c) in cats.categories().iter().enumerate() {
                text.push_str(&format!("{} {}\n", db.label(i as ItemId), cats.names()[c as usize]));
            }
            let path = dir.path().join(format!("c{count}.txt"));
            std::fs::write(&path, text).unwrap();
            let (back, unknown) = read_categories(&path, &db).unwrap();
            assert_eq!(unknown, 0);
            assert_eq!(back, cats, "{count} categories");
        }
        let shuffled =
            crate::ItemCategories::new(vec![0, 1, 2], vec!["b".into(), "10".into(), "2".into()]);
        assert_eq!(shuffled.names(), ["10", "2", "b"]);
        assert_eq!(shuffled.categories(), [2, 0, 1]);
    }
}
