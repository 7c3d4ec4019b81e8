"""The tracked notebooks are sources: no outputs, no execution counts.

`make lab` opens working copies under build/lab, so the tracked files never
collect outputs; this check catches a notebook saved from elsewhere (base64
PNGs in git) before it is committed.
"""

import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def test_found():
    assert len(NOTEBOOKS) >= 10, f"found only {len(NOTEBOOKS)} notebooks under notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_outputs(path):
    nb = json.loads(path.read_text())
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        assert cell.get("outputs") == [], f"cell {i} has outputs: run `jupyter nbconvert --clear-output --inplace {path.name}`"
        assert cell.get("execution_count") is None, f"cell {i} has an execution count"
