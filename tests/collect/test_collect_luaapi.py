"""Lua read as its module's API, as LDoc and lua-language-server (LuaCATS) show it: source
files scanned, never run, each documented function, method, field, table and class a
document named by its module (`lua:geo.shapes.area`, a method `lua:geo.shapes:scale`), and
the module itself when its file has a header doc."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import ask, fuzzed, write_tree
from jupiter.collect import CollectResult
from jupiter.collect.local import collect_local
from jupiter.collect.luaapi import (
    FIXES,
    LUA_NO_API,
    LUA_TEST,
    SUFFIXES,
    URI_PREFIX,
    LuaFile,
    api_documents,
    is_lua,
    is_test,
    module_name,
    scan,
)
from jupiter.config import DomainConfig
from jupiter.records import Document

SHAPES = """\
--- Geometry helpers.
-- Shapes and their areas, see @{area} and <code>Shape</code>.
--
--    local geo = require "geo.shapes"
--    print(geo.area(2))
--
-- @module geo.shapes
-- @alias S

local S = {}

local PREFIX = "-- not a comment"
local BANNER = [==[
]] still a string --- not a doc
]==]

--[[ a long comment
--- not a doc either
function S.commented() end
]]

--- Area of a circle.
-- @number r the radius
-- @tparam[opt=1] number scale a factor
-- @treturn number the area
-- @raise when r is negative
-- @usage
-- local a = S.area(2)
-- print(a) --> 12.56
-- @see perimeter
function S.area(r, scale)
  return 3.14 * r * r * (scale or 1)
end

--- Perimeter of a circle.
-- @param r the radius
-- @return the perimeter
-- @return[2] nil when r is negative
S.perimeter = function(r) return 2 * 3.14 * r end

--- Scales a shape in place.
-- @param factor how much
-- @deprecated use `resize`
function S:scale(factor) end

--- Helpers for units.
S.units = {}

--- Converts centimetres
-- to metres.
-- @param cm centimetres
function S.units.to_m(cm) return cm / 100 end

--- The default precision.
S.precision = 4

--- Known shapes.
-- @table kinds
S.kinds = {
  circle = 1, -- round
  square = 2, -- four sides
}

--- Builds a square.
-- @function square
-- @param side its side
S.square = make_square

--- Not attached: a blank line follows.

function S.lost() end

--- A helper.
local function helper(x) return x end

--- Internal.
-- @local
function S.internal() end

--- Private by its name.
function S._hidden() end

--- Equality, a metamethod.
-- @param other another shape
function S.__eq(self, other) end

