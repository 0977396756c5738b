"""The evaluation's report in a real browser: headless Chromium driven through WebDriver
(chromedriver), on a desktop (1400 px) and a phone (390 px).

What is checked is what a reader sees: the page never scrolls sideways; every chart fits the
screen; no two texts of a chart overlap (tick labels, axis names, point labels, the legend), and
no point label covers a marker, as the browser lays them out with its own fonts; the legend
names each series that has points, with the marker its points use; the decision comes first.
Screenshots go to target/report-screenshots/ for a person to look at.

Without Chromium or chromedriver the tests skip with the reason, and fail when ``CI=true``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import REPO, run_cli, unavailable

WIDTHS = {"desktop": 1400, "phone": 390}

# Every text's box in page pixels, per chart, and each point label against each marker.
LAYOUT = """
const charts = [];
for (const svg of document.querySelectorAll('figure svg')) {
  const box = (e) => { const r = e.getBoundingClientRect();
                       return {x0: r.left, y0: r.top, x1: r.right, y1: r.bottom}; };
  const texts = [...svg.querySelectorAll('text')].map(t => ({text: t.textContent, ...box(t)}));
  const markers = [...svg.querySelectorAll('g.point')].map(g => ({...box(g.children[1]),
      tag: g.children[1].tagName, colour: g.children[1].getAttribute('fill')}));
  const labels = [...svg.querySelectorAll('g.point text.label')]
      .map(t => ({text: t.textContent, ...box(t)}));
  const legend = [...svg.querySelectorAll('g.legend')].map(g => ({tag: g.children[0].tagName,
      colour: g.children[0].getAttribute('fill'), name: g.children[1].textContent}));
  charts.push({svg: box(svg), texts, markers, labels, legend});
}
const first = document.querySelector('h1');
let next = first.nextElementSibling;
while (next && next.tagName !== 'P') { next = next.querySelector('p') || next.nextElementSibling; }
return {charts, scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
        heading: first.textContent, firstParagraph: next ? next.textContent : null,
        decisionTop: document.getElementById('decision').getBoundingClientRect().top};
"""


def overlap(a: dict, b: dict, slack: float = 0.5) -> bool:
    return (
        a["x0"] + slack < b["x1"]
        and b["x0"] + slack < a["x1"]
        and a["y0"] + slack < b["y1"]
        and b["y0"] + slack < a["y1"]
    )


@pytest.fixture(scope="module")
def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        unavailable("selenium is not installed (pip install selenium)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        unavailable(
            "no Chromium or chromedriver (Debian: apt-get install chromium chromium-driver)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    # Headless as root in a closed network: no sandbox, nothing fetched in the background.
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def report(quest: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An evaluation with a decision, every method, two levels and two numbers of known items."""
    out = tmp_path_factory.mktemp("report") / "evaluation"
    run_cli(
        "evaluate",
        quest,
        "--sensitive-random",
        "5",
        "--levels",
        "2,4",
        "--known",
        "1,2",
        "--random-categories",
        "5",
        "--threat",
        "reidentification",
        "--max-risk",
        "0.2",
        "--seed",
        "1",
        "-o",
        out,
    )
    return out / "report.html"


@pytest.mark.parametrize("device", sorted(WIDTHS))
def test_the_report_reads_on_a_desktop_and_a_phone(browser, report, device):
    width = WIDTHS[device]
    browser.set_window_rect(width=width, height=900)
    browser.get(report.as_uri())
    # The window's outer width includes nothing sideways in headless mode; the page decides.
    layout = browser.execute_script(LAYOUT)
    shots = REPO / "target" / "report-screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_rect(width=width, height=min(height, 16000))
    browser.save_screenshot(str(shots / f"report-{device}-{width}px.png"))

    assert layout["scrollWidth"] <= layout["innerWidth"], (
        f"{device}: the page scrolls sideways ({layout['scrollWidth']} > {layout['innerWidth']})"
    )
    # The decision is the first heading's paragraph, on the first screen.
    decided = json.loads((report.parent / "results.json").read_text())["decision"]["text"]
    assert layout["heading"] == "Which publication of quest.dat to make"
    assert layout["firstParagraph"] == decided
    assert layout["decisionTop"] < 400
    charts = layout["charts"]
    assert len(charts) >= 2 * 3, "a chart per number of known items and the workload's, per threat"
    labelled = checked = 0
    for n, chart in enumerate(charts):
        assert chart["svg"]["x1"] <= layout["innerWidth"] + 0.5, f"chart {n} wider than the screen"
        texts = chart["texts"]
        for i, a in enumerate(texts):
            for b in texts[i + 1 :]:
                assert not overlap(a, b), (
                    f"{device}, chart {n}: {a['text']!r} overlaps {b['text']!r}"
                )
        for label in chart["labels"]:
            labelled += 1
            for marker in chart["markers"]:
                assert not overlap(label, marker, slack=1.0), (
                    f"{device}, chart {n}: the label {label['text']!r} covers a marker"
                )
        # The legend: one entry per series with points, drawn with the points' own marker.
        drawn = {(m["tag"], m["colour"]) for m in chart["markers"]}
        legend = {(e["tag"], e["colour"]) for e in chart["legend"]}
        assert legend == drawn, (
            f"{device}, chart {n}: legend {chart['legend']} against points {drawn}"
        )
        checked += len(texts) * (len(texts) - 1) // 2
    # The charts hold enough to have collided: every point is labelled or named in a caption.
    assert labelled >= 10 and checked > 1000, (labelled, checked)
