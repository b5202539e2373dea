"""Solidity read as its contracts' API, as solc's NatSpec output and OpenZeppelin's docgen
show it: source files scanned, never compiled, each documented contract, function,
modifier, event, error, struct, enum, public state variable and value type a document
named through its contract (`solidity:Token.transfer`), a file-level item through the
file's stem."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import fuzzed
from jupiter.collect import CollectResult
from jupiter.collect.result import SourceFile
from jupiter.collect.solapi import (
    FIXES,
    SOL_NO_API,
    SOL_TEST,
    SUFFIXES,
    URI_PREFIX,
    api_documents,
    is_solidity,
    is_test,
)
from jupiter.records import Document

TOKEN = """\
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {IERC20} from "./IERC20.sol";
using {add as +} for Fixed global;

/// @title A simple token
/// @author Someone
/// @notice Moves value between accounts. See {IERC20-transfer}
/// and {xref-Token-burn-uint256-}[`burn`].
/// @dev Supply is fixed; https://example.com/guide[the
/// guide] says more.
/// @custom:security-contact sec@example.com
abstract contract Token is Context, IERC20("T") {
    string private constant NOTE = "function fake() // not code";
    string private _name = '}{';

    /// @dev The total supply.
    uint256 public constant MAX = 10 ** 18;

    /// @notice Balances by account.
    mapping(address account => uint256) public balances;

    /// @dev Not public: no document.
    uint256 internal _hidden;

    /**
     * @notice Emitted when `value` tokens move.
     * @param from the sender
     * @param to the receiver
     */
    event Transfer(address indexed from, address indexed to, uint256 value);

    /// @dev The sender lacks `needed` tokens.
    /// @param needed how many it needs
    error Insufficient(address sender, uint256 needed);

    /**
     * @dev Only the owner.
     */
    modifier onlyOwner() {
        _;
    }

    /**
     * Sends tokens.
     *
     * Requirements:
     *
     * - `to` is not zero.
     *
     * @param to the receiver
     * @param value how much
     * @return ok whether it went through
     */
    function transfer(
        address to,
        uint256 value
    ) public virtual onlyOwner returns (bool ok) {
        if (to == address(0)) {
            revert Insufficient(msg.sender, value);
        }
        string memory s = "} function evil() {";
        { { } }
        return true;
    }

    /// @notice Sends tokens with data.
    /// @return the first result
    /// @return the second result
    function transfer(address payable to, uint value, bytes memory data) external returns (bool, uint256) {}

    /// @inheritdoc IERC20
    function approve(address spender, uint256 value) public override returns (bool) {}

    /// @inheritdoc Missing
    function allowance(address owner, address spender) public view returns (uint256) {}

    /// @dev Mints tokens: internal, still API.
    function _mint(address to, uint256 value) internal {}

    /// @dev A private helper: no document.
    function _helper() private {}

    // a plain comment over an undocumented function
    function plain() public {}

    /// @dev A documented item needs its doc right over it.
    // a plain comment between
    function separated() public {}

    /// @dev A linter's directive between is passed over.
    // solhint-disable-next-line func-name-mixedcase
    function CLOCK_MODE() public pure returns (string memory) {}

    /// @notice A checkpoint.
    /// @param key when
    /// @param value what
    struct Checkpoint {
        uint32 key;
        uint224 value;
        bytes extra;
    }

    /// @dev How to round.
    enum Rounding {
        Floor, // down
        Ceil
    }

    /// @notice Runs on plain ether.
    receive() external payable {}

    /// @notice Sets the name.
    constructor(string memory name_) {}
}
"""

IERC20 = """\
pragma solidity ^0.8.0;

/// @dev The ERC-20 standard.
interface IERC20 is IERC165 {
    /**
     * @notice Sets `value` as the allowance of `spender`.
     * @dev Emits an {Approval} event.
     * @param spender who may spend
     * @param value how much
     * @return whether it worked
     */
    function approve(address spender, uint256 value) external returns (bool);

