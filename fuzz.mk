# fuzz.mk: included by the top-level Makefile. `make fuzz` runs every fuzz
# target (func FuzzXxx under lib/) for FUZZTIME each, one after another on
# one core, with logs under build/fuzz (resumable: finished targets are
# skipped; FUZZFRESH=1 starts over). `make fuzz-short` runs each for a few
# seconds, and `make test` runs it.

FUZZTIME ?= 10m

.PHONY: fuzz fuzz-short

fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) nice -n 19 scripts/fuzz.sh

fuzz-short:
	FUZZTIME=3s FUZZLOG=build/fuzz-short FUZZFRESH=1 GO=$(GO) scripts/fuzz.sh

test: fuzz-short
