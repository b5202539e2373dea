"""Puppet modules read as their reference (what puppet strings writes as REFERENCE.md):
each documented class, defined type, type alias, function, plan and task a document
(`puppet:ntp`, `puppet:stdlib::absolutepath`), each documented parameter one
(`puppet:ntp:servers`), from a small lexer of the Puppet language and the YARD tags (or
the legacy RDoc sections) of the comment above each declaration."""

from __future__ import annotations

import json
import time
from pathlib import Path
from pathlib import PurePosixPath as P

from jupiter.collect.puppetapi import (
    FIXES,
    MANIFEST,
    PUPPET_BAD_SYNTAX,
    PUPPET_CUT,
    PUPPET_NO_API,
    PUPPET_TOO_BIG,
    URI_PREFIX,
    api_documents,
    first_sentence,
    is_puppet,
    takes,
)
from jupiter.collect.result import CollectResult, SourceFile
from jupiter.records import Document


def read(
    files: dict[str, str], top: str = ""
) -> tuple[dict[str, Document], CollectResult, list[Document]]:
    got = [SourceFile(P(name), f"/src/{name}", text) for name, text in files.items()]
    rejects = CollectResult()
    docs = api_documents(got, "local", rejects, top)
    return {d.uri: d for d in docs}, rejects, docs


NTP = """\
# @summary Installs and manages NTP.
#
# The main class: include it and set `servers`.
#
# @param servers
#   The servers to sync with.
#   One per entry.
#
# @param package_ensure Whether to install the package. Defaults to present.
#
# @param quiet
#
# @example Basic use
#   class { 'ntp':
#     servers => ['0.pool.ntp.org'],
#   }
class ntp (
  Array[String] $servers = ['a.example', 'b.example'],
  Enum['present', 'absent'] $package_ensure = 'present',
  Boolean $quiet = false,
  Hash $opts = {
    'k' => 'v',
  },
  String $required,
) {
  include ntp::install
}
"""


def test_names_the_files_it_takes() -> None:
    assert is_puppet("manifests/init.pp") and is_puppet("X.PP")
    assert not is_puppet("lib/puppet/functions/foo.rb")
    assert takes("stdlib/lib/puppet/functions/stdlib/foo.rb")
    assert takes("stdlib/lib/puppet/parser/functions/pick.rb")
    assert takes("apache/tasks/init.json") and takes("ntp/data/common.yaml")
    assert takes(MANIFEST) and takes("ntp/manifests/init.pp")
    assert not takes("ntp/lib/puppet/type/foo.rb") and not takes("ntp/templates/a.json")
    assert URI_PREFIX == "puppet:"
    for reason in (PUPPET_NO_API, PUPPET_BAD_SYNTAX, PUPPET_TOO_BIG, PUPPET_CUT):
        assert "puppet: text" in FIXES[reason]


def test_a_class_and_its_documented_parameters() -> None:
    docs, rejects, ordered = read({"ntp/manifests/init.pp": NTP})
    assert [d.uri for d in ordered] == [
        "puppet:ntp",
        "puppet:ntp:package_ensure",
        "puppet:ntp:servers",
    ]
    assert rejects.rejects == {}
    cls = docs["puppet:ntp"]
    assert cls.text == (
        "class ntp\n\n"
        "Installs and manages NTP.\n\n"
        "The main class: include it and set `servers`.\n\n"
        "Parameters:\n"
        "- `servers` (`Array[String]`, default `['a.example', 'b.example']`): "
        "The servers to sync with.\n"
        "- `package_ensure` (`Enum['present', 'absent']`, default `'present'`): "
        "Whether to install the package.\n"
        "- `quiet` (`Boolean`, default `false`)\n"
        "- `opts` (`Hash`, default `{ 'k' => 'v' }`)\n"
        "- `required` (`String`)\n\n"
        "Examples:\n\n"
        "Basic use\n"
        "```puppet\nclass { 'ntp':\n  servers => ['0.pool.ntp.org'],\n}\n```"
    )
    assert cls.title == "ntp"
    assert cls.meta["kind"] == "class" and cls.meta["language"] == "puppet"
    assert cls.meta["signature"] == "class ntp" and cls.meta["line"] == 17
    assert cls.meta["module"] == "ntp" and cls.meta["origin"] == "/src/ntp/manifests/init.pp"
    servers = docs["puppet:ntp:servers"]
    assert servers.text == (
        "Array[String] $servers = ['a.example', 'b.example']\n\n"
        "The servers to sync with.\nOne per entry.\n\n"
        "Default: `['a.example', 'b.example']`\n\n"
        "Type: `Array[String]`\n\n"
        "Of: class ntp"
    )
    assert servers.meta["kind"] == "parameter" and servers.meta["line"] == 18
    assert servers.meta["parent"] == "ntp" and servers.meta["name"] == "servers"
    assert docs["puppet:ntp:package_ensure"].text.split("\n\n")[1] == (
        "Whether to install the package. Defaults to present."
    )


