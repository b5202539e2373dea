"""Nix module files read as the options reference they declare (what search.nixos.org and
`man home-configuration.nix` show): one document per declared option (`nix:<path>`), its
type described as nixpkgs' lib/types.nix describes it, sub-options of submodules under
`<name>` and `*`, from a small lexer, parser and lazy evaluator of Nix."""

from __future__ import annotations

import random
import time
from pathlib import Path
from pathlib import PurePosixPath as P

import pytest

from jupiter.collect.nixapi import (
    FIXES,
    NIX_BAD_SYNTAX,
    NIX_DYNAMIC,
    NIX_HELPER,
    NIX_HIDDEN,
    NIX_NO_API,
    NIX_PART,
    NIX_TEST,
    URI_PREFIX,
    api_documents,
    first_sentence,
    is_nix,
    is_test,
    parse,
)
from jupiter.collect.result import CollectResult, SourceFile
from jupiter.records import Document


def read(files: dict[str, str]) -> tuple[dict[str, Document], CollectResult, list[Document]]:
    got = [SourceFile(P(name), f"/src/{name}", text) for name, text in files.items()]
    rejects = CollectResult()
    docs = api_documents(got, "local", rejects)
    return {d.uri: d for d in docs}, rejects, docs


def one(body: str, name: str = "modules/m.nix") -> dict[str, Document]:
    return read({name: body})[0]


def options(docs: dict[str, Document]) -> list[str]:
    return sorted(uri for uri, d in docs.items() if d.meta["kind"] == "option")


GIT = """\
{ config, lib, pkgs, ... }:
let
  inherit (lib) mkEnableOption mkOption types;
  cfg = config.programs.git;
in
{
  options.programs.git = {
    enable = mkEnableOption "Git";

    signing = {
      key = mkOption {
        type = types.nullOr types.str;
        default = null;
        description = ''
          The default signing key fingerprint.

          Set to `null` to let the signer decide.
        '';
      };
    };
  };

  config = lib.mkIf cfg.enable { home.packages = [ pkgs.git ]; };
}
"""


def test_plain_option() -> None:
    docs, rejects, listed = read({"modules/programs/git.nix": GIT})
    d = docs["nix:programs.git.signing.key"]
    assert d.text == (
        "programs.git.signing.key: null or string\n\n"
        "The default signing key fingerprint.\n\n"
        "Set to `null` to let the signer decide.\n\n"
        "Default: `null`\n\n"
        "Declared in: modules/programs/git.nix"
    )
    assert d.meta["kind"] == "option"
    assert d.meta["qualname"] == d.title == "programs.git.signing.key"
    assert d.meta["signature"] == "programs.git.signing.key: null or string"
    assert d.meta["option_type"] == "null or string"
    assert d.meta["line"] == 11
    assert d.meta["origin"] == "/src/modules/programs/git.nix"
    assert d.meta["language"] == "nix"
    assert d.source == "local"
    assert [x.uri for x in listed] == sorted(x.uri for x in listed)
    assert rejects.rejects == {}
    assert URI_PREFIX == "nix:"


def test_enable_option() -> None:
    d = one(GIT)["nix:programs.git.enable"]
    assert d.text == (
        "programs.git.enable: boolean\n\n"
        "Whether to enable Git.\n\n"
        "Default: `false`\n\n"
        "Example: `true`\n\n"
        "Declared in: modules/m.nix"
    )
    assert d.meta["line"] == 8


def test_package_option() -> None:
    docs = one(
        """{ lib, pkgs, ... }: {
  options.programs.git.package = lib.mkPackageOption pkgs "git" {
    nullable = true;
    example = "pkgs.gitFull";
    extraDescription = "Use {var}`pkgs.gitFull` for {command}`git send-email`.";
  };
  options.programs.py.package = lib.mkPackageOption pkgs [ "python3Packages" "black" ] { };
  options.programs.x.package = lib.mkPackageOption pkgs "x" { default = null; };
}"""
    )
    assert docs["nix:programs.git.package"].text == (
        "programs.git.package: null or package\n\n"
        "The git package to use. Use `pkgs.gitFull` for `git send-email`.\n\n"
        "Default: `pkgs.git`\n\n"
        "Example: `pkgs.gitFull`\n\n"
        "Declared in: modules/m.nix"
    )
    assert docs["nix:programs.py.package"].text == (
        "programs.py.package: package\n\n"
        "The black package to use.\n\n"
        "Default: `pkgs.python3Packages.black`\n\n"
        "Declared in: modules/m.nix"
    )
    # no default and not nullable: none shown
    assert docs["nix:programs.x.package"].text == (
        "programs.x.package: package\n\nThe x package to use.\n\nDeclared in: modules/m.nix"
    )


