"""JavaScript and TypeScript read as their API: a project on disk (and in a git repository)
scanned, never run, each documented public name a document from its JSDoc comment; and the
questions the generator then asks about it."""

from __future__ import annotations

import io
import random
from pathlib import Path
from pathlib import PurePosixPath as P

import pytest
from rich.console import Console

from gitrepo import collect_repo, commit_all
from jupiter.collect import CollectResult
from jupiter.collect.jsapi import JsFile, api_documents, parse_jsdoc, scan_file
from jupiter.collect.local import collect_local
from jupiter.config import DomainConfig, load_domain
from jupiter.improve.stages import collect_stage
from jupiter.improve.workspace import Workspace
from jupiter.records import Chunk
from jupiter.synth.questions import make_questions

WIDGET = r"""'use strict';
const BRACES = /[{}]+/g; // a regular expression with braces in it

/**
 * A widget that spins.
 *
 * @param {number} [speed=1] - How fast it spins, in turns a second.
 */
class Widget {
  constructor(speed = 1) {
    this.speed = speed;
  }

  /**
   * Spin the widget and return how many turns it made.
   *
   * @param {number} times how many times to spin
   * @param {object} [opts] options
   * @param {boolean} [opts.loud=false] - spin loudly
   * @returns {number} how many turns the widget made
   * @throws {RangeError} when times is negative
   * @example
   * const w = new Widget(2);
   * w.spin(3); // 3
   */
  spin(times, opts = {}) {
    const shown = `{${times}}`;
    if (times < 0) throw new RangeError('negative { brace');
    return times / 1;
  }

  /**
   * Reset the widget.
   * @private
   */
  reset() {}

  /** The widget's colour. See {@link Widget#spin} for more. */
  get color() {
    return "red } brace";
  }

  /** Internal, by its name. */
  _cache() {}
}

/**
 * Make a widget of a kind.
 * @param {string} kind - the kind of widget
 * @return {Widget}
 */
exports.make = function (kind) {
  return new Widget();
};

/**
 * Stop the widget.
 * @deprecated Use {@link Widget#spin} with 0.
 */
Widget.prototype.stop = function stop() {};

/**
 * Creates an array of elements split into groups the length of `size`.
 *
 * @static
 * @memberOf _
 * @param {Array} array The array to process.
 * @param {number} [size=1] The length of each chunk
 * @returns {Array} Returns the new array of chunks.
 */
function chunk(array, size, guard) {
  return [];
}

module.exports.Widget = Widget;
"""
INDEX_TS = """import { helper } from './util';

/**
 * Options for {@link parse}.
 */
export interface ParseOptions {
  /** Keep blank values. */
  keepBlank?: boolean;
  /**
   * Split on this separator.
   * @defaultValue "&"
   */
  separator: string;
}

/**
 * Parse a query string.
 *
 * @param input - the text to parse
 * @param options - how to parse it
 * @returns the parsed pairs
 */
export function parse(
  input: string,
  options?: ParseOptions,
): Record<string, string> {
  return {};
}

/** Not exported, so not API. */
function hidden(x: number): number {
  return x;
}

/** The library's version. */
export const VERSION = "1.0";

/**
 * Join pairs into a query string.
 */
export const stringify = (pairs: Record<string, string>, sep = "&"): string => "";

/** A documented alias, exported by list. */
const alias = parse;
export { alias };
"""
TREE = {
    "lib/widget.js": WIDGET,
    "src/index.ts": INDEX_TS,
    "lib/empty.js": "module.exports = 1;\n",
    "test/widget.test.js": "/** A test helper. */\nfunction spinTwice() {}\n",
    "node_modules/dep/index.js": "/** A dependency. */\nexports.dep = function () {};\n",
    "README.md": "# Widgets\n\nSpin widgets.\n",
}
EXPECTED = [
    "javascript:ParseOptions",
    "javascript:ParseOptions.keepBlank",
    "javascript:ParseOptions.separator",
    "javascript:VERSION",
    "javascript:Widget",
    "javascript:Widget.color",
    "javascript:Widget.spin",
    "javascript:Widget.stop",
    "javascript:_.chunk",
    "javascript:alias",
    "javascript:make",
    "javascript:parse",
    "javascript:stringify",
]
# a local source never walks node_modules/; a git source counts what a repository holds there
REJECTS = {"javascript_no_api": 1, "javascript_test": 1}
GIT_REJECTS = {**REJECTS, "javascript_vendored": 1}
INCLUDE = ["*.md", "*.js", "*.ts"]


