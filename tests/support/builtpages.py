"""Built documentation pages (a Sphinx page, a javadoc page): what the collect tests of a
local folder and a web site read."""

# a built Sphinx page, as Sphinx 7 writes one (trimmed): a function, a class with a method
# and an attribute, a C function, a command-line option (a definition, left in the page)
BUILT = """<!DOCTYPE html><html><head><title>json — JSON encoder (Python docs)</title></head>
<body><div role="navigation">Index | Modules</div><div role="main">
<h1>json — JSON encoder<a class="headerlink" href="#json">¶</a></h1>
<p>JSON is a lightweight data interchange format.</p>
<dl class="py function">
<dt class="sig sig-object py" id="json.dumps">
<span class="sig-prename descclassname"><span class="pre">json.</span></span><span
class="sig-name descname"><span class="pre">dumps</span></span><span class="sig-paren">(</span
><em class="sig-param"><span class="n"><span class="pre">obj</span></span></em>, <em
class="sig-param"><span class="o"><span class="pre">*</span></span></em>, <em class="sig-param"
><span class="n"><span class="pre">indent</span></span><span class="o"><span class="pre">=</span
></span><span class="default_value"><span class="pre">None</span></span></em><span
class="sig-paren">)</span><a class="headerlink" href="#json.dumps" title="Link">¶</a></dt>
<dd><p>Serialize <em>obj</em> to a JSON formatted <code class="xref py py-class docutils literal"
><span class="pre">str</span></code>.</p>
<div class="versionchanged"><p><span class="versionmodified">Changed in version 3.4: </span
>Use a compact separator.</p></div>
</dd></dl>
<dl class="py class">
<dt class="sig sig-object py" id="json.JSONDecoder">
<em class="property"><span class="pre">class</span><span class="w"> </span></em><span
class="sig-prename descclassname"><span class="pre">json.</span></span><span
class="sig-name descname"><span class="pre">JSONDecoder</span></span><span
class="sig-paren">(</span><em class="sig-param"><span class="pre">strict=True</span></em><span
class="sig-paren">)</span><a class="headerlink" href="#json.JSONDecoder">¶</a></dt>
<dd><p>Simple JSON decoder.</p>
<dl class="py method">
<dt class="sig sig-object py" id="json.JSONDecoder.decode">
<span class="sig-name descname"><span class="pre">decode</span></span><span
class="sig-paren">(</span><em class="sig-param"><span class="pre">s</span></em><span
class="sig-paren">)</span><a class="headerlink" href="#json.JSONDecoder.decode">¶</a></dt>
<dd><p>Return the Python representation of <em>s</em>.</p></dd></dl>
<dl class="py attribute">
<dt class="sig sig-object py" id="json.JSONDecoder.strict">
<span class="sig-name descname"><span class="pre">strict</span></span><em class="property"
><span class="p"><span class="pre">:</span></span><span class="w"> </span><span class="pre"
>bool</span></em></dt>
<dd><p>If false, control characters are allowed.</p></dd></dl>
</dd></dl>
<dl class="c function">
<dt class="sig sig-object c" id="c.PyList_New">
<span class="n"><span class="pre">PyObject</span></span><span class="w"> </span><span class="p"
><span class="pre">*</span></span><span class="sig-name descname"><span class="n"><span
class="pre">PyList_New</span></span></span><span class="sig-paren">(</span><span class="n"
><span class="pre">Py_ssize_t</span></span><span class="w"> </span><span class="n"><span
class="pre">len</span></span><span class="sig-paren">)</span></dt>
<dd><p>Return a new list of length <em>len</em>.</p></dd></dl>
<dl class="std cmdoption">
<dt class="sig sig-object std" id="cmdoption-json.tool-sort-keys">
<span class="sig-name descname"><span class="pre">--sort-keys</span></span></dt>
<dd><p>Sort the output of dictionaries alphabetically by key.</p></dd></dl>
<pre>&lt;dl class="py function"&gt; in a code sample</pre>
<p>The end of the page.</p>
</div><div role="contentinfo">Copyright</div></body></html>
"""

# a javadoc page as the JDK 17 doclet writes one (trimmed): the type's description, a
# field, two overloads of one method, a method with no text of its own
JAVADOC = """<!DOCTYPE html><html><head><title>Strings (spool 1.0 API)</title></head><body>
<header role="banner"><nav>Overview | Package | Class</nav></header>
<main role="main"><div class="header">
<div class="sub-title"><span class="package-label-in-type">Package</span>&nbsp;<a
href="package-summary.html">org.spool.text</a></div>
<h1 title="Class Strings" class="title">Class Strings&lt;T&gt;</h1></div>
<section class="class-description" id="class-description">
<div class="type-signature">public final class Strings</div>
<div class="block">Operations on <code>String</code> that are <code>null</code> safe.</div>
</section>
<section class="summary"><h2>Method Summary</h2><p>abbreviate: Abbreviates a String.</p>
</section>
<section class="details"><ul class="member-list"><li>
<section class="detail" id="EMPTY">
<h3>EMPTY</h3>
<div class="member-signature"><span class="modifiers">public static final</span>&nbsp;<span
class="return-type">String</span>&nbsp;<span class="element-name">EMPTY</span></div>
<div class="block">The empty String <code>""</code>.</div>
</section></li><li>
<section class="detail" id="abbreviate(java.lang.String,int)">
<h3>abbreviate</h3>
<div class="member-signature"><span class="modifiers">public static</span>&nbsp;<span
class="return-type"><a href="x.html">String</a></span>&nbsp;<span class="element-name"
>abbreviate</span><wbr><span class="parameters">(<a href="x.html">String</a>&nbsp;str,
 int&nbsp;maxWidth)</span></div>
<div class="block"><p>Abbreviates a String using ellipses.</p>
<div class="note">Never longer than <code>maxWidth</code>.</div></div>
<dl class="notes">
<dt>Parameters:</dt>
<dd><code>str</code> - the String to check, may be null</dd>
<dd><code>maxWidth</code> - maximum length of result String</dd>
<dt>Returns:</dt>
<dd>abbreviated String, <code>null</code> if null String input</dd>
<dt>Throws:</dt>
<dd><code><a href="y.html">IllegalArgumentException</a></code> - if the width is too small</dd>
<dt>Since:</dt>
<dd>2.0</dd>
</dl>
</section></li><li>
<section class="detail" id="abbreviate(java.lang.String,int,int)">
<h3>abbreviate</h3>
<div class="member-signature"><span class="modifiers">public static</span>&nbsp;String&nbsp;<span
class="element-name">abbreviate</span><span class="parameters">(String&nbsp;str,
 int&nbsp;offset, int&nbsp;maxWidth)</span></div>
<div class="block">Abbreviates from an offset.</div>
</section></li><li>
<section class="detail" id="hashCode()">
<h3>hashCode</h3>
<div class="member-signature">public&nbsp;int&nbsp;hashCode()</div>
</section></li></ul></section>
</main><footer role="contentinfo">Copyright 2024</footer></body></html>
"""


