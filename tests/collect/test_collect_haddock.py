"""A Haddock site's module pages, each documented item a document named and written as the
Haskell source reader (hsapi) makes them from the `.hs` files the pages were built from;
instances, the synopsis and the module header never read; the contents page and a module
with nothing documented counted."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from jupiter.collect import haddock
from jupiter.collect.hsapi import HaskellFile, api_documents
from jupiter.collect.local import html_text
from jupiter.collect.result import CollectResult
from jupiter.records import Document

HEAD = (
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/'
    'xhtml1/DTD/xhtml1-transitional.dtd"><html xmlns="http://www.w3.org/1999/xhtml"><head>'
    '<meta http-equiv="Content-Type" content="text/html; charset=UTF-8" /><title>{title}'
    '</title><link href="linuwial.css" rel="stylesheet" type="text/css" title="Linuwial" />'
    '<script src="haddock-bundle.min.js" async="async" type="text/javascript"></script>'
    '</head><body><div id="package-header"><span class="caption">spool-1.0: Spools of thread'
    '</span><ul class="links" id="page-menu"><li><a href="index.html">Contents</a></li><li>'
    '<a href="doc-index.html">Index</a></li></ul></div><div id="content">'
)
FOOT = (
    '</div><div id="footer"><p>Produced by <a href="http://www.haskell.org/haddock/">'
    "Haddock</a> version 2.25.1</p></div></body></html>"
)


def _links(name: str, anchor: str) -> str:
    return (
        f' <a href="src/Data.Spool.html#{name}" class="link">Source</a>'
        f' <a href="#{anchor}" class="selflink">#</a>'
    )


def _ty(name: str) -> str:
    return f'<a href="Data-Spool.html#t:{name}" title="Data.Spool">{name}</a>'


def _base(name: str) -> str:
    return (
        '<a href="file:///usr/share/doc/ghc-doc/html/libraries/base-4.15.1.0/Prelude.html#t:'
        f'{name}" title="Prelude">{name}</a>'
    )


def page(interface: str, description: str = "", title: str = "Data.Spool") -> str:
    """A module page as Haddock 2.25 writes one (its header, synopsis and footer too)."""
    desc = (
        '<div id="description"><p class="caption">Description</p><div class="doc">'
        f"{description}</div></div>"
        if description
        else ""
    )
    return (
        HEAD.format(title=title)
        + '<div id="module-header"><table class="info"><tr><th>Maintainer</th><td>someone'
        "@example.com</td></tr><tr><th>Safe Haskell</th><td>Safe-Inferred</td></tr></table>"
        f'<p class="caption">{title}</p></div>{desc}<div id="synopsis"><details id="syn">'
        '<summary>Synopsis</summary><ul class="details-toggle" data-details-id="syn"><li '
        'class="src short"><a href="#v:wind">wind</a> :: synopsis text</li></ul></details>'
        f'</div><div id="interface">{interface}</div>' + FOOT
    )


# the module both ways: as source, and as the page Haddock makes of it
SPOOL_HS = r"""{-|
Module      : Data.Spool
Maintainer  : someone@example.com

A spool holds 'Thread'.
-}
module Data.Spool
  ( Spool(..)
  , Knot(..)
  , Winder(..)
  , wind
  , (<+>)
  , spin
  , plain
  ) where

-- | A spool of thread.
--
-- @since 1.2.0
data Spool a = Spool
  { turns :: !Int  -- ^ how many turns
  , label :: String
  }

-- | A knot.
data Knot
  = Bend Int   -- ^ joins two ropes
  | Hitch

-- | Things that wind.
class Show w => Winder w where
  -- | One turn.
  turn :: w -> Int

-- | Winds a spool, see "Data.Spool" and 'Spool'.
-- Use @wind 3 s@, /gently/.
--
-- >>> wind 1 (Spool 0 "x")
-- Spool 1
wind :: Int -> Spool a -> Spool a
wind = undefined

