"""Ansible modules and plugins read as `ansible-doc` shows them: the YAML in a plugin's
`DOCUMENTATION`, `EXAMPLES` and `RETURN` strings becomes one document for the plugin, one
per option (sub-options too) and one per return value (nested `contains` too), so that a
question about a module's option ("what does `force` do in `ansible.builtin.copy`?") has
a document to come from. Read as a Python module's API such a file gives nothing: Ansible
modules have no docstrings.

Which files: `is_plugin` takes a `.py` file with a module-level assignment of a string to
`DOCUMENTATION` at the start of a line (`DOCUMENTATION = r'''`, or three double quotes,
or one quote, with or without a string prefix, the literal maybe opened on the line after
a parenthesis), and a `.yml`/`.yaml` file in a `modules/` folder or a `plugins/<type>/`
folder whose top-level mapping has a `DOCUMENTATION` key (ansible-core's filter and test
plugins, Windows modules' sidecar docs); both by a regex on the text, nothing parsed. `is_fragment` takes a `.py`
file in a `doc_fragments` folder: doc fragments are handed to `documents` with the
plugins, and so is a collection's `galaxy.yml`; neither gives a document of its own, and
neither is counted.

The strings are read without importing or running the file: `ast.parse`, then the
top-level assignments (`Assign`, `AnnAssign`) of a string constant to `DOCUMENTATION`,
`EXAMPLES` and `RETURN`; a file the running Python cannot parse (a newer or an older
syntax) is searched with a regex for those assignments at the start of a line, each
literal evaluated with `ast.literal_eval`. A string concatenation is not read. A `.yml`
sidecar is loaded whole and its `DOCUMENTATION`, `EXAMPLES` and `RETURN` keys taken (a
key whose value is a string is loaded as YAML again). YAML is loaded as `yaml.safe_load`
does (libyaml's loader when PyYAML has it: the same results, faster). A `DOCUMENTATION`
(or a sidecar) that does not load is counted (`ansible_bad_yaml`); a file with no
`DOCUMENTATION` string, or one that is empty or no mapping, is counted (`ansible_no_doc`).
A `RETURN` that does not load gives no return values, the rest of the plugin is kept.

Names. The plugin type comes from its folder: `plugins/<type>/` (`lookup`, `filter`,
`test`, `inventory`, `callback`, `connection`, `become`, `cache`, `shell`, `strategy`,
`vars`, `cliconf`, `httpapi`, `netconf`, `terminal`, `action`, ...; `plugins/modules` is
`module`); a file in no `plugins/<type>/` folder (`modules/`, a role's `library/`) is a
`module`. The collection: a path `.../ansible_collections/<ns>/<coll>/...` is
`<ns>.<coll>`; `.../ansible/modules/...` and `.../ansible/plugins/...` are ansible-core's
own, `ansible.builtin`; else the nearest folder above the file holding a `galaxy.yml`
(among the files handed over; its `namespace` and `name`) whose `plugins/` folder the
file is in; else none. The short name is the name Ansible loads the plugin by, the
file's stem (`is_abs.yml` -> `is_abs`; an old deprecated module's leading `_` dropped,
`_foo.py` -> `foo`); the DOCUMENTATION's `module:` (or `name:`) is not trusted over it:
ansible-core's aliases are copies or links of their target's file, documentation and all
(`systemd.py` says `module: systemd_service`, `is_abs.yml` says `name: abs`), and one doc
names the wrong filter (`expanduser.yml` says `name: basename`); it names only an
`__init__.py` (its last dotted part). The fully qualified collection name (FQCN) is
`<collection>.<short name>`, the bare short name when no collection is known. A module's
uri is `ansible:<fqcn>` (`ansible:ansible.builtin.copy`), any other plugin's
`ansible:<type>/<fqcn>` (`ansible:lookup/ansible.builtin.file`), so that a lookup named
like a module never takes the module's place; the document's kind is the plugin type,
its title (and meta `qualname`) what follows `ansible:`, its meta `fqcn` and
`plugin_type` the plugin's. An option's uri is the plugin's and `:<option>`, a
sub-option's dotted under its option
(`ansible:community.docker.docker_container:healthcheck.interval`), kind "option"; a
return value's is the plugin's and `:return.<key>`, a `contains` entry's dotted under its
key, kind "return value". Of two files giving one uri (a module's `.py` and a `.yml`
sidecar) the first in path order is kept.

Doc fragments. `extends_documentation_fragment` (a string or a list) names fragments:
`files`, `action_common_attributes.files`, `community.docker.docker`,
`community.docker.docker.docker_py_2_documentation`: one or three dotted parts name a
fragment file (a short name: ansible-core's, else the plugin's own collection's; three
parts: that collection's), a part after it an attribute of it other than
`DOCUMENTATION`, upper-cased (`DOCKER_PY_2_DOCUMENTATION`). A fragment file is
`<name>.py` in a `doc_fragments` folder, named into a collection as plugins are (a file
whose collection is unknown answers to any collection's name); its attributes are the
upper-case string attributes of its classes (`class ModuleDocFragment:`) and of the
module itself, read as the plugins' strings are. A fragment's `options` and `attributes`
are merged into the plugin's entry by entry: a name the plugin lacks is taken, one it
has keeps its own keys and takes the fragment's keys it lacks (the `files` fragment
gives `ansible.builtin.copy`'s `mode` its type); a list both have (`notes`,
`requirements`, `seealso`, `description`) is the plugin's followed by the fragment's; any
other key the plugin lacks is taken (the `template_common` fragment gives
`ansible.builtin.template` its description); fragments merge in the order named, so an
earlier one wins. A fragment not found among the files (or whose YAML does not load) is
skipped, its name listed in the plugin document's meta `missing_fragments` (those used:
`fragments`).

Texts: Markdown, the first line the signature (also the meta `signature`), then
paragraphs.
- The plugin: `<fqcn> - <short_description>` (the FQCN alone without one); its
  `description` (a string, or a list each a paragraph); `Requirements:` a list; `Options:`
  a list of its top-level options by name, each "- `name` (type, required, default: x):
  the first sentence of its description"; `Attributes:` by name, each "- check_mode:
  full - its description" (the platform's `platforms` in place of its support, an entry's
  `details` after a further " - "); `Notes:` a list; `See also:` a list of its `seealso`
  entries ("- `fqcn`" for a module, "- `fqcn` (type)" for a plugin, "- `ref` (ref)" for
  a ref, "- name (ref `ref`)" when it has a name, "- [name](link)" for a link;
  ": description" after); `Examples:`
  the `EXAMPLES` string in a ```` ```yaml ```` block, dedented, leading blank lines and
  each line's trailing whitespace dropped; `Returns:` a list like Options ("- `key`
  (type): first sentence"); `Deprecated:` with its `removed_in` (or `removed_at_date`),
  `why` and `alternative` (or `alternatives`) on lines of their own; `Added in: x` from
  `version_added` (`version_added_collection` is not read). `author` is dropped.
- An option: `<option>: <type>` and `, required` when it is required (`dest: path,
  required`, `mode: raw`); the type as written, `str` when none is given (Ansible's own
  default), a list's elements as `list of str`; a sub-option's name dotted under its
  option (`healthcheck.interval: str`). Then its description paragraphs; `Aliases: a, b`;
  `Choices:` a list ("- `present`"; a mapping of choice to description "- `present`:
  text"); `Default: x` (a string in backquotes as written, `""` when empty; any other
  value as `json.dumps` writes it, `false`, `5`, `["a"]`; a long one in a ```` ```json ````
  block; a `null` default is no default); `Added in: x`; a plugin's configuration sources
  `Environment: VAR, VAR2`, `ini: section.key`, `Variable: name`, and also `Keyword:
  name` and `CLI: --name`; `Deprecated:` as the plugin's; `Suboptions:` a list like
  Options of its `suboptions` (each its own document too).
- A return value: `<key>: <type>` (a nested one dotted under its key, `stat.exists:
  bool`; no type given: the key alone); its description; `Returned when: <returned>`;
  `Sample:` a short scalar inline in backquotes (a string as is, any other as JSON), a
  structured, multi-line or long one (over 80 characters, or with a backquote) in a
  ```` ```json ```` block; `Added in: x`; `Contains:` a list like Returns of its
  `contains` (each its own document). A return value with no description gives no
  document (its parent's list names it; its `contains` are still documents).

Ansible's markup is converted in every text but the examples, samples and values:
`C(x)` -> `` `x` ``, `I(x)` -> `*x*`, `B(x)` -> `**x**`, `U(url)` -> url, `L(text,url)` ->
`[text](url)`, `M(fqcn)` -> `` `fqcn` ``, `O(opt)`/`O(opt=value)` -> `` `opt` ``/
`` `opt=value` `` (a `fqcn#type:` before the option dropped, as in `RV`), `V(value)`,
`RV(ret)`, `E(env)` -> a code span, `P(name#type)` -> `` `name` ``; `HORIZONTALLINE`
dropped. A markup's letters must not follow a letter, digit or `_`; its parentheses are
balanced (`C(f(x))` is `` `f(x)` ``), a backslash escapes `(`, `)` and `\\` (`\\)` is
`)`), and a markup whose parentheses never balance ends at its first `)` (none: left as
written). A description written on one line (a list entry's first sentence, an
attribute's, a choice's) has its paragraphs joined, each ended as a sentence. Every line
of every document stands at the line of the string it comes from (`DOCUMENTATION`'s,
`RETURN`'s; a sidecar's key).
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import yaml

from jupiter.collect.result import CollectResult, SourceFile, api_document, first_documents
from jupiter.records import Document

URI_PREFIX = "ansible:"
SUFFIXES = (".py", ".yml", ".yaml")
# reasons a plugin file gave no document, as the collect stage counts them
ANSIBLE_BAD_YAML = "ansible_bad_yaml"
ANSIBLE_NO_DOC = "ansible_no_doc"
_READ = (
    "Ansible modules and plugins read as ansible-doc shows them (the YAML of their "
    "DOCUMENTATION, EXAMPLES and RETURN strings: one document per plugin, option and "
    "return value): "
)
FIXES = {
    ANSIBLE_BAD_YAML: _READ + "a DOCUMENTATION whose YAML does not load gives none; the "
    "source's ansible: text reads the files as their language's reader would",
    ANSIBLE_NO_DOC: _READ + "a file with no DOCUMENTATION string, or an empty one, gives "
    "none; the source's ansible: text reads the files as their language's reader would",
}
GALAXY = "galaxy.yml"
_STRINGS = ("DOCUMENTATION", "EXAMPLES", "RETURN")
_MAX_INLINE = 80  # characters of a sample shown on its line
_MAX_DEFAULT = 100  # characters of a default shown on its line
_MAX_SENTENCE = 200
_MAX_DEPTH = 10  # levels of sub-options and `contains`
_LANG = {"language": "ansible"}

try:  # libyaml's loader: what `yaml.safe_load` does, several times faster
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

# what a YAML load can raise besides its own errors: a date that is no date
# (`2020-13-45`), a huge or deep value
_LOAD_ERRORS = (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError)

_PY_DOC = re.compile(r"^DOCUMENTATION[ \t]*=[ \t]*\(?\s*[rRuU]?(?:'''|\"\"\"|'|\")", re.M)
_YML_DOC = re.compile(r"^DOCUMENTATION[ \t]*:", re.M)


def is_plugin(name: str, text: str) -> bool:
    """Whether a file is an Ansible module or plugin with its documentation: a `.py` file
    assigning a string to `DOCUMENTATION` at the start of a line, or a `.yml`/`.yaml` file
    in a `modules/` or `plugins/<type>/` folder with a top-level `DOCUMENTATION` key."""
    low = name.lower()
    if low.endswith(".py"):
        return "DOCUMENTATION" in text and bool(_PY_DOC.search(text))
    if low.endswith((".yml", ".yaml")):
        folders = PurePosixPath(name).parts[:-1]
        in_plugins = "plugins" in folders[:-1] or "modules" in folders
        return in_plugins and "DOCUMENTATION" in text and bool(_YML_DOC.search(text))
    return False


def candidate(name: str) -> bool:
    """Whether a file of this name may be the reader's (a plugin, a fragment, a
    galaxy.yml): the sources then read its text and ask `takes`."""
    return name.lower().endswith((".py", ".yml", ".yaml"))


def takes(name: str, text: str) -> bool:
    """Whether the reader takes a file: a plugin, a doc fragment or a collection's
    galaxy.yml (`name` its path in the source)."""
    return is_plugin(name, text) or is_fragment(name) or PurePosixPath(name).name == GALAXY


def is_fragment(name: str) -> bool:
    """Whether a file is a doc fragment: a `.py` file in a `doc_fragments` folder."""
    rel = PurePosixPath(name)
    return rel.suffix == ".py" and "doc_fragments" in rel.parts[:-1]


def documents(
    files: list[SourceFile], source: str, rejects: CollectResult | None = None
) -> list[Document]:
    """Documents for the plugins among the files (with the doc fragments and `galaxy.yml`
    files they need), sorted by uri; a plugin file that gives none is counted."""
    galaxies = {f.rel.parent: name for f in files if f.rel.name == GALAXY if (name := _galaxy(f))}
    frags = _Fragments([f for f in files if is_fragment(str(f.rel))], galaxies)
    plugins = [f for f in files if f.rel.name != GALAXY and not is_fragment(str(f.rel))]

    def read(f: SourceFile) -> list[Document] | str:
        return _plugin_documents(f, source, galaxies, frags)

    return first_documents(plugins, rejects, read, ANSIBLE_NO_DOC)


# ----------------------------------------------------------------------------- reading
def _load(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)  # a safe loader (see `_Loader`)


def _galaxy(f: SourceFile) -> str:
    """`<namespace>.<name>` of a collection's galaxy.yml; "" when it says none."""
    try:
        data = _load(f.text)
    except _LOAD_ERRORS:
        return ""
    if not isinstance(data, dict):
        return ""
    ns, name = data.get("namespace"), data.get("name")
    return f"{ns}.{name}" if isinstance(ns, str) and isinstance(name, str) and ns and name else ""