def rustdoc_page(kind: str, title: str, main: str) -> str:
    """A page as rustdoc 1.95 writes one (trimmed): `kind` its body class, `title` its
    title, `main` its main content; the sidebar's text must never be read."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="generator" '
        f'content="rustdoc"><title>{title}</title></head><body class="rustdoc {kind}">'
        '<nav class="sidebar"><h2><a href="index.html">spool</a></h2><ul class="block method">'
        '<li><a href="#method.new">sidebar entry</a></li></ul></nav><main><div '
        'class="width-limiter"><section id="main-content" class="content" tabindex="-1">'
        '<div class="main-heading"><div class="rustdoc-breadcrumbs"><a href="index.html">spool'
        '</a></div><h1>Item <span>name</span>&nbsp;<button id="copy-path">Copy item path'
        '</button></h1><span class="sub-heading"><a class="src" href="../src/spool/lib.rs.html'
        f'#3">Source</a></span></div>{main}</section></div></main></body></html>'
    )


def _top(html: str) -> str:
    return (
        '<details class="toggle top-doc" open><summary class="hideme"><span>Expand '
        f'description</span></summary><div class="docblock">{html}</div></details>'
    )


def _method(anchor: str, header: str, doc: str, extra: str = "", cls: str = "method") -> str:
    block = f'<div class="docblock">{doc}</div>' if doc else ""
    return (
        f'<details class="toggle method-toggle" open><summary><section id="{anchor}" '
        f'class="{cls}"><a class="src rightside" href="#">Source</a><h4 class="code-header">'
        f"{header}</h4></section>{extra}</summary>{block}</details>"
    )


_STRUCT = (
    '<pre class="rust item-decl"><code>pub struct Rope&lt;T&gt; {\n    pub len: <a class='
    '"primitive" href="#">usize</a>,\n    <span class="comment">/* private fields */</span>\n}'
    "</code></pre>"
    + _top(
        '<p>A rope of strands that doesn’t fray.</p>\n<h2 id="examples"><a class="doc-anchor'
        '" href="#examples">§</a>Examples</h2>\n<div class="example-wrap ignore"><a href="#" '
        'class="tooltip" title="This example is not tested">ⓘ</a><pre class="rust '
        'rust-example-rendered"><code><span class="kw">let </span>r = Rope::new();</code></pre>'
        "</div>"
    )
    + '<h2 id="fields" class="fields section-header">Fields<a href="#fields" class="anchor">§'
    '</a></h2><span id="structfield.len" class="structfield section-header"><a href="#struct'
    'field.len" class="anchor field">§</a><code>len: <a class="primitive" href="#">usize</a>'
    '</code></span><div class="docblock"><p>How many strands.</p>\n</div>'
    '<h2 id="implementations" class="section-header">Implementations</h2><div id="implementat'
    'ions-list"><details class="toggle implementors-toggle" open><summary><section id="impl-'
    'Rope%3CT%3E" class="impl"><h3 class="code-header">impl&lt;T&gt; <a class="struct" href='
    '"struct.Rope.html">Rope</a>&lt;T&gt;</h3></section></summary><div class="impl-items">'
    + _method(
        "method.new",
        'pub const fn <a href="#method.new" class="fn">new</a>() -&gt; Self',
        "<p>Makes an empty rope.</p>",
    )
    + _method(
        "method.splice",
        'pub fn <a href="#method.splice" class="fn">splice</a>&lt;F&gt;(&amp;mut self, at: <a '
        'class="primitive" href="#">usize</a>, f: F) -&gt; <a class="enum" href="#">Option</a>'
        '&lt;&amp;T&gt;<div class="where">where\n    F: <a class="trait" href="#">Fn</a>(T) -&gt;'
        " T,</div>",
        "<p>Splices a strand in at <code>at</code>.</p>",
        '<span class="item-info"><div class="stab deprecated"><span class="emoji">👎</span><span>'
        "Deprecated since 0.2.0: use <code>join</code></span></div></span>",
    )
    + '<section id="method.untold" class="method"><h4 class="code-header">pub fn <a href="#'
    'method.untold" class="fn">untold</a>(&amp;self)</h4></section>'
    "</div></details></div>"
    '<h2 id="trait-implementations" class="section-header">Trait Implementations</h2><div '
    'id="trait-implementations-list"><details class="toggle implementors-toggle" open>'
    '<summary><section id="impl-Default-for-Rope%3CT%3E" class="impl"><h3 class="code-header">'
    'impl&lt;T&gt; Default for Rope&lt;T&gt;</h3></section></summary><div class="impl-items">'
    + _method(
        "method.default",
        'fn <a href="#" class="fn">default</a>() -&gt; Self',
        "<p>An empty rope, as <code>new</code> makes.</p>",
        cls="method trait-impl",
    )
    + '</div></details><details class="toggle implementors-toggle" open><summary><section '
    'id="impl-Clone-for-Rope%3CT%3E" class="impl"><h3 class="code-header">impl&lt;T&gt; Clone '
    'for Rope&lt;T&gt;</h3></section></summary><div class="impl-items"><details class="toggle'
    ' method-toggle" open><summary><section id="method.clone" class="method trait-impl"><h4 '
    'class="code-header">fn <a href="#" class="fn">clone</a>(&amp;self) -&gt; Self</h4>'
    "</section></summary><div class='docblock'>Returns a duplicate of the value. <a href=\"#\">"
    'Read more</a></div></details><details class="toggle method-toggle" open><summary><section'
    ' id="method.clone_from" class="method trait-impl"><h4 class="code-header">fn <a href="#" '
    'class="fn">clone_from</a>(&amp;mut self, source: &amp;Self)</h4></section></summary><div '
    "class='docblock'>Performs copy-assignment from <code>source</code>.</div></details></div>"
    '</details></div><h2 id="synthetic-implementations" class="section-header">Auto Trait '
    'Implementations</h2><div id="synthetic-implementations-list"><section id="impl-Send-for-'
    'Rope%3CT%3E" class="impl"><h3 class="code-header">impl&lt;T&gt; Send for Rope&lt;T&gt;'
    '</h3></section></div><h2 id="blanket-implementations" class="section-header">Blanket '
    'Implementations</h2><div id="blanket-implementations-list"><details class="toggle '
    'implementors-toggle"><summary><section id="impl-From%3CT%3E-for-T" class="impl"><h3 '
    'class="code-header">impl&lt;T&gt; From&lt;T&gt; for T</h3></section></summary><div '
    'class="impl-items">'
    + _method(
        "method.from",
        'fn <a href="#" class="fn">from</a>(t: T) -&gt; T',
        "<p>Returns the argument unchanged.</p>",
        cls="method trait-impl",
    )
    + "</div></details></div>"
)
_ENUM = (
    '<pre class="rust item-decl"><code>pub enum Knot {\n    Slip,\n    Bend(u8),\n    Hitch {\n'
    "        turns: u32,\n    },\n    Loose,\n}</code></pre>"
    + _top("<p>The knots a rope can hold.</p>")
    + '<h2 id="variants" class="variants section-header">Variants</h2><div class="variants">'
    '<section id="variant.Slip" class="variant"><a href="#variant.Slip" class="anchor">§</a>'
    '<h3 class="code-header">Slip</h3></section><div class="docblock"><p>Comes undone with a '
    'pull.</p></div><section id="variant.Bend" class="variant"><h3 class="code-header">Bend('
    '<a class="primitive" href="#">u8</a>)</h3></section><div class="docblock"><p>Joins two '
    'ropes, this many times over.</p></div><section id="variant.Hitch" class="variant"><h3 '
    'class="code-header">Hitch</h3></section><div class="docblock"><p>Ties to a post.</p>'
    '</div><div class="sub-variant" id="variant.Hitch.fields"><h4>Fields</h4><div '
    'class="sub-variant-field"><span id="variant.Hitch.field.turns" class="section-header">'
    '<code>turns: <a class="primitive" href="#">u32</a></code></span></div></div><section '
    'id="variant.Loose" class="variant"><h3 class="code-header">Loose</h3></section></div>'
)
_TRAIT = (
    '<pre class="rust item-decl"><code>pub trait Wind {\n    type Drum;\n    fn wind(&amp;self)'
    ";\n}</code></pre>"
    + _top("<p>Something a rope winds onto.</p>")
    + '<h2 id="required-associated-types" class="section-header">Required Associated Types'
    '</h2><div class="methods">'
    + _method(
        "associatedtype.Drum",
        'type <a href="#associatedtype.Drum" class="associatedtype">Drum</a>',
        "<p>What it winds onto.</p>",
    )
    + '</div><h2 id="provided-associated-consts" class="section-header">Provided Associated '
    'Constants</h2><div class="methods">'
    + _method(
        "associatedconstant.TURNS",
        'const <a href="#associatedconstant.TURNS" class="constant">TURNS</a>: <a class='
        '"primitive" href="#">u8</a> = 3',
        "<p>Turns a winding takes.</p>",
    )
    + '</div><h2 id="required-methods" class="section-header">Required Methods</h2><div '
    'class="methods">'
    + _method(
        "tymethod.wind",
        'fn <a href="#tymethod.wind" class="fn">wind</a>(&amp;self, drum: &amp;mut Self::<a '
        'class="associatedtype" href="#">Drum</a>) -&gt; <a class="primitive" href="#">bool</a>',
        "<p>Winds the rope on <code>drum</code>.</p>",
    )
    + '</div><h2 id="provided-methods" class="section-header">Provided Methods</h2><div '
    'class="methods">'
    + _method(
        "method.unwind",
        'fn <a href="#method.unwind" class="fn">unwind</a>(&amp;self)',
        "<p>Unwinds it all.</p>",
    )
    + '</div><h2 id="foreign-impls" class="section-header">Implementations on Foreign Types'
    "</h2>"
    + _method(
        "method.wind-1",
        'fn <a href="#" class="fn">wind</a>(&amp;self, drum: &amp;mut Vec) -&gt; bool',
        "<p>Winds onto a vector.</p>",
        cls="method trait-impl",
    )
    + '<h2 id="implementors" class="section-header">Implementors</h2><div id="implementors-'
    'list"><section id="impl-Wind-for-Rope" class="impl"><h3 class="code-header">impl Wind '
    "for Rope</h3></section></div>"
)
_FN = (
    "<pre class=\"rust item-decl\"><code>pub async fn spin&lt;'a&gt;(yarn: &amp;'a <a class="
    '"primitive" href="#">str</a>, turns: <a class="primitive" href="#">u32</a>) -&gt; <a '
    'class="type" href="type.Result.html">Result</a>&lt;<a class="primitive" href="#">u32</a>'
    "&gt;</code></pre>"
    '<span class="item-info"><div class="stab portability">Available on <strong>crate feature'
    " <code>tokio</code></strong> only.</div></span>"
    + _top("<p>Spins <code>yarn</code> into rope.</p>\n<p>Returns the turns made.</p>")
)
_TYPE = (
    '<pre class="rust item-decl"><code>pub type Result&lt;T&gt; = <a class="enum" href="#">'
    'Result</a>&lt;T, <a class="enum" href="enum.Knot.html">Knot</a>&gt;;</code></pre>'
    + _top("<p>A result whose error is a knot.</p>")
    + '<h2 id="aliased-type" class="section-header">Aliased Type</h2><pre class="rust item-'
    'decl"><code>pub enum Result&lt;T&gt; { Ok(T), Err(Knot) }</code></pre><h2 id="variants" '
    'class="variants section-header">Variants</h2><div class="variants"><section id="variant.'
    'Ok" class="variant"><h3 class="code-header">Ok(T)</h3></section><div class="docblock">'
    "<p>Contains the success value</p></div></div>"
)
# a rustdoc site (rustdoc 1.78 and later: src-files.js, search.index/) under doc/
RUSTDOC = {
    "doc/crates.js": 'window.ALL_CRATES = ["spool"];',
    "doc/src-files.js": "createSrcSidebar('[]');",
    "doc/help.html": rustdoc_page("mod", "Help", "<p>Keyboard shortcuts and search.</p>"),
    "doc/search.index/root.js": "rr_('{}');",
    "doc/static.files/LICENSE-MIT.txt": "Permission is hereby granted, free of charge.",
    "doc/src/spool/lib.rs.html": rustdoc_page(
        "src", "lib.rs - source", "<pre><code>pub struct Rope;</code></pre>"
    ),
    "doc/spool/macro.trim!.html": (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n    <meta http-equiv="refresh" content="0;'
        'URL=macro.trim.html">\n    <title>Redirection</title>\n</head>\n<body>\n    <p>'
        'Redirecting to <a href="macro.trim.html">macro.trim.html</a>...</p>\n</body>\n</html>'
    ),
    "doc/spool/index.html": rustdoc_page(
        "mod crate",
        "spool - Rust",
        _top('<p>Ropes, knots and spools.</p>\n<h2 id="usage">Usage</h2>\n<p>Wind first.</p>')
        + '<h2 id="structs" class="section-header">Structs</h2><dl class="item-table"><dt><a '
        'class="struct" href="struct.Rope.html">Rope</a></dt><dd>A rope of strands that '
        "doesn’t fray.</dd></dl>",
    ),
    "doc/spool/knots/index.html": rustdoc_page(
        "mod", "spool::knots - Rust", _top("<p>Knots and how to tie them.</p>")
    ),
    "doc/spool/struct.Rope.html": rustdoc_page("struct", "Rope in spool - Rust", _STRUCT),
    "doc/spool/enum.Knot.html": rustdoc_page("enum", "Knot in spool - Rust", _ENUM),
    "doc/spool/trait.Wind.html": rustdoc_page("trait", "Wind in spool - Rust", _TRAIT),
    "doc/spool/fn.spin.html": rustdoc_page("fn", "spin in spool - Rust", _FN),
    "doc/spool/macro.trim.html": rustdoc_page(
        "macro",
        "trim in spool - Rust",
        '<pre class="rust item-decl"><code>macro_rules! trim {\n    ($r:expr) =&gt; { ... };\n}'
        "</code></pre>" + _top("<p>Trims a rope’s frayed ends.</p>"),
    ),
    "doc/spool/type.Result.html": rustdoc_page("type", "Result in spool - Rust", _TYPE),
    "doc/spool/constant.MAX_TURNS.html": rustdoc_page(
        "constant",
        "MAX_TURNS in spool - Rust",
        '<pre class="rust item-decl"><code>pub const MAX_TURNS: <a class="primitive" href="#">'
        "u32</a> = 64;</code></pre>" + _top("<p>The most turns a spool holds.</p>"),
    ),
    "doc/spool/struct.Bare.html": rustdoc_page(
        "struct",
        "Bare in spool - Rust",
        '<pre class="rust item-decl"><code>pub struct Bare;</code></pre><h2 id="trait-'
        'implementations" class="section-header">Trait Implementations</h2><div id="trait-'
        'implementations-list">'
        + _method(
            "method.clone",
            'fn <a href="#" class="fn">clone</a>(&amp;self) -&gt; Self',
            "Returns a duplicate of the value.",
            cls="method trait-impl",
        ).replace('class="docblock"', "class='docblock'")
        + "</div>",
    ),
}


def doxygen_page(title: str, body: str) -> str:
    """A page as Doxygen 1.9 writes one (trimmed): `title` after the project's name, `body`
    its contents; the navigation's text must never be read."""
    return (
        '<!DOCTYPE html><html><head><meta name="generator" content="Doxygen 1.9.4"/><title>'
        f'spool: {title}</title></head><body><div id="top"><div id="projectname">spool</div>'
        '<div id="main-nav">nav entry</div></div><div class="header"><div class="headertitle">'
        f'<div class="title">{title}</div></div></div><div class="contents">{body}</div>'
        '<hr class="footer"/><address class="footer">Generated by doxygen</address></body></html>'
    )


