"""Dart read as its packages' API, as dartdoc shows it: source files scanned, never
compiled; the public libraries (lib/, not lib/src/) and what they export, each documented
public declaration a document named by its canonical library."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import fuzzed
from jupiter.collect import CollectResult
from jupiter.collect.dartapi import (
    DART_GENERATED,
    DART_NO_API,
    DART_NOT_LIBRARY,
    DART_TEST,
    DART_UNSCANNABLE,
    FIXES,
    MANIFEST,
    api_documents,
    first_sentence,
    is_dart,
    is_generated,
    is_test,
    manifest_name,
    markdown,
    scan,
    templates_of,
)
from jupiter.collect.result import SourceFile
from jupiter.records import Document


def files(tree: dict[str, str]) -> list[SourceFile]:
    return [SourceFile(P(rel), rel, text) for rel, text in tree.items()]


def read(tree: dict[str, str], top: str = "") -> tuple[dict[str, Document], CollectResult]:
    rejects = CollectResult()
    docs = api_documents(files(tree), "local", rejects, top)
    assert [d.uri for d in docs] == sorted(d.uri for d in docs)
    return {d.uri: d for d in docs}, rejects


PUBSPEC = "name: http\nversion: 1.2.0\ndescription: HTTP.\n"

HTTP = """\
// Copyright (c) 2013, the Dart project authors.

/// A composable, [Future]-based library for making HTTP requests.
library;

import 'dart:convert';

import 'src/client.dart';

export 'src/client.dart' hide zoneClient;
export 'src/response.dart' show Response;

/// Sends an HTTP GET request with the given headers to the given URL.
///
/// For more fine-grained control over the request, use [Request] or
/// [Client.send] instead.
Future<Response> get(Uri url, {Map<String, String>? headers}) =>
    _withClient((client) => client.get(url, headers: headers));

Future<T> _withClient<T>(Future<T> Function(Client) fn) async {
  var client = Client();
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}
"""

CLIENT = """\
import 'response.dart';

/// The interface for HTTP clients.
///
/// If you only need to send a single request, use [get].
abstract interface class Client implements Sink<String> {
  /// Creates a new platform appropriate client.
  factory Client() => zoneClient ?? _IOClient();

  /// Sends an HTTP GET request with the given headers to the given URL.
  Future<Response> get(Uri url, {Map<String, String>? headers});

  /// Sends an HTTP request and asynchronously returns the response.
  Future<StreamedResponse> send(BaseRequest request);

  void close();
}

/// The [Client] for the current zone.
Client? get zoneClient => null;

class _IOClient implements Client {
  /// Never documented: a private class's members are not API.
  @override
  void close() {}
}
"""

RESPONSE = """\
/// An HTTP response where the entire body is known in advance.
class Response extends BaseResponse {
  /// The bytes comprising the body of this response.
  final Uint8List bodyBytes;

  /// Creates a new HTTP response with a string body.
  Response(
    String body,
    int statusCode, {
    BaseRequest? request,
    Map<String, String> headers = const {},
    String? reasonPhrase,
  }) : this.bytes(_encodingForHeaders(headers).encode(body), statusCode,
            request: request, headers: headers, reasonPhrase: reasonPhrase);

  /// Create a new HTTP response with a byte array body.
  Response.bytes(List<int> bodyBytes, super.statusCode,
      {super.request, super.headers})
      : bodyBytes = toUint8List(bodyBytes),
        super(contentLength: bodyBytes.length);
}

/// Not exported: `show Response` leaves it out.
class StreamedResponse {}
"""

RETRY = """\
import 'http.dart';

/// An HTTP client wrapper that automatically retries failing requests.
final class RetryClient extends BaseClient {
  /// The wrapped client.
  final Client _inner;

  /// Creates a client wrapping [_inner] that retries HTTP requests.
  RetryClient(this._inner, {int retries = 3});

  /// Like [RetryClient.new], but with a pre-computed list of [delays].
  RetryClient.withDelays(Client inner, Iterable<Duration> delays)
      : this._withDelays(inner, delays.toList());

