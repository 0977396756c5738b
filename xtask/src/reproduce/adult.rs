//! The slicing experiment's data: Adult's training and test splits (the test file's income
//! labels normalized), or, under `--quick`, a generated table of its shape.

use std::path::Path;

use anyhow::{Context as _, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use txanon_data::{Schema, Table};
use txanon_slicing::Microdata;

use super::Context;

/// The training and test splits, and what they are.
pub struct Splits {
    pub label: String,
    pub train: Microdata,
    pub test: Microdata,
    /// Both splits as one table, for the timing (the training split in `--quick`).
    pub whole: Microdata,
    pub sensitive_target: &'static str,
    pub qi_target: &'static str,
    pub drop_with_qi_target: Vec<&'static str>,
    pub ls: Vec<usize>,
}

/// Adult's training split and its test split, whose income labels end in a period.
pub fn adult(ctx: &Context) -> Result<Option<Splits>> {
    let (Some(train), Some(test)) = (ctx.real_path("adult")?, ctx.real_path("adult-test")?) else {
        return Ok(None);
    };
    let schema = adult_schema()?;
    let (train, test) = (Table::read(&train, &schema)?, read_adult_test(&test, &schema)?);
    let whole = Microdata::concat(&[&train, &test])?;
    let (train, test) = (Microdata::from_table(&train)?, Microdata::from_table(&test)?);
    Ok(Some(Splits {
        label: format!("Adult: {} training tuples, {} test tuples", train.len(), test.len()),
        train,
        test,
        whole,
        sensitive_target: "occupation",
        qi_target: "education",
        drop_with_qi_target: vec!["education-num"],
        ls: vec![5, 7, 8],
    }))
}

fn adult_schema() -> Result<Schema> {
    Ok(Schema::from_path(&crate::project_root().join("datasets/adult.schema.json"))?)
}

fn read_adult_test(path: &Path, schema: &Schema) -> Result<Table> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let normalized: String =
        text.lines().map(|l| l.trim_end().trim_end_matches('.')).flat_map(|l| [l, "\n"]).collect();
    Ok(Table::read_from(normalized.as_bytes(), path, schema, false)?)
}

/// `--quick`: a generated table of Adult's shape (numbers, categories, a sensitive attribute
/// correlated with two of them), 3,000 training and 1,000 test tuples.
pub fn synthetic(seed: u64) -> Result<Splits> {
    let schema: Schema = serde_json::from_str(
        r#"{"name": "synthetic", "attributes": [
            {"name": "age", "type": "numeric", "role": "quasi_identifier"},
            {"name": "sex", "type": "categorical", "role": "quasi_identifier"},
            {"name": "education", "type": "categorical", "role": "quasi_identifier"},
            {"name": "hours", "type": "numeric", "role": "quasi_identifier"},
            {"name": "region", "type": "categorical", "role": "quasi_identifier"},
            {"name": "occupation", "type": "categorical", "role": "sensitive"}]}"#,
    )?;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut text = String::new();
    for _ in 0..4000 {
        let education: u32 = rng.random_range(0..8);
        let age = 18 + education * 3 + rng.random_range(0..40);
        let sex = if rng.random_bool(0.5) { "F" } else { "M" };
        let hours = 20 + 5 * rng.random_range(0..8);
        let region = ["north", "south", "east", "west"][rng.random_range(0..4)];
        // Occupation follows education (and a little sex) half of the time.
        let occupation = if rng.random_bool(0.5) {
            (education + u32::from(sex == "F")) % 10
        } else {
            rng.random_range(0..10)
        };
        text.push_str(&format!("{age},{sex},e{education},{hours},{region},o{occupation}\n"));
    }
    let table = Table::read_from(text.as_bytes(), Path::new("<synthetic>"), &schema, false)?;
    let all = Microdata::from_table(&table)?;
    let train: Vec<usize> = (0..3000).collect();
    let test: Vec<usize> = (3000..4000).collect();
    let train = all.rows_subset(&train);
    Ok(Splits {
        label: "synthetic: 3,000 training tuples, 1,000 test tuples".into(),
        whole: train.clone(),
        train,
        test: all.rows_subset(&test),
        sensitive_target: "occupation",
        qi_target: "education",
        drop_with_qi_target: Vec::new(),
        ls: vec![3, 5],
    })
}
