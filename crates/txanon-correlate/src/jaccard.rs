//! Jaccard similarity of item sets.

/// Jaccard similarity `|a ∩ b| / |a ∪ b|` of two sets given as strictly ascending slices; 1 when
/// both are empty (two empty records are identical). One merge pass, `O(|a| + |b|)`.
///
/// ```
/// assert_eq!(txanon_correlate::jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
/// ```
pub fn jaccard<T: Ord>(a: &[T], b: &[T]) -> f64 {
    let shared = txanon_data::sets::intersection_len(a, b);
    let union = a.len() + b.len() - shared;
    if union == 0 { 1.0 } else { shared as f64 / union as f64 }
}

/// Jaccard distance `1 − jaccard(a, b)`.
pub fn jaccard_distance<T: Ord>(a: &[T], b: &[T]) -> f64 {
    1.0 - jaccard(a, b)
}