def test_indented_strings() -> None:
    docs = one(
        """{ lib, ... }:
let what = "thing"; in
{
  options.a = lib.mkOption {
    type = lib.types.lines;
    description = ''
        First line, indented two more.
      Second: ''${not.interpolated} and ''' quotes,
      a ${what} and ''\\ttab.

        code, kept indented
    '';
  };
  options.b = lib.mkOption {
    type = lib.types.str;
    description = "One\\nTwo \\"quoted\\" \\${literal} $${x}";
    default = ''
      line one
      line two
    '';
  };
}"""
    )
    assert docs["nix:a"].text.split("\n\n")[1:3] == [
        "  First line, indented two more.\n"
        "Second: ${not.interpolated} and '' quotes,\n"
        "a thing and \ttab.",
        "  code, kept indented",
    ]
    assert docs["nix:b"].text == (
        "b: string\n\n"
        'One\nTwo "quoted" ${literal} $${x}\n\n'
        "Default:\n```nix\n''\n  line one\n  line two\n''\n```\n\n"
        "Declared in: modules/m.nix"
    )


def test_submodule_with_name_and_list() -> None:
    docs = one(
        """{ config, lib, ... }:
with lib;
{
  options.services.nginx = {
    virtualHosts = mkOption {
      type = types.attrsOf (types.submodule ({ name, config, ... }: {
        options = {
          root = mkOption {
            type = types.nullOr types.path;
            default = null;
            description = "The root of ${name}.";
          };
          locations = mkOption {
            type = types.listOf (types.submodule {
              options.path = mkOption { type = types.str; description = "A path."; };
            });
            default = [ ];
            description = "Locations.";
          };
        };
      }));
      default = { };
      description = "Virtual hosts.";
    };
  };
}"""
    )
    assert options(docs) == [
        "nix:services.nginx.virtualHosts",
        "nix:services.nginx.virtualHosts.<name>.locations",
        "nix:services.nginx.virtualHosts.<name>.locations.*.path",
        "nix:services.nginx.virtualHosts.<name>.root",
    ]
    assert docs["nix:services.nginx.virtualHosts.<name>.root"].text == (
        "services.nginx.virtualHosts.<name>.root: null or path\n\n"
        "The root of ‹name›.\n\n"
        "Default: `null`\n\n"
        "Declared in: modules/m.nix"
    )
    assert docs["nix:services.nginx.virtualHosts"].meta["option_type"] == (
        "attribute set of (submodule)"
    )
    assert docs["nix:services.nginx.virtualHosts.<name>.locations"].meta["option_type"] == (
        "list of (submodule)"
    )
    assert docs["nix:services.nginx.virtualHosts.<name>.root"].meta["line"] == 8


def test_let_bound_submodule_and_placeholders() -> None:
    docs = one(
        """{ lib, ... }:
let
  inherit (lib) mkOption types;
  hostOpts = { name, ... }: {
    options.port = mkOption { type = types.port; default = 80; description = "Port."; };
  };
  tagged = types.attrsWith { placeholder = "host"; elemType = types.submodule hostOpts; };
in
{
  options.hosts = mkOption { type = types.attrsOf (types.submodule hostOpts); };
  options.tagged = mkOption { type = tagged; };
  options.maybe = mkOption { type = types.nullOr (types.submodule [ hostOpts ]); };
  options.fn = mkOption { type = types.functionTo (types.submodule hostOpts); };
}"""
    )
    assert options(docs) == [
        "nix:fn",
        "nix:fn.<function body>.port",
        "nix:hosts",
        "nix:hosts.<name>.port",
        "nix:maybe",
        "nix:maybe.port",
        "nix:tagged",
        "nix:tagged.<host>.port",
    ]
    assert docs["nix:hosts.<name>.port"].meta["option_type"] == (
        "16 bit unsigned integer; between 0 and 65535 (both inclusive)"
    )
    assert docs["nix:maybe"].meta["option_type"] == "null or (submodule)"
    assert docs["nix:fn"].meta["option_type"] == "function that evaluates to a(n) (submodule)"
    assert docs["nix:tagged"].meta["option_type"] == "attribute set of (submodule)"


