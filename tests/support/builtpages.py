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
