//! SVG charts of result figures, with plotters.

use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::output::{Figure, FigureKind, Legend};

const SIZE: (u32, u32) = (900, 560);

/// Draws `figure` as SVG text (written by the caller, atomically like every result file).
pub fn draw(figure: &Figure) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        match figure.kind {
            FigureKind::Line { log_x, log_y } => lines(&root, figure, log_x, log_y)?,
            FigureKind::Bars => bars(&root, figure)?,
        }
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    Ok(svg)
}

fn bounds(figure: &Figure, pick: impl Fn(&(f64, f64)) -> f64, log: bool) -> (f64, f64) {
    let values =
        figure.series.iter().flat_map(|s| s.points.iter().map(&pick)).filter(|v| !log || *v > 0.0);
    let (lo, hi) =
        values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !lo.is_finite() {
        return (1.0, 10.0);
    }
    if log {
        (lo / 1.5, hi * 1.5)
    } else {
        let pad = ((hi - lo) * 0.05).max(1e-9);
        (if lo >= 0.0 { 0.0f64.max(lo - pad) } else { lo - pad }, hi + pad)
    }
}

fn lines(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    figure: &Figure,
    log_x: bool,
    log_y: bool,
) -> Result<()> {
    let (x0, x1) = bounds(figure, |p| p.0, log_x);
    let (y0, y1) = bounds(figure, |p| p.1, log_y);
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(&figure.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70);
    macro_rules! finish {
        ($chart:expr) => {{
            let mut chart = $chart.map_err(|e| anyhow!("{e}"))?;
            chart
                .configure_mesh()
                .x_desc(&figure.x_label)
                .y_desc(&figure.y_label)
                .draw()
                .map_err(|e| anyhow!("{e}"))?;
            for (k, s) in figure.series.iter().enumerate() {
                let color = Palette99::pick(k).to_rgba();
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .copied()
                    .filter(|p| (!log_x || p.0 > 0.0) && (!log_y || p.1 > 0.0))
                    .collect();
                chart
                    .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                    .map_err(|e| anyhow!("{e}"))?
                    .label(&s.label)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                    });
                if pts.len() <= 40 {
                    chart
                        .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                        .map_err(|e| anyhow!("{e}"))?;
                }
            }
            legend(&mut chart, figure.legend)?;
        }};
    }
    match (log_x, log_y) {
        (false, false) => finish!(builder.build_cartesian_2d(x0..x1, y0..y1)),
        (true, false) => finish!(builder.build_cartesian_2d((x0..x1).log_scale(), y0..y1)),
        (false, true) => finish!(builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale())),
        (true, true) => {
            finish!(builder.build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale()))
        }
    }
    Ok(())
}

fn bars(root: &DrawingArea<SVGBackend<'_>, Shift>, figure: &Figure) -> Result<()> {
    let n = figure.categories.len().max(1);
    let groups = figure.series.len().max(1);
    let (_, y1) = bounds(figure, |p| p.1, false);
    let mut chart = ChartBuilder::on(root)
        .caption(&figure.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(60)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..n as f64, 0f64..y1)
        .map_err(|e| anyhow!("{e}"))?;
    let categories = figure.categories.clone();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n * 2 + 1)
        .x_label_formatter(&|x| {
            let i = (*x - 0.5).round();
            if (x - 0.5 - i).abs() < 1e-6 && i >= 0.0 {
                categories.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_desc(&figure.x_label)
        .y_desc(&figure.y_label)
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    let width = 0.8 / groups as f64;
    for (k, s) in figure.series.iter().enumerate() {
        let color = Palette99::pick(k).to_rgba();
        let rects = s.points.iter().map(|&(x, y)| {
            let left = x + 0.1 + k as f64 * width;
            Rectangle::new([(left, 0.0), (left + width * 0.95, y)], color.filled())
        });
        chart
            .draw_series(rects)
            .map_err(|e| anyhow!("{e}"))?
            .label(&s.label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    legend(&mut chart, figure.legend)
}

/// The legend box, the same on every chart.
fn legend<'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    at: Legend,
) -> Result<()> {
    chart
        .configure_series_labels()
        .position(match at {
            Legend::MiddleRight => SeriesLabelPosition::MiddleRight,
            Legend::UpperLeft => SeriesLabelPosition::UpperLeft,
        })
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| anyhow!("{e}"))
}
