"""The study at a glance: each claim on each reading, its effect (the
median paired difference with its interval) and its verdict, as a table
and as a figure.

    python -m study.summary [RESULTS ...] [--claims study/claims.yml]
    python -m study.summary --figure study/figures/verdicts.png
    python -m study.summary --image study/figures/verdicts.png

The verdicts and their statistics are ``study.verdicts``' own
(``readings`` at each result's tuning budget and at the end,
``verdict_tables``: the median of d = A - B over the instances, its
bootstrap interval, Wilcoxon's test with Holm's correction); this module
only lays them out.  Without RESULTS it reads the study's comparisons
(``RESULTS``).  ``--figure PATH`` draws them to a PNG whose metadata
holds a fingerprint of the numbers drawn; ``--image PATH`` prints the
Markdown line that shows that PNG on a study page when the fingerprint
is the current data's, and says the figure is stale otherwise (a page's
generated block of ``--image`` goes stale with its figure).
"""
import argparse
import functools
import hashlib
import json
import math
from pathlib import Path

import yaml

from study import paired, verdicts
from study import figure_file
from study.table import load

ROOT = Path(__file__).resolve().parents[1]
DATA = "study/data"
# the comparisons the verdicts read (docs: study/results.md, "Verdicts")
RESULTS = tuple(f"{DATA}/study_{name}.parquet" for name in (
    "fashion_p5", "fashion_p7", "fashion_p9", "digits", "breast_cancer",
    "wine", "wine_noclip", "Simulated", "fashion_l2_p9"))
FIGURE = "study/figures/verdicts.png"
MARK = {"holds": "✓", "does not hold": "✗", "inconclusive": "?",
        "tasks disagree": "≠"}
COLOUR = {"holds": "#1a9850", "does not hold": "#d73027",
          "inconclusive": "#969696", "tasks disagree": "#f46d43"}
FINGERPRINT = "Study-Fingerprint"  # the PNG text chunk of the numbers drawn
# the columns of the table: the readings of study.verdicts, shorter
HEAD = {"h_budget": "H, budget", "h_end": "H, end",
        "err_budget": "test error, budget", "err_end": "test error, end",
        "own_budget": "own y's test error, budget",
        "own_end": "own y's test error, end"}


@functools.lru_cache(maxsize=4)
def tables(results=RESULTS, claims=None):
    """``study.verdicts.verdict_tables`` of ``results`` with the claims
    file ``claims`` (default ``study/claims.yml``), cached: the pages read
    them many times.  The default ``RESULTS`` are read from the
    repository wherever the command runs."""
    with open(claims or verdicts.CLAIMS) as handle:
        spec = verdicts.check_claims(yaml.safe_load(handle))
    paths = [str(ROOT / p) if results == RESULTS else p for p in results]
    runs = verdicts.readings(load(paths))
    return verdicts.verdict_tables(runs, spec)


def number(value, digits=2):
    """``value`` with ``digits`` significant digits, a real minus sign,
    infinities as ∞."""
    if math.isinf(value):
        return "−∞" if value < 0 else "∞"
    if abs(value) < 1e-12:  # a difference of rounding (1e-16): none
        return "0"
    text = f"{value:.{digits}g}"
    if "e" in text:
        mantissa, _, exponent = text.partition("e")
        text = f"{mantissa}e{int(exponent)}"
    return text.replace("-", "−")


def rows(found):
    """``[(claim, n, {reading: (verdict, median, low, high)})]`` from
    ``tables``' result, in the claims' order."""
    names = list(dict.fromkeys(
        n for q in HEAD if q in found for n in found[q]["name"]))
    out = []
    for name in names:
        cells, n = {}, None
        for q in HEAD:
            if q not in found:
                continue
            row = found[q][found[q]["name"] == name]
            if len(row):
                r = row.iloc[0]
                cells[q] = (r["verdict"], float(r["median"]),
                            float(r["ci_low"]), float(r["ci_high"]))
                n = int(r["n"])
        out.append((name, n, cells))
    return out


def primary_readings(found):
    """{claim: its primary reading} (the ``family`` column of
    ``study.verdicts.adjust_families``)."""
    return {name: q for q, table in found.items()
            for name, family in zip(table["name"], table["family"])
            if family == "primary"}


