"""MediaWiki markup (wikitext) and a wiki's XML export, read as the Markdown a page renders
to (collect/wikitext.py)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from jupiter.collect.local import collect_local
from jupiter.collect.result import CollectResult
from jupiter.collect.wikitext import BAD_EXPORT, export_pages, read
from jupiter.config import DomainConfig
from jupiter.synth.docparse import parse

PAGE = """\
<pre>
  SIP: 7
  Title: Spool queue limits
</pre>
{{Infobox|name=Spool|{{nested|x}}}}
__TOC__
== Abstract ==
This proposal limits a '''queue''' to ''n'' jobs<ref>See the mailing list.</ref>, as
[[Queue#Limits|the queue page]] and [https://example.org/spec the spec] say.<!-- todo -->
[[Category:Queues]]

=== Fields ===
;limit : The most jobs a queue holds.
;timeout
:Seconds a job may wait before it is dropped.

* a bullet with <code>x < y</code>
** a nested one
# a numbered step
#* its note

 preformatted line one
 line two

<syntaxhighlight lang="python">
print("hi")  # '''not bold'''
</syntaxhighlight>

{| class="wikitable"
!colspan=2|Limits
|-
! Name !! Value
|-
| style="color:red" | max || 2<sup>16</sup>
|-
| min || 1
|}
----
<nowiki>[[not a link]]</nowiki> and a line<br>break.
"""


def test_wikitext_reads_as_the_markdown_its_page_renders_to() -> None:
    title, text = read(PAGE)
    assert title == "Spool queue limits"
    assert text == (
        "```\n  SIP: 7\n  Title: Spool queue limits\n```\n\n"
        "## Abstract\n\n"
        "This proposal limits a **queue** to *n* jobs, as the queue page and the spec say.\n\n"
        "### Fields\n\n"
        "limit\n  The most jobs a queue holds.\ntimeout\n  Seconds a job may wait before it is "
        "dropped.\n\n"
        "- a bullet with `x < y`\n  - a nested one\n1. a numbered step\n  - its note\n\n"
        "```\npreformatted line one\nline two\n```\n\n"
        "```python\nprint(\"hi\")  # '''not bold'''\n```\n\n"
        "Limits\n\n| Name | Value |\n| --- | --- |\n| max | 2^16 |\n| min | 1 |\n\n"
        "[[not a link]] and a line\nbreak."
    )
    defs = {b.term: b.text for b in parse(text, title).blocks if b.kind == "definition"}
    assert defs["limit"] == "The most jobs a queue holds."
    assert defs["timeout"] == "Seconds a job may wait before it is dropped."


EXPORT = """\
<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">
  <siteinfo><sitename>Spool Wiki</sitename></siteinfo>
  <page><title>Queue</title><ns>0</ns><id>1</id>
    <revision><id>1</id><text>old text</text></revision>
    <revision><id>2</id><text xml:space="preserve">== Limits ==
A queue holds at most '''64''' jobs.</text></revision>
  </page>
  <page><title>Talk:Queue</title><ns>1</ns><id>2</id>
    <revision><id>3</id><text>Why 64?</text></revision></page>
  <page><title>Old queue</title><ns>0</ns><redirect title="Queue" /><id>3</id>
    <revision><id>4</id><text>#REDIRECT [[Queue]]</text></revision></page>
</mediawiki>
"""


def test_a_wiki_export_is_a_document_per_article(tmp_path: Path) -> None:
    assert export_pages(EXPORT) == [("Queue", "== Limits ==\nA queue holds at most '''64''' jobs.")]
    root = tmp_path / "wiki"
    root.mkdir()
    (root / "dump.xml").write_text(EXPORT, encoding="utf-8")
    (root / "broken.xml").write_text(EXPORT[:300], encoding="utf-8")
    (root / "sip-0007.mediawiki").write_text(PAGE, encoding="utf-8")
    cfg = DomainConfig.model_validate(
        {"name": "t", "sources": [{"type": "local", "path": "wiki", "include": ["*.xml"]}]}
    )
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)
    assert [(Path(d.uri).name, d.title, d.text) for d in docs] == [
        ("dump.xml#Queue", "Queue", "## Limits\n\nA queue holds at most **64** jobs.")
    ]
    assert rejects.rejects == {BAD_EXPORT: 1}
    cfg = DomainConfig.model_validate({"name": "t", "sources": [{"type": "local", "path": "wiki"}]})
    cfg.base_dir = tmp_path
    pages = collect_local(cfg.sources[0], cfg)  # *.mediawiki read by default
    assert [d.title for d in pages] == ["Spool queue limits"]


def test_random_wikitext_reads_without_an_error() -> None:
    parts = [
        "{{", "}}", "{|", "|}", "|-", "!", "||", "[[", "]]", "'''", "''", "==", "* ", "# ",
        ";", ":", " ", "<pre>", "</pre>", "<ref>", "<!--", "-->", "<nowiki>", "x", "\n",
    ]  # fmt: skip
    rng = random.Random(9)
    for _ in range(400):
        text = "".join(rng.choice(parts) for _ in range(rng.randrange(1, 60)))
        title, body = read(text)
        assert isinstance(title, str) and isinstance(body, str)


def test_the_collect_stage_names_a_broken_export_and_its_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from rich.console import Console

    from jupiter.config import load_domain
    from jupiter.improve.stages import collect_stage
    from jupiter.improve.workspace import Workspace

    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    root = tmp_path / "wiki"
    root.mkdir()
    (root / "dump.xml").write_text(EXPORT, encoding="utf-8")
    (root / "broken.xml").write_text(EXPORT[:300], encoding="utf-8")
    yaml = tmp_path / "d.yaml"
    yaml.write_text(
        'name: wiki\nsources:\n  - type: local\n    path: wiki\n    include: ["*.xml"]\n'
    )
    out = io.StringIO()
    ws = Workspace(load_domain(str(yaml)), console=Console(file=out, width=400))
    try:
        collect_stage(ws, 1)
    finally:
        ws.close()
    said = " ".join(out.getvalue().split())
    assert "1 bad_wiki_export (a MediaWiki XML export that does not parse: export it again)" in said
