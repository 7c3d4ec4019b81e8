# The manual (docs/, mkdocs.yml), built with MkDocs Material from the
# project's Python environment. Included by the top-level Makefile.

.PHONY: docs docs-build

DOCS_SITE ?= build/site
DOCS_PORT ?= 8000

# Strict: a broken link, a missing page or an unknown anchor fails the
# build (python-test and so `make test` run this).
docs-build: $(VENV_OK)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir $(DOCS_SITE)

# Build, then serve on this host only (rebuilt as pages change).
docs: docs-build
	@echo "docs: the manual is in $(DOCS_SITE)/index.html; serving it on http://127.0.0.1:$(DOCS_PORT)/"
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve --strict --dev-addr 127.0.0.1:$(DOCS_PORT)
