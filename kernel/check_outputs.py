"""Checks an executed notebook: no error outputs, and an image output when
the notebook's code draws figures.

Usage: check_outputs.py SOURCE.ipynb EXECUTED.ipynb
"""

import json
import re
import sys

# Code that renders a figure (a gonum/plot canvas, an explicit display or a
# figure of the notebook layer in Go, GoNB's display calls; seaborn in the
# Python notebooks).
DRAWS = re.compile(r"\bvgimg\.|\bvgsvg\.|display\.(PNG|SVG|Image)\b|\bnb\.(Image|SVG)\b|\bplot\.Image\(|"
                   r"\b(book\.Figure|runs\.SlowdownCDF)\(|\bgonbui\.Display(PNG|SVG|Image)\(|\bsns\.")
IMAGES = ("image/png", "image/svg+xml")


def code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def source(cell):
    s = cell["source"]
    return s if isinstance(s, str) else "".join(s)


def check(src_path, out_path):
    """Returns a list of problems."""
    with open(src_path) as f:
        src = json.load(f)
    with open(out_path) as f:
        out = json.load(f)
    problems = []
    cells = code_cells(out)
    if len(cells) != len(code_cells(src)):
        problems.append("executed notebook has a different number of code cells")
    images = 0
    for i, cell in enumerate(cells):
        for o in cell.get("outputs", []):
            if o["output_type"] == "error":
                problems.append(f"cell {i}: {o.get('ename')}: {o.get('evalue')}")
            data = o.get("data", {})
            images += sum(1 for k in IMAGES if k in data)
    if any(DRAWS.search(source(c)) for c in code_cells(src)) and images == 0:
        problems.append("the notebook draws figures but no output holds an image")
    return problems


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(argv[1], argv[2])
    for p in problems:
        print(f"FAIL {argv[1]}: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
