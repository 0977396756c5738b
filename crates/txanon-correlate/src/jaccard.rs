//! Jaccard similarity of item sets.

/// Jaccard similarity `|a ∩ b| / |a ∪ b|` of two sets given as strictly ascending slices; 1 when
/// both are empty (two empty records are identical). One merge pass, `O(|a| + |b|)`.
///
/// ```
/// assert_eq!(txanon_correlate::jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
/// ```
pub fn jaccard<T: Ord>(a: &[T], b: &[T]) -> f64 {
    let shared = shared_count(a, b);
    let union = a.len() + b.len() - shared;
    if union == 0 { 1.0 } else { shared as f64 / union as f64 }
}

/// `|a ∩ b|` of two sets given as strictly ascending slices, by one merge pass: Jaccard's
/// numerator, for callers that compare similarities exactly as fractions.
///
/// ```
/// assert_eq!(txanon_correlate::shared_count(&[1, 2, 3], &[2, 3, 4]), 2);
/// ```
pub fn shared_count<T: Ord>(a: &[T], b: &[T]) -> usize {
    debug_assert!(a.windows(2).all(|w| w[0] < w[1]) && b.windows(2).all(|w| w[0] < w[1]));
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

/// Jaccard distance `1 − jaccard(a, b)`.
pub fn jaccard_distance<T: Ord>(a: &[T], b: &[T]) -> f64 {
    1.0 - jaccard(a, b)
}