def write_tree(root: Path) -> None:
    for rel, text in TREE.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def local_domain(tmp_path: Path, **extra: object) -> DomainConfig:
    src = {"type": "local", "path": "project", "include": INCLUDE, **extra}
    cfg = DomainConfig.model_validate({"name": "t", "sources": [src]})
    cfg.base_dir = tmp_path
    return cfg


def test_a_project_becomes_its_documented_public_api(tmp_path: Path) -> None:
    write_tree(tmp_path / "project")
    cfg = local_domain(tmp_path)
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    api = {d.uri: d for d in docs if d.uri.startswith("javascript:")}
    assert sorted(api) == EXPECTED
    assert [d.title for d in docs if d.uri not in api] == ["Widgets"]  # the README, by its heading
    assert rejects.rejects == REJECTS
    root = (tmp_path / "project").resolve()
    assert rejects.samples["javascript_no_api"] == [str(root / "lib/empty.js")]

    widget = api["javascript:Widget"]
    assert widget.title == "Widget"
    assert widget.text == (
        "Widget(speed = 1)\n\nA widget that spins.\n\n"
        ":param speed: How fast it spins, in turns a second. Defaults to `1`."
    )
    assert widget.meta == {
        "kind": "class",
        "qualname": "Widget",
        "signature": "(speed = 1)",
        "params": ["speed"],
        "origin": str(root / "lib/widget.js"),
        "line": 4,
    }
    # braces inside a regular expression, a template literal and strings end no class: the
    # getter after them is still the class's, the private and _ methods are left out
    assert api["javascript:Widget.spin"].text == (
        "Widget.spin(times, opts = {})\n\n"
        "Spin the widget and return how many turns it made.\n\n"
        ":param times: how many times to spin\n"
        ":param opts: options Optional.\n"
        ":param opts.loud: spin loudly Defaults to `false`.\n"
        ":returns: how many turns the widget made\n"
        ":raises RangeError: when times is negative\n\n"
        "Example::\n\n"
        "    const w = new Widget(2);\n"
        "    w.spin(3); // 3"
    )
    assert api["javascript:Widget.spin"].meta["kind"] == "method"
    assert api["javascript:Widget.color"].text == (
        "Widget.color\n\nThe widget's colour. See `Widget#spin` for more."
    )
    assert api["javascript:Widget.color"].meta["kind"] == "property"
    assert api["javascript:make"].text == (
        "make(kind)\n\nMake a widget of a kind.\n\n:param kind: the kind of widget\n"
        ":returns: `Widget`"
    )
    assert api["javascript:Widget.stop"].text == (
        "Widget.stop()\n\nStop the widget.\n\nDeprecated: Use `Widget#spin` with 0."
    )
    assert api["javascript:_.chunk"].text.startswith(
        "_.chunk(array, size, guard)\n\nCreates an array of elements split into groups"
    )
    # TypeScript: an exported function over several lines, its types in the signature
    assert api["javascript:parse"].text == (
        "parse(input: string, options?: ParseOptions)\n\nParse a query string.\n\n"
        ":param input: the text to parse\n:param options: how to parse it\n"
        ":returns: the parsed pairs"
    )
    assert api["javascript:parse"].meta["params"] == ["input", "options"]
    assert api["javascript:stringify"].text.startswith(
        'stringify(pairs: Record<string, string>, sep = "&")\n\nJoin pairs'
    )
    assert api["javascript:ParseOptions.separator"].text == (
        'ParseOptions.separator\n\nSplit on this separator.\n\nDefault: `"&"`.'
    )
    assert api["javascript:ParseOptions"].meta["kind"] == "interface"
    assert api["javascript:VERSION"].meta["kind"] == "attribute"


def test_the_same_project_from_a_git_repository(tmp_path: Path) -> None:
    """A git source reads .js and .ts by default: as their API, with the same documents."""
    root = tmp_path / "repo"
    write_tree(root)
    sha = commit_all(root)
    result = collect_repo(tmp_path)
    api = {d.uri: d for d in result.documents if d.uri.startswith("javascript:")}
    assert sorted(api) == EXPECTED
    assert result.rejects == GIT_REJECTS
    meta = api["javascript:parse"].meta
    repo = str(root.resolve())
    assert (meta["repo"], meta["commit"], meta["path"]) == (repo, sha, "src/index.ts")
    assert meta["language"] == "typescript"
    assert api["javascript:make"].meta["language"] == "javascript"


