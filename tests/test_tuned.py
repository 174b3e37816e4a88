"""``step_size=tuned`` (and the other ``tuned.TUNABLE`` parameters): every
tuned entry names an existing solver and dataset and gives a valid
configuration, the Objective passes the dataset's key to the solvers, the
solver runs with exactly the table's numbers, and a missing entry is an
error that names what exists."""
import math
import re
from pathlib import Path

import pytest
import yaml

from bench_helpers import ROOT, benchmark, objective_for, solver_class
from benchmark_utils import tuned
from benchmark_utils.tuned import TUNABLE, TUNED

OFFLINE = ("Simulated", "digits", "breast_cancer", "wine")
# datasets that need files: their keys as datasets/*.py return them
NEED_FILES = ("ijcnn1", "covtype", "mnist", "fashion-mnist")


def _solver_names():
    return {s.name for s in benchmark().get_solvers()}


def test_every_entry_names_a_dataset_a_solver_and_tunable_parameters():
    names = _solver_names()
    assert set(TUNED) <= set(OFFLINE + NEED_FILES)
    for dataset, solvers in TUNED.items():
        assert solvers, dataset
        for solver, values in solvers.items():
            assert solver in names, (dataset, solver)
            assert values and set(values) <= set(TUNABLE), (dataset, solver)
            for key, value in values.items():
                assert isinstance(value, float) and value > 0, \
                    (dataset, solver, key, value)


@pytest.mark.parametrize("dataset", OFFLINE)
def test_objective_passes_the_datasets_key(dataset):
    objective = objective_for({}, dataset=dataset)
    assert objective.get_objective()["dataset"] == dataset


def _tuned_instance(name, dataset, keys):
    cls = solver_class(name)
    solver = cls.get_instance(**{k: "tuned" for k in keys})
    solver.dataset = dataset
    return solver


@pytest.mark.parametrize("dataset, name", [
    (d, s) for d in sorted(TUNED) for s in sorted(TUNED[d])])
def test_every_entry_gives_the_tables_numbers(dataset, name):
    """Each tuned parameter reaches its configuration field with the
    table's value; the others keep the solver's defaults."""
    cls = solver_class(name)
    keys = [k for k in TUNABLE if k in cls.parameters]
    solver = _tuned_instance(name, dataset, keys)
    cfg = solver.config().validate()
    default = cls.get_instance().config()
    entry = TUNED[dataset][name]
    setting = tuned.SETTINGS.get(dataset, {}).get(name, {})
    for key in keys:
        expected = setting.get(key, entry.get(key, getattr(default, key)))
        assert getattr(cfg, key) == expected, key


@pytest.mark.parametrize("dataset, name", [
    (d, s) for d in sorted(tuned.SETTINGS) for s in sorted(tuned.SETTINGS[d])])
def test_a_setting_comes_with_its_tuned_values(dataset, name):
    """A reference value runs the algorithm it was tuned for: every
    parameter of its setting reaches the configuration, from the solver's
    default or the setting's own value; another value is named."""
    setting = tuned.SETTINGS[dataset][name]
    cls = solver_class(name)
    expected = cls.get_instance(**setting).config()
    for given in ({}, setting):
        solver = cls.get_instance(step_size="tuned", outer_ratio="tuned",
                                  **given)
        solver.dataset = dataset
        cfg = solver.config()
        entry = TUNED[dataset][name]
        assert (cfg.step_size, cfg.outer_ratio) == (
            entry["step_size"], entry["outer_ratio"])
        for field in ("R", "period", "init", "exponent_x", "exponent_y",
                      "exponent_w", "exponent_delta", "delta_lmbda"):
            if hasattr(cfg, field):
                assert getattr(cfg, field) == getattr(expected, field), field
    key, value = next(iter(setting.items()))
    if key == "init":
        return  # SABA's init has two values: the setting's and the default
    other = {"R": 5.0, "period": 7, "exponent_x": 0.25}[key]
    assert other != value
    solver = cls.get_instance(step_size="tuned", **{key: other})
    solver.dataset = dataset
    with pytest.raises(ValueError, match=rf"^{key} must be .* with tuned "
                       rf"values: {name}'s on '{dataset}' were tuned with"):
        solver.config()


def test_the_reference_settings():
    """SRBA's period is the reference's int((n + m) period_frac / 64) on
    our sizes and clipping is off; F2SA runs the reference's exponents and
    delta_lmbda on MNIST; SABA starts from a zero memory."""
    s = tuned.SETTINGS
    assert s["ijcnn1"]["SRBA"] == dict(period=1106, R=math.inf)
    assert s["covtype"]["SRBA"] == dict(period=58101, R=math.inf)
    assert s["mnist"]["SRBA"] == dict(period=200000, R=math.inf)
    assert s["mnist"]["F2SA"] == dict(
        exponent_x=4 / 7, exponent_y=5 / 7, exponent_w=4 / 7,
        exponent_delta=1 / 7, delta_lmbda=1.0)
    assert s["ijcnn1"]["SABA"] == s["mnist"]["SABA"] == dict(
        init="minibatch")
    # AmIGO's one n_inner_steps sets both inner loops there: ours are
    # equal by default, so AmIGO needs no setting
    amigo = solver_class("AmIGO").parameters
    assert amigo["n_inner_steps"] == amigo["n_z_steps"] == [10]


