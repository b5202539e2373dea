"""Reading chunk structure: signatures, parameters, sentences, headings, section intros."""

from __future__ import annotations

import pytest

from jupiter.records import Chunk
from jupiter.synth.parse import (
    collapse,
    headings,
    lead,
    parameters,
    plain_chunk,
    prose_paragraphs,
    section_intro,
    sentences,
    split_qualified,
    split_signature,
    strip_numbering,
    view,
)


def test_split_signature_the_collector_ways() -> None:
    text = "dumps(obj, *, indent=None)\n\nSerialize ``obj``."
    assert split_signature(text, "json.dumps") == (
        "(obj, *, indent=None)",
        "Serialize ``obj``.",
        False,
    )
    method = "JSONEncoder.encode(o)\n\nReturn a JSON string."
    assert split_signature(method, "json.JSONEncoder.encode")[0] == "(o)"
    # no introspectable signature: the bare name, and the docstring's own signature line
    builtin = "getattr\n\ngetattr(object, name[, default]) -> value\n\nGet an attribute."
    assert split_signature(builtin, "builtins.getattr") == (
        "(object, name[, default]) -> value",
        "Get an attribute.",
        False,
    )
    assert split_signature("Pattern.scanner\n\nScan it.", "re.Pattern.scanner") == (
        "",
        "Scan it.",
        False,
    )
    # a module's document is its docstring alone
    assert split_signature("JSON is a format.\n", "json") == ("", "JSON is a format.\n", True)


def test_split_signature_reads_old_style_lines_with_long_arrows_and_dashes() -> None:
    # a C builtin's "name(args) --> result" line is its signature, not its description
    chain = "chain\n\nchain(*iterables) --> chain object\n\nReturn a chain object."
    assert split_signature(chain, "itertools.chain") == (
        "(*iterables) --> chain object",
        "Return a chain object.",
        False,
    )
    # an arrow to a sentence: the sentence says what it does
    zip_ = "zip\n\nzip(*iterables, strict=False) --> Yield tuples until one is exhausted.\n\nMore."
    assert split_signature(zip_, "builtins.zip") == (
        "(*iterables, strict=False)",
        "Yield tuples until one is exhausted.\n\nMore.",
        False,
    )
    # "D.count(value) -- return ...": the arguments, and the description as a sentence
    count = "deque.index\n\nD.index(value, [start, [stop]]) -- return first index.\nRaises it."
    assert split_signature(count, "collections.deque.index") == (
        "(value, [start, [stop]])",
        "Return first index.\nRaises it.",
        False,
    )
    # the dash ends the line: the description is the next one
    note = "BaseException.add_note\n\nException.add_note(note) --\nadd a note to the exception"
    assert split_signature(note, "builtins.BaseException.add_note") == (
        "(note)",
        "Add a note to the exception",
        False,
    )
    # an introspected signature first, the docstring's own dashed line after it
    new = "new(name, data=b'')\n\nnew(name, data=b'') - Return a new hashing object."
    assert split_signature(new, "hashlib.new") == (
        "(name, data=b'')",
        "Return a new hashing object.",
        False,
    )
    # a short result, then a comma and what it does; a longer one is all result
    pop = "MutableMapping.pop\n\nD.pop(k[,d]) -> v, remove specified key.\nIf it is not found."
    assert split_signature(pop, "collections.abc.MutableMapping.pop") == (
        "(k[,d]) -> v",
        "Remove specified key.\nIf it is not found.",
        False,
    )
    get = "Mapping.get\n\nD.get(k[,d]) -> D[k] if k in D, else d."
    assert (
        split_signature(get, "collections.abc.Mapping.get")[0]
        == "(k[,d]) -> D[k] if k in D, else d."
    )
    # the result continued on the next lines
    fds = "recv_fds(sock)\n\nrecv_fds(sock) -> (data, list of\ndescriptors)\n\nReceive fds."
    assert split_signature(fds, "socket.recv_fds") == ("(sock)", "Receive fds.", False)
    check = "check_values(values)\n\ncheck_values(values : Values)\n-> (values : Values)\n\nCheck."
    assert split_signature(check, "optparse.OptionParser.check_values")[1] == "Check."
    # a colon after the call
    on = "enable\n\nenable(file=sys.stderr): enable the fault handler"
    assert split_signature(on, "faulthandler.enable") == (
        "(file=sys.stderr)",
        "Enable the fault handler",
        False,
    )
    off = "cancel()\n\ncancel():\ncancel the previous call."
    assert split_signature(off, "faulthandler.cancel") == ("()", "Cancel the previous call.", False)
    # more forms of the call after the first: the description after them all
    forms = "alignment(obj, /)\n\nalignment(C type) -> integer\nalignment(C instance) -> integer\nReturn it."
    assert split_signature(forms, "ctypes.alignment") == ("(obj, /)", "Return it.", False)
    # another name's call is no signature of this one
    other = "wrap\n\nfill(text) -- wrap and join."
    assert split_signature(other, "textwrap.wrap") == ("", "fill(text) -- wrap and join.", False)