def test_javascript_text_reads_the_files_as_before(tmp_path: Path) -> None:
    write_tree(tmp_path / "project")
    cfg = local_domain(tmp_path, javascript="text")
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    assert not [d for d in docs if d.uri.startswith("javascript:")]
    titles = sorted(d.title for d in docs)
    assert "widget.js" in titles and "index.ts" in titles and "widget.test.js" in titles
    assert not {k for k in rejects.rejects if k.startswith("javascript")}


def test_the_same_name_twice_is_one_document() -> None:
    """lib/command.js and its typings/index.d.ts document the same method: the .js file
    keeps it (JavaScript before TypeScript); the typings add what the .js file lacks."""
    js = "class Command {\n  /** Add an option. */\n  option(flags) {}\n}\nmodule.exports = Command;\n"
    dts = (
        "export class Command {\n  /** Add an option, typed. */\n  option(flags: string): this;\n"
        "  /** Only typed. */\n  alias(name: string): this;\n}\n"
    )
    docs = api_documents(
        [JsFile(P("typings/index.d.ts"), "t", dts), JsFile(P("lib/command.js"), "c", js)],
        "local",
    )
    assert [(d.uri, d.text.split("\n\n")[1]) for d in docs] == [
        ("javascript:Command.alias", "Only typed."),
        ("javascript:Command.option", "Add an option."),
    ]


def test_the_scan_tells_code_from_literals() -> None:
    text = (
        "const a = '}{';\nconst r = x / 2 / y;\nconst re = /\\/}/;\n"
        "const t = `a ${ {b: 1}.b } }`;\n// } comment\n/** doc */\nclass K { m() {} }\n"
    )
    scan = scan_file(text)
    assert len(scan.code) == len(text)
    assert scan.code.count("{") == scan.code.count("}") == 4  # the object, K, m() and its {}
    assert [c.text.strip() for c in scan.comments] == ["doc"]
    assert scan.bodies == {"K": (text.index("K {") + 3, text.rindex("}"))}


def test_jsdoc_tags_become_fields() -> None:
    doc = parse_jsdoc(
        "\n * Fetch a {@link Resource|resource}.\n *\n * @param {string} url - where\n"
        " * @param {Object} [init] - request options\n * @returns {Promise<Response>}\n"
        " * @internal\n "
    )
    assert doc.hidden
    assert doc.text == (
        "Fetch a resource.\n\n:param url: where\n:param init: request options Optional.\n"
        ":returns: `Promise<Response>`"
    )
    assert doc.params == ["url", "init"]
    typedef = parse_jsdoc(" @typedef {Object} Point\n @property {number} x - across ")
    assert (typedef.name, typedef.kind, typedef.text) == ("Point", "type", ":param x: across")


def test_questions_about_a_javascript_api(tmp_path: Path) -> None:
    write_tree(tmp_path / "project")
    cfg = local_domain(tmp_path)
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg)}  # type: ignore[arg-type]

    def asked(uri: str) -> dict[str, str]:
        d = docs[uri]
        chunk = Chunk(d.id, d.source, d.uri, d.title, 0, len(d.text), d.text)
        templates = ["what_does", "arguments", "signature", "returns"]
        qs = make_questions(chunk, templates, 6, random.Random(0))
        return {q.template: q.answer or "" for q in qs}

    spin = asked("javascript:Widget.spin")
    assert spin["what_does"] == "Spin the widget and return how many turns it made."
    assert spin["signature"] == "`Widget.spin(times, opts = {})`"
    assert spin["returns"] == "how many turns the widget made"
    assert spin["arguments"].startswith("`Widget.spin` takes 2 arguments: times, opts = {}.")
    assert "- times: how many times to spin" in spin["arguments"]
    parse = asked("javascript:parse")
    assert parse["what_does"] == "Parse a query string."
    assert parse["signature"] == "`parse(input: string, options?: ParseOptions)`"


def test_the_collect_stage_says_what_it_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    write_tree(tmp_path / "project")
    yaml = tmp_path / "d.yaml"
    yaml.write_text(
        "name: js\nsources:\n  - type: local\n    path: project\n"
        f"    include: {INCLUDE!r}\n".replace("'", '"')
    )
    out = io.StringIO()
    ws = Workspace(load_domain(str(yaml)), console=Console(file=out, width=400))
    try:
        info = collect_stage(ws, 1)
    finally:
        ws.close()
    said = " ".join(out.getvalue().split())
    assert info["rejected_records"] == REJECTS
    assert "14 documents" in said
    assert (
        "1 javascript_no_api, 1 javascript_test (JavaScript and "
        "TypeScript files read as their API" in said
    )
    assert said.count("javascript: text reads them as text") == 1


