"""Protocol Buffers files read as their API, as protoc-gen-doc shows it: each documented
message, field, oneof, enum, value, service, rpc and extension a document named by its
package (`proto:shop.v1.Cart.items`), its text the declaration's line, its doc and, for a
message, enum or service, the list of its members."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import ask, collect_tree, fuzzed, write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import CollectResult
from jupiter.collect.local import collect_local
from jupiter.collect.protoapi import (
    FIXES,
    PROTO_NO_API,
    PROTO_TEMPLATE,
    PROTO_TEST,
    SUFFIXES,
    URI_PREFIX,
    ProtoFile,
    api_documents,
    first_sentence,
    is_proto,
    scan,
)
from jupiter.config import DomainConfig
from jupiter.records import Document

CART = r"""// Shop carts: what a customer is about to buy.
syntax = "proto3";

package shop.v1;

import "google/protobuf/timestamp.proto";

option java_package = "com.example.shop";

// A customer's cart.
//
// Holds the lines until checkout.
message Cart {
  // The cart's id, e.g. "c-42". Never empty.
  string id = 1;

  repeated Line lines = 2; // The lines, in the order added.

  // A section comment, parted from the field by a blank line.

  int32 version = 3;

  map<string, string> labels = 4;  // Free-form labels.

  // Where the cart is paid from.
  oneof payment {
    // A card's token.
    string card = 5;
    string voucher = 6;
  }

  // Old total, in cents.
  int64 total_cents = 7 [deprecated = true, json_name = "totalCents"];

  // One line of a cart.
  message Line {
    // The product's SKU.
    string sku = 1;
    // How many.
    uint32 quantity = 2;
  }

  // How a cart stands.
  enum State {
    // Not set.
    STATE_UNSPECIFIED = 0;
    OPEN = 1; // Still being filled.
    CLOSED = 2 [deprecated = true];
  }
}

/*
 * Manages carts.
 *
 * All methods need a signed-in customer.
 */