def _memitem(anchor: str, title: str, proto: str, doc: str, labels: str = "") -> str:
    table = f'<table class="memname">{proto}</table>'
    if labels:
        table = (
            f'<table class="mlabels"><tr><td class="mlabels-left">{table}</td><td class="mlabels'
            f'-right"><span class="mlabels"><span class="mlabel">{labels}</span></span></td></tr>'
            "</table>"
        )
    return (
        f'<a id="{anchor}" name="{anchor}"></a><h2 class="memtitle"><span class="permalink"><a '
        f'href="#{anchor}">&#9670;&nbsp;</a></span>{title}</h2><div class="memitem"><div '
        f'class="memproto">{table}</div><div class="memdoc">{doc}</div></div>'
    )


def _fn_rows(name: str, params: list[tuple[str, str]], closing: str = ")") -> str:
    rows = []
    for k, (typ, pname) in enumerate(params):
        first = f'<td class="memname">{name} </td><td>(</td>' if k == 0 else "<td></td><td></td>"
        sep = ", " if k < len(params) - 1 else "&#160;"
        rows.append(
            f'<tr>{first}<td class="paramtype">{typ}&#160;</td><td class="paramname"><em>{pname}'
            f"</em>{sep}</td></tr>"
        )
    return "".join(rows) + f"<tr><td></td><td>{closing}</td><td></td><td></td></tr>"


_PARAMS = (
    '<dl class="params"><dt>Parameters</dt><dd><table class="params"><tr><td class="paramdir">'
    '[out]</td><td class="paramname">out</td><td>where the spool is written </td></tr><tr><td '
    'class="paramname">name</td><td>its name, not <code>NULL</code> </td></tr></table></dd></dl>'
)
DOXYGEN = {
    "html/doxygen.css": "/* doxygen */",
    "html/index.html": doxygen_page(
        "Main Page", '<div class="textblock"><p>Spool winds thread onto reels.</p></div>'
    ),
    "html/files.html": doxygen_page("File List", "<p>spool.h</p>"),
    "html/spool_8h_source.html": doxygen_page("spool.h Source File", "<pre>int x;</pre>"),
    # a group page: functions, a macro and an enumeration, as libgit2's are written
    "html/group__spool.html": doxygen_page(
        "Spool routines",
        '<table class="memberdecls"><tr class="memitem:a"><td class="memItemLeft">int</td><td '
        'class="memItemRight"><a class="el" href="#ga1">spool_open</a> (spool **out, const '
        'char *name)</td></tr><tr><td class="mdescLeft"></td><td class="mdescRight">Open a '
        "spool. </td></tr></table>"
        '<a name="details" id="details"></a><h2 class="groupheader">Detailed Description</h2>'
        '<div class="textblock"><p>Routines that open and wind spools.</p></div>'
        '<h2 class="groupheader">Macro Definition Documentation</h2>'
        + _memitem(
            "ga2",
            "SPOOL_MAX_TURNS",
            '<tr><td class="memname">#define SPOOL_MAX_TURNS&#160;&#160;&#160;64</td></tr>',
            "<p>The most turns a spool holds. </p>",
        )
        + _memitem(
            "ga7",
            "SPOOL_INIT",
            '<tr><td class="memname">#define SPOOL_INIT</td></tr>',
            '<b>Value:</b><div class="fragment"><div class="line">{ 1, \\</div><div class="line">'
            "    2 }</div></div><p>Options a spool starts with. </p>",
        )
        + _memitem(
            "ga8",
            "SPOOL_FIELDS",
            '<tr><td class="memname">#define SPOOL_FIELDS</td></tr>',
            '<b>Value:</b><div class="fragment"><div class="line">int turns; \\</div></div>',
        )
        + _memitem(
            "ga3",
            "SPOOL_UNDOCUMENTED",
            '<tr><td class="memname">#define SPOOL_UNDOCUMENTED&#160;&#160;&#160;1</td></tr>',
            "",
        )
        + '<h2 class="groupheader">Enumeration Type Documentation</h2>'
        + _memitem(
            "ga4",
            "spool_mode_t",
            '<tr><td class="memname">enum <a class="el" href="#ga4">spool_mode_t</a></td></tr>',
            '<p>How a spool winds. </p><table class="fieldtable"><tr><th colspan="2">Enumerator'
            '</th></tr><tr><td class="fieldname"><a id="e1" name="e1"></a>SPOOL_TIGHT&#160;</td>'
            '<td class="fielddoc"><p>Each turn pressed to the last. </p></td></tr><tr><td '
            'class="fieldname"><a id="e2" name="e2"></a>SPOOL_LOOSE&#160;</td><td class="fielddoc">'
            "</td></tr></table>",
        )
        + '<h2 class="groupheader">Function Documentation</h2>'
        + _memitem(
            "ga1",
            "spool_open()",
            _fn_rows(
                "int spool_open",
                [('<a class="el" href="#">spool</a> **', "out"), ("const char *", "name")],
            ),
            "<p>Open a spool by name.</p><p>The spool is created when missing.</p>"
            + _PARAMS
            + '<dl class="section return"><dt>Returns</dt><dd>0 or an error code </dd></dl>'
            '<dl class="section note"><dt>Note</dt><dd>Not thread safe. </dd></dl>',
        )
        + _memitem(
            "ga5",
            "spool_close()",
            _fn_rows("void spool_close", [("spool *", "s")]),
            "<p>spool_close() : Close a spool. </p>",
        )
        + _memitem(
            "ga6",
            "spool_turns()",
            _fn_rows("FMT_INLINE size_t spool_turns", [("void", "")]),
            "<p>How many turns there are. </p>",
        ),
    ),
    # a struct page: its description and its fields
    "html/structspool__options.html": doxygen_page(
        "spool_options Struct Reference",
        '<a name="details" id="details"></a><h2 class="groupheader">Detailed Description</h2>'
        '<div class="textblock"><p>Options for winding a spool.</p></div>'
        '<h2 class="groupheader">Field Documentation</h2>'
        + _memitem(
            "a1",
            "turns",
            '<tr><td class="memname">unsigned int spool_options::turns</td></tr>',
            "<p>How many turns to wind. </p>",
        ),
    ),
    # a C++ class page: qualified members, overloads, a trailing return type
    "html/classreel_1_1Reel.html": doxygen_page(
        "reel::Reel&lt; T &gt; Class Template Reference",
        '<a name="details" id="details"></a><h2 class="groupheader">Detailed Description</h2>'
        '<div class="textblock"><div class="compoundTemplParams">template&lt;typename T&gt;<br/>'
        "class reel::Reel&lt; T &gt;</div><p>A reel that holds thread. </p></div>"
        '<h2 class="groupheader">Member Function Documentation</h2>'
        + _memitem(
            "b1",
            'wind() <span class="overload">[1/2]</span>',
            _fn_rows("void <a>reel::Reel</a>&lt; T &gt;::wind", [("int", "turns")]),
            "<p>Winds <code>turns</code> turns. </p>",
        )
        + _memitem(
            "b2",
            'wind() <span class="overload">[2/2]</span>',
            _fn_rows(
                "void <a>reel::Reel</a>&lt; T &gt;::wind",
                [("int", "turns"), ("double", "tension")],
            ),
            "<p>Winds at a tension. </p>",
        )
        + _memitem(
            "b3",
            "size()",
            '<tr><td class="memname">constexpr auto reel::Reel&lt; T &gt;::size </td><td>(</td>'
            '<td class="paramname"></td><td>) const -&gt; size_t</td><td></td></tr>',
            "<p>The thread on the reel. </p>"
            '<dl class="exception"><dt>Exceptions</dt><dd><table class="exception"><tr><td '
            'class="paramname">std::logic_error</td><td>when the reel is broken </td></tr>'
            "</table></dd></dl>",
            "inline",
        ),
    ),
    # a file page that documents nothing: its tables only list what is declared
    "html/bare_8h.html": doxygen_page(
        "bare.h File Reference",
        '<h2 class="groupheader">Function Documentation</h2>'
        + _memitem("c1", "bare()", _fn_rows("int bare", [("void", "")]), ""),
    ),
}


