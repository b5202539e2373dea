"""A rustdoc site's pages, each item and member a document named and written as the Rust
source reader does; the site's generated pages and redirects counted; other trait
documentation left out; a web site's pages the same."""

from __future__ import annotations

from pathlib import Path

from apitree import ask, collect_tree
from builtpages import RUSTDOC, rustdoc_page
from jupiter.collect import rustdoc
from jupiter.collect.local import html_text
from jupiter.records import Document


def _site(tmp_path: Path, **extra: object) -> tuple[dict[str, Document], dict[str, int]]:
    docs, rejects = collect_tree(tmp_path, RUSTDOC, ["*.html", "*.txt"], **extra)
    return docs, dict(rejects.rejects)


def test_a_rustdoc_sites_items_are_documents(tmp_path: Path) -> None:
    docs, rejects = _site(tmp_path)
    assert sorted(docs) == [
        "rust:spool",
        "rust:spool::Knot",
        "rust:spool::Knot::Bend",
        "rust:spool::Knot::Hitch",
        "rust:spool::Knot::Slip",
        "rust:spool::MAX_TURNS",
        "rust:spool::Result",
        "rust:spool::Rope",
        "rust:spool::Rope::default",
        "rust:spool::Rope::len",
        "rust:spool::Rope::new",
        "rust:spool::Rope::splice",
        "rust:spool::Wind",
        "rust:spool::Wind::Drum",
        "rust:spool::Wind::TURNS",
        "rust:spool::Wind::unwind",
        "rust:spool::Wind::wind",
        "rust:spool::knots",
        "rust:spool::spin",
        "rust:spool::trim!",
    ]
    # the help page, the source listing and the license under static.files/ are the
    # generator's; the macro's redirect page and a page documenting nothing no documents
    assert rejects == {"rustdoc_generated": 3, "redirect_page": 1, "rustdoc_undocumented": 1}
    splice = docs["rust:spool::Rope::splice"]
    assert splice.text == (
        "spool::Rope::splice(at: usize, f: F)\n\nSplices a strand in at `at`.\n\n"
        "Deprecated since 0.2.0: use `join`.\n\nType parameters: `<F>`.\n\n"
        "Where: `F: Fn(T) -> T`.\n\n:returns: `Option<&T>`"
    )
    assert splice.meta["kind"] == "method" and splice.meta["signature"] == "(at: usize, f: F)"
    assert splice.meta["language"] == "rust" and splice.title == "spool::Rope::splice"
    assert ask(splice)["what_does"] == "Splices a strand in at `at`."
    assert ask(docs["rust:spool::spin"])["returns"] == "Returns the turns made."
    assert docs["rust:spool::Rope::new"].text == (
        "spool::Rope::new()\n\nMakes an empty rope.\n\nQualifiers: `const`.\n\n:returns: `Self`"
    )
    # the type: its documentation with rustdoc's marks gone (§ anchors, the example's ⓘ,
    # typographic quotes), its type parameters
    assert docs["rust:spool::Rope"].text == (
        "spool::Rope\n\nA rope of strands that doesn't fray.\n\n## Examples\n\n```\n"
        "let r = Rope::new();\n```\n\nType parameters: `<T>`."
    )
    assert docs["rust:spool::Rope::len"].text.endswith("How many strands.\n\nType: `usize`")
    # a trait implementation's method documented in the crate is the type's; an inherited
    # one (Clone's, cut short), an undocumented one and std's blanket From are not
    assert docs["rust:spool::Rope::default"].text.startswith(
        "spool::Rope::default()\n\nAn empty rope, as `new` makes."
    )
    assert not {"clone", "clone_from", "from", "untold"} & {u.split("::")[-1] for u in docs}
    assert all(
        "sidebar entry" not in d.text and "Copy item path" not in d.text for d in docs.values()
    )


