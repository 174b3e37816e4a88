"""The result pages in a headless Chromium, offline: benchopt's page made
offline by ``python -m tools.offline_page`` draws its plots and lists the
views of config.yml, benchopt's own page does not draw them offline (the
problem solved), ``python -m tools.figures``'s page shows its figures, and
on a logistic task the view of the solvers' own y draws its curves and the
reference results as lines.

Needs Debian's ``chromium`` (``apt-get install chromium``), else skipped;
``CHROMIUM_BIN`` overrides its path.  Offline is simulated by making every
host name unresolvable.  Screenshots go to a tmp folder (printed; run with
``-s`` to see it), or to ``$PAGES_SCREENSHOTS`` if set
(e.g. ``outputs/screenshots``)."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DATA = "Simulated[n=200,m=200,dim_x=3,dim_y=5]"
ORANGE = (255, 127, 14)  # second solver's colour (plotly and matplotlib)


def chromium():
    path = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
    found = shutil.which(path)
    if found is None:
        pytest.skip(f"headless Chromium not found at {path} (CHROMIUM_BIN): "
                    "apt-get install chromium")
    return found


def browse(page, tmp, *args):
    """Open ``page`` offline in headless Chromium with ``args``; stdout."""
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp / 'chromium-profile'}",
           "--host-resolver-rules=MAP * ~NOTFOUND",  # offline
           "--virtual-time-budget=5000", "--window-size=1400,1000",
           *args, Path(page).resolve().as_uri()]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def shoot(page, tmp, name):
    """Screenshot of ``page``; the number of pixels of the solver colour
    ORANGE (a drawn curve)."""
    from PIL import Image
    keep = os.environ.get("PAGES_SCREENSHOTS")
    folder = Path(keep) if keep else tmp / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    png = folder / f"{name}.png"
    browse(page, tmp, f"--screenshot={png}")
    print(f"screenshot: {png}")
    img = np.asarray(Image.open(png).convert("RGB")).astype(int)
    return int((np.abs(img - ORANGE).sum(axis=-1) < 40).sum())


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A small benchopt run (SOBA, SABA) in a copy of the benchmark: its
    folder, results file and HTML page."""
    chromium()
    if shutil.which("benchopt") is None:
        pytest.skip("benchopt is not installed")
    tmp = tmp_path_factory.mktemp("pages")
    bench = tmp / "bench"
    skip = {".git", "outputs", "__cache__", ".pytest_cache", "data",
            "figures"}
    shutil.copytree(ROOT, bench, ignore=lambda d, names: [
        n for n in names if Path(d) == ROOT and n in skip])
    res = subprocess.run(
        ["benchopt", "run", ".", "-d", DATA, "-s", "SOBA", "-s", "SABA",
         "-n", "5", "--timeout", "10", "--no-display", "--output", "pages"],
        cwd=bench, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    page = bench / "outputs" / "benchmark_bilevel_pages.html"
    assert page.is_file()
    return tmp, bench, bench / "outputs" / "pages.parquet", page


def plots_drawn(dom):
    return (len(re.findall(r'<svg class="main-svg"', dom)),
            len(re.findall(r'<div[^>]*class="[^"]*\bjs-plotly-plot\b', dom)))


def test_offline_benchopt_page_draws_plots_and_lists_views(run):
    tmp, bench, _, page = run
    out = tmp / "offline.html"
    res = subprocess.run(
        [sys.executable, "-m", "tools.offline_page", str(page), "-o",
         str(out)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert "external assets inlined" in res.stdout
    html = out.read_text(encoding="utf-8")
    assert "plotly.min.js (tools.offline_page)" in html
    assert not re.search(r"<script[^>]*\bsrc=[\"'](https?:)?//", html)
    assert not re.search(r"<link[^>]*stylesheet[^>]*(https?:)?//", html)

    dom = browse(out, tmp, "--dump-dom")
    svgs, divs = plots_drawn(dom)
    assert svgs >= 1 and divs >= 1, "the offline page drew no plot"
    assert len(re.findall(r'class="[^"]*\bjs-line\b', dom)) >= 2  # 2 curves
    # Titles (plotly.js >= 3 needs the shim for the page's string titles).
    assert re.search(r'class="xtitle"[^>]*>Time \(s\)', dom)
    assert re.search(r'class="gtitle"', dom)
    # The page lists config.yml's views and plot kinds.
    config = yaml.safe_load((ROOT / "config.yml").read_text())
    views = re.findall(r'<span onclick="setConfig\(this\)" class="view[^"]*"'
                       r'>\s*([^<]+?)\s*<', dom)
    assert views == list(config["plot_configs"])
    kinds = re.search(r'<select id="plot_kind".*?</select>', dom, re.S)
    assert set(config["plots"]) <= set(
        re.findall(r'<option value="([^"]+)"', kinds.group(0)))
    assert shoot(out, tmp, "benchopt_offline") > 200


def test_benchopt_page_draws_no_plot_offline(run):
    """The problem tools.offline_page solves (plotly.js from a CDN)."""
    tmp, _, _, page = run
    dom = browse(page, tmp, "--dump-dom")
    assert plots_drawn(dom) == (0, 0)
    assert shoot(page, tmp, "benchopt_as_published") == 0


def test_figures_page_shows_figures_offline(run):
    tmp, _, results, _ = run
    out = tmp / "figures"
    res = subprocess.run(
        [sys.executable, "-m", "tools.figures", str(results), "--out",
         str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "MPLBACKEND": "Agg"})
    assert res.returncode == 0, res.stderr[-2000:]
    dom = browse(out / "index.html", tmp, "--dump-dom")
    assert len(re.findall(r'<img[^>]*src="data:image/png;base64,', dom)) == 1
    assert "<script" not in dom
    assert shoot(out / "index.html", tmp, "figures") > 200


# Opens a view of the page once it is loaded (as a click on its tab).
OPEN_VIEW = """<script>window.addEventListener('load', () => setTimeout(() => {
  const tab = [...document.querySelectorAll('span.view')].find(
    e => e.textContent.trim() === '%s');
  setConfig(tab);
}, 200));</script>"""
GREY = (38, 38, 38)  # the first reference line (plot_views.REFERENCE_COLORS)


def test_own_iterate_view_draws_curves_and_reference_lines(run):
    """breast_cancer (logreg): the view test_error_iterate_vs_time draws
    SOBA's and SABA's own y and the lines of x0 and of the best single
    regularisation value."""
    tmp, bench, _, _ = run
    res = subprocess.run(
        ["benchopt", "run", ".", "-d", "breast_cancer", "-s", "SOBA", "-s",
         "SABA", "-n", "4", "--timeout", "10", "--no-display", "--output",
         "own_y"], cwd=bench, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    page = bench / "outputs" / "benchmark_bilevel_own_y.html"
    out = tmp / "own_y.html"
    subprocess.run([sys.executable, "-m", "tools.offline_page", str(page),
                    "-o", str(out)], cwd=ROOT, check=True,
                   capture_output=True, timeout=60)
    html = out.read_text(encoding="utf-8")
    i = html.rindex("</body>")
    out.write_text(html[:i] + OPEN_VIEW % "test_error_iterate_vs_time"
                   + html[i:], encoding="utf-8")
    dom = browse(out, tmp, "--dump-dom")
    assert re.search(r'class="ytitle"[^>]*>test error of the solver.s own y',
                     dom)
    legend = re.findall(r'<div class="curve"[^>]*>([^<]+)<', dom)
    assert {"SOBA", "SABA", "reference: centre of the x0 draw",
            "reference: best single regularisation"} <= set(legend)
    assert len(re.findall(r'class="[^"]*\bjs-line\b', dom)) >= 4
    assert shoot(out, tmp, "own_y_view") > 200
    from PIL import Image
    folder = Path(os.environ.get("PAGES_SCREENSHOTS") or tmp / "screenshots")
    img = np.asarray(Image.open(folder / "own_y_view.png").convert("RGB"))
    assert int((np.abs(img.astype(int) - GREY).sum(axis=-1) < 20).sum()) \
        > 200  # the reference lines are drawn


MINI = """<!DOCTYPE html><html><head>
<link rel="preconnect" href="https://fonts.googleapis.com">
<link href="https://fonts.googleapis.com/css2?family=Kanit" rel="stylesheet">
<link href="https://cdn.jsdelivr.net/npm/gridjs@6.2.0/dist/theme/mermaid.min.css"
 rel="stylesheet"></head><body><div id="t"></div>
<span class="ml11"><span class="letter" style="opacity:0">B</span></span>
<script src="https://cdn.jsdelivr.net/npm/gridjs@6.2.0/dist/gridjs.umd.js">
</script>
<script src="https://cdnjs.cloudflare.com/ajax/libs/animejs/2.0.2/anime.min.js">
</script>
<script src="https://cdn.plot.ly/plotly-2.12.1.min.js"></script>
<script>
new gridjs.Grid({columns: ['solver', {name: 'x', hidden: true}, 'time'],
                 data: [['SABA', 0, 1.5]]}).render(document.getElementById('t'));
anime.timeline().add({targets: '.ml11 .letter', opacity: [0, 1]});
document.body.setAttribute('data-plotly', typeof Plotly.react);
</script></body></html>
"""


def test_make_offline_inlines_plotly_and_falls_back(tmp_path):
    from tools import offline_page as op
    assets = tmp_path / "assets"
    assets.mkdir()
    (assets / "mermaid.min.css").write_text(".gridjs-table{color:red}")
    html, report = op.make_offline(MINI, [assets])
    how = {url.rsplit("/", 1)[-1]: h.split()[0] for url, h in report}
    assert how == {"css2?family=Kanit": "dropped",
                   "mermaid.min.css": "inlined", "gridjs.umd.js": "fallback",
                   "anime.min.js": "fallback",
                   "plotly-2.12.1.min.js": "inlined"}
    assert "preconnect" not in html and "//cdn" not in html.split(
        "<body>")[0]
    assert ".gridjs-table{color:red}" in html
    assert not re.search(r"<script[^>]*\bsrc=", html)


def test_fallbacks_render_offline(tmp_path):
    from tools import offline_page as op
    page = tmp_path / "mini.html"
    page.write_text(op.make_offline(MINI)[0], encoding="utf-8")
    dom = browse(page, tmp_path, "--dump-dom")
    assert re.search(r'<table class="gridjs-table"><thead><tr>'
                     r'<th class="gridjs-th"><div class="gridjs-th-content">'
                     r'solver</div></th><th[^>]*><div[^>]*>time</div>', dom)
    assert '<td class="gridjs-td">SABA</td>' in dom
    assert 'class="letter" style="opacity: 1;"' in dom
    assert 'data-plotly="function"' in dom
