"""Ansible modules and plugins read as ansible-doc shows them: a plugin's DOCUMENTATION,
EXAMPLES and RETURN YAML, never run, one document for the plugin
(`ansible:acme.box.crate`, a lookup `ansible:lookup/ansible.builtin.file`), one per option
(`ansible:acme.box.crate:config.size`) and per return value (`...:return.info.size`), with
doc fragments merged in."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from jupiter.collect import CollectResult
from jupiter.collect.ansibledoc import (
    ANSIBLE_BAD_YAML,
    ANSIBLE_NO_DOC,
    FIXES,
    URI_PREFIX,
    documents,
    is_fragment,
    is_plugin,
    markup,
)
from jupiter.collect.result import SourceFile
from jupiter.records import Document

CRATE = '''\
#!/usr/bin/python
from __future__ import annotations

DOCUMENTATION = r"""
---
module: crate
short_description: Manage C(crates) on a host
version_added: "1.2.0"
version_added_collection: acme.box
description:
  - Creates or removes a crate, see M(acme.box.shelf).
  - Use O(state=absent) to remove it.
author: Someone (@someone)
requirements:
  - python >= 3.9
options:
  name:
    description: The crate's name. Unique on the host.
    type: str
    required: true
    aliases: [crate_name, id]
  state:
    description:
      - Whether the crate should exist.
    type: str
    choices: [present, absent]
    default: present
  kind:
    description: What it holds.
    choices:
      wood: A wooden crate.
      steel: A steel one, I(heavy).
  labels:
    description: Its labels.
    type: list
    elements: str
    default: []
    version_added: 1.3.0
  mode:
    description: The crate's own permissions.
  config:
    description: How it is built.
    type: dict
    suboptions:
      size:
        description: Its size in litres.
        type: int
        default: 10
      lid:
        description: The lid.
        type: dict
        suboptions:
          locked:
            description: Whether it locks.
            type: bool
            default: false
extends_documentation_fragment:
  - acme.box.files
  - acme.box.files.owner
  - acme.box.nothere
notes:
  - Crates are B(heavy).
seealso:
  - module: acme.box.shelf
    description: Shelves for crates.
  - plugin: acme.box.inventory
    plugin_type: lookup
  - ref: crate_guide
    description: The guide.
  - name: Crate docs
    link: https://example.com/crates
attributes:
  check_mode:
    support: full
  platform:
    platforms: [posix, windows]
"""

EXAMPLES = r"""
    - name: Make a crate
      acme.box.crate:
        name: one\x20\x20
        state: present
"""

RETURN = r"""
info:
  description: What the crate is now.
  returned: success
  type: dict
  contains:
    size:
      description: Its size.
      type: int
      sample: 10
    tags:
      description: Its tags.
      type: list
      elements: str
      sample: [a, b]
path:
  description: Where it is. See RV(info).
  returned: always
  type: str
  sample: /srv/crates/one
"""

from ansible.module_utils.basic import AnsibleModule


def main():
    AnsibleModule(argument_spec={})
'''

FILES_FRAGMENT = '''\
class ModuleDocFragment(object):
    DOCUMENTATION = r"""
options:
  mode:
    description: The permissions, from the fragment.
    type: raw
  group:
    description: The group that owns it.
    type: str
notes:
  - Files are written atomically.
attributes:
  check_mode:
    description: Can run in check_mode.
"""

    OWNER = r"""
options:
  owner:
    description: The user that owns it.
    type: str