def test_variants_trait_items_functions_aliases_and_modules(tmp_path: Path) -> None:
    docs, _ = _site(tmp_path)
    assert docs["rust:spool::Knot::Bend"].text == (
        "spool::Knot::Bend\n\nJoins two ropes, this many times over.\n\nFields: `(u8)`"
    )
    assert docs["rust:spool::Knot::Hitch"].text.endswith("Fields: `{ turns: u32 }`")
    assert docs["rust:spool::Knot::Slip"].text == "spool::Knot::Slip\n\nComes undone with a pull."
    assert docs["rust:spool::Knot"].meta["kind"] == "enum"
    # a trait's required and provided items; other types' implementations left out
    assert docs["rust:spool::Wind::wind"].text == (
        "spool::Wind::wind(drum: &mut Self::Drum)\n\nWinds the rope on `drum`.\n\n:returns: `bool`"
    )
    assert docs["rust:spool::Wind::TURNS"].text.endswith("Type: `u8`\n\nValue: `3`")
    assert docs["rust:spool::Wind::Drum"].meta["kind"] == "type"
    assert "vector" not in "".join(d.text for d in docs.values())
    spin = docs["rust:spool::spin"]
    assert spin.text == (
        "spool::spin(yarn: &'a str, turns: u32)\n\nSpins `yarn` into rope.\n\n"
        "Returns the turns made.\n\nAvailable on crate feature `tokio` only.\n\n"
        "Qualifiers: `async`.\n\nType parameters: `<'a>`.\n\n:returns: `Result<u32>`"
    )
    assert spin.meta["kind"] == "function"
    # an alias's aliased type (std's Result and its variants) is not the alias's
    assert docs["rust:spool::Result"].text == (
        "spool::Result\n\nA result whose error is a knot.\n\nType parameters: `<T>`.\n\n"
        "Definition: `Result<T, Knot>`"
    )
    assert "success value" not in "".join(d.text for d in docs.values())
    assert docs["rust:spool::MAX_TURNS"].text.endswith("Type: `u32`\n\nValue: `64`")
    assert docs["rust:spool::trim!"].text == "spool::trim!\n\nTrims a rope's frayed ends."
    # a module's page is its documentation, without the item list that restates the items
    assert docs["rust:spool"].text == "Ropes, knots and spools.\n\n## Usage\n\nWind first."
    assert docs["rust:spool::knots"].text == "Knots and how to tie them."


def test_rust_text_reads_the_pages_whole(tmp_path: Path) -> None:
    docs, rejects = _site(tmp_path, rust="text")
    assert not any(u.startswith("rust:") for u in docs)
    assert len(docs) == 10 and rejects["redirect_page"] == 1
    rope = next(d for u, d in docs.items() if u.endswith("struct.Rope.html"))
    assert "Splices a strand in" in rope.text and "Returns the argument unchanged" in rope.text


def test_page_names_and_pages_that_are_not_item_pages() -> None:
    assert rustdoc._name("OnceCell in once_cell::sync - Rust", "struct") == (
        "OnceCell",
        "once_cell::sync",
    )
    assert rustdoc._name("once_cell::sync::OnceCell - Rust", "struct") == (
        "OnceCell",
        "once_cell::sync",
    )
    assert rustdoc._name("once_cell::sync - Rust", "mod") == ("", "once_cell::sync")
    doc = Document("local", "/a.html", "a", "Text.", {})
    read = lambda h: html_text(h)[0]  # noqa: E731
    plain = "<html><head><title>x in y - Rust</title></head><body><p>Text.</p></body></html>"
    assert rustdoc.split_built(doc, plain, read) == [doc]
    primitive = rustdoc_page("primitive", "u8 - Rust", "<p>The 8-bit unsigned integer.</p>")
    assert rustdoc.split_built(doc, primitive, read) == [doc]


def test_a_function_signature_as_rustdoc_shows_it() -> None:
    head, sig, lines = rustdoc.fn_lines(
        "a::f", "pub const unsafe fn f<T: Copy>(&mut self, mut x: T, y: Vec<(u8, u8)>) -> T"
    ) or ("", "", [])
    assert head == "a::f(x: T, y: Vec<(u8, u8)>)" and sig == "(x: T, y: Vec<(u8, u8)>)"
    assert [x for x in lines if x] == [
        "Qualifiers: `const unsafe`.",
        "Type parameters: `<T: Copy>`.",
        ":returns: `T`",
    ]
    assert rustdoc.fn_lines("a::S", "pub struct S") is None