def test_a_parameter_with_no_default_is_required() -> None:
    text = "# A thing.\n# @param name The name.\ndefine thing::one (String $name2) {}\n"
    text += "# Two.\n# @param target Where.\nclass two (String $target) {}\n"
    docs, _, _ = read({"thing/manifests/x.pp": text})
    assert docs["puppet:two:target"].text == (
        "String $target\n\nWhere.\n\nRequired: no default.\n\nType: `String`\n\nOf: class two"
    )
    # a define's documented `name` is its title, not a parameter of the code's
    name = docs["puppet:thing::one:name"]
    assert name.text == "$name\n\nThe name.\n\nOf: define thing::one"
    assert docs["puppet:thing::one"].text == (
        "define thing::one\n\nA thing.\n\nParameters:\n- `name`: The name.\n- `name2` (`String`)"
    )
    assert docs["puppet:thing::one"].meta["kind"] == "defined type"


def test_type_aliases_short_and_long() -> None:
    short = (
        "# @summary A strict absolutepath type\n"
        "type Stdlib::Absolutepath = Variant[Stdlib::Windowspath, Stdlib::Unixpath]\n"
    )
    entries = "\n".join(f"    Optional['Key{i}'] => String[1]," for i in range(12))
    long = f"# Settings.\ntype Apache::Settings = Struct[\n  {{\n{entries}\n  }}\n]\n"
    bare = "type Systemd::Unit = Pattern['^[^/]+\\.service$']\n"
    docs, rejects, _ = read(
        {
            "stdlib/types/absolutepath.pp": short,
            "apache/types/settings.pp": long,
            "systemd/types/unit.pp": bare,
        }
    )
    assert rejects.rejects == {}
    alias = docs["puppet:stdlib::absolutepath"]
    assert alias.text == (
        "type Stdlib::Absolutepath = Variant[Stdlib::Windowspath, Stdlib::Unixpath]\n\n"
        "A strict absolutepath type"
    )
    assert alias.title == "stdlib::absolutepath" and alias.meta["name"] == "Stdlib::Absolutepath"
    assert alias.meta["kind"] == "type alias" and alias.meta["line"] == 2
    settings = docs["puppet:apache::settings"]
    assert settings.meta["signature"] == "type Apache::Settings"
    assert settings.text.startswith(
        "type Apache::Settings\n\nSettings.\n\nAlias of:\n```puppet\n"
        "type Apache::Settings = Struct[\n  {\n    Optional['Key0'] => String[1],\n"
    )
    assert settings.text.endswith("    Optional['Key11'] => String[1],\n  }\n]\n```")
    # an undocumented alias still says what it accepts
    assert docs["puppet:systemd::unit"].text == "type Systemd::Unit = Pattern['^[^/]+\\.service$']"


