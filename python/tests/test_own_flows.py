"""Flows made in pandas, given to tailscope as a spec's workload file.

pandas writes the same flows as Parquet and as CSV (its defaults: the CSV
with its unnamed index column, one column as floats, rows not sorted by
start); tailscope runs both through flowSim, and the records, read back
with pandas, are identical, and hold exactly the flows pandas made.

Run from the repository root in the project environment:

    build/venv/bin/python -m pytest python/tests/test_own_flows.py
"""

import json
import pathlib
import subprocess

import numpy as np
import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "bin"


def run(*args):
    r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, f"{' '.join(map(str, args))}: exit {r.returncode}\n{r.stderr}"
    return r.stdout


def test_pandas_parquet_and_csv_give_identical_records(tmp_path):
    BIN.mkdir(parents=True, exist_ok=True)
    ts = BIN / "tailscope"
    run("go", "build", "-o", str(ts), "./cmd/tailscope")

    rng = np.random.default_rng(7)
    n = 400
    src = rng.integers(0, 256, n)
    flows = pd.DataFrame({
        "src": src,
        "dst": (src + rng.integers(1, 256, n)) % 256,
        "size_bytes": np.ceil(rng.lognormal(np.log(20_000), 1.0, n)).astype("int64"),
        "start_ns": rng.permutation(np.cumsum(rng.exponential(2_000, n)).astype("int64")),  # unsorted
    })
    flows["size_bytes"] = flows["size_bytes"].astype("float64")  # as after a missing value was dropped
    data = tmp_path / "data"
    data.mkdir()
    flows.to_parquet(data / "mine.parquet")
    flows.to_csv(data / "mine.csv")  # index column included, pandas' default

    results = {}
    for kind in ("parquet", "csv"):
        spec = tmp_path / f"{kind}.json"
        # Relative to the spec's folder, not to the working directory.
        spec.write_text(json.dumps({"topology": {"preset": "meta32-2:1"},
                                    "workload": {"file": f"data/mine.{kind}"}, "seed": 1}))
        out = tmp_path / f"runs-{kind}"
        run(str(ts), "run", "--spec", str(spec), "--estimator", "flowsim", "--out", str(out))
        [frame] = list(out.glob("*/flowsim.parquet"))
        results[kind] = pd.read_parquet(frame).drop(columns=["scenario_id"])

    pd.testing.assert_frame_equal(results["parquet"], results["csv"])
    recs = results["parquet"].sort_values("start_ns", kind="stable")
    want = flows.sort_values("start_ns", kind="stable")
    assert len(recs) == n
    # The file had no flow ids: flows are numbered 0.. by start time.
    assert sorted(recs["flow_id"]) == list(range(n))
    for col in ("src", "dst", "size_bytes", "start_ns"):
        assert recs[col].astype("int64").tolist() == want[col].astype("int64").tolist(), col


def test_pandas_missing_value_is_refused_by_column(tmp_path):
    ts = BIN / "tailscope"
    run("go", "build", "-o", str(ts), "./cmd/tailscope")
    flows = pd.DataFrame({"src": [0, 1], "dst": [5, 6], "size_bytes": [1000, 2000], "start_ns": [0.0, np.nan]})
    flows.to_parquet(tmp_path / "gap.parquet")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"topology": {"preset": "meta32-2:1"}, "workload": {"file": "gap.parquet"}}))
    r = subprocess.run([str(ts), "run", "--spec", str(spec), "--estimator", "flowsim", "--out", str(tmp_path / "out")],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode != 0
    assert 'gap.parquet: cannot read it as a parquet file of flows' in r.stderr, r.stderr
    assert 'column "start_ns" has 1 null values' in r.stderr, r.stderr