def test_parameters_of_a_signature_in_words_are_none() -> None:
    # "function or None", a bare "...": the count of arguments cannot be read from them
    assert parameters("(function or None, iterable) --> filter object") == []
    assert parameters("(attr, ...)") == []
    assert parameters("(iter1 [,iter2 [...]], [fillvalue=None])") == []
    # an optional group of arguments in brackets ("destwin, [sminrow, smincol]")
    assert [p.name for p in parameters("(destwin, [sminrow, smincol])")] == [
        "destwin",
        "sminrow",
        "smincol",
    ]
    assert [p.name for p in parameters("(object, name[, default]) -> value")] == [
        "object",
        "name",
        "default",
    ]


def test_view_classifies_by_uri() -> None:
    c = Chunk(
        "d", "python_stdlib", "python:os.path.join", "os.path.join", 0, 10, "join(a, *p)\n\nJoin."
    )
    v = view(c)
    assert (v.kind, v.name, v.signature, v.body) == ("api", "os.path.join", "(a, *p)", "Join.")
    later = Chunk("d", "python_stdlib", "python:os.path.join", "os.path.join", 5, 10, "join(a)")
    assert view(later).signature == ""  # only a document's first chunk opens with it
    topic = Chunk("t", "python_stdlib", "pydoc:topics/for", "for", 0, 3, "x")
    assert view(topic).kind == "topic"
    assert view(Chunk("l", "local", "/a/b.md", "b.md", 0, 1, "x")).kind == "doc"


def test_parameters() -> None:
    params = parameters("(self, a, /, b=(1, 2), *args, c: int = 3, **kw) -> str")
    assert [(p.name, p.text, p.keyword_only) for p in params] == [
        ("a", "a", False),
        ("b", "b=(1, 2)", False),
        ("args", "*args", False),
        ("c", "c: int = 3", True),
        ("kw", "**kw", False),
    ]
    assert [p.name for p in parameters("(s, *, sep=', ')")] == ["s", "sep"]
    assert parameters("") == [] and parameters("()") == []
    optional = parameters("(object, name[, default]) -> value")
    assert [p.text for p in optional] == ["object", "name", "default"]
    # quotes that are strings, and quotes that are Rust lifetimes
    assert [p.text for p in parameters("(a='x, y', b=\"'\", c: 'Foo' = None)")] == [
        "a='x, y'",
        'b="\'"',
        "c: 'Foo' = None",
    ]
    rust = parameters("(name: &'a str, f: impl Fn(u8) -> Vec<u8>, m: HashMap<&'a str, T>)")
    assert [p.name for p in rust] == ["name", "f", "m"]