return S
"""


def read(text: str, rel: str = "src/shapes.lua") -> dict[str, Document]:
    return {d.uri: d for d in api_documents([LuaFile(P(rel), rel, text)], "local")}


def test_an_ldoc_module_becomes_its_documented_api() -> None:
    docs = read(SHAPES)
    assert sorted(docs) == [
        "lua:geo.shapes",
        "lua:geo.shapes.__eq",
        "lua:geo.shapes.area",
        "lua:geo.shapes.kinds",
        "lua:geo.shapes.perimeter",
        "lua:geo.shapes.precision",
        "lua:geo.shapes.square",
        "lua:geo.shapes.units",
        "lua:geo.shapes.units.to_m",
        "lua:geo.shapes:scale",
    ]  # lost: a blank line under its doc; helper: local; internal: @local; _hidden: private
    assert docs["lua:geo.shapes"].text == (
        "geo.shapes\n\nGeometry helpers.\n"
        "Shapes and their areas, see `area` and `Shape`.\n\n"
        '```lua\nlocal geo = require "geo.shapes"\nprint(geo.area(2))\n```'
    )
    assert docs["lua:geo.shapes.area"].text == (
        "geo.shapes.area(r, scale)\n\nArea of a circle.\n\n"
        ":param r: (number) the radius\n"
        ":param scale: (number, optional) a factor Defaults to `1`.\n"
        ":returns: (number) the area\n\n"
        "Raises: when r is negative\n\n"
        "```lua\nlocal a = S.area(2)\nprint(a) --> 12.56\n```\n\n"
        "See also: perimeter"
    )
    assert docs["lua:geo.shapes.perimeter"].text == (
        "geo.shapes.perimeter(r)\n\nPerimeter of a circle.\n\n"
        ":param r: the radius\n:returns: the perimeter; nil when r is negative"
    )
    assert docs["lua:geo.shapes:scale"].text == (
        "geo.shapes:scale(factor)\n\nScales a shape in place.\n\n"
        "Deprecated. use `resize`\n\n:param factor: how much"
    )
    assert docs["lua:geo.shapes.units"].text == "geo.shapes.units = {}\n\nHelpers for units."
    assert docs["lua:geo.shapes.units.to_m"].text == (
        "geo.shapes.units.to_m(cm)\n\nConverts centimetres\nto metres.\n\n:param cm: centimetres"
    )
    assert docs["lua:geo.shapes.precision"].text == (
        "geo.shapes.precision = 4\n\nThe default precision."
    )
    assert docs["lua:geo.shapes.kinds"].text == (
        "geo.shapes.kinds\n\nKnown shapes.\n\nFields:\n- circle: round\n- square: four sides"
    )
    assert docs["lua:geo.shapes.square"].text == (
        "geo.shapes.square(side)\n\nBuilds a square.\n\n:param side: its side"
    )
    assert docs["lua:geo.shapes.__eq"].text == (
        "geo.shapes.__eq(self, other)\n\nEquality, a metamethod.\n\n:param other: another shape"
    )
    kinds = {u: d.meta["kind"] for u, d in docs.items()}
    assert kinds["lua:geo.shapes"] == "module" and kinds["lua:geo.shapes:scale"] == "method"
    assert kinds["lua:geo.shapes.area"] == "function"
    assert kinds["lua:geo.shapes.precision"] == "field"
    assert kinds["lua:geo.shapes.kinds"] == kinds["lua:geo.shapes.units"] == "table"
    meta = docs["lua:geo.shapes.area"].meta
    assert meta["language"] == "lua" and meta["signature"] == "(r, scale)"
    assert meta["line"] == 31 and meta["qualname"] == "geo.shapes.area"
    assert docs["lua:geo.shapes.area"].title == "geo.shapes.area"


KIT = """\
---@meta
---@diagnostic disable: unused-local

---@alias kit.Unit "line"|"char"

---@class kit.Range : kit.Span
---@field start integer first line
---@field finish? integer # last line
---@field private cache table
---@field [string] any
local Range = {}

---@class Cursor
---@field row integer
local Cursor = {}

local M = {}

--- Makes a range.
---
--- Lines count from `1`.
---@param start integer first line
---@param finish? integer last line, `start` when nil
---@param opts { exact: boolean }|nil options:
---   - `exact`: no widening
---   - nil: the defaults
---@param ... string labels
---@return kit.Range range
---@return string|nil # why it failed
---@overload fun(start: integer): kit.Range
function M.make(start, finish, opts, ...) end

--- Whether the range holds a line.
---@param line integer
---@return boolean
function Range:contains(line) end

--- Moves the cursor.
---@param rows integer how far
---@see Cursor.row
function Cursor:move(rows) end

---@private
function M.secret() end

---@type table<string, integer>
M.counts = {}

--- Kinds of range.
---@enum kit.Kind
M.Kind = {
  LINE = 1, -- whole lines
  CHAR = 2,
}

