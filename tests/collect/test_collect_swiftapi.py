"""Swift read as its library's API, as DocC and Xcode's Quick Help show it: source files
scanned, never compiled, each documented public or open declaration a document named as
DocC names it (`swift:Kit.Session.request(_:method:)`), its text the declaration as
written over the doc comment read as DocC reads it."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import fuzzed
from jupiter.collect.result import CollectResult, SourceFile
from jupiter.collect.swiftapi import (
    FIXES,
    MANIFEST,
    SWIFT_NO_API,
    SWIFT_TEST,
    SWIFT_UNSCANNABLE,
    URI_PREFIX,
    api_documents,
    doc_comment,
    first_sentence,
    is_swift,
    is_test,
    manifest_targets,
    scan,
)
from jupiter.records import Document


def read(
    text: str, rel: str = "Sources/Kit/a.swift", rejects: CollectResult | None = None
) -> dict[str, Document]:
    docs = api_documents([SourceFile(P(rel), rel, text)], "local", rejects, "Top")
    return {d.uri: d for d in docs}


SESSION = """\
import Foundation

/// A session that sends requests.
///
/// Create one per app.
open class Session: NSObject, @unchecked Sendable {
    /// The shared session.
    public static let `default` = Session()

    /// Sends a request.
    ///
    /// - Parameters:
    ///   - convertible: What to request. It
    ///     must be valid.
    ///   - method: The HTTP method.
    /// - Returns: The request made.
    /// - Throws: `SessionError` when the session is closed.
    /// - Note: Requests start at once.
    @discardableResult
    @inlinable
    open func request(
        _ convertible: URLConvertible,
        method: HTTPMethod = .get,
    ) throws -> DataRequest {
        let s = "} { \\(method) \\("}")"
        return DataRequest(s)
    }

    /// Not API: internal.
    func hidden() {}

    /// How many requests are open.
    public var count: Int { requests.count }

    /// The delegate.
    public var delegate: Delegate? {
        get { _delegate }
        set { _delegate = newValue }
    }

    /// Closes it.
    @MainActor public func close() async {}

    deinit {}
}

extension Session: Equatable where Self: AnyObject {
    /// Whether two sessions are the same.
    public static func == (lhs: Session, rhs: Session) -> Bool { lhs === rhs }
}
"""


def test_a_class_and_its_members_are_documents_named_as_docc_names_them() -> None:
    docs = read(SESSION)
    assert sorted(docs) == [
        "swift:Kit.Session",
        "swift:Kit.Session.==(_:_:)",
        "swift:Kit.Session.close()",
        "swift:Kit.Session.count",
        "swift:Kit.Session.default",
        "swift:Kit.Session.delegate",
        "swift:Kit.Session.request(_:method:)",
    ]
    request = docs["swift:Kit.Session.request(_:method:)"]
    assert request.text == (
        "open func request(_ convertible: URLConvertible, method: HTTPMethod = .get) throws "
        "-> DataRequest\n\n"
        "Sends a request.\n\n"
        "Parameters:\n"
        "- `convertible`: What to request. It must be valid.\n"
        "- `method`: The HTTP method.\n\n"
        "Returns: The request made.\n\n"
        "Throws: `SessionError` when the session is closed.\n\n"
        "Note: Requests start at once."
    )
    assert request.title == "Kit.Session.request(_:method:)"
    assert request.meta["kind"] == "func"
    assert request.meta["qualname"] == "Kit.Session.request(_:method:)"
    assert request.meta["module"] == "Kit"
    assert request.meta["language"] == "swift"
    assert request.meta["line"] == 19
    assert request.meta["signature"] == request.text.split("\n")[0]


def test_a_type_lists_its_documented_members_and_the_conformances_extensions_add() -> None:
    assert read(SESSION)["swift:Kit.Session"].text == (
        "open class Session: NSObject, @unchecked Sendable\n\n"
        "A session that sends requests.\n\n"
        "Create one per app.\n\n"
        "Conforms to: `NSObject`, `Sendable`, `Equatable` (when `Self: AnyObject`).\n\n"
        "Members:\n"
        "- `default`: The shared session.\n"
        "- `request(_:method:)`: Sends a request.\n"
        "- `count`: How many requests are open.\n"
        "- `delegate`: The delegate.\n"
        "- `close()`: Closes it.\n"
        "- `==(_:_:)`: Whether two sessions are the same."
    )


def test_properties_show_their_accessors_or_a_short_value_and_attributes_that_matter() -> None:
    docs = read(SESSION)
    assert docs["swift:Kit.Session.count"].text == (
        "public var count: Int { get }\n\nHow many requests are open."
    )
    assert docs["swift:Kit.Session.delegate"].text.startswith(
        "public var delegate: Delegate? { get set }\n\n"
    )
    assert docs["swift:Kit.Session.default"].text.startswith(
        "public static let `default` = Session()\n\n"
    )
    assert docs["swift:Kit.Session.default"].meta["kind"] == "let"
    assert docs["swift:Kit.Session.close()"].text.startswith(
        "@MainActor public func close() async\n\n"
    )
    assert docs["swift:Kit.Session.==(_:_:)"].text == (
        "public static func == (lhs: Session, rhs: Session) -> Bool\n\n"
        "Whether two sessions are the same.\n\n"
        "Available when `Self: AnyObject`."
    )


ACCESS = """\
/// A public protocol.
public protocol Shape {
    /// The area.
    var area: Double { get }
    /// Scales it.
    mutating func scale(by factor: Double)
    /// The unit.
    associatedtype Unit: Equatable = Double
}