def family_sizes(found):
    """{family: the number of readings Holm's correction ran over}."""
    return {family: int(m) for table in found.values()
            for family, m in zip(table["family"], table["m"])}


def cell(verdict, median, low, high, secondary=False):
    """A reading's cell: its mark (in parentheses on a secondary reading:
    evidence, not a verdict), the median of d and its interval."""
    mark = f"({MARK[verdict]})" if secondary else MARK[verdict]
    return f"{mark} {number(median)} [{number(low)}, {number(high)}]"


def markdown(found):
    """The claims x readings table: first each claim's verdict (its
    primary reading), then its secondary readings; in each cell the
    mark, the median of d = A - B and its interval."""
    read = [q for q in HEAD if q in found]
    primary = primary_readings(found)
    usual = max(read, key=lambda q: (list(primary.values()).count(q),
                                     -read.index(q)))
    others = [q for q in read if q != usual]
    sizes = family_sizes(found)
    level = f"{paired.LEVEL:.0%}"
    lines = [f"| claim | n | verdict: {HEAD[usual]} | "
             + " | ".join(HEAD[q] for q in others) + " |",
             "|---|---|---|" + "---|" * len(others)]
    for name, n, cells in rows(found):
        mine = primary.get(name, usual)
        first = cell(*cells[mine]) if mine in cells else "—"
        if mine != usual:
            first += f" ({HEAD[mine]})"
        # the column of its primary reading shows the usual one instead
        shown = [usual if q == mine else q for q in others]
        lines.append(f"| {name} | {n} | {first} | " + " | ".join(
            cell(*cells[q], secondary=True) if q in cells else "—"
            for q in shown) + " |")
    lines += ["", "The verdict is the claim's primary reading (the "
              "claims file's `primary`): "
              f"{MARK['holds']} holds, {MARK['does not hold']} does "
              f"not hold, {MARK['inconclusive']} inconclusive, "
              f"{MARK['tasks disagree']} the tasks disagree (pooled, the "
              "test would decide, but on one of the claim's tasks the "
              "median of d has the other sign: no verdict); Holm's "
              f"correction runs over the {sizes.get('primary', 0)} claims' "
              "primary readings. The other columns are secondary readings, "
              "their marks in parentheses, Holm's correction over all "
              f"{sizes.get('secondary', 0)} of them: evidence beside the "
              "verdict, never a verdict. In each cell the median over the "
              "n instances of d = A − B (H, or points of test error; below "
              f"0: A ahead, as every claim says) and its {level} bootstrap "
              "interval; −∞: B diverged on the instances (a diverged run "
              "counts as the worst value)."]
    return "\n".join(lines)


def drawn(found):
    """The numbers a figure draws, rounded (its fingerprint's input)."""
    return [[name, q, *([c[0]] + [_round(v) for v in c[1:]])]
            for name, _, cells in rows(found) for q, c in cells.items()]


def _round(value):
    return value if math.isinf(value) else float(f"{value:.6g}")


def fingerprint(found):
    return hashlib.sha256(json.dumps(drawn(found)).encode()).hexdigest()


QUANTITY = (("h", "H (validation loss)"),
            ("err", "test error of y*(x), points"),
            ("own", "test error of the own y, points"))


