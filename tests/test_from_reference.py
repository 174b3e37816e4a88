"""``tools.from_reference``: benchmark_bilevel's configuration lines
converted into this benchmark's (names, parameters, SRBA's period from
``period_frac`` and the dataset's sizes, AmIGO's inner loops, the settings
of ``reference_settings``), every parameter that is not carried over
named in a warning, and the result a configuration benchopt accepts.
The reference configurations are small YAML strings written here."""
import itertools
import math

import pytest
import yaml
from benchopt.utils.parametrized_name_mixin import _check_patterns

from bench_helpers import benchmark, dataset_class
from benchmark_utils import tuned
from benchmark_utils.data import covtype, sizes
from tools import from_reference
from tools.from_reference import convert_config, main
from tools.reference_lines import read_line, values_of
from tools.reference_map import dataset_line, solver_line

COVTYPE_CONFIG = """
objective:
  - Bilevel Optimization
dataset:
  - covtype[random_state=2442]
solver:
  - SRBA[batch_size=64,eval_freq=2048,framework=none,outer_ratio=0.01,period_frac=8.0,step_size=0.03125,random_state=[1, 2, 3],framework=none]
  - AmIGO[batch_size=64,framework=none,n_inner_steps=5,outer_ratio=0.1,step_size=0.03125,random_state=[1, 2, 3]]
  - PZOBO[eval_freq=1,framework=none,mu=0.1,n_gaussian_vectors=1]
  - StocBiO[batch_size=64,n_inner_steps=10,n_shia_steps=10,outer_ratio=0.01,step_size=0.0625,random_state=[1, 2, 3]
n-repetitions: 1
timeout: 900
"""  # noqa: E501


def _warnings(messages):
    return [text for level, text in messages if level == "warning"]


def _params(line):
    name, params, problems = read_line(line)
    assert problems == []
    return name, params


def test_a_config_converts():
    spec, messages = convert_config(yaml.safe_load(COVTYPE_CONFIG))
    assert spec["objective"] == ["Bilevel Optimization"]
    assert spec["dataset"] == ["covtype"]
    assert spec["n-repetitions"] == 1 and spec["timeout"] == 900
    lines = dict(_params(line) for line in spec["solver"])
    assert set(lines) == {"SRBA", "AmIGO", "StocBiO", "PZOBO"}
    n, m = covtype.SIZES[1], covtype.SIZES[0]
    srba = lines["SRBA"]
    assert srba["period"] == str(int((n + m) * 8.0 / 64)) == "58101"
    assert srba["R"] == "inf"
    assert "period_frac" not in srba and "framework" not in srba
    assert srba["random_state"] == "[1, 2, 3]"
    assert srba["sampling"] == "blocks"
    amigo = lines["AmIGO"]
    assert amigo["n_inner_steps"] == amigo["n_z_steps"] == "5"
    # PZOBO runs on full batches there; eval_freq is the Objective's
    # eval_epochs here, not a solver's parameter
    assert lines["PZOBO"] == {"mu": "0.1", "n_gaussian_vectors": "1",
                              "batch_size": "full", "sampling": "blocks"}
    assert any(w.startswith("PZOBO: parameter eval_freq=1 dropped")
               for w in _warnings(messages))
    warnings = _warnings(messages)
    # what is not carried over is named, with the reason
    assert any("covtype: random_state=2442 dropped" in w for w in warnings)
    assert ("note", "PZOBO: the reference runs it on full batches: set "
            "batch_size=full") in messages
    assert any("StocBiO: the line has no closing ']'" in w for w in warnings)
    assert any("regulariser" in w and "ln 2" in w for w in warnings)


def test_srba_period_needs_sizes():
    line, messages = solver_line("SRBA[period_frac=0.5,step_size=0.25]")
    assert _params(line) == ("SRBA", {"step_size": "0.25", "R": "inf",
                                      "sampling": "blocks"})
    assert any(w.startswith("SRBA: period_frac=0.5 dropped") and
               "--n-samples" in w for w in _warnings(messages))
    line, _ = solver_line("SRBA[period_frac=[0.5,8],batch_size=32]",
                          (100, 200))
    assert _params(line)[1]["period"] == "[4,75]"


