"""OCaml interfaces read as their modules' API, as odoc shows them: `.mli` files scanned,
never compiled, each documented value, type, exception, module, module type, class and
method a document named through its module (`ocaml:Shapes.area`, `ocaml:Shapes.S.add`,
`ocaml:Shapes.(@)`), and the module itself when its file opens with a doc."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from jupiter.collect import CollectResult
from jupiter.collect.mliapi import (
    FIXES,
    OCAML_NO_API,
    OCAML_TEST,
    SUFFIXES,
    URI_PREFIX,
    api_documents,
    is_ocaml,
    is_test,
    module_name,
)
from jupiter.collect.result import SourceFile
from jupiter.records import Document

SHAPES = """\
(**************************************************************************)
(*  Copyright: a box of stars, not a doc                                  *)
(**************************************************************************)

(** Geometry helpers.

    Shapes and their areas. *)

(* a plain comment: val hidden_in_comment : int (* nested *) still comment *)

val area : float -> float
(** [area r] is the area of a circle of radius [r].
    @param r the radius
    @return the area
    @raise Invalid_argument if [r] is negative
    @since 4.05.0 *)

val pi : float
(** The constant. *)

external length : 'a array -> int = "%array_length" "caml_length"
(** The length. *)

val undocumented : int

val ( @@ ) : ('a -> 'b) -> 'a -> 'b
(** Application. *)

type 'a option = None | Some of 'a (** a value *)
(** An optional value. *)