def test_a_run_uses_the_tuned_values_end_to_end():
    """wine: the Objective's key, set_objective and the run's config."""
    objective = objective_for({}, dataset="wine")
    cls = solver_class("SPABA")
    solver = cls.get_instance(step_size="tuned", outer_ratio="tuned",
                              R="tuned", batch_size=16)
    solver.set_objective(**objective.get_objective())
    entry = TUNED["wine"]["SPABA"]
    assert solver.cfg.step_size == entry["step_size"]
    assert solver.cfg.outer_ratio == entry["outer_ratio"]
    assert solver.cfg.R == entry["R"] == tuned.R_FROM_DATA["wine"]
    assert solver.cfg.z_ratio == 1.0  # not asked: the default
    assert solver.cfg.batch_size == 16


def test_numbers_are_left_alone():
    solver = _tuned_instance("SPABA", "wine", ["step_size"])
    solver.outer_ratio = 3.0
    cfg = solver.config()
    assert cfg.outer_ratio == 3.0
    assert cfg.step_size == TUNED["wine"]["SPABA"]["step_size"]


def test_missing_entries_are_named():
    solver = _tuned_instance("SPABA", "ijcnn1", ["step_size"])
    with pytest.raises(ValueError, match=r"SPABA has no tuned parameters on "
                       r"dataset 'ijcnn1' \(it has on: \[.*'wine'"):
        solver.config()
    solver = _tuned_instance("PnPBO", "wine", ["step_size"])
    with pytest.raises(ValueError, match="PnPBO has no tuned parameters.*"
                       "none"):
        solver.config()
    solver = _tuned_instance("SPABA", None, ["step_size"])
    with pytest.raises(ValueError, match="dataset is unknown"):
        solver.config()


def test_tuned_on_another_parameter_is_a_bad_value():
    cls = solver_class("SPABA")
    solver = cls.get_instance(p="tuned")
    solver.dataset = "wine"
    with pytest.raises(ValueError, match="^p "):
        solver.config().validate()


def test_clipping_radius_comes_from_the_data():
    """The clipped solvers' tuned R on the scikit-learn datasets is
    tools.z_radius's value; the unclipped ones keep R = inf."""
    for dataset, radius in tuned.R_FROM_DATA.items():
        for name, entry in TUNED[dataset].items():
            default_R = solver_class(name).get_instance().config().R
            if math.isinf(default_R):
                assert "R" not in entry, (dataset, name)
            else:
                assert entry["R"] == radius, (dataset, name)


def test_paper_configs_use_the_reference_values():
    """configs/paper_*.yml's explicit baseline steps are the table's, with
    the setting they were tuned under."""
    for dataset in ("ijcnn1", "covtype", "mnist"):
        spec = yaml.safe_load(
            Path(ROOT, "configs", f"paper_{dataset}.yml").read_text())
        seen = 0
        for line in spec["solver"]:
            name, _, params = line.partition("[")
            if name not in TUNED[dataset]:
                continue
            values = dict(re.findall(r"(step_size|outer_ratio)=([^,\]]+)",
                                     params))
            entry = TUNED[dataset][name]
            assert float(values["step_size"]) == entry["step_size"], line
            assert float(values["outer_ratio"]) == entry["outer_ratio"], line
            setting = tuned.SETTINGS.get(dataset, {}).get(name, {})
            for key, value in setting.items():
                written = re.search(rf"(?:^|,){key}=([^,\]]+)", params)
                assert written, (line, key)
                text = written.group(1)
                assert (text if isinstance(value, str)
                        else float(text)) == value, (line, key)
            seen += 1
        assert seen >= 5, dataset


def test_round_up_to_one_significant_digit():
    from tools.z_radius import round_up
    assert round_up(54.2) == 60
    assert round_up(3.64) == 4
    assert round_up(131.8) == 200
    assert round_up(0.012) == pytest.approx(0.02)


@pytest.mark.parametrize("dataset", sorted(tuned.R_FROM_DATA))
def test_radius_is_what_z_radius_gives(dataset):
    """tools.z_radius on the splits and starting points of benchopt's first
    five repetitions: R = 2 max ||z*(x_k)|| over the converged paths,
    rounded up, is the table's R, and R = 1 would clip z* (the reason for
    it)."""
    from tools.z_radius import DATASETS, benchopt_seeds, suggested_radius, \
        z_star_path
    paths = []
    for rep in range(5):
        split, start = benchopt_seeds(repetition=rep)
        paths.append(z_star_path(DATASETS[dataset](split), start))
    assert all(p["H"] < p["H0"] for p in paths)
    assert max(p["max"] for p in paths) > 1.0
    assert suggested_radius(paths) == tuned.R_FROM_DATA[dataset]


def test_paper_mnist_uses_the_fashion_mnist_tuning():
    """configs/paper_mnist.yml's PnPBO algorithms: the values tuned on
    Fashion-MNIST (the paper publishes none)."""
    spec = yaml.safe_load(
        Path(ROOT, "configs", "paper_mnist.yml").read_text())
    for name in ("SPABA", "SFFBA", "MSEBA", "MA-SABA"):
        line = next(s for s in spec["solver"] if s.startswith(name + "["))
        values = dict(re.findall(r"(step_size|outer_ratio)=([^,\]]+)", line))
        entry = TUNED["fashion-mnist"][name]
        assert float(values["step_size"]) == entry["step_size"], line
        assert float(values["outer_ratio"]) == entry["outer_ratio"], line


def test_the_documented_table_is_the_tuned_table():
    """docs/comparisons.md's table of tuned values is ``python -m
    benchmark_utils.tuned`` (it once kept SFFBA's wine step after tuned.py
    changed)."""
    from pathlib import Path
    from benchmark_utils.tuned import markdown_table
    page = Path(__file__).resolve().parents[1].joinpath(
        "docs", "comparisons.md").read_text()
    from benchmark_utils.tuned import settings_markdown
    missing = [row for row in (markdown_table() + "\n"
                               + settings_markdown()).splitlines()
               if row.strip() and row not in page]
    assert missing == []