  RetryClient._withDelays(Client inner, List<Duration> delays) : this(inner);
}
"""

PACKAGE = {
    "http/pubspec.yaml": PUBSPEC,
    "http/lib/http.dart": HTTP,
    "http/lib/retry.dart": RETRY,
    "http/lib/src/client.dart": CLIENT,
    "http/lib/src/response.dart": RESPONSE,
    "http/lib/src/unused.dart": "/// Nothing exports this.\nclass Unused {}\n",
}


def test_dart_files_and_the_reasons_they_give_none() -> None:
    assert is_dart("client.dart") and is_dart("A.DART") and not is_dart("pubspec.yaml")
    assert MANIFEST == "pubspec.yaml"
    assert manifest_name("# c\nname: http\nversion: 1.0.0\n") == "http"
    assert manifest_name("version: 1.0.0\n") is None
    assert set(FIXES) == {
        DART_TEST,
        DART_GENERATED,
        DART_NOT_LIBRARY,
        DART_UNSCANNABLE,
        DART_NO_API,
    }
    assert is_test(P("pkg/test/client_test.dart")) and is_test(P("a_test.dart"))
    assert is_test(P("pkg/integration_test/app.dart"))
    # a library under lib/ is one whatever its name (a package of conformance tests)
    assert not is_test(P("pkg/lib/src/isolate_test.dart"))
    assert is_generated(P("lib/src/a.g.dart")) and is_generated(P("b.freezed.dart"))
    assert is_generated(P("c.mocks.dart"))
    assert is_generated(P("bindings.dart"), "// ignore_for_file: type=lint\n\n"
                        "// AUTO GENERATED FILE, DO NOT EDIT.\nimport 'dart:ffi';\n")  # fmt: skip
    assert not is_generated(P("a.dart"), "import 'x.dart';\n// generated, do not edit\n")


def test_a_package_reads_as_dartdoc_names_it() -> None:
    """The package is the pubspec's name; a library is its path under lib/, written once
    when it is the package's name; lib/src/ is API only as far as a public library
    exports it, `show` and `hide` applied."""
    docs, rejects = read(PACKAGE)
    assert sorted(docs) == [
        "dart:http",
        "dart:http.Client",
        "dart:http.Client.Client",
        "dart:http.Client.get",
        "dart:http.Client.send",
        "dart:http.Response",
        "dart:http.Response.Response",
        "dart:http.Response.bodyBytes",
        "dart:http.Response.bytes",
        "dart:http.get",
        "dart:http/retry.RetryClient",
        "dart:http/retry.RetryClient.RetryClient",
        "dart:http/retry.RetryClient.withDelays",
    ]
    assert rejects.rejects == {DART_NO_API: 1}
    assert rejects.samples[DART_NO_API] == ["http/lib/src/unused.dart"]
    get = docs["dart:http.get"]
    assert get.text == (
        "Future<Response> get(Uri url, {Map<String, String>? headers})\n\n"
        "Sends an HTTP GET request with the given headers to the given URL.\n\n"
        "For more fine-grained control over the request, use `Request` or\n"
        "`Client.send` instead."
    )
    assert get.title == get.meta["qualname"] == "http.get"
    assert get.meta["kind"] == "function"
    assert get.meta["signature"] == "(Uri url, {Map<String, String>? headers})"
    assert get.meta["language"] == "dart" and get.meta["package"] == "http"
    assert get.meta["library"] == "http"
    assert get.meta["origin"] == "http/lib/http.dart" and get.meta["line"] == 17
    assert docs["dart:http/retry.RetryClient"].meta["library"] == "retry"


def test_a_class_shows_its_heritage_and_lists_its_members() -> None:
    docs, _ = read(PACKAGE)
    assert docs["dart:http.Client"].text == (
        "abstract interface class Client implements Sink<String>\n\n"
        "The interface for HTTP clients.\n\n"
        "If you only need to send a single request, use `get`.\n\n"
        "Members:\n"
        "- `Client()`: Creates a new platform appropriate client.\n"
        "- `get()`: Sends an HTTP GET request with the given headers to the given URL.\n"
        "- `send()`: Sends an HTTP request and asynchronously returns the response."
    )
    assert docs["dart:http.Client"].meta["kind"] == "class"
    send = docs["dart:http.Client.send"]
    assert send.text == (
        "Future<StreamedResponse> send(BaseRequest request)\n\n"
        "Sends an HTTP request and asynchronously returns the response."
    )
    assert send.meta["kind"] == "method" and send.meta["signature"] == "(BaseRequest request)"
    field = docs["dart:http.Response.bodyBytes"]
    assert field.text == (
        "final Uint8List bodyBytes\n\nThe bytes comprising the body of this response."
    )
    assert field.meta["kind"] == "property"


def test_constructors_are_named_as_dartdoc_names_their_pages() -> None:
    """The unnamed one `Class.Class` (`Class.new` too), a named one `Class.name`; the
    initializer list, a redirection and trailing commas cut; a private one left out."""
    docs, _ = read(PACKAGE)
    unnamed = docs["dart:http.Response.Response"]
    assert unnamed.text.split("\n\n")[0] == (
        "Response(String body, int statusCode, {BaseRequest? request, "
        "Map<String, String> headers = const {}, String? reasonPhrase})"
    )
    assert unnamed.meta["kind"] == "constructor"
    assert docs["dart:http.Response.bytes"].text == (
        "Response.bytes(List<int> bodyBytes, super.statusCode, {super.request, super.headers})"
        "\n\nCreate a new HTTP response with a byte array body."
    )
    assert docs["dart:http.Client.Client"].text == (
        "factory Client()\n\nCreates a new platform appropriate client."
    )
    assert docs["dart:http/retry.RetryClient.withDelays"].text == (
        "RetryClient.withDelays(Client inner, Iterable<Duration> delays)\n\n"
        "Like `RetryClient.new`, but with a pre-computed list of `delays`."
    )
    got, _ = read(
        {
            "p/lib/p.dart": """\