    /// @notice Transfers.
    function transfer(address to, uint256 value) external returns (bool);

    function undocumented() external;
}
"""

LIB = """\
pragma solidity ^0.8.8;

/// @dev A fixed-point number.
type UFixed is uint256;

/// @dev The scale of a `UFixed`.
uint256 constant SCALE = 1e18;

/// @dev Adds two fixed-point numbers.
function add(UFixed a, UFixed b) pure returns (UFixed) {
    return UFixed.wrap(UFixed.unwrap(a) + UFixed.unwrap(b));
}

/// @dev A file-level error.
error Overflow();

/**
 * @dev Math helpers.
 */
library Math {
    /// @dev Multiplies then divides.
    function mulDiv(uint256 x, uint256 y, uint256 d) internal pure returns (uint256) {}

    /// @dev Multiplies then divides, rounding.
    function mulDiv(uint256 x, uint256 y, uint256 d, Rounding r) internal pure returns (uint256) {}

    /// @dev The same again, its types twice.
    function mulDiv(uint256[] memory xs, string calldata note) internal pure {}
}
"""


def read(tree: dict[str, str], rejects: CollectResult | None = None) -> dict[str, Document]:
    files = [SourceFile(P(rel), rel, text) for rel, text in tree.items()]
    return {d.uri: d for d in api_documents(files, "local", rejects)}


def test_a_contract_becomes_its_documented_api() -> None:
    docs = read({"src/Token.sol": TOKEN, "src/IERC20.sol": IERC20})
    assert sorted(u for u in docs if u.startswith("solidity:Token")) == [
        "solidity:Token",
        "solidity:Token.CLOCK_MODE",
        "solidity:Token.Checkpoint",
        "solidity:Token.Insufficient",
        "solidity:Token.MAX",
        "solidity:Token.Rounding",
        "solidity:Token.Transfer",
        "solidity:Token._mint",
        "solidity:Token.allowance",
        "solidity:Token.approve",
        "solidity:Token.balances",
        "solidity:Token.constructor",
        "solidity:Token.onlyOwner",
        "solidity:Token.receive",
        "solidity:Token.transfer",
        "solidity:Token.transfer(address,uint256,bytes)",
    ]  # _hidden: internal variable; _helper: private; plain, separated: no doc right over
    assert docs["solidity:Token"].text == (
        'abstract contract Token is Context, IERC20("T")\n\n'
        "A simple token\n\n"
        "Moves value between accounts. See `IERC20.transfer`\nand `burn`.\n\n"
        "Supply is fixed; [the guide](https://example.com/guide) says more.\n\n"
        "Custom security-contact: sec@example.com\n\n"
        "Inherits: Context, IERC20"
    )
    t = docs["solidity:Token.transfer"]
    assert t.text == (
        "function transfer(address to, uint256 value) public virtual onlyOwner returns (bool ok)"
        "\n\nSends tokens.\n\nRequirements:\n\n- `to` is not zero.\n\n"
        ":param to: the receiver\n:param value: how much\n"
        ":returns: ok - whether it went through"
    )
    assert t.meta["kind"] == "function" and t.meta["qualname"] == "Token.transfer"
    assert t.meta["signature"] == (
        "function transfer(address to, uint256 value) public virtual onlyOwner returns (bool ok)"
    )
    assert t.meta["language"] == "solidity" and t.meta["line"] == 56
    assert t.title == "Token.transfer"
    assert docs["solidity:Token.transfer(address,uint256,bytes)"].text == (
        "function transfer(address payable to, uint value, bytes memory data) external returns "
        "(bool, uint256)\n\nSends tokens with data.\n\n"
        ":returns: the first result\n:returns: the second result"
    )
    assert docs["solidity:Token.MAX"].text == "uint256 public constant MAX\n\nThe total supply."
    assert docs["solidity:Token.balances"].meta["signature"] == (
        "mapping(address account => uint256) public balances"
    )
    assert docs["solidity:Token._mint"].text == (
        "function _mint(address to, uint256 value) internal\n\nMints tokens: internal, still API."
    )
    assert docs["solidity:Token.receive"].meta["signature"] == "receive() external payable"
    assert docs["solidity:Token.constructor"].text == (
        "constructor(string memory name_)\n\nSets the name."
    )
    assert docs["solidity:Token.CLOCK_MODE"].text.endswith(
        "A linter's directive between is passed over."
    )
    kinds = {u.removeprefix("solidity:"): d.meta["kind"] for u, d in docs.items()}
    assert kinds["Token"] == "contract" and kinds["IERC20"] == "interface"
    assert kinds["Token.MAX"] == kinds["Token.balances"] == "variable"
    assert kinds["Token.onlyOwner"] == "modifier"
    assert docs["solidity:Token.onlyOwner"].text == "modifier onlyOwner()\n\nOnly the owner."


def test_events_errors_modifiers_structs_and_enums() -> None:
    docs = read({"src/Token.sol": TOKEN})
    assert docs["solidity:Token.Transfer"].text == (
        "event Transfer(address indexed from, address indexed to, uint256 value)\n\n"
        "Emitted when `value` tokens move.\n\n:param from: the sender\n:param to: the receiver"
    )
    assert docs["solidity:Token.Transfer"].meta["kind"] == "event"
    assert docs["solidity:Token.Insufficient"].text == (
        "error Insufficient(address sender, uint256 needed)\n\n"
        "The sender lacks `needed` tokens.\n\n:param needed: how many it needs"
    )
    assert docs["solidity:Token.Insufficient"].meta["kind"] == "error"
    assert docs["solidity:Token.Checkpoint"].text == (
        "struct Checkpoint\n\nA checkpoint.\n\n"
        "Fields:\n- key (uint32): when\n- value (uint224): what\n- extra (bytes)"
    )
    assert docs["solidity:Token.Rounding"].text == (
        "enum Rounding\n\nHow to round.\n\nValues: Floor, Ceil"
    )
    assert docs["solidity:Token.Rounding"].meta["kind"] == "enum"


def test_inheritdoc_reads_the_base_across_files_or_says_where_to_look() -> None:
    docs = read({"src/Token.sol": TOKEN, "src/IERC20.sol": IERC20})
    assert docs["solidity:Token.approve"].text == (
        "function approve(address spender, uint256 value) public override returns (bool)\n\n"
        "Sets `value` as the allowance of `spender`.\n\nEmits an `Approval` event.\n\n"
        ":param spender: who may spend\n:param value: how much\n:returns: whether it worked"
    )
    assert docs["solidity:Token.allowance"].text == (
        "function allowance(address owner, address spender) public view returns (uint256)\n\n"
        "See `Missing.allowance`."
    )
    alone = read({"src/Token.sol": TOKEN})  # no IERC20 handed over
    assert alone["solidity:Token.approve"].text.endswith("\n\nSee `IERC20.approve`.")
    assert docs["solidity:IERC20"].text == (
        "interface IERC20 is IERC165\n\nThe ERC-20 standard.\n\nInherits: IERC165"
    )
    assert "solidity:IERC20.undocumented" not in docs


def test_file_level_items_overloads_and_value_types() -> None:
    docs = read({"contracts/utils/Fixed.sol": LIB})
    assert sorted(docs) == [
        "solidity:Fixed.Overflow",
        "solidity:Fixed.SCALE",
        "solidity:Fixed.UFixed",
        "solidity:Fixed.add",
        "solidity:Math",
        "solidity:Math.mulDiv",
        "solidity:Math.mulDiv(uint256,uint256,uint256,Rounding)",
        "solidity:Math.mulDiv(uint256[],string)",
    ]
    assert docs["solidity:Fixed.add"].text == (
        "function add(UFixed a, UFixed b) pure returns (UFixed)\n\nAdds two fixed-point numbers."
    )
    assert docs["solidity:Fixed.UFixed"].meta["kind"] == "type"
    assert docs["solidity:Fixed.UFixed"].text == ("type UFixed is uint256\n\nA fixed-point number.")
    assert docs["solidity:Fixed.SCALE"].meta["signature"] == "uint256 constant SCALE"
    assert docs["solidity:Fixed.SCALE"].meta["kind"] == "variable"
    assert docs["solidity:Math"].meta["kind"] == "library"
    assert docs["solidity:Math.mulDiv"].meta["signature"] == (
        "function mulDiv(uint256 x, uint256 y, uint256 d) internal pure returns (uint256)"
    )


def test_natspec_forms_and_markup() -> None:
    src = """\
