"""Clojure read as its namespaces' API, as `doc` and cljdoc/codox show it: source files
read, never evaluated, each public var with a docstring a document named by its namespace
(`clojure:geo.shapes/area`), and the namespace itself when its `ns` form has a docstring."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import ask, fuzzed, write_tree
from jupiter.collect import CollectResult
from jupiter.collect.cljapi import (
    CLOJURE_NO_API,
    CLOJURE_TEST,
    FIXES,
    SUFFIXES,
    URI_PREFIX,
    ClojureFile,
    api_documents,
    is_clojure,
    is_test,
    markdown,
    namespace_of,
    read_forms,
    shown,
    string_value,
)
from jupiter.records import Document

SHAPES = """\
;; Shapes.  (defn in-a-comment "not a var" [x])
(ns ^{:author "me"} geo.shapes
  "Shapes and their areas.

  Use `area` for circles."
  (:require [clojure.string :as str]))

(def ^:private secret 42)

(defn area
  "Area of a circle of radius `r`.

  For example:

      (area 2)
      ;=> 12.56

  Works for any `r`."
  {:added "1.0"}
  [^double r]
  (* Math/PI r r))

(defn- helper "Hidden." [x] x)

(defn scale
  "Scales a shape."
  ([shape] (scale shape 2))
  ([shape factor & {:keys [round?]
                    :or {round? false}}] shape))