/// An internal protocol: no document.
protocol Hidden {
    /// No document either.
    func x()
}

/// The directions.
public enum Direction: String {
    /// North and south.
    case north, south
    /// A turn by some degrees.
    case turn(Int, by: Double)
    /// Raw.
    case east = "E"
    /// A helper, not public.
    func helper() {}
    /// Public.
    public var opposite: Direction { .north }
}

public extension Direction {
    /// Public by its extension.
    func flipped() -> Direction { self }
    /// Private stays private.
    private func secret() {}
}

extension Direction {
    /// Internal by default.
    func internalOne() {}
    /// Marked public.
    public func marked() {}
}

/// Internal type.
struct Inner {
    /// Public member of an internal type: not API.
    public func f() {}
}

extension Inner {
    /// Still not API.
    public func g() {}
}

/// An SPI thing.
@_spi(Testing) public func spied() {}

/// Underscored.
public func _underscored() {}

/// Gone.
@available(*, unavailable, message: "use y")
public func gone() {}

/// Fileprivate.
fileprivate func fp() {}

/// No modifier.
func none() {}

/// A public type under an underscored one.
public struct _Box {
    /// Not API: inside `_Box`.
    public var value: Int
}

/// An actor.
public actor Counter {
    /// Adds one.
    public func increment() {}
}

/// Old.
@available(*, deprecated, message: "Use `new()` instead.")
public func old() {}