def test_parameters_where_the_type_comes_first_or_last() -> None:
    c = parameters("(git_repository **out, const char *path, int (*cb)(void *), char buf[16])", "c")
    assert [(p.name, p.text) for p in c] == [
        ("out", "git_repository **out"),
        ("path", "const char *path"),
        ("cb", "int (*cb)(void *)"),
        ("buf", "char buf[16]"),
    ]
    # a type with no name (a prototype's), `void`, varargs: no parameter
    assert parameters("(unsigned int, const char *, ...)", "c") == []
    assert parameters("(void)", "c") == []
    java = parameters("(final List<? extends E> c, String... args, int[] a)", "java")
    assert [p.name for p in java] == ["c", "args", "a"]
    assert [p.name for p in parameters("(const Job &job, int priority = 0)", "c")] == [
        "job",
        "priority",
    ]
    php = parameters("(string $name, array $payload = [], ?callable ...$more)", "php")
    assert [(p.name, p.text) for p in php] == [
        ("name", "string $name"),
        ("payload", "array $payload = []"),
        ("more", "?callable ...$more"),
    ]
    go = parameters("(ctx context.Context, fn func(a, b int) error)", "go")
    assert [p.name for p in go] == ["ctx", "fn"]
    assert parameters("(int, string)", "go") == []
    # Python's own signatures read as before: the ast nodes' "(expr target)" is no "name type"
    assert [p.name for p in parameters("(expr target, expr iter)")] == []


def test_qualified_names_split_at_a_dot_or_a_path_separator() -> None:
    assert split_qualified("json.dumps") == ("json", "dumps")
    assert split_qualified("os.path.join") == ("os.path", "join")
    assert split_qualified("anyhow::Error::context") == ("anyhow::Error", "context")
    assert split_qualified("anyhow::bail!") == ("anyhow", "bail!")
    assert split_qualified("len") == ("", "len")
    # a PHP namespace and member, a Ruby instance method (its ? kept)
    assert split_qualified("Monolog\\Logger::pushHandler") == ("Monolog\\Logger", "pushHandler")
    assert split_qualified("Monolog\\Handler") == ("Monolog", "Handler")
    assert split_qualified("Rack::Request#ssl?") == ("Rack::Request", "ssl?")
    php = "Monolog\\Logger::pushHandler(HandlerInterface $handler)\n\nPushes a handler."
    assert split_signature(php, "Monolog\\Logger::pushHandler") == (
        "(HandlerInterface $handler)",
        "Pushes a handler.",
        False,
    )
    assert split_signature("X::$level\n\nThe level.", "X::$level") == ("", "The level.", False)
    # a Ruby operator method's signature line
    ruby = "Spool::Queue#==(other)\n\nWhether two queues share a folder."
    assert split_signature(ruby, "Spool::Queue#==") == (
        "(other)",
        "Whether two queues share a folder.",
        False,
    )
    # a Rust document's name line is its signature, and a macro's bare name is no module's text
    text = "spool::Queue::push(name: &str)\n\nAdds a job."
    assert split_signature(text, "spool::Queue::push") == ("(name: &str)", "Adds a job.", False)
    assert split_signature("spool::push!\n\nPushes.", "spool::push!") == ("", "Pushes.", False)


def test_sentences_keep_abbreviations_together() -> None:
    text = "Use it, e.g. for lists. buffers must be bytes. Done!"
    assert sentences(text) == ["Use it, e.g. for lists.", "buffers must be bytes.", "Done!"]
    # an ellipsis inside a sentence does not end it
    text = "It iterates over the numbers 0, 1, ... up to the integer ``<stop>``. Next."
    assert sentences(text) == [
        "It iterates over the numbers 0, 1, ... up to the integer ``<stop>``.",
        "Next.",
    ]
    # nor does an abbreviation that opens a parenthesis
    text = "Return None if it is not there (e.g. before the handshake). Next."
    assert sentences(text) == [
        "Return None if it is not there (e.g. before the handshake).",
        "Next.",
    ]


@pytest.mark.parametrize(
    ("heading", "name"),
    [
        ("2.1. What the queue does with your job", "What the queue does with your job"),
        ("4.5.2. Valid-address (A) bits", "Valid-address (A) bits"),
        ("10. README.android", "README.android"),
        ("3.12 What is new", "What is new"),
        ("A.2. Glossary", "Glossary"),
        ("2 Using the queue", "Using the queue"),
        ("4.1. if Statements", "if Statements"),
        # not numbering: a number that is the title, an article, a word starting with a digit
        ("3.4.1.", "3.4.1."),
        ("2.0", "2.0"),
        ("A Tour of the Queue", "A Tour of the Queue"),
        ("3 ways to retry", "3 ways to retry"),
        ("2to3", "2to3"),
    ],
)
def test_strip_numbering(heading: str, name: str) -> None:
    assert strip_numbering(heading) == name


