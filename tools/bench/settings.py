"""Constants of the bench and its targets (read from ``targets.json``)."""
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TARGETS_FILE = Path(__file__).with_name("targets.json")

# Step size on the quadratic problem and on the real shapes (small: nothing
# diverges).
STEP_SIZE = 1e-3
SHAPE_STEP_SIZE = 1e-4
# Overrides that switch off the periodic/random full passes after k = 0.
NON_FULL = {"SPABA": dict(p=1e-9), "MSEBA": dict(p=1e-9),
            "SRBA": dict(period=10**9)}
FULL_PASS_SOLVER = "SPABA"
# Shapes where part 4 (peak memory) is measured.
MEMORY_SHAPES = ("mnist",)

FULL_SETTINGS = dict(warmup=300, target=0.5, repeats=5, stream_repeats=10,
                     memory_iters=2000, warm_per_solver=True)
QUICK_SETTINGS = dict(warmup=100, target=0.1, repeats=2, stream_repeats=3,
                      memory_iters=200, warm_per_solver=False)


def load_targets(path=TARGETS_FILE):
    """(per-shape targets, non-full / SOBA targets) from ``targets.json``."""
    data = json.loads(Path(path).read_text())
    return data["shapes"], data["non_full_x_soba"]


# us/iteration at batch 64, full pass / numpy stream, peak RSS (MiB), one
# metric evaluation (s), per shape; non-full iteration / SOBA per solver.
SHAPE_TARGETS, NON_FULL_TARGET = load_targets()
# A baseline's ns per sample evaluation over SOBA's, on the same shape and
# sampling (x); SOBA is measured beside the baselines for this ratio.
BASELINE_TARGET = json.loads(TARGETS_FILE.read_text())["baseline_ns_x_soba"]
RATIO_REFERENCE = "SOBA"
