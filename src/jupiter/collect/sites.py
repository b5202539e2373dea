"""The pages a documentation generator writes beside a site's own pages: indexes, search
pages, highlighted source listings, use and tree lists. A local source pointed at a built
site (Sphinx's `_build/html`, javadoc's `api/`, rustdoc's `target/doc`, Doxygen's `html/`)
reads its pages, not these: a source listing is the code again with line numbers (javadoc's
`src-html/`, 434 KB for one class), an index restates every page's names, and each would be
trained on as if it were documentation.

A site is known by the files its generator writes at its root (Sphinx: objects.inv and
searchindex.js; javadoc: element-list or package-list and overview-tree.html; rustdoc:
crates.js with search-index.js, or with src-files.js from 1.78 on; TypeDoc:
assets/navigation.js and assets/search.js; JSDoc: scripts/prettify/prettify.js and
styles/jsdoc-default.css; YARD: class_list.html and method_list.html; Doxygen: doxygen.css
and index.html; GTK-Doc: its navigation icons and style.css; gi-docgen: fzy.js, urlmap.js and
search.js); the pages are known by
folder and name. Each generator's pages are counted under a reason of their own, and a page
that only redirects to another (a meta refresh) under its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class Generator:
    reason: str  # the reject reason its pages are counted under
    markers: tuple[tuple[str, ...], ...]  # a site root holds all the files of one of these
    dirs: frozenset[str]  # folders of generated pages, at any depth under the root
    pages: frozenset[str]  # generated pages by name
    prefixes: tuple[str, ...] = ()  # and by the start of their name
    suffixes: tuple[str, ...] = ()  # and by its end


GENERATORS = (
    Generator(
        "sphinx_generated",
        (("objects.inv", "searchindex.js"),),
        frozenset({"_sources", "_modules", "_static", "_images", "_downloads"}),
        frozenset({"genindex.html", "genindex-all.html", "search.html", "py-modindex.html"}),
        ("genindex-",),
    ),
    Generator(
        "javadoc_generated",
        (("element-list", "overview-tree.html"), ("package-list", "overview-tree.html")),
        frozenset({"src-html", "class-use", "index-files", "legal", "script-dir", "resources"}),
        frozenset(
            {
                "index-all.html",
                "allclasses-index.html",
                "allclasses.html",
                "allclasses-frame.html",
                "allclasses-noframe.html",
                "allpackages-index.html",
                "overview-tree.html",
                "package-tree.html",
                "package-use.html",
                "deprecated-list.html",
                "help-doc.html",
                "constant-values.html",
                "serialized-form.html",
                "search.html",
                "overview-frame.html",
                "package-frame.html",
                "new-list.html",
                "system-properties.html",
            }
        ),  # fmt: skip
    ),
    Generator(
        "rustdoc_generated",
        # rustdoc 1.78 and later write src-files.js and a search.index folder
        (("crates.js", "search-index.js"), ("crates.js", "src-files.js")),
        frozenset(
            {"src", "static.files", "implementors", "trait.impl", "type.impl", "search.index"}
        ),
        # before 1.7x the fonts' and rustdoc's licenses sat at the root beside the pages
        frozenset(
            {
                "all.html",
                "settings.html",
                "help.html",
                "search.html",
                "copyright.txt",
                "license-apache.txt",
                "license-mit.txt",
            }
        ),
        (),
        ("-license.txt", "-license.md"),
    ),
    Generator(
        "typedoc_generated",
        (("assets/navigation.js", "assets/search.js"),),
        frozenset({"assets"}),
        frozenset({"hierarchy.html", "modules.html"}),
    ),
    Generator(
        "jsdoc_generated",
        (("scripts/prettify/prettify.js", "styles/jsdoc-default.css"),),
        frozenset({"scripts", "styles", "fonts"}),
        frozenset(),
        (),
        (".js.html", ".mjs.html", ".ts.html"),  # a source file shown as a page
    ),
    Generator(
        "yard_generated",
        (("class_list.html", "method_list.html"),),
        frozenset({"css", "js"}),
        frozenset(
            {
                "_index.html",
                "class_list.html",
                "file_list.html",
                "method_list.html",
                "frames.html",
                "top-level-namespace.html",
            }
        ),
    ),
    Generator(
        "doxygen_generated",
        (("doxygen.css", "index.html"),),
        frozenset({"search"}),
        frozenset(
            {
                "files.html",
                "classes.html",
                "hierarchy.html",
                "inherits.html",
                "graph_legend.html",
                "annotated.html",
                "namespaces.html",
                "modules.html",
                "pages.html",
                "examples.html",
            }
        ),  # fmt: skip
        ("globals", "functions", "namespacemembers", "dir_", "deprecated", "todo"),
        ("_source.html", "-members.html"),
    ),
    Generator(
        "gtkdoc_generated",
        # GTK-Doc copies its navigation icons and stylesheet beside the pages
        (("home.png", "left.png", "right.png", "up.png", "style.css"),),
        frozenset(),
        frozenset({"annotation-glossary.html"}),
        ("api-index-",),  # every symbol, the deprecated ones, those new in each version
    ),
    Generator(
        "haddock_generated",
        # Haddock's scripts beside its name index: haddock-bundle.min.js from 2.19, before it
        # haddock-util.js
        (("haddock-bundle.min.js", "doc-index.html"), ("haddock-util.js", "doc-index.html")),
        frozenset({"src"}),  # the hyperlinked source listings
        frozenset(
            {
                "haddock-bundle.min.js",
                "haddock-util.js",
                "quick-jump.css",
                "synopsis.png",
                "linuwial.css",
                "ocean.css",
                "meta.json",
                "doc-index.json",
                "frames.html",
                "index-frames.html",
            }
        ),  # fmt: skip
        ("doc-index", "mini_"),  # doc-index*.html; the old frames' mini_<Module>.html
        (".txt",),  # the Hoogle database, <package>.txt
    ),
    Generator(
        "gidocgen_generated",
        (("fzy.js", "urlmap.js", "search.js"),),  # gi-docgen's search scripts
        frozenset(),
        frozenset({"classes_hierarchy.html"}),
    ),
)
REASONS = {g.reason for g in GENERATORS}
FIXES = {
    reason: (
        "a built documentation site's generated pages (indexes, search, source listings, use "
        "and tree lists) are not read, its pages are: exclude the site's folder or point the "
        "source at the documents it was built from to read those instead"
    )
    for reason in REASONS
}
# a page that only sends its reader on (rustdoc's macro.x!.html and re-export paths,
# Sphinx's and MkDocs' redirect plugins): an HTML meta refresh over a line of text
REDIRECT = "redirect_page"
FIXES[REDIRECT] = (
    "a page that only sends the reader to another (an HTML meta refresh) is not read; the "
    "page it points to is"
)
# a test framework's saved outputs (testthat's tests/testthat/_snaps/, Jest's
# __snapshots__/): what the tests printed last time, error messages and tables, no
# documentation
SNAPSHOT = "test_snapshot"
FIXES[SNAPSHOT] = (
    "a test framework's snapshot folder (testthat's _snaps, Jest's __snapshots__) holds test "
    "output, not documentation: exclude it, or copy the files elsewhere to read them"
)


def is_snapshot(rel: PurePosixPath | Path) -> bool:
    """Whether `rel` (a path inside a source) lies in a test framework's snapshot folder."""
    parts = rel.parts[:-1]
    return "__snapshots__" in parts or any(
        p == "_snaps" and k > 0 and parts[k - 1] in ("testthat", "tests")
        for k, p in enumerate(parts)
    )


