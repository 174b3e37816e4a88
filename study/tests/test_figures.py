"""The study's figures drawn beside a report (study.figure_file): each
PNG holds the fingerprint of the report its command prints, and every
figure of the pages is current: drawn from the stored results as they
are now."""
import os

import pytest

from study import figure_file
from study.page import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def test_a_png_holds_the_fingerprint_of_its_report(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [1, 0])
    path = tmp_path / "f.png"
    figure_file.save(fig, path, "| a | b |\n", dpi=40)
    plt.close(fig)
    assert figure_file.stored(path) == figure_file.fingerprint("| a | b |")
    assert figure_file.stored(path) != figure_file.fingerprint("| a | c |")
    with open(path, "rb") as handle:
        assert handle.read(8) == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("path", sorted(figure_file.DRAWN))
def test_every_figure_is_drawn_from_the_stored_results(path):
    command = figure_file.DRAWN[path]
    report = "\n".join(run(command))
    stored = figure_file.stored(os.path.join(ROOT, path))
    assert stored == figure_file.fingerprint(report), (
        f"{path} is stale: `{command} --figure {path}` draws it again")


def test_every_drawn_figure_is_on_a_page():
    from study.page import PAGES
    text = "".join(open(os.path.join(ROOT, p)).read() for p in PAGES)
    for path in figure_file.DRAWN:
        assert os.path.relpath(path, "study") in text, path


def test_the_command_gives_a_png_a_palette_keeping_its_text(tmp_path,
                                                            capsys):
    from PIL import Image, PngImagePlugin
    path = tmp_path / "big.png"
    info = PngImagePlugin.PngInfo()
    info.add_text("Study-Fingerprint", "abc")
    pixels = Image.new("RGB", (64, 64))
    pixels.putdata([(x * 4 % 256, y * 4 % 256, (x + y) % 256)
                    for y in range(64) for x in range(64)])
    pixels.save(path, pnginfo=info)
    assert figure_file.main([str(path)]) == 0
    assert "bytes" in capsys.readouterr().out
    with Image.open(path) as image:
        assert image.mode == "P"
        assert image.text["Study-Fingerprint"] == "abc"
    with pytest.raises(SystemExit):
        figure_file.main([str(tmp_path / "none.png")])
    assert "not a PNG file" in capsys.readouterr().err