@dataclass
class _Str:
    value: str
    line: int


def _py_strings(text: str, names: Callable[[str], bool], classes: bool) -> dict[str, _Str]:
    """The string constants a Python file assigns at its top level (and in its top-level
    classes' bodies when `classes`) to the names `names` takes, never run."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _regex_strings(text, names, classes)
    out: dict[str, _Str] = {}
    bodies = [tree.body]
    if classes:
        bodies += [n.body for n in tree.body if isinstance(n, ast.ClassDef)]
    for body in bodies:
        for node in body:
            target, value = _assigned(node)
            if target is not None and names(target) and target not in out:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    out[target] = _Str(value.value, value.lineno)
    return out


def _assigned(node: ast.stmt) -> tuple[str | None, ast.expr | None]:
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return (target.id, node.value) if isinstance(target, ast.Name) else (None, None)
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
        return node.target.id, node.value
    return None, None


# an assignment of a string literal, for a file `ast` cannot parse
_ASSIGN = re.compile(
    r"^(?P<indent>[ \t]*)(?P<name>[A-Z][A-Z0-9_]*)[ \t]*=[ \t]*\(?\s*"
    r"(?P<lit>[rRuU]{0,2}(?:'''.*?'''|\"\"\".*?\"\"\"|'[^'\n]*'|\"[^\"\n]*\"))",
    re.M | re.S,
)


def _regex_strings(text: str, names: Callable[[str], bool], classes: bool) -> dict[str, _Str]:
    out: dict[str, _Str] = {}
    for m in _ASSIGN.finditer(text):
        name = m.group("name")
        if (m.group("indent") and not classes) or not names(name) or name in out:
            continue
        lit = m.group("lit")
        try:
            value = ast.literal_eval(lit)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            # an escape Python rejects: the text between the quotes as written
            value = lit.lstrip("rRuU")[3:-3] if lit.lstrip("rRuU")[:3] in ("'''", '"""') else ""
        if isinstance(value, str):
            out[name] = _Str(value, text.count("\n", 0, m.start("lit")) + 1)
    return out