def _mkd_object(
    kind: str, name: str, level: int, shown: str, contents: str, label: str = ""
) -> str:
    labels = (
        f'<span class="doc doc-labels"><small class="doc doc-label doc-label-{label}"><code>'
        f"{label}</code></small></span>"
        if label
        else ""
    )
    return (
        f'<div class="doc doc-object doc-{kind}"><h{level} id="{name}" class="doc doc-heading">'
        f'<code class="highlight language-python">{shown}</code>{labels}</h{level}><div '
        f'class="doc doc-contents ">{contents}</div></div>'
    )


def _mkd_table(title: str, heads: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{h}</th>" for h in heads)
    body = "".join(
        '<tr class="doc-section-item">'
        + "".join(
            f'<td><div class="doc-md-description"><p>{c}</p></div></td>'
            if h == "Description"
            else f"<td><code>{c}</code></td>"
            for h, c in zip(heads, row, strict=True)
        )
        + "</tr>"
        for row in rows
    )
    return (
        f'<p><span class="doc-section-title">{title}:</span></p><table><thead><tr>{head}</tr>'
        f"</thead><tbody>{body}</tbody></table>"
    )


_MKD_SOURCE = (
    '<details class="mkdocstrings-source"><summary>Source code in <code>spool/__init__.py'
    '</code></summary><div class="highlight"><table class="highlighttable"><tr><td class="'
    'linenos"><pre>33\n34</pre></td><td class="code"><pre><code>class Spool:\n    pass'
    "</code></pre></td></tr></table></div></details>"
)
# an API page as mkdocs-material and mkdocstrings' Python handler write one (trimmed)
MKDOCSTRINGS = (
    '<!DOCTYPE html><html><head><meta name="generator" content="mkdocs-1.6.1, mkdocs-material'
    '-9.8.2"><title>API - spool</title></head><body><nav class="md-nav">nav entry</nav><main>'
    '<article class="md-content__inner md-typeset"><h1 id="api">API</h1><p>The whole API.</p>'
    '<div class="doc doc-object doc-module"><a id="spool"></a><div class="doc doc-contents '
    'first"><p>Spools of thread, wound and unwound.</p><div class="doc doc-children">'
    + _mkd_object(
        "attribute",
        "spool.MAX_TURNS",
        2,
        "MAX_TURNS = 64",
        "<p>The most turns a spool holds.</p>",
        "module-attribute",
    )
    + '<div class="doc doc-object doc-class"><h2 id="spool.Spool" class="doc doc-heading"><code>'
    'Spool</code></h2><div class="doc doc-contents "><p class="doc doc-class-bases">Bases: '
    "<code>object</code></p><p>A spool that holds thread.</p>"
    + _mkd_table(
        "Attributes", ["Name", "Type", "Description"], [["turns", "int", "The turns it holds."]]
    )
    + _MKD_SOURCE
    + '<div class="doc doc-children">'
    + _mkd_object(
        "attribute", "spool.Spool.full", 3, "full", "<p>Whether no more fit.</p>", "property"
    )
    + _mkd_object(
        "function",
        "spool.Spool.__init__",
        3,
        "__init__(size=10)",
        "<p>Make an empty spool.</p>"
        + _mkd_table(
            "Parameters",
            ["Name", "Type", "Description", "Default"],
            [["size", "int", "How many turns fit.", "10"]],
        ),
    )
    + _mkd_object(
        "function",
        "spool.Spool.unwind",
        3,
        "unwind(turns)",
        '<p>Take turns off the spool.</p><details class="note" open><summary>Note</summary><p>'
        "Unwinding an empty spool does nothing.</p></details>"
        + _mkd_table(
            "Parameters",
            ["Name", "Type", "Description", "Default"],
            [["turns", "int", "How many to take off.", "<em>required</em>"]],
        )
        + _mkd_table("Returns", ["Type", "Description"], [["list[str]", "The thread taken off."]])
        + _MKD_SOURCE,
    )
    + _mkd_object("function", "spool.Spool._tangle", 3, "_tangle()", "<p>Private.</p>")
    + "</div></div></div>"
    + _mkd_object(
        "function",
        "spool.wind",
        2,
        "wind(spool, turns, *, tight=False)",
        "<p>Wind thread onto a spool.</p>"
        + _mkd_table(
            "Raises",
            ["Type", "Description"],
            [["ValueError", "When <code>turns</code> is negative."]],
        )
        + '<p><span class="doc-section-title">Examples:</span></p><div class="highlight"><pre>'
        "<code>&gt;&gt;&gt; wind(Spool(), 3)\n3</code></pre></div>",
    )
    + "</div></div></div></article></main><footer>Made with Material</footer></body></html>"
)


def typedoc_page(title: str, h1: str, content: str) -> str:
    """A page as TypeDoc 0.28 writes one (trimmed): its toolbar, the content column and
    the settings sidebar, whose text must never be read."""
    return (
        f'<!DOCTYPE html><html><head><title>{title} | spool</title></head><body><header class="'
        'tsd-page-toolbar"><a href="../index.html" class="title">spool</a><div>Preparing search '
        'index...</div></header><div class="container container-main"><div class="col-content">'
        '<div class="tsd-page-title"><ul class="tsd-breadcrumb"><li><a href="" aria-current="'
        f'page">{title}</a></li></ul><h1>{h1}</h1></div>{content}</div><div class="col-sidebar">'
        '<div class="tsd-navigation settings"><h3>Settings</h3>Member Visibility</div></div>'
        '</div><footer><p class="tsd-generator">Generated using TypeDoc</p></footer></body></html>'
    )


def _td_comment(html: str) -> str:
    return f'<div class="tsd-comment tsd-typography">{html}</div>'


def _td_member(anchor: str, name: str, body: str, cls: str = "") -> str:
    return (
        f'<section class="tsd-panel tsd-member{cls}"><h3 class="tsd-anchor-link" id="{anchor}">'
        f'{name}<a href="#{anchor}" aria-label="Permalink" class="tsd-anchor-icon"><svg><use '
        f'href="#icon-anchor"></use></svg></a></h3>{body}<aside class="tsd-sources"><ul><li>'
        "Defined in index.ts:9</li></ul></aside></section>"
    )


def _td_signature(shown: str, params: list[tuple[str, str]], returns: str, tags: str = "") -> str:
    items = "".join(
        f'<li><span><span class="tsd-kind-parameter">{p}</span>: number</span>'
        + (_td_comment(f"<p>{d}</p>") if d else "")
        + "</li>"
        for p, d in params
    )
    plist = (
        '<div class="tsd-parameters"><h4 class="tsd-parameters-title">Parameters</h4><ul class='
        f'"tsd-parameter-list">{items}</ul></div>'
        if params
        else ""
    )
    return (
        f'<li class=""><div class="tsd-signature tsd-anchor-link" id="s">{shown}</div><div '
        f'class="tsd-description">{_td_comment(returns)}{plist}<h4 class="tsd-returns-title">'
        f"Returns number</h4>{tags}</div></li>"
    )


TYPEDOC = {
    "docs/assets/navigation.js": "window.navigationData = '';",
    "docs/assets/search.js": "window.searchData = '';",
    "docs/hierarchy.html": typedoc_page("Hierarchy", "spool", "<h2>Hierarchy Summary</h2>"),
    "docs/index.html": typedoc_page(
        "spool",
        "spool",
        '<div class="tsd-panel tsd-typography"><h2>Spool</h2><p>Wind thread onto spools.</p>'
        '</div><details class="tsd-panel-group tsd-member-group tsd-accordion" open><summary>'
        '<h2 class="tsd-anchor-link" id="classes">Classes</h2></summary><dl class="tsd-member-'
        'summaries"><dt><a href="classes/Spool.html">Spool</a></dt></dl></details>',
    ),
    "docs/functions/wind.html": typedoc_page(
        "wind",
        "Function wind",
        '<section class="tsd-panel"><ul class="tsd-signatures">'
        + _td_signature(
            '<span class="tsd-kind-call-signature">wind</span><span class="tsd-signature-symbol">'
            '(</span><span class="tsd-kind-parameter">turns</span>: number, <span class="tsd-kind'
            '-parameter">tight</span>?: boolean<span class="tsd-signature-symbol">)</span>: number',
            [("turns", "How many turns to add."), ("tight", "")],
            "<p>Wind thread onto a spool.</p>",
            '<p>The turns after winding.</p><div class="tsd-comment tsd-typography"><div class="'
            'tsd-tag-throws"><h4 class="tsd-anchor-link" id="throws">Throws</h4><p>When '
            '<code>turns</code> is negative.</p></div><div class="tsd-tag-example"><h4 class="tsd-'
            'anchor-link" id="example">Example</h4><pre><code class="ts">wind(3); // 3\n</code>'
            "<button>Copy</button></pre></div></div>",
        )
        + "</ul></section>",
    ),
    "docs/classes/Spool.html": typedoc_page(
        "Spool",
        "Class Spool",
        '<section class="tsd-panel tsd-comment">'
        + _td_comment("<p>A spool that holds thread.</p>")
        + '</section><section class="tsd-panel-group tsd-index-group"><h5>Index</h5><a href="#'
        'unwind">unwind</a></section><details class="tsd-panel-group tsd-member-group" open>'
        '<summary><h2 class="tsd-anchor-link" id="constructors-1">Constructors</h2></summary>'
        + _td_member(
            "constructor",
            "<span>constructor</span>",
            '<ul class="tsd-signatures">'
            + _td_signature(
                '<span class="tsd-signature-keyword">new</span> <span class="tsd-kind-constructor-'
                'signature">Spool</span>(<span class="tsd-kind-parameter">size</span>?: number)',
                [("size", "How many turns fit.")],
                "<p>Make an empty spool.</p>",
            )
            + "</ul>",
        )
        + '</details><details class="tsd-panel-group tsd-member-group" open><summary><h2 class='
        '"tsd-anchor-link" id="properties-1">Properties</h2></summary>'
        + _td_member(
            "turns",
            '<code class="tsd-tag">Optional</code><span>turns</span>',
            '<div class="tsd-signature"><span class="tsd-kind-property">turns</span>: number</div>'
            + _td_comment("<p>The turns it holds now.</p>"),
        )
        + _td_member(
            "tag",
            "<span>tag</span>",
            '<div class="tsd-signature">tag: string</div>'
            + _td_comment("<p>From a base with no page.</p>"),
            " tsd-is-inherited",
        ).replace("<ul><li>Defined", "<p>Inherited from HiddenBase.tag</p><ul><li>Defined")
        + _td_member(
            "label",
            "<span>label</span>",
            '<div class="tsd-signature">label: string</div>'
            + _td_comment("<p>From a base with a page.</p>"),
            " tsd-is-inherited",
        ).replace(
            "<ul><li>Defined",
            '<p>Inherited from <a href="Base.html">Base</a>.<a href="Base.html#label">label</a>'
            "</p><ul><li>Defined",
        )
        + _td_member(
            "signal",
            "<span>signal</span>",
            '<div class="tsd-signature">signal: AbortSignal</div>'
            + _td_comment("<p>Another package's documentation.</p>"),
            " tsd-is-external",
        )
        + '</details><details class="tsd-panel-group tsd-member-group" open><summary><h2 class='
        '"tsd-anchor-link" id="methods-1">Methods</h2></summary>'
        + _td_member(
            "unwind",
            "<span>unwind</span>",
            '<ul class="tsd-signatures">'
            + _td_signature(
                '<span class="tsd-kind-call-signature">unwind</span>(<span class="tsd-kind-'
                'parameter">turns</span>: number): string[]',
                [("turns", "How many to take off.")],
                "<p>Take turns off the spool.</p>",
                '<div class="tsd-comment tsd-typography"><div class="tsd-tag-deprecated"><h4 '
                'class="tsd-anchor-link" id="deprecated">Deprecated</h4><p>Use <a href="#">'
                "unwindAll</a>.</p></div></div>",
            )
            + _td_signature(
                '<span class="tsd-kind-call-signature">unwind</span>(<span class="tsd-kind-'
                'parameter">turns</span>: string): string[]',
                [],
                "<p>Take turns off, given as text.</p>",
            )
            + "</ul>",
        )
        + "</details>",
    ),
    "docs/types/Options.html": typedoc_page(
        "Options",
        "Type Alias Options&lt;T&gt;",
        '<div class="tsd-signature">Options: Base &amp; { label: T }</div>'
        + _td_comment("<p>Options of a spool.</p>")
        + '<div class="tsd-type-declaration"><h4>Type Declaration</h4><ul class="tsd-parameters">'
        '<li class="tsd-parameter"><h5><span class="tsd-kind-property">label</span>: T</h5>'
        + _td_comment("<p>The spool's label.</p>")
        + "</li></ul></div>",
    ),
    "docs/types/Bare.html": typedoc_page(
        "Bare", "Type Alias Bare", '<div class="tsd-signature">Bare: string | number</div>'
    ),
}


def _pdoc_object(ident: str, attr: str, doc: str, tag: str = "section") -> str:
    opening = (
        f'<section id="{ident}">' if tag == "section" else f'<div id="{ident}" class="classattr">'
    )
    return (
        f'{opening}<input id="{ident}-view-source" class="view-source-toggle-state" type="checkbox"'
        f'>{attr}<a class="headerlink" href="#{ident}"></a><div class="pdoc-code codehilite"><pre>'
        '<span class="linenos">10</span>def source(): pass</pre></div>'
        + (f'<div class="docstring">{doc}</div>' if doc else "")
        + f"</{tag}>"
    )


def _pdoc_params(*params: str) -> str:
    return "".join(f'<span class="param">{p}, </span>' for p in params)


# a module's page as pdoc 16 writes one (trimmed): the module, a variable, a function, a
# class with its __init__, a method, a namedtuple field and a private function
PDOC = (
    "<!DOCTYPE html><html><head><title>spool API documentation</title></head><body><nav "
    'class="pdoc"><input type="search" placeholder="Search..."><h2>API Documentation</h2>'
    '<ul><li>nav entry</li></ul></nav><main class="pdoc"><section class="module-info"><h1 class='
    '"modulename">spool</h1><div class="docstring"><p>Spools of thread.</p></div><div class="'
    'pdoc-code codehilite"><pre>"""Spools of thread."""</pre></div></section>'
    + _pdoc_object(
        "MAX_TURNS",
        '<div class="attr variable"><span class="name">MAX_TURNS</span><span class="annotation">'
        ': int</span> = <span class="default_value">64</span></div>',
        "<p>The most turns a spool holds.</p>",
    )
    + _pdoc_object(
        "wind",
        '<div class="attr function"><span class="def">def</span> <span class="name">wind</span>'
        '<span class="signature pdoc-code condensed">('
        + _pdoc_params(
            '<span class="n">turns</span><span class="p">:</span> <span class="nb">int</span>',
            '<span class="o">*</span>',
            '<span class="n">tight</span>: bool = <span class="kc">False</span>',
        )
        + '<span class="return-annotation">) -> int:</span></span><label class="view-source-'
        'button"><span>View Source</span></label></div>',
        '<p>Wind thread onto a spool.</p><h6 id="arguments">Arguments:</h6><ul><li><strong>'
        "turns:</strong>  How many turns to add.</li><li><strong>tight:</strong>  Press each "
        'turn.</li></ul><h6 id="returns">Returns:</h6><blockquote><p>The turns after winding.'
        '</p></blockquote><h6 id="examples">Examples:</h6><blockquote><div class="pdoc-code '
        'codehilite"><pre><code>&gt;&gt;&gt; wind(3)\n3</code></pre></div></blockquote>',
    )
    + '<section id="Spool"><div class="attr class"><span class="def">class</span> <span class="'
    'name">Spool</span>:</div><div class="docstring"><p>A spool that holds thread.</p><h6>'
    "Attributes:</h6><ul><li><strong>turns:</strong>  The turns it holds.</li></ul></div>"
    + _pdoc_object(
        "Spool.__init__",
        '<div class="attr function"><span class="name">Spool</span><span class="signature pdoc-'
        'code condensed">(' + _pdoc_params('<span class="n">size</span> = 10') + ")</span></div>",
        "<p>Make an empty spool.</p><h6>Arguments:</h6><ul><li><strong>size:</strong> How many "
        "turns fit.</li></ul>",
        "div",
    )
    + _pdoc_object(
        "Spool.unwind",
        '<div class="attr function"><span class="def">def</span> <span class="name">unwind</span>'
        '<span class="signature pdoc-code condensed">('
        + _pdoc_params('<span class="bp">self</span>', '<span class="n">turns</span>')
        + ")</span></div>",
        "<p>Take turns off the spool.</p>",
        "div",
    )
    + _pdoc_object(
        "Spool.mode",
        '<div class="attr variable"><span class="name">mode</span></div>',
        "<p>Alias for field number 2</p>",
        "div",
    )
    + _pdoc_object(
        "Spool._tangle",
        '<div class="attr function"><span class="name">_tangle</span><span class="signature">'
        "()</span></div>",
        "<p>Private.</p>",
        "div",
    )
    + "</section></main></body></html>"
)


def _jsdoc_page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html><html><head><title>JSDoc: {title}</title></head><body><div id="main">'
        f'<h1 class="page-title">{title}</h1>{body}</div><nav><h2><a href="index.html">Home</a>'
        "</h2><h3>Classes</h3><ul><li>nav entry</li></ul></nav><footer>Documentation generated "
        'by <a href="https://github.com/jsdoc/jsdoc">JSDoc 4.0.5</a> on a day</footer></body></html>'
    )


