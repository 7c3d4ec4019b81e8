"""Per-size-bin accuracy of each estimator in a summary frame.

Prints, per estimator, the median |p99 error| and the largest error (with
its sign) over the frame's rows, overall and in each size bin, as the
Markdown table BENCHMARKS.md ("The sensitivity analysis at 200k flows")
and the README's accuracy table show. A summary frame is what
`tailscope plot summary` writes and what `results/largescale-paper/`
archives: one row per scenario, seed and estimator against its baseline.

    build/venv/bin/python python/accuracy_table.py results/largescale-paper/sensitivity.parquet
"""

import sys

import pandas as pd

BINS = ["<=1KB", "1KB-10KB", "10KB-100KB", ">100KB"]
LABELS = ["all flows", "<=1KB", "1-10KB", "10-100KB", ">100KB"]


def cell(errors):
    """Median |error| / the largest error with its sign, in percent."""
    x = errors.dropna() * 100
    if x.empty:
        return "-"
    worst = x.loc[x.abs().idxmax()]
    return f"{x.abs().median():.1f}% / {worst:+.1f}%"


def table(df):
    """Rows of (estimator, cells...) for the columns of LABELS."""
    cols = ["p99_error"] + [f"p99_error[{b}]" for b in BINS]
    return [
        (est, *(cell(g[c]) for c in cols))
        for est, g in sorted(df.groupby("estimator"), key=lambda kv: kv[0])
    ]


def markdown(rows):
    out = ["| estimator | " + " | ".join(LABELS) + " |",
           "| --- | " + " | ".join("---" for _ in LABELS) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: accuracy_table.py SUMMARY.parquet")
    print(markdown(table(pd.read_parquet(sys.argv[1]))))