class A {
  /// Made with new.
  const A.new(this.x);
  /// Redirects.
  const factory A.other(int x) = B;
  /// Private.
  A._();
  final int x;
}
"""
        }
    )
    assert sorted(got) == ["dart:p.A.A", "dart:p.A.other"]
    assert got["dart:p.A.A"].text == "const A.new(this.x)\n\nMade with new."
    assert got["dart:p.A.other"].text == "const factory A.other(int x)\n\nRedirects."


def test_exports_are_followed_through_files_with_their_combinators() -> None:
    tree = {
        "pkg/pubspec.yaml": "name: shapes\n",
        "pkg/lib/shapes.dart": "export 'src/all.dart' hide Hidden;\n",
        "pkg/lib/src/all.dart": (
            "export 'round.dart' show Circle, circle;\n"
            "export 'package:shapes/src/square.dart';\n"
            "export 'package:other/other.dart';\n"
            "export 'dart:math' show pi;\n"
        ),
        "pkg/lib/src/round.dart": (
            "/// A circle.\nclass Circle {}\n/// An ellipse.\nclass Ellipse {}\n"
            "/// Makes a circle.\nCircle circle(double r) => Circle();\n"
        ),
        "pkg/lib/src/square.dart": "/// A square.\nclass Square {}\n/// Hidden.\nclass Hidden {}\n",
    }
    docs, rejects = read(tree)
    assert sorted(docs) == ["dart:shapes.Circle", "dart:shapes.Square", "dart:shapes.circle"]
    assert rejects.rejects == {DART_NO_API: 2}  # shapes.dart and all.dart declare nothing
    cyclic = {
        "p/lib/p.dart": "export 'src/a.dart';\n",
        "p/lib/src/a.dart": "export 'b.dart';\n/// A.\nclass A {}\n",
        "p/lib/src/b.dart": "export 'a.dart';\n/// B.\nclass B {}\n",
    }
    assert sorted(read(cyclic)[0]) == ["dart:p.A", "dart:p.B"]


def test_a_conditional_export_takes_the_vm_branch() -> None:
    tree = {
        "p/lib/p.dart": (
            "export 'src/stub.dart'\n"
            "    if (dart.library.js_interop) 'src/web.dart'\n"
            "    if (dart.library.io) 'src/io.dart';\n"
        ),
        "p/lib/src/stub.dart": "/// Stub.\nclass Stub {}\n",
        "p/lib/src/web.dart": "/// Web.\nclass Web {}\n",
        "p/lib/src/io.dart": "/// Io.\nclass Io {}\n",
    }
    assert sorted(read(tree)[0]) == ["dart:p.Io"]


def test_a_declaration_two_libraries_export_is_named_by_its_canonical_one() -> None:
    """dartdoc's choice: the library named like the package, then the one whose name the
    declaring file's path shares, then the first by name; `{@canonicalFor}` overrides."""
    tree = {
        "c/pubspec.yaml": "name: collection\n",
        "c/lib/collection.dart": "export 'src/algorithms.dart';\nexport 'src/zip.dart';\n",
        "c/lib/algorithms.dart": "export 'src/algorithms.dart';\nexport 'src/only.dart';\n",
        "c/lib/src/algorithms.dart": "/// Searches.\nint binarySearch(List l) => 0;\n",
        "c/lib/src/only.dart": "/// Only here.\nvoid only() {}\n",
        "c/lib/src/zip.dart": "/// Zips.\nclass Zip {}\n",
        "c/lib/a_zip.dart": "export 'src/zip.dart';\n",
        "c/lib/b.dart": "export 'src/two.dart';\n",
        "c/lib/a.dart": "export 'src/two.dart';\n",
        "c/lib/src/two.dart": "/// Two.\nclass Two {}\n",
        "c/lib/chosen.dart": (
            "/// Chosen.\n/// {@canonicalFor two.Picked}\nlibrary;\nexport 'src/picked.dart';\n"
        ),
        "c/lib/main.dart": "export 'src/picked.dart';\n",
        "c/lib/src/picked.dart": "/// Picked.\nclass Picked {}\n",
    }
    docs, _ = read(tree)
    assert sorted(docs) == [
        "dart:collection.Zip",
        "dart:collection.binarySearch",
        "dart:collection/a.Two",
        "dart:collection/algorithms.only",
        "dart:collection/chosen",
        "dart:collection/chosen.Picked",
    ]
    assert docs["dart:collection/chosen"].text == (
        "import 'package:collection/chosen.dart';\n\nChosen.\n\nMembers:\n- `Picked`: Picked."
    )


