# The project's Python environment, included by the top-level Makefile before
# kernel/kernel.mk (which installs the kernelspec into it).

.PHONY: venv python-test

VENV    := build/venv
VENV_OK := $(VENV)/.installed

# Recreated from the hashed lock whenever the lock changes.
venv: $(VENV_OK)
$(VENV_OK): python/requirements.txt python/venv.sh
	python/venv.sh

# pyarrow, pandas and DuckDB read every frame kind: the CLI's (written by the
# test) and the notebooks' under out/notebooks (run `make notebooks` first);
# then the manual is built in strict mode (docs.mk), so a broken link fails.
python-test: $(VENV_OK)
	$(VENV)/bin/python -m pytest -q python/tests
	$(MAKE) docs-build
