//! One scatter chart as inline SVG that stays readable: sized to its container (a `viewBox`,
//! no fixed width), a legend under the plot listing only the series that have points, with the
//! markers the points use, and point labels placed so that none overlaps another label or a
//! marker ([`place_labels`]). A label that finds no free place is left out of the drawing and
//! named in the chart's caption instead; every point keeps its full description as a tooltip.

use std::fmt::Write;

use crate::report::escape;

/// Width of the drawing in its own units; the page scales it to the column (360 to 1600 px).
pub(crate) const WIDTH: f64 = 520.0;
const PLOT_HEIGHT: f64 = 320.0;
const LEFT: f64 = 58.0;
const RIGHT: f64 = 14.0;
const TOP: f64 = 12.0;
const AXIS_BAND: f64 = 46.0;
const FONT: f64 = 13.0;
/// Half the side of a marker's box.
const MARKER: f64 = 5.0;

/// The shape of a series' points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    Circle,
    Square,
    Diamond,
}

/// A point: where it is in data units, its short label and its tooltip.
#[derive(Debug, Clone)]
pub(crate) struct ChartPoint {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) label: String,
    pub(crate) title: String,
}

/// Points drawn alike, named once in the legend.
#[derive(Debug, Clone)]
pub(crate) struct Series {
    pub(crate) name: String,
    pub(crate) marker: Marker,
    pub(crate) colour: &'static str,
    pub(crate) points: Vec<ChartPoint>,
}

/// An axis from `lo` to `hi` in data units, with its name (unit and direction included).
#[derive(Debug, Clone)]
pub(crate) struct Axis {
    pub(crate) name: String,
    pub(crate) lo: f64,
    pub(crate) hi: f64,
}

/// A chart: axes, series, and the accessible name of the figure.
#[derive(Debug, Clone)]
pub(crate) struct Chart {
    pub(crate) name: String,
    pub(crate) x: Axis,
    pub(crate) y: Axis,
    pub(crate) series: Vec<Series>,
}

/// An axis-aligned box in drawing units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rect {
    pub(crate) x0: f64,
    pub(crate) y0: f64,
    pub(crate) x1: f64,
    pub(crate) y1: f64,
}

impl Rect {
    pub(crate) fn overlaps(&self, other: &Rect) -> bool {
        self.x0 < other.x1 && other.x0 < self.x1 && self.y0 < other.y1 && other.y0 < self.y1
    }

    fn inside(&self, bounds: &Rect) -> bool {
        self.x0 >= bounds.x0 && self.x1 <= bounds.x1 && self.y0 >= bounds.y0 && self.y1 <= bounds.y1
    }
}

/// Where a label went: its box (the text's baseline is `y1 - 2`), and whether it is far enough
/// from its point to need a leader line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Placed {
    pub(crate) rect: Rect,
    pub(crate) leader: bool,
}

/// A label's box for `text` at `font` size: a generous estimate of a sans-serif face's advance
/// (0.62 em per character, 2 units of padding), so that real fonts fit inside it.
pub(crate) fn label_size(text: &str, font: f64) -> (f64, f64) {
    (text.chars().count() as f64 * font * 0.62 + 4.0, font + 3.0)
}

