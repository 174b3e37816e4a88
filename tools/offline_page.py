"""Make a benchopt HTML result page viewable offline.

    python -m tools.offline_page outputs/<run>.html [-o out.html]
        [--assets DIR ...]

benchopt's page (written by ``benchopt run``, ``benchopt plot`` and
``benchopt generate-results``) loads its scripts and stylesheets from the
internet: opened offline, it shows no plot.  This command writes a copy
(default ``<page>_offline.html`` beside it) in which every external
``<script src>`` and stylesheet ``<link>`` is inlined from a local file:

- plotly.js: from the ``plotly`` Python package, a dependency of benchopt
  (``plotly/package_data/plotly.min.js``; its version is the package's, not
  the one the page names, so a small shim turns the string titles the page
  passes into ``{text: ...}``, which plotly.js >= 3 requires);
- anything else (Grid.js for table views, anime.js for the logo animation,
  the Kanit web font, Grid.js's stylesheet; on benchopt's index pages
  jQuery, DataTables, Font Awesome): from a file of the same name in a
  folder given with ``--assets`` (e.g. ``npm pack gridjs@6.2.0`` unpacked),
  if any.  No pip package ships them, so without ``--assets`` they are
  replaced by small fallbacks (a plain HTML table for Grid.js, a static
  logo for anime.js) or dropped (fonts, stylesheets), and named on stderr.
  The plots draw either way.

The original page is left as it is: publish that one.  For a page of static
figures (PNG, no JavaScript) from the results file itself, use
``python -m tools.figures outputs/<run>.parquet`` (``figures/index.html``).
"""
import argparse
import re
import sys
from pathlib import Path

from tools.arguments import refuse_inputs

EXTERNAL = r"""(?:https?:)?//[^"'\s>]+"""
SCRIPT = re.compile(
    r"""<script\b[^>]*?\bsrc\s*=\s*["'](?P<url>""" + EXTERNAL
    + r""")["'][^>]*>\s*</script\s*>""", re.I | re.S)
LINK = re.compile(r"<link\b[^>]*>", re.I | re.S)
HREF = re.compile(r"""\bhref\s*=\s*["'](?P<url>""" + EXTERNAL + r""")["']""",
                  re.I)
REL = re.compile(r"""\brel\s*=\s*["']?(?P<rel>[\w -]+)""", re.I)

# plotly.js >= 3 ignores a string title (benchopt's page passes strings).
PLOTLY_TITLE_SHIM = r"""
(function () {
  if (!window.Plotly) return;
  var isAxis = /^[xy]axis\d*$|^legend$|^coloraxis$/;
  function fix(obj) {
    if (!obj || typeof obj !== 'object') return obj;
    if (typeof obj.title === 'string') obj.title = {text: obj.title};
    Object.keys(obj).forEach(function (k) {
      if (isAxis.test(k) && obj[k] && typeof obj[k] === 'object'
          && typeof obj[k].title === 'string') {
        obj[k].title = {text: obj[k].title};
      }
      var m = /^(.*\.)?title$/.exec(k);
      if (m && typeof obj[k] === 'string') {
        obj[k + '.text'] = obj[k];
        delete obj[k];
      }
    });
    return obj;
  }
  ['newPlot', 'react'].forEach(function (name) {
    var orig = Plotly[name];
    Plotly[name] = function (gd, data, layout, config) {
      if (data && typeof data === 'object' && !Array.isArray(data)) {
        fix(data.layout);
      } else {
        fix(layout);
      }
      return orig.apply(this, arguments);
    };
  });
  var relayout = Plotly.relayout;
  Plotly.relayout = function (gd, update) {
    if (typeof update === 'object') fix(update);
    return relayout.apply(this, arguments);
  };
})();
"""

# Grid.js is only used by table views: without it, a plain table.
GRIDJS_FALLBACK = r"""
/* offline fallback for Grid.js: a plain table, no sort or search */
window.gridjs = window.gridjs || (function () {
  function html(s) { return {__html: String(s)}; }
  function esc(s) {
    var d = document.createElement('div');
    d.textContent = s == null ? '' : String(s);
    return d.innerHTML;
  }
  function cell(col, v, row) {
    if (col && col.formatter) v = col.formatter(v, row, col);
    return v && v.__html !== undefined ? v.__html : esc(v);
  }
  function Grid(config) { this.config = config || {}; this.ev = {}; }
  Grid.prototype.updateConfig = function (c) {
    for (var k in c) this.config[k] = c[k];
    return this;
  };
  Grid.prototype.on = function (e, cb) {
    (this.ev[e] = this.ev[e] || []).push(cb);
    return this;
  };
  Grid.prototype.render = function (el) {
    this.el = el;
    var cols = (this.config.columns || []).map(function (c) {
      return typeof c === 'string' ? {name: c} : c;
    });
    var keep = [];
    cols.forEach(function (c, i) { if (!c.hidden) keep.push(i); });
    var h = '<div class="gridjs-container"><table class="gridjs-table">'
      + '<thead><tr>';
    keep.forEach(function (i) {
      h += '<th class="gridjs-th"><div class="gridjs-th-content">'
        + esc(cols[i].name) + '</div></th>';
    });
    h += '</tr></thead><tbody>';
    (this.config.data || []).forEach(function (row) {
      h += '<tr class="gridjs-tr">';
      keep.forEach(function (i) {
        h += '<td class="gridjs-td">' + cell(cols[i], row[i], row) + '</td>';
      });
      h += '</tr>';
    });
    el.innerHTML = h + '</tbody></table></div>';
    (this.ev.ready || []).forEach(function (cb) { cb(); });
    return this;
  };
  Grid.prototype.forceRender = function () {
    return this.el ? this.render(this.el) : this;
  };
  return {Grid: Grid, html: html};
})();
"""