def test_defaults_and_examples() -> None:
    docs = one(
        """{ lib, pkgs, ... }:
let
  defaultPort = 8080;
  settings = {
    a = 1;
    b = [ "x" ];
  };
in
{
  options.x = {
    expr = lib.mkOption {
      type = lib.types.package;
      default = pkgs.hello;
      defaultText = lib.literalExpression "pkgs.hello";
      example = lib.literalExpression ''
        pkgs.hello.override {
          x = 1;
        }
      '';
      description = "Expr.";
    };
    md = lib.mkOption {
      type = lib.types.str;
      defaultText = lib.literalMD "the value of `x.expr`";
      description = "Md.";
    };
    plain = lib.mkOption {
      type = lib.types.str;
      defaultText = "$HOME/x";
      description = "Plain.";
    };
    port = lib.mkOption { type = lib.types.port; default = defaultPort; description = "P."; };
    set = lib.mkOption { type = lib.types.attrs; default = settings; description = "S."; };
    computed = lib.mkOption {
      type = lib.types.str;
      default = "a" + "b";
      readOnly = true;
      description = "C.";
    };
    unknown = lib.mkOption {
      type = lib.types.str;
      default = "${pkgs.hello}/bin/hello";
      description = "U.";
    };
  };
}"""
    )
    assert docs["nix:x.expr"].text == (
        "x.expr: package\n\nExpr.\n\nDefault: `pkgs.hello`\n\n"
        "Example:\n```nix\npkgs.hello.override {\n  x = 1;\n}\n```\n\n"
        "Declared in: modules/m.nix"
    )
    assert "Default: the value of `x.expr`" in docs["nix:x.md"].text
    assert 'Default: `"$HOME/x"`' in docs["nix:x.plain"].text
    assert "Default: `8080`" in docs["nix:x.port"].text
    assert 'Default:\n```nix\n{\n  a = 1;\n  b = [ "x" ];\n}\n```' in docs["nix:x.set"].text
    assert docs["nix:x.computed"].text == (
        'x.computed: string\n\nC.\n\nDefault: `"ab"`\n\nRead only.\n\nDeclared in: modules/m.nix'
    )
    assert 'Default: `"${pkgs.hello}/bin/hello"`' in docs["nix:x.unknown"].text


def test_hidden_options() -> None:
    docs, rejects, _ = read(
        {
            "modules/h.nix": """{ lib, ... }: with lib; {
  options.h = {
    internal = mkOption { type = types.str; internal = true; description = "I."; };
    invisible = mkOption {
      visible = false;
      type = types.submodule { options.sub = mkOption { type = types.str; }; };
    };
    shallow = mkOption {
      visible = "shallow";
      type = types.submodule { options.sub = mkOption { type = types.str; }; };
    };
    transparent = mkOption {
      visible = "transparent";
      type = types.submodule { options.sub = mkOption { type = types.str; }; };
    };
    sink = mkSinkUndeclaredOptions { };
    shown = mkOption { type = types.int; description = "S."; };
  };
}"""
        }
    )
    assert options(docs) == ["nix:h.shallow", "nix:h.shown", "nix:h.transparent.sub"]
    assert rejects.rejects == {NIX_HIDDEN: 4}
    assert rejects.samples[NIX_HIDDEN][0] == "/src/modules/h.nix:3"
    assert docs["nix:h.transparent.sub"].text == (
        "h.transparent.sub: string\n\nDeclared in: modules/h.nix"
    )


