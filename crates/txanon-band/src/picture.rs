//! Pictures of sparsity patterns: people look at band matrices, they don't read them.

use std::fmt::Write as _;

/// Cells per side of a downsampled pattern: a fixed picture size whatever the matrix.
pub const CELLS: usize = 160;

const CELL_PX: usize = 2;
const SHADES: u64 = 16;

/// An SVG with one panel per `(caption, grid)`, side by side, under `title`. Each grid is a
/// square of counts (see [`Pattern::density`](crate::Pattern::density)); a cell is drawn in
/// one of 16 shades by `log(1 + count)` relative to the panel's largest cell, white when empty,
/// so the band stands out whatever the density. Runs of equal shade in a row are merged into
/// one rectangle, which keeps the file small.
pub fn sparsity_svg(title: &str, panels: &[(String, Vec<Vec<u64>>)]) -> String {
    let side = panels.first().map_or(0, |(_, g)| g.len()) * CELL_PX;
    let (margin, top, gap) = (20, 50, 30);
    let width = 2 * margin + panels.len() * side + panels.len().saturating_sub(1) * gap;
    let height = top + side + 40;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" shape-rendering="crispEdges">"#
    );
    let _ = writeln!(svg, r#"<rect width="{width}" height="{height}" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="24" font-size="15" text-anchor="middle">{}</text>"#,
        width / 2,
        escape(title)
    );
    for (k, (caption, grid)) in panels.iter().enumerate() {
        let x0 = margin + k * (side + gap);
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" font-size="12" text-anchor="middle">{}</text>"#,
            x0 + side / 2,
            top - 8,
            escape(caption)
        );
        let max = grid.iter().flatten().copied().max().unwrap_or(0);
        let scale = ((1 + max) as f64).ln().max(f64::MIN_POSITIVE);
        let shade = |c: u64| -> u64 {
            if c == 0 {
                0
            } else {
                1 + ((((1 + c) as f64).ln() / scale) * (SHADES - 1) as f64) as u64
            }
        };
        for (r, row) in grid.iter().enumerate() {
            let mut c = 0;
            while c < row.len() {
                let s = shade(row[c]);
                let start = c;
                while c < row.len() && shade(row[c]) == s {
                    c += 1;
                }
                if s > 0 {
                    let grey = 255 - (s * 255 / SHADES) as u8;
                    let _ = writeln!(
                        svg,
                        r#"<rect x="{}" y="{}" width="{}" height="{CELL_PX}" fill="rgb({grey},{grey},{})"/>"#,
                        x0 + start * CELL_PX,
                        top + r * CELL_PX,
                        (c - start) * CELL_PX,
                        grey.saturating_add(40),
                    );
                }
            }
        }
        let _ = writeln!(
            svg,
            r#"<rect x="{x0}" y="{top}" width="{side}" height="{side}" fill="none" stroke="black"/>"#
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" font-size="11" text-anchor="middle">rows and columns in the ordering; shade: log(1 + non-zeros) per cell</text>"#,
        width / 2,
        top + side + 25
    );
    svg.push_str("</svg>\n");
    svg
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