def test_a_puppet_language_function() -> None:
    text = """\
# @summary Casts an ensure value.
#
# @param ensure The value to cast.
# @param resource
#   The kind of resource.
# @return [String] The resource's ensure value.
# @raise [Puppet::Error] When the resource is unknown.
function stdlib::ensure(
  Variant[Boolean, Enum['present', 'absent']] $ensure,
  Enum['file', 'service'] $resource = 'file',
  *$rest,
) >> String {
  $ensure ? { true => 'present', default => $ensure }
}
"""
    docs, _, _ = read({"stdlib/functions/ensure.pp": text})
    fn = docs["puppet:stdlib::ensure"]
    sig = (
        "function stdlib::ensure(Variant[Boolean, Enum['present', 'absent']] $ensure, "
        "Enum['file', 'service'] $resource = 'file', *$rest) >> String"
    )
    assert fn.text == (
        f"{sig}\n\n"
        "Casts an ensure value.\n\n"
        "Parameters:\n"
        "- `ensure` (`Variant[Boolean, Enum['present', 'absent']]`): The value to cast.\n"
        "- `resource` (`Enum['file', 'service']`, default `'file'`): The kind of resource.\n"
        "- `rest`\n\n"
        "Returns: `String` The resource's ensure value.\n\n"
        "Raises: `Puppet::Error` When the resource is unknown."
    )
    assert fn.meta["kind"] == "function" and fn.meta["signature"] == sig
    assert docs["puppet:stdlib::ensure:resource"].text == (
        "Enum['file', 'service'] $resource = 'file'\n\nThe kind of resource.\n\n"
        "Default: `'file'`\n\nType: `Enum['file', 'service']`\n\nOf: function stdlib::ensure"
    )
    # a return type the tags do not give comes from the code
    bare = "# Adds.\nfunction m::add(Integer $a) >> Integer { $a + 1 }\n"
    docs, _, _ = read({"m/functions/add.pp": bare})
    assert docs["puppet:m::add"].text.endswith("Returns: `Integer`")


def test_a_plan() -> None:
    text = """\
# Deploys the app.
# @param targets The nodes to deploy to.
# @param version
plan app::deploy (TargetSpec $targets, String $version = '1.0') {
  run_task('app::install', $targets)
}
"""
    docs, _, ordered = read({"app/plans/deploy.pp": text})
    assert [d.uri for d in ordered] == ["puppet:app::deploy", "puppet:app::deploy:targets"]
    assert docs["puppet:app::deploy"].meta["kind"] == "plan"
    assert docs["puppet:app::deploy"].text == (
        "plan app::deploy\n\nDeploys the app.\n\nParameters:\n"
        "- `targets` (`TargetSpec`): The nodes to deploy to.\n"
        "- `version` (`String`, default `'1.0'`)"
    )
    assert docs["puppet:app::deploy:targets"].text.endswith("Of: plan app::deploy")


def test_the_lexer_skips_strings_heredocs_regexes_and_comments() -> None:
    text = r"""
$x = "a ${h['}']} b" # a { in a comment
$r = $a =~ /[{(]/ ? { true => 1, default => $y / 2 }
$s = 'it\'s { and ('
/* a { in a block comment */
$h = @("END"/L)
  { not code (
  |- END
$j = [@(A), @(B)]
  a {
  A
  b [
  B
node /web{1}/ { }
$k = "${foo({ 'a' => "}" })}"
# The class.
# @param servers The servers.
class m (
  Array[String] $servers = ["${x}}", '{'],
  Pattern[/\)/] $match = /[)]/,
) inherits m::params {
  file { '/x': content => "}" }
}
"""
    docs, rejects, _ = read({"m/manifests/init.pp": text})
    assert rejects.rejects == {}
    assert docs["puppet:m"].meta["signature"] == "class m inherits m::params"
    assert docs["puppet:m"].meta["line"] == 18
    assert docs["puppet:m:servers"].meta["signature"] == (
        "Array[String] $servers = [\"${x}}\", '{']"
    )
    assert "- `match` (`Pattern[/\\)/]`, default `/[)]/`)" in docs["puppet:m"].text


