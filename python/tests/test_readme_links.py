"""The front page's links resolve.

README.md is read on the repository's web page, not in the built manual,
so `mkdocs build --strict` does not check it: every relative link must
name a file of the repository, and every link into BENCHMARKS.md must
name one of its headings (as a web page renders its anchor: lower case,
punctuation dropped, spaces as hyphens). BENCHMARKS.md's own anchors are
checked the same way.
"""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def anchors(markdown):
    out = set()
    fenced = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"^#{1,6} (.*)$", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            out.add(text.replace(" ", "-"))
    return out


def test_anchor_rule():
    assert anchors("## The papers' 6,144-host evaluations\n## m3 across m3's Table 4") == {
        "the-papers-6144-host-evaluations", "m3-across-m3s-table-4"}


@pytest.mark.parametrize("doc", ["README.md", "BENCHMARKS.md", "CHANGELOG.md"])
def test_links_resolve(doc):
    text = (ROOT / doc).read_text()
    bench = anchors((ROOT / "BENCHMARKS.md").read_text())
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    for link in links:
        if re.match(r"^[a-z]+:", link):
            continue
        path, _, anchor = link.partition("#")
        target = path or doc
        assert (ROOT / target).exists(), f"{doc}: link {link}: no file {target}"
        if anchor and target == "BENCHMARKS.md":
            assert anchor in bench, f"{doc}: link {link}: BENCHMARKS.md has no heading for #{anchor}"