(defmacro with-shape
  "Binds a shape."
  {:deprecated "2.0"}
  [[sym shape] & body]
  `(let [~sym ~shape] ~@body))

(defmulti perimeter "Perimeter by kind." :kind)

(def pi-ish "Roughly pi." 3.14)

(def greeting "hello")

(def halve "Halves." (fn ([x] (/ x 2)) ([x y] (/ x y))))

(defprotocol Shape
  "Things with an area."
  (area-of [this] "The area.")
  (sides [this] [this n]))

(defrecord ^{:doc "A circle."} Circle [r])
(defrecord Square [side])

(comment
  (defn scratch "Not API." [] nil))
"""


def read(text: str, rel: str = "src/geo/shapes.clj") -> dict[str, Document]:
    return {d.uri: d for d in api_documents([ClojureFile(P(rel), rel, text)], "local")}


def test_a_namespace_becomes_its_documented_public_vars() -> None:
    docs = read(SHAPES)
    assert sorted(docs) == [
        "clojure:geo.shapes",
        "clojure:geo.shapes/Circle",
        "clojure:geo.shapes/Shape",
        "clojure:geo.shapes/area",
        "clojure:geo.shapes/area-of",
        "clojure:geo.shapes/halve",
        "clojure:geo.shapes/perimeter",
        "clojure:geo.shapes/pi-ish",
        "clojure:geo.shapes/scale",
        "clojure:geo.shapes/with-shape",
    ]  # secret, helper: private; greeting: a string value; sides: no doc; Square: no :doc;
    # scratch: in a comment form
    assert docs["clojure:geo.shapes"].text == (
        "geo.shapes\n\nShapes and their areas.\n\nUse `area` for circles."
    )
    assert docs["clojure:geo.shapes/area"].text == (
        "(area r)\n\nArea of a circle of radius `r`.\n\nFor example:\n\n"
        "```clojure\n(area 2)\n;=> 12.56\n```\n\nWorks for any `r`.\n\nSince: 1.0"
    )
    assert docs["clojure:geo.shapes/scale"].text == (
        "(scale shape)\n(scale shape factor & {:keys [round?] :or {round? false}})\n\n"
        "Scales a shape."
    )
    assert docs["clojure:geo.shapes/with-shape"].text == (
        "(with-shape [sym shape] & body)\n\nBinds a shape.\n\nDeprecated: 2.0"
    )
    assert docs["clojure:geo.shapes/perimeter"].text == (
        "perimeter\n\nPerimeter by kind.\n\nDispatch: :kind"
    )
    assert docs["clojure:geo.shapes/pi-ish"].text == "pi-ish\n\nRoughly pi."
    assert docs["clojure:geo.shapes/halve"].text == "(halve x)\n(halve x y)\n\nHalves."
    assert docs["clojure:geo.shapes/Shape"].text == "Shape\n\nThings with an area."
    assert docs["clojure:geo.shapes/area-of"].text == "(area-of this)\n\nThe area."
    assert docs["clojure:geo.shapes/Circle"].text == "(Circle r)\n\nA circle."
    kinds = {u.split("/")[-1]: d.meta["kind"] for u, d in docs.items()}
    assert kinds == {
        "clojure:geo.shapes": "namespace",
        "Circle": "record",
        "Shape": "protocol",
        "area": "function",
        "area-of": "function",
        "halve": "function",
        "perimeter": "multimethod",
        "pi-ish": "var",
        "scale": "function",
        "with-shape": "macro",
    }
    meta = docs["clojure:geo.shapes/area"].meta
    assert meta["language"] == "clojure" and meta["signature"] == "(area r)"
    assert meta["line"] == 10 and meta["qualname"] == "geo.shapes/area"
    assert docs["clojure:geo.shapes/area"].title == "geo.shapes/area"
    assert docs["clojure:geo.shapes/scale"].meta["signature"] == "(scale shape)"
    assert docs["clojure:geo.shapes/pi-ish"].meta["signature"] == ""
    assert docs["clojure:geo.shapes"].meta["line"] == 2


EDGES = r"""(ns edge.reader)

(def chars [\( \" \; \) \newline \space \u00e9 \a])

(defn after-chars "Reads past char literals." [x] x)

(def re #"a\"(b[)]")

(defn after-regex "Reads past a regex with an escaped quote." [s] s)

#_(defn discarded "Gone." [x] x)

#_ #_ (defn a "A." []) (defn b "B." [])

(defn after-discard "Kept, with \"quotes\" and a \\ backslash." [] nil)

"a string holding (defn in-a-string \"doc\" [])"

#?(:clj (defn on-clj "JVM only." [x] x)
   :cljs (defn on-cljs "JS only." [x] x))

#?(:cljs (defn only-cljs "JS only." []) :default (defn fallback "Default." []))

#?@(:clj [(defn spliced "Spliced in." [] 1)])

(def tagged #inst "2020-01-01")
(def inf ##Inf)
(def nsmap #:a{:b 1 :c 'x @y ~z `w #'v})
(defn anon "Uses #()." [] #(inc %))

(do
  (defn in-do "Inside a top-level do." [] nil)
  (when true
    (defn in-when "Inside a top-level when." [] nil)))

(defn last-one "After everything." [] nil)
"""


def test_the_reader_reads_clojure_syntax_without_losing_its_place() -> None:
    docs = read(EDGES, "src/edge/reader.clj")
    assert sorted(docs) == [
        "clojure:edge.reader/after-chars",
        "clojure:edge.reader/after-discard",
        "clojure:edge.reader/after-regex",
        "clojure:edge.reader/anon",
        "clojure:edge.reader/fallback",
        "clojure:edge.reader/in-do",
        "clojure:edge.reader/in-when",
        "clojure:edge.reader/last-one",
        "clojure:edge.reader/on-clj",
        "clojure:edge.reader/spliced",
    ]
    assert docs["clojure:edge.reader/after-discard"].text == (
        '(after-discard)\n\nKept, with "quotes" and a \\ backslash.'
    )
    assert docs["clojure:edge.reader/last-one"].meta["line"] == 36
    cljs = read(EDGES, "src/edge/reader.cljs")
    assert "clojure:edge.reader/on-cljs" in cljs and "clojure:edge.reader/only-cljs" in cljs
    assert "clojure:edge.reader/on-clj" not in cljs and "clojure:edge.reader/fallback" not in cljs
    assert "clojure:edge.reader/spliced" not in cljs  # no :cljs branch: nothing


def test_forms_atoms_and_prefixes_are_read() -> None:
    forms = read_forms(r'(a \) "s\"t" #"r\"e") ^:m [b ^String c] #{1} ; (x' + "\n#_d e")
    assert [f.kind for f in forms] == ["(", "[", "#{", "sym"]
    assert [x.kind for x in forms[0].items] == ["sym", "char", "str", "regex"]
    assert string_value(forms[0].items[2]) == 's"t'
    assert [m.text for m in forms[1].meta] == [":m"]
    assert shown(forms[1]) == "[b c]"  # type hints dropped
    assert forms[3].text == "e"
    quoted = read_forms("'(a `b ~c ~@d @e #'f #inst \"x\" ##NaN #:k{:a 1})")[0]
    assert shown(quoted) == "'(a `b ~c ~@d @e #'f #inst \"x\" ##NaN #:k{:a 1})"
    assert string_value(read_forms(r'"\u00e9\n\t\101"')[0]) == "é\n\tA"
    assert shown(read_forms("(a ;; note\n  b,,  c)")[0]) == "(a b c)"
    assert [f.text for f in read_forms("#?(:cljs x :clj y) #?(:cljs z)")] == ["y"]
    assert [f.text for f in read_forms("#?(:cljs x :clj y)", ":cljs")] == ["x"]
    assert [f.kind for f in read_forms("(a (b [c)) d")] == ["(", "sym"]  # `)` closes `[c`
    assert [f.kind for f in read_forms("] (a}) b")] == ["(", "sym"]  # strays dropped


def test_private_vars_give_no_document() -> None:
    docs = read(
        "(ns p.q)\n"
        '(defn- a "A." [] nil)\n'
        '(defn ^:private b "B." [] nil)\n'
        '(defn ^{:private true} c "C." [] nil)\n'
        '(defn d "D." {:private true} [] nil)\n'
        '(def ^:private e "E." 1)\n'
        '(defn ^:no-doc f "F." [] nil)\n'
        '(defn g "G." {:no-doc true} [] nil)\n'
        '(defmacro ^:private h "H." [] nil)\n'
        '(defprotocol ^:private I "I." (i-method [x] "Private with its protocol."))\n'
        '(defn ^{:private false} j "Public after all." [] nil)\n'
        '(def ^:dynamic *k* "Dynamic, public." 1)\n',
        "p/q.clj",
    )
    assert sorted(docs) == ["clojure:p.q/*k*", "clojure:p.q/j"]
    assert docs["clojure:p.q/*k*"].text == "*k*\n\nDynamic, public."


def test_arglists_from_metadata_and_clojure_cores_own_ways() -> None:
    docs = read(
        "(ns clojure.core)\n"
        "(def\n ^{:arglists '([coll])\n   :doc \"Returns the first item. Calls seq on its\n"
        '    argument."\n   :added "1.0"\n   :static true}\n'
        " first (fn ^:static first [coll] (. clojure.lang.RT (first coll))))\n"
        '(defn many "Many." {:arglists \'([x] [x & more])} [& args] args)\n'
        '(def ^{:macro true :doc "A macro by metadata."} mac (fn [&form &env x & body] x))\n'
        '(def ^{:doc "Made a macro." :arglists \'([name & body])} made (fn [&form &env n]))\n'
        "(. (var made) (setMacro))\n"
        "(def ^{:macro true} twice (fn* twice [&form &env & decl] decl))\n"
        '(defmacro twice "Documented the second time." [x] x)\n'
        '(defn again "The first doc wins." [a] a)\n'
        '(defn again "Not this one." [a b] a)\n'
        '(defmulti dispatched {:arglists \'([x]) :doc "With arglists."} (fn [x] (class x)))\n'
        '(add-doc-and-meta *out* "The output writer." {:added "1.0"})\n'
        '(def ^{:doc "Old." :deprecated "1.2" :added "1.0"} old 1)\n'
        '(defn ^{:deprecated true} gone "Gone." [] nil)\n',
        "clojure/core.clj",
    )
    assert docs["clojure:clojure.core/first"].text == (
        "(first coll)\n\nReturns the first item. Calls seq on its\nargument.\n\nSince: 1.0"
    )
    assert docs["clojure:clojure.core/first"].meta["kind"] == "function"
    assert docs["clojure:clojure.core/many"].text == "(many x)\n(many x & more)\n\nMany."
    assert docs["clojure:clojure.core/mac"].text == "(mac x & body)\n\nA macro by metadata."
    assert docs["clojure:clojure.core/made"].text == "(made name & body)\n\nMade a macro."
    assert docs["clojure:clojure.core/made"].meta["kind"] == "macro"
    assert docs["clojure:clojure.core/twice"].text == "(twice x)\n\nDocumented the second time."
    assert docs["clojure:clojure.core/twice"].meta["kind"] == "macro"
    assert docs["clojure:clojure.core/again"].text == "(again a)\n\nThe first doc wins."
    assert docs["clojure:clojure.core/dispatched"].text == (
        "(dispatched x)\n\nWith arglists.\n\nDispatch: (fn [x] (class x))"
    )
    assert docs["clojure:clojure.core/*out*"].text == "*out*\n\nThe output writer.\n\nSince: 1.0"
    assert docs["clojure:clojure.core/*out*"].meta["kind"] == "var"
    assert docs["clojure:clojure.core/old"].text == "old\n\nOld.\n\nSince: 1.0\nDeprecated: 1.2"
    assert docs["clojure:clojure.core/gone"].text == "(gone)\n\nGone.\n\nDeprecated."


def test_protocols_types_and_interfaces() -> None:
    docs = read(
        "(ns p.proto)\n"
        "(defprotocol Store\n"
        '  "Keeps things."\n'
        "  :extend-via-metadata true\n"
        '  (put! [store k v] "Puts `v` under `k`.")\n'
        '  (fetch [store k] [store k not-found]\n    "Fetches what `k` holds.")\n'
        "  (drop! [store k]))\n"
        '(defprotocol Quiet (hush [x] "Hushes, though its protocol has no doc."))\n'
        '(deftype ^{:doc "A box."} Box [^long size contents])\n'
        '(definterface ^{:doc "An interface."} IThing (thing []))\n'
        "(defrecord Plain [a])\n",
        "p/proto.cljc",
    )
    assert sorted(docs) == [
        "clojure:p.proto/Box",
        "clojure:p.proto/IThing",
        "clojure:p.proto/Store",
        "clojure:p.proto/fetch",
        "clojure:p.proto/hush",
        "clojure:p.proto/put!",
    ]
    assert docs["clojure:p.proto/Store"].text == "Store\n\nKeeps things."
    assert docs["clojure:p.proto/fetch"].text == (
        "(fetch store k)\n(fetch store k not-found)\n\nFetches what `k` holds."
    )
    assert docs["clojure:p.proto/put!"].text == "(put! store k v)\n\nPuts `v` under `k`."
    assert docs["clojure:p.proto/Box"].text == "(Box size contents)\n\nA box."
    assert docs["clojure:p.proto/Box"].meta["kind"] == "type"
    assert docs["clojure:p.proto/IThing"].text == "IThing\n\nAn interface."
    assert docs["clojure:p.proto/fetch"].meta["line"] == 6


def test_docstrings_become_markdown() -> None:
    assert markdown("One line.") == "One line."
    assert markdown("First line\n  second line,\n\n  a new paragraph.") == (
        "First line\nsecond line,\n\na new paragraph."
    )
    assert markdown("Irregular\n    four\n  two") == "Irregular\n  four\ntwo"
    assert markdown("Example:\n      (f 1)\n        (g 2)\n  Back to text.") == (
        "Example:\n```clojure\n(f 1)\n  (g 2)\n```\nBack to text."
    )
    assert markdown("Opts:\n  :a - the a, which\n      wraps here\n  :b - the b") == (
        "Opts:\n:a - the a, which\n    wraps here\n:b - the b"
    )  # a wrapped item's line stays text: no block inside a paragraph
    assert markdown("Fenced:\n\n  ```\n      (kept as is)\n  ```\n  After.") == (
        "Fenced:\n\n```\n    (kept as is)\n```\nAfter."
    )
    docs = read('(ns d.ns {:doc "Doc in the attr-map."})\n', "d/ns.clj")
    assert docs["clojure:d.ns"].text == "d.ns\n\nDoc in the attr-map."
    meta = read('(ns ^{:doc "Doc on the name.\n  Dedented."} d.meta)\n', "d/meta.clj")
    assert meta["clojure:d.meta"].text == "d.meta\n\nDoc on the name.\nDedented."


def test_the_namespace_comes_from_ns_in_ns_or_the_path() -> None:
    docs = read(
        '(in-ns \'clojure.core)\n(defn printing "Prints." [x] x)\n', "clojure/core_print.clj"
    )
    assert list(docs) == ["clojure:clojure.core/printing"]
    bare = read('(defn util "Helps." [] nil)\n', "src/my/lib_util.clj")
    assert list(bare) == ["clojure:my.lib-util/util"]
    assert namespace_of(P("src/main/clojure/a/b_c.cljc")) == "a.b-c"
    assert namespace_of(P("clojure/core.clj")) == "clojure.core"
    hidden = read('(ns ^:no-doc x.impl "Internal.")\n(defn f "F." [] nil)\n', "x/impl.clj")
    assert hidden == {}


def test_tests_and_files_without_docs_are_counted() -> None:
    assert is_clojure("core.clj") and is_clojure("a.CLJS") and is_clojure("b.cljc")
    assert not is_clojure("project.edn") and not is_clojure("x.cljx")
    assert SUFFIXES == (".clj", ".cljc", ".cljs") and URI_PREFIX == "clojure:"
    assert FIXES[CLOJURE_TEST].endswith("the source's clojure: text reads them as text")
    assert FIXES[CLOJURE_NO_API] == FIXES[CLOJURE_TEST]
    assert is_test(P("test/my/core_test.clj")) and is_test(P("src/my/util_test.cljs"))
    assert is_test(P("test_helpers.clj")) and is_test(P("tests/my/helpers.clj"))
    assert is_test(P("src/my/thing.clj"), "my.thing-test")
    assert is_test(P("test/my/helpers.clj"), "my.helpers")
    assert not is_test(P("clojure/test/junit.clj"), "clojure.test.junit")
    assert not is_test(P("src/clojure/test.clj")) and not is_test(P("src/testing/x.clj"))
    plain = '(ns my.plain)\n(defn f [x] x) ; no docstring\n(defn- g "Private." [] nil)\n'
    files = [
        ClojureFile(P("test/geo/shapes_test.clj"), "t", SHAPES),
        ClojureFile(P("test/geo/shapes.clj"), "u", SHAPES),
        ClojureFile(P("src/geo/other.clj"), "v", SHAPES.replace("geo.shapes", "geo.shapes-test")),
        ClojureFile(P("src/my/plain.clj"), "p", plain),
        ClojureFile(P("src/geo/shapes.clj"), "q", SHAPES),
    ]
    rejects = CollectResult()
    docs = api_documents(files, "local", rejects)
    assert len(docs) == 10
    assert rejects.rejects == {CLOJURE_TEST: 3, CLOJURE_NO_API: 1}
    assert rejects.samples[CLOJURE_NO_API] == ["p"]


def test_malformed_clojure_never_raises() -> None:
    for text in [
        '(defn f "doc',
        "(defn",
        "(def)",
        '(ns)\n(defn "doc" [x])',
        '(defn f "doc" ([x] ) (oops',
        ')))(defn g "G." [] nil)',
        '#?(:clj) #?@(:clj x) #?@(:clj [) (defn h "H." [])',
        "^ ^ ' ` ~ ~@ @ #' #_ #inst #:a",
        "(defprotocol) (defprotocol P (m)) (defrecord) (defmulti)",
        '(def ^{:arglists 5 :doc "x"} y 1) (def ^{:arglists (quote ([a]))} z "Z." 1)',
        '"unterminated \\',
        "\\",
        "",
    ]:
        for doc in read(text, "m.clj").values():
            assert doc.uri.startswith("clojure:") and doc.text


def test_any_text_reads_without_an_error() -> None:
    pieces = [
        "(ns a.b)\n", '(ns a.b "Doc.")\n', "(defn f ", "(defmacro m ", "(def v ", "(defmulti d ",
        "(defprotocol P ", "(defrecord R ", '"Doc." ', "[x] ", "[x & more] ", "([a] a) ",
        "{:added \"1.0\"} ", "^:private ", "^{:doc \"M.\"} ", "^String ", ":kw ", "x ", ")\n",
        "]", "}", "(", "[", "{", "#{", "#(", "#_", "#?(", "#?@(", ":clj ", ":cljs ", "#\"",
        '"', "\\", "\\(", "\\newline ", ";", "\n", "'", "`", "~", "~@", "@", "#'", "##Inf ",
        "#inst ", "#:a{", "(comment ", "(do ", "(in-ns 'c.d)\n", "    ", "(fn [y] y)",
    ]  # fmt: skip

    def reader(text: str) -> list[Document]:
        return api_documents([ClojureFile(P("src/a/b.clj"), "m", text)], "local")

    assert fuzzed(reader, pieces, "clojure:") > 0


def test_a_dynamic_vars_name_in_a_docstring_is_a_code_span() -> None:
    # Markdown would read `*in*` as emphasis and drop its stars ("the current value of in")
    assert markdown("Reads a line from *in*, binding *print-length* to nil.") == (
        "Reads a line from `*in*`, binding `*print-length*` to nil."
    )
    assert markdown("a * b * c and `*out*` stay") == "a * b * c and `*out*` stay"


def test_a_deps_edn_project_is_read_by_init_and_its_questions_read_the_arities(
    tmp_path: Path,
) -> None:
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig
    from jupiter.config.cli import source_entry

    src = (
        '(ns geo.shapes\n  "Shapes on a plane.")\n\n'
        '(defn area\n  "Returns the area of a shape, in square units of its\n'
        '  coordinates."\n  {:added "1.2"}\n  ([shape] (area shape 1))\n  ([shape scale] 0))\n'
    )
    write_tree(tmp_path / "geo", {"deps.edn": '{:paths ["src"]}\n', "src/geo/shapes.clj": src})
    entry = source_entry(str(tmp_path / "geo"))
    assert {"*.clj", "*.cljc", "*.cljs"} <= set(entry["include"])  # type: ignore[arg-type]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    assert sorted(docs) == ["clojure:geo.shapes", "clojure:geo.shapes/area"]
    area = docs["clojure:geo.shapes/area"]
    assert area.meta["language"] == "clojure"
    asked = ask(area)
    assert asked["signature"] == "`(area shape)` or `(area shape scale)`"
    assert asked["what_does"] == (
        "Returns the area of a shape, in square units of its coordinates."
    )
    assert ask(docs["clojure:geo.shapes"], ["what_does"]) == {"what_does": "Shapes on a plane."}
