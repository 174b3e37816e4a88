"""``python -m tools.paper_grid``: the paper's (alpha, phi, kappa) grid in
this benchmark's parameters (docs/comparisons.md, "From the paper's grid")."""
import itertools
import re

import numpy as np
import pytest
import yaml

from tools import paper_grid


def _params(setting):
    body = re.match(r"(\w[\w-]*)\[(.*)\]$", setting).group(2)
    return {k: v for k, v in (kv.split("=") for kv in body.split(","))}


def test_full_grid_maps_alpha_phi_kappa():
    args = paper_grid.parse_args(["--dataset", "ijcnn1", "--solvers",
                                  "SPABA,SFFBA,MSEBA", "--p", "0.01,0.1"])
    spec = yaml.safe_load(paper_grid.config_text(args))
    assert spec["dataset"] == ["ijcnn1"]
    solvers = spec["solver"]
    # 11^3 points; SPABA x 2 p values, SFFBA x 1 rho_bar, MSEBA x 2 x 1
    assert len(solvers) == 1331 * (2 + 1 + 2)
    alphas = np.logspace(-3, 0, 11)
    phis = kappas = np.logspace(-5, 0, 11)
    found = set()
    for s in solvers:
        if not s.startswith("SPABA["):
            continue
        p = {k: float(v) for k, v in _params(s).items()
             if k != "sampling"}
        alpha = p["step_size"] / p["outer_ratio"]       # beta / (beta/alpha)
        phi = 1.0 / p["outer_ratio"]
        kappa = p["z_ratio"] * phi                      # (kappa/phi) * phi
        i = np.argmin(abs(np.log(alphas / alpha)))
        j = np.argmin(abs(np.log(phis / phi)))
        k = np.argmin(abs(np.log(kappas / kappa)))
        assert np.allclose([alpha, phi, kappa],
                           [alphas[i], phis[j], kappas[k]], rtol=1e-5)
        found.add((i, j, k, p["p"]))
    assert found == set(itertools.product(range(11), range(11), range(11),
                                          (0.01, 0.1)))


def test_example_of_the_readme():
    """alpha = 0.1, phi = 0.01, kappa = 0.1 is step_size=10,
    outer_ratio=100, z_ratio=10."""
    (s,) = paper_grid.settings("SPABA", [0.1], [0.01], [0.1], {"p": [0.01]},
                               "")
    assert s == "SPABA[step_size=10,outer_ratio=100,z_ratio=10,p=0.01]"


def test_unknown_solver_is_refused(capsys):
    with pytest.raises(SystemExit):
        paper_grid.parse_args(["--dataset", "x", "--solvers", "StocBiO"])
    assert "unknown solvers ['StocBiO']" in capsys.readouterr().err