infixr 5 <+>
-- | Joins two spools.
(<+>) :: Spool a -> Spool a -> Spool a
a <+> b = a

-- | Spins thread.
--
-- * evenly
-- * slowly
spin :: Ord a
     => Int   -- ^ the count
     -> a
     -> [a]   -- ^ the thread
spin = undefined

plain :: Int
plain = 1
"""

SPOOL_INTERFACE = (
    # a section heading and its prose: no items
    '<a href="#g:1" id="g:1"><h1>Spools</h1></a><div class="doc"><p>Section prose.</p></div>'
    f'<div class="top"><p class="src"><span class="keyword">data</span> <a id="t:Spool" '
    f'class="def">Spool</a> a{_links("Spool", "t:Spool")}</p><div class="doc"><p>A spool of '
    'thread.</p><p><em>Since: 1.2.0</em></p></div><div class="subs constructors"><p class='
    '"caption">Constructors</p><table><tr><td class="src"><a id="v:Spool" class="def">Spool'
    '</a></td><td class="doc empty">&nbsp;</td></tr><tr><td colspan="2"><div class="subs '
    'fields"><p class="caption">Fields</p><ul><li><dfn class="src"><a id="v:turns" class='
    f'"def">turns</a> :: !{_base("Int")}</dfn><div class="doc"><p>how many turns</p></div>'
    '</li><li><dfn class="src"><a id="v:label" class="def">label</a> :: '
    f'{_base("String")}</dfn><div class="doc empty">&nbsp;</div></li></ul></div></td></tr>'
    '</table></div><div class="subs instances"><h4 class="instances details-toggle-control '
    'details-toggle" data-details-id="i:Spool">Instances</h4><details id="i:Spool" open="open">'
    '<table><tr><td class="src clearfix"><span class="inst-left">Show (Spool a)</span></td>'
    '<td class="doc"><p>instance doc text</p></td></tr></table></details></div></div>'
    f'<div class="top"><p class="src"><span class="keyword">data</span> <a id="t:Knot" '
    f'class="def">Knot</a>{_links("Knot", "t:Knot")}</p><div class="doc"><p>A knot.</p></div>'
    '<div class="subs constructors"><p class="caption">Constructors</p><table><tr><td class='
    f'"src"><a id="v:Bend" class="def">Bend</a> {_base("Int")}</td><td class="doc"><p>joins '
    'two ropes</p></td></tr><tr><td class="src"><a id="v:Hitch" class="def">Hitch</a></td>'
    '<td class="doc empty">&nbsp;</td></tr></table></div></div>'
    f'<div class="top"><p class="src"><span class="keyword">class</span> {_base("Show")} w '
    f'=&gt; <a id="t:Winder" class="def">Winder</a> w <span class="keyword">where</span>'
    f'{_links("Winder", "t:Winder")}</p><div class="doc"><p>Things that wind.</p></div><div '
    'class="subs minimal"><p class="caption">Minimal complete definition</p><p class="src">'
    '<a href="#v:turn">turn</a></p></div><div class="subs methods"><p class="caption">Methods'
    '</p><p class="src"><a id="v:turn" class="def">turn</a> :: w -&gt; '
    f'{_base("Int")}{_links("turn", "v:turn")}</p><div class="doc"><p>One turn.</p></div>'
    "</div></div>"
    f'<div class="top"><p class="src"><a id="v:wind" class="def">wind</a> :: {_base("Int")} '
    f"-&gt; {_ty('Spool')} a -&gt; {_ty('Spool')} a{_links('wind', 'v:wind')}</p><div class="
    '"doc"><p>Winds a spool, see <a href="Data-Spool.html">Data.Spool</a> and <code><a href='
    '"Data-Spool.html#t:Spool" title="Data.Spool">Spool</a></code>.\n Use <code>wind 3 s</code>'
    ', <em>gently</em>.</p><pre class="screen"><code class="prompt">&gt;&gt;&gt; </code><strong '
    'class="userinput"><code>wind 1 (Spool 0 &quot;x&quot;)\n</code></strong>Spool 1\n</pre>'
    "</div></div>"
    '<div class="top"><p class="src"><a id="v:-60--43--62-" class="def">(&lt;+&gt;)</a> :: '
    f'{_ty("Spool")} a -&gt; {_ty("Spool")} a -&gt; {_ty("Spool")} a <span class="fixity">'
    'infixr 5</span><span class="rightedge"></span>'
    f'{_links("%3C%2B%3E", "v:-60--43--62-")}</p><div class="doc"><p>Joins two spools.</p>'
    "</div></div>"
    f'<div class="top"><p class="src"><a id="v:spin" class="def">spin</a>'
    f'{_links("spin", "v:spin")}</p><div class="subs arguments"><p class="caption">Arguments'
    f'</p><table><tr><td class="src">:: {_base("Ord")} a</td><td class="doc empty">&nbsp;</td>'
    f'</tr><tr><td class="src">=&gt; {_base("Int")}</td><td class="doc"><p>the count</p></td>'
    '</tr><tr><td class="src">-&gt; a</td><td class="doc empty">&nbsp;</td></tr><tr><td class='
    '"src">-&gt; [a]</td><td class="doc"><p>the thread</p></td></tr></table></div><div class='
    '"doc"><p>Spins thread.</p><ul><li>evenly</li><li>slowly</li></ul></div></div>'
    f'<div class="top"><p class="src"><a id="v:plain" class="def">plain</a> :: '
    f"{_base('Int')}{_links('plain', 'v:plain')}</p></div>"
)
SPOOL_DESCRIPTION = "<p>A spool holds <code>Thread</code>.</p>"
SPOOL_URIS = [
    "haskell:Data.Spool",
    "haskell:Data.Spool.Spool",
    "haskell:Data.Spool.turns",
    "haskell:Data.Spool.Knot",
    "haskell:Data.Spool.Bend",
    "haskell:Data.Spool.Winder",
    "haskell:Data.Spool.turn",
    "haskell:Data.Spool.wind",
    "haskell:Data.Spool.<+>",
    "haskell:Data.Spool.spin",
]


def _text(h: str) -> str:
    return html_text(h)[0]


def split(html: str, uri: str = "/doc/spool/Data-Spool.html") -> tuple[list[Document], dict]:
    doc = Document("local", uri, "page", "the page as text", {"kind": "file", "suffix": ".html"})
    rejects = CollectResult()
    return haddock.split_built(doc, html, _text, rejects), dict(rejects.rejects)


def test_a_module_pages_documented_items_are_documents() -> None:
    docs, rejects = split(page(SPOOL_INTERFACE, SPOOL_DESCRIPTION))
    assert [d.uri for d in docs] == SPOOL_URIS and rejects == {}
    by = {d.uri: d for d in docs}
    assert by["haskell:Data.Spool"].text == "Data.Spool\n\nA spool holds `Thread`."
    assert by["haskell:Data.Spool.Spool"].text == (
        "data Spool a\n\nA spool of thread.\n\nSince: 1.2.0"
    )
    assert by["haskell:Data.Spool.turns"].text == "turns :: Int\n\nhow many turns"
    assert by["haskell:Data.Spool.Bend"].text == "Bend Int\n\njoins two ropes"
    assert by["haskell:Data.Spool.Winder"].text == "class Winder w\n\nThings that wind."
    assert by["haskell:Data.Spool.turn"].text == "turn :: w -> Int\n\nOne turn."
    assert by["haskell:Data.Spool.wind"].text == (
        "wind :: Int -> Spool a -> Spool a\n\n"
        "Winds a spool, see `Data.Spool` and `Spool`.\nUse `wind 3 s`, *gently*.\n\n"
        '```haskell\n>>> wind 1 (Spool 0 "x")\nSpool 1\n```'
    )
    assert by["haskell:Data.Spool.<+>"].text == (
        "(<+>) :: Spool a -> Spool a -> Spool a\n\nJoins two spools."
    )
    spin = by["haskell:Data.Spool.spin"]
    assert spin.text == (
        "spin :: Ord a => Int -> a -> [a]\n\nSpins thread.\n\n* evenly\n* slowly\n\n"
        "Argument 1 (Int): the count\n\n:returns: the thread"
    )
    assert spin.title == "Data.Spool.spin"
    meta = spin.meta
    assert meta["kind"] == "function" and meta["language"] == "haskell"
    assert meta["signature"] == "Ord a => Int -> a -> [a]" and meta["qualname"] == "Data.Spool.spin"
    assert meta["origin"] == meta["page"] == "/doc/spool/Data-Spool.html"
    assert meta["anchor"] == "v:spin" and meta["described"] is True
    kinds = {d.uri.rsplit(".", 1)[-1]: d.meta["kind"] for d in docs[1:]}
    assert kinds == {
        "Spool": "type", "turns": "field", "Knot": "type", "Bend": "constructor",
        "Winder": "class", "turn": "method", "wind": "function", "<+>": "function",
        "spin": "function",
    }  # fmt: skip
    assert by["haskell:Data.Spool.<+>"].meta["anchor"] == "v:-60--43--62-"
    assert by["haskell:Data.Spool"].meta["kind"] == "module"
    # never read: the header, synopsis, instances, section prose, source links
    for d in docs:
        for said in ("Safe-Inferred", "synopsis text", "instance doc", "Section prose"):
            assert said not in d.text
        assert "Source" not in d.text and "infixr" not in d.text


def test_the_site_and_its_sources_give_the_same_documents() -> None:
    """hsapi on the `.hs` file and this reader on the page Haddock makes of it: the same
    uris, kinds and texts."""
    source = api_documents([HaskellFile(P("src/Data/Spool.hs"), "s", SPOOL_HS)], "local")
    site, _ = split(page(SPOOL_INTERFACE, SPOOL_DESCRIPTION))
    assert sorted(d.uri for d in source) == sorted(SPOOL_URIS)
    from_source = {d.uri: (d.meta["kind"], d.meta["signature"], d.text) for d in source}
    from_site = {d.uri: (d.meta["kind"], d.meta["signature"], d.text) for d in site}
    assert from_site == from_source


def test_types_constructors_and_warnings() -> None:
    interface = (
        # a GADT: its `where` left out, its constructor's signature kept
        '<div class="top"><p class="src"><span class="keyword">data</span> <a id="t:Expr" '
        'class="def">Expr</a> a <span class="keyword">where</span></p><div class="doc"><p>'
        'An expression.</p></div><div class="subs constructors"><p class="caption">'
        'Constructors</p><table><tr><td class="src"><a id="v:Lit" class="def">Lit</a> :: '
        f'{_base("Int")} -&gt; {_ty("Expr")} {_base("Int")}</td><td class="doc"><p>a literal'
        "</p></td></tr></table></div></div>"
        # an infix, strict, unpacked, existential constructor
        '<div class="top"><p class="src"><span class="keyword">data</span> <a id="t:Pair" '
        'class="def">Pair</a></p><div class="subs constructors"><p class="caption">'
        'Constructors</p><table><tr><td class="src"><span class="keyword">forall</span> a. '
        f'{_base("Show")} a =&gt; <span class="keyword">{{-# UNPACK #-}}</span>!{_base("Int")}'
        ' <a id="v::-42-:" class="def">:*:</a> a</td><td class="doc"><p>a pair</p></td></tr>'
        "</table></div></div>"
        # a synonym, a family, a newtype, a class with dependencies
        '<div class="top"><p class="src"><span class="keyword">type</span> <a id="t:Name" '
        f'class="def">Name</a> = {_base("String")}</p><div class="doc"><p>A name.</p></div>'
        '</div><div class="top"><p class="src"><span class="keyword">type family</span> <a '
        'id="t:Elem" class="def">Elem</a> c :: <a>Type</a></p><div class="doc"><p>Elements.'
        '</p></div></div><div class="top"><p class="src"><span class="keyword">newtype</span>'
        ' <a id="t:Wrap" class="def">Wrap</a> a</p><div class="doc"><p>A wrapper.</p></div>'
        '</div><div class="top"><p class="src"><span class="keyword">class</span> <a>Monad</a>'
        ' m =&gt; <a id="t:MonadSpool" class="def">MonadSpool</a> s m | m -&gt; s <span '
        'class="keyword">where</span></p><div class="doc"><p>Spooling monads.</p></div></div>'
        # deprecated, with an external link, a module on Hackage, a code block
        '<div class="top"><p class="src"><a id="v:old" class="def">old</a> :: '
        f'{_base("Int")}</p><div class="doc"><div class="warning"><p>Deprecated: Use <code>'
        '<a href="#v:new">new</a></code></p></div><p>Old, see <a href="https://example.org/'
        'spool">the spool site</a> and <a href="https://hackage.haskell.org/package/containers'
        '/docs/Data-Map.html">Data.Map</a>.</p><pre>old\n  + 1\n</pre><p><em>Since: 0.1</em>'
        "</p></div></div>"
        # a pattern synonym and an undocumented function: no documents
        '<div class="top"><p class="src"><span class="keyword">pattern</span> <a id="v:P" '
        'class="def">P</a> :: Int</p><div class="doc"><p>A pattern.</p></div></div>'
        '<div class="top"><p class="src"><a id="v:new" class="def">new</a> :: Int</p></div>'
    )
    docs, _ = split(page(interface, title="Data.Expr"), "/d/Data-Expr.html")
    by = {d.uri.removeprefix("haskell:Data.Expr."): d for d in docs}
    assert list(by) == ["Expr", "Lit", ":*:", "Name", "Elem", "Wrap", "MonadSpool", "old"]
    assert by["Expr"].text == "data Expr a\n\nAn expression."
    assert by["Lit"].text == "Lit :: Int -> Expr Int\n\na literal"
    assert by["Lit"].meta["signature"] == "Int -> Expr Int"
    assert by[":*:"].text == "!Int :*: a\n\na pair" and by[":*:"].meta["kind"] == "constructor"
    assert by["Name"].text == "type Name = String\n\nA name."
    assert by["Elem"].text == "type family Elem c :: Type\n\nElements."
    assert by["Wrap"].text == "newtype Wrap a\n\nA wrapper."
    assert by["MonadSpool"].text == "class MonadSpool s m\n\nSpooling monads."
    assert by["old"].text == (
        "old :: Int\n\nOld, see [the spool site](https://example.org/spool) and `Data.Map`.\n\n"
        "```haskell\nold\n  + 1\n```\n\nDeprecated: Use `new`\n\nSince: 0.1"
    )


def test_module_names_from_the_file_when_the_page_has_none() -> None:
    html = page(SPOOL_INTERFACE, title="").replace('<p class="caption"></p>', "")
    docs, _ = split(html, "/x/Data-Spool-Extra.html")
    assert docs[0].uri == "haskell:Data.Spool.Extra.Spool"


def test_contents_undocumented_and_other_pages() -> None:
    contents = (
        HEAD.format(title="spool-1.0: Spools")
        + '<div id="description"><h1>spool-1.0</h1><div class="doc"><p>Spools.</p></div></div>'
        '<div id="module-list"><p class="caption">Modules</p><ul><li><a href="Data-Spool.html">'
        "Data.Spool</a></li></ul></div>" + FOOT
    )
    assert split(contents, "/d/index.html") == ([], {haddock.HADDOCK_CONTENTS: 1})
    bare = '<div class="top"><p class="src"><a id="v:f" class="def">f</a> :: Int</p></div>'
    assert split(page(bare)) == ([], {haddock.HADDOCK_UNDOCUMENTED: 1})
    doc = Document("local", "/x.html", "x", "text", {})
    other = "<html><body><div class='top'><p class='src'>f</p></div></body></html>"
    assert haddock.split_built(doc, other, _text) == [doc]
    assert not haddock.is_haddock(other)
    assert haddock.is_haddock(page(bare)) and haddock.is_haddock(contents)
    # an old Haddock's page (no script, its footer) is Haddock's; without an interface it
    # is left to the page reader
    old = "<html><body><table class='vanilla'><tr><td>f</td></tr></table><p>Produced by " + (
        '<a href="http://www.haskell.org/haddock/">Haddock</a> version 2.4.2</p></body></html>'
    )
    assert haddock.is_haddock(old) and haddock.split_built(doc, old, _text) == [doc]
    assert haddock.URI_PREFIX == "haskell:"
    for reason in (haddock.HADDOCK_CONTENTS, haddock.HADDOCK_UNDOCUMENTED):
        assert haddock.FIXES[reason].endswith("the source's haskell: text reads the pages as text")


def test_a_collapsible_examples_section_and_lists() -> None:
    example = (
        '<pre class="screen"><code class="prompt">&gt;&gt;&gt; </code><strong class="userinput">'
        "<code>size (fromList [1,2])\n</code></strong>2\n</pre>"
    )
    interface = (
        '<div class="top"><p class="src"><a id="v:size" class="def">size</a> :: Int</p><div '
        'class="doc"><p><em>O(1)</em> The size, see\n <code>length</code>:</p><ol><li>one\n '
        'line</li><li>two</li></ol><h4 class="subheading details-toggle-control details-'
        'toggle" data-details-id="ch:size0">Examples</h4><details id="ch:size0"><summary '
        f'class="hide-when-js-enabled">Expand</summary>{example}{example}</details></div></div>'
    )
    docs, _ = split(page(interface))
    assert docs[0].text == (
        "size :: Int\n\n*O(1)* The size, see\n`length`:\n\n1. one\n  line\n2. two\n\n"
        "==== **Examples**\n\n"
        "```haskell\n>>> size (fromList [1,2])\n2\n```\n\n"
        "```haskell\n>>> size (fromList [1,2])\n2\n```"
    )


def test_a_built_site_in_a_folder_is_read_as_its_items_and_its_generated_pages_skipped(
    tmp_path: Path,
) -> None:
    """A package's docs/ folder as a local source (the defaults read *.html): the module
    page gives the same documents the sources would, the name index and the Hoogle file
    are the generator's, counted, not read."""
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig

    site = tmp_path / "docs"
    site.mkdir()
    (site / "Data-Spool.html").write_text(page(SPOOL_INTERFACE, SPOOL_DESCRIPTION))
    (site / "doc-index.html").write_text(HEAD.format(title="Index") + "<p>wind</p>" + FOOT)
    (site / "haddock-bundle.min.js").write_text("/* haddock */")
    (site / "spool.txt").write_text("-- Hoogle documentation\nwind :: Int -> Spool a\n")
    cfg = DomainConfig.model_validate({"name": "t", "sources": [{"type": "local", "path": "docs"}]})
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, rejects)}  # type: ignore[arg-type]
    assert sorted(docs) == sorted(SPOOL_URIS)
    assert rejects.rejects.get("haddock_generated") == 2  # doc-index.html, spool.txt
    # haskell: text reads the page as one
    cfg.sources[0].haskell = "text"  # type: ignore[union-attr]
    assert len(collect_local(cfg.sources[0], cfg, CollectResult())) == 1  # type: ignore[arg-type]
