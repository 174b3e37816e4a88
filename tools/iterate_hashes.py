"""Fingerprints of the core's iterates, to prove that a refactor changed
nothing: SHA-256 of x, y, z (and the sample count, kept apart) after a fixed
number of iterations, for every named preset and a few PnPBO mixtures, on
the four tasks, with several chunkings of the run.

    python -m tools.iterate_hashes record   # writes tools/iterate_hashes.json
    python -m tools.iterate_hashes check    # compares, lists what differs

The iterates are bitwise reproducible on one machine and build (the
kernels use fastmath reassociation, and LLVM picks vector widths and
reduction orders for the CPU it compiles for, so another CPU or numba
version may round differently): the file holds one record per machine
(CPU model, LLVM's name for the CPU, numba, numpy, Python), ``record``
adds or replaces this machine's, and ``check`` compares with it (and says
so when this machine has none).  A deliberate change of the rounding of
one task (a kernel's summation order) is recorded anew on the machine at
hand; other machines' records then declare that task's cases dropped
(``dropped``) instead of holding stale fingerprints.  The CPU model
alone is not enough: two "AMD EPYC" machines of different generations
(the first record's and a znver5) round the quadratic task differently.
"""
import hashlib
import json
import math
import platform
import sys
from pathlib import Path

import numpy as np

FILE = Path(__file__).with_name("iterate_hashes.json")
N_ITER = 60
CHUNKINGS = ((60,), (1, 59), (7, 13, 40))

MIXTURES = {
    "mix-saga-page-zerosarah-ma": dict(estimator_x="saga",
                                       estimator_y="page",
                                       estimator_z="zerosarah", ma="on",
                                       R=1.0, p=0.2),
    "mix-sarah-storm-sgd": dict(estimator_x="sarah", estimator_y="storm",
                                estimator_z="sgd", ma="off", R=2.0,
                                period=9, init="minibatch"),
    "mix-page-large-batch": dict(estimator_x="page", estimator_y="page",
                                 estimator_z="saga", ma="auto", R=1.0,
                                 p=0.3, large_batch=24),
    "mix-zerosarah-minibatch": dict(estimator_x="zerosarah",
                                    estimator_y="saga",
                                    estimator_z="zerosarah",
                                    init="minibatch", rho_bar=0.3,
                                    R=math.inf),
    "mix-schedules": dict(estimator_x="storm", estimator_y="sgd",
                          estimator_z="page", exponent_x=0.5,
                          exponent_y=0.3, exponent_z=0.7, outer_ratio=2.0,
                          z_ratio=0.5, storm_a=0.4, p=0.1, R=math.inf),
}


def machine():
    import numba
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        from llvmlite.binding import get_host_cpu_name
        llvm_cpu = get_host_cpu_name()
    except ImportError:
        llvm_cpu = ""
    return dict(cpu=cpu or platform.processor(), llvm_cpu=llvm_cpu,
                numba=numba.__version__, numpy=np.__version__,
                python=platform.python_version())


def records():
    """The recorded fingerprints: a list of ``{machine, cases}``."""
    if not FILE.exists():
        return []
    return json.loads(FILE.read_text())["records"]


def record_of(machine_key):
    """This machine's recorded cases, or None."""
    for rec in records():
        if rec["machine"] == machine_key:
            return rec["cases"]
    return None


def dropped(rec):
    """Case prefixes a record no longer holds, because a change of the
    kernels' summation order made them stale on a machine that could not
    record them again (``rec["dropped"]``: ``{"prefixes": [...], "reason":
    ...}``; e.g. the znver5 record's ``datacleaning/`` cases after the
    eight-sample chunked kernels for long rows, recorded anew on znver4)."""
    return tuple(rec.get("dropped", {}).get("prefixes", ()))


def expected_cases(rec, cases):
    """The keys of ``cases`` that record ``rec`` is expected to hold."""
    drop = dropped(rec)
    return {k for k in cases if not k.startswith(drop)} if drop else \
        set(cases)


def datasets():
    """Small seeded datasets of the four tasks (rows chosen so that full
    passes have chunk remainders and both multiclass kernel paths run)."""
    from benchmark_utils.simulated import make_quadratic
    rng = np.random.default_rng(11)
    out = {"quadratic": make_quadratic(n=40, m=300, dim_x=3, dim_y=4,
                                       seed=3)}

    def glm(task, n, m, p, C=None, **params):
        d = dict(task=task, X_train=rng.standard_normal((m, p)),
                 X_val=rng.standard_normal((n, p)), **params)
        for key, size in (("y_train", m), ("y_val", n)):
            d[key] = (rng.choice([-1.0, 1.0], size) if C is None
                      else rng.integers(0, C, size).astype(float))
        if C is not None:
            d["n_classes"] = C
        return d
    out["logreg"] = glm("logreg", 50, 70, 6)
    out["multilogreg"] = glm("multilogreg", 45, 60, 5, C=4)
    out["datacleaning"] = glm("datacleaning", 30, 41, 130, C=3,
                              l2_reg=0.2)
    return out


