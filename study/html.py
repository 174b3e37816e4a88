"""The study's pages as a static site: one self-contained HTML file per
page, ready to publish, that loads nothing from the network.

    python -m study.html OUTDIR [--check]

writes ``OUTDIR/index.html`` (study/README.md), ``protocol.html`` and
``results.html`` (``study.page.PAGES``), with

- the Markdown the pages use rendered here (headings with GitHub's
  anchors, paragraphs, lists, tables, code, emphasis, links, images): no
  dependency;
- the figures embedded (``data:`` URIs), a generated block's markers
  and an inline fact's function left out (a fact's function shows on
  hover);
- the links between the pages rewritten to the HTML files, the files of
  the study they link to (``claims.yml``) copied beside them, and a link
  to any other file of the repository shown as its path;
- below each comparison table (``study.table``), the benchopt result
  page of each of its comparisons, where ``outputs/`` holds one
  (``benchmark_bilevel_<output>.html``, made offline by
  ``tools.offline_page`` and copied to ``OUTDIR/runs/``), or a line
  saying there is none.

``--check`` first checks the pages (``study.page``: every block and
fact current, no loose number) and writes nothing when one is not.
"""
import argparse
import base64
import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

from study import page as study_page

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "study"
OUTPUTS = ROOT / "outputs"
# the study's pages and their files in the site
SITE = {Path(p).name: ("index.html" if Path(p).name == "README.md" else
                       Path(p).stem + ".html") for p in study_page.PAGES}
TITLES = {"README.md": "The study", "protocol.md": "Protocol",
          "results.md": "Results", "beyond.md": "Beyond the verdicts"}
# a line that is an HTML comment alone (a generated block's marker)
COMMENT = re.compile(r"<!--(?:(?!-->).)*-->")
# files of study/ a page may link to, copied into the site as they are
COPIED = (".yml", ".yaml", ".json")
STYLE = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
  max-width: 75rem; margin: 0 auto; padding: 0 1.5rem 3rem; color: #1f2328;
  line-height: 1.5; }
nav { padding: 0.8rem 0; border-bottom: 1px solid #d0d7de;
  margin-bottom: 1rem; }