def _jsdoc_params(*rows: tuple[str, str]) -> str:
    body = "".join(
        f'<tr><td class="name"><code>{n}</code></td><td class="type"><span class="param-type">'
        f'number</span></td><td class="description last">{d}</td></tr>'
        for n, d in rows
    )
    return (
        '<h5>Parameters:</h5><table class="params"><thead><tr><th>Name</th><th>Type</th><th '
        f'class="last">Description</th></tr></thead><tbody>{body}</tbody></table>'
    )


_JSDOC_SOURCE = (
    '<dl class="details"><dt class="tag-source">Source:</dt><dd class="tag-source"><ul><li><a '
    'href="spool.js.html">spool.js</a>, <a href="spool.js.html#line24">line 24</a></li></ul>'
    "</dd></dl>"
)
JSDOC = {
    "out/scripts/prettify/prettify.js": "window.PR = {};",
    "out/styles/jsdoc-default.css": "body {}",
    "out/spool.js.html": _jsdoc_page("Source: spool.js", "<pre>export function wind() {}</pre>"),
    "out/index.html": _jsdoc_page(
        "Home", "<section><article><h1>Spool</h1><p>Wind thread.</p></article></section>"
    ),  # fmt: skip
    "out/module-spool.html": _jsdoc_page(
        "Module: spool",
        '<section><article><div class="container-overview"><div class="description">Spools of '
        'thread.</div></div><h3 class="subsection-title">Methods</h3><h4 class="name" id=".wind">'
        '<span class="type-signature">(static) </span>wind<span class="signature">(turns, tight'
        '<span class="signature-attributes">opt</span>)</span><span class="type-signature"> '
        '&rarr; {number}</span></h4><div class="description">Wind thread onto a spool.</div>'
        + _jsdoc_params(("turns", "How many turns to add."), ("tight", "Press each turn."))
        + _JSDOC_SOURCE
        + '<h5>Throws:</h5><dl><dt><div class="param-desc">When turns is negative.</div></dt>'
        '<dd></dd><dt><dl><dt>Type</dt><dd><span class="param-type">RangeError</span></dd></dl>'
        '</dt></dl><h5>Returns:</h5><div class="param-desc">The turns after winding.</div><h5>'
        'Example</h5><pre class="prettyprint"><code>wind(3); // 3</code></pre>'
        '<h4 class="name" id=".untold"><span class="type-signature">(static) </span>untold<span '
        'class="signature">()</span><span class="type-signature"></span></h4>'
        + _JSDOC_SOURCE
        + "</article></section>",
    ),
    "out/module-spool.Spool.html": _jsdoc_page(
        "Class: Spool",
        '<section><header><h2>Spool<span class="signature">(size)</span></h2><div class="class-'
        'description">A spool that holds thread.</div></header><article><div class="container-'
        'overview"><h4 class="name" id="Spool">new Spool<span class="signature">(size<span class='
        '"signature-attributes">opt</span>)</span><span class="type-signature"></span></h4><div '
        'class="description">Make an empty spool.</div>'
        + _jsdoc_params(("size", "How many turns fit."))
        + _JSDOC_SOURCE
        + '</div><h3 class="subsection-title">Methods</h3><h4 class="name" id="unwind"><span '
        'class="type-signature"></span>unwind<span class="signature">(turns)</span><span class="'
        'type-signature"> &rarr; {Array.&lt;string>}</span></h4><div class="description">Take '
        "turns off the spool.</div>"
        + _jsdoc_params(("turns", "How many to take off."))
        + '<dl class="details"><dt class="important tag-deprecated">Deprecated:</dt><dd><ul '
        'class="dummy"><li>Use unwindAll.</li></ul></dd></dl>'
        "</article></section>",
    ),
}