"""
'''


def read(files: dict[str, str], rejects: CollectResult | None = None) -> dict[str, Document]:
    got = [SourceFile(P(rel), rel, text) for rel, text in files.items()]
    return {d.uri: d for d in documents(got, "local", rejects)}


COLL = "ansible_collections/acme/box/plugins"


def crate() -> dict[str, Document]:
    return read(
        {
            f"{COLL}/modules/crate.py": CRATE,
            f"{COLL}/doc_fragments/files.py": FILES_FRAGMENT,
        }
    )


def test_a_module_becomes_its_plugin_options_and_return_values() -> None:
    docs = crate()
    assert sorted(docs) == [
        "ansible:acme.box.crate",
        "ansible:acme.box.crate:config",
        "ansible:acme.box.crate:config.lid",
        "ansible:acme.box.crate:config.lid.locked",
        "ansible:acme.box.crate:config.size",
        "ansible:acme.box.crate:group",
        "ansible:acme.box.crate:kind",
        "ansible:acme.box.crate:labels",
        "ansible:acme.box.crate:mode",
        "ansible:acme.box.crate:name",
        "ansible:acme.box.crate:owner",
        "ansible:acme.box.crate:return.info",
        "ansible:acme.box.crate:return.info.size",
        "ansible:acme.box.crate:return.info.tags",
        "ansible:acme.box.crate:return.path",
        "ansible:acme.box.crate:state",
    ]  # the fragment file gives no document of its own
    plugin = docs["ansible:acme.box.crate"]
    assert plugin.title == "acme.box.crate"
    assert plugin.meta["kind"] == "module"
    assert plugin.meta["signature"] == "acme.box.crate - Manage `crates` on a host"
    assert plugin.meta["fqcn"] == "acme.box.crate"
    assert plugin.meta["plugin_type"] == "module"
    assert plugin.meta["language"] == "ansible"
    assert plugin.meta["line"] == 4
    assert plugin.meta["fragments"] == ["acme.box.files", "acme.box.files.owner"]
    assert plugin.meta["missing_fragments"] == ["acme.box.nothere"]
    assert plugin.text == (
        "acme.box.crate - Manage `crates` on a host\n\n"
        "Creates or removes a crate, see `acme.box.shelf`.\n\n"
        "Use `state=absent` to remove it.\n\n"
        "Requirements:\n- python >= 3.9\n\n"
        "Options:\n"
        "- `config` (dict): How it is built.\n"
        "- `group` (str): The group that owns it.\n"
        "- `kind` (str): What it holds.\n"
        "- `labels` (list of str, default: []): Its labels.\n"
        "- `mode` (raw): The crate's own permissions.\n"
        "- `name` (str, required): The crate's name.\n"
        "- `owner` (str): The user that owns it.\n"
        "- `state` (str, default: `present`): Whether the crate should exist.\n\n"
        "Attributes:\n"
        "- check_mode: full - Can run in check_mode.\n"
        "- platform: posix, windows\n\n"
        "Notes:\n- Crates are **heavy**.\n- Files are written atomically.\n\n"
        "See also:\n"
        "- `acme.box.shelf`: Shelves for crates.\n"
        "- `acme.box.inventory` (lookup)\n"
        "- `crate_guide` (ref): The guide.\n"
        "- [Crate docs](https://example.com/crates)\n\n"
        "Examples:\n```yaml\n"
        "- name: Make a crate\n  acme.box.crate:\n    name: one\n    state: present\n"
        "```\n\n"
        "Returns:\n"
        "- `info` (dict): What the crate is now.\n"
        "- `path` (str): Where it is.\n\n"
        "Added in: 1.2.0"
    )  # author dropped; version_added_collection not read


def test_an_option_shows_its_type_choices_default_and_aliases() -> None:
    docs = crate()
    name = docs["ansible:acme.box.crate:name"]
    assert name.meta["kind"] == "option"
    assert name.title == "acme.box.crate:name"
    assert name.meta["signature"] == "name: str, required"
    assert name.text == (
        "name: str, required\n\nThe crate's name. Unique on the host.\n\nAliases: crate_name, id"
    )
    assert docs["ansible:acme.box.crate:state"].text == (
        "state: str\n\nWhether the crate should exist.\n\n"
        "Choices:\n- `present`\n- `absent`\n\nDefault: `present`"
    )
    assert docs["ansible:acme.box.crate:kind"].text == (
        "kind: str\n\nWhat it holds.\n\n"
        "Choices:\n- `wood`: A wooden crate.\n- `steel`: A steel one, *heavy*."
    )  # no type: Ansible's own default, str
    assert docs["ansible:acme.box.crate:labels"].text == (
        "labels: list of str\n\nIts labels.\n\nDefault: []\n\nAdded in: 1.3.0"
    )


def test_a_fragment_fills_in_what_the_plugin_lacks_and_its_own_win() -> None:
    docs = crate()
    # the plugin's own description wins, the fragment's type fills it in
    assert docs["ansible:acme.box.crate:mode"].text == ("mode: raw\n\nThe crate's own permissions.")
    assert docs["ansible:acme.box.crate:group"].text == "group: str\n\nThe group that owns it."
    # `acme.box.files.owner`: the fragment file's OWNER attribute
    assert docs["ansible:acme.box.crate:owner"].text == "owner: str\n\nThe user that owns it."


def test_suboptions_are_listed_and_documented_dotted() -> None:
    docs = crate()
    config = docs["ansible:acme.box.crate:config"]
    assert config.text == (
        "config: dict\n\nHow it is built.\n\n"
        "Suboptions:\n- `lid` (dict): The lid.\n- `size` (int, default: 10): Its size in litres."
    )
    lid = docs["ansible:acme.box.crate:config.lid"]
    assert lid.meta["signature"] == "config.lid: dict"
    assert lid.text == (
        "config.lid: dict\n\nThe lid.\n\n"
        "Suboptions:\n- `locked` (bool, default: false): Whether it locks."
    )
    assert docs["ansible:acme.box.crate:config.lid.locked"].text == (
        "config.lid.locked: bool\n\nWhether it locks.\n\nDefault: false"
    )
    assert docs["ansible:acme.box.crate:config.size"].text == (
        "config.size: int\n\nIts size in litres.\n\nDefault: 10"
    )


def test_return_values_show_when_returned_samples_and_contains() -> None:
    docs = crate()
    info = docs["ansible:acme.box.crate:return.info"]
    assert info.meta["kind"] == "return value"
    assert info.meta["signature"] == "info: dict"
    assert info.meta["line"] == 86
    assert info.text == (
        "info: dict\n\nWhat the crate is now.\n\nReturned when: success\n\n"
        "Contains:\n- `size` (int): Its size.\n- `tags` (list of str): Its tags."
    )
    assert docs["ansible:acme.box.crate:return.info.size"].text == (
        "info.size: int\n\nIts size.\n\nSample: `10`"
    )
    assert docs["ansible:acme.box.crate:return.info.tags"].text == (
        'info.tags: list of str\n\nIts tags.\n\nSample:\n```json\n[\n  "a",\n  "b"\n]\n```'
    )
    assert docs["ansible:acme.box.crate:return.path"].text == (
        "path: str\n\nWhere it is. See `info`.\n\nReturned when: always\n\n"
        "Sample: `/srv/crates/one`"
    )


def test_a_long_sample_and_a_long_default_are_blocks() -> None:
    long = "x" * 90
    text = f'''DOCUMENTATION = """