/// Renamed.
@available(macOS, deprecated: 12.0, renamed: "fresh()")
public func renamedOne() {}
"""


def test_public_and_open_are_api_and_protocol_requirements_and_cases_inherit() -> None:
    docs = read(ACCESS)
    assert sorted(docs) == [
        "swift:Kit.Counter",
        "swift:Kit.Counter.increment()",
        "swift:Kit.Direction",
        "swift:Kit.Direction.east",
        "swift:Kit.Direction.flipped()",
        "swift:Kit.Direction.marked()",
        "swift:Kit.Direction.north",
        "swift:Kit.Direction.opposite",
        "swift:Kit.Direction.south",
        "swift:Kit.Direction.turn(_:by:)",
        "swift:Kit.Shape",
        "swift:Kit.Shape.Unit",
        "swift:Kit.Shape.area",
        "swift:Kit.Shape.scale(by:)",
        "swift:Kit.old()",
        "swift:Kit.renamedOne()",
    ]
    kinds = {uri.removeprefix("swift:Kit."): d.meta["kind"] for uri, d in docs.items()}
    assert kinds["Counter"] == "actor"
    assert kinds["Direction"] == "enum"
    assert kinds["Direction.north"] == "case"
    assert kinds["Shape"] == "protocol"
    assert kinds["Shape.Unit"] == "associatedtype"
    assert kinds["Shape.area"] == "var"
    assert docs["swift:Kit.Shape.area"].text == "var area: Double { get }\n\nThe area."
    assert docs["swift:Kit.Shape.Unit"].text == (
        "associatedtype Unit: Equatable = Double\n\nThe unit."
    )
    assert docs["swift:Kit.Direction.flipped()"].text == (
        "func flipped() -> Direction\n\nPublic by its extension."
    )


def test_each_case_of_a_case_list_is_a_document_with_the_lists_doc() -> None:
    docs = read(ACCESS)
    assert docs["swift:Kit.Direction.north"].text == "case north\n\nNorth and south."
    assert docs["swift:Kit.Direction.south"].text == "case south\n\nNorth and south."
    assert docs["swift:Kit.Direction.turn(_:by:)"].text == (
        "case turn(Int, by: Double)\n\nA turn by some degrees."
    )
    assert docs["swift:Kit.Direction.east"].text == 'case east = "E"\n\nRaw.'
    assert docs["swift:Kit.Direction"].text.endswith(
        "Members:\n"
        "- `north`: North and south.\n"
        "- `south`: North and south.\n"
        "- `turn(_:by:)`: A turn by some degrees.\n"
        "- `east`: Raw.\n"
        "- `opposite`: Public.\n"
        "- `flipped()`: Public by its extension.\n"
        "- `marked()`: Marked public."
    )


def test_deprecation_is_said_and_unavailable_items_are_left_out() -> None:
    docs = read(ACCESS)
    assert docs["swift:Kit.old()"].text == (
        "public func old()\n\nDeprecated: Use `new()` instead.\n\nOld."
    )
    assert docs["swift:Kit.renamedOne()"].text == (
        "public func renamedOne()\n\nDeprecated (macOS 12.0): Renamed to `fresh()`.\n\nRenamed."
    )
    assert "swift:Kit.gone()" not in docs


NAMES = """\
/// A stack.
public struct Stack<Element>: Sequence where Element: Equatable {
    /// Creates a stack.
    public init() {}
    /// Creates a stack from a decoder.
    public init(from decoder: Decoder) throws {}
    /// Creates a stack from a string, if it parses.
    public init?(_ text: String) {}
    /// Creates a stack of a count.
    public init(_ count: Int) {}
    /// Creates a stack of any sequence.
    public init<S: Sequence>(_ elements: S) where S.Element == Element {}
    /// Accesses an element.
    public subscript(index: Int) -> Element {
        get { fatalError() }
        set {}
    }
    /// Accesses by key.
    public subscript(key key: String) -> Element? { nil }
    /// A nested type.
    public struct Iterator: IteratorProtocol {
        /// The next one.
        public mutating func next() -> Element? { nil }
    }
    /// Pushes an element.
    public mutating func push(_ element: Element) {}
}

extension Stack where Element: Hashable {
    /// Pushes an element, hashably.
    public mutating func push(_ element: Element) {}
}

extension Stack.Iterator {
    /// Resets it.
    public mutating func reset() {}
}

extension Array where Element: Comparable {
    /// The stack of this array.
    public var stack: Stack<Element> { Stack(self) }
}

/// A name for stacks of strings.
public typealias Strings = Stack<String>

/// Makes a URL.
@freestanding(expression)
public macro URL(_ string: String) -> URL = #externalMacro(module: "M", type: "URLMacro")