_REFRESH = re.compile(r"<meta\s[^>]*http-equiv=[\"']?refresh", re.I)
REDIRECT_MAX_CHARS = 300


def is_redirect(html: str, text: str) -> bool:
    """Whether a page (`html`, its visible `text`) is a redirect and nothing more."""
    head = html[: html.lower().find("<body")] if "<body" in html.lower() else html[:4000]
    return _REFRESH.search(head) is not None and len(text.strip()) <= REDIRECT_MAX_CHARS


# the same page in its source: reST's (or MyST's) `meta` directive with a refresh option
_SOURCE_REFRESH = re.compile(r"^\s*:http-equiv=refresh:", re.I | re.M)


def is_source_redirect(text: str) -> bool:
    """Whether a reST or MyST source (`text`) builds a redirect and nothing more: a `meta`
    directive's `:http-equiv=refresh:` over a line or two ("This page has moved")."""
    if _SOURCE_REFRESH.search(text) is None:
        return False
    prose = [
        ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith((":", ".."))
    ]
    return sum(len(ln) for ln in prose) <= REDIRECT_MAX_CHARS


class Sites:
    """Which files under a source's root folder are pages a generator wrote beside a site's
    own (each folder's site root found once, walking up to the source's root)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._site: dict[Path, tuple[Path, Generator] | None] = {}

    def site(self, folder: Path) -> tuple[Path, Generator] | None:
        if folder not in self._site:
            found = None
            for d in (folder, *folder.parents):
                g = next(
                    (
                        g
                        for g in GENERATORS
                        if any(all((d / m).is_file() for m in ms) for ms in g.markers)
                    ),
                    None,
                )
                if g is not None:
                    found = (d, g)
                    break
                if d == self.root or self.root not in d.parents:
                    break
            self._site[folder] = found
        return self._site[folder]

    def generated(self, path: Path) -> str | None:
        """The reason `path` is not read (a generator's own page), or None."""
        got = self.site(path.parent)
        if got is None:
            return None
        base, g = got
        rel = path.relative_to(base)
        name = rel.name.lower()
        if any(part in g.dirs for part in rel.parts[:-1]) or name in g.pages:
            return g.reason
        if name.startswith(g.prefixes) or name.endswith(g.suffixes):
            return g.reason
        return None