def test_defaults_are_kept_as_written_whitespace_normalized_and_capped() -> None:
    long = "x" * 400
    text = f"""\
# C.
# @param hash A hash.
# @param list A list.
# @param long A long one.
class c (
  Hash $hash = {{
    'a' => 1,   # one
    'b' => [
      2,
      3,
    ],
  }},
  Array $list = [
    'x', 'y'
  ],
  String $long = '{long}',
) {{}}
"""
    docs, _, _ = read({"c/manifests/init.pp": text})
    assert docs["puppet:c:hash"].meta["signature"] == "Hash $hash = { 'a' => 1, 'b' => [2, 3] }"
    assert docs["puppet:c:list"].meta["signature"] == "Array $list = ['x', 'y']"
    sig = docs["puppet:c:long"].meta["signature"]
    assert len(sig) == len("String $long = ") + 100 and sig.endswith("xxx...")
    default = next(x for x in docs["puppet:c:long"].text.split("\n\n") if x.startswith("Default"))
    assert default == "Default: `'" + "x" * 296 + "...`"


def test_what_gives_nothing_is_counted() -> None:
    undocumented = "class quiet ($a = 1) {}\n"
    unterminated = "# Doc.\nclass broken { $a = 'never closed }\n"
    unmatched = "# Doc.\nclass broken2 { $a = [1, 2) }\n"
    heredoc = '# Doc.\nclass broken3 { $a = @("END")\n  text\n}\n'
    docs, rejects, _ = read(
        {
            "m/manifests/quiet.pp": undocumented,
            "m/manifests/broken.pp": unterminated,
            "m/manifests/broken2.pp": unmatched,
            "m/manifests/broken3.pp": heredoc,
            "m/manifests/big.pp": "# Big.\nclass big {}\n" + "#" * 2_000_001,
            "m/examples/init.pp": "include m\n",
        }
    )
    assert docs == {}
    assert rejects.rejects == {PUPPET_NO_API: 2, PUPPET_BAD_SYNTAX: 3, PUPPET_TOO_BIG: 1}
    assert rejects.samples[PUPPET_NO_API] == [
        "/src/m/examples/init.pp",
        "/src/m/manifests/quiet.pp",
    ]


def test_a_file_is_cut_at_5000_documents() -> None:
    names = [f"p{i}" for i in range(5001)]
    comment = "".join(f"# @param {n} Param {n}.\n" for n in names)
    params = ", ".join(f"${n} = 1" for n in names)
    text = f"# Many.\n{comment}class many ({params}) {{}}\n"
    start = time.process_time()  # this process's CPU: other tests' load aside
    docs, rejects, _ = read({"many/manifests/init.pp": text})
    assert time.process_time() - start < 5
    assert len(docs) == 5000 and rejects.rejects == {PUPPET_CUT: 1}
    listing = docs["puppet:many"].text.split("Parameters:\n")[1].split("\n")
    assert len(listing) == 101 and listing[-1] == "- ... and 4901 more"


def test_yard_tags() -> None:
    text = """\
# @summary
#   Manages things.
#
# Some **Markdown** text.<br />
# - a list item
#
# @note Only on Linux;
# wrapped on the next line.
# @see https://example.com/things
# @see thing::other
# @api private
# @deprecated Use thing::new instead.
# @since 2.0.0
# @author Someone
# @todo Something
#
# @param config [Hash] The configuration.
# @option config [String] :path
#   Where it goes.
# @option config [Integer] :mode The mode.
# @param [Array[String]] $names The names.
#
# @example
#   include thing
class thing ($config = {}, $names = []) {}
"""
    docs, _, _ = read({"thing/manifests/init.pp": text})
    assert docs["puppet:thing"].text == (
        "class thing\n\n"
        "Manages things.\n\n"
        "Some **Markdown** text.\n\n- a list item\n\n"
        "Deprecated: Use thing::new instead.\n\n"
        "Private: not part of the module's public API.\n\n"
        "Note: Only on Linux;\nwrapped on the next line.\n\n"
        "Since: 2.0.0\n\n"
        "Parameters:\n"
        "- `config` (`Hash`, default `{}`): The configuration.\n"
        "- `names` (`Array[String]`, default `[]`): The names.\n\n"
        "Examples:\n\n```puppet\ninclude thing\n```\n\n"
        "See also:\n- https://example.com/things\n- thing::other"
    )
    assert docs["puppet:thing"].meta["private"] is True
    assert docs["puppet:thing:config"].text == (
        "Hash $config = {}\n\nThe configuration.\n\n"
        "Options:\n- `:path` (`String`): Where it goes.\n- `:mode` (`Integer`): The mode.\n\n"
        "Default: `{}`\n\nType: `Hash`\n\nOf: class thing (private)"
    )


