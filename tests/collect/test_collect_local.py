"""The local source: a real folder of mixed files, read into documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupiter.collect import CollectResult, collect
from jupiter.collect.local import collect_local, decode
from jupiter.config import DomainConfig
from jupiter.errors import JupiterError

PAGE = """<!DOCTYPE html>
<html><head><title>The  Widget   Guide</title>
<style>body { color: red; }</style>
<script>var secret = "do not index";</script></head>
<body>
<nav><a href="/">Home</a> | <a href="/api">API</a></nav>
<h1>Widgets</h1>
<p>A widget is   small &amp; useful &lt;really&gt;.</p>
<p>First line<br>second line</p>
<pre>def f():
    return 1</pre>
<script>alert("hidden too")</script>
</body></html>
"""


def make_tree(root: Path) -> None:
    files: dict[str, bytes] = {
        "docs/guide.md": b"# Guide\n\nInstall the widget.\n",
        "docs/api.rst": b"API\n===\n\n.. function:: spin(speed)\n",
        "notes.txt": b"Plain notes.\r\nSecond line.\r\n",
        "page.html": PAGE.encode(),
        "code/example.py": b'def spin(speed: int) -> None:\n    """Spin the widget."""\n',
        "legacy.txt": "caf\u00e9 cr\u00e8me".encode("latin-1"),
        "blob.txt": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        "empty.md": b"",
        "blank.md": b"  \n\n ",
        "data.json": b'{"not": "included"}',
        ".git/notes.md": b"hidden folder",
        "build/out.md": b"generated",
    }
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


def domain(tmp_path: Path, *sources: dict) -> DomainConfig:
    cfg = DomainConfig.model_validate({"name": "t", "sources": list(sources)})
    cfg.base_dir = tmp_path
    return cfg


def collect_whole(tmp_path: Path, folder: str) -> tuple[list, list, CollectResult]:
    """collect() over one local folder with no document held out: (docs, chunks, rejects)."""

    cfg = domain(tmp_path, {"type": "local", "path": folder})
    cfg.chunking.heldout_fraction = 0.0
    rejects = CollectResult()
    docs, chunks = collect(cfg, cache_dir=tmp_path / "cache", rejects=rejects)
    return docs, chunks, rejects


def test_folder_yields_exactly_the_text_files(tmp_path: Path) -> None:
    make_tree(tmp_path / "corpus")
    cfg = domain(tmp_path, {"type": "local", "path": "corpus", "exclude": ["build/*"]})
    docs = collect_local(cfg.sources[0], cfg)  # type: ignore[arg-type]
    root = (tmp_path / "corpus").resolve()
    assert [d.uri for d in docs] == [
        str(root / rel)
        for rel in ["docs/api.rst", "docs/guide.md", "legacy.txt", "notes.txt", "page.html"]
    ] + ["python:example.spin"]  # Python files last, read as their API together
    by = {Path(d.uri).name: d for d in docs}
    assert by["guide.md"].text == "# Guide\n\nInstall the widget.\n"
    assert by["guide.md"].meta == {"kind": "file", "suffix": ".md"}
    assert by["guide.md"].title == "guide.md" and by["guide.md"].source == "local"
    assert by["python:example.spin"].text == "spin(speed: int) -> None\n\nSpin the widget."
    assert by["python:example.spin"].meta["origin"] == str(root / "code/example.py")
    # python: text reads it as it is
    cfg = domain(tmp_path, {"type": "local", "path": "corpus/code", "python": "text"})
    [code] = collect_local(cfg.sources[0], cfg)  # type: ignore[arg-type]
    assert code.uri == str(root / "code/example.py")
    assert code.text == 'def spin(speed: int) -> None:\n    """Spin the widget."""\n'
    assert by["notes.txt"].text == "Plain notes.\nSecond line.\n"  # CRLF normalised
    assert by["legacy.txt"].text == "caf\u00e9 cr\u00e8me"  # latin-1 fallback


def test_html_visible_text(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(PAGE)
    cfg = domain(tmp_path, {"type": "local", "path": "page.html"})
    [doc] = collect_local(cfg.sources[0], cfg)  # type: ignore[arg-type]
    assert doc.title == "The Widget Guide"
    assert doc.meta == {"kind": "file", "suffix": ".html"}
    assert doc.text == (
        "# Widgets\n\n"
        "A widget is small & useful <really>.\n\n"
        "First line\nsecond line\n\n"
        "```\ndef f():\n    return 1\n```"
    )
    for hidden in ("secret", "alert", "color", "Home", "The Widget Guide"):
        assert hidden not in doc.text


SPHINX_PAGE = """<html><head><title>Options &#8212; Spool documentation</title></head><body>
<div class="related" role="navigation"><ul><li><a href="index.html">index</a></li></ul></div>
<div class="document"><div class="body" role="main">
<section><h1>Options<a class="headerlink" href="#options" title="Link">¶</a></h1>
<p>An option takes a value after its name.</p></section></div>
<div class="sphinxsidebar" role="navigation"><h3>Navigation</h3><ul><li>Why Spool?</li></ul>
<div role="search"><form><input type="text" name="q"/></form></div></div></div>
<div class="footer">&#169;2024. Powered by Sphinx</div></body></html>
"""


def test_a_sites_furniture_stays_out_of_its_pages(tmp_path: Path) -> None:
    """A generated site's page (Sphinx's here): its main element's text alone; without one,
    what its role or class says is navigation, search, a footer or a permalink is left out."""
    (tmp_path / "options.html").write_text(SPHINX_PAGE)
    no_main = SPHINX_PAGE.replace(' role="main"', "")
    (tmp_path / "plain.html").write_text(no_main)
    cfg = domain(tmp_path, {"type": "local", "path": ".", "include": ["*.html"]})
    docs = {Path(d.uri).name: d for d in collect_local(cfg.sources[0], cfg)}  # type: ignore[arg-type]
    assert docs["options.html"].title == "Options — Spool documentation"
    assert docs["options.html"].text == "# Options\n\nAn option takes a value after its name."
    assert docs["plain.html"].text == "# Options\n\nAn option takes a value after its name."


def test_a_sphinx_builds_generated_pages_are_counted_not_read(tmp_path: Path) -> None:
    build = tmp_path / "docs" / "_build" / "html"
    (build / "_sources").mkdir(parents=True)
    (build / "_modules").mkdir()
    (build / "objects.inv").write_bytes(b"# Sphinx inventory version 2\n")
    (build / "searchindex.js").write_text("Search.setIndex({})")
    (build / "options.html").write_text(SPHINX_PAGE)
    (build / "genindex.html").write_text(SPHINX_PAGE.replace("Options", "Index"))
    (build / "search.html").write_text(SPHINX_PAGE.replace("Options", "Search"))
    (build / "_sources" / "options.rst.txt").write_text("Options\n=======\n\nAn option.\n")
    (build / "_modules" / "spool.html").write_text(SPHINX_PAGE.replace("Options", "Code"))
    (tmp_path / "docs" / "notes.txt").write_text("Notes beside the build are read.\n")
    cfg = domain(tmp_path, {"type": "local", "path": "docs"})
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    assert sorted(Path(d.uri).name for d in docs) == ["notes.txt", "options.html"]
    assert rejects.rejects["sphinx_generated"] == 4


@pytest.mark.parametrize(
    ("markers", "generated", "reason"),
    [
        (  # javadoc: source listings, use and tree lists, the indexes
            ["element-list", "overview-tree.html"],
            [
                "src-html/org/spool/Queue.html",
                "org/spool/class-use/Queue.html",
                "org/spool/package-tree.html",
                "index-all.html",
                "allclasses-index.html",
                "overview-tree.html",  # one of the files that mark the site, and generated
            ],
            "javadoc_generated",
        ),
        (  # rustdoc: source listings, the all-items page, settings
            ["crates.js", "search-index.js"],
            ["src/spool/lib.rs.html", "spool/all.html", "settings.html"],
            "rustdoc_generated",
        ),
        (  # rustdoc 1.78 and later: src-files.js and a search.index folder at the root
            ["crates.js", "src-files.js"],
            ["src/spool/lib.rs.html", "spool/all.html", "help.html", "static.files/a.html"],
            "rustdoc_generated",
        ),
        (  # Doxygen: source listings, member and file lists, indexes
            ["doxygen.css", "index.html"],
            ["queue_8h_source.html", "classQueue-members.html", "files.html", "globals_func.html"],
            "doxygen_generated",
        ),
    ],
)
def test_an_api_sites_generated_pages_are_counted_not_read(
    tmp_path: Path, markers: list[str], generated: list[str], reason: str
) -> None:
    site = tmp_path / "site"
    page = "<html><body><main><h1>Queue</h1><p>A queue of jobs.</p></main></body></html>"
    for rel in [*markers, *generated, "org/spool/Queue.html"]:
        p = site / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(page)
    cfg = domain(tmp_path, {"type": "local", "path": "site", "include": ["*.html"]})
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    read = sorted(Path(d.uri).relative_to(site.resolve()).as_posix() for d in docs)
    assert read == sorted(
        [
            "org/spool/Queue.html",
            *(m for m in markers if m.endswith(".html") and m not in generated),
        ]
    )
    assert rejects.rejects == {reason: len([g for g in generated if g.endswith(".html")])}


def test_a_source_path_through_a_link_reads_its_code_and_asciidoc(tmp_path: Path) -> None:
    """An absolute source path whose folder is reached through a link: the files found
    under its real path are named from it (a Python module, an AsciiDoc include)."""
    real = tmp_path / "real" / "docs"
    real.mkdir(parents=True)
    (real / "queue.py").write_text(
        '"""A queue on disk."""\n\ndef push(job):\n    """Add a job."""\n'
    )
    (real / "guide.adoc").write_text("= Guide\n\ninclude::part.adoc[]\n")
    (real / "part.adoc").write_text("The included part.\n")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    src = {"type": "local", "path": str(tmp_path / "link" / "docs"), "include": ["*.py", "*.adoc"]}
    cfg = DomainConfig.model_validate({"name": "t", "sources": [src]})
    rejects = CollectResult()
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, rejects)}  # type: ignore[arg-type]
    assert "python:queue.push" in docs
    assert docs[str((real / "guide.adoc").resolve())].text == "# Guide\n\nThe included part."
    assert rejects.rejects == {"asciidoc_included": 1}


def test_include_matches_relative_paths_and_max_documents(tmp_path: Path) -> None:
    make_tree(tmp_path)
    cfg = domain(tmp_path, {"type": "local", "path": ".", "include": ["docs/*"]})
    docs = collect_local(cfg.sources[0], cfg)  # type: ignore[arg-type]
    assert [Path(d.uri).name for d in docs] == ["api.rst", "guide.md"]
    cfg = domain(tmp_path, {"type": "local", "path": ".", "max_documents": 2})
    docs = collect_local(cfg.sources[0], cfg)  # type: ignore[arg-type]
    assert [Path(d.uri).name for d in docs] == ["out.md", "api.rst"]


def test_missing_path_names_the_path_and_the_fix(tmp_path: Path) -> None:
    cfg = domain(
        tmp_path,
        {"type": "python_stdlib", "modules": ["json"]},
        {"type": "local", "path": "nowhere/docs"},
    )
    with pytest.raises(JupiterError) as err:
        collect_local(cfg.sources[1], cfg)  # type: ignore[arg-type]
    expected = tmp_path / "nowhere" / "docs"
    assert str(err.value) == (
        f"source path not found: {expected} (fix sources[1].path in the domain YAML)"
    )


def test_decode_rejects_binary() -> None:
    assert decode(b"abc\x00def") is None
    assert decode(bytes(range(1, 32)) * 4) is None  # control characters, no NUL
    assert decode("\ufeffhello".encode()) == "hello"  # BOM dropped


def link_tree(tmp_path: Path) -> Path:
    """corpus/ with its own page, a link to a file outside, a link to a folder outside, a
    link to a file inside, and a loop; outside/ beside it holds secret.md and more/b.md."""
    corpus, outside = tmp_path / "corpus", tmp_path / "outside"
    (corpus / "docs").mkdir(parents=True)
    (outside / "more").mkdir(parents=True)
    (corpus / "docs" / "own.md").write_text("# Own\n\nThe corpus's own page.\n")
    (outside / "secret.md").write_text("# Secret\n\nNot part of the corpus.\n")
    (outside / "more" / "b.md").write_text("# B\n\nAlso outside.\n")
    (corpus / "leak.md").symlink_to(outside / "secret.md")
    (corpus / "linked").symlink_to(outside / "more", target_is_directory=True)
    (corpus / "alias.md").symlink_to(corpus / "docs" / "own.md")
    (corpus / "docs" / "loop").symlink_to(corpus, target_is_directory=True)
    return corpus


def test_symlinks_out_of_the_folder_are_refused_and_counted(tmp_path: Path) -> None:
    """A link leading out of the source's folder is not read by
    default; it is counted symlink_outside. follow_symlinks: true reads it."""
    from jupiter.collect.result import CollectResult

    corpus = link_tree(tmp_path).resolve()
    cfg = domain(tmp_path, {"type": "local", "path": "corpus"})
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    assert [d.uri for d in docs] == [str(corpus / "alias.md"), str(corpus / "docs/own.md")]
    assert all("outside" not in d.text.lower() and "secret" not in d.text.lower() for d in docs)
    assert rejects.rejects == {"symlink_outside": 2}  # leak.md and the linked folder
    assert sorted(s.split(" -> ")[0] for s in rejects.samples["symlink_outside"]) == [
        str(corpus / "leak.md"),
        str(corpus / "linked"),
    ]

    cfg = domain(tmp_path, {"type": "local", "path": "corpus", "follow_symlinks": True})
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    names = sorted(Path(d.uri).relative_to(corpus).as_posix() for d in docs)
    # each real folder walked once: the loop back to corpus/ ends there
    assert names == ["alias.md", "docs/own.md", "leak.md", "linked/b.md"]
    assert rejects.rejects == {}


def test_collect_stage_reports_symlink_outside(tmp_path: Path) -> None:
    """Through collect(): the count lands in the rejects the stage records for `status`."""

    link_tree(tmp_path)
    # no document held out: which of the two would be follows the temporary path, and
    # holding out both leaves nothing to train on (a refusal this test is not about)
    docs, _, rejects = collect_whole(tmp_path, "corpus")
    # alias.md is a link to own.md inside the folder: one text, read once
    assert [Path(d.uri).name for d in docs] == ["alias.md"]
    assert rejects.rejects == {"symlink_outside": 2, "duplicate_document": 1}
    with pytest.raises(ValueError, match="follow_symlinks"):
        DomainConfig.model_validate(
            {
                "name": "t",
                "sources": [{"type": "local", "path": ".", "follow_symlinks": "sometimes"}],
            }
        )


# a GNU info file as makeinfo writes one: preamble, nodes after \x1f, a menu, an index node
# with its NUL cookie, and the tag table
INFO = (
    "This is widget.info, produced by makeinfo version 6.7 from widget.texi.\n\n"
    "\x1f\nFile: widget.info,  Node: Top,  Next: Spinning,  Up: (dir)\n\n"
    "Widgets\n*******\n\nThis manual documents the widget, a small and useful part.\n\n"
    "‘-q’\n‘--quiet’\n     Say nothing.\n\n"
    "* Menu:\n\n* Spinning::          How a widget spins.\n* Index::\n\n"
    "\x1f\nFile: widget.info,  Node: Spinning,  Next: Index,  Prev: Top,  Up: Top\n\n"
    "1 Spinning\n**********\n\n‘spin --speed=N’ turns the widget N times a second.\n"
    "*Note Top::.  Also see *note Speed\n limits::, and the *note manual: (other)Nodes.\n"
    "* Note: a line that looks like a menu entry, kept.\n\n"
    "\x1f\nFile: widget.info,  Node: Index,  Prev: Spinning,  Up: Top\n\nIndex\n*****\n\n"
    "\x00\x08[index\x00\x08]\n* Menu:\n\n* spin:                Spinning.  (line 6)\n\n"
    "\x1f\nTag Table:\nNode: Top\x7f75\nNode: Spinning\x7f300\n\x1f\nEnd Tag Table\n"
)


def test_gzipped_files_are_read_through(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gzip

    from jupiter.collect import local

    (tmp_path / "guide.md.gz").write_bytes(gzip.compress(b"# Guide\n\nInstall the widget.\n"))
    (tmp_path / "page.html.gz").write_bytes(gzip.compress(PAGE.encode()))
    (tmp_path / "cut.md.gz").write_bytes(gzip.compress(b"# Cut short\n" * 50)[:-20])
    (tmp_path / "big.md.gz").write_bytes(gzip.compress(b"x " * 5000))
    include = ["*.md.gz", "*.html.gz"]
    cfg = domain(tmp_path, {"type": "local", "path": ".", "include": include})
    monkeypatch.setattr(local, "MAX_GUNZIPPED", 4000)  # big.md.gz expands to 10,000 bytes
    docs = collect_local(cfg.sources[0], cfg)  # type: ignore[arg-type]
    by = {Path(d.uri).name: d for d in docs}
    assert sorted(by) == ["guide.md.gz", "page.html.gz"]  # a broken stream, a bomb: skipped
    assert by["guide.md.gz"].text == "# Guide\n\nInstall the widget.\n"
    assert by["guide.md.gz"].meta == {"kind": "file", "suffix": ".md"}
    assert by["page.html.gz"].title == "The Widget Guide"  # HTML by the name under .gz
    assert by["page.html.gz"].text.startswith("# Widgets\n\nA widget is small & useful")


def test_an_info_manual_is_a_document_a_node(tmp_path: Path) -> None:
    import gzip

    (tmp_path / "widget.info.gz").write_bytes(gzip.compress(INFO.encode()))
    # a split manual: the main file holds only its tables, the parts hold the nodes
    (tmp_path / "big.info").write_text("\x1f\nIndirect:\nbig.info-1: 100\n\x1f\nTag Table:\n")
    (tmp_path / "big.info-1").write_text(INFO.replace("widget.info", "big.info"))
    cfg = domain(tmp_path, {"type": "local", "path": "."})  # the default include
    docs = collect_local(cfg.sources[0], cfg)  # type: ignore[arg-type]
    root = tmp_path.resolve()
    assert [d.uri for d in docs] == [
        f"{root}/big.info-1#Top",
        f"{root}/big.info-1#Spinning",
        f"{root}/widget.info.gz#Top",
        f"{root}/widget.info.gz#Spinning",
    ]
    top, spin = docs[2], docs[3]
    assert (top.title, spin.title) == ("Top", "Spinning")
    assert top.text == (
        "Widgets\n*******\n\nThis manual documents the widget, a small and useful part.\n\n"
        "‘-q’, ‘--quiet’\n     Say nothing."  # an option's aliases on one line
    )  # the menu is navigation, not text
    assert spin.text == (
        "Spinning\n********\n\n‘spin --speed=N’ turns the widget N times a second.\n"  # unnumbered
        "See Top.  Also see Speed limits, and the see manual\n"  # cross references, read
        "* Note: a line that looks like a menu entry, kept."
    )
    assert spin.meta == {"kind": "file", "suffix": ".info", "node": "Spinning"}


def test_a_debian_doc_folder_compressed_files_readme_and_what_is_left(tmp_path: Path) -> None:
    """A package's /usr/share/doc as Debian ships it: the default globs read its gzipped
    text and its README, and what no glob matches is counted, by name, for the stage to say."""
    import gzip

    from jupiter.collect import CollectResult
    from jupiter.collect.local import NOT_INCLUDED

    root = tmp_path / "doc"
    (root / "html").mkdir(parents=True)
    (root / "README").write_text("Widget: spins things.\n\nRun `widget --spin` to start.\n")
    (root / "FAQ.txt.gz").write_bytes(gzip.compress(b"Q: Why does it stop?\nA: Out of oil.\n"))
    (root / "html" / "guide.html").write_text(PAGE)
    (root / "changelog.gz").write_bytes(gzip.compress(b"widget (1.0) unstable; urgency=low\n"))
    (root / "AUTHORS").write_text("A. Person\n")
    (root / "html" / "style.css").write_text("body { color: red; }\n")
    (root / "notes.bak").write_text("excluded on purpose\n")
    cfg = domain(tmp_path, {"type": "local", "path": "doc", "exclude": ["*.bak"]})
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    by = {Path(d.uri).name: d for d in docs}
    assert sorted(by) == ["FAQ.txt.gz", "README", "guide.html"]
    assert by["FAQ.txt.gz"].text == "Q: Why does it stop?\nA: Out of oil.\n"
    # counted with where they are; an excluded file is the user's choice, not counted
    assert rejects.rejects == {NOT_INCLUDED: 3}
    assert rejects.samples[NOT_INCLUDED] == ["AUTHORS", "changelog.gz", "html/style.css"]
    # a YAML that lists its own globs chose what to leave out: nothing to say
    cfg = domain(tmp_path, {"type": "local", "path": "doc", "include": ["*.html"]})
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    assert [Path(d.uri).name for d in docs] == ["guide.html"] and rejects.rejects == {}


def test_the_same_text_in_two_formats_is_read_once(tmp_path: Path) -> None:
    """A manual shipped as HTML chapters and again as one text file: the plainer copy is
    dropped and counted, wherever it sorts; a page that only quotes a chapter is kept."""

    words = [f"w{i}" for i in range(900)]
    chapters = [" ".join(words[i : i + 300]) for i in range(0, 900, 300)]
    root = tmp_path / "doc"
    (root / "html").mkdir(parents=True)
    for i, text in enumerate(chapters):
        (root / "html" / f"ch{i}.html").write_text(
            f"<html><body><h1>Chapter {i}</h1><p>{text}</p></body></html>"
        )
    # the whole manual again, wrapped and with page furniture: still the same words
    manual = "\n".join(" ".join(words[i : i + 12]) for i in range(0, 900, 12))
    (root / "manual.txt").write_text("Widget Manual  page 1\n\n" + manual)
    # a README that is the first chapter again, read before the chapters (its path sorts
    # first) but plainer than they are: the README goes, the chapter stays
    (root / "README").write_text(chapters[0] + "\n")
    # a page that quotes a third of one chapter and says as much again of its own
    own = " ".join(f"own{i}" for i in range(200))
    (root / "notes.md").write_text(f"# Notes\n\n{' '.join(words[:100])} {own}\n")
    docs, chunks, rejects = collect_whole(tmp_path, "doc")
    assert sorted(Path(d.uri).name for d in docs) == [
        "ch0.html",
        "ch1.html",
        "ch2.html",
        "notes.md",
    ]
    assert rejects.rejects == {"duplicate_document": 2}
    assert sorted(rejects.samples["duplicate_document"]) == [
        str((root / name).resolve()) for name in ("README", "manual.txt")
    ]
    assert {c.doc_id for c in chunks} == {d.id for d in docs}


def test_an_info_manuals_definitions_read_as_the_texinfo_reader_writes_them(
    tmp_path: Path,
) -> None:
    """makeinfo's " -- Macro: AC_INIT (PACKAGE, VERSION," (its arguments wrapped ten deep,
    @deffnx's heads stacked, a nested one indented) is the Texinfo reader's "**Macro:**
    `AC_INIT (...)`" over its description, so the questions name AC_INIT, not "-- Macro:
    AC_INIT (...)"; a C function's name after its result type; the footnotes' rule no
    text."""
    from jupiter.collect.local import info_documents
    from jupiter.synth.docparse import parse

    text = (
        "\x1f\nFile: w.info,  Node: Macros,  Up: Top\n\nMacros\n******\n\n"
        " -- Macro: AC_INIT (PACKAGE, VERSION, [BUG-REPORT],\n"
        "          [TARNAME], [URL])\n"
        "     Process any command-line arguments and perform initialization.\n\n"
        " -- Scheme Procedure: real? obj\n -- C Function: scm_real_p (obj)\n"
        "     Return ‘#t’ if OBJ is a real number, else ‘#f’.\n\n"
        " -- Function: char * strdup (const char *S)\n     Return a copy of the string S.\n\n"
        " -- Function: int open (const char *F, int FLAGS)\n     Open F with FLAGS, one of:\n\n"
        "      -- Variable: O_RDONLY\n"
        "          Open the file read-only.\n\n   ---------- Footnotes ----------\n\n"
        "   (1) A note.\n"
    )
    (doc,) = info_documents(tmp_path / "w.info", text)
    assert "**Macro:** `AC_INIT (PACKAGE, VERSION, [BUG-REPORT], [TARNAME], [URL])`" in doc.text
    assert "**Function:** `char *` **`strdup`** `(const char *S)`" in doc.text
    assert "-- " not in doc.text and "Footnotes" not in doc.text, doc.text
    terms = {b.term: b.text for b in parse(doc.text, doc.title).blocks if b.kind == "definition"}
    assert terms["AC_INIT"].startswith("Process any command-line arguments"), terms
    assert terms["real?"].startswith("Return ‘#t’ if OBJ"), terms
    assert terms["strdup"] == "Return a copy of the string S.", terms
    assert terms["open"] == "Open F with FLAGS, one of:", terms
    assert terms["O_RDONLY"] == "Open the file read-only.", terms  # nested in open's text
