"""``python -m tools`` and ``python -m study`` list every command of their
package, one line each, and nothing that is not a command (a library
module has no ``if __name__ == "__main__"``)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench_helpers import ROOT

MAIN = re.compile(r'^if __name__ == "__main__":', re.M)


def commands_on_disk(package):
    """Dotted names of the modules of ``package`` that run as a command
    (a package counts through its ``__main__.py``)."""
    base = Path(ROOT, package)
    found = set()
    for path in base.rglob("*.py"):
        if "tests" in path.parts or path.name == "__init__.py":
            continue
        rel = path.relative_to(base).with_suffix("")
        parts = list(rel.parts)
        if parts == ["__main__"]:
            continue
        if parts[-1] == "__main__":
            parts = parts[:-1]
        elif not MAIN.search(path.read_text()):
            continue
        elif (path.parent / "__main__.py").exists() and parts[-1] == "cli":
            continue
        found.add(".".join(parts))
    return found


@pytest.mark.parametrize("package", ["tools", "study"])
def test_the_listing_names_every_command_and_only_those(package):
    out = subprocess.run([sys.executable, "-m", package], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    listed = set(re.findall(r"^  (\S+)  ", out, re.M))
    internal = set()
    if package == "tools":
        from tools.__main__ import INTERNAL as internal
    assert listed == commands_on_disk(package) - set(internal)


def test_an_unknown_command_is_named():
    run = subprocess.run([sys.executable, "-m", "study", "verdict"],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 2
    assert "unknown command 'verdict'" in run.stderr
    assert "verdicts" in run.stderr