/// Adds.
public func + (lhs: Stack<Int>, rhs: Stack<Int>) -> Stack<Int> { lhs }
/// Negates.
public prefix func - (value: Stack<Int>) -> Stack<Int> { value }
"""


def test_callables_are_named_by_their_selectors_nested_types_through_their_outer_ones() -> None:
    docs = read(NAMES)
    assert sorted(docs) == [
        "swift:Kit.+(_:_:)",
        "swift:Kit.-(_:)",
        "swift:Kit.Array.stack",
        "swift:Kit.Stack",
        "swift:Kit.Stack.Iterator",
        "swift:Kit.Stack.Iterator.next()",
        "swift:Kit.Stack.Iterator.reset()",
        "swift:Kit.Stack.init()",
        "swift:Kit.Stack.init(_:)",
        "swift:Kit.Stack.init(_:)-(Int)",
        "swift:Kit.Stack.init(_:)-(Sequence)",
        "swift:Kit.Stack.init(from:)",
        "swift:Kit.Stack.push(_:)",
        "swift:Kit.Stack.push(_:)-2",
        "swift:Kit.Stack.subscript(_:)",
        "swift:Kit.Stack.subscript(key:)",
        "swift:Kit.Strings",
        "swift:Kit.URL(_:)",
    ]
    assert docs["swift:Kit.Stack.init(_:)"].text == (
        "public init?(_ text: String)\n\nCreates a stack from a string, if it parses."
    )
    assert docs["swift:Kit.Stack.init(_:)"].meta["kind"] == "init"
    assert docs["swift:Kit.Stack.subscript(_:)"].text == (
        "public subscript(index: Int) -> Element { get set }\n\nAccesses an element."
    )
    assert docs["swift:Kit.Stack.subscript(key:)"].text == (
        "public subscript(key key: String) -> Element? { get }\n\nAccesses by key."
    )
    assert docs["swift:Kit.URL(_:)"].text == (
        "@freestanding(expression) public macro URL(_ string: String) -> URL\n\nMakes a URL."
    )
    assert docs["swift:Kit.URL(_:)"].meta["kind"] == "macro"
    assert docs["swift:Kit.Strings"].text == (
        "public typealias Strings = Stack<String>\n\nA name for stacks of strings."
    )
    assert docs["swift:Kit.Stack.Iterator"].text.endswith(
        "Members:\n- `next()`: The next one.\n- `reset()`: Resets it."
    )


def test_overloads_of_one_selector_are_told_apart_by_types_else_by_their_place() -> None:
    docs = read(NAMES)
    assert docs["swift:Kit.Stack.init(_:)-(Int)"].text.startswith("public init(_ count: Int)")
    assert docs["swift:Kit.Stack.init(_:)-(Sequence)"].text.startswith(
        "public init<S: Sequence>(_ elements: S) where S.Element == Element\n\n"
    )
    assert docs["swift:Kit.Stack.push(_:)-2"].text == (
        "public mutating func push(_ element: Element)\n\n"
        "Pushes an element, hashably.\n\n"
        "Available when `Element: Hashable`."
    )
    # the same declaration in two `#if` branches: the first
    twice = (
        "#if A\n/// First.\npublic func f(_ x: Int) {}\n"
        "#else\n/// Second.\npublic func f(_ x: Int) {}\n#endif\n"
    )
    assert {u: d.text for u, d in read(twice).items()} == {
        "swift:Kit.f(_:)": "public func f(_ x: Int)\n\nFirst."
    }


def test_an_extension_of_a_type_from_elsewhere_names_it_as_written() -> None:
    assert read(NAMES)["swift:Kit.Array.stack"].text == (
        "public var stack: Stack<Element> { get }\n\n"
        "The stack of this array.\n\n"
        "Available when `Element: Comparable`.\n\n"
        "Extends `Array`, a type declared outside this module."
    )


LEXED = """\
/* A block comment /* nested } */ still a comment { */
public struct Lexed {
    let a = "a } string with \\"escaped\\" quotes and \\(value(of: "nested } \\(1)"))"
    let b = \"\"\"
        A multi-line string } { with "quotes" and \\(x)
        and a \\\"\"\" fake end
        \"\"\"
    let c = #"raw "string" with \\(no) interpolation }"#
    let d = ##"raw ## "#string"# }"##
    let e = #/regex } [a-z]+/#
    let f = ##/
      multi-line } regex
      /##
    let `class` = 1
    // a line comment with } and "
    /// After all that.
    public func after() {}
}