def _is_plugin_string(name: str) -> bool:
    return name in _STRINGS


def _is_attribute(name: str) -> bool:
    return name.isupper()


class _BadYaml(Exception):
    pass


@dataclass
class _Raw:
    """A plugin's documentation as loaded: its DOCUMENTATION mapping, EXAMPLES string,
    RETURN mapping, each with the line its string stands at."""

    doc: dict[str, Any]
    doc_line: int
    examples: str = ""
    returns: dict[str, Any] = field(default_factory=dict)
    return_line: int = 1


def _read(f: SourceFile) -> _Raw | str:
    """The file's documentation, or the reason it gives none."""
    try:
        if f.rel.suffix.lower() == ".py":
            return _read_py(f.text)
        return _read_yml(f.text)
    except _BadYaml:
        return ANSIBLE_BAD_YAML


def _read_py(text: str) -> _Raw | str:
    got = _py_strings(text, _is_plugin_string, classes=False)
    doc = got.get("DOCUMENTATION")
    if doc is None:
        return ANSIBLE_NO_DOC
    try:
        data = _load(doc.value)
    except _LOAD_ERRORS as e:
        raise _BadYaml from e
    if not isinstance(data, dict) or not data:
        return ANSIBLE_NO_DOC
    raw = _Raw(data, doc.line)
    if "EXAMPLES" in got:
        raw.examples = got["EXAMPLES"].value
    ret = got.get("RETURN")
    if ret is not None:
        raw.returns = _mapping(ret.value)
        raw.return_line = ret.line
    return raw