def _yard_page(h1: str, content: str) -> str:
    return (
        f"<!DOCTYPE html><html><head><title>{h1} — Documentation by YARD</title></head><body>"
        '<div class="nav_wrap"><div id="nav">nav entry</div></div><div id="main"><div id="'
        f'content"><h1>{h1}</h1>{content}</div><div id="footer">Generated by <a href="https://'
        'yardoc.org" title="Yay! A Ruby Documentation Tool">yard</a> 0.9.28.</div></div>'
        "</body></html>"
    )


def _yard_method(ident: str, scope: str, shown: str, discussion: str, tags: str = "") -> str:
    return (
        f'<div class="method_details"><h3 class="signature" id="{ident}-{scope}_method">{shown}'
        f'</h3><div class="docstring"><div class="discussion">{discussion}</div></div><div class'
        f'="tags">{tags}</div><table class="source_code"><tr><td><pre class="lines">12\n13</pre>'
        '</td><td><pre class="code">def source; end</pre></td></tr></table></div>'
    )


def _yard_list(title: str, kind: str, *items: str) -> str:
    return f'<p class="tag_title">{title}:</p><ul class="{kind}">{"".join(items)}</ul>'


YARD = {
    "doc/class_list.html": _yard_page("Class List", "<ul><li>Reel</li></ul>"),
    "doc/method_list.html": _yard_page("Method List", "<ul><li>wind</li></ul>"),
    "doc/index.html": _yard_page(
        "Documentation", '<h1 class="alphaindex">Alphabetic Index</h1><ul><li>Reel</li></ul>'
    ),
    "doc/Spool.html": _yard_page(
        "Module: Spool",
        '<h2>Overview</h2><div class="docstring"><div class="discussion"><p>Spools of thread.'
        '</p></div></div><div class="tags"></div><h2>Constant Summary</h2><dl class="constants">'
        '<dt id="MAX_TURNS-constant" class="">MAX_TURNS = <div class="docstring"><div class="'
        'discussion"><p>The most turns a spool holds.</p></div></div><div class="tags"></div>'
        "</dt><dd><pre class=\"code\"><span class='int'>64</span></pre></dd></dl>",
    ),
    "doc/Spool/Reel.html": _yard_page(
        'Class: Spool::Reel\n  <span class="note title abstract">Abstract</span>',
        '<h2>Overview</h2><div class="docstring"><div class="discussion"><p>A reel that holds '
        'thread.</p></div></div><div class="tags"></div><h2>Instance Method Summary</h2><ul '
        'class="summary"><li><span class="summary_desc">Wind thread onto the reel.</span></li>'
        '</ul><div id="instance_attr_details" class="attr_details"><h2>Instance Attribute '
        "Details</h2>"
        + _yard_method(
            "turns",
            "instance",
            '#<strong>turns</strong> &#x21d2; <tt>Integer</tt> <span class="extras">(readonly)'
            "</span>",
            "<p>The turns it holds now.</p>",
            _yard_list(
                "Returns",
                "return",
                "<li><span class='type'>(<tt>Integer</tt>)</span> &mdash; <div class='inline'>"
                "<p>the turns</p></div></li>",
            ),
        )
        + '</div><div id="instance_method_details" class="method_details_list"><h2>Instance '
        "Method Details</h2>"
        + _yard_method(
            "initialize",
            "instance",
            "#<strong>initialize</strong>(size = 10) &#x21d2; <tt>Reel</tt>",
            "<p>Returns a new instance of Reel.</p>",
        )
        + _yard_method(
            "wind",
            "instance",
            "#<strong>wind</strong>(turns, tight: false) &#x21d2; <tt>Integer</tt>",
            "<p>Wind thread onto the reel.</p>",
            _yard_list(
                "Parameters",
                "param",
                "<li><span class='name'>turns</span> <span class='type'>(<tt>Integer</tt>)"
                "</span> &mdash; <div class='inline'><p>how many turns to add</p></div></li>",
            )
            + _yard_list(
                "Returns",
                "return",
                "<li><span class='type'>(<tt>Integer</tt>)</span> &mdash; <div class='inline'>"
                "<p>the turns after winding</p></div></li>",
            )
            + _yard_list(
                "Raises",
                "raise",
                "<li><span class='type'>(<tt>ArgumentError</tt>)</span> &mdash; <div class='"
                "inline'><p>when turns is negative</p></div></li>",
            )
            + '<div class="examples"><p class="tag_title">Examples:</p><pre class="example code">'
            "<code>Reel.new.wind(3) #=&gt; 3</code></pre></div>",
        )
        + _yard_method(
            "tangle",
            "instance",
            '#<strong>tangle</strong> &#x21d2; <tt>void</tt> <span class="extras">(protected)'
            "</span>",
            "<p>Knots it.</p>",
        )
        + _yard_method(
            "from_spec",
            "class",
            ".<strong>from_spec</strong>(spec) &#x21d2; <tt>Object</tt>",
            "<div class=\"note deprecated\"><strong>Deprecated.</strong> <div class='inline'><p>"
            'Use #initialize.</p></div></div><p class="note returns_void">This method returns an '
            "undefined value.</p><p>Make a reel from a spec.</p>",
        )
        + "</div>",
    ),
}