#if os(macOS)
/// The macOS one.
public func platform() -> Int { 1 }
#elseif os(Linux)
/// The Linux one.
public func platform() -> Int { 2 }
#else
public func other() {}
#endif

/// A `class`-named member.
public struct Keywords {
    /// A backquoted name.
    public var `default`: Int
    /// A backquoted function.
    public func `return`(`in` value: Int) {}
}
"""


def test_comments_strings_raw_strings_and_regexes_hide_their_brackets() -> None:
    rejects = CollectResult()
    docs = read(LEXED, rejects=rejects)
    assert rejects.rejects == {}
    assert sorted(docs) == [
        "swift:Kit.Keywords",
        "swift:Kit.Keywords.default",
        "swift:Kit.Keywords.return(in:)",
        "swift:Kit.Lexed.after()",
        "swift:Kit.platform()",
    ]
    assert docs["swift:Kit.Lexed.after()"].text == "public func after()\n\nAfter all that."
    assert docs["swift:Kit.platform()"].text == "public func platform() -> Int\n\nThe macOS one."
    assert docs["swift:Kit.Keywords.return(in:)"].text == (
        "public func `return`(`in` value: Int)\n\nA backquoted function."
    )
    assert docs["swift:Kit.Keywords.default"].text.startswith("public var `default`: Int\n\n")


def test_the_scan_blanks_literals_and_comments_and_keeps_positions() -> None:
    text = 'let s = #"a "}" b"# // }\nlet t = "\\("{")"\n'
    s = scan(text)
    assert len(s.code) == len(text) and len(s.bare) == len(text)
    assert "}" not in s.code and "{" not in s.code
    assert s.whole
    assert '"}"' in s.bare and "//" not in s.bare
    assert not scan("/* /* */").whole
    assert not scan('let s = "open\n').whole
    assert not scan("func f() {").whole
    assert not scan('let s = """\nnever closed\n').whole


def test_block_doc_comments_lose_their_star_margin() -> None:
    text = (
        "/**\n * A block doc.\n *\n * - Parameter x: The x.\n */\npublic func block(x: Int) {}\n"
        "/** One line. */\npublic let one: Int = 1\n"
    )
    docs = read(text)
    assert docs["swift:Kit.block(x:)"].text == (
        "public func block(x: Int)\n\nA block doc.\n\nParameters:\n- `x`: The x."
    )
    assert docs["swift:Kit.one"].text == "public let one: Int = 1\n\nOne line."


DOCC = """\
/// Parses the arguments with ``ParsableCommand/main(_:)`` and
/// ``Flag``, as <doc:GettingStarted> and <doc:Articles/Customizing#Help> say; see
/// ``init(_:)-4x8m`` and `` `code` ``.
///
/// An indented example:
///
///     let x = Command.parse()
///     print(x)
///
/// A fenced one:
///
/// ```
/// swift run
/// ```
///
/// - Important: Call it once.
/// - Precondition: `arguments` is not empty.
/// - Complexity: O(*n*), where *n* is
///   the number of arguments.
/// - SeeAlso: ``main()``
/// - See Also: The guide.
/// - Warning: It exits.
/// - Parameter arguments: The arguments.
/// - Returns: The command.
/// - Throws: A parse error.
///
/// A list that is not callouts:
/// - one
/// - Two: a label no callout knows
public func parse(_ arguments: [String]) throws -> Command { fatalError() }
"""