exception Too_small of string
(** Raised when a shape is too small. *)
"""


def read(text: str, rel: str = "shapes.mli") -> dict[str, Document]:
    return {d.uri: d for d in api_documents([SourceFile(P(rel), rel, text)], "local")}


def test_an_interface_becomes_its_documented_api() -> None:
    docs = read(SHAPES)
    assert sorted(docs) == [
        "ocaml:Shapes",
        "ocaml:Shapes.(@@)",
        "ocaml:Shapes.Too_small",
        "ocaml:Shapes.area",
        "ocaml:Shapes.length",
        "ocaml:Shapes.option",
        "ocaml:Shapes.pi",
    ]  # undocumented: no doc; the comment's `val`: no item
    assert (
        docs["ocaml:Shapes"].text == "module Shapes\n\nGeometry helpers.\n\nShapes and their areas."
    )
    assert docs["ocaml:Shapes.area"].text == (
        "val area : float -> float\n\n"
        "`area r` is the area of a circle of radius `r`.\n\n"
        ":param r: the radius\n:returns: the area\n\n"
        "Raises: `Invalid_argument` if `r` is negative\n\n"
        "Since: 4.05.0"
    )
    assert docs["ocaml:Shapes.pi"].text == "val pi : float\n\nThe constant."
    assert docs["ocaml:Shapes.length"].text == ("external length : 'a array -> int\n\nThe length.")
    assert docs["ocaml:Shapes.(@@)"].text == "val ( @@ ) : ('a -> 'b) -> 'a -> 'b\n\nApplication."
    assert docs["ocaml:Shapes.option"].text == (
        "type 'a option = None | Some of 'a\n\nAn optional value.\n\n"
        "Constructors:\n- `Some of 'a`: a value"
    )
    assert docs["ocaml:Shapes.Too_small"].text == (
        "exception Too_small of string\n\nRaised when a shape is too small."
    )
    kinds = {u: d.meta["kind"] for u, d in docs.items()}
    assert kinds == {
        "ocaml:Shapes": "module",
        "ocaml:Shapes.(@@)": "function",
        "ocaml:Shapes.Too_small": "exception",
        "ocaml:Shapes.area": "function",
        "ocaml:Shapes.length": "function",
        "ocaml:Shapes.option": "type",
        "ocaml:Shapes.pi": "value",
    }
    meta = docs["ocaml:Shapes.area"].meta
    assert meta["language"] == "ocaml" and meta["signature"] == "val area : float -> float"
    assert meta["line"] == 11 and meta["qualname"] == "Shapes.area"
    assert docs["ocaml:Shapes.area"].title == "Shapes.area"


def test_the_module_name_is_the_capitalised_stem() -> None:
    assert module_name(P("list.mli")) == "List"
    assert module_name(P("src/lwt_io.mli")) == "Lwt_io"
    assert module_name(P("stdLabels.mli")) == "StdLabels"
    assert list(read("val x : int\n(** X. *)\n", "lib/lwt_io.mli")) == ["ocaml:Lwt_io.x"]


def test_a_doc_goes_to_the_item_before_it_when_it_could_be_either() -> None:
    docs = read(
        "(** The module. *)\n\n"
        "val a : int\n(** After a, before b: a's. *)\nval b : int\n\n"
        "(** Before c. *)\nval c : int\n\n"
        "val d : int (** On d's line. *)\n"
        "val e : int\n\n"
        "(** Before f, then after f. *)\nval f : int\n(** More on f. *)\n\n"
        "(** Standing alone. *)\n\nval g : int\n\n"
        "val h : int\n\n(** Not h's: a blank line between. *)\n\nval i : int\n"
    )
    assert {u: d.text.split("\n\n", 1)[1] for u, d in docs.items()} == {
        "ocaml:Shapes": "The module.",
        "ocaml:Shapes.a": "After a, before b: a's.",
        "ocaml:Shapes.c": "Before c.",
        "ocaml:Shapes.d": "On d's line.",
        "ocaml:Shapes.f": "Before f, then after f.\n\nMore on f.",
    }


def test_the_first_doc_is_the_modules_only_when_it_documents_no_item() -> None:
    assert sorted(read("(** Doc of x. *)\nval x : int\n")) == ["ocaml:Shapes.x"]
    assert sorted(read("(** The module. *)\nopen Stdlib\n\nval x : int\n")) == ["ocaml:Shapes"]
    docs = read("(** {1 A heading first} *)\n\n(** Later. *)\nval x : int\n")
    assert sorted(docs) == ["ocaml:Shapes.x"]


def test_section_docs_document_nothing() -> None:
    docs = read("(** The module. *)\n\n(** {1 Iterators} *)\nval iter : unit -> unit\n")
    assert sorted(docs) == ["ocaml:Shapes"]


def test_stop_comments_hide_what_stands_between_them() -> None:
    docs = read(
        "val a : int\n(** A. *)\n\n(**/**)\n\nval b : int\n(** B: hidden. *)\n\n"
        "module M : sig\n  val c : int\n  (** C: hidden too. *)\nend\n\n"
        "(**/**)\n\nval d : int\n(** D. *)\n\n"
        "module N : sig\n  (**/**)\n  val e : int\n  (** E: hidden in N only. *)\nend\n"
        "(** N. *)\n\nval f : int\n(** F. *)\n"
    )
    assert sorted(docs) == ["ocaml:Shapes.N", "ocaml:Shapes.a", "ocaml:Shapes.d", "ocaml:Shapes.f"]


def test_comments_and_strings_holding_code_are_not_items() -> None:
    docs = read(
        "(* (* nested *) val in_comment : int *)\n"
        '(* a string in a comment: "*)" val still_comment : int *)\n'
        "(* a char in a comment: '\"' val still_comment2 : int *)\n"
        'external f : string -> int = "val in_string : int"\n(** F. *)\n\n'
        "val g : 'a -> 'b -> char\n(** G, with type variables and ['\"']. *)\n\n"
        "val h' : int\n(** H prime. *)\n"
        "val q : string\n(** {|val in_quoted : int|} is a quoted string. *)\n"
    )
    assert sorted(docs) == [
        "ocaml:Shapes.f",
        "ocaml:Shapes.g",
        "ocaml:Shapes.h'",
        "ocaml:Shapes.q",
    ]
    assert docs["ocaml:Shapes.f"].meta["signature"] == "external f : string -> int"
    assert docs["ocaml:Shapes.g"].text == (
        "val g : 'a -> 'b -> char\n\nG, with type variables and `'\"'`."
    )


MAP = """\
(** Maps. *)

module type OrderedType =
  sig
    type t
      (** The keys. *)

    val compare : t -> t -> int
      (** A total order. *)
  end
(** Input signature of {!Make}. *)