/// Places each label beside its point (`anchors`, drawing units) so that no two labels
/// overlap, no label covers a marker, and every label stays inside `bounds`: the positions
/// around the point are tried nearest first (right, left, above, below, then the diagonals, at
/// growing distances); a label with no free position is `None`. Points are placed in order of
/// how crowded they are, the most crowded first, so that a cluster's labels fan out before the
/// free points take the space around it.
pub(crate) fn place_labels(
    anchors: &[(f64, f64)],
    labels: &[String],
    font: f64,
    bounds: Rect,
) -> Vec<Option<Placed>> {
    let markers: Vec<Rect> = anchors
        .iter()
        .map(|&(x, y)| Rect { x0: x - MARKER, y0: y - MARKER, x1: x + MARKER, y1: y + MARKER })
        .collect();
    let crowd = |i: usize| {
        anchors.iter().filter(|&&(x, y)| (x - anchors[i].0).hypot(y - anchors[i].1) < 40.0).count()
    };
    let mut order: Vec<usize> = (0..anchors.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(crowd(i)), i));
    let mut taken: Vec<Rect> = Vec::new();
    let mut placed = vec![None; anchors.len()];
    for i in order {
        let (w, h) = label_size(&labels[i], font);
        let (x, y) = anchors[i];
        let mut found = None;
        'search: for distance in [3.0, 10.0, 20.0, 32.0, 46.0, 62.0] {
            let gap = MARKER + distance;
            // (left edge, top edge) of each position around the point.
            let candidates = [
                (x + gap, y - h / 2.0),
                (x - gap - w, y - h / 2.0),
                (x - w / 2.0, y - gap - h),
                (x - w / 2.0, y + gap),
                (x + gap, y - gap - h),
                (x - gap - w, y - gap - h),
                (x + gap, y + gap),
                (x - gap - w, y + gap),
            ];
            for (x0, y0) in candidates {
                let rect = Rect { x0, y0, x1: x0 + w, y1: y0 + h };
                if rect.inside(&bounds)
                    && !taken.iter().any(|t| t.overlaps(&rect))
                    && !markers.iter().any(|m| m.overlaps(&rect))
                {
                    found = Some(Placed { rect, leader: distance > 10.0 });
                    break 'search;
                }
            }
        }
        if let Some(p) = found {
            taken.push(p.rect);
        }
        placed[i] = found;
    }
    placed
}

fn marker_svg(marker: Marker, colour: &str, cx: f64, cy: f64) -> String {
    match marker {
        Marker::Circle => format!(
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{MARKER}\" fill=\"{colour}\" fill-opacity=\"0.85\"/>"
        ),
        Marker::Square => format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{}\" height=\"{}\" fill=\"{colour}\"/>",
            cx - MARKER + 0.5,
            cy - MARKER + 0.5,
            2.0 * MARKER - 1.0,
            2.0 * MARKER - 1.0
        ),
        Marker::Diamond => format!(
            "<path d=\"M{cx:.1} {:.1}L{:.1} {cy:.1}L{cx:.1} {:.1}L{:.1} {cy:.1}Z\" fill=\"{colour}\"/>",
            cy - MARKER - 1.0,
            cx + MARKER + 1.0,
            cy + MARKER + 1.0,
            cx - MARKER - 1.0
        ),
    }
}

fn tick(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-0" { "0".into() } else { s.to_string() }
}