def test_srba_period_is_the_tuned_setting():
    """The converter and tuned.py's SETTINGS give one period per dataset."""
    for dataset, frac in (("ijcnn1", 0.5), ("covtype", 8.0),
                          ("mnist", 512.0)):
        line, _ = solver_line(f"SRBA[period_frac={frac}]",
                              sizes.levels(dataset))
        setting = tuned.SETTINGS[dataset]["SRBA"]
        assert values_of(_params(line)[1]["period"]) == [setting["period"]]


def test_f2sa_and_saba_run_the_references_algorithms():
    line, messages = solver_line(
        "F2SA[batch_size=64,delta_lmbda=1.0,lmbda0=1.0,n_inner_steps=10,"
        "outer_ratio=0.0001,step_size=0.1]")
    params = _params(line)[1]
    assert values_of(params["exponent_x"]) == [4 / 7]
    assert values_of(params["exponent_y"]) == [5 / 7]
    assert values_of(params["exponent_w"]) == [4 / 7]
    assert values_of(params["exponent_delta"]) == [1 / 7]
    assert params["delta_lmbda"] == "1.0"
    line, messages = solver_line("SABA[mode_init_memory=full,step_size=0.1]")
    assert _params(line)[1]["init"] == "minibatch"
    assert any("mode_init_memory=full dropped" in text
               for _, text in messages)


def test_unknown_and_unmappable_parameters_are_named():
    line, messages = solver_line(
        "BSA[n_hia_steps=10,foo=3,batch_size=full,tol=1e-3]")
    assert _params(line) == ("BSA", {"n_hia_steps": "10",
                                     "sampling": "blocks"})
    warnings = _warnings(messages)
    assert any("BSA: parameter foo=3 dropped" in w for w in warnings)
    assert any("BSA: parameter tol=1e-3 dropped" in w for w in warnings)
    assert any("batch_size=full dropped" in w for w in warnings)
    assert any("Ghadimi and Wang" in w for w in warnings)  # the order
    line, messages = solver_line("AmIGOAmIGO[batch_size=64]")
    assert line is None and _warnings(messages)
    line, messages = solver_line("MRBO[eta=2.0]")
    assert any("eta must be in (0, 1], got 2.0" in w
               for w in _warnings(messages))


def test_datasets_convert():
    line, data_sizes, messages = dataset_line(
        "mnist[oracle=datacleaning,random_state=32,ratio=[0.5,0.7],reg=0.2]")
    assert _params(line) == ("mnist", {"ratio": "[0.5,0.7]",
                                       "l2_reg": "0.2"})
    assert data_sizes == (5000, 20000)
    assert any("random_state=32 dropped" in w for w in _warnings(messages))
    line, data_sizes, messages = dataset_line(
        "quadratic[L_cross_inner=0.1,mu_inner=[.1],n_samples_inner=[32768],"
        "n_samples_outer=[1024],dim_inner=100,dim_outer=10]")
    assert _params(line) == ("Simulated", {
        "n": "1024", "m": "32768", "dim_x": "10", "dim_y": "100",
        "mu": "0.1"})
    assert data_sizes == (1024, 32768)
    warnings = _warnings(messages)
    assert any("another generator" in w for w in warnings)
    assert any("L_cross_inner=0.1 dropped" in w for w in warnings)
    line, _, messages = dataset_line("ijcnn1[reg_parametrization=lin]")
    assert line == "ijcnn1"
    assert any("reg_parametrization=lin dropped" in w
               for w in _warnings(messages))
    assert dataset_line("svhn")[0] is None


def test_a_quadratic_config_takes_its_sizes_and_n_samples_overrides():
    spec = dict(dataset=["quadratic[n_samples_inner=300,n_samples_outer=100]"],
                solver=["SRBA[period_frac=0.64]"])
    out, _ = convert_config(spec)
    assert _params(out["solver"][0])[1]["period"] == "4"
    out, _ = convert_config(spec, sizes=(1000, 1000))
    assert _params(out["solver"][0])[1]["period"] == "20"
    spec["dataset"].append("covtype")
    out, messages = convert_config(spec)
    assert "period" not in _params(out["solver"][0])[1]
    assert any("different sizes" in w for w in _warnings(messages))