def test_docc_markup_becomes_markdown_callouts_labelled_paragraphs() -> None:
    assert read(DOCC)["swift:Kit.parse(_:)"].text == (
        "public func parse(_ arguments: [String]) throws -> Command\n\n"
        "Parses the arguments with `ParsableCommand.main(_:)` and\n"
        "`Flag`, as GettingStarted and Customizing say; see\n"
        "`init(_:)` and `` `code` ``.\n\n"
        "Parameters:\n- `arguments`: The arguments.\n\n"
        "Returns: The command.\n\n"
        "Throws: A parse error.\n\n"
        "An indented example:\n\n"
        "```swift\nlet x = Command.parse()\nprint(x)\n```\n\n"
        "A fenced one:\n\n"
        "```swift\nswift run\n```\n\n"
        "Important: Call it once.\n\n"
        "Precondition: `arguments` is not empty.\n\n"
        "Complexity: O(*n*), where *n* is the number of arguments.\n\n"
        "See also: `main()`\n\n"
        "See also: The guide.\n\n"
        "Warning: It exits.\n\n"
        "A list that is not callouts:\n"
        "- one\n"
        "- Two: a label no callout knows"
    )


def test_a_doc_comment_is_read_into_abstract_parameters_and_discussion() -> None:
    doc = doc_comment(
        " Sums them.\n\n - parameters:\n   - a: The first.\n   - `b`: The second.\n"
        " - returns: The sum.\n\n More."
    )
    assert doc.abstract == "Sums them."
    assert doc.params == [("a", "The first."), ("b", "The second.")]
    assert doc.returns == "The sum."
    assert doc.discussion == "More."
    assert first_sentence("Sums them, e.g. two. Then more.") == "Sums them, e.g. two."


def test_an_undocumented_type_gives_none_its_documented_members_do() -> None:
    text = "public struct Plain {\n    /// Documented.\n    public func f() {}\n}\n"
    assert {u: d.text for u, d in read(text).items()} == {
        "swift:Kit.Plain.f()": "public func f()\n\nDocumented."
    }


MANIFEST_TEXT = """\
// swift-tools-version:5.9
import PackageDescription
let package = Package(
  name: "kit",
  targets: [
    .target(name: "KitCore", path: "Sources/Core"),
    .target(name: "Kit", dependencies: ["KitCore"]),
    .executableTarget(name: "tool", path: "Tools/tool"),
    .testTarget(name: "KitTests", dependencies: ["Kit"], path: "Checks/KitTests"),
  ]
)
"""


def test_the_manifest_names_the_modules_else_the_folder_under_sources_else_top() -> None:
    assert manifest_targets(MANIFEST_TEXT) == [
        ("KitCore", "Sources/Core", False),
        ("Kit", "", False),
        ("tool", "Tools/tool", False),
        ("KitTests", "Checks/KitTests", True),
    ]
    doc = "/// Does it.\npublic func f() {}\n"
    tree = {
        MANIFEST: MANIFEST_TEXT,
        "Sources/Core/A.swift": doc,
        "Sources/Kit/Sub/B.swift": doc,
        "Tools/tool/main.swift": doc,
        "Sources/Loose/C.swift": doc,
        "Other/D.swift": doc,
        "Checks/KitTests/T.swift": doc,
    }
    rejects = CollectResult()
    files = [SourceFile(P(k), k, v) for k, v in tree.items()]
    docs = api_documents(files, "local", rejects, "top")
    assert {d.uri: d.meta["origin"] for d in docs} == {
        "swift:Kit.f()": "Sources/Kit/Sub/B.swift",
        "swift:KitCore.f()": "Sources/Core/A.swift",
        "swift:Loose.f()": "Sources/Loose/C.swift",
        "swift:tool.f()": "Tools/tool/main.swift",
        "swift:top.f()": "Other/D.swift",
    }
    assert rejects.rejects == {SWIFT_TEST: 1}  # the test target's; the manifest is no code