# ----------------------------------------------------------------------------- GTK-Doc
def gtkdoc_page(title: str, body: str) -> str:
    """A page as GTK-Doc 1.33 writes one (trimmed): `title` before the book's name, `body`
    inside the page; the navigation's and footer's text must never be read."""
    return (
        '<!DOCTYPE html><html><head><meta name="generator" content="DocBook XSL Stylesheets">'
        f"<title>{title}: Spool Reference Manual</title>"
        '<meta name="generator" content="GTK-Doc V1.33.1 (XML mode)"></head><body>'
        '<table class="navigation" id="top"><tr><td><a href="#">Top nav entry</a></td></tr>'
        f'</table>{body}<div class="footer"><hr>Generated by GTK-Doc V1.33.1</div></body></html>'
    )


def _gtk_refentry(ident: str, title: str, purpose: str, sections: str) -> str:
    return (
        f'<div class="refentry"><a name="{ident}"></a><div class="refnamediv"><table><tr><td>'
        f'<h2><span class="refentrytitle"><a name="{ident}.top_of_page"></a>{title}</span></h2>'
        f"<p>{title} — {purpose}</p></td></tr></table></div>"
        # the summary tables restate each symbol: never read
        f'<div class="refsect1"><a name="{ident}.functions"></a><h2>Functions</h2><table><tr>'
        '<td class="function_name">summary_row_text ()</td></tr></table></div>'
        f"{sections}</div>"
    )


def _gtk_section(ident: str, part: str, title: str, refsect2s: list[str]) -> str:
    return (
        f'<div class="refsect1"><a name="{ident}.{part}"></a><h2>{title}</h2>'
        + "<hr>".join(refsect2s)
        + "</div>"
    )


def _gtk_symbol(anchor: str, h3: str, listing: str, body: str) -> str:
    pre = f'<pre class="programlisting">{listing}</pre>' if listing else ""
    return f'<div class="refsect2"><a name="{anchor}"></a><h3>{h3}</h3>{pre}{body}</div>'


def _gtk_table(anchor: str, part: str, kind: str, rows: list[tuple[str, str, str]]) -> str:
    cells = "".join(
        f'<tr><td class="{kind}_name"><p>{n}</p></td><td class="{kind}_description"><p>{d}</p>'
        f'</td><td class="{kind}_annotations">{a}</td></tr>'
        for n, d, a in rows
    )
    head = "Parameters" if part == "parameters" else "Members"
    return (
        f'<div class="refsect3"><a name="{anchor}.{part}"></a><h4>{head}</h4><div class="'
        f'informaltable"><table class="informaltable"><tbody>{cells}</tbody></table></div></div>'
    )


def _gtk_returns(anchor: str, text: str) -> str:
    return (
        f'<div class="refsect3"><a name="{anchor}.returns"></a><h4>Returns</h4><p>{text}</p></div>'
    )


_OUT = (
    '<span class="annotation">[<acronym title="Parameter for returning results."><span class='
    '"acronym">out</span></acronym>]</span>'
)
GTKDOC = {
    # GTK-Doc's icons and stylesheet mark the site; its indexes are its own pages
    **{f"html/{name}": "x" for name in ("home.png", "left.png", "right.png", "up.png")},
    "html/style.css": "/* gtk-doc */",
    "html/api-index-full.html": gtkdoc_page("API Index", "<p>spool_open, function</p>"),
    "html/index.html": gtkdoc_page(
        "Spool Reference Manual",
        '<div class="book"><div class="titlepage"><h1>Spool Reference Manual</h1></div>'
        '<div class="toc"><dl><dt><a href="spool-Spools.html">Spools</a></dt></dl></div></div>',
    ),
    # a module's page: functions, a callback type, a macro, a struct, an enum
    "html/spool-Spools.html": gtkdoc_page(
        "Spools",
        _gtk_refentry(
            "spool-Spools",
            "Spools",
            "wind thread onto reels",
            _gtk_section(
                "spool-Spools",
                "description",
                "Description",
                ["<p>A spool holds thread.</p>"],
            )
            + _gtk_section(
                "spool-Spools",
                "functions_details",
                "Functions",
                [
                    _gtk_symbol(
                        "spool-open",
                        "spool_open ()",
                        '<span class="returnvalue">gboolean</span>\nspool_open (<em class="'
                        'parameter"><code>const <span class="type">gchar</span> *name</code></em>'
                        ',\n            <em class="parameter"><code><span class="type">Spool'
                        "</span> **out</code></em>);",
                        "<p>Opens a spool by name.</p>"
                        '<div class="informalexample"><table class="listing_frame"><tr><td '
                        'class="listing_lines"><pre>1\n2</pre></td><td class="listing_code"><pre '
                        'class="programlisting">Spool *s;\nspool_open ("a", &amp;s);</pre></td>'
                        "</tr></table></div>"
                        + _gtk_table(
                            "spool-open",
                            "parameters",
                            "parameter",
                            [("name", "its name", " "), ("out", "where it goes. ", _OUT)],
                        )
                        + _gtk_returns("spool-open", " <code>TRUE</code> when it opened")
                        + '<p class="since">Since: <a href="api-index-1-2.html">1.2</a></p>',
                    ),
                    _gtk_symbol(
                        "spool-turns",
                        "spool_turns ()",
                        '<span class="returnvalue">gsize</span>\nspool_turns (<em class="param'
                        'eter"><code><span class="type">Spool</span> *spool</code></em>);',
                        '<div class="warning"><p><code class="literal">spool_turns</code> has '
                        "been deprecated since version 1.4 and should not be used in newly-"
                        "written code.</p><p>Use spool_count() instead.</p></div>"
                        "<p>Counts the turns.</p>",
                    ),
                    _gtk_symbol(
                        "SpoolFunc",
                        "SpoolFunc ()",
                        '<span class="returnvalue">void</span>\n(*SpoolFunc) (<em class="param'
                        'eter"><code><span class="type">Spool</span> *spool</code></em>,\n'
                        '               <em class="parameter"><code><span class="type">gpointer'
                        "</span> data</code></em>);",
                        "<p>Called on each turn.</p>",
                    ),
                    _gtk_symbol(
                        "SPOOL-WIND:CAPS",
                        "SPOOL_WIND()",
                        "#define SPOOL_WIND(s, n) spool_wind_full (s, n, NULL)",
                        "<p>Winds <em>n</em> turns.</p>",
                    ),
                    _gtk_symbol(
                        "spool-undocumented",
                        "spool_undocumented ()",
                        '<span class="returnvalue">void</span>\nspool_undocumented (void);',
                        "",
                    ),
                ],
            )
            + _gtk_section(
                "spool-Spools",
                "other_details",
                "Types and Values",
                [
                    _gtk_symbol(
                        "SPOOL-MAX-TURNS:CAPS",
                        "SPOOL_MAX_TURNS",
                        "#define SPOOL_MAX_TURNS 64",
                        "<p>The most turns a spool holds.</p>",
                    ),
                    _gtk_symbol(
                        "SpoolOptions",
                        "struct SpoolOptions",
                        "struct SpoolOptions {\n  guint turns;\n  gboolean tight;\n};",
                        "<p>How a spool is opened.</p>"
                        + _gtk_table(
                            "SpoolOptions",
                            "members",
                            "struct_member",
                            [
                                (
                                    '<span class="type">guint</span> <em class="structfield">'
                                    "<code>turns</code></em>;",
                                    "how many turns",
                                    " ",
                                ),
                                (
                                    '<span class="type">gboolean</span> <em class="structfield"'
                                    "><code>tight</code></em>;",
                                    "",
                                    " ",
                                ),
                            ],
                        ),
                    ),
                    _gtk_symbol(
                        "SpoolMode",
                        "enum SpoolMode",
                        "",
                        "<p>How a spool winds.</p>"
                        + _gtk_table(
                            "SpoolMode",
                            "members",
                            "enum_member",
                            [
                                ('<a name="SPOOL-LOOSE:CAPS"></a>SPOOL_LOOSE', "loosely", " "),
                                ('<a name="SPOOL-TIGHT:CAPS"></a>SPOOL_TIGHT', "tightly", " "),
                            ],
                        ),
                    ),
                ],
            ),
        ),
    ),
    # a class's page: its description is the class's, then a signal and a property
    "html/SpoolReel.html": gtkdoc_page(
        "SpoolReel",
        _gtk_refentry(
            "SpoolReel",
            "SpoolReel",
            "a reel that holds thread",
            _gtk_section(
                "SpoolReel", "description", "Description", ["<p>A reel is a spool's core.</p>"]
            )
            + _gtk_section(
                "SpoolReel",
                "other_details",
                "Types and Values",
                [
                    _gtk_symbol(
                        "SpoolReel-struct",
                        "SpoolReel",
                        "typedef struct _SpoolReel SpoolReel;",
                        "<p>An opaque structure.</p>",
                    )
                ],
            )
            + _gtk_section(
                "SpoolReel",
                "signal-details",
                "Signal Details",
                [
                    _gtk_symbol(
                        "SpoolReel-wound",
                        'The <code class="literal">“wound”</code> signal',
                        '<span class="returnvalue">void</span>\nuser_function (<span class="'
                        'type">SpoolReel</span> *reel,\n               <span class="type">'
                        "gpointer</span>   user_data)",
                        "<p>Emitted when the reel is full.</p><p>Flags: Run Last</p>",
                    )
                ],
            )
            + _gtk_section(
                "SpoolReel",
                "property-details",
                "Property Details",
                [
                    _gtk_symbol(
                        "SpoolReel--turns",
                        'The <code class="literal">“turns”</code> property',
                        '  “turns”                  <span class="type">guint</span>',
                        "<p>Turns on the reel.</p><p>Owner: SpoolReel</p><p>Flags: Read</p>"
                        "<p>Default value: 0</p>",
                    )
                ],
            ),
        ),
    ),
    # a chapter of prose, read without the navigation
    "html/spool-building.html": gtkdoc_page(
        "Building",
        '<div class="chapter"><div class="titlepage"><h2>Building</h2></div><p>'
        + "Build the spool library with Meson and Ninja; it needs GLib 2.70 or later. " * 4
        + "</p></div>",
    ),
}