def test_privacy_and_annotations() -> None:
    text = """\
/// Public.
class Api {
  /// Private field.
  final int _secret = 1;

  /// Internal.
  @internal
  void tweak() {}

  /// For tests only.
  @visibleForTesting
  void reset() {}

  /// For subclasses.
  @protected
  void hook() {}

  /// Old.
  @Deprecated('Use [hook] instead, don\\'t wait. '
      "Really.")
  void old() {}

  /// Older.
  @deprecated
  void older() {}

  /// Hidden from the docs. @nodoc
  void hidden() {}

  /// An override's own doc.
  @override
  String toString() => 'Api';
}

/// Internal type: its members too.
@internal
class Inside {
  /// Never.
  void m() {}
}

class _Private {
  /// Never: a private class's members.
  void m() {}
}

/// A named extension.
extension ApiX on Api {
  /// Doubles.
  int twice() => 2;
}

/// An unnamed extension is private.
extension on Api {
  /// Never.
  int thrice() => 3;
}

/// Private function.
void _helper() {}
"""
    docs, _ = read({"p/lib/p.dart": text})
    assert sorted(docs) == [
        "dart:p.Api",
        "dart:p.Api.hook",
        "dart:p.Api.old",
        "dart:p.Api.older",
        "dart:p.Api.toString",
        "dart:p.ApiX",
        "dart:p.ApiX.twice",
    ]
    assert docs["dart:p.Api.hook"].text == (
        "void hook()\n\nFor subclasses.\n\nProtected: for use by subclasses only."
    )
    assert docs["dart:p.Api.old"].text == (
        "void old()\n\nOld.\n\nDeprecated: Use `hook` instead, don't wait. Really."
    )
    assert docs["dart:p.Api.older"].text == "void older()\n\nOlder.\n\nDeprecated."
    assert docs["dart:p.ApiX"].text == (
        "extension ApiX on Api\n\nA named extension.\n\nMembers:\n- `twice()`: Doubles."
    )
    assert docs["dart:p.ApiX"].meta["kind"] == "extension"


def test_a_top_level_declaration_for_testing_is_api_where_an_export_shows_it() -> None:
    tree = {
        "p/lib/testing.dart": "export 'src/fake.dart' show FakePlatform;\n",
        "p/lib/p.dart": "export 'src/fake.dart';\n",
        "p/lib/src/fake.dart": """\
/// A fake.
@visibleForTesting
class FakePlatform {
  /// Its members are for tests too.
  @visibleForTesting
  FakePlatform.fromJson(String json);
}

/// Not shown by name.
@visibleForTesting
class FakeOther {}
""",
    }
    assert sorted(read(tree)[0]) == [
        "dart:p/testing.FakePlatform",
        "dart:p/testing.FakePlatform.fromJson",
    ]


def test_templates_and_macros_resolve_across_the_package_files() -> None:
    tree = {
        "p/lib/p.dart": """\
export 'src/impl.dart';

/// Opens a thing.
///
/// {@macro p.opening}
///
/// {@tool snippet}
/// Sample text stays.
/// {@end-tool}
/// {@youtube 560 315 https://www.youtube.com/watch?v=abc}
/// {@macro p.unknown}
void open() {}
""",
        "p/lib/src/impl.dart": """\
/// How it opens.
///
/// {@template p.opening}
/// Opening takes a [Duration].
/// {@macro p.nested}
/// {@endtemplate}
class Opener {}

/// {@template p.nested}
/// Nested too.
/// {@endtemplate}
class _Hidden {}
""",
    }
    docs, _ = read(tree)
    assert docs["dart:p.open"].text == (
        "void open()\n\nOpens a thing.\n\nOpening takes a `Duration`.\nNested too.\n\n"
        "Sample text stays."
    )
    assert docs["dart:p.Opener"].text == (
        "class Opener\n\nHow it opens.\n\nOpening takes a `Duration`.\nNested too."
    )
    assert templates_of("{@template a}\nx\n{@endtemplate} {@template b}y{@endtemplate}") == {
        "a": "x",
        "b": "y",
    }