REQUEST = r"""'use strict';

/**
 * Module dependencies.
 * @private
 */
var accepts = require('accepts');

/**
 * Built-in value references.
 */
var Symbol = root.Symbol;

/**
 * Request prototype.
 * @public
 */
var req = Object.create(http.IncomingMessage.prototype);
module.exports = req;

/**
 * Return request header.
 *
 * @param {String} name
 * @return {String}
 * @public
 */
req.get = req.header = function header(name) {
  /**
   * A helper inside the function: not API.
   */
  function lower(s) { return s.toLowerCase(); }
  return this.headers[lower(name)];
};

/**
 * Check if the incoming request contains the "Content-Type" header field.
 *
 * @param {String|Array} types...
 * @return {String|false|null}
 * @public
 */
req.is = function is(types) {};

/**
 * Parse the range header.
 * @api private
 */
req.range = function range(size) {};

/**
 * Checks if `value` is classified as an `Array` object.
 *
 * @param {*} value The value to check.
 * @returns {boolean} Returns `true` if `value` is an array, else `false`.
 */
var isArray = createIsArray();

module.exports = { isArray, check: isArray };
"""
DATES = """/**
 * @module constants
 * @summary Useful constants
 * @description
 * Collection of useful date constants.
 */

/** The {@link format} function options. */

/**
 * @name format
 * @summary Format the date.
 *
 * @description
 * Format the date.
 *
 * Return the formatted date string in the given format.
 *
 * @param date - The original date
 */
export function format(date) {}
"""
ROUTE_INDEX = "/**\n * Expose constructors.\n */\nexports.Route = Route;\n"
ROUTE = (
    "/**\n * Initialize `Route` with the given `path`.\n *\n * @param {String} path\n */\n"
    "function Route(path) {}\nmodule.exports = Route;\n"
)
BUNDLE = (
    "/** Create an instance of Axios (the bundle's copy). */\nfunction Axios$1(config) {}\n"
    "/** Create an instance of Axios, bundled. */\nexport function Axios() {}\n"
)
SOURCE_AXIOS = "/** Create an instance of Axios. */\nexport function Axios(instanceConfig) {}\n"


def test_commonjs_nesting_and_copies_as_real_packages_write_them() -> None:
    """What a first run on express, lodash, axios and date-fns found: CommonJS exports
    decide what is public, a function's inner helpers and a compiled-away interface's
    comment document nothing, a build's copy and a re-export lose to the source."""
    files = [
        JsFile(P("lib/request.js"), "r", REQUEST),
        JsFile(P("src/format.js"), "f", DATES),
        JsFile(P("index.js"), "i", ROUTE_INDEX),
        JsFile(P("lib/router/route.js"), "ro", ROUTE),
        JsFile(P("dist/axios.js"), "b", BUNDLE),
        JsFile(P("lib/axios.js"), "a", SOURCE_AXIOS),
        JsFile(P("dist/axios.min.js"), "m", "/** x */\nvar a=1;" + "x" * 6000),
    ]
    rejects = CollectResult()
    docs = {d.uri: d for d in api_documents(files, "git", rejects)}
    assert sorted(docs) == [
        "javascript:Axios",
        "javascript:Route",
        "javascript:format",
        "javascript:isArray",
        "javascript:req",
        "javascript:req.get",
        "javascript:req.is",
    ]
    assert rejects.rejects == {"javascript_minified": 1}
    # a chained assignment is the function at its end
    assert docs["javascript:req.get"].text == (
        "req.get(name)\n\nReturn request header.\n\n:returns: `String`"
    )
    assert docs["javascript:req.is"].text.endswith(":returns: `String|false|null`")
    assert docs["javascript:req.is"].meta["params"] == ["types"]
    assert docs["javascript:isArray"].text.startswith("isArray(value)\n\nChecks if `value`")
    assert docs["javascript:Route"].text.startswith("Route(path)\n\nInitialize `Route`")
    assert docs["javascript:Axios"].text == "Axios(instanceConfig)\n\nCreate an instance of Axios."
    assert docs["javascript:format"].text == (
        "format(date)\n\nFormat the date.\n\nReturn the formatted date string in the given "
        "format.\n\n:param date: The original date"
    )