module: m
short_description: M.
options:
  big:
    description: Big.
    type: dict
    default: {{"key": "{long}"}}
"""
RETURN = """
out:
  description: Out.
  type: str
  sample: "{long}"
"""
'''
    docs = read({"library/m.py": text})
    assert docs["ansible:m:big"].text == (
        f'big: dict\n\nBig.\n\nDefault:\n```json\n{{\n  "key": "{long}"\n}}\n```'
    )
    assert (
        docs["ansible:m:return.out"].text == f'out: str\n\nOut.\n\nSample:\n```json\n"{long}"\n```'
    )


def test_names_come_from_the_path_and_galaxy_yml() -> None:
    doc = 'DOCUMENTATION = """\nshort_description: S.\n"""\n'
    docs = read(
        {
            "lib/ansible/modules/copy.py": doc,
            "lib/ansible/plugins/lookup/file.py": doc,
            "lib/ansible/plugins/connection/ssh.py": doc,
            "repo/galaxy.yml": "namespace: acme\nname: tools\nversion: 1.0.0\n",
            "repo/plugins/modules/deploy.py": doc,
            "repo/plugins/modules/cloud/_old.py": doc,
            "roles/web/library/local_thing.py": doc,
        }
    )
    assert {uri: d.meta["kind"] for uri, d in docs.items()} == {
        "ansible:ansible.builtin.copy": "module",
        "ansible:lookup/ansible.builtin.file": "lookup",
        "ansible:connection/ansible.builtin.ssh": "connection",
        "ansible:acme.tools.deploy": "module",
        "ansible:acme.tools.old": "module",  # an old deprecated module's `_` dropped
        "ansible:local_thing": "module",  # no collection known: the bare stem
    }
    lookup = docs["ansible:lookup/ansible.builtin.file"]
    assert lookup.title == "lookup/ansible.builtin.file"
    assert lookup.meta["fqcn"] == "ansible.builtin.file"
    assert lookup.meta["signature"] == "ansible.builtin.file - S."


def test_a_lookup_named_like_a_module_keeps_its_own_uris() -> None:
    module = 'DOCUMENTATION = """\nmodule: file\noptions:\n  path:\n    type: path\n"""\n'
    lookup = 'DOCUMENTATION = """\nname: file\noptions:\n  _terms:\n    required: true\n"""\n'
    docs = read(
        {"lib/ansible/modules/file.py": module, "lib/ansible/plugins/lookup/file.py": lookup}
    )
    assert sorted(docs) == [
        "ansible:ansible.builtin.file",
        "ansible:ansible.builtin.file:path",
        "ansible:lookup/ansible.builtin.file",
        "ansible:lookup/ansible.builtin.file:_terms",
    ]
    assert docs["ansible:lookup/ansible.builtin.file:_terms"].text == "_terms: str, required"
    assert docs["ansible:ansible.builtin.file:path"].text == "path: path"


def test_the_stem_names_an_alias_whose_doc_names_its_target() -> None:
    doc = 'DOCUMENTATION = """\nmodule: systemd_service\nshort_description: Systemd.\n"""\n'
    docs = read(
        {"lib/ansible/modules/systemd.py": doc, "lib/ansible/modules/systemd_service.py": doc}
    )
    assert sorted(docs) == [
        "ansible:ansible.builtin.systemd",
        "ansible:ansible.builtin.systemd_service",
    ]


def test_plugin_options_show_their_configuration_sources() -> None:
    text = '''DOCUMENTATION = """
    name: tunnel
    short_description: connect through a tunnel
    deprecated:
      why: Use P(acme.net.pipe#connection) instead.
      alternatives: acme.net.pipe
      removed_in: "3.0.0"
    options:
      port:
        description: The port.
        type: int
        default: 22
        env:
          - name: TUNNEL_PORT
          - name: OLD_TUNNEL_PORT
        ini:
          - section: tunnel
            key: port
        vars:
          - name: ansible_tunnel_port
        keyword:
          - name: port
        cli:
          - name: tunnel_port
        deprecated:
          why: Not needed.
          removed_at_date: "2030-01-01"
"""
'''
    docs = read({"ansible_collections/acme/net/plugins/connection/tunnel.py": text})
    assert sorted(docs) == [
        "ansible:connection/acme.net.tunnel",
        "ansible:connection/acme.net.tunnel:port",
    ]
    assert docs["ansible:connection/acme.net.tunnel:port"].text == (
        "port: int\n\nThe port.\n\nDefault: 22\n\n"
        "Environment: TUNNEL_PORT, OLD_TUNNEL_PORT\n\n"
        "ini: tunnel.port\n\n"
        "Variable: ansible_tunnel_port\n\n"
        "Keyword: port\n\n"
        "CLI: --tunnel-port\n\n"
        "Deprecated: removed after 2030-01-01\nWhy: Not needed."
    )
    plugin = docs["ansible:connection/acme.net.tunnel"]
    assert plugin.meta["kind"] == "connection"
    assert plugin.text == (
        "acme.net.tunnel - connect through a tunnel\n\n"
        "Options:\n- `port` (int, default: 22): The port.\n\n"
        "Deprecated: removed in 3.0.0\nWhy: Use `acme.net.pipe` instead.\n"
        "Alternative: acme.net.pipe"
    )


def test_a_yml_sidecar_documents_a_filter() -> None:
    text = """\
DOCUMENTATION:
  name: basename
  version_added: "historical"
  short_description: get a path's base name
  description: Returns the last name component of a path.
  options:
    _input:
      description: A path.
      type: path
      required: true
  seealso:
    - plugin_type: filter
      plugin: ansible.builtin.dirname
EXAMPLES: |

  # the file's name
  {{ mypath | basename }}

RETURN:
  _value:
    description: The base name.
    type: str
"""
    docs = read({"lib/ansible/plugins/filter/basename.yml": text})
    assert sorted(docs) == [
        "ansible:filter/ansible.builtin.basename",
        "ansible:filter/ansible.builtin.basename:_input",
        "ansible:filter/ansible.builtin.basename:return._value",
    ]
    plugin = docs["ansible:filter/ansible.builtin.basename"]
    assert plugin.meta["kind"] == "filter"
    assert plugin.meta["line"] == 1
    assert plugin.text == (
        "ansible.builtin.basename - get a path's base name\n\n"
        "Returns the last name component of a path.\n\n"
        "Options:\n- `_input` (path, required): A path.\n\n"
        "See also:\n- `ansible.builtin.dirname` (filter)\n\n"
        "Examples:\n```yaml\n# the file's name\n{{ mypath | basename }}\n```\n\n"
        "Returns:\n- `_value` (str): The base name.\n\n"
        "Added in: historical"
    )
    value = docs["ansible:filter/ansible.builtin.basename:return._value"]
    assert value.meta["line"] == 19
    assert value.text == "_value: str\n\nThe base name."


def test_core_fragments_by_short_name_and_attribute() -> None:
    module = '''DOCUMENTATION = r"""
module: tidy
short_description: Tidies.
extends_documentation_fragment: [files, action_common_attributes.flow]
attributes:
  async:
    support: none
"""
'''
    fragment = '''class ModuleDocFragment:
    DOCUMENTATION = """
description:
  - From the fragment.
options:
  mode:
    type: raw
    description: Permissions.
"""
'''
    flow = '''class ModuleDocFragment(object):
    DOCUMENTATION = """
attributes: {}
"""
    FLOW = """
attributes:
  async:
    description: Supports C(async).
"""
'''
    docs = read(
        {
            "lib/ansible/modules/tidy.py": module,
            "lib/ansible/plugins/doc_fragments/files.py": fragment,
            "lib/ansible/plugins/doc_fragments/action_common_attributes.py": flow,
        }
    )
    assert sorted(docs) == ["ansible:ansible.builtin.tidy", "ansible:ansible.builtin.tidy:mode"]
    assert docs["ansible:ansible.builtin.tidy"].text == (
        "ansible.builtin.tidy - Tidies.\n\nFrom the fragment.\n\n"
        "Options:\n- `mode` (raw): Permissions.\n\n"
        "Attributes:\n- async: none - Supports `async`."
    )
    assert docs["ansible:ansible.builtin.tidy"].meta["missing_fragments"] == []


def test_a_module_level_fragment_in_a_galaxy_collection() -> None:
    fragment = 'DOCUMENTATION = """\noptions:\n  host:\n    description: The host.\n"""\n'
    module = (
        'DOCUMENTATION = """\nmodule: ping\nextends_documentation_fragment: acme.tools.net\n"""\n'
    )
    files = {
        "galaxy.yml": "namespace: acme\nname: tools\n",
        "plugins/doc_fragments/net.py": fragment,
        "plugins/modules/ping.py": module,
    }
    assert is_plugin("plugins/doc_fragments/net.py", fragment)  # handed over all the same
    rejects = CollectResult()
    docs = read(files, rejects)
    assert sorted(docs) == ["ansible:acme.tools.ping", "ansible:acme.tools.ping:host"]
    assert docs["ansible:acme.tools.ping:host"].text == "host: str\n\nThe host."
    assert rejects.rejects == {}  # the fragment and galaxy.yml are counted nothing


def test_a_missing_fragment_is_skipped_and_listed() -> None:
    text = 'DOCUMENTATION = """\nmodule: m\nextends_documentation_fragment: acme.x.gone\n"""\n'
    docs = read({"library/m.py": text})
    assert docs["ansible:m"].text == "m"
    assert docs["ansible:m"].meta["missing_fragments"] == ["acme.x.gone"]
    assert docs["ansible:m"].meta["fragments"] == []


def test_markup_becomes_markdown() -> None:
    assert markup("C(x) I(y) B(z) U(https://a.b/c)") == "`x` *y* **z** https://a.b/c"
    assert markup("L(the docs,https://a.b/c) M(acme.box.crate)") == (
        "[the docs](https://a.b/c) `acme.box.crate`"
    )
    assert markup("O(state) O(state=absent) V(true) RV(info.size) E(HOME)") == (
        "`state` `state=absent` `true` `info.size` `HOME`"
    )
    assert markup("P(ansible.builtin.file#lookup) O(ansible.builtin.copy#module:dest)") == (
        "`ansible.builtin.file` `dest`"
    )
    assert markup("a HORIZONTALLINE b") == "a  b"
    assert markup("C(f(x)) and V(a\\)b)") == "`f(x)` and `a)b`"
    assert markup("API(x) and C(unclosed") == "API(x) and C(unclosed"  # not markup
    assert markup("C(a`b)") == "`` a`b ``"
    assert markup("C(:() then") == "`:(` then"  # never balances: its first `)`


def test_is_plugin_is_a_cheap_look_at_the_text() -> None:
    assert is_plugin("plugins/modules/a.py", 'x = 1\nDOCUMENTATION = r"""\nmodule: a\n"""\n')
    assert is_plugin("a.py", "DOCUMENTATION = '''\nmodule: a\n'''\n")
    assert is_plugin("a.py", 'DOCUMENTATION = """\nmodule: a\n"""\n')
    assert is_plugin("a.py", "DOCUMENTATION = 'module: a'\n")
    assert not is_plugin("a.py", "import os\n\ndef main():\n    pass\n")
    assert not is_plugin("a.py", "    DOCUMENTATION = r'''\nx: 1\n'''\n")  # a class's
    assert not is_plugin("a.py", "# DOCUMENTATION = '''\n")
    assert is_plugin("plugins/filter/b.yml", "DOCUMENTATION:\n  name: b\n")
    assert is_plugin("x/plugins/modules/win_a.yaml", "DOCUMENTATION:\n  module: win_a\n")
    assert not is_plugin("plugins/b.yml", "DOCUMENTATION:\n  name: b\n")  # no type folder
    assert not is_plugin("roles/r/tasks/main.yml", "DOCUMENTATION:\n  name: b\n")
    assert not is_plugin("plugins/filter/c.yml", "other:\n  DOCUMENTATION: 1\n")
    assert not is_plugin("a.txt", 'DOCUMENTATION = """x"""\n')
    assert is_fragment("ansible_collections/a/b/plugins/doc_fragments/files.py")
    assert not is_fragment("plugins/modules/files.py")


def test_bad_yaml_and_no_documentation_are_counted() -> None:
    assert URI_PREFIX == "ansible:"
    assert ANSIBLE_BAD_YAML == "ansible_bad_yaml" and ANSIBLE_NO_DOC == "ansible_no_doc"
    for reason in (ANSIBLE_BAD_YAML, ANSIBLE_NO_DOC):
        assert "ansible-doc" in FIXES[reason]
        assert FIXES[reason].endswith(
            "the source's ansible: text reads the files as their language's reader would"
        )
    rejects = CollectResult()
    docs = read(
        {
            "library/bad.py": 'DOCUMENTATION = """\noptions: [\n  a: {\n"""\n',
            "library/empty.py": 'DOCUMENTATION = ""\n',
            "library/listed.py": 'DOCUMENTATION = """\n- a\n- b\n"""\n',
            "library/concat.py": 'DOCUMENTATION = "a: 1" + "b"\n',
            "plugins/filter/bad.yml": "DOCUMENTATION:\n  name: [x\n",
            "library/good.py": 'DOCUMENTATION = """\nmodule: good\n"""\n',
            "plugins/doc_fragments/unused.py": "class ModuleDocFragment:\n    X = 1\n",
            "galaxy.yml": "namespace: a\nname: b\n",
        },
        rejects,
    )
    assert sorted(docs) == ["ansible:good"]
    assert rejects.rejects == {ANSIBLE_BAD_YAML: 2, ANSIBLE_NO_DOC: 3}
    assert rejects.samples[ANSIBLE_BAD_YAML] == ["library/bad.py", "plugins/filter/bad.yml"]


def test_a_file_python_cannot_parse_is_read_by_regex() -> None:
    text = '''DOCUMENTATION = """
module: old
short_description: An old module.
"""
RETURN = \'\'\'
msg:
  description: A message.
  type: str
\'\'\'

print "python 2"
'''
    docs = read({"library/old.py": text})
    assert sorted(docs) == ["ansible:old", "ansible:old:return.msg"]
    assert docs["ansible:old:return.msg"].meta["line"] == 5
    assert docs["ansible:old"].text == (
        "old - An old module.\n\nReturns:\n- `msg` (str): A message."
    )


def test_a_module_and_its_sidecar_keep_the_first_file() -> None:
    py = 'DOCUMENTATION = """\nmodule: win_x\nshort_description: From py.\n"""\n'
    yml = "DOCUMENTATION:\n  module: win_x\n  short_description: From yml.\n"
    docs = read({"plugins/modules/win_x.py": py, "plugins/modules/win_x.yml": yml})
    assert docs["ansible:win_x"].meta["signature"] == "win_x - From py."


def test_a_collection_is_read_with_its_galaxy_yml_and_its_options_are_asked_as_options(
    tmp_path: Path,
) -> None:
    """A collection's repository as a local source (default includes): galaxy.yml names
    its plugins though no glob reads it; a plain Python file stays the Python reader's."""
    from apitree import ask, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig

    module = (
        "DOCUMENTATION = r'''\nmodule: crate\nshort_description: Manage crates\n"
        "description: Creates, moves and removes crates in a depot.\noptions:\n"
        "  dest:\n    description: Where the crate goes, as a path in the depot.\n"
        "    type: path\n    required: true\n"
        "  force:\n    description: Replace a crate already there, even a sealed one.\n"
        "    type: bool\n    default: false\n'''\n"
        "RETURN = r'''\nweight:\n  description: The crate's weight once moved, in kilograms.\n"
        "  returned: success\n  type: int\n'''\n"
    )
    helper = '"""Helpers shared by the crate modules."""\n\n\ndef norm(p):\n    """Normalize a depot path."""\n'
    write_tree(
        tmp_path / "box",
        {
            "galaxy.yml": "namespace: acme\nname: box\nversion: 1.0.0\n",
            "plugins/modules/crate.py": module,
            "plugins/module_utils/paths.py": helper,
        },
    )

    def read(**extra: object) -> dict[str, Document]:
        cfg = DomainConfig.model_validate(
            {"name": "t", "sources": [{"type": "local", "path": "box", **extra}]}
        )
        cfg.base_dir = tmp_path
        return {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]

    got = read()
    assert sorted(u for u in got if u.startswith("ansible:")) == [
        "ansible:acme.box.crate", "ansible:acme.box.crate:dest",
        "ansible:acme.box.crate:force", "ansible:acme.box.crate:return.weight",
    ]  # fmt: skip
    assert any(u.startswith("python:") and "norm" in u for u in got)  # the helper: Python's
    dest = got["ansible:acme.box.crate:dest"]
    assert dest.text.splitlines()[0] == "dest: path, required"
    assert ask(dest) == {
        "what_does": "Where the crate goes, as a path in the depot.",
        "signature": "`path, required`",
    }
    assert ask(got["ansible:acme.box.crate:force"], ["signature"]) == {}  # a bare `bool`
    assert ask(got["ansible:acme.box.crate:return.weight"], ["what_does", "returns"]) == {
        "what_does": "The crate's weight once moved, in kilograms."
    }
    assert ask(got["ansible:acme.box.crate"], ["what_does"]) == {
        "what_does": "Creates, moves and removes crates in a depot."
    }
    # ansible: text leaves the module to the Python reader (no docstring: nothing)
    assert not any(u.startswith("ansible:") for u in read(ansible="text"))


def test_a_return_value_with_no_description_is_no_document() -> None:
    """Found on the held-back collections: `result.kind` with only `returned: success`
    answered "what is it?" with "Returned when: success"."""
    text = (
        "DOCUMENTATION = r'''\nmodule: svc\nshort_description: Manage services\n'''\n"
        "RETURN = r'''\nresult:\n  returned: success\n  type: complex\n  contains:\n"
        "    kind:\n      description: The kind of the object.\n      returned: success\n"
        "      type: str\n'''\n"
    )
    docs = {
        d.uri: d
        for d in documents(
            [SourceFile(P("ansible_collections/a/b/plugins/modules/svc.py"), "svc.py", text)],
            "local",
        )
    }
    assert sorted(docs) == ["ansible:a.b.svc", "ansible:a.b.svc:return.result.kind"]
    assert "- `result` (complex)" in docs["ansible:a.b.svc"].text
