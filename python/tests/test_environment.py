"""environment.yml (the conda route) pins what the tested lock pins.

Every package pinned in environment.yml must be pinned to the same
version in python/requirements.txt (conda-forge names mapped to PyPI
names), every top-level pin of python/requirements.in must appear in
environment.yml, and the Python minor version must be the one the lock
was made for (the project environment's interpreter).
"""

import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
# conda-forge package names that differ from PyPI's.
CONDA_TO_PYPI = {"python-duckdb": "duckdb"}


def lock_pins(path):
    pins = {}
    for line in path.read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==([^ \\;]+)", line)
        if m:
            pins[m.group(1).lower()] = m.group(2)
    return pins


def conda_pins():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pins = {}
    for dep in env["dependencies"]:
        m = re.match(r"^([A-Za-z0-9_.-]+)=([0-9][^=<>]*)$", dep)
        if m:
            pins[CONDA_TO_PYPI.get(m.group(1), m.group(1)).lower()] = m.group(2)
    return pins


def test_conda_pins_equal_the_lock():
    lock = lock_pins(ROOT / "python" / "requirements.txt")
    conda = conda_pins()
    python = conda.pop("python")
    assert len(conda) >= 5, conda
    for name, version in conda.items():
        assert name in lock, f"environment.yml pins {name}, which the lock does not have"
        assert lock[name] == version, f"environment.yml pins {name} {version}, the lock {lock[name]}"
    assert python == f"{sys.version_info.major}.{sys.version_info.minor}", (
        f"environment.yml asks for Python {python}, the project environment runs "
        f"{sys.version_info.major}.{sys.version_info.minor}")


def test_every_top_level_pin_is_in_conda():
    top = lock_pins(ROOT / "python" / "requirements.in")
    conda = conda_pins()
    missing = sorted(set(top) - set(conda))
    assert not missing, f"environment.yml lacks {missing}"
