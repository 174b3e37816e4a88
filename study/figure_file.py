"""A study figure's PNG: written small (a palette of 256 colours, a third
of the size, the same look) and holding the fingerprint of the report
its command prints beside it, so that a figure drawn from other data
than the stored results is told stale (``study/tests/test_figures.py``).

    python -m study.anytime --figure study/figures/anytime.png

draws ``anytime.png`` and prints the report; the PNG holds the SHA-256
of that report (``fingerprint``), which ``python -m study.anytime``
prints again from the stored results as long as they are the same.
``DRAWN``: each figure of the study's pages drawn so, with the command
that prints its report.
"""
import hashlib
import io
from pathlib import Path

FINGERPRINT = "Study-Report-Fingerprint"  # the PNG text chunk
PALETTE = 256
TASKS = ("fashion", "digits", "breast_cancer", "wine", "Simulated",
         "fashion_l2")
# figure -> the command that prints its report (its fingerprint's input)
DRAWN = {"study/figures/anytime.png": "python -m study.anytime",
         **{f"study/figures/sensitivity_{t}.png":
            f"python -m study.sensitivity {t}" for t in TASKS},
         **{f"study/figures/budget_{t}.png":
            f"python -m study.budget_curve {t}" for t in TASKS}}


def fingerprint(report):
    """The SHA-256 of a report's text (its trailing newlines aside)."""
    return hashlib.sha256(report.rstrip("\n").encode()).hexdigest()


def save(fig, path, report, dpi, key=FINGERPRINT, value=None):
    """``fig`` written to the PNG ``path`` at ``dpi`` with a palette and
    the ``fingerprint`` of ``report`` (or ``value``) under ``key``."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    buffer.seek(0)
    small_png(buffer, path, {key: value or fingerprint(report)})


def small_png(source, path, text=None):
    """The PNG ``source`` (a path or a file) written to ``path`` with a
    palette of ``PALETTE`` colours, its text chunks kept and ``text``
    ({key: value}) added."""
    from PIL import Image, PngImagePlugin
    info = PngImagePlugin.PngInfo()
    with Image.open(source) as image:
        chunks = {**getattr(image, "text", {}), **(text or {})}
        small = image.convert("RGB").quantize(PALETTE)
    for key, value in chunks.items():
        info.add_text(key, value)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    small.save(path, optimize=True, pnginfo=info)


def main(argv=None):
    """``python -m study.figure_file PNG ...``: each PNG rewritten with a
    palette (a figure drawn by another command, such as ``tools.figures``,
    before it is copied into study/figures/)."""
    import argparse
    p = argparse.ArgumentParser(prog="python -m study.figure_file",
                                description=main.__doc__.split(":")[0])
    p.add_argument("pngs", nargs="+", metavar="PNG")
    args = p.parse_args(argv)
    for name in args.pngs:
        if not name.endswith(".png") or not Path(name).is_file():
            p.error(f"{name}: not a PNG file")
        before = Path(name).stat().st_size
        small_png(name, name)
        print(f"{name}: {before} -> {Path(name).stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def stored(path):
    """The fingerprint the PNG ``path`` holds (None if none)."""
    from PIL import Image
    with Image.open(path) as image:
        return image.text.get(FINGERPRINT)
