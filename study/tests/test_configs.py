"""The study's run configs: every comparison runs without a timeout
(``no-timeout: true``, with the line that says why), which benchopt reads
as such; a run cut short by benchopt's default 100 s would not reach its
readings (``study.budget_reading``)."""
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tools.tune.report import NO_TIMEOUT_NOTE

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "study" / "configs").glob("*.yml"))


def test_there_are_study_configs():
    assert len(CONFIGS) >= 9


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_study_config_runs_without_a_timeout(path):
    text = path.read_text()
    config = yaml.safe_load(text)
    assert config.get("no-timeout") is True, f"{path.name}: no-timeout"
    # no timeout of its own either: benchopt refuses both
    assert "timeout" not in config
    if "python -m tools.tune" in text:  # its writer says why (an
        # ablation's copy keeps the key, not the comments)
        lines = text.splitlines()
        assert lines[lines.index("no-timeout: true") - 1] == NO_TIMEOUT_NOTE


def test_benchopt_reads_no_timeout_from_a_config(tmp_path, monkeypatch):
    """benchopt 1.10 takes a config key for each option of ``benchopt
    run`` (``no-timeout``): the runs get no deadline; without it, its
    100 s default."""
    import benchopt.runner
    from benchopt.cli.main import run

    seen = {}

    def fake_run(*args, **kwargs):  # the runs themselves are not made
        seen.update(kwargs)
        return 0, None

    monkeypatch.setattr(benchopt.runner, "_run_benchmark", fake_run)
    monkeypatch.chdir(ROOT)
    config = tmp_path / "c.yml"
    head = ('objective:\n  - "Bilevel Optimization"\ndataset:\n'
            '  - "Simulated"\nsolver:\n  - "SOBA"\nmax-runs: 2\n')
    for extra, timeout in ((f"{NO_TIMEOUT_NOTE}\nno-timeout: true\n", None),
                           ("", 100)):
        config.write_text(head + extra)
        result = CliRunner().invoke(run, [".", "--config", str(config)])
        assert result.exit_code == 0, result.output
        assert seen.pop("timeout") == timeout
