"""The study's stored files: each one read here (and by the command or
page that uses it), and all of them together within the size the
repository keeps for the study (5 MB)."""
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from study import spec as study_spec
from tools.tune.record_file import read_json

ROOT = Path(__file__).resolve().parents[2]
STORED = sorted(p for folder in ("data", "configs", "figures")
                for p in (ROOT / "study" / folder).rglob("*") if p.is_file())
LIMIT = 5 * 2 ** 20


def test_the_stored_study_fits_in_five_megabytes():
    size = sum(p.stat().st_size for p in STORED)
    assert 0 < size <= LIMIT, f"{size / 2 ** 20:.2f} MB"


def mentioned():
    """Every path a study page, the spec or the claims name."""
    texts = [p.read_text() for p in (ROOT / "study").glob("*.md")]
    texts += [(ROOT / "docs" / "study.md").read_text(),
              (ROOT / "study" / "study.yml").read_text()]
    return "\n".join(texts)


@pytest.mark.parametrize(
    "path", STORED,
    ids=lambda p: p.relative_to(ROOT / "study").as_posix())
def test_every_stored_file_reads_and_is_used(path):
    rel = path.relative_to(ROOT).as_posix()
    if path.suffix == ".parquet":
        frame = pd.read_parquet(path)
        assert {"solver_name", "dataset_name", "idx_rep"} <= set(frame)
        assert len(frame)
    elif path.name.endswith((".json", ".json.xz")):
        value = read_json(path)
        assert isinstance(value, dict) and "solvers" in value
    elif path.suffix == ".yml":
        config = yaml.safe_load(path.read_text())
        assert config["solver"] and config["dataset"]
    elif path.suffix == ".png":
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        pytest.fail(f"{rel}: a stored file of unknown kind")
    # a file nothing names is not kept; a solver put in by python -m study
    # add keeps its files in data/added/SOLVER, a folder the protocol names
    parts = path.relative_to(ROOT / "study").parts
    added = parts[:2] == ("data", "added")
    if parts[:2] in (("data", "budget"), ("data", "untuned")):
        # the runs of python -m study budget / untuned --store, read by
        # their --show on study/beyond.md
        assert f"study/data/{parts[1]}/" in mentioned()
    elif added:
        solver = path.parent.name
        assert solver in study_spec.load().solvers, \
            f"{rel}: {solver} is not among the spec's solvers"
        assert "study/data/added/" in mentioned()
    else:
        assert path.name in mentioned(), \
            f"{rel} is named by no page or spec"


def test_the_spec_names_only_stored_files_that_exist():
    spec = study_spec.load()
    for task in spec.tasks.values():
        for key, value in task.stored.items():
            if key != "trials":
                assert (ROOT / value).is_file(), (task.name, key)
    json.dumps(spec.verdict_results())