def test_a_getter_and_its_setter_are_one_property() -> None:
    text = """\
class Request {
  /// The body of the request as a string.
  String get body => _body;

  /// Setting it sets the content type.
  set body(String value) {
    _body = value;
  }

  /// Only a setter.
  set encoding(Encoding value) {}

  /// Abstract getter.
  int get length;

  /// A getter written async.
  Future<int> get size async => 1;
}
"""
    docs, _ = read({"p/lib/p.dart": text})
    assert sorted(docs) == [
        "dart:p.Request.body",
        "dart:p.Request.encoding",
        "dart:p.Request.length",
        "dart:p.Request.size",
    ]
    assert docs["dart:p.Request.body"].text == (
        "String get body\nset body(String value)\n\n"
        "The body of the request as a string.\n\nSetting it sets the content type."
    )
    assert all(d.meta["kind"] == "property" for d in docs.values())
    assert docs["dart:p.Request.encoding"].text.startswith("set encoding(Encoding value)\n\n")
    assert docs["dart:p.Request.size"].text.startswith("Future<int> get size\n\n")


def test_fields_constants_operators_and_typedefs() -> None:
    text = """\
/// The default port.
const int defaultPort = 80;

/// A variable.
var counter = 0;

/// A typedef.
typedef Handler = FutureOr<Response> Function(Request request);

/// An old-style typedef.
typedef bool Predicate<T>(T value);

/// A number.
class Int64 {
  /// Bounds.
  static const int maxBits = 64, minBits = 1;

  /// A late one.
  late final Map<String, String> headers;

  /// A long constant: its value is not shown.
  static const String long = 'a very long value that goes on and on and on and on and on and on and on and on';

  /// Adds.
  Int64 operator +(Object other) => this;

  /// Equal.
  @override
  bool operator ==(Object other) => false;

  /// Indexes.
  int operator [](int i) => 0;

  /// Sets at an index.
  void operator []=(int i, int v) {}

  /// Truncating division.
  Int64 operator ~/(Object other) => this;

  /// Negates.
  Int64 operator -() => this;
}
"""
    docs, _ = read({"p/lib/p.dart": text})
    heads = {uri: (d.text.split("\n\n")[0], d.meta["kind"]) for uri, d in docs.items()}
    assert heads == {
        "dart:p.defaultPort": ("const int defaultPort = 80", "constant"),
        "dart:p.counter": ("var counter", "property"),
        "dart:p.Handler": (
            "typedef Handler = FutureOr<Response> Function(Request request)",
            "typedef",
        ),
        "dart:p.Predicate": ("typedef bool Predicate<T>(T value)", "typedef"),
        "dart:p.Int64": ("class Int64", "class"),
        "dart:p.Int64.maxBits": ("static const int maxBits = 64", "constant"),
        "dart:p.Int64.minBits": ("static const int minBits = 1", "constant"),
        "dart:p.Int64.headers": ("late final Map<String, String> headers", "property"),
        "dart:p.Int64.long": ("static const String long", "constant"),
        "dart:p.Int64.operator+": ("Int64 operator +(Object other)", "operator"),
        "dart:p.Int64.operator==": ("bool operator ==(Object other)", "operator"),
        "dart:p.Int64.operator[]": ("int operator [](int i)", "operator"),
        "dart:p.Int64.operator[]=": ("void operator []=(int i, int v)", "operator"),
        "dart:p.Int64.operator~/": ("Int64 operator ~/(Object other)", "operator"),
        "dart:p.Int64.operator-": ("Int64 operator -()", "operator"),
    }
    assert "- `operator ==`: Equal." in docs["dart:p.Int64"].text