module type S = sig
  type key

  val add : key -> 'a -> 'a t -> 'a t
  (** [add k v m] binds [k].
      @before 4.03 Physical equality was not ensured. *)

  module Sub : sig
    val depth : int
    (** Nested. *)
  end
end
(** Output signature. *)

module Make (Ord : OrderedType) : S with type key = Ord.t
(** Functor building a map. *)

module Undocumented : sig
  val x : int
  (** X. *)
end

module Build (X : sig type t end) : sig
  val build : X.t -> unit
  (** Builds. *)
end
"""


def test_functors_and_module_types_qualify_their_members() -> None:
    docs = read(MAP, "map.mli")
    assert sorted(docs) == [
        "ocaml:Map",
        "ocaml:Map.Build.build",
        "ocaml:Map.Make",
        "ocaml:Map.OrderedType",
        "ocaml:Map.OrderedType.compare",
        "ocaml:Map.OrderedType.t",
        "ocaml:Map.S",
        "ocaml:Map.S.Sub.depth",
        "ocaml:Map.S.add",
        "ocaml:Map.Undocumented.x",
    ]  # Undocumented, Build, S.Sub: no doc of their own
    assert docs["ocaml:Map.Make"].text == (
        "module Make (Ord : OrderedType) : S with type key = Ord.t\n\nFunctor building a map."
    )
    assert docs["ocaml:Map.Make"].meta["kind"] == "module"
    assert docs["ocaml:Map.S"].text == "module type S = sig ... end\n\nOutput signature."
    assert docs["ocaml:Map.S"].meta["kind"] == "module type"
    assert docs["ocaml:Map.OrderedType"].text == (
        "module type OrderedType = sig ... end\n\nInput signature of `Make`."
    )
    assert docs["ocaml:Map.OrderedType.t"].text == "type t\n\nThe keys."
    assert docs["ocaml:Map.S.add"].text == (
        "val add : key -> 'a -> 'a t -> 'a t\n\n`add k v m` binds `k`.\n\n"
        "Before 4.03: Physical equality was not ensured."
    )
    assert docs["ocaml:Map.S.add"].meta["kind"] == "function"


def test_a_nested_modules_signature_doc_is_its_own() -> None:
    docs = read("module M : sig\n  (** About M. *)\n\n  val x : int\nend\n")
    assert docs["ocaml:Shapes.M"].text == "module M : sig ... end\n\nAbout M."


def test_constructors_and_fields_are_listed_in_their_type() -> None:
    docs = read(
        "type status =\n"
        "    Exited of int\n"
        "        (** Exited normally. *)\n"
        "  | Signaled of int\n"
        "        (** Killed. *)\n"
        "  | Stopped of int\n"
        "        (** Stopped; the last constructor's. *)\n"
        "(** The status of a process. *)\n\n"
        "type flag = A | B (**)\n(** Flags: the type's, `(**)` took B's place. *)\n\n"
        "type point = {\n"
        "  x : float; (** Across. *)\n"
        "  mutable y : float; (** Down. *)\n"
        "  label : string;\n"
        "}\n(** A point. *)\n\n"
        "type long =\n"
        "  | A_constructor_with_a_long_name of int * int * string\n"
        "  | Another_constructor_with_a_long_name of string list (** Another. *)\n"
        "(** A long one. *)\n\n"
        "type alias = int\n(** Alias. *)\n\n"
        "type undocumented_but_its_constructor = Only (** Only one. *)\n"
    )
    assert docs["ocaml:Shapes.status"].text == (
        "type status = Exited of int | Signaled of int | Stopped of int\n\n"
        "The status of a process.\n\n"
        "Constructors:\n"
        "- `Exited of int`: Exited normally.\n"
        "- `Signaled of int`: Killed.\n"
        "- `Stopped of int`: Stopped; the last constructor's."
    )
    assert docs["ocaml:Shapes.flag"].text == (
        "type flag = A | B\n\nFlags: the type's, `(**)` took B's place."
    )
    assert docs["ocaml:Shapes.point"].text == (
        "type point = { x : float; mutable y : float; label : string; }\n\nA point.\n\n"
        "Fields:\n- `x : float`: Across.\n- `mutable y : float`: Down."
    )
    assert docs["ocaml:Shapes.long"].text == (
        "type long = | ...\n\nA long one.\n\n"
        "Constructors:\n"
        "- `A_constructor_with_a_long_name of int * int * string`\n"
        "- `Another_constructor_with_a_long_name of string list`: Another."
    )
    assert docs["ocaml:Shapes.alias"].text == "type alias = int\n\nAlias."
    assert docs["ocaml:Shapes.undocumented_but_its_constructor"].text == (
        "type undocumented_but_its_constructor = Only\n\nConstructors:\n- `Only`: Only one."
    )
    assert not any("Exited" in u or u.endswith(".x") for u in docs)


def test_type_chains_and_manifests() -> None:
    docs = read(
        "type 'a t = 'a list = [] | (::) of 'a * 'a list (**)\n(** Lists. *)\n\n"
        "type a = int\n(** A. *)\nand b = string\n(** B. *)\n"
    )
    assert docs["ocaml:Shapes.t"].text == (
        "type 'a t = 'a list = [] | (::) of 'a * 'a list\n\nLists."
    )
    assert docs["ocaml:Shapes.b"].text == "type b = string\n\nB."


def test_attributes_and_deprecation() -> None:
    docs = read(
        'val old : int -> int [@@ocaml.deprecated "Use new instead."]\n(** Old. *)\n\n'
        "val older : int [@@deprecated]\n(** Older. *)\n\n"
        "val tagged : int\n(** Tagged.\n    @deprecated use [x].\n    @author Someone *)\n\n"
        "val inline : int -> int [@@inline]\n(** Inlined. *)\n"
    )
    assert docs["ocaml:Shapes.old"].text == (
        "val old : int -> int\n\nOld.\n\nDeprecated: Use new instead."
    )
    assert docs["ocaml:Shapes.older"].text == "val older : int\n\nOlder.\n\nDeprecated."
    assert docs["ocaml:Shapes.tagged"].text == "val tagged : int\n\nTagged.\n\nDeprecated: use `x`."
    assert docs["ocaml:Shapes.inline"].meta["signature"] == "val inline : int -> int"


def test_tags() -> None:
    docs = read(
        "val f : int -> int -> int\n"
        "(** Adds.\n"
        "    @param a the first,\n      wrapped\n"
        "    @param b the second\n"
        "    @return the sum\n"
        "    @raise Overflow when too big\n"
        "    @raise Invalid_argument when negative\n"
        "    @see <https://example.com/add> the spec\n"
        "    @see 'add.ml' the code\n"
        '    @see "Arithmetic" a chapter\n'
        "    @before 4.10 it raised nothing\n"
        "    @since 4.08\n"
        "    @version 2\n    @canonical Foo.f\n    @inline *)\n"
    )
    assert docs["ocaml:Shapes.f"].text == (
        "val f : int -> int -> int\n\nAdds.\n\n"
        ":param a: the first, wrapped\n:param b: the second\n:returns: the sum\n\n"
        "Raises: `Overflow` when too big\nRaises: `Invalid_argument` when negative\n\n"
        "See also: <https://example.com/add> the spec\n"
        "See also: `add.ml` the code\n"
        "See also: Arithmetic a chapter\n\n"
        "Before 4.10: it raised nothing\n\n"
        "Since: 4.08"
    )


def doc_of(comment: str) -> str:
    """The Markdown a doc comment becomes, over a value."""
    text = read(f"val x : int\n(** {comment} *)\n")["ocaml:Shapes.x"].text
    return text.split("\n\n", 1)[1]


def test_code_spans_balance_their_brackets() -> None:
    assert doc_of("Use [f [x]] and [[]].") == "Use `f [x]` and `[]`."


def test_code_blocks_become_fenced() -> None:
    assert doc_of("For example:\n    {[\n      let x = 1\n      let y = x\n    ]}\n    Done.") == (
        "For example:\n\n```ocaml\nlet x = 1\nlet y = x\n```\n\nDone."
    )
    assert doc_of("{@ocaml[\n  f x\n]}") == "```ocaml\nf x\n```"
    assert doc_of("{@sh[\n  ls -l\n]}") == "```sh\nls -l\n```"
    assert doc_of("{v\n  raw [text] {b x}\n v}") == "```\nraw [text] {b x}\n```"


def test_styles_and_references() -> None:
    assert doc_of("{b bold} {i it} {e em} {em also}") == "**bold** *it* *em* *also*"
    assert doc_of("See {!M.name}, {!val:M.f}, {!type:t} and {!module-M}.") == (
        "See `M.name`, `M.f`, `t` and `M`."
    )
    assert doc_of("See {{!M.name} the name}.") == "See the name."
    assert doc_of("Read {{:https://x.org} the site} or {:https://y.org}.") == (
        "Read [the site](https://x.org) or https://y.org."
    )
    assert doc_of("Escaped \\{ \\} \\[ \\] \\@ marks.") == "Escaped { } [ ] @ marks."
    assert doc_of("Drop {%html: <br/> %}this.") == "Drop this."


def test_lists_and_headings() -> None:
    assert doc_of("Either:\n{ul {- one [x]}\n {- two}}") == "Either:\n\n- one `x`\n- two"
    assert doc_of("Steps: {ol {li first} {li second}}") == "Steps:\n1. first\n2. second"
    assert doc_of("Intro.\n\n{2 Details}\nMore.") == "Intro.\n\n## Details\n\nMore."
    assert doc_of("A.\n\n  - light item\n  - another") == "A.\n\n- light item\n- another"


def test_classes_and_methods() -> None:
    docs = read(
        "class counter : int -> object\n"
        "  method get : int\n  (** The count. *)\n\n"
        "  method incr : unit -> unit\n  (** Adds one. *)\n"
        "end\n(** A counter. *)\n\n"
        "class type printer = object\n  method print : string -> unit (** Prints. *)\nend\n"
    )
    assert sorted(docs) == [
        "ocaml:Shapes.counter",
        "ocaml:Shapes.counter#get",
        "ocaml:Shapes.counter#incr",
        "ocaml:Shapes.printer#print",
    ]
    assert docs["ocaml:Shapes.counter"].text == (
        "class counter : int -> object ... end\n\nA counter."
    )
    assert docs["ocaml:Shapes.counter"].meta["kind"] == "class"
    assert docs["ocaml:Shapes.counter#incr"].text == "method incr : unit -> unit\n\nAdds one."
    assert docs["ocaml:Shapes.counter#incr"].meta["kind"] == "method"


def test_includes_opens_and_a_name_documented_twice() -> None:
    docs = read(
        "include Stdlib.S\n(** Not an item of ours. *)\n\nopen Foo\n\n"
        "val x : int\n(** First. *)\n\nval x : int\n(** Second. *)\n"
    )
    assert sorted(docs) == ["ocaml:Shapes.x"]
    assert docs["ocaml:Shapes.x"].text == "val x : int\n\nFirst."


IMPL = """\
(** An implementation. *)