def test_the_comment_block_directly_above() -> None:
    text = """\
# Copyright 2020 Example Corp. All rights reserved.

# thing::one
#
# lint:ignore:140chars
# The first.
# ######################
class thing::one {}

# Not about two: code stands between.
$x = 1
class thing::two {}
# The third, a blank line below.

define thing::three {}
"""
    docs, rejects, _ = read({"thing/manifests/x.pp": text})
    assert sorted(docs) == ["puppet:thing::one", "puppet:thing::three"]
    assert docs["puppet:thing::one"].text == "class thing::one\n\nThe first."
    assert (
        docs["puppet:thing::three"].text == "define thing::three\n\nThe third, a blank line below."
    )


def test_legacy_rdoc_style() -> None:
    text = """\
# == Class: nova::api
#
# Setup and configure the Nova API endpoint
#
# === Parameters
#
# [*enabled*]
#   (optional) Whether the service is enabled.
#   Defaults to true
#
# [*ssl_cert*]
# [*ssl_key*]
#   (optional) SSL files.
#   Example:
#     { 'a' => 1 }
#   Defaults to undef
#
# DEPRECATED PARAMETERS
#
#  [*old*]
#   (optional) Not used.
#
# == Dependencies
#
# Requires nova.
#
# === Examples
#
#  class { 'nova::api': enabled => false }
#
# === Authors
#
# Jane <jane@example.com>
#
class nova::api(
  $enabled  = true,
  $ssl_cert = undef,
  $ssl_key  = undef,
  $old      = undef,
) {
}
"""
    docs, _, ordered = read({"nova/manifests/api.pp": text})
    assert [d.uri for d in ordered] == [
        "puppet:nova::api",
        "puppet:nova::api:enabled",
        "puppet:nova::api:old",
        "puppet:nova::api:ssl_cert",
        "puppet:nova::api:ssl_key",
    ]
    assert docs["puppet:nova::api"].text == (
        "class nova::api\n\n"
        "Setup and configure the Nova API endpoint\n\n"
        "Dependencies:\n\nRequires nova.\n\n"
        "Parameters:\n"
        "- `enabled` (default `true`): (optional) Whether the service is enabled.\n"
        "- `ssl_cert` (default `undef`): (optional) SSL files.\n"
        "- `ssl_key` (default `undef`): (optional) SSL files.\n"
        "- `old` (default `undef`): Deprecated. (optional) Not used.\n\n"
        "Examples:\n\n```puppet\nclass { 'nova::api': enabled => false }\n```"
    )
    assert docs["puppet:nova::api:ssl_key"].text == (
        "$ssl_key = undef\n\n"
        "(optional) SSL files.\nExample:\n\n```\n{ 'a' => 1 }\n```\n\nDefaults to undef\n\n"
        "Default: `undef`\n\nOf: class nova::api"
    )
    assert docs["puppet:nova::api:old"].text == (
        "$old = undef\n\n(optional) Not used.\n\nDeprecated.\n\nDefault: `undef`\n\n"
        "Of: class nova::api"
    )