def test_tests_files_without_api_and_files_that_do_not_scan_are_counted() -> None:
    doc = "/// Does it.\npublic func f() {}\n"
    tree = {
        "Tests/KitTests/T.swift": doc,
        "Sources/Kit/KitTests.swift": doc,
        "Sources/Kit/Empty.swift": "/// Internal.\nfunc g() {}\n",
        "Sources/Kit/Open.swift": "/// Doc.\npublic func h() {\n",
        "Sources/Kit/Comment.swift": "/* never closed\n",
        "Sources/Kit/String.swift": '/// Doc.\npublic let s = "open\n',
    }
    rejects = CollectResult()
    files = [SourceFile(P(k), k, v) for k, v in tree.items()]
    assert api_documents(files, "local", rejects) == []
    assert rejects.rejects == {SWIFT_TEST: 2, SWIFT_NO_API: 1, SWIFT_UNSCANNABLE: 3}
    assert set(FIXES) == {SWIFT_TEST, SWIFT_NO_API, SWIFT_UNSCANNABLE}


def test_file_names() -> None:
    assert is_swift("Sources/Kit/A.swift") and is_swift("B.SWIFT")
    assert not is_swift("a.swiftinterface") and not is_swift("Package.resolved")
    assert is_test(P("Tests/KitTests/A.swift")) and is_test(P("Sources/Kit/ATests.swift"))
    assert not is_test(P("Sources/Kit/Testing.swift"))


def test_any_text_scans_without_an_error() -> None:
    pieces = [
        "public ", "open ", "static ", "private ", "class ", "struct S", "enum E", "protocol P",
        "extension X", "actor A", "func f", "init", "init?", "subscript", "var v", "let l",
        "case a, b(Int)", "typealias T = ", "associatedtype A", "macro m", "deinit ",
        "operator +++", "precedencegroup G", "where T: Q", ": Equatable", "<T: P>", "<", ">",
        "->", "(", ")", "[", "]", "{", "}", " = ", ",", ";", "\n", " ", "_", "`", "`x`",
        "/// Doc.\n", "///   - Parameter x: y\n", "/// - Parameters:\n", "/// - Returns: r\n",
        "/// ``A/b(_:)``\n", "/**", "*/", "/*", "//", '"', '"""', '\\(', "#", '#"', '"#', "#/",
        "/#", "\\", "#if X\n", "#else\n", "#endif\n", "@available(*, deprecated)", "@_spi(S)",
        "@MainActor ", "get ", "set ", "throws ", "async ", "inout ", "...",
    ]  # fmt: skip
    # pieces whose brackets and literals close, so that the walker reads what they make
    closed = [
        "public ", "open ", "static ", "class ", "struct S ", "enum E ", "protocol P ",
        "extension X ", "actor A ", "func f", "func == ", "init", "init?", "subscript", "var v",
        "let l", "case a, b(Int)", "typealias T = Int", "associatedtype A", "macro m",
        "deinit ", "where T: Q ", ": Equatable ", "<T: P>", "->", "(x: Int)", "(_ y: [Int])",
        "{ }", "{ get set }", "{\n", "\n}", " = 1", ",", ";", "\n", " ", "`x`",
        "/// Doc.\n", "/// - Parameter x: y\n", "/// - Returns: r\n", "/** Doc. */\n",
        '"s"', '#"r"#', "#if X\n", "#else\n", "#endif\n", "@available(*, deprecated) ",
        "@_spi(S) ", "@MainActor ", "get ", "set ", "throws ", "async ", "inout ", "<", ">",
    ]  # fmt: skip

    def reader(text: str) -> list[Document]:
        return api_documents([SourceFile(P("Sources/M/a.swift"), "a", text)], "local")

    fuzzed(reader, pieces, URI_PREFIX)

    def balanced(text: str) -> list[Document]:
        depth = text.count("{") - text.count("}")
        return reader(text + "}" * depth if depth >= 0 else "{" * -depth + text)

    assert fuzzed(balanced, closed, URI_PREFIX) > 0


