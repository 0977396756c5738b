//! Fuzz target: the swap audit on any original and published transaction files and any key
//! (the input's first byte picks the number of categories; the rest is split at NULs into the
//! original as FIMI, the publication as FIMI, and the key as one record number per byte, the
//! identity when absent) returns a report or typed violations, never panics, for every method.
#![no_main]

use libfuzzer_sys::fuzz_target;
use txanon_data::{Categorized, Format, ItemCategories, read_bytes};
use txanon_swap::{Method, SwapClaim, audit};

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else { return };
    let mut parts = rest.splitn(3, |&b| b == 0);
    let (Some(original), Some(published)) = (parts.next(), parts.next()) else { return };
    let Ok((original, _)) = read_bytes(original, Format::Fimi, false) else { return };
    let Ok((published, _)) = read_bytes(published, Format::Fimi, false) else { return };
    let categories = u32::from(head % 8) + 1;
    let category_of = (0..original.num_items() as u32).map(|i| i % categories).collect();
    let names = (0..categories).map(|c| format!("c{c}")).collect();
    let categories = ItemCategories::new(category_of, names);
    let Ok(categorized) = Categorized::new(&original, &categories) else { return };
    let key: Vec<u32> = match parts.next() {
        Some(bytes) if !bytes.is_empty() => bytes.iter().map(|&b| u32::from(b)).collect(),
        _ => (0..published.len() as u32).collect(),
    };
    for method in Method::ALL {
        let _ = audit(categorized, &published, &key, &SwapClaim::new(method).max_exposed(1));
    }
});