def test_module_names_metadata_and_hiera_data() -> None:
    metadata = json.dumps({"name": "puppetlabs-ntp", "summary": "Manages  NTP."})
    init = "# @param servers The servers.\n# @param driftfile The drift file.\n"
    init += "class ntp (Array $servers, String $driftfile = '/x', $x = 1) {}\n"
    task = json.dumps(
        {
            "description": "Restarts ntpd.",
            "supports_noop": True,
            "parameters": {
                "force": {"description": "Kill it first.", "type": "Optional[Boolean]"},
                "quiet": {"type": "Boolean"},
            },
        }
    )
    files = {
        "src/metadata.json": metadata,
        "src/manifests/init.pp": init,
        "src/data/common.yaml": "ntp::servers:\n  - 0.pool\nntp::driftfile: /c\n",
        "src/data/os/Debian.yaml": "ntp::servers: []\nother::key: 1\n",
        "src/tasks/init.json": task,
        "src/tasks/sync.json": json.dumps({"description": "Syncs now."}),
    }
    docs, rejects, _ = read(files)
    assert rejects.rejects == {}  # neither metadata.json nor the data counted
    ntp = docs["puppet:ntp"]
    assert ntp.meta["module"] == "ntp" and ntp.meta["module_name"] == "puppetlabs-ntp"
    assert ntp.text == (
        "class ntp\n\n"
        "Module: puppetlabs-ntp: Manages NTP.\n\n"
        "Parameters:\n"
        "- `servers` (`Array`, default `['0.pool']`): The servers.\n"
        "- `driftfile` (`String`, default `'/c'`): The drift file.\n"
        "- `x` (default `1`)"
    )
    assert docs["puppet:ntp:servers"].text == (
        "Array $servers\n\nThe servers.\n\n"
        "Module data (Hiera, looked up before the code's default):\n"
        "- `common`: `['0.pool']`\n- `os/Debian`: `[]`\n\n"
        "Type: `Array`\n\nOf: class ntp"
    )
    assert "Default: `'/x'`\n\nModule data" in docs["puppet:ntp:driftfile"].text
    task_doc = docs["puppet:task/ntp"]
    assert task_doc.meta["kind"] == "task"
    assert task_doc.text == (
        "task ntp\n\nRestarts ntpd.\n\nParameters:\n"
        "- `force` (`Optional[Boolean]`): Kill it first.\n- `quiet` (`Boolean`)\n\n"
        "Supports noop."
    )
    assert docs["puppet:task/ntp:force"].text == (
        "Optional[Boolean] $force\n\nKill it first.\n\nOptional.\n\n"
        "Type: `Optional[Boolean]`\n\nOf: task ntp"
    )
    assert docs["puppet:task/ntp::sync"].text == "task ntp::sync\n\nSyncs now."
    # without metadata.json: the folder above manifests/, its author- prefix dropped; at
    # the source's root, `top`
    docs, _, _ = read({"puppetlabs-apache/tasks/init.json": task})
    assert "puppet:task/apache" in docs
    docs, _, _ = read({"tasks/init.json": task}, top="camptocamp-systemd")
    assert "puppet:task/systemd" in docs


