"""tools.compile_log: the compiles of every process a command starts."""
import subprocess
import sys
import textwrap

import pytest

from tools import compile_log

TWICE = textwrap.dedent("""
    import subprocess, sys
    code = "from numba import njit\\nf = njit(lambda x: x + 1)\\nf(1)\\n"
    for _ in range(2):
        subprocess.run([sys.executable, "-c", code], check=True)
    sys.exit(3)
""")


def test_summary_counts_outer_compiles_and_repeats_across_processes():
    rows = [
        dict(function="m.run", signature="(a,)", depth=0, seconds=10.0,
             test="tests/test_a.py::t (call)", process="1"),
        dict(function="m.callee", signature="(a,)", depth=1, seconds=4.0,
             test="tests/test_a.py::t (call)", process="1"),
        dict(function="m.run", signature="(a,)", depth=0, seconds=8.0,
             test="tests/test_b.py::u (call)", process="2"),
        dict(function="m.run", signature="(b,)", depth=0, seconds=5.0,
             test="", process="2"),
    ]
    lines = compile_log.summary(rows)
    # the callee is inside run's 10 s; run((a,)) again in process 2: 8 s
    assert lines[0] == ("compiling: 23 s in 3 compiles over 2 processes; "
                        "the same function and signature compiled again "
                        "in another process: 8 s")
    assert "     23.0 s     3  m.run" in lines
    assert "     10.0 s     1  tests/test_a.py" in lines
    assert "      5.0 s     1  (outside a test)" in lines


def test_every_process_of_a_command_is_recorded(tmp_path):
    keep = tmp_path / "log"
    done = subprocess.run(
        [sys.executable, "-m", "tools.compile_log", "--keep", str(keep),
         "--", sys.executable, "-c", TWICE],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 3, done.stderr  # the command's status
    rows = compile_log.read_log(keep)
    assert len(rows) == 2 and len({r["process"] for r in rows}) == 2
    assert all(r["function"].endswith("<lambda>") for r in rows)
    assert "in 2 compiles over 2 processes" in done.stdout


@pytest.mark.parametrize("argv, message", [
    ([], "give the command after --"),
    (["--top", "0", "--", "true"], "--top must be an integer >= 1"),
])
def test_bad_arguments_are_named(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        compile_log.main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_a_folder_with_records_is_not_mixed_in(tmp_path, capsys):
    (tmp_path / "1.jsonl").write_text("{}\n")
    with pytest.raises(SystemExit):
        compile_log.main(["--keep", str(tmp_path), "--", "true"])
    assert "already holds compile records" in capsys.readouterr().err