def configs():
    """{case: PnPBOConfig}: every preset at its defaults and every mixture,
    batch 8, step 0.05."""
    from benchmark_utils.algorithms import PRESETS, PnPBOConfig, config_of
    steps = dict(batch_size=8, step_size=0.05)
    out = {name: config_of(name, **steps) for name in PRESETS}
    out.update({name: PnPBOConfig(**steps, **mixture)
                for name, mixture in MIXTURES.items()})
    return out


def fingerprints():
    """{case: {"xyz": sha256, "n_samples": int}} for every case."""
    from benchmark_utils.algorithms import PnPBORun
    from benchmark_utils.problem import problem_from_data, starting_point
    out = {}
    for task, data in datasets().items():
        params = {k: v for k, v in data.items()
                  if k not in ("task", "X_train", "y_train", "X_val",
                               "y_val")}
        params.pop("X_test", None)
        params.pop("y_test", None)
        problem = problem_from_data(task, data["X_train"], data["y_train"],
                                    data["X_val"], data["y_val"], **params)
        x0, y0, z0 = starting_point(problem, 5)
        for name, cfg in configs().items():
            for chunks in CHUNKINGS:
                run = PnPBORun(problem, cfg, x0, y0, z0, 17)
                key = f"{task}/{name}/{'+'.join(map(str, chunks))}"
                out[key] = fingerprint(run, chunks)
        out.update(baseline_fingerprints(task, problem, (x0, y0, z0)))
    return out


# The baselines whose cases the records hold (a baseline added later is
# checked bitwise by its transcription and chunking tests instead; a case
# of its own would be missing from every machine's record)
HASHED_BASELINES = ("stocBiO", "AmIGO", "BSA", "TTSA", "SUSTAIN", "MRBO",
                    "VRBO", "FSLA", "F2SA")


def baseline_fingerprints(task, problem, start):
    """The nine recorded baselines' cases on one task (``baseline/<task>/
    <name>/<chunking>``): batch 8, T = Q = 3 so that every loop and VRBO's
    restarts run within the 60 iterations."""
    from benchmark_utils.algorithms import BaselineConfig, BaselineRun
    out = {}
    for name in HASHED_BASELINES:
        cfg = BaselineConfig(algorithm=name, batch_size=8, step_size=0.01,
                             n_inner_steps=3, n_z_steps=3, Q=3, period=7)
        for chunks in CHUNKINGS:
            run = BaselineRun(problem, cfg, *start, 17)
            key = f"baseline/{task}/{name}/{'+'.join(map(str, chunks))}"
            out[key] = fingerprint(run, chunks)
    return out


def fingerprint(run, chunks):
    """Run ``run`` in ``chunks`` of iterations; the SHA-256 of its x, y, z
    bytes, its sample count and its iteration count."""
    for c in chunks:
        run.run(c)
    h = hashlib.sha256()
    for v in (run.x, run.y, run.z):
        h.update(np.ascontiguousarray(v).tobytes())
    return dict(xyz=h.hexdigest(), n_samples=run.n_samples,
                iteration=run.iteration)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv not in (["record"], ["check"]):
        print(__doc__)
        return 2
    here = machine()
    if argv == ["check"] and record_of(here) is None:
        print(f"no fingerprints recorded on this machine ({here}); "
              f"recorded on: {[r['machine'] for r in records()]}.\n"
              "Record them on a commit whose iterates you trust (git "
              "stash, `record`, unstash), then `check`.")
        return 2
    current = fingerprints()
    if argv == ["record"]:
        kept = [r for r in records() if r["machine"] != here]
        kept.append(dict(machine=here, cases=current))
        FILE.write_text(json.dumps(dict(n_iter=N_ITER, records=kept),
                                   indent=1) + "\n")
        print(f"{len(current)} fingerprints of {here} written to {FILE} "
              f"({len(kept)} machines)")
        return 0
    ref = record_of(here)
    bad_xyz = [k for k, v in ref.items()
               if current.get(k, {}).get("xyz") != v["xyz"]]
    bad_n = [k for k, v in ref.items()
             if current.get(k, {}).get("n_samples") != v["n_samples"]]
    for k in bad_xyz:
        print(f"iterates differ: {k}")
    for k in bad_n:
        print(f"n_samples differ: {k}: {ref[k]['n_samples']} -> "
              f"{current.get(k, {}).get('n_samples')}")
    print(f"{len(ref)} cases: {len(bad_xyz)} with other iterates, "
          f"{len(bad_n)} with another sample count")
    return 1 if bad_xyz or bad_n else 0


if __name__ == "__main__":
    sys.exit(main())
