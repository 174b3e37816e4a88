"""Seeds: the same seed gives bitwise-identical runs (whatever the chunking
into callbacks), another seed or another repetition gives another run."""
import numpy as np
import pytest

from bench_helpers import objective_for
from benchmark_utils.pnpbo import PnPBOConfig, PnPBORun
from benchmark_utils.presets import PRESETS
from conftest import problem_of, start_point


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_same_seed_bitwise_other_seed_differs(small_data, name):
    cfg = PnPBOConfig(**PRESETS[name], batch_size=8, step_size=0.05, p=0.2)
    x0, y0, z0 = start_point(small_data)
    p = problem_of(small_data)
    a = PnPBORun(p, cfg, x0, y0, z0, seed=11)
    a.run(200)
    b = PnPBORun(p, cfg, x0, y0, z0, seed=11)
    for chunk in (1, 7, 92, 100):  # 200 iterations in uneven chunks
        b.run(chunk)
    c = PnPBORun(p, cfg, x0, y0, z0, seed=12)
    c.run(200)
    for key in "xyz":
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
        assert not np.array_equal(getattr(a, key), getattr(c, key))
    assert a.n_samples == b.n_samples


def test_repetitions_differ_and_replay():
    params = dict(n=200, m=300, dim_x=5, dim_y=10)
    o0 = objective_for(params, repetition=0).get_objective()
    o0b = objective_for(params, repetition=0).get_objective()
    o1 = objective_for(params, repetition=1).get_objective()
    assert o0["seed"] == o0b["seed"] != o1["seed"]
    np.testing.assert_array_equal(o0["x0"], o0b["x0"])
    assert not np.array_equal(o0["x0"], o1["x0"])


def test_numba_cache_is_dropped_when_a_kernel_source_changes(tmp_path,
                                                             monkeypatch):
    """A change to any file with numba code (not only the cached function's
    own file) removes the cache files; other files do not."""
    from benchmark_utils import numba_cache
    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    kernel = pkg / "kernel.py"
    kernel.write_text("from numba import njit\n")
    (pkg / "plain.py").write_text("x = 1\n")
    monkeypatch.setattr(numba_cache, "PACKAGE", pkg)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    assert numba_cache.ensure_fresh()          # first stamp
    cached = pkg / "__pycache__" / "engine.run-1.py311.nbi"
    cached.write_text("index")
    assert not numba_cache.ensure_fresh() and cached.exists()
    (pkg / "plain.py").write_text("x = 2\n")   # not numba code
    assert not numba_cache.ensure_fresh() and cached.exists()
    kernel.write_text("from numba import njit\n# changed\n")
    assert numba_cache.ensure_fresh() and not cached.exists()


def test_a_numba_cache_dir_of_its_own_leaves_the_in_tree_cache_alone(
        tmp_path, monkeypatch):
    """With NUMBA_CACHE_DIR set (e.g. the cold-compile test's empty folder)
    numba reads and writes only there: only that folder is cleaned."""
    from benchmark_utils import numba_cache
    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "kernel.py").write_text("from numba import njit\n")
    in_tree = pkg / "__pycache__" / "engine.run-1.py311.nbi"
    in_tree.write_text("index")
    root = tmp_path / "numba_cache"
    user = root / "work" / "benchmark_utils"
    user.mkdir(parents=True)
    (user / "engine.run-1.py311.nbi").write_text("index")
    monkeypatch.setattr(numba_cache, "PACKAGE", pkg)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(root))
    assert numba_cache.ensure_fresh()   # no stamp there yet: clean it
    assert in_tree.exists()
    assert not (user / "engine.run-1.py311.nbi").exists()
    assert (root / numba_cache.STAMP).exists()
    assert not (pkg / "__pycache__" / numba_cache.STAMP).exists()
    # an empty NUMBA_CACHE_DIR that does not exist yet: nothing to clean
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "new" / "dir"))
    assert numba_cache.ensure_fresh() and in_tree.exists()