M.Range = Range
M.Cursor = Cursor
return M
"""


def test_luacats_annotations_give_classes_fields_params_and_returns() -> None:
    docs = read(KIT, "lua/kit/range.lua")
    assert sorted(docs) == [
        "lua:kit.Range",
        "lua:kit.Range:contains",
        "lua:kit.range.Cursor",
        "lua:kit.range.Cursor:move",
        "lua:kit.range.Kind",
        "lua:kit.range.make",
    ]  # no header (the first docs are `---@meta` and an alias); secret: `---@private`;
    # counts: a lone `---@type`
    assert docs["lua:kit.Range"].text == (
        "kit.Range\n\nExtends `kit.Span`.\n\n"
        "Fields:\n- start (integer): first line\n- finish (integer, optional): last line"
    )
    assert docs["lua:kit.range.Cursor"].text == "kit.range.Cursor\n\nFields:\n- row (integer)"
    assert docs["lua:kit.range.make"].text == (
        "kit.range.make(start, finish, opts, ...)\n\n"
        "Makes a range.\n\nLines count from `1`.\n\n"
        ":param start: (integer) first line\n"
        ":param finish: (integer, optional) last line, `start` when nil\n"
        ":param opts: ({ exact: boolean }|nil) options:\n"
        "  - `exact`: no widening\n"
        "  - nil: the defaults\n"
        ":param ...: (string) labels\n"
        ":returns: range (kit.Range); (string|nil) why it failed"
    )
    assert docs["lua:kit.Range:contains"].text == (
        "kit.Range:contains(line)\n\nWhether the range holds a line.\n\n"
        ":param line: (integer)\n:returns: boolean"
    )
    assert docs["lua:kit.range.Cursor:move"].text == (
        "kit.range.Cursor:move(rows)\n\nMoves the cursor.\n\n"
        ":param rows: (integer) how far\n\nSee also: Cursor.row"
    )
    assert docs["lua:kit.range.Kind"].text == (
        "kit.range.Kind\n\nKinds of range.\n\nFields:\n- LINE: whole lines\n- CHAR"
    )
    assert docs["lua:kit.Range"].meta["kind"] == "class"
    assert docs["lua:kit.Range:contains"].meta["kind"] == "method"


def test_a_class_module_and_an_ldoc_type_name_their_methods() -> None:
    docs = read(
        "--- Lists with methods.\n-- @classmod pl.List\nlocal List = {}\n\n"
        "--- Appends an item.\n-- @param item the item\n-- @return the list\n"
        "function List:append(item) end\n\n"
        "--- A list of pairs.\n-- @type Pairs\nlocal Pairs = {}\nPairs.__index = Pairs\n\n"
        "--- The first of each pair.\nfunction Pairs:firsts() end\n\n"
        "--- A queue, a class by its metatable.\nlocal Queue = {}\nQueue.__index = Queue\n\n"
        "--- Takes the front.\nfunction Queue:pop() end\n\n"
        "return List\n",
        "pl/List.lua",
    )
    assert sorted(docs) == [
        "lua:pl.List",
        "lua:pl.List.Pairs",
        "lua:pl.List.Pairs:firsts",
        "lua:pl.List.Queue:pop",
        "lua:pl.List:append",
    ]
    assert docs["lua:pl.List"].text == "pl.List\n\nLists with methods."
    assert docs["lua:pl.List:append"].text == (
        "pl.List:append(item)\n\nAppends an item.\n\n:param item: the item\n:returns: the list"
    )
    assert docs["lua:pl.List.Pairs"].text == "pl.List.Pairs\n\nA list of pairs."
    assert docs["lua:pl.List.Pairs"].meta["kind"] == "class"
    assert docs["lua:pl.List.Pairs:firsts"].text == (
        "pl.List.Pairs:firsts()\n\nThe first of each pair."
    )
    assert docs["lua:pl.List.Queue:pop"].text == "pl.List.Queue:pop()\n\nTakes the front."


def test_table_constructors_exports_and_docs_that_name_their_item() -> None:
    docs = read(
        "local M = {\n"
        "  --- The version.\n"
        '  version = "1.0",\n'
        "  --- Greets.\n"
        "  -- @param who whom\n"
        "  greet = function(who) end,\n"
        "  opts = {\n"
        "    --- Verbose output.\n"
        "    verbose = false,\n"
        "    --- Private by its name.\n"
        "    _seen = {},\n"
        "  },\n"
        "}\n\n"
        "--- Trims.\nlocal function trim(s) return s end\n"
        "M.trim = trim\n\n"
        "--- Joins.\n-- @export\nlocal function join(list, sep) end\n\n"
        "--- Splits a string.\n-- @function split\n-- @string s the string\n\n"
        "--- The separator.\n-- @class field\n-- @name sep\n\n"
        "--- Not exported.\nlocal function hidden() end\n\n"
        "return M\n",
        "lua/strs/init.lua",
    )
    assert sorted(docs) == [
        "lua:strs.greet",
        "lua:strs.join",
        "lua:strs.opts.verbose",
        "lua:strs.sep",
        "lua:strs.split",
        "lua:strs.trim",
        "lua:strs.version",
    ]
    assert docs["lua:strs.version"].text == 'strs.version = "1.0"\n\nThe version.'
    assert docs["lua:strs.greet"].text == "strs.greet(who)\n\nGreets.\n\n:param who: whom"
    assert docs["lua:strs.opts.verbose"].text == "strs.opts.verbose = false\n\nVerbose output."
    assert docs["lua:strs.trim"].text == "strs.trim(s)\n\nTrims."
    assert docs["lua:strs.join"].text == "strs.join(list, sep)\n\nJoins."
    assert docs["lua:strs.split"].text == (
        "strs.split(s)\n\nSplits a string.\n\n:param s: (string) the string"
    )
    assert docs["lua:strs.sep"].text == "strs.sep\n\nThe separator."
    assert docs["lua:strs.sep"].meta["kind"] == "field"


def test_a_returned_constructor_exports_its_locals() -> None:
    docs = read(
        "--- Text tools.\n\nlocal function helper() end\n\n"
        "--- Cuts a string.\n-- @param s the string\nlocal function cut(s, n) end\n\n"
        "return { cut = cut, helper = helper }\n",
        "text.lua",
    )
    assert sorted(docs) == ["lua:text", "lua:text.cut"]
    assert docs["lua:text"].text == "text\n\nText tools."
    assert docs["lua:text.cut"].text == "text.cut(s, n)\n\nCuts a string.\n\n:param s: the string"


def test_global_tables_and_functions_count_under_the_module() -> None:
    docs = read(
        "--- Paint tools.\nPaint = {}\n\n"
        "--- Mixes two colours.\n-- @param a first\n-- @param b second\n"
        "function Paint.mix(a, b) end\n\n"
        "--- Says hello.\nfunction greet(name) end\n\n"
        "--- Extends the string library.\nfunction string.shout(s) end\n",
        "lib/paint.lua",
    )
    assert sorted(docs) == [
        "lua:paint",
        "lua:paint.greet",
        "lua:paint.mix",
        "lua:string.shout",
    ]
    assert docs["lua:paint.mix"].text == (
        "paint.mix(a, b)\n\nMixes two colours.\n\n:param a: first\n:param b: second"
    )
    assert docs["lua:paint.greet"].text == "paint.greet(name)\n\nSays hello."
    old = read('module("old.style", package.seeall)\n\n--- Adds one.\nfunction inc(x) end\n')
    assert sorted(old) == ["lua:old.style.inc"]


def test_the_module_name_comes_from_the_path() -> None:
    assert module_name(P("lua/vim/lsp/util.lua")) == "vim.lsp.util"
    assert module_name(P("runtime/lua/vim/lsp/util.lua")) == "vim.lsp.util"
    assert module_name(P("pl/tablex.lua")) == "pl.tablex"
    assert module_name(P("luassert/init.lua")) == "luassert"
    assert module_name(P("lua/luassert/init.lua")) == "luassert"
    assert module_name(P("share/lua/5.4/pl/tablex.lua")) == "pl.tablex"
    assert module_name(P("5.1/pl/List.lua")) == "pl.List"
    assert module_name(P("src/socket/http.lua")) == "socket.http"
    assert module_name(P("lib/resty/http.lua")) == "resty.http"
    assert module_name(P("init.lua")) == "init"
    text = "local M = {}\n\n--- Does it.\nfunction M.go() end\n\nreturn M\n"
    assert list(read(text, "lua/vim/lsp/util.lua")) == ["lua:vim.lsp.util.go"]
    assert list(read(text, "lua/5.4/pkg/init.lua")) == ["lua:pkg.go"]


def test_the_scanner_tells_comments_and_strings_from_code() -> None:
    text = (
        "local a = \"x -- y\" .. '[[' -- trailing\n"
        "local b = [==[\n]] --- no\n]==]\n"
        "--[[ c\n--- d ]] local e = 1\n"
        "--- doc one\n-- more\nf()\n"
        "--[[--\n A block doc.\n @param x\n]]\n"
        "-- plain\n--- doc two\nf()\n"
        "---------------\n-- boxed\n---------------\ng()\n"
    )
    code, docs = scan(text)
    assert len(code) == len(text) and code.count("\n") == text.count("\n")
    lines = code.split("\n")
    assert lines[0].rstrip() == "local a = \"      \" .. '  '"
    assert "no" not in code and "]==]" in code and "local e = 1" in code
    assert " c" not in code and "doc" not in code and "boxed" not in code
    assert docs == ["doc one\nmore", "A block doc.\n@param x", "doc two", "boxed"]


def test_doc_markup_becomes_markdown() -> None:
    docs = read(
        "local M = {}\n\n"
        '--- Formats <b>bold</b> &amp; <a href="x">linked</a> text, see @{other|the other}.\n'
        "-- <pre>\n-- local x = f(1) -- with a comment\n-- </pre>\n"
        "-- An example:\n--\n--     f(2)\n--\n"
        "-- ```\n-- f(3)\n-- ```\n"
        "-- @usage\n-- ```lua\n-- f(4)\n-- ```\n"
        "-- @since 1.2\n"
        "function M.f() end\n\nreturn M\n",
        "m.lua",
    )
    assert docs["lua:m.f"].text == (
        "m.f()\n\n"
        "Formats **bold** & linked text, see the other.\n"
        "```lua\nlocal x = f(1) -- with a comment\n```\n"
        "An example:\n\n```lua\nf(2)\n```\n\n"
        "```lua\nf(3)\n```\n\n"
        "```lua\nf(4)\n```\n\n"
        "Since: 1.2"
    )


def test_ldoc_type_aliases_and_modifiers() -> None:
    docs = read(
        "local M = {}\n\n"
        "--- Joins.\n"
        "-- @tab list the items\n"
        "-- @string[opt=','] sep the separator\n"
        "-- @param[type=boolean] strict whether to check\n"
        "-- @grid g a project's own type alias\n"
        "-- @grid missing not a parameter: dropped\n"
        "-- @param ... more items\n"
        "-- @treturn string the text\n"
        "-- @treturn[2] nil when empty\n"
        "function M.join(list, sep, strict, g, ...) end\n\n"
        "return M\n",
        "m.lua",
    )
    assert docs["lua:m.join"].text == (
        "m.join(list, sep, strict, g, ...)\n\nJoins.\n\n"
        ":param list: (table) the items\n"
        ":param sep: (string, optional) the separator Defaults to `','`.\n"
        ":param strict: (boolean) whether to check\n"
        ":param g: (grid) a project's own type alias\n"
        ":param ...: more items\n"
        ":returns: (string) the text; (nil) when empty"
    )


def test_a_doc_not_right_over_its_declaration_documents_nothing() -> None:
    docs = read(
        "--- The module.\nlocal M = {}\n\n"
        "--- Separated by a blank line.\n\nfunction M.a() end\n\n"
        "--- Over a plain comment.\n-- @param x\n\n-- plain\nfunction M.b(x) end\n\n"
        "function M.c()\n  --- Inside a function body.\n  M.d = 1\nend\n\n"
        "return M\n",
        "m.lua",
    )
    assert sorted(docs) == ["lua:m"]


def test_tests_and_files_without_docs_are_counted() -> None:
    assert is_lua("tablex.lua") and is_lua("A.LUA") and not is_lua("x.rockspec")
    assert SUFFIXES == (".lua",) and URI_PREFIX == "lua:"
    assert FIXES[LUA_TEST].endswith("the source's lua: text reads them as text")
    assert FIXES[LUA_NO_API] == FIXES[LUA_TEST]
    assert is_test(P("spec/list_spec.lua")) and is_test(P("src/x_test.lua"))
    assert is_test(P("test_x.lua")) and is_test(P("tests/helpers.lua"))
    assert not is_test(P("pl/test.lua")) and not is_test(P("lua/testing/init.lua"))
    files = [
        LuaFile(P("spec/shapes_spec.lua"), "s", SHAPES),
        LuaFile(P("test/shapes.lua"), "t", SHAPES),
        LuaFile(P("src/shapes_test.lua"), "u", SHAPES),
        LuaFile(P("src/plain.lua"), "p", "local M = {}\n-- a plain comment\nreturn M\n"),
        LuaFile(P("src/shapes.lua"), "q", SHAPES),
    ]
    rejects = CollectResult()
    docs = api_documents(files, "local", rejects)
    assert len(docs) == 10
    assert rejects.rejects == {LUA_TEST: 3, LUA_NO_API: 1}
    assert rejects.samples[LUA_NO_API] == ["p"]


def test_malformed_lua_never_raises() -> None:
    for text in [
        "--- doc\nfunction M.",
        '--- doc\nlocal s = "unterminated\nfunction f() end',
        "--[[-- unterminated block doc",
        "local s = [==[ unterminated long string\n--- doc\nfunction f() end",
        "--- doc\n-- @param\n-- @tparam\n-- @treturn\n-- @usage\n-- @see\nfunction f( end",
        "---@param\n---@return\n---@class\n---@field\n---@enum\nM.x = {",
        "--- doc\n-- @type\n-- @table\n-- @function\n-- @name\nreturn {",
        "local M = {}\n--- doc\nM.x = function(\nreturn M",
        "end end until }}} ))) --- doc\nfunction a.b:c() end",
        "",
    ]:
        for doc in read(text, "m.lua").values():
            assert doc.uri.startswith("lua:") and doc.text


def test_any_text_scans_without_an_error() -> None:
    pieces = [
        "local M = {}\n", "return M\n", "--- A doc.\n", "-- @param x the x\n",
        "-- @tparam[opt] string s\n", "---@param y? integer\n", "---@return boolean ok\n",
        "---@class C\n", "---@field f string\n", "-- @usage f()\n", "-- @module m\n",
        "function M.f(a, b)\n", "function M:g(x)\n", "M.h = function(z)\n", "end\n",
        "local function l()\n", "M.v = 1\n", "M.t = {\n", "  k = 2, -- k\n", "}\n",
        "--[[", "]]", "--[==[", "]==]", "[[", "[=[", "]=]", '"', "'", "\\", "--", "---",
        "\n", " ", "(", ")", "{", "}", "do ", "if x then ", "repeat ", "until y\n",
        "@{ref}", "<pre>", "</pre>", "```\n", "    code\n", "module('x')\n", "M.a.b.c = d\n",
    ]  # fmt: skip

    def reader(text: str) -> list[Document]:
        return api_documents([LuaFile(P("lua/m.lua"), "m", text)], "local")

    assert fuzzed(reader, pieces, "lua:") > 0


def test_a_rock_is_read_by_init_and_its_questions_read_the_signature(tmp_path: Path) -> None:
    from jupiter.config.cli import source_entry

    lib = (
        "--- Frob things.\n-- @module frob\nlocal M = {}\n\n"
        "--- Turn a value into a frob, keeping its order.\n"
        "-- @tparam string name the frob's name\n-- @tparam[opt] number size how big\n"
        "-- @treturn table the new frob, empty until it is filled\nfunction M.make(name, size)\n  return {}\nend\n\n"
        "return M\n"
    )
    write_tree(
        tmp_path / "rock", {"frob-1.0-1.rockspec": "package = 'frob'\n", "src/frob.lua": lib}
    )
    entry = source_entry(str(tmp_path / "rock"))
    assert "*.lua" in entry["include"]  # type: ignore[operator]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    make = docs["lua:frob.make"]
    assert make.meta["language"] == "lua"
    asked = ask(make)
    assert asked["signature"] == "`frob.make(name, size)`"
    assert asked["what_does"] == "Turn a value into a frob, keeping its order."
    assert asked["arguments"] == (
        "`frob.make` takes 2 arguments: name, size.\n\n"
        "- name: (string) the frob's name\n- size: (number, optional) how big"
    )
    assert asked["returns"] == "(table) the new frob, empty until it is filled"


def test_a_package_folder_read_as_the_source_names_its_modules() -> None:
    """Pointed at an installed package's folder (`luassert/`: init.lua, util.lua at its
    root), the modules are `luassert` and `luassert.util`, as `require` finds them."""
    util = "local M = {}\n\n--- Whether a value can be called like a function.\nfunction M.callable(x)\nend\n\nreturn M\n"
    init = "--- Assertions for tests.\nlocal M = {}\n\n--- Check a value, failing loudly.\nfunction M.check(v)\nend\n\nreturn M\n"
    files = [LuaFile(P("init.lua"), "i", init), LuaFile(P("util.lua"), "u", util)]
    assert sorted(d.uri for d in api_documents(files, "local", None, "luassert")) == [
        "lua:luassert",
        "lua:luassert.check",
        "lua:luassert.util.callable",
    ]
    # a layout folder's name is no package, nor is a tree under lua/
    assert "lua:util.callable" in {d.uri for d in api_documents(files, "local", None, "src")}
    nested = [LuaFile(P("lua/frob/util.lua"), "u", util)]
    assert [d.uri for d in api_documents(nested, "local", None, "myplugin")] == [
        "lua:frob.util.callable"
    ]


def test_a_type_written_in_parentheses_is_not_wrapped_twice() -> None:
    text = (
        "local M = {}\n\n--- Tests if `s` starts with `prefix`.\n"
        "---@param s (string) a string\n---@param prefix (string) a prefix\n"
        "function M.startswith(s, prefix)\nend\n\nreturn M\n"
    )
    doc = read(text, "lua/vim/shared.lua")["lua:vim.shared.startswith"]
    assert ":param prefix: (string) a prefix" in doc.text.split("\n")
