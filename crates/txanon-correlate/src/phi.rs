//! The mean-square contingency coefficient φ², in the two forms the families use.

use rustc_hash::FxHashMap;

use crate::error::CorrelateError;

/// The anatomy paper's transaction form (its eq. 4): only the cell where both items occur,
///
/// `φ²(I₁, I₂) = (f₁₂ − f₁·f₂)² / (f₁·f₂)`,
///
/// with `f₁`, `f₂` the fractions of transactions containing each item and `f₁₂` the fraction
/// containing both. It lies in `[0, 1)`; 0 when an item is absent (`f₁·f₂ = 0`, no evidence of
/// correlation) or occurs everywhere.
///
/// ```
/// // Two items that always occur together in half of the transactions: (0.5 − 0.25)² / 0.25.
/// assert_eq!(txanon_correlate::phi2_transaction(0.5, 0.5, 0.5), 0.25);
/// ```
pub fn phi2_transaction(f1: f64, f2: f64, f12: f64) -> f64 {
    let expected = f1 * f2;
    if expected <= 0.0 {
        return 0.0;
    }
    let excess = f12 - expected;
    excess * excess / expected
}

/// The full mean-square contingency coefficient of two categorical attributes (the anatomy
/// paper's eq. 3, Cramér's φ² normalization):
///
/// `φ²(A, B) = 1 / (min(d₁, d₂) − 1) · Σᵢ Σⱼ (fᵢⱼ − fᵢ·fⱼ)² / (fᵢ·fⱼ)`,
///
/// over the `d₁` values of `A` and `d₂` values of `B` present, `fᵢ`, `fⱼ` their fractions and
/// `fᵢⱼ` the fraction of rows with both. `a[r]` and `b[r]` are row `r`'s value codes (any `u32`).
/// The double sum is computed from the non-empty cells only, through the identity
/// `Σᵢⱼ (fᵢⱼ − fᵢfⱼ)²/(fᵢfⱼ) = Σᵢⱼ fᵢⱼ²/(fᵢfⱼ) − 1`. The result lies in `[0, 1]`: 0 for
/// independent attributes, 1 when one determines the other. An attribute with a single value
/// (`min(d₁, d₂) = 1`) carries no information and gives 0; so does an empty input.
///
/// # Errors
/// [`CorrelateError::LengthMismatch`] when `a` and `b` differ in length.
pub fn phi2_contingency(a: &[u32], b: &[u32]) -> Result<f64, CorrelateError> {
    if a.len() != b.len() {
        return Err(CorrelateError::LengthMismatch {
            what: "attribute columns",
            left: a.len(),
            right: b.len(),
        });
    }
    let n = a.len() as f64;
    let mut fa: FxHashMap<u32, u64> = FxHashMap::default();
    let mut fb: FxHashMap<u32, u64> = FxHashMap::default();
    let mut cells: FxHashMap<(u32, u32), u64> = FxHashMap::default();
    for (&x, &y) in a.iter().zip(b) {
        *fa.entry(x).or_default() += 1;
        *fb.entry(y).or_default() += 1;
        *cells.entry((x, y)).or_default() += 1;
    }
    let dims = fa.len().min(fb.len());
    if dims < 2 {
        return Ok(0.0);
    }
    let sum: f64 = cells
        .iter()
        .map(|(&(x, y), &c)| {
            let (fij, fi, fj) = (c as f64 / n, fa[&x] as f64 / n, fb[&y] as f64 / n);
            fij * fij / (fi * fj)
        })
        .sum();
    Ok(((sum - 1.0) / (dims - 1) as f64).clamp(0.0, 1.0))
}