nav a { margin-right: 1.2rem; }
nav a.here { font-weight: bold; color: #1f2328; text-decoration: none; }
h1, h2 { border-bottom: 1px solid #d8dee4; padding-bottom: 0.3rem; }
code { background: #f6f8fa; padding: 0.1rem 0.3rem; border-radius: 4px;
  font-size: 85%; }
pre { background: #f6f8fa; padding: 0.8rem; overflow-x: auto;
  border-radius: 6px; }
pre code { background: none; padding: 0; }
.table { overflow-x: auto; margin: 1rem 0; }
table { border-collapse: collapse; font-size: 85%; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.5rem;
  vertical-align: top; }
th { background: #f6f8fa; }
tr:nth-child(2n) td { background: #fbfcfd; }
img { max-width: 100%; }
.fact { border-bottom: 1px dotted #8c959f; }
.repo { color: #57606a; }
.runs { font-size: 90%; color: #57606a; }
"""


def slug(heading):
    """GitHub's anchor of a heading's text (tests/test_doc_links.py)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


class Page:
    """One page being rendered: its anchors and what it links to."""

    def __init__(self, name, out):
        self.name, self.out = name, Path(out)
        self.seen = {}
        self.copies = set()

    # ------------------------------------------------------------ inline

    def inline(self, text):
        """Markdown inline text to HTML."""
        parts = re.split(r"(`+)(.+?)\1", text)
        out = []
        for i in range(0, len(parts), 3):
            out.append(self._text(parts[i]))
            if i + 2 < len(parts):
                out.append(f"<code>{html.escape(parts[i + 2])}</code>")
        return "".join(out)

    def _text(self, text):
        facts = []

        def keep(match):
            facts.append((match["spec"], match["value"]))
            return f"\x00F{len(facts) - 1}\x00"
        text = study_page.FACT.sub(keep, text)
        text = re.sub(r"<!--.*?-->", "", text)
        escaped = []

        def escape(match):
            escaped.append(match.group(1))
            return f"\x00E{len(escaped) - 1}\x00"
        text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>])", escape, text)
        text = html.escape(text, quote=False)
        text = re.sub(r"!\[([^\]]*)\]\(([^)\s]+)\)",
                      lambda m: self.image(m.group(1), m.group(2)), text)
        text = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)",
                      lambda m: self.link(m.group(1), m.group(2)), text)
        text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
        text = re.sub(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])",
                      r"<em>\1</em>", text)
        text = re.sub("\x00E(\\d+)\x00",
                      lambda m: html.escape(escaped[int(m.group(1))]), text)
        return re.sub(
            "\x00F(\\d+)\x00", lambda m: '<span class="fact" title="{}">{}'
            '</span>'.format(html.escape(facts[int(m.group(1))][0]),
                             html.escape(facts[int(m.group(1))][1])), text)

    def image(self, alt, src):
        path = (STUDY / src).resolve()
        if src.startswith(("http:", "https:", "//")) or not path.is_file():
            raise ValueError(f"{self.name}: image {src} is not a file of "
                             "the study")
        kind = {".png": "image/png", ".svg": "image/svg+xml",
                ".jpg": "image/jpeg"}[path.suffix.lower()]
        data = base64.b64encode(path.read_bytes()).decode()
        return f'<img alt="{alt}" src="data:{kind};base64,{data}">'

    def link(self, text, href):
        if href.startswith(("http://", "https://", "mailto:")):
            return f'<a href="{html.escape(href)}">{text}</a>'
        target, _, anchor = href.partition("#")
        if not target:
            return f'<a href="#{anchor}">{text}</a>'
        hash_ = f"#{anchor}" if anchor else ""
        if target in SITE:
            return f'<a href="{SITE[target]}{hash_}">{text}</a>'
        path = (STUDY / target).resolve()
        if path.parent == STUDY and path.suffix in COPIED and path.is_file():
            self.copies.add(path)
            return f'<a href="{path.name}{hash_}">{text}</a>'
        where = path.relative_to(ROOT).as_posix() if path.is_relative_to(
            ROOT) else target
        return (f'<span class="repo" title="in the repository: {where}'
                f'{hash_}">{text} (<code>{where}</code>)</span>')

    # ------------------------------------------------------------ blocks

    def blocks(self, lines):
        """Markdown block lines to HTML."""
        out, i = [], 0
        while i < len(lines):
            line = lines[i]
            stripped = line.strip()
            if not stripped or COMMENT.fullmatch(stripped):
                i += 1
            elif study_page.FENCE.match(line):
                i = self._fence(lines, i, out)
            elif re.match(r"#{1,6}\s", line):
                level = len(line) - len(line.lstrip("#"))
                text = line[level:].strip()
                out.append(f'<h{level} id="{self.anchor(text)}">'
                           f"{self.inline(text)}</h{level}>")
                i += 1
            elif line.startswith("|") and i + 1 < len(lines) and \
                    re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i + 1].strip()):
                i = self._table(lines, i, out)
            elif re.match(r"\s*[-*]\s", line):
                i = self._list(lines, i, out)
            else:
                start = i
                while i < len(lines) and lines[i].strip() and not (
                        study_page.FENCE.match(lines[i])
                        or re.match(r"#{1,6}\s|\s*[-*]\s|\|", lines[i])
                        or COMMENT.fullmatch(lines[i].strip())):
                    i += 1
                text = " ".join(x.strip() for x in lines[start:i])
                out.append(f"<p>{self.inline(text)}</p>")
        return "\n".join(out)

    def anchor(self, text):
        name = slug(re.sub(r"<!--.*?-->", "", text))
        n = self.seen.get(name, 0)
        self.seen[name] = n + 1
        return name if n == 0 else f"{name}-{n}"

    def _fence(self, lines, i, out):
        indent = len(lines[i]) - len(lines[i].lstrip())
        mark = lines[i].strip()[:3]
        body, i = [], i + 1
        while i < len(lines) and lines[i].strip() != mark:
            body.append(lines[i][indent:] if lines[i][:indent].strip() == ""
                        else lines[i])
            i += 1
        out.append("<pre><code>" + html.escape("\n".join(body))
                   + "</code></pre>")
        return i + 1

    def _table(self, lines, i, out):
        def cells(line):
            line = line.strip()
            line = line[1:] if line.startswith("|") else line
            line = line[:-1] if line.endswith("|") else line
            return [c.strip() for c in re.split(r"(?<!\\)\|", line)]
        head = cells(lines[i])
        rows, i = [], i + 2
        while i < len(lines) and lines[i].startswith("|"):
            rows.append(cells(lines[i]))
            i += 1
        out.append('<div class="table"><table><thead><tr>'
                   + "".join(f"<th>{self.inline(c)}</th>" for c in head)
                   + "</tr></thead><tbody>"
                   + "".join("<tr>" + "".join(f"<td>{self.inline(c)}</td>"
                                              for c in row) + "</tr>"
                             for row in rows)
                   + "</tbody></table></div>")
        return i

    def _list(self, lines, i, out):
        indent = len(lines[i]) - len(lines[i].lstrip())
        items = []
        while i < len(lines):
            match = re.match(r"(\s*)[-*]\s+(.*)", lines[i])
            if not match or len(match.group(1)) != indent:
                break
            body, i = [match.group(2)], i + 1
            while i < len(lines):
                line = lines[i]
                if not line.strip():
                    nxt = lines[i + 1] if i + 1 < len(lines) else ""
                    if len(nxt) - len(nxt.lstrip()) > indent and nxt.strip():
                        body.append("")
                        i += 1
                        continue
                    break
                if len(line) - len(line.lstrip()) <= indent:
                    break
                body.append(line[indent + 2:] if line[:indent + 2].strip()
                            == "" else line.strip())
                i += 1
            inner = self.blocks(body)
            if inner.count("<p>") == 1 and inner.startswith("<p>") and \
                    inner.endswith("</p>"):
                inner = inner[3:-4]
            items.append(f"<li>{inner}</li>")
            while i < len(lines) and not lines[i].strip():
                nxt = lines[i + 1] if i + 1 < len(lines) else ""
                if re.match(r"\s{%d}[-*]\s" % indent, nxt) and \
                        len(nxt) - len(nxt.lstrip()) == indent:
                    i += 1
                else:
                    break
        out.append("<ul>" + "".join(items) + "</ul>")
        return i