def figure(found, path):
    """One panel per quantity, a row per claim: the median of d = A - B
    and its interval at the budget (filled) and at the end (open), in
    the verdict's colour, on a symmetric log scale (the tasks' scales
    differ by decades); an infinite median is an arrow at the edge."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401 (matplotlib.ticker below)
    table = rows(found)
    names = [name for name, _, _ in table]
    fig, axes = plt.subplots(1, len(QUANTITY), sharey=True,
                             figsize=(14, 0.34 * len(names) + 1.8))
    for ax, (key, title) in zip(axes, QUANTITY):
        finite = [abs(v) for _, _, cells in table for q, c in cells.items()
                  if q.startswith(key + "_") for v in c[1:]
                  if math.isfinite(v) and abs(v) > 1e-12]
        top = math.floor(math.log10(max(finite, default=1.0)))
        # linear within two decades below the largest effect's
        ax.set_xscale("symlog", linthresh=10.0 ** (top - 2), linscale=0.5)
        edge = 10.0 ** (top + 1)
        ticks = [s * 10.0 ** k for k in range(top - 1, top + 2)
                 for s in (-1, 1)] + [0]
        ticks = sorted(ticks)
        ax.set_xticks(ticks, [format(v, "g").replace("-", "−") for v in ticks])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        for i, (_, _, cells) in enumerate(table):
            for q, shift, face in ((key + "_budget", -0.17, None),
                                   (key + "_end", 0.17, "white")):
                if q not in cells:
                    continue
                verdict, median, low, high = cells[q]
                colour = COLOUR[verdict]
                y = i + shift
                lo, hi = (max(min(v, edge), -edge) for v in (low, high))
                ax.plot([lo, hi], [y, y], color=colour, lw=1.6)
                x = max(min(median, edge), -edge)
                marker = ("<" if median == -math.inf else ">"
                          if median == math.inf else "o")
                ax.plot([x], [y], marker, color=colour, ms=5,
                        mfc=face or colour)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_xlim(-edge * 1.3, edge * 1.3)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("median of d = A − B (below 0: the claim's way)",
                      fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(axis="x", color="#eeeeee")
    axes[0].set_yticks(range(len(names)), names, fontsize=7)
    axes[0].invert_yaxis()
    handles = [plt.Line2D([], [], color=c, marker="o", lw=1.6, label=v)
               for v, c in COLOUR.items()]
    handles += [plt.Line2D([], [], color="black", marker="o", ls="",
                           label="at the budget"),
                plt.Line2D([], [], color="black", marker="o", mfc="white",
                           ls="", label="at the end")]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles),
               fontsize=8, frameon=False)
    fig.suptitle("Each claim: the median paired difference and its "
                 "interval, coloured by the reading's mark (H at the "
                 "budget: the verdict; the others: secondary readings)",
                 fontsize=11)
    fig.subplots_adjust(left=0.31, right=0.99, bottom=0.13, top=0.9,
                        wspace=0.08)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    figure_file.save(fig, path, "", dpi=110, key=FINGERPRINT,
                     value=fingerprint(found))
    plt.close(fig)


def stored_fingerprint(path):
    """The fingerprint a PNG written by ``figure`` holds (None if none)."""
    from PIL import Image
    with Image.open(path) as image:
        return image.text.get(FINGERPRINT)


def image_line(found, path, command):
    """The Markdown line showing ``path`` (its link relative to study/,
    where the study's pages are) when it draws ``found``, else a line
    saying it is stale and how to draw it again."""
    full = ROOT / path
    try:
        link = full.resolve().relative_to(ROOT / "study").as_posix()
    except ValueError:  # not a figure of the study's pages
        link = Path(path).as_posix()
    try:
        current = stored_fingerprint(full) == fingerprint(found)
    except OSError:
        current = False
    if not current:
        return (f"The figure {path} is stale or missing: `{command}` "
                "draws it again.")
    return (f"![Each claim: the median paired difference and its interval "
            f"at the budget and at the end, in the colour of its verdict]"
            f"({link})")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m study.summary",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="*",
                   help="comparison results (default: the study's, "
                        f"{', '.join(RESULTS)})")
    p.add_argument("--claims", help="the claims file (default: "
                                    "study/claims.yml)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--figure", metavar="PNG",
                      help="draw the figure to this PNG")
    what.add_argument("--image", metavar="PNG",
                      help="print the Markdown line of the figure, or say "
                           "it is stale")
    args = p.parse_args(argv)
    results = tuple(args.results) or RESULTS
    for png in (args.figure, args.image):
        if png is not None and not png.endswith(".png"):
            p.error(f"{png}: the figure is a PNG (its metadata holds the "
                    "fingerprint of its numbers)")
    try:
        found = tables(results, args.claims)
    except (OSError, ValueError) as err:
        p.error(str(err))
    if args.figure:
        figure(found, args.figure)
        print(f"figure written to {args.figure}")
    elif args.image:
        extra = " ".join([*args.results] + (
            ["--claims", args.claims] if args.claims else []))
        command = ("python -m study.summary " + (extra + " " if extra else "")
                   + f"--figure {args.image}")
        print(image_line(found, args.image, command))
    else:
        print(markdown(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