TYPES = [
    ("types.bool", "boolean"),
    ("types.str", "string"),
    ("types.lines", 'strings concatenated with "\\n"'),
    ("types.path", "path"),
    ("types.package", "package"),
    ("types.anything", "anything"),
    ("types.attrs", "attribute set"),
    ("types.int", "signed integer"),
    ("types.ints.positive", "positive integer, meaning >0"),
    ("types.ints.unsigned", "unsigned integer, meaning >=0"),
    ("types.ints.u8", "8 bit unsigned integer; between 0 and 255 (both inclusive)"),
    ("types.ints.between 1 9", "integer between 1 and 9 (both inclusive)"),
    (
        "types.numbers.between 0 0.5",
        "integer or floating point number between 0 and 0.5 (both inclusive)",
    ),
    ("types.port", "16 bit unsigned integer; between 0 and 65535 (both inclusive)"),
    ("types.float", "floating point number"),
    ("types.nullOr types.str", "null or string"),
    ("types.nullOr (types.listOf types.str)", "null or (list of string)"),
    ("types.listOf types.package", "list of package"),
    ("types.listOf (types.nullOr types.str)", "list of (null or string)"),
    ("types.listOf types.attrs", "list of (attribute set)"),
    ("types.nonEmptyListOf types.str", "non-empty (list of string)"),
    ("types.attrsOf types.str", "attribute set of string"),
    ("types.lazyAttrsOf types.int", "lazy attribute set of signed integer"),
    ("types.attrsOf (types.listOf types.str)", "attribute set of list of string"),
    ('types.enum [ "a" "b" ]', 'one of "a", "b"'),
    ("types.enum [ 1 true null ]", "one of 1, true, <null>"),
    ('types.enum [ "only" ]', 'value "only" (singular enum)'),
    ("types.enum [ ]", "impossible (empty enum)"),
    ('types.nullOr (types.enum [ "a" "b" ])', 'null or one of "a", "b"'),
    ("types.either types.str types.int", "string or signed integer"),
    ("types.either (types.listOf types.str) types.str", "(list of string) or string"),
    ("types.either types.str (types.listOf types.str)", "string or list of string"),
    ("types.oneOf [ types.str types.int types.bool ]", "string or signed integer or boolean"),
    (
        "types.either types.ints.positive types.str",
        "positive integer, meaning >0, or string",
    ),
    (
        "types.coercedTo types.str (x: [ x ]) (types.listOf types.str)",
        "(list of string) or string convertible to it",
    ),
    ('types.strMatching "[a-z]+"', "string matching the pattern [a-z]+"),
    ('types.separatedString ","', 'strings concatenated with ","'),
    ("types.functionTo types.str", "function that evaluates to a(n) string"),
    ("types.uniq types.str", "string"),
    ("types.submodule { }", "submodule"),
    ("types.submodule { freeformType = types.attrsOf types.str; }", "attribute set of string"),
    ('types.submoduleWith { modules = [ ]; description = "a thing"; }', "a thing"),
    ("(pkgs.formats.toml { }).type", "TOML value"),
    ("lib.hm.types.dagOf types.str", "DAG of string"),
    ('types.mkOptionType { name = "x"; description = "an x"; }', "an x"),
    ('types.str // { description = "a word"; }', "a word"),
    ("tomlFormat.type", "tomlFormat.type"),
    ("types.listOf (mystery 1)", "list of (mystery 1)"),
]


@pytest.mark.parametrize(("expr", "phrase"), TYPES)
def test_type_phrases(expr: str, phrase: str) -> None:
    body = f"{{ lib, pkgs, ... }}: {{ options.t = lib.mkOption {{ type = with lib; {expr}; }}; }}"
    docs = one(body)
    assert docs["nix:t"].meta["option_type"] == phrase


def test_no_type_is_unspecified() -> None:
    assert one("{ lib, ... }: { options.t = lib.mkOption { }; }")["nix:t"].text == (
        "t: unspecified value\n\nDeclared in: modules/m.nix"
    )


def test_names_built_from_lets_and_dynamic_ones() -> None:
    docs, rejects, _ = read(
        {
            "modules/a.nix": """{ lib, ... }:
let name = "foo"; key = "key.with.dots"; in
{
  options.services.${name}.enable = lib.mkEnableOption "foo";
  options.services."${name}-bar".enable = lib.mkEnableOption "bar";
  options.settings."${key}" = lib.mkOption { type = lib.types.str; };
  options.more = lib.setAttrByPath [ "baz" "x" ] (lib.mkOption { type = lib.types.int; });
}""",
            "modules/b.nix": """{ lib, name, ... }: {
  options.programs.${name}.enable = lib.mkEnableOption name;
  options.programs.known = lib.genAttrs [ "one" "two" ] (n: lib.mkEnableOption n);
}""",
        }
    )
    assert options(docs) == [
        "nix:more.baz.x",
        "nix:programs.known.one",
        "nix:programs.known.two",
        "nix:services.foo-bar.enable",
        "nix:services.foo.enable",
        'nix:settings."key.with.dots"',
    ]
    assert rejects.rejects == {NIX_DYNAMIC: 1}
    assert rejects.samples[NIX_DYNAMIC] == ["/src/modules/b.nix:2"]
    assert "Whether to enable two." in docs["nix:programs.known.two"].text