def run_pages(command, out):
    """Below a comparison table: for each results file of its
    ``study.table`` command, its benchopt result page (copied offline to
    ``out/runs``) or a line saying there is none."""
    lines = []
    for word in command.split():
        if not word.endswith(".parquet"):
            continue
        stem = Path(word).stem
        page = OUTPUTS / f"benchmark_bilevel_{stem}.html"
        if page.is_file():
            runs = Path(out) / "runs"
            runs.mkdir(parents=True, exist_ok=True)
            done = subprocess.run(
                [sys.executable, "-m", "tools.offline_page", str(page), "-o",
                 str(runs / f"{stem}.html")], cwd=ROOT, capture_output=True,
                text=True)
            if done.returncode == 0:
                lines.append(f'benchopt\'s result page of <code>{stem}'
                             f'</code>: <a href="runs/{stem}.html">'
                             f"runs/{stem}.html</a> (made offline)")
                continue
        lines.append(f"benchopt's result page of <code>{stem}</code>: none "
                     f"in <code>outputs/</code> (<code>benchopt plot</code> "
                     f"on <code>outputs/{stem}.parquet</code> writes "
                     f"<code>outputs/benchmark_bilevel_{stem}.html</code>)")
    if not lines:
        return ""
    return '<p class="runs">' + "<br>".join(lines) + "</p>"


def render_page(path, out):
    """The HTML of one study page and the study files it links to."""
    text = Path(path).read_text()
    lines = text.splitlines()
    page = Page(Path(path).name, out)
    parts, done = [], 0
    for start, end, command in study_page.blocks(lines):
        parts.append(page.blocks(lines[done:start]))
        parts.append(page.blocks(lines[start + 1:end]))
        if command.split()[2:3] == ["study.table"]:
            parts.append(run_pages(command, out))
        done = end + 1
    parts.append(page.blocks(lines[done:]))
    title = next((re.sub(r"^#+\s*", "", x) for x in lines
                  if x.startswith("# ")), page.name)
    here = ' class="here"'
    nav = " ".join(
        f'<a href="{SITE[name]}"{here if name == page.name else ""}>'
        f"{TITLES.get(name, name)}</a>" for name in SITE)
    body = "\n".join(p for p in parts if p)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8"
            f"\"><meta name=\"viewport\" content=\"width=device-width, "
            f"initial-scale=1\"><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head>\n<body><nav>{nav}</nav>\n"
            f"{body}\n</body></html>\n"), page.copies


def render(out, pages=study_page.PAGES):
    """Write the site to ``out``; return the files written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in pages:
        text, copies = render_page(ROOT / name, out)
        target = out / SITE[Path(name).name]
        target.write_text(text, encoding="utf-8")
        written.append(target)
        for path in copies:
            shutil.copyfile(path, out / path.name)
            written.append(out / path.name)
    return sorted(set(written))


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study.html",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("out", help="the folder to write the site to")
    p.add_argument("--check", action="store_true",
                   help="check the pages first (python -m study.page "
                        "--check); write nothing if one is stale")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    if args.check and study_page.main(
            [str(ROOT / name) for name in study_page.PAGES] + ["--check"]):
        p.exit(1, "python -m study.html: the pages are not current; "
                  "nothing written\n")
    try:
        written = render(args.out)
    except (OSError, ValueError) as err:
        p.error(str(err))
    print(f"{len(written)} files written to {args.out} (open "
          f"{Path(args.out) / 'index.html'}; no network needed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