def test_lead_skips_code_and_old_style_signatures() -> None:
    text = "spawnve(mode, file, args, env) -> integer\n\n    code()\n\nExecute file with args.\n"
    assert lead(text) == "Execute file with args."


def test_headings_markdown_and_underlined() -> None:
    text = '# Intro\n\nText.\n\nThe "for" statement\n*******************\n\nMore.\n'
    found = headings(text)
    assert [h for h, _ in found] == ["Intro", 'The "for" statement']
    assert text[found[1][1] :].strip() == "More."


def test_section_intro_keeps_the_block_a_paragraph_introduces() -> None:
    text = (
        "Loops repeat code:\n\n   for x in y:\n       pass\n\nThe body runs once per item.\n\n"
        "A third paragraph.\n"
    )
    assert section_intro(text) == (
        "Loops repeat code:\n\nfor x in y:\n    pass\n\nThe body runs once per item."
    )


# a manual page as groff renders it: every paragraph indented, options hanging, an example
MAN_PAGE = """NAME
       taskq - run jobs from a queue

DESCRIPTION
       taskq runs each job of the queue in its own process.

       A job that exits with a status other than zero is retried three times
       before it is moved to the dead-letter queue.

       -r, --retries=N
              Retry a failed job N times.

              Retries are spaced by the back-off interval, which doubles after
              each attempt.

EXAMPLES
           taskq --retries=5 --queue nightly jobs.txt

           for (i = 0; i < n; i++) {
"""


def test_indented_paragraphs_of_plain_text_are_prose_when_they_read_as_sentences() -> None:
    paras = prose_paragraphs(MAN_PAGE, plain=True)
    assert (
        "A job that exits with a status other than zero is retried three times before it is "
        "moved to the dead-letter queue." in paras
    )
    assert "Retries are spaced by the back-off interval, which doubles after each attempt." in paras
    # an option's line, a command line and code are not prose; a heading glued to its first
    # paragraph was prose before and is still
    assert not any(p.startswith(("-r,", "taskq --retries", "for (")) for p in paras)
    assert "DESCRIPTION taskq runs each job of the queue in its own process." in paras
    # markup (or a caller that does not know the format) keeps indentation as code
    assert not any(p.startswith("A job that exits") for p in prose_paragraphs(MAN_PAGE))


def test_a_licenses_numbered_and_lettered_clauses_read_as_prose() -> None:
    text = (
        "   2. Grant of Copyright License. Subject to the terms of this License, each\n"
        "      Contributor grants to You a perpetual copyright license.\n\n"
        "      (a) You must give any other recipients of the Work a copy of\n"
        "          this License; and\n"
    )
    paras = prose_paragraphs(text, plain=True)
    assert paras[0].startswith("2. Grant of Copyright License. Subject to")
    assert paras[1] == (
        "(a) You must give any other recipients of the Work a copy of this License; and"
    )


@pytest.mark.parametrize(
    ("uri", "text", "plain"),
    [
        ("/docs/taskq.1.txt", MAN_PAGE, True),
        ("/docs/LICENSE", "   Plain terms of use.\n", True),
        ("/docs/notes.txt.gz", "Some notes.\n", True),
        ("/docs/guide.rst", "   A quoted paragraph.\n", False),  # indentation means markup
        ("/docs/guide.md", "    code_block()\n", False),
        ("/docs/notes.txt", "Intro:\n\n```\ncode\n```\n", False),  # markup in the text
        ("/docs/notes.txt", "Run this::\n\n    make\n", False),
        ("python:json.dumps", "Serialize obj.\n\n    indent: the level.\n", False),
        ("pydoc:topics/assert", "   assert_stmt ::= 'assert' expression\n", False),
    ],
)
def test_plain_chunk_by_file_name_and_markup(uri: str, text: str, plain: bool) -> None:
    chunk = Chunk("d", "local", uri, uri, 0, len(text), text)
    assert plain_chunk(chunk) is plain
    assert view(chunk).plain is (plain and not uri.startswith(("python:", "pydoc:")))