def test_helpers_of_the_file() -> None:
    docs, rejects, _ = read(
        {
            "modules/h.nix": """{ lib, pkgs, ... }:
let
  inherit (lib) mkOption types;
  mkNullableOption = args: mkOption (args // { type = types.nullOr args.type; default = null; });
  linuxOnly = option: option // {
    description = option.description + " Linux only.";
    readOnly = true;
  };
in
{
  options.h = {
    a = mkNullableOption { type = types.str; description = "A."; };
    b = linuxOnly (mkOption { type = types.bool; description = "B."; });
    c = lib.hm.shell.mkZshIntegrationOption { inherit pkgs; };
  };
}"""
        }
    )
    assert docs["nix:h.a"].text == (
        "h.a: null or string\n\nA.\n\nDefault: `null`\n\nDeclared in: modules/h.nix"
    )
    assert docs["nix:h.b"].text == (
        "h.b: boolean\n\nB. Linux only.\n\nRead only.\n\nDeclared in: modules/h.nix"
    )
    assert rejects.rejects == {NIX_HELPER: 1}


def test_markdown_roles_and_docbook() -> None:
    d = one(
        """{ lib, ... }: {
  options.m = lib.mkOption {
    type = lib.types.str;
    description = lib.mdDoc ''
      See {option}`programs.git.enable`, {file}`~/.gitconfig`, {env}`HOME`,
      {manpage}`git(1)` and [](#opt-programs.ssh.matchBlocks._name_.host).

      Old: <literal>x</literal>, <option>y</option> and
      <link xlink:href="https://example.org">a link</link>.
    '';
  };
}"""
    )["nix:m"]
    assert d.text.split("\n\n")[1:3] == [
        "See `programs.git.enable`, `~/.gitconfig`, `HOME`,\n"
        "`git(1)` and `programs.ssh.matchBlocks.<name>.host`.",
        "Old: `x`, `y` and\n[a link](https://example.org).",
    ]


def test_quoted_name_parts() -> None:
    docs = one(
        """{ lib, ... }: {
  options.targets.defaults."com.apple.dock".autohide = lib.mkOption { type = lib.types.bool; };
}"""
    )
    assert options(docs) == ['nix:targets.defaults."com.apple.dock".autohide']


def test_renamed_and_removed_options() -> None:
    docs = one(
        """{ lib, ... }: {
  imports = [
    (lib.mkRenamedOptionModule [ "programs" "old" ] [ "programs" "new" ])
    (lib.mkRemovedOptionModule [ "programs" "gone" ] "Use `programs.new` instead.")
    ./other.nix
  ];
  options.programs.new = lib.mkOption { type = lib.types.str; };
}"""
    )
    assert docs["nix:programs.old"].text == (
        "programs.old: renamed option\n\n"
        "The option has been renamed to `programs.new`.\n\n"
        "Declared in: modules/m.nix"
    )
    assert docs["nix:programs.old"].meta["kind"] == "renamed option"
    assert docs["nix:programs.gone"].text == (
        "programs.gone: removed option\n\n"
        "The option has been removed.\n\n"
        "Use `programs.new` instead.\n\n"
        "Declared in: modules/m.nix"
    )
    assert docs["nix:programs.gone"].meta["kind"] == "removed option"


def test_module_document() -> None:
    d = one(GIT)["nix:module:modules/m.nix"]
    assert d.text == (
        "modules/m.nix: module declaring 2 options\n\n"
        "Options:\n"
        "- `programs.git.enable` (boolean): Whether to enable Git.\n"
        "- `programs.git.signing.key` (null or string): The default signing key fingerprint."
    )
    assert d.meta["kind"] == "module"
    assert d.title == "module:modules/m.nix"


