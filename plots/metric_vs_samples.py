from benchopt import BasePlot


class Plot(BasePlot):
    """A metric against sample evaluations (``n_samples``) or epochs
    (``n_samples / (n + m)``, docs/algorithms.md §5): the x-axis of the paper's
    sample-complexity claims.  Median over repetitions at each evaluation."""
    name = "metric_vs_samples"
    type = "scatter"
    options = {
        "dataset": ...,
        "objective": ...,
        "objective_column": ...,
        "X_axis": ["Epochs", "Samples"],
    }

    def plot(self, df, dataset, objective, objective_column, X_axis):
        from pandas.api.types import is_numeric_dtype
        if not is_numeric_dtype(df[objective_column]):
            return []
        x_col = ("objective_epochs" if X_axis == "Epochs"
                 else "objective_n_samples")
        df = df.query(
            "dataset_name == @dataset and objective_name == @objective")
        curves = []
        for solver, df_s in df.groupby("solver_name"):
            by_eval = df_s.groupby("stop_val")
            curves.append({"x": by_eval[x_col].median().tolist(),
                           "y": by_eval[objective_column].median().tolist(),
                           "label": solver, **self.get_style(solver)})
        return curves

    def get_metadata(self, df, dataset, objective, objective_column, X_axis):
        return {"title": f"{objective}\nData: {dataset}",
                "xlabel": ("Epochs (n_samples / (n + m))"
                           if X_axis == "Epochs" else "Sample evaluations"),
                "ylabel": objective_column.replace("objective_", "")}