impl Chart {
    /// The chart as an SVG element, and the labels it could not place (for the caption).
    pub(crate) fn svg(&self) -> (String, Vec<String>) {
        let shown: Vec<&Series> = self.series.iter().filter(|s| !s.points.is_empty()).collect();
        // The legend under the plot, in rows that wrap at the drawing's width.
        let mut legend: Vec<(f64, f64, &Series)> = Vec::new();
        let (mut lx, mut ly) = (LEFT, TOP + PLOT_HEIGHT + AXIS_BAND + 8.0);
        for s in &shown {
            let width = 2.0 * MARKER + 6.0 + label_size(&s.name, FONT).0 + 10.0;
            if lx + width > WIDTH - RIGHT && lx > LEFT {
                lx = LEFT;
                ly += 18.0;
            }
            legend.push((lx, ly, s));
            lx += width;
        }
        let height = if legend.is_empty() { ly } else { ly + 14.0 };
        let plot = Rect { x0: LEFT, y0: TOP, x1: WIDTH - RIGHT, y1: TOP + PLOT_HEIGHT };
        let span = |a: &Axis| if a.hi > a.lo { a.hi - a.lo } else { 1.0 };
        let px = |v: f64| {
            plot.x0 + ((v - self.x.lo) / span(&self.x)).clamp(0.0, 1.0) * (plot.x1 - plot.x0)
        };
        let py = |v: f64| {
            plot.y1 - ((v - self.y.lo) / span(&self.y)).clamp(0.0, 1.0) * (plot.y1 - plot.y0)
        };
        let mut s = String::new();
        let _ = write!(
            s,
            "<svg viewBox=\"0 0 {WIDTH} {height:.0}\" width=\"100%\" preserveAspectRatio=\"xMinYMin meet\" \
             role=\"img\" aria-label=\"{}\" font-family=\"sans-serif\">\
             <rect x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{height:.0}\" fill=\"#ffffff\"/>",
            escape(&self.name)
        );
        for k in 0..=4 {
            let f = f64::from(k) / 4.0;
            let (vx, vy) = (self.x.lo + f * span(&self.x), self.y.lo + f * span(&self.y));
            let _ = write!(
                s,
                "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#e3e3e3\"/>\
                 <line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#e3e3e3\"/>\
                 <text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"{FONT}\" text-anchor=\"middle\">{}</text>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{FONT}\" text-anchor=\"end\">{}</text>",
                plot.y0,
                plot.y1,
                plot.x0,
                plot.x1,
                plot.y1 + 16.0,
                tick(vx),
                plot.x0 - 5.0,
                py(vy) + 4.0,
                tick(vy),
                x = px(vx),
                y = py(vy),
            );
        }
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{}\" text-anchor=\"middle\">{}</text>\
             <text x=\"14\" y=\"{:.1}\" font-size=\"{}\" text-anchor=\"middle\" \
             transform=\"rotate(-90 14 {:.1})\">{}</text>",
            (plot.x0 + plot.x1) / 2.0,
            plot.y1 + 36.0,
            FONT,
            escape(&self.x.name),
            (plot.y0 + plot.y1) / 2.0,
            FONT,
            (plot.y0 + plot.y1) / 2.0,
            escape(&self.y.name),
        );
        let all: Vec<(&Series, &ChartPoint)> =
            shown.iter().flat_map(|s| s.points.iter().map(move |p| (*s, p))).collect();
        let anchors: Vec<(f64, f64)> = all.iter().map(|(_, p)| (px(p.x), py(p.y))).collect();
        let labels: Vec<String> = all.iter().map(|(_, p)| p.label.clone()).collect();
        let placed = place_labels(&anchors, &labels, FONT - 1.0, plot);
        let mut unplaced = Vec::new();
        for (((series, p), &(cx, cy)), place) in all.iter().zip(&anchors).zip(&placed) {
            let _ = write!(
                s,
                "<g class=\"point\"><title>{}</title>{}",
                escape(&p.title),
                marker_svg(series.marker, series.colour, cx, cy)
            );
            match place {
                Some(Placed { rect, leader }) => {
                    if *leader {
                        let (tx, ty) = (
                            cx.clamp(rect.x0, rect.x1),
                            if cy < rect.y0 {
                                rect.y0
                            } else if cy > rect.y1 {
                                rect.y1
                            } else {
                                (rect.y0 + rect.y1) / 2.0
                            },
                        );
                        let _ = write!(
                            s,
                            "<line x1=\"{cx:.1}\" y1=\"{cy:.1}\" x2=\"{tx:.1}\" y2=\"{ty:.1}\" \
                             stroke=\"{}\" stroke-width=\"0.6\"/>",
                            series.colour
                        );
                    }
                    let _ = write!(
                        s,
                        "<text class=\"label\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"{}\" fill=\"{}\">{}</text>",
                        rect.x0 + 2.0,
                        rect.y1 - 3.0,
                        FONT - 1.0,
                        series.colour,
                        escape(&p.label)
                    );
                }
                None => unplaced.push(p.label.clone()),
            }
            s.push_str("</g>");
        }
        for (x, y, series) in &legend {
            let _ = write!(
                s,
                "<g class=\"legend\">{}<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{FONT}\">{}</text></g>",
                marker_svg(series.marker, series.colour, x + MARKER, *y),
                x + 2.0 * MARKER + 5.0,
                y + 4.0,
                escape(&series.name)
            );
        }
        s.push_str("</svg>");
        (s, unplaced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: Rect = Rect { x0: 0.0, y0: 0.0, x1: 400.0, y1: 300.0 };

    fn check(anchors: &[(f64, f64)], labels: &[String], placed: &[Option<Placed>]) -> usize {
        let markers: Vec<Rect> = anchors
            .iter()
            .map(|&(x, y)| Rect { x0: x - MARKER, y0: y - MARKER, x1: x + MARKER, y1: y + MARKER })
            .collect();
        let rects: Vec<(usize, Rect)> =
            placed.iter().enumerate().filter_map(|(i, p)| p.map(|p| (i, p.rect))).collect();
        for (i, a) in &rects {
            assert!(a.inside(&BOUNDS), "{} outside: {a:?}", labels[*i]);
            let (w, h) = label_size(&labels[*i], 10.0);
            assert!((a.x1 - a.x0 - w).abs() < 1e-9 && (a.y1 - a.y0 - h).abs() < 1e-9);
            for m in &markers {
                assert!(!a.overlaps(m), "{} covers a marker", labels[*i]);
            }
            for (j, b) in &rects {
                assert!(i == j || !a.overlaps(b), "{} and {} overlap", labels[*i], labels[*j]);
            }
        }
        rects.len()
    }

    /// The report's worst case: the original, the sensitive items removed and CAHD at three
    /// levels on one spot, with coherence's levels beside them.
    #[test]
    fn crowded_labels_neither_overlap_nor_cover_markers() {
        let labels: Vec<String> =
            ["original", "no sensitive", "cahd 4", "cahd 8", "cahd 16", "coh 8", "coh 16", "coh 4"]
                .map(String::from)
                .to_vec();
        let anchors = [
            (380.0, 40.0),
            (380.5, 40.2),
            (381.0, 40.0),
            (379.6, 39.8),
            (380.2, 40.6),
            (300.0, 200.0),
            (302.0, 201.0),
            (305.0, 199.0),
        ];
        let placed = place_labels(&anchors, &labels, 10.0, BOUNDS);
        assert_eq!(check(&anchors, &labels, &placed), labels.len(), "{placed:?}");
        // Near the right edge, a label goes left of its point.
        assert!(placed[0].unwrap().rect.x1 <= 400.0);
        // "8" and "16" of one method cannot run together into "816".
        let (a, b) = (placed[5].unwrap().rect, placed[6].unwrap().rect);
        assert!(!a.overlaps(&b));
    }

    /// Twenty points on one spot cannot all be labelled in the space around it: the placed
    /// ones still never overlap, the others are reported, and a lone point is labelled right
    /// next to itself.
    #[test]
    fn labels_without_room_are_left_out_never_overlapped() {
        let labels: Vec<String> = (0..40).map(|i| format!("method {i}")).collect();
        let mut anchors: Vec<(f64, f64)> =
            (0..39).map(|i| (200.0 + f64::from(i % 3), 150.0)).collect();
        anchors.push((30.0, 280.0));
        let placed = place_labels(&anchors, &labels, 10.0, BOUNDS);
        let shown = check(&anchors, &labels, &placed);
        assert!(shown > 10 && shown < 40, "{shown} placed");
        let lone = placed[39].expect("a lone point is labelled");
        assert!(!lone.leader && lone.rect.x0 - 30.0 < MARKER + 4.0, "{lone:?}");
    }

    #[test]
    fn the_legend_names_only_series_with_points_with_their_markers() {
        let point = |x: f64| ChartPoint { x, y: 0.5, label: "p".into(), title: "p".into() };
        let chart = Chart {
            name: "test".into(),
            x: Axis { name: "x".into(), lo: 0.0, hi: 1.0 },
            y: Axis { name: "y".into(), lo: 0.0, hi: 1.0 },
            series: vec![
                Series {
                    name: "original".into(),
                    marker: Marker::Square,
                    colour: "#000000",
                    points: vec![point(0.9)],
                },
                Series {
                    name: "anatomy".into(),
                    marker: Marker::Circle,
                    colour: "#1b9e77",
                    points: vec![],
                },
                Series {
                    name: "no sensitive".into(),
                    marker: Marker::Diamond,
                    colour: "#999999",
                    points: vec![point(0.2)],
                },
            ],
        };
        let (svg, unplaced) = chart.svg();
        assert!(unplaced.is_empty());
        assert!(!svg.contains(">anatomy<"), "an empty series is not in the legend");
        let legend: Vec<&str> = svg.split("<g class=\"legend\">").skip(1).collect();
        assert_eq!(legend.len(), 2);
        assert!(legend[0].starts_with("<rect") && legend[0].contains(">original<"));
        assert!(legend[1].starts_with("<path") && legend[1].contains(">no sensitive<"));
        assert!(svg.starts_with("<svg viewBox=\"0 0 520 ") && svg.contains("width=\"100%\""));
        assert!(!svg.contains("height=\"380\""));
    }
}