def test_first_file_wins_and_imported_submodule_files() -> None:
    docs, rejects, _ = read(
        {
            "modules/a.nix": GIT,
            "modules/b.nix": GIT.replace("The default signing key", "Another"),
            "modules/mail/default.nix": """{ lib, ... }: {
  options.accounts.email.accounts = lib.mkOption {
    type = lib.types.attrsOf (lib.types.submodule (import ./account.nix));
  };
}""",
            "modules/mail/account.nix": """{ lib, ... }: {
  options.mail.enable = lib.mkEnableOption "mail for this account";
}""",
        }
    )
    assert "Declared in: modules/a.nix" in docs["nix:programs.git.signing.key"].text
    assert "The default signing key" in docs["nix:programs.git.signing.key"].text
    assert "nix:accounts.email.accounts.<name>.mail.enable" in docs
    assert "nix:mail.enable" not in docs
    assert rejects.rejects == {NIX_PART: 1}
    assert rejects.samples[NIX_PART] == ["/src/modules/mail/account.nix"]


def test_options_through_imported_functions() -> None:
    docs = read(
        {
            "modules/programs/firefox.nix": """{ lib, ... }: {
  imports = [ (import ./mkBrowser.nix { path = [ "programs" "firefox" ]; name = "Firefox"; }) ];
}""",
            "modules/programs/mkBrowser.nix": """{ path, name }: { lib, ... }: {
  options = lib.setAttrByPath path {
    enable = lib.mkEnableOption name;
  };
}""",
        }
    )[0]
    d = docs["nix:programs.firefox.enable"]
    assert "Whether to enable Firefox." in d.text
    assert d.text.endswith("Declared in: modules/programs/firefox.nix")
    assert d.meta["line"] == 2


def test_rejects_and_fixes() -> None:
    docs, rejects, _ = read(
        {
            "tests/modules/t.nix": GIT,
            "modules/broken.nix": "{ options.x = lib.mkOption { ",
            "pkgs/hello.nix": '{ stdenv, fetchurl }: stdenv.mkDerivation { pname = "hello"; }',
            "lib/strings.nix": "{ lib }: rec { concat = a: b: a + b; }",
        }
    )
    assert docs == {}
    assert rejects.rejects == {NIX_TEST: 1, NIX_BAD_SYNTAX: 1, NIX_NO_API: 2}
    for reason in (NIX_TEST, NIX_BAD_SYNTAX, NIX_NO_API, NIX_HIDDEN, NIX_DYNAMIC, NIX_PART):
        assert reason in FIXES


def test_is_nix_and_is_test() -> None:
    assert is_nix("modules/programs/git.nix")
    assert is_nix("FLAKE.NIX")
    assert not is_nix("git.nix.md")
    assert is_test(P("tests/modules/x.nix"))
    assert is_test(P("nixos/test/x.nix"))
    assert not is_test(P("modules/testing.nix"))


def test_parser_reads_the_language() -> None:
    text = """
# a comment
/* a block comment */
{ a ? 1, b, ... }@args:
let
  inherit (builtins) map;
  x = rec { y = 1; z = y + 2; };
  s = "str ${toString (x.z or 0)} \\" ${"nested ${"deep"}"}";
  p = ./some/path.nix;
  q = ./x-${a}.nix;
  h = <nixpkgs>;
  u = https://example.org/x;
  f = x: y: x // y;
  l = [ 1 2.5 (-3) "four" (f {} {}) ];
  c = if a == 1 && !(b -> true) then [ ] ++ [ 1 ] else null;
  d = a ? b.c || a.b.c or false;
  e = assert true; 1 + 2 * 3 - 4 / 2;
  g = x |> map (v: v) <| y;
in
with x; { inherit a b; "q${s}".r = 1; ${s} = 2; }
"""
    parse(text)


def test_fuzz_does_not_raise() -> None:
    rng = random.Random(7)
    pieces = [
        "{",
        "}",
        "[",
        "]",
        "(",
        ")",
        '"',
        "''",
        "${",
        "/*",
        "*/",
        "#",
        "\n",
        " ",
        "let",
        "in",
        "with lib;",
        "options",
        "=",
        ";",
        ":",
        ".",
        "mkOption",
        "types.str",
        "x",
        "./p",
        "//",
        "rec",
        "inherit",
        "''$",
        "'''",
        "\\",
        "1",
        "?",
        "@",
        "...",
        ",",
        "if",
        "then",
        "else",
        "assert",
    ]
    base = GIT
    start = time.monotonic()
    for i in range(300):
        if i % 2:
            text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        else:
            cut = rng.randint(0, len(base))
            text = base[:cut] + rng.choice(pieces) + base[cut + rng.randint(0, 20) :]
        docs = read({"modules/f.nix": text})[0]
        assert all(d.uri.startswith(URI_PREFIX) for d in docs.values())
    assert time.monotonic() - start < 20