def test_a_doc_comment_documents_the_declaration_right_under_it() -> None:
    text = (
        "/// Stray.\n\n/// Real.\n// swiftlint:disable:next identifier_name\npublic func c() {}\n"
        "/// Of an internal one.\nfunc a() {}\npublic func b() {}\n"
    )
    assert {u: d.text for u, d in read(text).items()} == {
        "swift:Kit.c()": "public func c()\n\nReal."
    }


def test_property_wrappers_and_actors_attributes_are_shown_inlining_ones_not() -> None:
    text = (
        "public struct Options {\n"
        '    /// The name.\n    @Option(name: .long) @inlinable public var name: String = ""\n'
        "    /// Runs.\n    @discardableResult @_alwaysEmitIntoClient @MainActor\n"
        "    public func run() -> Int { 0 }\n}\n"
    )
    docs = read(text)
    assert docs["swift:Kit.Options.name"].text.startswith(
        "@Option(name: .long) public var name: String\n\n"
    )
    assert docs["swift:Kit.Options.run()"].text.startswith(
        "@MainActor public func run() -> Int\n\n"
    )


def test_a_type_lists_at_most_a_hundred_members_and_no_underscored_conformance() -> None:
    members = "".join(f"    /// Member {k}.\n    public var m{k}: Int\n" for k in range(103))
    text = f"/// Big.\npublic struct Big {{\n{members}}}\nextension Big: _Hidden, Hashable {{}}\n"
    body = read(text)["swift:Kit.Big"].text
    assert "Conforms to: `Hashable`." in body
    assert "- `m99`: Member 99.\n- ... and 3 more" in body
    assert "m100" not in body


def test_a_swift_package_is_read_by_init_and_asked_as_declared(tmp_path: Path) -> None:
    """`jupiter init` on a folder with a Package.swift reads its .swift files as their API;
    a method is asked its arguments by their inner names and its declaration, a case with
    no payload its declaration, never a call."""
    from apitree import ask, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig
    from jupiter.config.cli import source_entry

    code = (
        "/// A parser of command lines.\npublic struct Parser {\n"
        "    /// Parses the arguments of one run.\n    ///\n"
        "    /// - Parameters:\n    ///   - arguments: The words after the program's name.\n"
        "    ///   - strict: Whether an unknown flag is an error.\n"
        "    /// - Returns: The parsed command.\n"
        "    public func parse(_ arguments: [String], strict: Bool = true) -> Command {\n"
        "        fatalError()\n    }\n}\n\n"
        "/// How a run ends.\npublic enum Outcome {\n    /// The run succeeded.\n    case success\n}\n"
    )
    write_tree(
        tmp_path / "pkg",
        {"Package.swift": "// swift-tools-version:5.9\n", "Sources/Kit/Parser.swift": code},
    )
    entry = source_entry(str(tmp_path / "pkg"))
    assert "*.swift" in entry["include"]  # type: ignore[operator]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    assert sorted(docs) == [
        "swift:Kit.Outcome",
        "swift:Kit.Outcome.success",
        "swift:Kit.Parser",
        "swift:Kit.Parser.parse(_:strict:)",
    ]
    asked = ask(docs["swift:Kit.Parser.parse(_:strict:)"])
    assert asked["arguments"] == (
        "`Kit.Parser.parse(_:strict:)` takes 2 arguments: _ arguments: [String], "
        "strict: Bool = true.\n\n- arguments: The words after the program's name.\n"
        "- strict: Whether an unknown flag is an error."
    )
    assert asked["signature"] == (
        "`public func parse(_ arguments: [String], strict: Bool = true) -> Command`"
    )
    assert asked["what_does"] == "Parses the arguments of one run."
    assert ask(docs["swift:Kit.Outcome.success"], ["signature"]) == {"signature": "`case success`"}
    assert ask(docs["swift:Kit.Parser"], ["signature"]) == {}  # a type: no signature