service CartService {
  // Gets one cart.
  rpc GetCart(GetCartRequest) returns (Cart);

  // Streams the cart's changes as they happen.
  rpc WatchCart(GetCartRequest) returns (stream Cart) {
    option idempotency_level = NO_SIDE_EFFECTS;
  }

  rpc Sync(stream Cart) returns (stream Cart) {}
}
"""


def read(text: str, rel: str = "proto/shop/v1/cart.proto") -> dict[str, Document]:
    return {d.uri: d for d in api_documents([ProtoFile(P(rel), rel, text)], "local")}


def test_a_file_becomes_its_documented_declarations() -> None:
    docs = read(CART)
    assert sorted(docs) == [
        "proto:shop.v1",
        "proto:shop.v1.Cart",
        "proto:shop.v1.Cart.Line",
        "proto:shop.v1.Cart.Line.quantity",
        "proto:shop.v1.Cart.Line.sku",
        "proto:shop.v1.Cart.State",
        "proto:shop.v1.Cart.State.OPEN",
        "proto:shop.v1.Cart.State.STATE_UNSPECIFIED",
        "proto:shop.v1.Cart.card",
        "proto:shop.v1.Cart.id",
        "proto:shop.v1.Cart.labels",
        "proto:shop.v1.Cart.lines",
        "proto:shop.v1.Cart.payment",
        "proto:shop.v1.Cart.total_cents",
        "proto:shop.v1.CartService",
        "proto:shop.v1.CartService.GetCart",
        "proto:shop.v1.CartService.WatchCart",
    ]
    cart = docs["proto:shop.v1.Cart"]
    assert cart.title == "shop.v1.Cart"
    assert cart.meta["kind"] == "message" and cart.meta["signature"] == ""
    assert cart.meta["language"] == "proto" and cart.meta["line"] == 13
    assert cart.meta["qualname"] == "shop.v1.Cart"
    assert cart.meta["origin"] == "proto/shop/v1/cart.proto"


def test_a_message_lists_all_its_fields() -> None:
    """Undocumented fields too, with their types as written (labels, maps), each with its
    doc's first sentence; nested messages' fields are theirs."""
    assert read(CART)["proto:shop.v1.Cart"].text == (
        "message Cart\n\n"
        "A customer's cart.\n\n"
        "Holds the lines until checkout.\n\n"
        "Fields:\n"
        '- id (string): The cart\'s id, e.g. "c-42".\n'
        "- lines (repeated Line): The lines, in the order added.\n"
        "- version (int32)\n"
        "- labels (map<string, string>): Free-form labels.\n"
        "- card (string): A card's token.\n"
        "- voucher (string)\n"
        "- total_cents (int64): Old total, in cents."
    )


def test_a_field_shows_its_declaration_line() -> None:
    docs = read(CART)
    field = docs["proto:shop.v1.Cart.id"]
    assert field.text == 'string id = 1;\n\nThe cart\'s id, e.g. "c-42". Never empty.'
    assert field.meta["kind"] == "field" and field.meta["signature"] == "string id = 1;"
    assert field.meta["line"] == 15


def test_leading_detached_and_trailing_comments() -> None:
    """A comment right over a field documents it; one a blank line parts from it
    documents nothing; one after the field on its line documents it."""
    docs = read(CART)
    assert "proto:shop.v1.Cart.version" not in docs
    assert docs["proto:shop.v1.Cart.lines"].text == (
        "repeated Line lines = 2;\n\nThe lines, in the order added."
    )
    value = docs["proto:shop.v1.Cart.State.OPEN"]
    assert value.text == "OPEN = 1;\n\nStill being filled."
    assert value.meta["kind"] == "value" and value.meta["signature"] == "OPEN = 1;"


def test_leading_comment_wins_over_trailing() -> None:
    text = "package p;\n// Over.\nmessage M {\n  // Over a.\n  int32 a = 1; // After.\n}\n"
    docs = read(text)
    assert sorted(docs) == ["proto:p.M", "proto:p.M.a"]
    assert docs["proto:p.M.a"].text == "int32 a = 1;\n\nOver a."
    assert docs["proto:p.M"].text == "message M\n\nOver.\n\nFields:\n- a (int32): Over a."


def test_a_trailing_comment_carries_on_at_its_column() -> None:
    text = (
        "package p;\n"
        "message M {\n"
        "  int32 a = 1;  // The a, which\n"
        "                // goes on here.\n"
        "  int32 b = 2;\n"
        "}\n"
    )
    docs = read(text)
    assert sorted(docs) == ["proto:p.M.a"]
    assert docs["proto:p.M.a"].text == "int32 a = 1;\n\nThe a, which\ngoes on here."


def test_a_message_documented_after_its_brace() -> None:
    docs = read("package p;\nmessage M { // A trailing doc.\n  int32 a = 1;\n}\n")
    assert docs["proto:p.M"].text == "message M\n\nA trailing doc.\n\nFields:\n- a (int32)"
    assert "proto:p.M.a" not in docs


def test_block_comments_lose_their_decoration() -> None:
    service = read(CART)["proto:shop.v1.CartService"]
    assert service.text == (
        "service CartService\n\n"
        "Manages carts.\n\n"
        "All methods need a signed-in customer.\n\n"
        "Methods:\n"
        "- GetCart(GetCartRequest) returns (Cart): Gets one cart.\n"
        "- WatchCart(GetCartRequest) returns (stream Cart): Streams the cart's changes as "
        "they happen.\n"
        "- Sync(stream Cart) returns (stream Cart)"
    )
    assert service.meta["kind"] == "service" and service.meta["line"] == 57
    text = (
        "package p;\n"
        "/** A doc block,\n"
        "  *   with an indented line, and\n"
        "  * a list:\n"
        "  *\n"
        "  * * first\n"
        "  */\n"
        "enum E {\n  /* Zero. */ ZERO = 0;\n}\n"
    )
    docs = read(text)
    assert docs["proto:p.E"].text == (
        "enum E\n\nA doc block,\n  with an indented line, and\na list:\n\n* first\n\n"
        "Values:\n- ZERO: Zero."
    )
    assert docs["proto:p.E.ZERO"].text == "ZERO = 0;\n\nZero."


def test_rpcs_keep_stream_and_drop_their_options() -> None:
    docs = read(CART)
    get = docs["proto:shop.v1.CartService.GetCart"]
    assert get.text == "rpc GetCart(GetCartRequest) returns (Cart);\n\nGets one cart."
    assert get.meta["kind"] == "rpc"
    assert get.meta["signature"] == "rpc GetCart(GetCartRequest) returns (Cart);"
    watch = docs["proto:shop.v1.CartService.WatchCart"]
    assert watch.text.split("\n")[0] == "rpc WatchCart(GetCartRequest) returns (stream Cart);"
    assert "proto:shop.v1.CartService.Sync" not in docs


def test_a_string_holds_no_comment_and_no_brace() -> None:
    text = (
        "package p;\n"
        "message M {\n"
        '  // The url, say "http://x/{id}".\n'
        '  string url = 1 [default = "http://example.com/{a}"];\n'
        "  // The b.\n"
        "  string b = 2 [default = 'it\\'s // not /* a comment'];\n"
        "}\n"
        "// After the message.\n"
        "enum After { A = 0; }\n"
    )
    docs = read(text)
    assert sorted(docs) == ["proto:p.After", "proto:p.M.b", "proto:p.M.url"]
    assert docs["proto:p.M.url"].text == 'string url = 1;\n\nThe url, say "http://x/{id}".'
    assert docs["proto:p.M.b"].text == "string b = 2;\n\nThe b."
    assert docs["proto:p.After"].text == "enum After\n\nAfter the message.\n\nValues:\n- A"


def test_oneof_and_map_fields() -> None:
    docs = read(CART)
    oneof = docs["proto:shop.v1.Cart.payment"]
    assert oneof.text == "oneof payment\n\nWhere the cart is paid from."
    assert oneof.meta["kind"] == "oneof" and oneof.meta["signature"] == ""
    assert docs["proto:shop.v1.Cart.card"].text == "string card = 5;\n\nA card's token."
    labels = docs["proto:shop.v1.Cart.labels"]
    assert labels.meta["signature"] == "map<string, string> labels = 4;"


def test_a_deprecated_field_says_so() -> None:
    docs = read(CART)
    assert docs["proto:shop.v1.Cart.total_cents"].text == (
        "int64 total_cents = 7;\n\nOld total, in cents.\n\nDeprecated."
    )
    docs = read("package p;\n// Old.\nmessage M {\n  option deprecated = true;\n}\n")
    assert docs["proto:p.M"].text == "message M\n\nOld.\n\nDeprecated."


def test_nested_names_and_enum_values_under_their_enum() -> None:
    docs = read(CART)
    assert docs["proto:shop.v1.Cart.Line"].text == (
        "message Line\n\nOne line of a cart.\n\n"
        "Fields:\n- sku (string): The product's SKU.\n- quantity (uint32): How many."
    )
    assert docs["proto:shop.v1.Cart.Line.sku"].meta["qualname"] == "shop.v1.Cart.Line.sku"
    assert docs["proto:shop.v1.Cart.State"].text == (
        "enum State\n\nHow a cart stands.\n\n"
        "Values:\n- STATE_UNSPECIFIED: Not set.\n- OPEN: Still being filled.\n- CLOSED"
    )


def test_proto2_labels_groups_and_extensions() -> None:
    text = (
        'syntax = "proto2";\n'
        "package old;\n"
        "// A request.\n"
        "message Req {\n"
        "  // Needed.\n"
        "  required string name = 1;\n"
        "  optional int32 page = 2 [default = 10];\n"
        "  // The results.\n"
        "  repeated group Result = 3 {\n"
        "    // Its url.\n"
        "    required string url = 4;\n"
        "  }\n"
        "  extensions 100 to 199;\n"
        "}\n"
        "extend Req {\n"
        "  // A tag the caller adds.\n"
        "  optional string tag = 100;\n"
        "}\n"
    )
    docs = read(text)
    assert sorted(docs) == [
        "proto:old.Req",
        "proto:old.Req.Result.url",
        "proto:old.Req.name",
        "proto:old.Req.result",
        "proto:old.tag",
    ]
    assert docs["proto:old.Req"].text == (
        "message Req\n\nA request.\n\nFields:\n"
        "- name (required string): Needed.\n"
        "- page (optional int32)\n"
        "- result (repeated Result): The results."
    )
    assert docs["proto:old.Req.result"].text == "repeated group Result = 3;\n\nThe results."
    tag = docs["proto:old.tag"]
    assert tag.text == "optional string tag = 100;\n\nA tag the caller adds.\n\nExtends: Req"
    assert tag.meta["kind"] == "extension"


def test_no_package_leaves_names_bare() -> None:
    docs = read('syntax = "proto3";\n\n// A point.\nmessage Point {\n  int32 x = 1; // x.\n}\n')
    assert sorted(docs) == ["proto:Point", "proto:Point.x"]
    assert docs["proto:Point"].title == "Point"


def test_a_license_is_no_header_and_a_header_documents_its_package() -> None:
    licensed = (
        "// Copyright 2024 Example Authors\n"
        "//\n"
        '// Licensed under the Apache License, Version 2.0 (the "License").\n'
        'syntax = "proto3";\n'
        "package p;\n"
        "// A thing.\n"
        "message Thing {}\n"
    )
    assert sorted(read(licensed)) == ["proto:p.Thing"]
    package = read(CART)["proto:shop.v1"]
    assert package.text == "package shop.v1\n\nShop carts: what a customer is about to buy."
    assert package.meta["kind"] == "package" and package.meta["line"] == 4
    header = "/* Copyright 2024 X. All rights reserved. */\n\n// The p package.\npackage p;\n"
    assert read(header)["proto:p"].text == "package p\n\nThe p package."


def test_a_package_documented_once_and_a_name_twice_the_first() -> None:
    one = "// First.\npackage p;\n// M one.\nmessage M {}\n// M two.\nmessage M {}\n"
    two = "// Second.\npackage p;\n// N.\nmessage N {}\n"
    files = [ProtoFile(P("b.proto"), "b", two), ProtoFile(P("a.proto"), "a", one)]
    docs = {d.uri: d for d in api_documents(files, "local")}
    assert sorted(docs) == ["proto:p", "proto:p.M", "proto:p.N"]
    assert docs["proto:p"].text == "package p\n\nFirst."
    assert docs["proto:p.M"].text == "message M\n\nM one."


def test_google_style_markup_is_cleaned() -> None:
    """Reference links read as their labels (not in code), internal `(-- --)` notes go,
    indented code stays as written."""
    text = (
        "package p;\n"
        "// Maps to a [Thing][p.Thing], see\n"
        "// [the other\n"
        "// one][p.Other]. (-- api-linter: x=disabled\n"
        "//     aip.dev/not-precedent: reasons --)\n"
        "// The pattern is `[A-Z][a]`.\n"
        "//\n"
        "//     x[i][j.k] = 1;\n"
        "message M {}\n"
    )
    assert read(text)["proto:p.M"].text == (
        "message M\n\n"
        "Maps to a Thing, see\nthe other\none.\n"
        "The pattern is `[A-Z][a]`.\n\n"
        "    x[i][j.k] = 1;"
    )


def test_first_sentence() -> None:
    assert first_sentence("Gets it, e.g. a cart. Then more.") == "Gets it, e.g. a cart."
    assert first_sentence("No stop here\nat all") == "No stop here at all"
    assert first_sentence("    code first\n\nText.") == ""
    assert first_sentence("Version 1.2 is out. Yes.") == "Version 1.2 is out."


def test_the_scanner_tells_comments_from_code() -> None:
    tokens, comments = scan("a \"b // c\" /* d\n * e */ f // g\n'h\\''")
    assert [t.text for t in tokens] == ["a", '"b // c"', "f", "'h\\''"]
    assert [(c.block, c.line, c.end_line, c.after_code) for c in comments] == [
        (True, 1, 2, True),
        (False, 2, 2, True),
    ]
    assert comments[1].text == " g"


def test_tests_and_files_without_docs_are_counted() -> None:
    assert is_proto("cart.PROTO") and not is_proto("cart.proto.bak") and SUFFIXES == (".proto",)
    assert URI_PREFIX == "proto:"
    assert FIXES[PROTO_TEST].endswith("the source's proto: text reads them as text")
    assert FIXES[PROTO_NO_API] == FIXES[PROTO_TEST]
    files = [
        ProtoFile(P("test/cart.proto"), "t", CART),
        ProtoFile(P("src/testdata/cart.proto"), "d", CART),
        ProtoFile(P("src/testing/cart.proto"), "g", CART),
        ProtoFile(P("tests/cart.proto"), "s", CART),
        ProtoFile(P("src/cart_test.proto"), "c", CART),
        ProtoFile(P("src/unittest_cart.proto"), "u", CART),
        ProtoFile(P("src/util/map_unittest.proto"), "m", CART),  # protobuf's own
        ProtoFile(P("src/test_cart.proto"), "x", CART),
        ProtoFile(P("src/plain.proto"), "p", "package q;\nmessage Bare { int32 a = 1; }\n"),
        ProtoFile(P("src/cart.proto"), "q", CART),
    ]
    rejects = CollectResult()
    docs = api_documents(files, "local", rejects)
    assert len(docs) == 17
    assert rejects.rejects == {PROTO_TEST: 8, PROTO_NO_API: 1}
    assert rejects.samples[PROTO_NO_API] == ["p"]


def test_malformed_text_gives_what_can_be_read() -> None:
    docs = read("package p;\n// Kept.\nmessage M {\n  // Also kept.\n  int32 a = 1;\n  /* open")
    assert sorted(docs) == ["proto:p.M", "proto:p.M.a"]
    docs = read('package p;\n// S.\nmessage S {\n  // A.\n  string a = 1 [default = "x\n}')
    assert sorted(docs) == ["proto:p.S", "proto:p.S.a"]
    assert docs["proto:p.S.a"].text == "string a = 1;\n\nA."
    assert read("}}} ;; message { enum = ( rpc") == {}


def test_any_text_scans_without_an_error() -> None:
    pieces = [
        "package p;\n", 'syntax = "proto3";\n', "// A doc.\n", "/* block */", "/*", "*/",
        "message M {\n", "enum E {\n", "service S {\n", "oneof o {\n", "extend M {\n",
        "}\n", "{", "(", ")", "[", "]", "<", ">", "=", ";", ",", "\n", " ", '"', "'", "\\",
        "int32 a = 1;", "repeated string b = 2 [deprecated = true];", "map<string, M> m = 3;",
        "A = 0;", "rpc R(M) returns (stream M);", "rpc T(M) returns (M) {}", "option x = 1;",
        "optional group G = 4 {", "reserved 5;", "stream", "returns", " // trailing\n",
    ]  # fmt: skip

    def reader(text: str) -> list[Document]:
        return api_documents([ProtoFile(P("p/m.proto"), "m", text)], "local")

    assert fuzzed(reader, pieces, "proto:") > 0


def test_a_folder_reads_proto_files_by_default_and_the_questions_read_them(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path / "project", {"proto/shop/v1/cart.proto": CART})
    cfg = DomainConfig.model_validate(
        {"name": "t", "sources": [{"type": "local", "path": "project"}]}
    )
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    get = docs["proto:shop.v1.CartService.GetCart"]
    assert get.meta["language"] == "proto" and get.meta["kind"] == "rpc"
    asked = ask(get)
    assert asked["signature"] == "`rpc GetCart(GetCartRequest) returns (Cart);`"
    watch = ask(docs["proto:shop.v1.CartService.WatchCart"])
    assert watch["what_does"] == "Streams the cart's changes as they happen."
    assert watch["signature"] == "`rpc WatchCart(GetCartRequest) returns (stream Cart);`"
    assert ask(docs["proto:shop.v1.Cart.id"])["signature"] == "`string id = 1;`"
    # a message's declaration line is no signature
    assert "signature" not in ask(docs["proto:shop.v1.Cart"])
    as_text, _ = collect_tree(tmp_path / "t", {"cart.proto": CART}, ["*.proto"], proto="text")
    assert list(as_text) == [str(tmp_path / "t" / "project" / "cart.proto")]
    assert as_text[str(tmp_path / "t" / "project" / "cart.proto")].text == CART


def test_a_git_repository_reads_proto_files_by_default(tmp_path: Path) -> None:
    write_tree(tmp_path / "repo", {"api/cart.proto": CART})
    commit_all(tmp_path / "repo")
    docs = {d.uri: d for d in collect_repo(tmp_path).documents}
    assert docs["proto:shop.v1.Cart.id"].meta["path"] == "api/cart.proto"
    assert docs["proto:shop.v1.Cart.id"].meta["language"] == "proto"


def test_a_build_template_beside_its_output_is_counted_not_read() -> None:
    """ONNX ships `onnx.in.proto` (`package {PACKAGE_NAME};`) beside the `onnx.proto` its
    build makes of it: read both, every message was taught under two names."""
    template = CART.replace("package shop.v1;", "package {PACKAGE_NAME};")
    files = [
        ProtoFile(P("proto/cart.in.proto"), "proto/cart.in.proto", template),
        ProtoFile(P("proto/cart.proto"), "proto/cart.proto", CART),
        ProtoFile(P("other/solo.in.proto"), "other/solo.in.proto", CART.replace("Cart", "Solo")),
    ]
    rejects = CollectResult()
    docs = {d.uri: d for d in api_documents(files, "local", rejects)}
    assert rejects.rejects == {PROTO_TEMPLATE: 1}
    assert docs["proto:shop.v1.Cart.id"].meta["origin"] == "proto/cart.proto"
    assert not [u for u in docs if "PACKAGE_NAME" in u or u.startswith("proto:Cart")]
    # a template with no output beside it is all there is: read
    assert "proto:shop.v1.Solo.id" in docs
