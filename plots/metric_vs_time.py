from benchopt import BasePlot

from benchmark_utils import plot_views as pv


class Plot(BasePlot):
    """A metric against the solver's time: benchopt's ``objective_curve``
    without its crash on NaN points (a diverged run; a metric a dataset
    does not have), labelled with the metric's name, median over
    repetitions with a 20–80 % quantile band
    (``benchmark_utils/plot_views.py``)."""
    name = "metric_vs_time"
    type = "scatter"
    options = {
        "dataset": pv.dataset_options,
        "objective": pv.objective_options,
        "objective_column": pv.metric_options,
        "X_axis": ["Time"],
    }

    def plot(self, df, dataset, objective, objective_column, X_axis):
        return pv.curves(self, df, dataset, objective, objective_column,
                         X_axis)

    def get_metadata(self, df, dataset, objective, objective_column, X_axis):
        return pv.metadata(df, dataset, objective, objective_column, X_axis)