def test_ruby_4x_functions() -> None:
    one = """\
# frozen_string_literal: true

# @summary
#   Returns true if the ipaddress is within the given CIDRs
#
# @example Checking an address
#   stdlib::ip_in_range('10.10.10.53', '10.10.10.0/24') => true
Puppet::Functions.create_function(:'stdlib::ip_in_range') do
  # @param ipaddress The IP address to check
  # @param range One CIDR or an array of CIDRs
  #   defining the range(s) to check against
  #
  # @return [Boolean] True or False
  dispatch :ip_in_range do
    param 'String', :ipaddress
    param 'Variant[String, Array]', :range
    optional_param 'Integer', :mask
    return_type 'Boolean'
  end

  def ip_in_range(ipaddress, range, mask = nil)
  end
end
"""
    many = """\
# @summary Merges hashes.
Puppet::Functions.create_function(:merge) do
  # @param args The hashes to merge.
  # @return The merged hash.
  dispatch :merge2hashes do
    repeated_param 'Variant[Hash, Undef]', :args
    return_type 'Hash'
  end

  # Merges what a block gives.
  # @param block A block placed on `args`.
  dispatch :merge_iterable do
    repeated_param 'Iterable', :args
    block_param 'Callable[2,2]', :block
  end
end
"""
    plain = """\
# Transforms a boolean to On or Off.
Puppet::Functions.create_function(:'apache::bool2httpd') do
  # @param arg The value to convert.
  def bool2httpd(arg, *rest, &blk)
  end
end
"""
    docs, rejects, _ = read(
        {
            "stdlib/lib/puppet/functions/stdlib/ip_in_range.rb": one,
            "stdlib/lib/puppet/functions/merge.rb": many,
            "apache/lib/puppet/functions/apache/bool2httpd.rb": plain,
            "stdlib/lib/puppet/functions/empty.rb": "Puppet::Functions.create_function(:e) do\nend\n",
        }
    )
    assert rejects.rejects == {PUPPET_NO_API: 1}
    fn = docs["puppet:stdlib::ip_in_range"]
    assert fn.text == (
        "function stdlib::ip_in_range(String $ipaddress, Variant[String, Array] $range, "
        "Optional[Integer] $mask) >> Boolean\n\n"
        "Returns true if the ipaddress is within the given CIDRs\n\n"
        "Parameters:\n"
        "- `ipaddress` (`String`): The IP address to check\n"
        "- `range` (`Variant[String, Array]`): One CIDR or an array of CIDRs defining the "
        "range(s) to check against\n"
        "- `mask` (`Optional[Integer]`)\n\n"
        "Returns: `Boolean` True or False\n\n"
        "Examples:\n\nChecking an address\n"
        "```puppet\nstdlib::ip_in_range('10.10.10.53', '10.10.10.0/24') => true\n```"
    )
    assert fn.meta["api"] == "ruby 4.x" and fn.meta["line"] == 8
    assert docs["puppet:stdlib::ip_in_range:range"].text == (
        "Variant[String, Array] $range\n\n"
        "One CIDR or an array of CIDRs\ndefining the range(s) to check against\n\n"
        "Type: `Variant[String, Array]`\n\nOf: function stdlib::ip_in_range"
    )
    assert docs["puppet:merge"].text == (
        "function merge\n\nMerges hashes.\n\nSignatures:\n"
        "- `merge(Variant[Hash, Undef] *$args) >> Hash`: Returns: The merged hash.\n"
        "- `merge(Iterable *$args, Callable[2,2] &$block)`: Merges what a block gives.\n\n"
        "Parameters:\n"
        "- `args` (`Variant[Hash, Undef]`): The hashes to merge.\n"
        "- `block` (`Callable[2,2]`): A block placed on `args`."
    )
    assert docs["puppet:merge:block"].text == (
        "Callable[2,2] &$block\n\nA block placed on `args`.\n\nA block (lambda).\n\n"
        "Type: `Callable[2,2]`\n\nOf: function merge"
    )
    assert docs["puppet:merge:args"].text.split("\n\n")[2] == (
        "Repeated: takes any number of arguments."
    )
    assert docs["puppet:apache::bool2httpd"].meta["signature"] == (
        "function apache::bool2httpd(Any $arg, Any *$rest, Callable &$blk)"
    )


def test_ruby_3x_functions_and_the_4x_one_wins() -> None:
    legacy = """\
module Puppet::Parser::Functions
  newfunction(:pick, type: :rvalue, doc: <<-EOS
    @summary
      Returns the first value that is not undefined or empty.

    This function is similar to a coalesce function in SQL.

    @return
      the first value that is not undefined.
  EOS
  ) do |args|
  end
end
"""
    quoted = 'newfunction(:chop, :type => :rvalue, :doc => "Removes the last character.")\n'
    modern = "# Merges hashes.\nPuppet::Functions.create_function(:pick) do\nend\n"
    docs, _, _ = read(
        {
            "stdlib/lib/puppet/parser/functions/pick.rb": legacy,
            "stdlib/lib/puppet/parser/functions/chop.rb": quoted,
            "stdlib/lib/puppet/functions/pick.rb": modern,
        }
    )
    assert docs["puppet:pick"].meta["api"] == "ruby 4.x"
    docs, _, _ = read({"stdlib/lib/puppet/parser/functions/pick.rb": legacy})
    assert docs["puppet:pick"].text == (
        "function pick\n\n"
        "Returns the first value that is not undefined or empty.\n\n"
        "This function is similar to a coalesce function in SQL.\n\n"
        "A function of Puppet's legacy Ruby 3.x API: its arguments are not declared.\n\n"
        "Returns: the first value that is not undefined."
    )
    assert docs["puppet:pick"].meta["api"] == "ruby 3.x"
    docs, _, _ = read({"stdlib/lib/puppet/parser/functions/chop.rb": quoted})
    assert docs["puppet:chop"].text.split("\n\n")[1] == "Removes the last character."