def test_loops_and_deep_nesting_do_not_raise() -> None:
    loop = """{ lib, ... }: let a = b; b = a; s = rec { x = x; }; in {
  options.l = lib.mkOption { type = a; default = s.x; description = a; };
}"""
    assert one(loop)["nix:l"].text.startswith("l: a")
    deep = "{ lib, ... }: { options.d = " + "[ " * 300 + "]" * 300 + "; }"
    _, rejects, _ = read({"modules/d.nix": deep})
    assert rejects.rejects == {NIX_BAD_SYNTAX: 1}


def test_first_sentence() -> None:
    assert first_sentence("Whether to enable x. More here.") == "Whether to enable x."
    assert first_sentence("Use e.g. this one. Then") == "Use e.g. this one."
    assert first_sentence("One\nline.\n\nNext para.") == "One line."


def test_library_doc_comments() -> None:
    docs, rejects, _ = read(
        {
            "lib/strings.nix": """{ lib }:
let
  inherit (builtins) concatStringsSep;
in
rec {
  /**
    Concatenate a list of strings.

    # Type

    ```
    concatStrings :: [string] -> string
    ```
  */
  concatStrings = concatStringsSep "";

  /** Join with a separator. */
  join = sep: { list, ... }: concatStringsSep sep list;

  undocumented = x: x;

  nested = {
    /**
      The answer.
    */
    answer = 42;
  };
}""",
        }
    )
    assert sorted(docs) == [
        "nix:lib.strings.concatStrings",
        "nix:lib.strings.join",
        "nix:lib.strings.nested.answer",
    ]
    d = docs["nix:lib.strings.concatStrings"]
    assert d.text == (
        "lib.strings.concatStrings :: [string] -> string\n\n"
        "Concatenate a list of strings.\n\n"
        "# Type\n\n```\nconcatStrings :: [string] -> string\n```\n\n"
        "Declared in: lib/strings.nix"
    )
    assert d.meta["kind"] == "function"
    assert d.meta["line"] == 15
    assert docs["nix:lib.strings.join"].text == (
        "lib.strings.join sep { list }\n\nJoin with a separator.\n\nDeclared in: lib/strings.nix"
    )
    assert docs["nix:lib.strings.nested.answer"].meta["kind"] == "value"
    assert rejects.rejects == {}


def test_a_folder_of_modules_is_read_by_init_and_its_options_are_asked(
    tmp_path: Path,
) -> None:
    """`jupiter init` on a folder of .nix files reads the options its modules declare; an
    option is asked what it does, its type when it says more than a bare type and its
    stated default; a module's own document lists them."""

    from apitree import asked, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig
    from jupiter.config.cli import source_entry

    module = (
        "{ config, lib, pkgs, ... }:\nlet\n  inherit (lib) mkOption mkEnableOption types;\n"
        "in\n{\n  options.services.pinger = {\n"
        '    enable = mkEnableOption "the pinger";\n'
        "    interval = mkOption {\n      type = types.nullOr types.int;\n      default = 60;\n"
        "      description = ''\n        Seconds between two pings of each host.\n      '';\n"
        "    };\n  };\n}\n"
    )
    write_tree(tmp_path / "mods", {"pinger.nix": module})
    entry = source_entry(str(tmp_path / "mods"))
    assert "*.nix" in entry["include"]  # type: ignore[operator]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    assert sorted(docs) == [
        "nix:module:pinger.nix",
        "nix:services.pinger.enable",
        "nix:services.pinger.interval",
    ]

    interval = asked(docs["nix:services.pinger.interval"])
    assert sorted(interval.values()) == [
        "Seconds between two pings of each host.",
        "`60`",
        "`null or signed integer`",
    ]
    # a bare boolean's type says nothing, its default `false` is asked
    assert sorted(asked(docs["nix:services.pinger.enable"]).values()) == [
        "Whether to enable the pinger.",
        "`false`",
    ]
