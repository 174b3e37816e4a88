"""A run compiles only its task's kernels (docs/architecture.md, "Compile
time"): the core specialised on the quadratic task's marker compiles no
softmax or logistic kernel, a baseline run compiles its own family only,
each says what it compiles while it takes longer than a cache load, and a
new process loads them from numba's cache without compiling anything."""
import json
import os
import subprocess
import sys

import pytest
from bench_helpers import ROOT

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from benchmark_utils.tasks import batch_products, logreg, multilogreg
from benchmark_utils import engine
t = time.perf_counter()
engine.compile_core("float64", "quadratic")
engine.compile_baselines("float64", "quadratic", "MRBO")
print(json.dumps(dict(
    baseline_types=[str(s[4]) for s in engine.run_baseline.signatures],
    seconds=time.perf_counter() - t,
    engine=len(engine.run_iterations.signatures),
    engine_types=[str(s[0]) for s in engine.run_iterations.signatures],
    other_kernels=sum(len(f.signatures) for f in (
        batch_products.batch_class_dots, batch_products.batch_add_outer,
        multilogreg.coef_f, multilogreg.coef_g, logreg.coef_f,
        logreg.coef_g)),
    compiled=sum(len(d.stats.cache_misses) for d in (
        engine.run_iterations, engine.run_baseline)))))
"""


def child(cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    proc = subprocess.run([sys.executable, "-c", CHILD, ROOT], env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    return json.loads(lines[-1]), "\n".join(lines[:-1])


@pytest.mark.slow
def test_a_quadratic_run_compiles_the_quadratic_kernels_only(tmp_path):
    cold, said = child(tmp_path / "cache")
    assert cold["engine"] == 1 and "Quadratic" in cold["engine_types"][0]
    assert cold["other_kernels"] == 0  # no other task's kernel compiled
    assert cold["compiled"] == 2
    # MRBO's family (momentum) only, on the quadratic task
    [baseline] = cold["baseline_types"]
    assert "Jacobi" in baseline
    assert not any(name in baseline for name in (
        "Inner", "GaussSeidel", "Restart", "Penalty"))
    # what compiles is announced while it lasts (more than 2 s cold)
    if cold["seconds"] > 5:
        assert "compiling the single-loop core for the quadratic task" \
            in said
        assert "compiling the baselines' momentum loop for the quadratic " \
            "task" in said
    warm, said = child(tmp_path / "cache")
    assert warm["compiled"] == 0  # loaded from numba's cache
    assert warm["other_kernels"] == 0 and said == ""