def _read_yml(text: str) -> _Raw | str:
    try:
        data = _load(text)
    except _LOAD_ERRORS as e:
        raise _BadYaml from e
    if not isinstance(data, dict):
        return ANSIBLE_NO_DOC
    doc = data.get("DOCUMENTATION")
    if isinstance(doc, str):
        try:
            doc = _load(doc)
        except _LOAD_ERRORS as e:
            raise _BadYaml from e
    if not isinstance(doc, dict) or not doc:
        return ANSIBLE_NO_DOC
    raw = _Raw(doc, _key_line(text, "DOCUMENTATION"))
    examples = data.get("EXAMPLES")
    if isinstance(examples, str):
        raw.examples = examples
    elif examples is not None:  # examples written as YAML data: shown as YAML
        raw.examples = yaml.safe_dump(examples, sort_keys=False, allow_unicode=True)
    returns = data.get("RETURN")
    raw.returns = _mapping(returns) if isinstance(returns, str) else _dict(returns)
    raw.return_line = _key_line(text, "RETURN")
    return raw


def _mapping(text: str) -> dict[str, Any]:
    """A RETURN string's mapping; {} when it does not load (the plugin is still read)."""
    try:
        return _dict(_load(text))
    except _LOAD_ERRORS:
        return {}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _key_line(text: str, key: str) -> int:
    m = re.search(rf"^{key}[ \t]*:", text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else 1


# ----------------------------------------------------------------------------- names
@dataclass(frozen=True)
class _Place:
    """Where a file stands among Ansible's: its plugin type, its collection ("" when
    unknown) and its stem."""

    kind: str
    collection: str
    stem: str


def _place(rel: PurePosixPath, galaxies: dict[PurePosixPath, str]) -> _Place:
    parts = rel.parts
    folders = parts[:-1]
    stem = rel.stem
    kind = "module"
    for j in range(len(folders) - 2, -1, -1):
        if folders[j] == "plugins":
            kind = "module" if folders[j + 1] == "modules" else folders[j + 1]
            break
    return _Place(kind, _collection(rel, galaxies), stem)


def _collection(rel: PurePosixPath, galaxies: dict[PurePosixPath, str]) -> str:
    folders = rel.parts[:-1]
    for i in range(len(folders) - 3, -1, -1):
        if folders[i] == "ansible_collections":
            return f"{folders[i + 1]}.{folders[i + 2]}"
    for i in range(len(folders) - 2, -1, -1):
        if folders[i] == "ansible" and folders[i + 1] in ("modules", "plugins"):
            return "ansible.builtin"
    for folder in rel.parents:  # the nearest galaxy.yml whose plugins/ the file is in
        name = galaxies.get(folder)
        if name and rel.relative_to(folder).parts[0] == "plugins":
            return name
    return ""


def _short_name(place: _Place, doc: dict[str, Any]) -> str:
    """The name Ansible loads the plugin by: its file's stem (an old deprecated module's
    leading `_` dropped); the DOCUMENTATION's `module:`/`name:` only for an `__init__.py`."""
    said = ""
    for key in ("module", "name"):
        value = doc.get(key)
        if isinstance(value, str) and value.strip():
            said = value.strip().rsplit(".", 1)[-1]
            break
    stem = place.stem
    if stem.startswith("__"):
        return said or stem
    return stem[1:] if stem.startswith("_") and len(stem) > 1 else stem


# ----------------------------------------------------------------------------- fragments
class _Fragments:
    """The doc fragment files handed over, by (collection, stem); each file's upper-case
    string attributes read once, each attribute's YAML loaded once."""

    def __init__(self, files: list[SourceFile], galaxies: dict[PurePosixPath, str]) -> None:
        self.files: dict[tuple[str, str], SourceFile] = {}
        for f in sorted(files, key=lambda f: f.rel):
            self.files.setdefault((_collection(f.rel, galaxies), f.rel.stem), f)
        self.strings: dict[tuple[str, str], dict[str, _Str]] = {}
        self.loaded: dict[tuple[str, str, str], dict[str, Any] | None] = {}

    def find(self, name: str, home: str) -> dict[str, Any] | None:
        """The fragment `name` names for a plugin of collection `home`, loaded; None when
        it is not among the files (or does not load)."""
        parts = name.strip().split(".")
        if len(parts) >= 3:
            wanted, stem, attr = [f"{parts[0]}.{parts[1]}"], parts[2], parts[3:]
        else:
            wanted, stem, attr = ["ansible.builtin", home], parts[0], parts[1:]
        var = attr[0].upper() if attr else "DOCUMENTATION"
        for coll in [*wanted, ""]:
            key = (coll, stem)
            if key in self.files:
                return self._load(key, var)
        return None

    def _load(self, key: tuple[str, str], var: str) -> dict[str, Any] | None:
        got = self.loaded.get((key[0], key[1], var), _UNREAD)
        if got is not _UNREAD:
            return got
        strings = self.strings.get(key)
        if strings is None:
            strings = _py_strings(self.files[key].text, _is_attribute, classes=True)
            self.strings[key] = strings
        data: dict[str, Any] | None = None
        if var in strings:
            try:
                loaded = _load(strings[var].value)
            except _LOAD_ERRORS:
                loaded = None
            data = loaded if isinstance(loaded, dict) else None
        self.loaded[(key[0], key[1], var)] = data
        return data


_UNREAD: Any = object()
_BY_ENTRY = ("options", "attributes")  # mappings merged entry by entry


def _merge(doc: dict[str, Any], frag: dict[str, Any]) -> None:
    """Merges a fragment into a plugin's documentation (see the module's docstring); the
    fragment's own data is never changed: it is shared by every plugin that names it."""
    for key, value in frag.items():
        mine = doc.get(key)
        if mine is None:
            doc[key] = dict(value) if isinstance(value, dict) else value
        elif key in _BY_ENTRY and isinstance(mine, dict) and isinstance(value, dict):
            for name, spec in value.items():
                own = mine.get(name)
                if own is None:
                    mine[name] = spec
                elif isinstance(own, dict) and isinstance(spec, dict):
                    mine[name] = {**spec, **own}
        elif isinstance(mine, list) and isinstance(value, list):
            doc[key] = [*mine, *value]
        elif key == "description" and isinstance(mine, str) and isinstance(value, list):
            doc[key] = [mine, *value]


def _fragment_names(doc: dict[str, Any]) -> list[str]:
    named = doc.get("extends_documentation_fragment")
    if isinstance(named, str):
        named = [named]
    if not isinstance(named, list):
        return []
    return [n.strip() for n in named if isinstance(n, str) and n.strip()]


# ----------------------------------------------------------------------------- markup
_MARK = re.compile(r"(?<![\w])(?:(RV|[CIBUMLOVEP])\(|HORIZONTALLINE)")
_OPTION_REF = re.compile(r"[\w.]+#[\w]+:")  # `O(ansible.builtin.copy#module:dest)`


def markup(text: str) -> str:
    """Ansible's markup as Markdown (see the module's docstring)."""
    if "(" not in text and "HORIZONTALLINE" not in text:
        return text
    out: list[str] = []
    at = 0
    while True:
        m = _MARK.search(text, at)
        if m is None:
            break
        out.append(text[at : m.start()])
        letter = m.group(1)
        if letter is None:  # HORIZONTALLINE
            at = m.end()
            continue
        closed = _closing(text, m.end())
        if closed is None:
            out.append(m.group())
            at = m.end()
            continue
        inner, at = closed
        out.append(_converted(letter, inner))
    out.append(text[at:])
    return "".join(out)


def _closing(text: str, start: int) -> tuple[str, int] | None:
    """The markup's content from `start` to its balancing `)` (escapes undone), and where
    the text goes on; an unbalanced one ends at its first `)`."""
    depth = 1
    got: list[str] = []
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in "()\\":
            got.append(text[i + 1])
            i += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return "".join(got), i + 1
        got.append(c)
        i += 1
    end = text.find(")", start)
    return (text[start:end], end + 1) if end >= 0 else None


def _converted(letter: str, inner: str) -> str:
    if letter == "I":
        return f"*{inner}*"
    if letter == "B":
        return f"**{inner}**"
    if letter == "U":
        return inner
    if letter == "L":
        label, comma, url = inner.rpartition(",")
        return f"[{label.strip()}]({url.strip()})" if comma else inner
    if letter in ("O", "RV"):
        ref = _OPTION_REF.match(inner)
        inner = inner[ref.end() :] if ref else inner
    elif letter == "P":
        inner = inner.split("#", 1)[0]
    return _code(inner)


def _code(text: str) -> str:
    """A Markdown code span, its fence longer than any backquote run inside it."""
    if "`" not in text:
        return f"`{text}`"
    return f"`` {text} ``"


# ----------------------------------------------------------------------------- texts
def _paragraphs(value: Any) -> list[str]:
    """A description (a string, or a list of them) as Markdown paragraphs."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out = [markup(str(x)).strip() for x in items if x is not None]
    return [p for p in out if p]


def _one_line(value: Any) -> str:
    """A description on one line: its paragraphs joined, each ended as a sentence so that
    two do not run together ("... loop considerations. Conditionals ...")."""
    paras = [" ".join(p.split()) for p in _paragraphs(value)]
    ended = [p if k == len(paras) - 1 or p[-1] in ".!?:;" else p + "." for k, p in enumerate(paras)]
    return " ".join(ended)


_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)[.!?](?=\s)")


def _first_sentence(value: Any) -> str:
    """The first sentence of a description's first paragraph, on one line."""
    paras = _paragraphs(value)
    if not paras:
        return ""
    para = " ".join(paras[0].split())
    m = _SENTENCE_END.search(para)
    first = para[: m.end()] if m is not None else para
    if len(first) > _MAX_SENTENCE:
        first = first[: _MAX_SENTENCE - 1].rstrip() + "…"
    return first


def _json(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=False, default=str)


def _value(value: Any) -> str:
    """A default or choice as a user writes it: a string in backquotes, else JSON."""
    if isinstance(value, str):
        return _code(value) if value else '""'
    return _json(value)


def _type(spec: dict[str, Any], default: str) -> str:
    typ = spec.get("type")
    name = str(typ) if typ is not None else default
    elements = spec.get("elements")
    if name == "list" and elements is not None:
        return f"list of {elements}"
    return name


def _entry(name: str, spec: dict[str, Any], option: bool) -> str:
    """An Options/Suboptions/Returns/Contains list entry."""
    said = [_type(spec, "str" if option else "")]
    if option and spec.get("required") is True:
        said.append("required")
    if option and spec.get("default") is not None:
        said.append(f"default: {_value(spec['default'])}")
    inside = ", ".join(x for x in said if x)
    head = f"- `{name}` ({inside})" if inside else f"- `{name}`"
    first = _first_sentence(spec.get("description"))
    return f"{head}: {first}" if first else head


def _listing(heading: str, entries: Any, option: bool) -> str:
    lines = [_entry(str(k), v, option) for k, v in _sorted(entries)]
    return "\n".join([heading, *lines]) if lines else ""


def _sorted(entries: Any) -> list[tuple[str, dict[str, Any]]]:
    """A mapping's entries that are mappings, by name (as ansible-doc lists them)."""
    if not isinstance(entries, dict):
        return []
    got = [(str(k), v) for k, v in entries.items() if isinstance(v, dict)]
    return sorted(got, key=lambda kv: kv[0])


def _bullets(heading: str, items: Any) -> str:
    if isinstance(items, (str, dict)):
        items = [items]
    if not isinstance(items, list):
        return ""
    lines = [f"- {_one_line(x)}" for x in items if _one_line(x)]
    return "\n".join([heading, *lines]) if lines else ""


def _attributes(attrs: Any) -> str:
    lines: list[str] = []
    for name, spec in _sorted(attrs):
        support = spec.get("support")
        platforms = spec.get("platforms")
        if name == "platform" and platforms:
            support = ", ".join(map(str, platforms)) if isinstance(platforms, list) else platforms
        said = [str(support) if support is not None else "", _one_line(spec.get("description"))]
        said.append(_one_line(spec.get("details")))
        line = " - ".join(x for x in said if x)
        lines.append(f"- {name}: {line}" if line else f"- {name}")
    return "\n".join(["Attributes:", *lines]) if lines else ""


def _seealso(entries: Any) -> str:
    lines: list[str] = []
    for e in entries if isinstance(entries, list) else []:
        if not isinstance(e, dict):
            continue
        if e.get("module"):
            head = _code(str(e["module"]))
        elif e.get("plugin"):
            kind = e.get("plugin_type")
            head = _code(str(e["plugin"])) + (f" ({kind})" if kind else "")
        elif e.get("link"):
            head = f"[{_one_line(e.get('name')) or e['link']}]({e['link']})"
        elif e.get("ref"):
            name = _one_line(e.get("name"))
            head = (
                f"{name} (ref {_code(str(e['ref']))})" if name else f"{_code(str(e['ref']))} (ref)"
            )
        else:
            continue
        about = _one_line(e.get("description"))
        lines.append(f"- {head}: {about}" if about else f"- {head}")
    return "\n".join(["See also:", *lines]) if lines else ""


def _examples(text: str) -> str:
    lines = [line.rstrip() for line in textwrap.dedent(text.expandtabs(8)).split("\n")]
    body = "\n".join(lines).strip("\n")
    if not body.strip():
        return ""
    fence = "````" if "```" in body else "```"
    return f"Examples:\n{fence}yaml\n{body}\n{fence}"


def _deprecated(value: Any) -> str:
    if value is None or value is False:
        return ""
    if not isinstance(value, dict):
        return f"Deprecated: {_one_line(value)}" if value is not True else "Deprecated."
    when = ""
    if value.get("removed_in"):
        when = f"removed in {value['removed_in']}"
    elif value.get("removed_at_date"):
        when = f"removed after {value['removed_at_date']}"
    lines = [f"Deprecated: {when}" if when else "Deprecated."]
    why = _one_line(value.get("why"))
    if why:
        lines.append(f"Why: {why}")
    alternative = _one_line(value.get("alternative") or value.get("alternatives"))
    if alternative:
        lines.append(f"Alternative: {alternative}")
    return "\n".join(lines)


def _added(value: Any) -> str:
    return f"Added in: {value}" if value not in (None, "") else ""


def _default(value: Any) -> str:
    if value is None:
        return ""
    shown = _value(value)
    if len(shown) <= _MAX_DEFAULT:
        return f"Default: {shown}"
    return f"Default:\n```json\n{_json(value, 2)}\n```"


def _choices(value: Any) -> str:
    if isinstance(value, dict):
        lines = [
            f"- {_value(k)}: {_one_line(d)}" if _one_line(d) else f"- {_value(k)}"
            for k, d in value.items()
        ]
    elif isinstance(value, list):
        lines = [f"- {_value(v)}" for v in value]
    else:
        return ""
    return "\n".join(["Choices:", *lines]) if lines else ""


def _names(entries: Any, key: str) -> list[str]:
    """The names in a configuration source's list (`env`, `vars`: `- name: X`)."""
    items = entries if isinstance(entries, list) else [entries] if entries else []
    out = []
    for e in items:
        if isinstance(e, dict) and e.get(key) is not None:
            out.append(str(e[key]))
        elif isinstance(e, str):
            out.append(e)
    return out


def _sources(spec: dict[str, Any]) -> list[str]:
    """A plugin option's configuration sources, a line each."""
    out: list[str] = []
    env = _names(spec.get("env"), "name")
    if env:
        out.append("Environment: " + ", ".join(env))
    ini = spec.get("ini")
    keys = [
        f"{e.get('section')}.{e.get('key')}"
        for e in (ini if isinstance(ini, list) else [ini])
        if isinstance(e, dict) and e.get("key") is not None
    ]
    if keys:
        out.append("ini: " + ", ".join(keys))
    variables = _names(spec.get("vars"), "name")
    if variables:
        out.append("Variable: " + ", ".join(variables))
    keywords = _names(spec.get("keyword"), "name")
    if keywords:
        out.append("Keyword: " + ", ".join(keywords))
    cli = spec.get("cli")
    flags = [
        str(e.get("option") or "--" + str(e["name"]).replace("_", "-"))
        for e in (cli if isinstance(cli, list) else [])
        if isinstance(e, dict) and (e.get("option") or e.get("name"))
    ]
    if flags:
        out.append("CLI: " + ", ".join(flags))
    return out


def _sample(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return f"Sample:\n```json\n{_json(value, 2)}\n```"
    shown = value if isinstance(value, str) else _json(value)
    if len(shown) > _MAX_INLINE or "\n" in shown or "`" in shown:
        return f"Sample:\n```json\n{_json(value, 2)}\n```"
    return f"Sample: `{shown}`" if shown else 'Sample: `""`'


def _join(parts: Iterable[str]) -> str:
    return "\n\n".join(p for p in parts if p)


# ----------------------------------------------------------------------------- documents
@dataclass
class _Plugin:
    """What a plugin's documents share: its file, names, uri prefix and the source."""

    f: SourceFile
    source: str
    fqcn: str
    kind: str
    qual: str  # what follows the uri's prefix: `ansible.builtin.copy`, `lookup/...`

    def document(
        self, qual: str, text: str, kind: str, signature: str, line: int, **more: Any
    ) -> Document:
        return api_document(
            self.source,
            URI_PREFIX,
            self.f,
            qual,
            text,
            kind,
            signature,
            line,
            **_LANG,
            fqcn=self.fqcn,
            plugin_type=self.kind,
            **more,
        )


def _plugin_documents(
    f: SourceFile, source: str, galaxies: dict[PurePosixPath, str], frags: _Fragments
) -> list[Document] | str:
    raw = _read(f)
    if isinstance(raw, str):
        return raw
    place = _place(f.rel, galaxies)
    doc = raw.doc
    used: list[str] = []
    missing: list[str] = []
    for name in _fragment_names(doc):
        frag = frags.find(name, place.collection)
        if frag is None:
            missing.append(name)
        else:
            _merge(doc, frag)
            used.append(name)
    short = _short_name(place, doc)
    fqcn = f"{place.collection}.{short}" if place.collection else short
    qual = fqcn if place.kind == "module" else f"{place.kind}/{fqcn}"
    p = _Plugin(f, source, fqcn, place.kind, qual)
    options = doc.get("options")
    out = [_plugin_document(p, raw, used, missing)]
    for name, spec in _sorted(options):
        out += _option_documents(p, name, spec, raw.doc_line, 1)
    for name, spec in _sorted(raw.returns):
        out += _return_documents(p, name, spec, raw.return_line, 1)
    return out


def _plugin_document(p: _Plugin, raw: _Raw, used: list[str], missing: list[str]) -> Document:
    doc = raw.doc
    short = _one_line(doc.get("short_description"))
    signature = f"{p.fqcn} - {short}" if short else p.fqcn
    body = [
        *_paragraphs(doc.get("description")),
        _bullets("Requirements:", doc.get("requirements")),
        _listing("Options:", doc.get("options"), option=True),
        _attributes(doc.get("attributes")),
        _bullets("Notes:", doc.get("notes")),
        _seealso(doc.get("seealso")),
        _examples(raw.examples),
        _listing("Returns:", raw.returns, option=False),
        _deprecated(doc.get("deprecated")),
        _added(doc.get("version_added")),
    ]
    text = _join([signature, *body])
    return p.document(
        p.qual,
        text,
        p.kind,
        signature,
        raw.doc_line,
        fragments=used,
        missing_fragments=missing,
    )


def _option_documents(
    p: _Plugin, path: str, spec: dict[str, Any], line: int, depth: int
) -> list[Document]:
    signature = f"{path}: {_type(spec, 'str')}"
    if spec.get("required") is True:
        signature += ", required"
    subs = spec.get("suboptions")
    if not isinstance(subs, dict):
        subs = spec.get("options") if isinstance(spec.get("options"), dict) else {}
    aliases = spec.get("aliases")
    if isinstance(aliases, str):
        aliases = [aliases]
    body = [
        *_paragraphs(spec.get("description")),
        "Aliases: " + ", ".join(map(str, aliases)) if isinstance(aliases, list) and aliases else "",
        _choices(spec.get("choices")),
        _default(spec.get("default")),
        _added(spec.get("version_added")),
        *_sources(spec),
        _deprecated(spec.get("deprecated")),
        _listing("Suboptions:", subs, option=True) if depth < _MAX_DEPTH else "",
    ]
    text = _join([signature, *body])
    out = [p.document(f"{p.qual}:{path}", text, "option", signature, line)]
    if depth < _MAX_DEPTH:
        for name, sub in _sorted(subs):
            out += _option_documents(p, f"{path}.{name}", sub, line, depth + 1)
    return out


def _return_documents(
    p: _Plugin, path: str, spec: dict[str, Any], line: int, depth: int
) -> list[Document]:
    typ = _type(spec, "")
    signature = f"{path}: {typ}" if typ else path
    returned = _one_line(spec.get("returned"))
    contains = spec.get("contains") if depth < _MAX_DEPTH else None
    body = [  # what it is first: the question generator summarizes by the first paragraph
        *_paragraphs(spec.get("description")),
        f"Returned when: {returned}" if returned else "",
        _sample(spec.get("sample")),
        _added(spec.get("version_added")),
        _listing("Contains:", contains, option=False),
    ]
    text = _join([signature, *body])
    # one with no description says only when it comes back ("Returned when: success", what
    # a question about what it is got for an answer): its parent's list names it
    said = _paragraphs(spec.get("description"))
    out = (
        [p.document(f"{p.qual}:return.{path}", text, "return value", signature, line)]
        if said
        else []
    )
    for name, sub in _sorted(contains):
        out += _return_documents(p, f"{path}.{name}", sub, line, depth + 1)
    return out