def test_enums_their_values_and_members() -> None:
    text = """\
/// How to cache.
enum CacheMode implements Comparable<CacheMode> {
  /// No cache.
  disabled(0),

  /// In memory.
  @Deprecated('Use disk')
  memory(1),
  disk(2);

  /// Creates a mode.
  const CacheMode(this.level);

  /// Its level.
  final int level;

  /// Compares levels.
  @override
  int compareTo(CacheMode other) => level - other.level;
}

/// A plain enum.
enum Plain { a, b }
"""
    docs, _ = read({"p/lib/p.dart": text})
    assert sorted(docs) == [
        "dart:p.CacheMode",
        "dart:p.CacheMode.CacheMode",
        "dart:p.CacheMode.compareTo",
        "dart:p.CacheMode.disabled",
        "dart:p.CacheMode.level",
        "dart:p.CacheMode.memory",
        "dart:p.Plain",
    ]
    assert docs["dart:p.CacheMode.memory"].text == (
        "CacheMode.memory(1)\n\nIn memory.\n\nDeprecated: Use disk"
    )
    assert docs["dart:p.CacheMode.memory"].meta["kind"] == "enum value"
    assert docs["dart:p.CacheMode"].text == (
        "enum CacheMode implements Comparable<CacheMode>\n\nHow to cache.\n\nMembers:\n"
        "- `disabled`: No cache.\n- `memory`: In memory.\n- `CacheMode()`: Creates a mode.\n"
        "- `level`: Its level.\n- `compareTo()`: Compares levels."
    )
    assert docs["dart:p.CacheMode"].meta["kind"] == "enum"


def test_class_modifiers_mixins_and_extension_types() -> None:
    text = """\
/// A sealed base.
sealed class Shape<T extends Object?> {}

/// A mixin class.
abstract mixin class Walker {}

/// A mixin.
base mixin Named<T> on Shape<T> implements Comparable<T> {
  /// Its label.
  String get label => '';
}

/// An id.
extension type const UserId._(int value) implements Object {
  /// Makes one.
  UserId.parse(String s) : this._(int.parse(s));
}

/// A mixin application.
class Both = Shape<int> with Walker;

/// Records and function types.
(int, String) pair(void Function(int x)? callback, [List<int> items = const []]) => (1, '');

/// A generator.
Stream<T> ticks<T extends num>(T start) async* {}

/// External.
external int nativeCall(int x);
"""
    docs, _ = read({"p/lib/p.dart": text})
    heads = {uri: (d.text.split("\n\n")[0], d.meta["kind"]) for uri, d in docs.items()}
    assert heads == {
        "dart:p.Shape": ("sealed class Shape<T extends Object?>", "class"),
        "dart:p.Walker": ("abstract mixin class Walker", "class"),
        "dart:p.Named": ("base mixin Named<T> on Shape<T> implements Comparable<T>", "mixin"),
        "dart:p.Named.label": ("String get label", "property"),
        "dart:p.UserId": (
            "extension type const UserId._(int value) implements Object",
            "extension type",
        ),
        "dart:p.UserId.parse": ("UserId.parse(String s)", "constructor"),
        "dart:p.Both": ("class Both = Shape<int> with Walker", "class"),
        "dart:p.pair": (
            "(int, String) pair(void Function(int x)? callback, [List<int> items = const []])",
            "function",
        ),
        "dart:p.ticks": ("Stream<T> ticks<T extends num>(T start)", "function"),
        "dart:p.nativeCall": ("external int nativeCall(int x)", "function"),
    }
    assert docs["dart:p.pair"].meta["signature"] == (
        "(void Function(int x)? callback, [List<int> items = const []])"
    )


def test_strings_and_comments_end_no_block() -> None:
    """Braces, quotes and comment marks in strings, interpolations (with strings of their
    own), raw strings and nested block comments do not end the declaration they stand in;
    a default value keeps its text."""
    text = r"""
/* a /* nested */ comment: } still in it */
class Text {
  /// Pads.
  String pad(String s, {String fill = '} {', String raw = r'${'}) {
    var a = "${s.isEmpty ? '}' : "{${'}'}"}";
    var b = '''
      } ''' + rQQQ}QQQ + '\'}';
    // }
    /* } */
    return '$a$b}';
  }

  /// After the tricky one.
  int after() => 1;
}

/// Top-level after.
void end() {}
""".replace("QQQ", '"' * 3)
    s = scan(text)
    assert s.ok
    assert len(s.code) == len(text) == len(s.bare)
    docs, _ = read({"p/lib/p.dart": text})
    assert sorted(docs) == ["dart:p.Text.after", "dart:p.Text.pad", "dart:p.end"]
    assert docs["dart:p.Text.pad"].text.split("\n\n")[0] == (
        "String pad(String s, {String fill = '} {', String raw = r'${'})"
    )
    assert not scan("var s = 'unclosed;\n").ok
    assert not scan("/* unclosed").ok
    assert not scan("class A { void f() {}").ok
    assert not scan("class A ) {}").ok


