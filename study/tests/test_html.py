"""study.html: the study's pages as a static site that opens offline:
every page written, its figures embedded, its links between pages and
to their sections resolved in the site, no Markdown or marker left, each
comparison's benchopt result page linked where outputs/ holds one and
said missing where not; and, in a headless Chromium with every host
unresolvable, each page draws its images and loads nothing over
http(s).

The Chromium part needs Debian's ``chromium`` (``apt-get install
chromium``), else it is skipped; ``CHROMIUM_BIN`` overrides its path."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from study import html as study_html
from study import page as study_page

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(study_html.SITE.values())


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    study_html.render(out)
    return out


def _html(site, name):
    return (site / name).read_text(encoding="utf-8")


def test_every_page_is_written_self_contained(site):
    assert sorted(p.name for p in site.glob("*.html")) == FILES
    for name in FILES:
        text = _html(site, name)
        # no resource from anywhere: images are data, no script, no sheet
        assert not re.search(r"<(script|link|iframe)\b", text), name
        srcs = re.findall(r'\bsrc="([^"]*)"', text)
        assert srcs == [s for s in srcs if s.startswith("data:image/")]
        # nothing of the Markdown source left
        assert "<!--" not in text and "](" not in text, name
        assert "**" not in text and "\x00" not in text, name


def test_the_figures_are_embedded(site):
    index = _html(site, "index.html")
    assert len(re.findall(r'<img [^>]*src="data:image/png;base64,',
                          index)) == 1
    results = _html(site, "results.html")
    pngs = len(re.findall(r"\]\(figures/[^)]+\.png\)",
                          (ROOT / "study/results.md").read_text()))
    assert pngs and len(re.findall(r'src="data:image/png;base64,',
                                   results)) == pngs


def test_links_between_pages_and_sections_resolve(site):
    ids = {name: set(re.findall(r'\bid="([^"]+)"', _html(site, name)))
           for name in FILES}
    seen = 0
    for name in FILES:
        for href in re.findall(r'<a href="([^"]+)"', _html(site, name)):
            if href.startswith(("http://", "https://")):
                continue
            target, _, anchor = href.partition("#")
            target = target or name
            assert (site / target).is_file(), f"{name}: {href}"
            if anchor and target.endswith(".html"):
                assert anchor in ids[target], f"{name}: {href}"
            seen += 1
    assert seen > 5
    # a link to a page of the repository outside the site shows its path
    assert "<code>docs/comparisons.md</code>" in _html(site, "protocol.html")


def test_facts_keep_their_values_and_name_their_function(site):
    text = (ROOT / "study/README.md").read_text()
    spec, value = next((s, v) for _, s, v in study_page.facts(text))
    assert re.search(r'<span class="fact" title="[^"]*">'
                     + re.escape(value) + "</span>",
                     _html(site, "index.html"))
    assert spec.split()[0] in _html(site, "index.html")


def test_each_comparison_says_where_its_benchopt_page_is(site, tmp_path,
                                                         monkeypatch):
    results = _html(site, "results.html")
    stems = sorted({Path(w).stem for _, _, c in study_page.blocks(
        (ROOT / "study/results.md").read_text().splitlines())
        if "study.table" in c for w in c.split() if w.endswith(".parquet")})
    assert "study_digits" in stems
    for stem in stems:
        if not (study_html.OUTPUTS / f"benchmark_bilevel_{stem}.html"
                ).is_file():
            assert (f"benchopt's result page of <code>{stem}</code>: none"
                    in results), stem
    # where outputs/ holds one, it is copied offline and linked
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / "benchmark_bilevel_study_digits.html").write_text(
        "<!DOCTYPE html><html><body><p>a run</p></body></html>")
    monkeypatch.setattr(study_html, "OUTPUTS", outputs)
    out = tmp_path / "site"
    study_html.render(out, pages=("study/results.md",))
    text = _html(out, "results.html")
    assert '<a href="runs/study_digits.html">' in text
    assert "a run" in (out / "runs" / "study_digits.html").read_text()
    assert "result page of <code>study_wine</code>: none" in text


def test_the_command_writes_the_site(tmp_path, capsys):
    assert study_html.main([str(tmp_path / "out")]) == 0
    assert "index.html" in capsys.readouterr().out
    assert (tmp_path / "out" / "claims.yml").is_file()


# ------------------------------------------------------------- in Chromium

# Once the page has loaded: every resource it fetched, and each image's
# decoded width, written into the page for --dump-dom to show.
PROBE = """<script>window.addEventListener('load', () => {
  const out = {resources: performance.getEntriesByType('resource')
                 .map(e => e.name),
               images: [...document.images].map(i => i.naturalWidth),
               tables: document.querySelectorAll('table').length,
               headings: document.querySelectorAll('h1, h2').length};
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});</script>"""


def chromium():
    path = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
    found = shutil.which(path)
    if found is None:
        pytest.skip(f"headless Chromium not found at {path} (CHROMIUM_BIN): "
                    "apt-get install chromium")
    return found


def browse(page, tmp):
    """The DOM of ``page`` opened offline in headless Chromium."""
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp / 'chromium-profile'}",
           "--host-resolver-rules=MAP * ~NOTFOUND",  # offline
           "--virtual-time-budget=5000", "--window-size=1400,1000",
           "--dump-dom", Path(page).resolve().as_uri()]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


@pytest.mark.parametrize("name", FILES)
def test_each_page_opens_offline_and_loads_nothing_over_http(
        site, tmp_path, name):
    chromium()
    probed = tmp_path / name
    text = _html(site, name)
    probed.write_text(text.replace("</body>", PROBE + "</body>"),
                      encoding="utf-8")
    dom = browse(probed, tmp_path)
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, "the page did not finish loading"
    seen = json.loads(found.group(1).replace("&quot;", '"')
                      .replace("&amp;", "&"))
    assert not [r for r in seen["resources"]
                if r.startswith(("http:", "https:"))], seen["resources"]
    assert seen["images"] == [w for w in seen["images"] if w > 100]
    assert len(seen["images"]) == text.count("<img ")
    assert seen["headings"] >= 2
    assert seen["tables"] == text.count("<table>")