def test_the_first_file_in_path_order_keeps_a_name() -> None:
    docs, _, ordered = read(
        {
            "b/manifests/init.pp": "# From b.\nclass dup {}\n",
            "a/manifests/init.pp": "# From a.\nclass dup {}\n",
        }
    )
    assert len(ordered) == 1 and docs["puppet:dup"].text == "class dup\n\nFrom a."


def test_first_sentence() -> None:
    assert first_sentence("Sets the port, e.g. 80. More here.") == "Sets the port, e.g. 80."
    assert first_sentence("(optional) The state\nDefaults to 'present'") == "(optional) The state"
    assert first_sentence("One line\nwrapped. Two.\n\nOther.") == "One line wrapped."
    assert first_sentence("x" * 300).endswith("...") and len(first_sentence("x" * 300)) == 200


def test_attr_tags_author_paragraphs_and_code_lines_that_look_like_headings() -> None:
    text = """\
# Copyright (C) 2015 Example SAS
#
# Author: Jane Doe <jane@example.com>
#
# Licensed under the Apache License, Version 2.0 (the "License").
#
# Creates a drop-in file.
#
# @attr name [Pattern['^[^/]+\\.conf$']]
#   The target file.
# @example
#   $x = {
#     'a' => 1,
#   }
#   == not a heading
define systemd::dropin (String $unit) {}
"""
    docs, _, _ = read({"systemd/manifests/dropin.pp": "\ufeff" + text})
    assert docs["puppet:systemd::dropin"].text == (
        "define systemd::dropin\n\n"
        "Creates a drop-in file.\n\n"
        "Parameters:\n"
        "- `name` (`Pattern['^[^/]+\\.conf$']`): The target file.\n"
        "- `unit` (`String`)\n\n"
        "Examples:\n\n```puppet\n$x = {\n  'a' => 1,\n}\n== not a heading\n```"
    )
    assert docs["puppet:systemd::dropin:name"].meta["signature"] == (
        "Pattern['^[^/]+\\.conf$'] $name"
    )


def test_a_module_folder_is_read_by_init_and_its_parameters_are_asked_as_parameters(
    tmp_path: Path,
) -> None:

    from apitree import asked, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig
    from jupiter.config.cli import source_entry

    init = (
        "# @summary Installs and runs the time daemon.\n#\n"
        "# @param servers\n#   The time servers to ask.\n"
        "# @param burst\n#   Whether to send a burst of packets at the start.\n"
        "class timed (\n  Array[String] $servers = ['pool.example.org'],\n"
        "  Boolean $burst = false,\n) {\n  package { 'timed': ensure => installed }\n}\n"
    )
    task = '{"description": "Restarts the daemon", "parameters": {}}'
    write_tree(
        tmp_path / "m",
        {
            "metadata.json": '{"name": "acme-timed", "summary": "Time daemon"}',
            "manifests/init.pp": init,
            "tasks/restart.json": task,
            # another project's tasks/: no manifest beside it, so read as it would be
            "tools/tasks/build.json": '{"steps": ["make"]}',
        },
    )
    entry = source_entry(str(tmp_path / "m"))
    assert "*.pp" in entry["include"] and "*tasks/*.json" in entry["include"]  # type: ignore[operator]
    entry["include"] = [*entry["include"], "*.json"]  # type: ignore[misc]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    assert sorted(docs) == [
        str(tmp_path / "m" / "tools/tasks/build.json"),  # as text, not as a Puppet task
        "puppet:task/timed::restart",
        "puppet:timed",
        "puppet:timed:burst",
        "puppet:timed:servers",
    ]

    servers = asked(docs["puppet:timed:servers"])
    assert sorted(servers.values()) == [
        "The time servers to ask.",
        "`Array[String]`",
        "`['pool.example.org']`",
    ]
    assert any("`servers` parameter of `timed`" in q for q in servers)
    # a bare type says nothing, `false` is a default: no returns of a parameter
    assert sorted(asked(docs["puppet:timed:burst"]).values()) == [
        "Whether to send a burst of packets at the start.",
        "`false`",
    ]
    assert list(asked(docs["puppet:timed"]).values()) == ["Installs and runs the time daemon."]