def test_doc_comments_as_the_analyzer_reads_them() -> None:
    """A run of `///` lines, blank lines or `//` comments between them or not; a `/** */`
    with its margin; the last `/** */` starts it over."""
    text = """\
/// First part.
// a plain comment between
/// second part.

/// Third part.
void joined() {}

/**
 * A block comment.
 *
 * With a margin.
 */
void block() {}

/// Dropped.
/** Only this. */
void last() {}
"""
    docs, _ = read({"p/lib/p.dart": text})
    assert docs["dart:p.joined"].text == ("void joined()\n\nFirst part.\nsecond part.\nThird part.")
    assert docs["dart:p.block"].text == "void block()\n\nA block comment.\n\nWith a margin."
    assert docs["dart:p.last"].text == "void last()\n\nOnly this."


def test_markdown_as_dartdoc_renders_it() -> None:
    doc = """\
Uses [Client], [Client.send], [join()] and [new Foo]; a `[code]` span stays.
A link [text](https://dart.dev), a [NaN](double.nan) name link, [a ref][] stay.
{@youtube 560 315 https://youtu.be/x} {@animation 1 2 url}
@docImport 'src/x.dart';

    var x = 1; // an indented block
    print(x);

```
fenced();
```

```yaml
key: [value]
```

- a list item
    continued, not code
[a ref]: https://example.com"""
    assert markdown(doc) == (
        "Uses `Client`, `Client.send`, `join()` and `Foo`; a `[code]` span stays.\n"
        "A link [text](https://dart.dev), a NaN name link, [a ref][] stay.\n\n"
        "```dart\nvar x = 1; // an indented block\nprint(x);\n```\n\n"
        "```dart\nfenced();\n```\n\n"
        "```yaml\nkey: [value]\n```\n\n"
        "- a list item\n    continued, not code\n[a ref]: https://example.com"
    )
    assert first_sentence("Returns `true`, e.g. for x. Then more.\n\nOther.") == (
        "Returns `true`, e.g. for x."
    )


def test_parts_belong_to_their_library() -> None:
    tree = {
        "p/lib/p.dart": "library p.main;\n\npart 'src/one.dart';\npart 'src/two.dart';\n",
        "p/lib/src/one.dart": "part of '../p.dart';\n\n/// One.\nvoid one() {}\n",
        "p/lib/src/two.dart": "part of p.main;\n\n/// Two.\nclass Two {}\n",
        "p/lib/src/orphan.dart": "part of 'nowhere.dart';\n\n/// Orphan.\nvoid orphan() {}\n",
    }
    docs, rejects = read(tree)
    assert sorted(docs) == ["dart:p.Two", "dart:p.one"]
    assert docs["dart:p.one"].meta["origin"] == "p/lib/src/one.dart"
    assert rejects.rejects == {DART_NO_API: 2}
    assert rejects.samples[DART_NO_API] == ["p/lib/p.dart", "p/lib/src/orphan.dart"]


def test_a_library_document_opens_with_its_import() -> None:
    tree = {
        "pkg/pubspec.yaml": "name: geo\n",
        "pkg/lib/geo.dart": (
            "/// Geometry.\n///\n/// Shapes and [Area]s.\n"
            "@Deprecated('Use geometry instead')\nlibrary;\n\nexport 'src/a.dart';\n"
        ),
        "pkg/lib/src/a.dart": "/// An area.\nclass Area {}\n\n/// Computes it.\ndouble area() => 0;\n",
        "pkg/lib/extra/more.dart": "/// More.\nlibrary;\n\n/// Extra.\nvoid extra() {}\n",
    }
    docs, _ = read(tree)
    lib = docs["dart:geo"]
    assert lib.text == (
        "import 'package:geo/geo.dart';\n\nGeometry.\n\nShapes and `Area`s.\n\n"
        "Deprecated: Use geometry instead\n\n"
        "Members:\n- `Area`: An area.\n- `area()`: Computes it."
    )
    assert lib.meta["kind"] == "library" and lib.title == "geo"
    assert "dart:geo/extra/more.extra" in docs
    assert docs["dart:geo/extra/more"].text.startswith("import 'package:geo/extra/more.dart';")


