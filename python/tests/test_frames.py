"""Every kind of frame tailscope writes, read by pyarrow, pandas and DuckDB.

The frames come from two places: the CLI, run at small scale into a
temporary directory (flows, topology nodes and channels, records, summary;
Parquet and Arrow IPC), and the frames the notebooks left under
$TAILSCOPE_FRAMES (default out/notebooks: run `make notebooks` first), one
directory per notebook, which add the per-channel, sweep, m3, CCEval, pfs
and DSCALE frames. For each frame the values read by pyarrow, by pandas and
by DuckDB must equal, exactly, what Go's lib/frame reads back
(tools/framedump prints it as JSON), and the tailscope.* provenance keys
must decode to the same metadata.

Run from the repository root in the project environment:

    build/venv/bin/python -m pytest python/tests
"""

import json
import math
import os
import pathlib
import subprocess

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.ipc
import pyarrow.parquet as pq
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "bin"

# Notebooks whose frames must be present (06 runs ns-3, whose frames are
# checked like any other).
NOTEBOOKS = [
    "01-quickstart", "02-workloads", "03-parsimon", "04-sweep", "05-m3",
    "06-ns3-validation", "07-cceval", "08-pfs", "09-dscale", "10-large-scale",
    "11-whatif",
]

# frame.Meta's fields under their metadata keys (lib/frame/meta.go).
META_FIELDS = {
    "tailscope.version": "Version",
    "tailscope.scenario_id": "ScenarioID",
    "tailscope.estimator": "Estimator",
    "tailscope.network": "Network",
    "tailscope.spec": "Spec",
    "tailscope.seed": "Seed",
    "tailscope.options": "Options",
    "tailscope.wall_seconds": "WallSeconds",
}
EXTRA = "tailscope.extra."


def go(*args):
    """Runs a command from the repository root; returns its stdout."""
    r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, f"{' '.join(args)}: exit {r.returncode}\n{r.stderr}"
    return r.stdout


@pytest.fixture(scope="session")
def tools():
    BIN.mkdir(parents=True, exist_ok=True)
    for name, pkg in [("tailscope", "./cmd/tailscope"), ("framedump", "./tools/framedump")]:
        go("go", "build", "-o", str(BIN / name), pkg)
    return BIN


@pytest.fixture(scope="session")
def cli_frames(tools, tmp_path_factory):
    """Frames the CLI writes, at small scale."""
    d = tmp_path_factory.mktemp("cli")
    ts = str(tools / "tailscope")
    go(ts, "gen", "--spec", "default", "--flows", "300", "--out", str(d / "gen" / "flows.parquet"))
    go(ts, "gen", "--spec", "default", "--flows", "300", "--out", str(d / "gen" / "flows.arrow"))
    go(ts, "run", "--spec", "default", "--flows", "300", "--estimator", "packetsim,flowsim", "--out", str(d / "runs"))
    go(ts, "plot", "summary", "--dir", str(d / "runs"), "--out", str(d / "summary.parquet"))
    go(ts, "plot", "summary", "--dir", str(d / "runs"), "--out", str(d / "summary.arrow"))
    return sorted(p for p in d.rglob("*") if p.suffix in (".parquet", ".arrow"))


def notebook_frames():
    root = pathlib.Path(os.environ.get("TAILSCOPE_FRAMES", ROOT / "out" / "notebooks"))
    frames = {nb: sorted(p for p in (root / nb).rglob("*") if p.suffix in (".parquet", ".arrow")) for nb in NOTEBOOKS}
    return root, frames


def go_dump(tools, path):
    line = go(str(tools / "framedump"), str(path))
    return json.loads(line)


def same(a, b):
    """Exact equality of two values, NaN equal to NaN; framedump writes the
    non-finite floats as strings."""
    if isinstance(b, str) and b in ("NaN", "Infinity", "-Infinity"):
        b = float(b.replace("Infinity", "inf"))
    if isinstance(a, float) and isinstance(b, (float, int)) and not isinstance(b, bool):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return type(a) is type(b) and a == b


def check_column(reader, path, name, got, want):
    assert len(got) == len(want), f"{reader} {path}: column {name} has {len(got)} values, Go {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert same(g, w), f"{reader} {path}: {name}[{i}] = {g!r}, Go read {w!r}"