contract C {
    /** Block doc, untagged: a notice.
     * Indented continuation.
     * @dev See {Other-fn-address-bytes-}, {Errors.Failed}, `{kept}` and
     * xref:page.adoc#x[the page].
     *
     * ==== Heading
     * ```solidity
     * f({a: 1});
     * ```
     */
    function a() public {}

    /// First doc: a blank line and another doc follow, so it documents nothing.

    /// Second doc.
    /**
     * @dev Adjacent docs are one.
     * @custom:oz-upgrades-unsafe-allow constructor
     * @custom:stateless
     */
    function b() external {}

    /***/
    function empty() public {}
}
"""
    docs = read({"C.sol": src})
    assert docs["solidity:C.a"].text == (
        "function a() public\n\nBlock doc, untagged: a notice.\nIndented continuation.\n\n"
        "See `Other.fn(address,bytes)`, `Errors.Failed`, `{kept}` and\nthe page.\n\n"
        "#### Heading\n```solidity\nf({a: 1});\n```"
    )
    assert docs["solidity:C.b"].text == (
        "function b() external\n\nSecond doc.\n\nAdjacent docs are one.\n\n"
        "Custom oz-upgrades-unsafe-allow: constructor\nCustom stateless."
    )
    assert "solidity:C.empty" not in docs and "solidity:C" not in docs


def test_tests_and_files_without_docs_are_counted() -> None:
    assert is_solidity("ERC20.sol") and is_solidity("A.SOL") and not is_solidity("a.json")
    assert SUFFIXES == (".sol",) and URI_PREFIX == "solidity:"
    assert FIXES[SOL_TEST].endswith("the source's solidity: text reads them as text")
    assert FIXES[SOL_NO_API] == FIXES[SOL_TEST]
    for rel in [
        "test/Token.sol", "src/tests/T.sol", "contracts/mocks/ERC20Mock.sol", "mock/X.sol",
        "src/Token.t.sol", "script/Deploy.s.sol", "src/TokenTest.sol", "src/MockToken.sol",
    ]:  # fmt: skip
        assert is_test(P(rel)), rel
    assert not is_test(P("src/Testable.sol")) and not is_test(P("src/Token.sol"))
    rejects = CollectResult()
    docs = read(
        {
            "test/Token.sol": TOKEN,
            "src/Token.t.sol": TOKEN,
            "src/Plain.sol": "// SPDX\npragma solidity ^0.8.0;\ncontract P { function f() public {} }\n",
            "src/Token.sol": TOKEN,
        },
        rejects,
    )
    assert len(docs) == 16
    assert rejects.rejects == {SOL_TEST: 2, SOL_NO_API: 1}
    assert rejects.samples[SOL_NO_API] == ["src/Plain.sol"]


def test_the_first_file_declaring_a_contract_wins() -> None:
    a = "/// @dev From a.\ncontract Dup {}\n"
    b = "/// @dev From b.\ncontract Dup {}\n"
    docs = read({"b/Dup.sol": b, "a/Dup.sol": a})
    assert docs["solidity:Dup"].text == "contract Dup\n\nFrom a."


def test_malformed_solidity_never_raises() -> None:
    for text in [
        "/// doc\ncontract",
        '/// doc\nfunction f() { string s = "unterminated\n}',
        "/** unterminated doc",
        "/// doc\ncontract C { function f( ",
        "}}} ))) /// doc\nfunction g() public;",
        "/// @param\n/// @return\n/// @inheritdoc\n/// @custom:\nfunction h();",
        "/// @inheritdoc C\ncontract C { /// @inheritdoc C\n function f() public; }",
        "/// doc\nstruct S {\n/// doc\nenum E {",
        "/// doc\nuint256 public = ;",
        "",
    ]:
        for doc in read({"m.sol": text}).values():
            assert doc.uri.startswith("solidity:") and doc.text


def test_any_text_scans_without_an_error() -> None:
    pieces = [
        "contract C is A, B {\n", "interface I {\n", "library L {\n", "abstract ",
        "function f(uint a, address b) public returns (bool) ", "modifier m() ",
        "event E(uint indexed x);\n", "error Err(uint x);\n", "struct S {\n", "enum E { A, B }\n",
        "type T is uint256;\n", "uint256 public constant X = 1;\n", "mapping(address => uint) public m;\n",
        "/// @notice A doc.\n", "/// @param a the a\n", "/// @return b the b\n",
        "/// @inheritdoc C\n", "/// @custom:x y\n", "/** @dev block\n", " * line\n", "*/", "/*",
        "//", "// solhint-disable-next-line\n", '"', "'", "\\", 'hex"00"', 'unicode"é"',
        "{xref-A-b}[c]", "{A-b-c}", "https://x[", "]", "{", "}", "(", ")", "[", ";", "\n", " ",
        "constructor() ", "receive() external payable ", "fallback() ", "using L for T;\n",
        "import {A} from 'a.sol';\n", "pragma solidity ^0.8.0;\n", "private ", "= ",
    ]  # fmt: skip

    def reader(text: str) -> list[Document]:
        return api_documents([SourceFile(P("src/m.sol"), "m", text)], "local")

    assert fuzzed(reader, pieces, "solidity:") > 0


def test_a_foundry_project_is_read_by_init_and_its_questions_read_the_declaration(
    tmp_path: Path,
) -> None:
    from apitree import ask, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig
    from jupiter.config.cli import source_entry

    vault = (
        "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.20;\n\n"
        "/// @title A vault of tokens\ncontract Vault {\n"
        "    /// @notice Moves `amount` tokens out of the vault to `to`.\n"
        "    /// @param to The account that receives them.\n"
        "    /// @param amount How many tokens, in the token's smallest unit.\n"
        "    function withdraw(address to, uint256 amount) external returns (bool) {\n"
        '        require(amount > 0, "zero // not a comment");\n        return true;\n    }\n}\n'
    )
    write_tree(tmp_path / "v", {"foundry.toml": "[profile.default]\n", "src/Vault.sol": vault})
    entry = source_entry(str(tmp_path / "v"))
    assert "*.sol" in entry["include"]  # type: ignore[operator]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    assert sorted(docs) == ["solidity:Vault", "solidity:Vault.withdraw"]
    asked = ask(docs["solidity:Vault.withdraw"])
    assert asked["signature"] == (
        "`function withdraw(address to, uint256 amount) external returns (bool)`"
    )
    assert asked["what_does"] == "Moves `amount` tokens out of the vault to `to`."
    assert asked["arguments"] == (
        "`Vault.withdraw` takes 2 arguments: address to, uint256 amount.\n\n"
        "- to: The account that receives them.\n"
        "- amount: How many tokens, in the token's smallest unit."
    )
    assert ask(docs["solidity:Vault"], ["signature"]) == {}  # a contract: no signature
