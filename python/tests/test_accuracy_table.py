"""The accuracy numbers the README and BENCHMARKS.md print are the archive's.

The per-bin table of BENCHMARKS.md ("The sensitivity analysis at 200k
flows") and the matching cells of the README's accuracy table are
recomputed from results/largescale-paper/sensitivity.parquet by
python/accuracy_table.py, and each computed row must appear in both
documents as printed; the cell statistics are also checked against a
small frame whose medians and extremes are known.
"""

import pathlib
import sys

import pandas as pd
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
import accuracy_table  # noqa: E402


def test_cell_on_known_values():
    # |errors| 0.01, 0.02, 0.05, 0.30: median 3.5%, largest -30%.
    s = pd.Series([0.01, -0.02, 0.05, -0.30, None])
    assert accuracy_table.cell(s) == "3.5% / -30.0%"
    assert accuracy_table.cell(pd.Series([], dtype=float)) == "-"


ARCHIVE = ROOT / "results" / "largescale-paper" / "sensitivity.parquet"


@pytest.mark.parametrize("doc", ["BENCHMARKS.md", "README.md"])
def test_documents_print_the_archive(doc):
    rows = accuracy_table.table(pd.read_parquet(ARCHIVE))
    assert {r[0] for r in rows} == {"flowsim", "m3", "parsimon", "parsimon-c"}
    text = (ROOT / doc).read_text()
    for est, *cells in rows:
        per_bin = " | ".join(cells[1:])
        if doc == "BENCHMARKS.md":
            assert f"| {est} | " + " | ".join(cells) + " |" in text, f"{doc} lacks the row of {est}"
        else:
            assert per_bin in text, f"{doc} lacks {est}'s per-bin cells {per_bin}"