def test_collapse_makes_a_word_broken_at_a_line_end_whole() -> None:
    text = "matching multiple dif\u2010\n       ferent inputs; see the --enable-\n  source option"
    assert collapse(text) == ("matching multiple different inputs; see the --enable-source option")
    # a suspended hyphen and a dash between words stay as they are
    assert collapse("pre-\nand post-processing, x -\ny") == "pre- and post-processing, x - y"


def test_a_summary_is_no_list_and_no_field() -> None:
    from jupiter.synth.parse import lead

    body = (
        "* ``template_name``: ``'forms/widgets/select_date.html'``\n\n"
        ":param years: the years shown\n\n"
        "A widget that wraps three select boxes: the month, the day and the year.\n"
    )
    assert lead(body) == "A widget that wraps three select boxes: the month, the day and the year."
    assert lead("* only a list\n* of two items\n") == "* only a list * of two items"
    # a docstring's labelled section is no summary; a colon in a summary's words is no label
    assert lead("WARNING: back the file up first.\n\nSaves cookies to a file.") == (
        "Saves cookies to a file."
    )
    assert lead("Add the Cookie: header to a request.\n\nArgs: r - the request.") == (
        "Add the Cookie: header to a request."
    )


def test_a_label_over_a_name_is_no_summary() -> None:
    from jupiter.synth.parse import lead

    # Django writes each coroutine twin's name first; the summary is what follows
    body = "Asynchronous version: `aclear()`\n\nRemoves all objects from the related set."
    assert lead(body) == "Removes all objects from the related set."
    rst = "*Asynchronous version*: ``aclear``\n\nRemoves all objects from the related set."
    assert lead(rst) == "Removes all objects from the related set."
    # nor is a version note, where words follow it
    noted = "Changed in version 5.1: `aclear()` was added.\n\nRemoves all objects."
    assert lead(noted) == "Removes all objects."
    assert lead("New in version 3.2: a note alone.") == "New in version 3.2: a note alone."
    # a label over words is a summary's own sentence
    assert lead("Emptied: the set, in place.\n\nMore.") == "Emptied: the set, in place."
    assert (
        lead("Alias of `clear`, kept for old callers.") == "Alias of `clear`, kept for old callers."
    )


def test_a_declaration_line_is_no_summary() -> None:
    # an API reader's label over a name says what a thing is declared as; with no prose
    # beside it there is no summary (the first paragraph is no fallback then)
    body = (
        "Represents a `ElementType.Ptr`\n\nDeclaration: `public sealed class PtrSig : NonLeafSig`"
    )
    assert lead(body) == ""
    assert lead("Winds thread.\n\nDeclaration: `public class Reel`") == "Winds thread."


def test_a_short_label_over_a_list_is_no_summary() -> None:
    """A JSON Schema section titled "Cache Key" and its `Settings:` list: the list is what
    it holds, not what it is for (found on the held-back schemas); a sentence that ends
    in a colon over a list still is one."""
    from jupiter.synth.parse import lead

    listed = "Settings:\n- `files` (array of string): Checksum of these paths makes the key."
    assert lead(f"Cache Key.\n\n{listed}") == ""
    assert lead(f"Holds what the cache is keyed by.\n\n{listed}") == (
        "Holds what the cache is keyed by."
    )
    assert lead("Allowed values:\n- `daily`: each day\n- `weekly`: each week") == ""
    assert lead("An NNTP client class based on:\n- RFC 977: Network News Transfer Protocol") == (
        "An NNTP client class based on: - RFC 977: Network News Transfer Protocol"
    )


def test_when_a_value_comes_back_is_no_summary_of_it() -> None:
    """Found on the held-back Ansible collections: `result.kind`, described "Always
    'Service'." (no lower-case word: no prose), answered "what is it?" with its
    "Returned when: success" line."""
    from jupiter.synth.parse import lead

    assert lead("Always 'Service'.\n\nReturned when: success\n\nSample: `Service`") == ""
    assert lead("The kind of object.\n\nReturned when: success") == "The kind of object."