def test_the_converted_config_is_one_benchopt_runs():
    """benchopt's own pattern check on the datasets and solvers, and every
    solver setting a valid configuration on the dataset's sizes."""
    spec, _ = convert_config(yaml.safe_load(COVTYPE_CONFIG))
    spec["dataset"].append("Simulated[n=1024,m=32768,dim_x=10,dim_y=100]")
    bench = benchmark()
    _check_patterns(bench.get_datasets(), spec["dataset"], "dataset")
    selected = _check_patterns(bench.get_solvers(), spec["solver"], "solver")
    assert len(selected) == 4
    for cls, params in selected:
        keys = list(params)
        grids = [v if isinstance(v, list) else [v] for v in params.values()]
        for values in itertools.product(*grids):
            solver = cls.get_instance(**dict(zip(keys, values)))
            solver._sizes = sizes.levels("covtype")
            solver.config().validate()
            if cls.name == "SRBA":
                assert solver.config().R == math.inf


def test_the_sizes_table_is_the_datasets_defaults():
    assert covtype.SIZES == sizes.COVTYPE
    mnist = dataset_class("mnist").parameters
    assert (mnist["n_train"], mnist["n_val"], mnist["n_test"]) == tuple(
        [v] for v in sizes.MNIST)
    with pytest.raises(ValueError, match="dataset must be one of"):
        sizes.levels("wine")


def test_the_command_line(tmp_path, capsys):
    source = tmp_path / "ref.yml"
    source.write_text(COVTYPE_CONFIG)
    out = tmp_path / "ours.yml"
    assert main([str(source), "--write", str(out)]) == 0
    err = capsys.readouterr().err
    assert "note: PZOBO: the reference runs it on full batches" in err
    assert "note: framework=none dropped" in err
    text = out.read_text()
    assert "# warning: covtype: random_state=2442 dropped" in text
    assert yaml.safe_load(text)["dataset"] == ["covtype"]
    assert main(["SRBA[period_frac=0.5,step_size=0.25]",
                 "--dataset", "ijcnn1"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == \
        "SRBA[period=1106,step_size=0.25,R=inf,sampling=blocks]"
    with pytest.raises(SystemExit, match="no such file"):
        main([str(tmp_path / "missing.yml")])
    with pytest.raises(SystemExit, match="--n-samples must be"):
        main(["SRBA[period_frac=0.5]", "--n-samples", "0", "5"])
    assert from_reference.OBJECTIVE == benchmark().get_benchmark_objective(
        ).name


@pytest.mark.parametrize("text, why", [
    ("solver:\n  - jaxopt_ITD[step_size=0.1]\n  - jaxopt_GD\n",
     "solver jaxopt_ITD: jaxopt_ITD (unrolled differentiation with jaxopt)"),
    ("", "it has no solver line"),
    ("dataset:\n  - covtype\n", "it has no solver line"),
])
def test_a_config_where_no_solver_converts_is_refused(tmp_path, text, why):
    """benchopt reads ``solver: []`` as every solver: nothing is written."""
    source, out = tmp_path / "ref.yml", tmp_path / "ours.yml"
    source.write_text(text)
    with pytest.raises(SystemExit) as exc:
        main([str(source), "--write", str(out)])
    message = str(exc.value)
    assert message.startswith(f"source {source}: no solver line converted")
    assert why in message and "runs every solver" in message
    assert not out.exists()
    with pytest.raises(SystemExit, match="no solver line converted"):
        main(["jaxopt_GD[step_size=0.1]", "--write", str(out)])
    assert not out.exists()


@pytest.mark.parametrize("text, expected", [
    ("solver: [SOBA\ndataset: covtype\n", "not valid YAML at line 2"),
    ("- SOBA[step_size=0.1]\n- SABA\n",
     "expected a benchmark_bilevel run config, a mapping of run options "
     "(objective:, dataset:, solver:, n-repetitions:, ...), got a list"),
    ("just a sentence\n", "got a str at the top level"),
])
def test_a_source_that_is_not_a_config_is_named(tmp_path, text, expected):
    source = tmp_path / "ref.yml"
    source.write_text(text)
    with pytest.raises(SystemExit) as exc:
        main([str(source)])
    assert str(exc.value).startswith(f"source {source}: ")
    assert expected in str(exc.value)
