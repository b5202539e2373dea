"""GraphQL schemas read as their API's reference, as GraphiQL's documentation explorer
shows it: SDL files lexed and parsed here, introspection results read as the same schema,
each described type, field, input field, enum value and directive a document named by its
schema (`graphql:shop:Query.products`)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from pathlib import PurePosixPath as P
from typing import Any

from apitree import fuzzed
from jupiter.collect import CollectResult
from jupiter.collect.graphqlapi import (
    FIXES,
    GRAPHQL_BAD,
    GRAPHQL_NO_API,
    GRAPHQL_OPERATIONS,
    URI_PREFIX,
    api_documents,
    block_value,
    first_sentence,
    is_introspection,
    is_sdl,
    schema_name,
)
from jupiter.collect.result import SourceFile
from jupiter.records import Document

SHOP = '''\
"""
The shop's API.
"""
schema @link(url: "x") {
  query: Query
  mutation: Mutation
}

"""Caches a field's result."""
directive @cacheControl(
  "Seconds to keep it."
  maxAge: Int
  scope: CacheScope = PUBLIC
) repeatable on FIELD_DEFINITION | OBJECT

directive @internal on FIELD_DEFINITION

"An ISO-8601 date and time."
scalar DateTime @specifiedBy(url: "https://tools.ietf.org/html/rfc3339")

scalar JSON

enum CacheScope { PUBLIC PRIVATE }

"""
Something with an id.
"""
interface Node {
  "The id."
  id: ID!
}

"""A product for sale. Sold by the shop."""
type Product implements Node & Priced @cacheControl(maxAge: 60) {
  id: ID!
  "The title, e.g. a name. Short."
  title: String! @internal
  price: Money
  "Old price."
  oldPrice: Money @deprecated(reason: "Use `price`.")
  """
  The variants, first ones first.

      code kept
  """
  variants(
    "How many."
    first: Int = 10
    after: String
    "Sort order."
    sort: [SortKey!] = [TITLE, PRICE]
    filter: Filter = {min: 1, tags: ["a", "b"], nested: {on: true}}
  ): [Variant!]! @cacheControl(maxAge: 5)
}

interface Priced {
  price: Money
}

type Variant implements Node {
  id: ID!
  legacy: String @deprecated
}

"An amount of money."
type Money {
  amount: Float!
}

"What a search finds."
union SearchResult @internal = | Product | Variant

"The keys to sort by."
enum SortKey {
  "By title."
  TITLE
  PRICE
  "Oldest first."
  OLD @deprecated(reason: "Gone.")
}

"A filter."
input Filter @oneOf {
  "The lowest price."
  min: Int = 0
  tags: [String!]
  nested: Nested
}

input Nested {
  on: Boolean
}

type Query {
  "Finds products."
  products(
    "The search terms."
    query: String!
    first: Int
  ): [Product!]!
  node(id: ID!): Node
  search: [SearchResult!]!
}