def test_a_package_is_named_by_its_folder_else_top() -> None:
    lib = {"lib/a.dart": "/// A.\nclass A {}\n"}
    assert sorted(read(lib, top="mine")[0]) == ["dart:mine/a.A"]
    assert sorted(read({"some/where/lib/a.dart": lib["lib/a.dart"]})[0]) == ["dart:where/a.A"]
    loose = {"scripts/tool.dart": "/// Tool.\nvoid tool() {}\n"}
    assert sorted(read(loose, top="t")[0]) == ["dart:t/tool.tool"]


def test_tests_generated_files_and_files_outside_lib_are_counted() -> None:
    doc = "/// Documented.\nvoid f() {}\n"
    tree = {
        "p/pubspec.yaml": "name: p\n",
        "p/lib/p.dart": doc,
        "p/test/p_test.dart": doc,
        "p/lib/src/model.g.dart": doc,
        "p/lib/src/bindings.dart": "// GENERATED CODE - DO NOT MODIFY BY HAND\n" + doc,
        "p/example/main.dart": doc,
        "p/bin/run.dart": doc,
        "p/example/app/lib/app.dart": doc,
        "p/lib/broken.dart": "/// Broken.\nvoid f() { print('unclosed); }\n",
        "p/lib/empty.dart": "class Undocumented {}\n",
    }
    docs, rejects = read(tree)
    assert sorted(docs) == ["dart:p.f"]
    assert rejects.rejects == {
        DART_TEST: 1,
        DART_GENERATED: 2,
        DART_NOT_LIBRARY: 3,
        DART_UNSCANNABLE: 1,
        DART_NO_API: 1,
    }


def test_any_text_scans_without_an_error() -> None:
    """Unterminated strings, interpolations, raw strings and nested comments, stray
    brackets: the scanner and the declaration reader end."""
    pieces = [
        "/// A doc [x] {@macro m}\n", "/** B */", "/* c /* d */", "*/", "// l\n",
        "library;\n", "export 'a.dart' show A;\n", "part of 'b.dart';\n", "class ", "mixin ",
        "enum ", "extension ", "extension type ", "typedef ", "abstract ", "base ",
        "sealed ", "final ", "const ", "static ", "late ", "var ", "factory ", "external ",
        "get ", "set ", "operator ", "async ", "A ", "b ", "_c ", "on ", "with ",
        "implements ", "(", ")", "{", "}", "[", "]", "<", ">", "=>", "=", ";", ",", ":", ".",
        "'", '"', "'''", '"""', "r'", "${", "$x", "\\", "@override ", "@Deprecated('m') ",
        "@internal ", "\n", " ", "?", "Function", "required ", "this.", "super.",
        "/// Doc.\nclass C {\n", "/// M.\n  int m(int a) => a;\n", "/// E.\nenum E { a, b; ",
        "/// G.\nint get g => 1;\n", "/// F.\nvoid f() {}\n",
    ]  # fmt: skip

    def read_one(text: str) -> list[Document]:
        return api_documents(files({"p/lib/p.dart": text}), "local")

    assert fuzzed(read_one, pieces, "dart:") > 0  # some random texts document something


def test_a_dart_package_is_read_by_init_and_asked_by_its_parameters(tmp_path: Path) -> None:
    """`jupiter init` on a folder with a pubspec.yaml reads its .dart files as their API,
    pubspec.yaml naming the package ahead of the JSON and YAML reader; named and
    `super.` parameters are read by their names."""
    from apitree import ask, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig
    from jupiter.config.cli import source_entry

    lib = (
        "/// A file system path's parts.\nclass Paths {\n"
        "  /// Joins [first] and [second] with the separator.\n"
        "  ///\n  /// The [separator] is `/` unless given.\n"
        "  String join(String first, String second, {String separator = '/'}) =>\n"
        "      '$first$separator$second';\n}\n"
    )
    write_tree(
        tmp_path / "pkg",
        {
            "pubspec.yaml": "name: paths\nversion: 1.0.0\n",
            "lib/paths.dart": "export 'src/paths.dart';\n",
            "lib/src/paths.dart": lib,
        },
    )
    entry = source_entry(str(tmp_path / "pkg"))
    assert "*.dart" in entry["include"]  # type: ignore[operator]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    assert sorted(docs) == ["dart:paths.Paths", "dart:paths.Paths.join"]
    asked = ask(docs["dart:paths.Paths.join"])
    assert asked["arguments"] == (
        "`paths.Paths.join` takes 3 arguments: String first, String second, "
        "String separator = '/'.\n\n- first: Joins `first` and `second` with the separator."
        "\n- separator: The `separator` is `/` unless given."
    )
    assert asked["signature"] == (
        "`String join(String first, String second, {String separator = '/'})`"
    )