def arrow_table(path):
    if path.suffix == ".parquet":
        return pq.read_table(path)
    with pa.memory_map(str(path)) as f:
        return pa.ipc.open_file(f).read_all()


def decode_meta(kv):
    """The tailscope keys of a metadata dict, decoded like lib/frame does:
    Meta field name to value, Extra as a dict."""
    meta, extra = {}, {}
    for k, v in kv.items():
        if k in META_FIELDS:
            field = META_FIELDS[k]
            if field == "Seed":
                v = int(v)
                assert 0 <= v < 1 << 64, f"seed {v} out of range"
            elif field == "WallSeconds":
                v = float(v)
            elif field in ("Spec", "Options") and v:
                json.loads(v)  # valid JSON, as the writer promises
            meta[field] = v
        elif k.startswith(EXTRA):
            extra[k[len(EXTRA):]] = v
    return meta, extra


def check_frame(tools, path):
    want = go_dump(tools, path)
    cols = want["columns"]
    assert cols, f"{path}: Go read no columns"
    names = [c["name"] for c in cols]

    # pyarrow, with the schema's types and the provenance.
    table = arrow_table(path)
    assert table.column_names == names
    types = {"int64": pa.int64(), "float64": pa.float64(), "string": pa.string()}
    for c in cols:
        assert table.schema.field(c["name"]).type == types[c["type"]], f"{path}: {c['name']} type"
        check_column("pyarrow", path, c["name"], table.column(c["name"]).to_pylist(), c["values"])
    kv = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
    meta, extra = decode_meta(kv)
    assert "Version" in meta and meta["Version"], f"{path}: no tailscope.version"
    for field, v in meta.items():
        assert same(v, want["meta"][field]), f"{path}: metadata {field} = {v!r}, Go read {want['meta'][field]!r}"
    assert extra == (want["meta"]["Extra"] or {}), f"{path}: extra metadata"

    # pandas.
    df = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_feather(path)
    assert list(df.columns) == names
    kinds = {"int64": "i", "float64": "f", "string": "OU"}
    for c in cols:
        assert df[c["name"]].dtype.kind in kinds[c["type"]], f"pandas {path}: {c['name']} is {df[c['name']].dtype}"
        check_column("pandas", path, c["name"], [v.item() if hasattr(v, "item") else v for v in df[c["name"]]], c["values"])

    # DuckDB: Parquet straight from the file, with its key-value metadata;
    # Arrow IPC files through the pyarrow table (DuckDB has no built-in IPC
    # file reader).
    con = duckdb.connect()
    if path.suffix == ".parquet":
        rel = con.sql("SELECT * FROM read_parquet(?)", params=[str(path)])
        dkv = {k.decode(): v.decode() for k, v in con.execute(
            "SELECT key, value FROM parquet_kv_metadata(?)", [str(path)]).fetchall()}
        assert decode_meta(dkv) == (meta, extra), f"{path}: DuckDB reads other metadata"
    else:
        ipc_table = table  # noqa: F841 (DuckDB finds it by name)
        rel = con.sql("SELECT * FROM ipc_table")
    assert rel.columns == names
    rows = rel.fetchall()
    for j, c in enumerate(cols):
        check_column("duckdb", path, c["name"], [r[j] for r in rows], c["values"])
    # A query over a column, as a researcher would write it.
    n = con.sql("SELECT count(*) FROM rel").fetchall()[0][0]
    assert n == len(cols[0]["values"])
    return set(names)


def test_cli_frames(tools, cli_frames):
    kinds = {}
    for p in cli_frames:
        kinds[p.name] = check_frame(tools, p)
    # Every CLI frame kind, in both formats where written.
    for want in ["flows.parquet", "flows.arrow", "flows.nodes.parquet", "flows.channels.arrow",
                 "packetsim.parquet", "flowsim.parquet", "summary.parquet", "summary.arrow"]:
        assert want in kinds, f"the CLI wrote no {want} (got {sorted(kinds)})"


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_frames(tools, notebook):
    root, frames = notebook_frames()
    if not frames[notebook]:
        pytest.fail(f"no frames under {root / notebook}: run `make notebooks` first (or set TAILSCOPE_FRAMES)")
    for p in frames[notebook]:
        check_frame(tools, p)