type Mutation {
  """Makes a product."""
  createProduct(title: String!): Product
}
'''


def read(
    tree: dict[str, str], rejects: CollectResult | None = None, top: str = "proj"
) -> dict[str, Document]:
    files = [SourceFile(P(rel), f"/src/{rel}", text) for rel, text in tree.items()]
    return {d.uri: d for d in api_documents(files, "local", rejects, top)}


def test_a_schema_becomes_its_described_items() -> None:
    docs = read({"api/shop.graphql": SHOP})
    assert sorted(docs) == [
        "graphql:shop",
        "graphql:shop:@cacheControl",
        "graphql:shop:DateTime",
        "graphql:shop:Filter",
        "graphql:shop:Filter.min",
        "graphql:shop:Money",
        "graphql:shop:Mutation",
        "graphql:shop:Mutation.createProduct",
        "graphql:shop:Node",
        "graphql:shop:Node.id",
        "graphql:shop:Product",
        "graphql:shop:Product.oldPrice",
        "graphql:shop:Product.title",
        "graphql:shop:Product.variants",
        "graphql:shop:Query",
        "graphql:shop:Query.products",
        "graphql:shop:SearchResult",
        "graphql:shop:SortKey",
        "graphql:shop:SortKey.OLD",
        "graphql:shop:SortKey.TITLE",
    ]
    kinds = {uri.removeprefix("graphql:shop"): d.meta["kind"] for uri, d in docs.items()}
    assert kinds == {
        "": "schema",
        ":@cacheControl": "directive",
        ":DateTime": "scalar",
        ":Filter": "input",
        ":Filter.min": "input field",
        ":Money": "object",
        ":Mutation": "object",
        ":Mutation.createProduct": "field",
        ":Node": "interface",
        ":Node.id": "field",
        ":Product": "object",
        ":Product.oldPrice": "field",
        ":Product.title": "field",
        ":Product.variants": "field",
        ":Query": "object",
        ":Query.products": "field",
        ":SearchResult": "union",
        ":SortKey": "enum",
        ":SortKey.OLD": "enum value",
        ":SortKey.TITLE": "enum value",
    }
    product = docs["graphql:shop:Product"]
    assert product.title == "shop:Product" and product.meta["qualname"] == "shop:Product"
    assert product.meta["language"] == "graphql" and product.meta["line"] == 34
    assert product.meta["origin"] == "/src/api/shop.graphql"
    assert product.meta["signature"] == "type Product implements Node & Priced"
    assert URI_PREFIX == "graphql:"


def test_a_field_shows_its_arguments_defaults_and_what_it_returns() -> None:
    docs = read({"shop.graphql": SHOP})
    variants = docs["graphql:shop:Product.variants"]
    head = (
        "variants(first: Int = 10, after: String, sort: [SortKey!] = [TITLE, PRICE], "
        'filter: Filter = {min: 1, tags: ["a", "b"], nested: {on: true}}): [Variant!]!'
    )
    assert variants.meta["signature"] == head
    assert variants.meta["line"] == 46
    assert variants.text == (
        f"{head}\n\n"
        "The variants, first ones first.\n\n    code kept\n\n"
        ":param first: (Int) How many.\n"
        ":param sort: ([SortKey!]) Sort order.\n"
        ":returns: Variant"
    )
    products = docs["graphql:shop:Query.products"]
    assert products.text == (
        "products(query: String!, first: Int): [Product!]!\n\n"
        "Finds products.\n\n"
        ":param query: (String!) The search terms.\n"
        ":returns: Product - A product for sale."
    )
    # a built-in type says nothing more; applied directives are dropped from the line
    assert docs["graphql:shop:Product.title"].text == (
        "title: String!\n\nThe title, e.g. a name. Short."
    )


def test_deprecation_is_read_from_the_directive() -> None:
    docs = read({"shop.graphql": SHOP})
    assert docs["graphql:shop:Product.oldPrice"].text == (
        "oldPrice: Money\n\nOld price.\n\n"
        ":returns: Money - An amount of money.\n\n"
        "Deprecated: Use `price`."
    )
    assert (
        docs["graphql:shop:SortKey.OLD"].text == "SortKey.OLD\n\nOldest first.\n\nDeprecated: Gone."
    )
    # a bare @deprecated: the spec's default reason, in its parent's list
    bare = read({"s.graphql": '"A."\ntype A {\n  "x"\n  x: Int @deprecated\n}\n'})
    assert bare["graphql:s:A.x"].text == "x: Int\n\nx\n\nDeprecated: No longer supported"
    assert bare["graphql:s:A"].text == "type A\n\nA.\n\nFields:\n- `x` (deprecated): `Int` - x"


def test_an_object_lists_its_fields_interfaces_and_unions() -> None:
    docs = read({"shop.graphql": SHOP})
    assert docs["graphql:shop:Product"].text == (
        "type Product implements Node & Priced\n\n"
        "A product for sale. Sold by the shop.\n\n"
        "Implements: `Node`, `Priced`\n\n"
        "Member of: `SearchResult`\n\n"
        "Fields:\n"
        "- `id`: `ID!`\n"
        "- `title`: `String!` - The title, e.g. a name.\n"
        "- `price`: `Money`\n"
        "- `oldPrice` (deprecated): `Money` - Old price.\n"
        "- `variants(…)`: `[Variant!]!` - The variants, first ones first."
    )
    # a type with nothing described, and none of its fields: no document
    assert "graphql:shop:Variant" not in docs and "graphql:shop:Priced" not in docs


def test_an_interface_lists_its_implementers() -> None:
    docs = read({"shop.graphql": SHOP})
    assert docs["graphql:shop:Node"].text == (
        "interface Node\n\n"
        "Something with an id.\n\n"
        "Fields:\n- `id`: `ID!` - The id.\n\n"
        "Implemented by:\n- `Product`: A product for sale.\n- `Variant`"
    )
    assert docs["graphql:shop:Node.id"].text == "id: ID!\n\nThe id."


def test_enums_unions_inputs_scalars_directives_and_the_schema() -> None:
    docs = read({"shop.graphql": SHOP})
    assert docs["graphql:shop:SortKey"].text == (
        "enum SortKey\n\nThe keys to sort by.\n\n"
        "Values:\n- `TITLE`: By title.\n- `PRICE`\n- `OLD` (deprecated): Oldest first."
    )
    assert docs["graphql:shop:SortKey.TITLE"].meta["signature"] == "SortKey.TITLE"
    assert docs["graphql:shop:SearchResult"].text == (
        "union SearchResult = Product | Variant\n\nWhat a search finds.\n\n"
        "Members:\n- `Product`: A product for sale.\n- `Variant`"
    )
    assert docs["graphql:shop:Filter"].text == (
        "input Filter\n\nA filter.\n\nExactly one of its fields must be set.\n\n"
        "Fields:\n- `min`: `Int = 0` - The lowest price.\n- `tags`: `[String!]`\n"
        "- `nested`: `Nested`"
    )
    assert docs["graphql:shop:Filter.min"].text == "min: Int = 0\n\nThe lowest price."
    assert docs["graphql:shop:Filter.min"].meta["signature"] == "min: Int = 0"
    assert docs["graphql:shop:DateTime"].text == (
        "scalar DateTime\n\nAn ISO-8601 date and time.\n\n"
        "Specified by: https://tools.ietf.org/html/rfc3339"
    )
    assert "graphql:shop:JSON" not in docs and "graphql:shop:CacheScope" not in docs
    assert docs["graphql:shop:@cacheControl"].text == (
        "directive @cacheControl(maxAge: Int, scope: CacheScope = PUBLIC) repeatable on "
        "FIELD_DEFINITION | OBJECT\n\nCaches a field's result.\n\n:param maxAge: (Int) Seconds "
        "to keep it."
    )
    assert "graphql:shop:@internal" not in docs
    schema = docs["graphql:shop"]
    assert schema.text == (
        "schema { query: Query, mutation: Mutation }\n\nThe shop's API.\n\nRoot types:\n"
        "- query: `Query`\n- mutation: `Mutation`"
    )
    assert schema.meta["line"] == 4 and schema.title == "shop"


def test_root_types_by_their_default_names() -> None:
    docs = read({"s.graphql": 'type Query { "Hi." hello: String }\n'})
    assert docs["graphql:s"].text == "schema { query: Query }\n\nRoot types:\n- query: `Query`"
    assert docs["graphql:s"].meta["signature"] == "schema { query: Query }"
    assert docs["graphql:s:Query.hello"].text == "hello: String\n\nHi."


def test_builtins_give_no_document() -> None:
    text = (
        '"Mine."\nscalar ID\n"Mine too."\ntype __Type { "x" x: Int }\n'
        '"Skips."\ndirective @skip(if: Boolean!) on FIELD\n'
        '"Marks."\ndirective @deprecated(reason: String) on FIELD_DEFINITION\n'
    )
    assert read({"s.graphql": text}) == {}


def test_block_strings_are_dedented_by_the_spec_rule() -> None:
    assert block_value("\n    Hello,\n      World!\n\n    Yours,\n      GraphQL.\n  ") == (
        "Hello,\n  World!\n\nYours,\n  GraphQL."
    )
    assert block_value("  first kept\n\t\tsecond\n\t\t  third") == "  first kept\nsecond\n  third"
    assert block_value("\n \n  \n") == ""
    text = '"""\n      Odd\n    indent \\""" quoted\n        deeper\n"""\ntype T { a: Int }\n'
    docs = read({"s.graphql": text})
    assert docs["graphql:s:T"].text == (
        'type T\n\n  Odd\nindent """ quoted\n    deeper\n\nFields:\n- `a`: `Int`'
    )


def test_string_escapes_are_read() -> None:
    text = '"Tab\\there, \\u00e9, \\u{1F600}, \\uD83D\\uDE00, \\"q\\" \\\\ \\/"\nscalar S\n'
    assert read({"s.graphql": text})["graphql:s:S"].text == (
        'scalar S\n\nTab\there, é, \U0001f600, \U0001f600, "q" \\ /'
    )


def test_hash_comments_describe_when_a_file_has_no_string_descriptions() -> None:
    text = (
        "# License: MIT\n\n"
        "# A user of the app.\n#   Indented line.\ntype User {\n"
        "  # The user's name.\n  name: String # trailing, not a doc\n"
        "  age: Int\n}\n"
        "enum Role {\n  # Can do all.\n  ADMIN\n}\n"
    )
    docs = read({"s.graphql": text})
    assert sorted(docs) == [
        "graphql:s:Role",
        "graphql:s:Role.ADMIN",
        "graphql:s:User",
        "graphql:s:User.name",
    ]
    assert docs["graphql:s:User"].text == (
        "type User\n\nA user of the app.\n  Indented line.\n\n"
        "Fields:\n- `name`: `String` - The user's name.\n- `age`: `Int`"
    )
    assert docs["graphql:s:Role.ADMIN"].text == "Role.ADMIN\n\nCan do all."
    # one string description in the file: comments are comments
    mixed = read({"s.graphql": text + '"Said."\nscalar Date\n'})
    assert sorted(mixed) == ["graphql:s:Date"]


def test_extensions_and_a_folder_of_files_are_one_schema() -> None:
    tree = {
        "api/a_ext.graphql": (
            'extend type Query {\n  "Orders."\n  orders: [Order]\n}\n'
            "extend enum Status { DONE }\n"
            "extend union Thing = Order\n"
            "extend input Page { size: Int = 20 }\n"
            "extend schema { mutation: M }\n"
        ),
        "api/b_types.graphql": (
            '"Root."\ntype Query { "Ping." ping: Boolean }\n'
            '"An order."\ntype Order implements Node { id: ID! }\n'
            'extend type Order implements Dated @key(fields: "id") { "When." at: String }\n'
            '"Statuses."\nenum Status { "New." NEW }\n'
            '"Things."\nunion Thing = Query\n'
            '"Paging."\ninput Page { "Offset." offset: Int }\n'
            "type M { x: Int }\n"
        ),
    }
    docs = read(tree)
    assert sorted(docs) == [
        "graphql:api",
        "graphql:api:Order",
        "graphql:api:Order.at",
        "graphql:api:Page",
        "graphql:api:Page.offset",
        "graphql:api:Query",
        "graphql:api:Query.orders",
        "graphql:api:Query.ping",
        "graphql:api:Status",
        "graphql:api:Status.NEW",
        "graphql:api:Thing",
    ]
    # the definition's fields first, then the extension's, whichever file came first
    query = docs["graphql:api:Query"]
    assert query.text == (
        "type Query\n\nRoot.\n\nMember of: `Thing`\n\nFields:\n"
        "- `ping`: `Boolean` - Ping.\n- `orders`: `[Order]` - Orders."
    )
    assert query.meta["origin"] == "/src/api/b_types.graphql" and query.meta["line"] == 2
    assert docs["graphql:api:Query.orders"].meta["origin"] == "/src/api/a_ext.graphql"
    assert docs["graphql:api:Query.orders"].meta["line"] == 3
    assert docs["graphql:api:Order"].meta["signature"] == "type Order implements Node & Dated"
    assert docs["graphql:api:Status"].text.endswith("Values:\n- `NEW`: New.\n- `DONE`")
    assert docs["graphql:api:Thing"].text.split("\n")[0] == "union Thing = Query | Order"
    assert docs["graphql:api:Page"].text.endswith(
        "- `offset`: `Int` - Offset.\n- `size`: `Int = 20`"
    )
    assert docs["graphql:api"].text.split("\n")[0] == "schema { mutation: M }"


def test_schema_names() -> None:
    assert schema_name(P("gh/github.graphql")) == "github"
    assert schema_name(P("shop/schema.graphql")) == "shop"
    assert schema_name(P("shop/schema.json")) == "shop"
    assert schema_name(P("storefront.introspection.json")) == "storefront"
    assert schema_name(P("schema.graphqls"), "proj") == "proj"
    assert schema_name(P("schema.gql")) == "schema"
    two = {"a.graphql": '"A."\nscalar A\n', "b.graphql": '"B."\nscalar B\n'}
    assert sorted(read(two, top="myapi")) == ["graphql:myapi:A", "graphql:myapi:B"]
    assert is_sdl("x.GRAPHQL") and is_sdl("x.graphqls") and is_sdl("x.gql")
    assert not is_sdl("x.json")


def test_operations_and_broken_files_are_counted() -> None:
    rejects = CollectResult()
    tree = {
        "q/ops.graphql": (
            "query Get($id: ID = 1, $f: In = {a: {b: 1}}) @cached { node(id: $id) { id } }\n"
            "fragment F on Product { title ...G }\nmutation { x }\n{ y }\n"
        ),
        "q/bad.graphql": '"A."\ntype A { x: Int\n',
        "q/bad2.graphql": '"Unterminated.\ntype A { x: Int }\n',
        "q/good.graphql": '"B."\ntype B { x: Int }\nquery { b { x } }\n',
        "r/none.graphql": "type C { x: Int }\n",
    }
    docs = read(tree, rejects)
    assert sorted(docs) == ["graphql:good:B"]
    assert rejects.rejects == {GRAPHQL_OPERATIONS: 1, GRAPHQL_BAD: 2, GRAPHQL_NO_API: 1}
    assert rejects.samples[GRAPHQL_OPERATIONS] == ["/src/q/ops.graphql"]
    assert rejects.samples[GRAPHQL_NO_API] == ["/src/r/none.graphql"]
    assert set(FIXES) == {GRAPHQL_OPERATIONS, GRAPHQL_BAD, GRAPHQL_NO_API}
    assert all("graphql: text" in fix for fix in FIXES.values())


def test_lexing_errors_are_bad_files() -> None:
    for text in [
        "type A { x: Int } ?",
        "type A { x: Int = 012 }",
        "type A { x: Int = 1.e }",
        "type A { x: Int = 1x }",
        '"bad \\q escape"\ntype A { x: Int }',
        '"""never closed\ntype A { x: Int }',
        "enum E { true }",
        "extend directive @x on FIELD",
        "type A implements { x: Int }",
        "[" * 5000,
        "type A { x(y: Int = " + "[" * 5000 + "): Int }",
    ]:
        rejects = CollectResult()
        assert read({"s.graphql": text}, rejects) == {}, text
        assert rejects.rejects == {GRAPHQL_BAD: 1}, text


def test_numbers_commas_and_old_implements_lists() -> None:
    text = (
        '"T."\ntype T implements A, B, {\n'
        '  f(a: Float = -1.5e3, b: Int = 0, c: [Int] = [1,2,,3], d: String = ""): Int,\n}\n'
        "type U implements & A\n"
        '"V."\ntype V\n'
    )
    docs = read({"s.graphql": text})
    assert docs["graphql:s:T"].meta["signature"] == "type T implements A & B"
    assert docs["graphql:s:T"].text.endswith("- `f(…)`: `Int`")
    assert docs["graphql:s:V"].text == "type V\n\nV."
    assert "graphql:s:U" not in docs


def test_fuzzed_token_sequences_never_raise() -> None:
    pieces = [
        '"S." scalar S\n', '"T." type T implements S { "f" f(a: [Int] = [1]): T }\n',
        '"E." enum E { "V" V }\n', 'extend type T { "g" g: Int }\n', "query { a }\n",
        "type ", "input ", "enum ", "union ", "interface ", "scalar ", "schema ", "extend ",
        "directive ", "query ", "fragment ", "on ", "implements ", "repeatable ", "A ", "x ",
        "Int", "{", "}", "(", ")", "[", "]", ":", "!", "=", "|", "&", "@", "$", "...", ",",
        '"d" ', '"""\n  b\n""" ', '"', '"""', "# c\n", "\n", "1", "-2.5e1", "true", "\\",
    ]  # fmt: skip

    def reader(text: str) -> list[Document]:
        return api_documents([SourceFile(P("s.graphql"), "s", text)], "local", CollectResult())

    assert fuzzed(reader, pieces, "graphql:s") > 0


# ----------------------------------------------------------------------------- introspection
def named(name: str, kind: str = "OBJECT") -> dict[str, Any]:
    return {"kind": kind, "name": name, "ofType": None}


def wrap(kind: str, inner: dict[str, Any]) -> dict[str, Any]:
    return {"kind": kind, "name": None, "ofType": inner}


def arg(name: str, typ: dict[str, Any], desc: str | None = None, default: str | None = None) -> Any:
    return {"name": name, "description": desc, "type": typ, "defaultValue": default}


def fld(name: str, typ: dict[str, Any], desc: str | None = None, **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": desc,
        "args": more.get("args", []),
        "type": typ,
        "isDeprecated": "reason" in more,
        "deprecationReason": more.get("reason"),
    }


INTROSPECTION = {
    "data": {
        "__schema": {
            "description": "The shop's API.",
            "queryType": {"name": "Query"},
            "mutationType": None,
            "subscriptionType": None,
            "types": [
                {
                    "kind": "OBJECT",
                    "name": "Query",
                    "description": None,
                    "fields": [
                        fld(
                            "products",
                            wrap("NON_NULL", wrap("LIST", wrap("NON_NULL", named("Product")))),
                            "Finds products.\n",
                            args=[
                                arg(
                                    "query",
                                    wrap("NON_NULL", named("String", "SCALAR")),
                                    "The search terms.",
                                ),
                                arg("sort", named("SortKey", "ENUM"), None, "[TITLE,PRICE]"),
                                arg(
                                    "filter",
                                    named("Filter", "INPUT_OBJECT"),
                                    None,
                                    '{min:1,tags:["a"]}',
                                ),
                            ],
                        ),
                    ],
                    "interfaces": [],
                },
                {
                    "kind": "OBJECT",
                    "name": "Product",
                    "description": "A product for sale. Sold by the shop.",
                    "fields": [
                        fld("id", wrap("NON_NULL", named("ID", "SCALAR"))),
                        fld(
                            "oldPrice",
                            named("Float", "SCALAR"),
                            "Old price.",
                            reason="Use `price`.",
                        ),
                        fld("legacy", named("Float", "SCALAR"), reason=None),
                    ],
                    "interfaces": [named("Node", "INTERFACE")],
                },
                {
                    "kind": "INTERFACE",
                    "name": "Node",
                    "description": "Something with an id.",
                    "fields": [fld("id", wrap("NON_NULL", named("ID", "SCALAR")), "The id.")],
                    "interfaces": [],
                    "possibleTypes": [named("Product")],
                },
                {
                    "kind": "ENUM",
                    "name": "SortKey",
                    "description": "The keys to sort by.",
                    "enumValues": [
                        {"name": "TITLE", "description": "By title.", "isDeprecated": False},
                        {"name": "PRICE", "description": None, "isDeprecated": False},
                        {
                            "name": "OLD",
                            "description": "Oldest first.",
                            "isDeprecated": True,
                            "deprecationReason": "Gone.",
                        },
                    ],
                },
                {
                    "kind": "INPUT_OBJECT",
                    "name": "Filter",
                    "description": "A filter.",
                    "isOneOf": True,
                    "inputFields": [
                        arg("min", named("Int", "SCALAR"), "The lowest price.", "0"),
                        arg("tags", wrap("LIST", wrap("NON_NULL", named("String", "SCALAR")))),
                    ],
                },
                {
                    "kind": "UNION",
                    "name": "Hit",
                    "description": "A hit.",
                    "possibleTypes": [named("Product")],
                },
                {
                    "kind": "SCALAR",
                    "name": "DateTime",
                    "description": "A time.",
                    "specifiedByURL": "https://x",
                },
                {"kind": "SCALAR", "name": "String", "description": "Built in."},
                {
                    "kind": "OBJECT",
                    "name": "__Type",
                    "description": "Introspection's.",
                    "fields": [],
                },
            ],
            "directives": [
                {
                    "name": "cacheControl",
                    "description": "Caches a field's result.",
                    "locations": ["FIELD_DEFINITION", "OBJECT"],
                    "isRepeatable": True,
                    "args": [arg("maxAge", named("Int", "SCALAR"), "Seconds to keep it.")],
                },
                {"name": "skip", "description": "Built in.", "locations": ["FIELD"], "args": []},
            ],
        }
    }
}

SAME_AS_SDL = """\
"The shop's API."
schema { query: Query }
type Query {
  "Finds products.\\n"
  products("The search terms." query: String!, sort: SortKey = [TITLE, PRICE],
    filter: Filter = {min: 1, tags: ["a"]}): [Product!]!
}
"A product for sale. Sold by the shop."
type Product implements Node {
  id: ID!
  "Old price." oldPrice: Float @deprecated(reason: "Use `price`.")
  legacy: Float @deprecated
}
"Something with an id."
interface Node { "The id." id: ID! }
"The keys to sort by."
enum SortKey { "By title." TITLE PRICE "Oldest first." OLD @deprecated(reason: "Gone.") }
"A filter."
input Filter @oneOf { "The lowest price." min: Int = 0 tags: [String!] }
"A hit."
union Hit = Product
"A time."
scalar DateTime @specifiedBy(url: "https://x")
"Caches a field's result."
directive @cacheControl("Seconds to keep it." maxAge: Int) repeatable on FIELD_DEFINITION | OBJECT
"""


def test_an_introspection_result_reads_as_its_sdl_does() -> None:
    assert is_introspection(INTROSPECTION) and is_introspection(INTROSPECTION["data"])
    assert not is_introspection({"data": {"x": 1}}) and not is_introspection([1])
    from_json = read({"api/schema.json": json.dumps(INTROSPECTION)})
    from_sdl = read({"api/schema.graphql": SAME_AS_SDL})
    assert (
        sorted(from_json)
        == sorted(from_sdl)
        == [
            "graphql:api",
            "graphql:api:@cacheControl",
            "graphql:api:DateTime",
            "graphql:api:Filter",
            "graphql:api:Filter.min",
            "graphql:api:Hit",
            "graphql:api:Node",
            "graphql:api:Node.id",
            "graphql:api:Product",
            "graphql:api:Product.oldPrice",
            "graphql:api:Query",
            "graphql:api:Query.products",
            "graphql:api:SortKey",
            "graphql:api:SortKey.OLD",
            "graphql:api:SortKey.TITLE",
        ]
    )
    for uri, doc in from_json.items():
        assert doc.text == from_sdl[uri].text, uri
        assert doc.meta["kind"] == from_sdl[uri].meta["kind"], uri
        assert doc.meta["line"] == 1
    assert from_json["graphql:api:Query.products"].text == (
        "products(query: String!, sort: SortKey = [TITLE, PRICE], filter: Filter = "
        '{min: 1, tags: ["a"]}): [Product!]!\n\n'
        "Finds products.\n\n:param query: (String!) The search terms.\n"
        ":returns: Product - A product for sale."
    )
    assert from_json["graphql:api:Product"].text.endswith(
        "- `oldPrice` (deprecated): `Float` - Old price.\n- `legacy` (deprecated): `Float`"
    )
    assert from_json["graphql:api"].text == (
        "schema { query: Query }\n\nThe shop's API.\n\nRoot types:\n- query: `Query`"
    )


def test_a_json_that_is_no_introspection_result_is_counted() -> None:
    rejects = CollectResult()
    tree = {
        "a.json": "{not json",
        "b.json": '{"data": {}}',
        "c.json": json.dumps({"__schema": {"types": []}}),
    }
    assert read(tree, rejects) == {}
    assert rejects.rejects == {GRAPHQL_BAD: 2, GRAPHQL_NO_API: 1}
    odd = {
        "__schema": {
            "types": [
                1,
                {
                    "kind": "OBJECT",
                    "name": "A",
                    "description": "A.",
                    "fields": [5, {"name": "x"}],
                    "interfaces": "no",
                },
            ],
            "directives": [None],
        }
    }
    assert read({"x.json": json.dumps(odd)})["graphql:x:A"].text == "type A\n\nA."


def test_first_sentences() -> None:
    assert first_sentence("One, e.g. this. Two.") == "One, e.g. this."
    assert first_sentence("A list.\nmore\n\nNext para.") == "A list.\nmore".replace("\n", " ")
    assert first_sentence("    code first") == ""
    assert first_sentence("x" * 300).endswith("…") and len(first_sentence("x" * 300)) == 200


def test_a_large_schema_reads_quickly() -> None:
    parts = [
        f'"""\nType {i}. It holds things.\n"""\ntype T{i} implements Node {{\n'
        f'  "The id."\n  id: ID!\n  "Items, first n."\n'
        f'  items(first: Int = 10, after: String, "Sort." sort: [K!] = [A, B]): [T{i}!]!\n}}\n'
        for i in range(2000)
    ]
    text = "".join(parts)
    assert len(text) > 250_000
    started = time.process_time()  # this process's CPU: other tests' load aside
    docs = read({"big.graphql": text})
    assert time.process_time() - started < 1.5
    # each type and its `items`; `id`, "The id." in every type, once
    assert len(docs) == 4001


def test_a_schema_is_read_by_default_an_introspection_where_an_include_says_and_asked(
    tmp_path: Path,
) -> None:
    from apitree import ask, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig

    sdl = (
        '"""A shelf of books."""\ntype Shelf {\n  "The books on it, newest first."\n'
        '  books(\n    "How many to give." first: Int = 10\n  ): [Book!]!\n}\n\n'
        '"A book."\ntype Book {\n  "Its title, as printed on its cover."\n  title: String!\n}\n'
    )
    intro = {
        "__schema": {
            "queryType": {"name": "Query"},
            "types": [
                {
                    "kind": "OBJECT",
                    "name": "Query",
                    "description": "The entry points.",
                    "fields": [
                        {
                            "name": "ping",
                            "description": "Answers pong, to check the server is up.",
                            "args": [],
                            "type": {"kind": "SCALAR", "name": "String", "ofType": None},
                            "isDeprecated": False,
                            "deprecationReason": None,
                        }
                    ],
                    "interfaces": [],
                }
            ],
            "directives": [],
        }
    }
    write_tree(tmp_path / "p", {"library.graphql": sdl, "ops.json": json.dumps(intro)})

    def read(**extra: object) -> dict[str, Document]:
        cfg = DomainConfig.model_validate(
            {"name": "t", "sources": [{"type": "local", "path": "p", **extra}]}
        )
        cfg.base_dir = tmp_path
        return {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]

    got = read()
    assert "graphql:library:Shelf.books" in got and not any("ops" in u for u in got)
    books = got["graphql:library:Shelf.books"]
    assert books.text.splitlines()[0] == "books(first: Int = 10): [Book!]!"
    asked = ask(books)
    assert asked["signature"] == "`books(first: Int = 10): [Book!]!`"
    assert asked["what_does"] == "The books on it, newest first."
    assert ask(got["graphql:library:Shelf"], ["signature"]) == {}  # a type: no signature
    with_json = read(include=["*.graphql", "*.json"])
    assert with_json["graphql:ops:Query.ping"].text.startswith("ping: String\n\nAnswers pong")
    # graphql: text reads both as text
    as_text = read(include=["*.graphql", "*.json"], graphql="text")
    assert not any(u.startswith("graphql:") for u in as_text) and len(as_text) == 2


def test_what_is_asked_about_fields_and_enum_values() -> None:
    """Found on the held-back schema: an enum value's `PackageType.DEBIAN` was asked as a
    "call signature", a field with no arguments as one too and "what does it return?"
    answered by its scalar type's description."""
    from apitree import ask

    sdl = (
        '"The state of a migration."\nenum MigrationState {\n  "Waiting to start." QUEUED\n}\n\n'
        '"A move of repositories."\ntype Migration {\n  "Where the move stands now."\n'
        "  state: MigrationState!\n"
        '  "Its name, as the owner gave it."\n  name: String\n'
        '  "The repositories moved so far, oldest first."\n'
        "  repositories(first: Int): [String!]!\n}\n"
    )
    docs = {
        d.uri: d for d in api_documents([SourceFile(P("m.graphql"), "m.graphql", sdl)], "local")
    }
    templates = ["signature", "returns"]
    assert ask(docs["graphql:m:MigrationState.QUEUED"], templates) == {}
    assert ask(docs["graphql:m:Migration.state"], templates) == {"signature": "`MigrationState!`"}
    assert ask(docs["graphql:m:Migration.name"], templates) == {}  # a bare `String`
    asked = ask(docs["graphql:m:Migration.repositories"], templates)
    assert asked["signature"] == "`repositories(first: Int): [String!]!`"


def test_inherited_fields_and_relay_plumbing_are_said_once() -> None:
    """Found on the held-back schema: a hundred audit entries each repeating an
    interface's `actorUrl`, thousands of "A list of edges." documents."""
    sdl = (
        '"An entry of the log."\ninterface Entry {\n  "The URL of the actor."\n  actorUrl: String\n}\n\n'
        '"A repository was renamed."\ntype RenameEntry implements Entry {\n'
        '  "The URL of the actor."\n  actorUrl: String\n  "The name before."\n  oldName: String\n}\n\n'
        '"The connection type for RenameEntry."\ntype RenameEntryConnection {\n'
        '  "A list of edges."\n  edges: [RenameEntry]\n  "Identifies the total count of items."\n'
        "  totalCount: Int!\n}\n"
    )
    docs = {
        d.uri: d for d in api_documents([SourceFile(P("log.graphql"), "log.graphql", sdl)], "local")
    }
    assert sorted(u.removeprefix("graphql:log:") for u in docs if u != "graphql:log") == [
        "Entry", "Entry.actorUrl", "RenameEntry", "RenameEntry.oldName", "RenameEntryConnection",
    ]  # fmt: skip
    assert "- `actorUrl`: `String` - The URL of the actor." in docs["graphql:log:RenameEntry"].text
    assert "- `edges`: `[RenameEntry]` - A list of edges." in (
        docs["graphql:log:RenameEntryConnection"].text
    )


def test_a_field_said_the_same_in_many_types_is_documented_once() -> None:
    """Found on the held-back schema: Relay's `clientMutationId`, "A unique identifier for
    the client performing the mutation.", on hundreds of inputs and payloads."""
    said = '"A unique identifier for the client performing the mutation."'
    sdl = (
        f'"Input of A."\ninput AInput {{\n  {said}\n  clientMutationId: String\n}}\n'
        f'"Input of B."\ninput BInput {{\n  {said}\n  clientMutationId: String\n'
        '  "Another thing."\n  clientMutationId2: String\n}\n'
        f'"Payload of A."\ntype APayload {{\n  {said}\n  clientMutationId: String\n}}\n'
        f'"Payload of B."\ntype BPayload {{\n  {said}\n  clientMutationId: String\n}}\n'
    )
    docs = read({"m.graphql": sdl})
    assert sorted(u for u in docs if "clientMutationId" in u) == [
        "graphql:m:AInput.clientMutationId",  # the first, an input's or a type's
        "graphql:m:BInput.clientMutationId2",
    ]
    assert "- `clientMutationId`: `String` - A unique identifier" in docs["graphql:m:BPayload"].text