# anime.js only animates the logo: without it, show its final state.
ANIME_FALLBACK = r"""
/* offline fallback for anime.js: jump to each step's final state */
window.anime = window.anime || (function () {
  function last(v) { return Array.isArray(v) ? v[v.length - 1] : v; }
  function step(o) {
    var els = typeof o.targets === 'string'
      ? document.querySelectorAll(o.targets) : [].concat(o.targets || []);
    var t = [];
    if (o.translateX !== undefined) t.push(
      'translateX(' + last(o.translateX) + 'px)');
    if (o.scaleY !== undefined) t.push('scaleY(' + last(o.scaleY) + ')');
    [].forEach.call(els, function (el) {
      if (o.opacity !== undefined) el.style.opacity = last(o.opacity);
      if (t.length) el.style.transform = t.join(' ');
    });
  }
  function anime(o) { step(o); return {}; }
  anime.timeline = function () {
    var tl = {add: function (o) { step(o); return tl; }};
    return tl;
  };
  return anime;
})();
"""

FALLBACKS = {"gridjs": GRIDJS_FALLBACK, "anime": ANIME_FALLBACK}


def plotly_js():
    """Path of the plotly.js bundled with the ``plotly`` package, or None."""
    try:
        import plotly
    except ImportError:
        return None
    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    return path if path.is_file() else None


def basename(url):
    return url.split("?")[0].split("#")[0].rstrip("/").rsplit("/", 1)[-1]


def local_copy(url, assets):
    """A local file for ``url``: same file name in an ``--assets`` folder
    (searched recursively), else plotly.js from the plotly package."""
    name = basename(url)
    for folder in assets:
        folder = Path(folder)
        if name and (folder / name).is_file():
            return folder / name
        found = sorted(folder.rglob(name)) if name else []
        if found:
            return found[0]
    if re.search(r"plotly[^/]*\.js$", name) or "cdn.plot.ly" in url:
        return plotly_js()
    return None


def script_tag(code, note):
    return (f"<script>/* {note} (tools.offline_page) */\n"
            + code.replace("</script", "<\\/script") + "\n</script>")


def make_offline(page, assets=()):
    """Return (offline page text, report) where report lists
    ``(url, how)`` with how one of 'inlined <path>', 'fallback', 'dropped'.
    """
    report = []

    def script(m):
        url = m.group("url")
        path = local_copy(url, assets)
        if path is not None:
            report.append((url, f"inlined {path}"))
            code = path.read_text(encoding="utf-8")
            if "plotly" in path.name:
                code += "\n" + PLOTLY_TITLE_SHIM
            return script_tag(code, f"{basename(url)} from {path.name}")
        for key, code in FALLBACKS.items():
            if key in basename(url).lower():
                report.append((url, "fallback"))
                return script_tag(code, f"offline fallback for {url}")
        report.append((url, "dropped"))
        return f"<!-- offline: dropped script {url} -->"

    def link(m):
        tag = m.group(0)
        href, rel = HREF.search(tag), REL.search(tag)
        if href is None or rel is None:
            return tag
        url, rel = href.group("url"), rel.group("rel").lower()
        if "stylesheet" not in rel:  # preconnect, dns-prefetch, ...
            if "preconnect" in rel or "prefetch" in rel:
                return ""
            return tag
        path = local_copy(url, assets)
        if path is not None:
            report.append((url, f"inlined {path}"))
            css = path.read_text(encoding="utf-8").replace("</style",
                                                           "<\\/style")
            return f"<style>/* {basename(url)} */\n{css}\n</style>"
        report.append((url, "dropped"))
        return f"<!-- offline: dropped stylesheet {url} -->"

    out = SCRIPT.sub(script, page)
    out = LINK.sub(link, out)
    return out, report


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m tools.offline_page",
        description=__doc__.split("\n\n")[0])
    p.add_argument("page", help="benchopt HTML page (outputs/*.html)")
    p.add_argument("-o", "--output",
                   help="offline page to write (default <page>_offline.html)")
    p.add_argument("--assets", action="append", default=[],
                   help="folder with local copies of other assets (file "
                        "names as in the page's URLs); repeatable")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    src = Path(args.page)
    if not src.is_file():
        p.error(f"no such page: {src}")
    for folder in args.assets:
        if not Path(folder).is_dir():
            p.error(f"no such assets folder: {folder}")
    out = Path(args.output) if args.output else \
        src.with_name(src.stem + "_offline.html")
    refuse_inputs(p, {"--output": out}, {"the page": src})
    page, report = make_offline(src.read_text(encoding="utf-8"), args.assets)
    if plotly_js() is None and any("plotly" in u for u, _ in report):
        print("warning: the plotly package is not installed: the plots "
              "will not draw (pip install plotly)", file=sys.stderr)
    for url, how in report:
        if how != "fallback" and not how.startswith("inlined"):
            print(f"not found locally, {how}: {url}", file=sys.stderr)
        elif how == "fallback":
            print(f"not found locally, replaced by a fallback: {url}",
                  file=sys.stderr)
    out.write_text(page, encoding="utf-8")
    n = sum(how.startswith("inlined") for _, how in report)
    print(f"{out}: {n} of {len(report)} external assets inlined")
    return 0


if __name__ == "__main__":
    sys.exit(main())