let helper = 1

(** Adds one. *)
let incr x =
  let y = x + 1 in
  y

let apply = fun f -> f
(** Applies. *)

(** The answer. *)
let answer : int = 42

type t = A | B
(** A type. *)

module Inner = struct
  (** Inner value. *)
  let v = 2
end
"""


def test_an_implementation_is_read_when_it_has_no_interface() -> None:
    docs = read(IMPL, "impl.ml")
    assert sorted(docs) == [
        "ocaml:Impl",
        "ocaml:Impl.Inner.v",
        "ocaml:Impl.answer",
        "ocaml:Impl.apply",
        "ocaml:Impl.incr",
        "ocaml:Impl.t",
    ]
    assert docs["ocaml:Impl.incr"].text == "let incr x\n\nAdds one."
    assert docs["ocaml:Impl.incr"].meta["kind"] == "function"
    assert docs["ocaml:Impl.apply"].meta["kind"] == "function"
    assert docs["ocaml:Impl.answer"].text == "let answer\n\nThe answer."
    assert docs["ocaml:Impl.answer"].meta["kind"] == "value"
    files = [
        SourceFile(P("impl.ml"), "ml", IMPL),
        SourceFile(P("impl.mli"), "mli", "val incr : int -> int\n(** From the interface. *)\n"),
    ]
    rejects = CollectResult()
    both = {d.uri: d for d in api_documents(files, "local", rejects)}
    assert sorted(both) == ["ocaml:Impl.incr"]
    assert both["ocaml:Impl.incr"].meta["origin"] == "mli"
    assert rejects.rejects == {}  # the .ml left out, not counted


def test_tests_and_files_without_docs_are_counted() -> None:
    assert is_ocaml("list.mli") and is_ocaml("list.ml") and is_ocaml("A.MLI")
    assert not is_ocaml("dune") and not is_ocaml("x.mll")
    assert SUFFIXES == (".mli",) and URI_PREFIX == "ocaml:"
    assert FIXES[OCAML_TEST].endswith("the source's ocaml: text reads them as text")
    assert FIXES[OCAML_NO_API] == FIXES[OCAML_TEST]
    assert is_test(P("test/shapes.mli")) and is_test(P("src/tests/x.ml"))
    assert is_test(P("test_shapes.mli")) and is_test(P("shapes_test.ml"))
    assert is_test(P("lib/shapes_tests.mli"))
    assert not is_test(P("lib/testing.mli")) and not is_test(P("lib/contest.mli"))
    files = [
        SourceFile(P("test/shapes.mli"), "t", SHAPES),
        SourceFile(P("src/shapes_test.mli"), "u", SHAPES),
        SourceFile(P("src/plain.mli"), "p", "(* a plain comment *)\nval x : int\n"),
        SourceFile(P("src/shapes.mli"), "q", SHAPES),
    ]
    rejects = CollectResult()
    docs = api_documents(files, "local", rejects)
    assert len(docs) == 7
    assert rejects.rejects == {OCAML_TEST: 2, OCAML_NO_API: 1}
    assert rejects.samples[OCAML_NO_API] == ["p"]


def test_malformed_ocaml_never_raises() -> None:
    for text in [
        "(** doc *)\nval",
        '(** doc *)\nexternal f : int = "unterminated\nval g : int',
        "(** unterminated doc",
        "(* unterminated (* nested *)\nval x : int",
        "module M : sig\n(** doc *)\nval x : int\n",
        "end end ) ] } (** doc *)\nval x : int",
        "type t = | (** doc *)\n| (** doc *)",
        "type t = { (** doc *)",
        "(** {ul {- unclosed *)\nval x : int",
        "(** [unclosed {b x *)\nval x : int",
        "(** @param\n@raise\n@see\n@before *)\nval x : int",
        "class c : object method",
        "val ( : int\n(** doc *)",
        "",
    ]:
        for doc in read(text).values():
            assert doc.uri.startswith("ocaml:") and doc.text


def test_a_dune_project_is_read_by_init_and_its_questions_read_the_declaration(
    tmp_path: Path,
) -> None:
    from apitree import ask, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig
    from jupiter.config.cli import source_entry

    mli = (
        "(** Rings of fixed size. *)\n\n"
        "type 'a t\n(** A ring holding values of type ['a]. *)\n\n"
        "val push : 'a t -> 'a -> unit\n"
        "(** [push r x] adds [x] to [r], dropping its oldest value when full.\n"
        "    @raise Invalid_argument if [r] has size 0. *)\n"
    )
    write_tree(
        tmp_path / "ring",
        {"dune-project": "(lang dune 3.0)\n", "src/ring.mli": mli, "src/ring.ml": "let x = 1\n"},
    )
    entry = source_entry(str(tmp_path / "ring"))
    assert "*.mli" in entry["include"]  # type: ignore[operator]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    assert sorted(docs) == ["ocaml:Ring", "ocaml:Ring.push", "ocaml:Ring.t"]
    push = docs["ocaml:Ring.push"]
    assert push.meta["language"] == "ocaml"
    asked = ask(push)
    assert asked["signature"] == "`val push : 'a t -> 'a -> unit`"
    assert asked["what_does"] == "`push r x` adds `x` to `r`, dropping its oldest value when full."
    assert ask(docs["ocaml:Ring"], ["what_does"]) == {"what_does": "Rings of fixed size."}