# an enum page as rustdoc before 1.7x wrote it: variants as h3 elements, a struct variant's
# fields before its documentation, an example's edition note and a notable-traits note
OLD_ENUM = rustdoc_page(
    "enum",
    "Level in spool - Rust",
    '<pre class="rust enum"><code>pub enum Level {\n    Low = 1,\n    Span { from: u8 },\n}'
    '</code></pre><details class="rustdoc-toggle top-doc" open><summary class="hideme"><span>'
    'Expand description</span></summary><div class="docblock"><p>How loud.</p>\n<div class='
    "'information'><div class='tooltip edition' data-edition=\"2018\">ⓘ</div></div><div "
    'class="example-wrap"><pre class="rust rust-example-rendered"><code>let l = Level::Low;'
    '</code></pre></div></div></details><h2 id="variants" class="variants small-section-header">'
    'Variants</h2><h3 id="variant.Low" class="variant small-section-header"><a href="#variant.'
    'Low" class="anchor field"></a><code>Low = 1</code></h3><div class="docblock"><p>Barely '
    'heard.</p></div><h3 id="variant.Span" class="variant small-section-header"><code>Span'
    '</code></h3><div class="sub-variant" id="variant.Span.fields"><h4>Fields</h4><div class='
    '"sub-variant-field"><span id="variant.Span.field.from" class="variant small-section-header">'
    '<code>from:&nbsp;<a class="primitive" href="#">u8</a></code></span></div></div><div class='
    '"docblock"><p>A range of levels.</p></div><h2 id="implementations" class="small-section-'
    'header">Implementations</h2><div id="implementations-list"><details class="rustdoc-toggle '
    'implementors-toggle" open><summary><section id="impl" class="impl"><h3 class="code-header '
    'in-band">impl Level</h3></section></summary><div class="impl-items"><details class="rustdoc'
    '-toggle method-toggle" open><summary><section id="method.iter" class="method has-srclink">'
    '<h4 class="code-header">pub fn <a href="#method.iter" class="fnname">iter</a>() -&gt; Iter'
    '<span class="notable-traits"><span class="notable-traits-tooltip">ⓘ<span class="notable-'
    'traits-tooltiptext"><span class="docblock">Notable traits for Iter</span></span></span>'
    '</span></h4></section></summary><div class="docblock"><p>Every level, loudest last.</p>'
    "</div></details></div></details></div>",
)


def test_an_older_rustdocs_markup_gives_the_same_documents() -> None:
    doc = Document("local", "/enum.Level.html", "Level", "", {})
    docs = {d.uri: d for d in rustdoc.split_built(doc, OLD_ENUM, lambda h: html_text(h)[0])}
    assert list(docs) == [
        "rust:spool::Level",
        "rust:spool::Level::Low",
        "rust:spool::Level::Span",
        "rust:spool::Level::iter",
    ]
    assert docs["rust:spool::Level"].text == (
        "spool::Level\n\nHow loud.\n\n```\nlet l = Level::Low;\n```"
    )
    assert docs["rust:spool::Level::Low"].text == "spool::Level::Low\n\nBarely heard.\n\nValue: `1`"
    assert docs["rust:spool::Level::Span"].text == (
        "spool::Level::Span\n\nA range of levels.\n\nFields: `{ from: u8 }`"
    )
    assert docs["rust:spool::Level::iter"].text == (
        "spool::Level::iter()\n\nEvery level, loudest last.\n\n:returns: `Iter`"
    )


def test_an_older_rustdoc_sites_licenses_at_its_root_are_the_generators(tmp_path: Path) -> None:
    tree = {
        "doc/crates.js": "window.ALL_CRATES = [];",
        "doc/search-index.js": "var searchIndex = {};",
        "doc/COPYRIGHT.txt": "These documentation pages include resources by third parties.",
        "doc/LICENSE-MIT.txt": "Permission is hereby granted, free of charge.",
        "doc/FiraSans-LICENSE.txt": "Digitized data copyright (c) 2012-2015, The Mozilla Foundation.",
        "doc/SourceSerif4-LICENSE.md": "Copyright 2014-2021 Adobe.",
        "doc/spool/enum.Level.html": OLD_ENUM,
    }
    docs, rejects = collect_tree(tmp_path, tree, ["*.html", "*.txt", "*.md"])
    assert sorted(docs) == [
        "rust:spool::Level",
        "rust:spool::Level::Low",
        "rust:spool::Level::Span",
        "rust:spool::Level::iter",
    ]
    assert rejects.rejects == {"rustdoc_generated": 4}
