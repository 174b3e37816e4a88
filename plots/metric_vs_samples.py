from benchopt import BasePlot

from benchmark_utils import plot_views as pv


class Plot(BasePlot):
    """A metric against sample evaluations (``n_samples``) or epochs
    (``n_samples / (n + m)``, docs/algorithms.md §5): the x-axis of the
    paper's sample-complexity claims.  Median over repetitions at each
    evaluation with a 20–80 % quantile band; non-finite points dropped
    (``benchmark_utils/plot_views.py``)."""
    name = "metric_vs_samples"
    type = "scatter"
    options = {
        "dataset": pv.dataset_options,
        "objective": pv.objective_options,
        "objective_column": pv.metric_options,
        "X_axis": ["Epochs", "Samples"],
    }

    def plot(self, df, dataset, objective, objective_column, X_axis):
        return pv.curves(self, df, dataset, objective, objective_column,
                         X_axis)

    def get_metadata(self, df, dataset, objective, objective_column, X_axis):
        return pv.metadata(df, dataset, objective, objective_column, X_axis)