# ---------------------------------------------------------------------------- gi-docgen
def gidocgen_page(title: str, h3: str, h1: str, body: str) -> str:
    """A page as gi-docgen 2023 writes one (trimmed): the sidebar (whose text must never be
    read) says who generated it, `body` is the main section after its header."""
    return (
        f'<!DOCTYPE html><html><head><title>{title}</title></head><body><div id="body-'
        'wrapper"><nav class="sidebar"><div class="section"><h5>Methods</h5><a href="#">'
        'sidebar entry</a></div><div class="section generator"><p>Generated by <a href="https:'
        '//gitlab.gnome.org/GNOME/gi-docgen">gi-docgen</a> 2023.1</p></div></nav><section '
        f'id="main" class="content"><header><h3>{h3}</h3><h1>{h1}</h1></header><section>'
        f"{body}</section></section></div></body></html>"
    )


def _gi_h1(*links: tuple[str, str], tail: str = "") -> str:
    parts = [f'<a href="{href}">{text}</a>' for href, text in links]
    return '<span class="sep"></span>'.join(parts) + (
        f'<span class="sep"></span>{tail}' if tail else ""
    )


def _gi_wrapper(kind: str, inside: str) -> str:
    return (
        f'<div class="{kind} toggle-wrapper"><h4 id="{kind}">{kind.title()}<a class="anchor" '
        f'href="#{kind}"></a></h4>{inside}</div>'
    )


def _gi_declaration(decl: str) -> str:
    return _gi_wrapper(
        "declaration",
        '<div class="docblock c-decl"><pre><code><div class="highlight"><pre><span></span>'
        f"{decl}</pre></div></code></pre></div>",
    )


def _gi_description(text: str, after: str = "") -> str:
    return (
        '<div class="description toggle-wrapper"><h4 id="description">Description<a class='
        f'"srclink" href="#">[src]</a></h4><div class="docblock">{text}</div><div class="docblock">'
        f"{after}</div></div>"
    )


def _gi_args(*rows: tuple[str, str, str]) -> str:
    items = "".join(
        f'<dt class="arg-name"><code>{n}</code></dt><dd class="arg-description"><p><em>Type:'
        f'</em>&nbsp;<code>{t}</code></p><p><p>{d}</p></p><table><tr><td title="transfer: none'
        '">The data is owned by the caller of the function.</td></tr>'
        + ("<tr><td>The argument can be <code>NULL</code>.</td></tr>" if n == "cancellable" else "")
        + "</table></dd>"
        for n, t, d in rows
    )
    return _gi_wrapper(
        "parameters", f'<div class="docblock"><dl class="arguments">{items}</dl></div>'
    )


def _gi_returns(text: str, nullable: bool = False) -> str:
    note = "<tr><td>The return value can be <code>NULL</code>.</td></tr>" if nullable else ""
    return (
        '<div class="return-value toggle-wrapper"><h4 id="return-value">Return value</h4><div '
        f'class="docblock"><div class="returns"><div class="arg-description"><p><em>Type:</em>'
        f"&nbsp;<code>gboolean</code></p><p><p>{text}</p></p></div><div><table>{note}</table>"
        "</div></div></div></div>"
    )


_NS = ("index.html", "Spool")
GIDOCGEN = {
    "html/fzy.js": "//",
    "html/urlmap.js": "//",
    "html/search.js": "//",
    "html/classes_hierarchy.html": gidocgen_page("Classes", "Classes", "Hierarchy", "<p>x</p>"),
    "html/index.html": gidocgen_page(
        "Spool", "Namespace", "Spool &ndash; 1.0", "<p>SpoolReel, a reel that holds thread</p>"
    ),
    "html/method.Reel.wind.html": gidocgen_page(
        "Spool.Reel.wind",
        "Method",
        _gi_h1(_NS, ("class.Reel.html", "Reel"), tail="wind"),
        '<div class="docblock"><p></p></div>'
        + _gi_declaration(
            "gboolean\nspool_reel_wind (\n  SpoolReel* reel,\n  guint turns,\n"
            "  GCancellable* cancellable\n)"
        )
        + _gi_description("<p>Winds <code>turns</code> turns.</p>", "<p>Available since: 1.2</p>")
        + _gi_args(
            ("turns", "guint", "How many turns"), ("cancellable", "GCancellable", "A cancellable")
        )
        + _gi_returns("<code>TRUE</code> when wound", nullable=True),
    ),
    "html/class.Reel.html": gidocgen_page(
        "Spool.Reel",
        "Class",
        _gi_h1(_NS, tail="Reel"),
        '<summary><div class="docblock"><p></p></div><div class="toggle-wrapper"><h4 id="'
        'description">Description</h4><pre><code>final class Spool.Reel : GObject.Object {\n'
        '  /* No available fields */\n}</pre></code><div class="docblock"><p>A <code>'
        'SpoolReel</code> holds thread.</p></div><div class="docblock"></div></div></summary>'
        # the lists of its members restate each member's summary: never read
        '<div class="toggle-wrapper methods"><h4 id="methods">Instance methods</h4><div class="'
        'docblock"><h6><a href="method.Reel.wind.html">spool_reel_wind</a></h6><div class="'
        'docblock"><p>member summary text</p></div></div></div>',
    ),
    "html/property.Reel.turns.html": gidocgen_page(
        "Spool.Reel:turns",
        "Property",
        _gi_h1(_NS, ("class.Reel.html", "Reel")) + ":turns",
        '<div class="docblock"><p></p></div>'
        + _gi_declaration("property turns: guint [ read ]")
        + _gi_description(
            "<p>Turns on the reel.</p>",
            "<table><tr><td>Type:</td><td><code>guint</code></td></tr></table>",
        )
        + '<div class="docblock"><table><tr><td>Getter method</td><td><a href="#"><code>'
        "spool_reel_get_turns()</code></a></td></tr></table></div>"
        + _gi_wrapper(
            "flags",
            '<div class="docblock"><table><tr><td>Readable</td><td><b>yes</b></td></tr><tr><td>'
            "Writable</td><td><b>no</b></td></tr></table></div>",
        ),
    ),
    "html/signal.Reel.full.html": gidocgen_page(
        "Spool.Reel::full",
        "Signal",
        _gi_h1(_NS, ("class.Reel.html", "Reel")) + "::full",
        '<div class="docblock"><p></p></div>'
        + _gi_declaration(
            "void\nfull (\n  SpoolReel* self,\n  guint turns,\n  gpointer user_data\n)"
        )
        + _gi_description("<p>Emitted when the reel is full.</p>")
        # an argument gi-docgen found no description for: no field
        + _gi_args(("turns", "guint", "No description available.")),
    ),
    "html/enum.Mode.html": gidocgen_page(
        "Spool.Mode",
        "Enumeration",
        _gi_h1(_NS, tail="Mode"),
        _gi_declaration("enum Spool.Mode")
        + _gi_description("<p>How a spool winds.</p>")
        + _gi_wrapper(
            "members",
            '<div class="docblock"><table class="enum-members"><tr><th>Name</th><th>Descripti'
            'on</th></tr><tr><td><a id="loose" href="#loose"><code title="Value: 0">SPOOL_MODE'
            '_LOOSE</code></a></td><td><p>Loosely.</p></td></tr><tr><td><a id="tight" href="#'
            'tight"><code title="Value: 1">SPOOL_MODE_TIGHT</code></a></td><td><p>Tightly.</p>'
            "</td></tr></table></div>",
        ),
    ),
    "html/struct.Options.html": gidocgen_page(
        "Spool.Options",
        "Struct",
        _gi_h1(_NS, tail="Options"),
        '<summary><div class="toggle-wrapper"><h4 id="description">Description</h4><pre><code>'
        '<div class="highlight"><pre>struct SpoolOptions {\n  guint turns;\n  gboolean tight;\n'
        '}</pre></div></code></pre><div class="docblock"><p>How a spool is opened.</p></div>'
        '<div class="toggle-wrapper"><h6>Structure members</h6><div class="docblock"><dl><dt>'
        "<code>turns</code></dt><dd><p>How many turns.</p></dd><dt><code>tight</code></dt><dd>"
        "<p>No description available.</p></dd></dl></div></div></div></summary>",
    ),
    "html/const.MAX_TURNS.html": gidocgen_page(
        "Spool.MAX_TURNS",
        "Constant",
        _gi_h1(_NS, tail="MAX_TURNS"),
        _gi_declaration("#define SPOOL_MAX_TURNS 64")
        + _gi_description("<p>The most turns a reel holds.</p>"),
    ),
    "html/const.KEY_a.html": gidocgen_page(
        "Spool.KEY_a",
        "Constant",
        _gi_h1(_NS, tail="KEY_a"),
        _gi_declaration("#define SPOOL_KEY_a 97") + _gi_description("No description available."),
    ),
    "html/callback.ReelFunc.html": gidocgen_page(
        "Spool.ReelFunc",
        "Function",
        _gi_h1(_NS, tail="ReelFunc"),
        _gi_declaration("void\n(* SpoolReelFunc) (\n  SpoolReel* reel\n)")
        + _gi_description("<p>Called on each reel.</p>"),
    ),
    "html/building.html": gidocgen_page(
        "Building Spool",
        "",
        "Building Spool",
        "<h2>Building</h2><p>Build Spool with Meson; it needs GLib 2.76.</p>",
    ),
}
