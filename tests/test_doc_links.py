"""Every link into a section of a page of the repository's documentation
(``[text](page.md#section)``) names a heading that page has, as GitHub
makes its anchors (lower case, punctuation dropped, spaces to hyphens);
the study's pages (study/*.md) are read too, and every relative link of
theirs names a file that exists."""
import re
from pathlib import Path

import pytest

from bench_helpers import ROOT

PAGES = [Path(ROOT, "README.md"), *sorted(Path(ROOT, "docs").glob("*.md")),
         *sorted(Path(ROOT, "study").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]*?)#([^)\s]+)\)")


def slug(heading):
    """GitHub's anchor of a heading's text."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page):
    """The anchors of ``page``'s headings (outside code blocks), a
    repeated one numbered as GitHub numbers it."""
    found, seen, fenced = set(), {}, False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else re.match(r"^#+\s+(.*)$", line)
        if match:
            name = slug(match.group(1))
            found.add(name if name not in seen else f"{name}-{seen[name]}")
            seen[name] = seen.get(name, 0) + 1
    return found


def test_slug_is_githubs():
    assert slug("Is a late fall real?") == "is-a-late-fall-real"
    assert slug("Fashion-MNIST where cleaning matters") == \
        "fashion-mnist-where-cleaning-matters"
    assert slug("Tuning: what the equal work found") == \
        "tuning-what-the-equal-work-found"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_to_sections_name_existing_headings(page):
    broken = []
    for match in LINK.finditer(page.read_text()):
        target = page.parent / match.group(1) if match.group(1) else page
        if target.suffix == ".md" and target.is_file() and \
                match.group(2) not in anchors(target):
            broken.append(f"{match.group(1)}#{match.group(2)}")
    assert not broken, f"{page.name}: no such heading: {broken}"


@pytest.mark.parametrize("page", sorted(Path(ROOT, "study").glob("*.md")),
                         ids=lambda p: p.name)
def test_the_study_pages_link_to_files_that_exist(page):
    missing = [target for target in re.findall(
        r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)", page.read_text())
        if not target.startswith(("http://", "https://"))
        and not (page.parent / target).exists()]
    assert not missing, f"{page.name}: no such file: {missing}"
