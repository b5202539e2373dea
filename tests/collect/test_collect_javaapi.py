"""Java read as its packages' API, as javadoc reads it: a Maven project on disk (and in a
git repository) scanned, never compiled, each public or protected item with a javadoc
comment a document; and the questions the generator then asks about it."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

import pytest
import yaml
from pydantic import ValidationError

from apitree import ask, collect_tree, fuzzed, write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import CollectResult
from jupiter.collect.javaapi import JavaFile, api_documents, javadoc, scan
from jupiter.config import DomainConfig
from jupiter.config.cli import source_entry
from jupiter.records import Document

PACKAGE_INFO = """/*
 * Copyright 2024 Acme. Licensed under the Apache License 2.0.
 */

/**
 * Spool runs jobs from a queue kept on disk.
 *
 * @since 1.0
 */
package com.acme.spool;
"""
QUEUE = r'''/*
 * Copyright 2024 Acme. Licensed under the Apache License 2.0.
 */
package com.acme.spool;

import java.util.List;
import java.util.function.Function;

/**
 * A queue of jobs kept in one folder.
 *
 * <p>Opened with {@link #Queue(String) its constructor}; see {@link Priority} for the
 * order jobs run in. Jobs are <b>never</b> lost &amp; never run&nbsp;twice.
 *
 * <ul>
 *   <li>{@code push} adds a job;
 *   <li><code>drain</code> empties the queue.
 * </ul>
 *
 * @param <T> the type of the jobs' payloads
 * @author Ann Example
 * @since 1.0
 * @see Job
 */
@SuppressWarnings({"unchecked", "rawtypes"})
public class Queue<T> implements Iterable<T> {
    /** The most attempts a failing job gets before it is dropped. */
    public static final int MAX_ATTEMPTS = 5;

    /**
     * The folder the queue keeps its jobs in, as {@linkplain #Queue(String) opened}.
     */
    protected final String dir;

    /** Private: no document. */
    private int size;

    /** Package-private: no document. */
    int workers;

    /**
     * Opens the queue in {@code dir}.
     *
     * @param dir the folder, created when missing
     * @throws IllegalArgumentException if {@code dir} is empty
     */
    public Queue(String dir) {
        this.dir = dir;
        String brace = "}\"{"; char open = '{'; char quote = '\'';
        String block = """
            a { text block " with } braces
            """;
    }

    /**
     * Adds a job at the end of the queue.
     *
     * @param name the job's name
     * @return the job's position in the queue
     */
    public int push(String name) {
        return push(name, 0);
    }

    /**
     * Adds a job with a priority, as in:
     *
     * <pre>{@code
     * Queue<String> q = new Queue<>("/tmp/q");
     * if (q.push("mail", 2) > 10) {
     *     q.drain();
     * }
     * }</pre>
     *
     * @param name the job's name
     * @param priority how soon it runs: {@code 0} first
     * @return the job's position in the queue
     * @throws IllegalStateException if the queue is closed
     */
    public int push(final String name, @Deprecated int priority) {
        return 0;
    }

    /**
     * Maps each job's payload with {@code fn}; see {@link Function#apply}.
     *
     * @param fn the function applied
     * @param <R> the type of the results
     * @return the results, in queue order
     */
    public <R extends Comparable<? super R>> List<R> map(Function<? super T, R> fn)
            throws java.io.IOException {
        return null;
    }

    /** {@inheritDoc} */
    @Override
    public java.util.Iterator<T> iterator() {
        return new java.util.Iterator<T>() {
            /** Inside an anonymous class: no document. */
            public boolean hasNext() { return false; }
            public T next() { return null; }
        };
    }

    /** Not public: no document. */
    void drain() {}

    /**
     * Listens to a queue's jobs.
     */
    public interface Listener {
        /**
         * Called when a job is done.
         *
         * @param name the job's name
         * @param ok whether it succeeded
         */
        void done(String name, boolean ok);
    }
}
'''
PRIORITY = """package com.acme.spool;

/** How soon a job runs. */
public enum Priority {
    /** Runs when nothing else waits. */
    LOW(0),
    /**
     * Runs first.
     *
     * @deprecated use {@link #LOW} with a short queue
     */
    @Deprecated(since = "2.0")
    HIGH(1),
    UNDOCUMENTED(2);

    private final int level;

    /** Enum constructors are private: no document. */
    Priority(int level) {
        this.level = level;
    }

    /**
     * The level's number.
     *
     * @return the level, {@code 0} the lowest
     */
    public int level() {
        return level;
    }
}
"""
JOB = """package com.acme.spool;

/**
 * A job: its name and what it carries.
 *
 * @param name the job's name
 * @param payload what it carries
 */
public record Job(String name, byte[] payload) {
    /**
     * The payload's size.
     */
    public int size() {
        return payload.length;
    }
}
"""
RETRY = """package com.acme.spool;

import java.lang.annotation.Documented;

/** Retries a job that fails. */
@Documented
public @interface Retry {
    /** How many times; {@code 3} by default. */
    int times() default 3;

    /** The failures it retries on. */
    Class<? extends Throwable>[] on() default {};
}
"""
TREE = {
    "pom.xml": "<project><artifactId>spool</artifactId></project>\n",
    "src/main/java/module-info.java": "/** The spool module. */\nmodule com.acme.spool {\n    exports com.acme.spool;\n}\n",
    "src/main/java/com/acme/spool/package-info.java": PACKAGE_INFO,
    "src/main/java/com/acme/spool/Queue.java": QUEUE,
    "src/main/java/com/acme/spool/Priority.java": PRIORITY,
    "src/main/java/com/acme/spool/Job.java": JOB,
    "src/main/java/com/acme/spool/Retry.java": RETRY,
    "src/main/java/com/acme/spool/Util.java": "package com.acme.spool;\n\npublic final class Util {\n    public static void helper() {}\n}\n",
    "src/main/java/com/acme/spool/Gen.java": 'package com.acme.spool;\n\n@javax.annotation.processing.Generated("tool")\npublic class Gen {\n    /** A generated method. */\n    public void gen() {}\n}\n',
    "src/main/java/com/acme/spool/Parser.java": "/* Generated By:JavaCC: Do not edit this line. Parser.java */\npackage com.acme.spool;\n\n/** The parser. */\npublic class Parser {}\n",
    "src/test/java/com/acme/spool/QueueTest.java": "package com.acme.spool;\n\n/** Tests the queue. */\npublic class QueueTest {}\n",
    "README.md": "# Spool\n\nA queue on disk.\n",
}
EXPECTED = [
    "java:com.acme.spool",
    "java:com.acme.spool.Job",
    "java:com.acme.spool.Job.size",
    "java:com.acme.spool.Priority",
    "java:com.acme.spool.Priority.HIGH",
    "java:com.acme.spool.Priority.LOW",
    "java:com.acme.spool.Priority.level",
    "java:com.acme.spool.Queue",
    "java:com.acme.spool.Queue.Listener",
    "java:com.acme.spool.Queue.Listener.done",
    "java:com.acme.spool.Queue.MAX_ATTEMPTS",
    "java:com.acme.spool.Queue.Queue",
    "java:com.acme.spool.Queue.dir",
    "java:com.acme.spool.Queue.map",
    "java:com.acme.spool.Queue.push",
    "java:com.acme.spool.Retry",
    "java:com.acme.spool.Retry.on",
    "java:com.acme.spool.Retry.times",
]
REJECTS = {"java_generated": 2, "java_no_api": 2, "java_test": 1}


def local_docs(tmp_path: Path, **extra: object) -> tuple[dict[str, Document], CollectResult]:
    return collect_tree(tmp_path, TREE, ["*.md", "*.java"], **extra)


def test_a_project_becomes_its_documented_public_api(tmp_path: Path) -> None:
    docs, rejects = local_docs(tmp_path)
    api = {uri: d for uri, d in docs.items() if uri.startswith("java:")}
    assert sorted(api) == EXPECTED
    assert rejects.rejects == REJECTS
    text = {uri: d.text for uri, d in api.items()}
    # package-info.java's javadoc is the package's document (its license comment is not)
    assert text["java:com.acme.spool"] == (
        "Spool runs jobs from a queue kept on disk.\n\nSince: 1.0"
    )
    # HTML to text: a paragraph, bold and entities, a list, {@code} and <code>, links as
    # their label or name; @author dropped
    assert text["java:com.acme.spool.Queue"] == (
        "com.acme.spool.Queue\n\nA queue of jobs kept in one folder.\n\n"
        "Opened with its constructor; see `Priority` for the order jobs run in. "
        "Jobs are never lost & never run twice.\n\n"
        "- `push` adds a job;\n- `drain` empties the queue.\n\n"
        ":param <T>: the type of the jobs' payloads\n\n"
        "Declaration: `public class Queue<T> implements Iterable<T>`\n\n"
        "Since: 1.0\n\nSee also: `Job`"
    )
    # overloads are one document: the first's signature heads it, the second follows with
    # its own; a <pre>{@code} example keeps its lines and indentation (its braces balanced);
    # `final` and annotations are out of the parameters
    assert text["java:com.acme.spool.Queue.push"] == (
        "com.acme.spool.Queue.push(String name)\n\n"
        "Adds a job at the end of the queue.\n\n"
        ":param name: the job's name\n:returns: the job's position in the queue\n\n"
        "com.acme.spool.Queue.push(String name, int priority)\n\n"
        "Adds a job with a priority, as in:\n\n"
        '```java\nQueue<String> q = new Queue<>("/tmp/q");\n'
        'if (q.push("mail", 2) > 10) {\n    q.drain();\n}\n```\n\n'
        ":param name: the job's name\n:param priority: how soon it runs: `0` first\n"
        ":returns: the job's position in the queue\n"
        ":raises IllegalStateException: if the queue is closed"
    )
    # braces in strings, a text block and char literals end no constructor
    assert text["java:com.acme.spool.Queue.Queue"] == (
        "com.acme.spool.Queue.Queue(String dir)\n\nOpens the queue in `dir`.\n\n"
        ":param dir: the folder, created when missing\n"
        ":raises IllegalArgumentException: if `dir` is empty"
    )
    # a generic method: its type parameters and undocumented throws below
    assert text["java:com.acme.spool.Queue.map"] == (
        "com.acme.spool.Queue.map(Function<? super T, R> fn)\n\n"
        "Maps each job's payload with `fn`; see `Function.apply`.\n\n"
        ":param fn: the function applied\n:param <R>: the type of the results\n"
        ":returns: the results, in queue order\n\n"
        "Type parameters: `<R extends Comparable<? super R>>`.\n\n"
        "Throws: `java.io.IOException`."
    )
    assert text["java:com.acme.spool.Queue.MAX_ATTEMPTS"] == (
        "com.acme.spool.Queue.MAX_ATTEMPTS\n\n"
        "The most attempts a failing job gets before it is dropped.\n\n"
        "Type: `int`\n\nValue: `5`\n\nModifiers: `static final`."
    )
    assert text["java:com.acme.spool.Queue.dir"].endswith(
        "as opened.\n\nType: `String`\n\nModifiers: `protected final`."
    )
    # an interface's members are public without the keyword; no return type, no :returns:
    assert text["java:com.acme.spool.Queue.Listener.done"] == (
        "com.acme.spool.Queue.Listener.done(String name, boolean ok)\n\n"
        "Called when a job is done.\n\n"
        ":param name: the job's name\n:param ok: whether it succeeded"
    )
    # an enum's constants, @deprecated with the annotation's since; a record's components
    assert text["java:com.acme.spool.Priority.HIGH"] == (
        "com.acme.spool.Priority.HIGH\n\nRuns first.\n\n"
        "Deprecated (since 2.0): use `LOW` with a short queue"
    )
    assert text["java:com.acme.spool.Priority.level"].endswith(
        ":returns: the level, `0` the lowest"
    )
    assert text["java:com.acme.spool.Job"] == (
        "com.acme.spool.Job(String name, byte[] payload)\n\n"
        "A job: its name and what it carries.\n\n"
        ":param name: the job's name\n:param payload: what it carries\n\n"
        "Declaration: `public record Job(String name, byte[] payload)`"
    )
    assert text["java:com.acme.spool.Job.size"] == (
        "com.acme.spool.Job.size()\n\nThe payload's size.\n\n:returns: `int`"
    )
    # an annotation type's elements, their defaults (an array's braces end no element)
    assert text["java:com.acme.spool.Retry"] == (
        "com.acme.spool.Retry\n\nRetries a job that fails.\n\n"
        "Declaration: `public @interface Retry`"
    )
    assert text["java:com.acme.spool.Retry.times"] == (
        "com.acme.spool.Retry.times()\n\nHow many times; `3` by default.\n\n"
        ":returns: `int`\n\nDefault: `3`"
    )
    assert text["java:com.acme.spool.Retry.on"].endswith(
        ":returns: `Class<? extends Throwable>[]`\n\nDefault: `{}`"
    )
    meta = api["java:com.acme.spool.Queue.push"].meta
    root = (tmp_path / "project").resolve()
    assert meta == {
        "kind": "method",
        "qualname": "com.acme.spool.Queue.push",
        "signature": "(String name)",
        "origin": str(root / "src/main/java/com/acme/spool/Queue.java"),
        "line": 61,
    }
    kinds = {uri.removeprefix("java:com.acme.spool"): d.meta["kind"] for uri, d in api.items()}
    assert kinds == {
        "": "package",
        ".Job": "record",
        ".Job.size": "method",
        ".Priority": "enum",
        ".Priority.HIGH": "enum_constant",
        ".Priority.LOW": "enum_constant",
        ".Priority.level": "method",
        ".Queue": "class",
        ".Queue.Listener": "interface",
        ".Queue.Listener.done": "method",
        ".Queue.MAX_ATTEMPTS": "constant",
        ".Queue.Queue": "constructor",
        ".Queue.dir": "field",
        ".Queue.map": "method",
        ".Queue.push": "method",
        ".Retry": "annotation",
        ".Retry.on": "element",
        ".Retry.times": "element",
    }


def test_java_text_reads_the_files_as_before(tmp_path: Path) -> None:
    docs, rejects = local_docs(tmp_path, java="text")
    assert not [uri for uri in docs if uri.startswith("java:")]
    assert {"Queue.java", "Priority.java", "QueueTest.java"} <= {d.title for d in docs.values()}
    assert not {k for k in rejects.rejects if k.startswith("java_")}


def test_the_same_project_from_a_git_repository(tmp_path: Path) -> None:
    """A git source reads *.java by default: as the packages' API."""
    write_tree(tmp_path / "repo", TREE)
    sha = commit_all(tmp_path / "repo")
    result = collect_repo(tmp_path)
    api = {d.uri: d for d in result.documents if d.uri.startswith("java:")}
    assert sorted(api) == EXPECTED
    assert result.rejects == REJECTS
    meta = api["java:com.acme.spool.Queue.push"].meta
    assert (meta["commit"], meta["path"], meta["language"]) == (
        sha,
        "src/main/java/com/acme/spool/Queue.java",
        "java",
    )
    assert (meta["kind"], meta["line"]) == ("method", 61)


def test_questions_about_a_java_api(tmp_path: Path) -> None:
    docs, _ = local_docs(tmp_path)

    def asked(uri: str) -> dict[str, str]:
        return ask(docs[uri])

    push = asked("java:com.acme.spool.Queue.push")
    assert push["what_does"] == "Adds a job at the end of the queue."
    assert push["signature"] == "`com.acme.spool.Queue.push(String name)`"
    assert push["returns"] == "the job's position in the queue"
    # Java's "Type name" read for its name, and the parameter's @param description
    assert push["arguments"] == (
        "`com.acme.spool.Queue.push` takes 1 argument: String name.\n\n- name: the job's name"
    )
    # a type is no module: its name line is not read as its text
    queue = asked("java:com.acme.spool.Queue")
    assert queue["what_does"] == "A queue of jobs kept in one folder."
    assert "signature" not in queue
    assert asked("java:com.acme.spool")["what_does"] == (
        "Spool runs jobs from a queue kept on disk."
    )


def test_javadoc_html_and_inline_tags_become_text() -> None:
    body = """
     * Formats a value, as {@code String.format("%s", v)} would: {@code if (a) { b(); }}
     * keeps its braces, {@literal a<b & c>} its characters, &lt;T&gt; &#64;Override.
     * See {@link java.util.Map#put(Object, Object) Map.put}, {@link #get}, and
     * {@linkplain List#add(int, Object)}.{@inheritDoc}
     * <ol>
     *   <li>one
     *   <li><i>two</i>,
     *   <b>bold</b>
     * </ol>
     * <h2>Example</h2>
     * <pre>
     *   int x = 1;
     *     x++;
     * </pre>
     *
     * @param v the value
     * @return the text
     * @exception java.io.IOException when it fails
     * @apiNote <p>Prefer {@code toString}.
     * @see "The Format Guide"
     * @see <a href="https://example.com">the guide</a>
     * @serial include
     * @since 9
     """
    doc = javadoc(body)
    assert doc.description == (
        'Formats a value, as `String.format("%s", v)` would: `if (a) { b(); }` keeps its '
        "braces, a<b & c> its characters, <T> @Override. See Map.put, `get`, and "
        "`List.add(int, Object)`.\n\n- one\n- two, bold\n\n# Example\n\n"
        "```java\nint x = 1;\n  x++;\n```"
    )
    assert doc.params == [("v", "the value")]
    assert doc.returns == "the text"
    assert doc.throws == [("java.io.IOException", "when it fails")]
    assert doc.notes == ["API Note: Prefer `toString`."]
    assert doc.see == ["The Format Guide", "the guide"]
    assert doc.since == ["9"]
    assert doc.documented()
    assert not javadoc(" {@inheritDoc}\n * @since 1.2\n ").documented()
    assert javadoc(" Hidden.\n * @hidden\n ").hidden


def test_inherit_doc_hidden_and_private_members_give_no_document() -> None:
    text = """package p;

/** Shapes. */
public interface Shape {
    /** The area. @return it */
    double area();

    /** Private interface method: no document. */
    private void helper() {}

    /** {@inheritDoc} */
    String toString();

    /**
     * Hidden.
     * @hidden
     */
    void secret();

    /** The unit square's side: {@value}. */
    int SIDE = 1;
}

/** Package-private class: no document. */
class Helper {
    /** No document either. */
    public void run() {}
}
"""
    docs = api_documents([JavaFile(P("p/Shape.java"), "s", text)], "local")
    assert [d.uri for d in docs] == ["java:p.Shape", "java:p.Shape.SIDE", "java:p.Shape.area"]
    by_uri = {d.uri: d.text for d in docs}
    assert by_uri["java:p.Shape.SIDE"] == (
        "p.Shape.SIDE\n\nThe unit square's side: `1`.\n\nType: `int`\n\nValue: `1`"
    )
    assert (
        by_uri["java:p.Shape.area"]
        == "p.Shape.area()\n\nThe area. @return it\n\n:returns: `double`"
    )


def test_the_first_file_in_path_order_keeps_a_name() -> None:
    one = "package p;\n\n/** From a. */\npublic class X {}\n"
    two = "package p;\n\n/** From b. */\npublic class X {}\n"
    docs = api_documents(
        [JavaFile(P("b/X.java"), "b", two), JavaFile(P("a/X.java"), "a", one)], "local"
    )
    assert [(d.uri, d.meta["origin"]) for d in docs] == [("java:p.X", "a")]
    # the default package: no package in the name
    bare = JavaFile(P("X.java"), "x", "/** No package. */\npublic class X {}\n")
    assert [(d.uri, d.title) for d in api_documents([bare], "local")] == [("java:X", "X")]


def test_the_scanner_tells_literals_and_comments_from_code() -> None:
    text = (
        "class A { String s = \"}\\\"{\"; char c = '{'; char q = '\\''; char n = '\\n';\n"
        '  String t = """\n    { " } ""\\""" \n    """; // } in a comment\n'
        "  /* { */ /** { */ int x; }"
    )
    code, bare, comments = scan(text)
    assert len(code) == len(bare) == len(text)
    assert code.count("{") == 1 and code.count("}") == 1  # only the class body's own
    assert [c.doc for c in comments] == [False, False, True]
    assert '"}\\"{"' in bare and "/*" not in bare  # literals kept, comments blanked


def test_test_files_are_told_by_their_path() -> None:
    files = [
        JavaFile(P(path), path, "package p;\n\n/** Doc. */\npublic class T {}\n")
        for path in (
            "src/test/java/p/T.java",
            "tests/p/T.java",
            "p/FooTest.java",
            "p/FooTests.java",
            "p/FooIT.java",
        )
    ]
    rejects = CollectResult()
    assert api_documents(files, "local", rejects) == []
    assert rejects.rejects == {"java_test": 5}
    edit = JavaFile(P("p/EDIT.java"), "e", "package p;\n\n/** Doc. */\npublic class EDIT {}\n")
    assert [d.uri for d in api_documents([edit], "local")] == ["java:p.EDIT"]


def test_init_reads_a_maven_or_gradle_projects_java_files(tmp_path: Path) -> None:
    for build in ("pom.xml", "build.gradle", "build.gradle.kts"):
        write_tree(tmp_path / build, {build: "", "src/main/java/A.java": ""})
        entry = source_entry(str(tmp_path / build))
        assert "*.java" in entry["include"]  # type: ignore[operator]
    write_tree(tmp_path / "docs", {"guide.md": "# Guide\n"})
    assert "include" not in source_entry(str(tmp_path / "docs"))


def test_a_bad_java_setting_is_rejected() -> None:
    for src in ("type: local\n    path: docs", "type: git\n    url: repo.git"):
        data = yaml.safe_load(f"name: t\nsources:\n  - {src}\n    java: source\n")
        with pytest.raises(ValidationError, match="java"):
            DomainConfig.model_validate(data)
        data["sources"][0]["java"] = "text"
        assert DomainConfig.model_validate(data).sources[0].java == "text"  # type: ignore[union-attr]


def test_any_text_scans_without_an_error() -> None:
    """Unterminated strings, text blocks, characters and comments, stray brackets: the
    scanner and the item reader end."""
    pieces = [
        "/** A doc {@code x} <pre> @param a b */\n", "/* c */", "// l\n", "package p;\n",
        "public ", "protected ", "private ", "static ", "class ", "interface ", "enum ",
        "record ", "@interface ", "A ", "b ", "(", ")", "{", "}", "[", "]", "<", ">", '"',
        '"""', "'", "'\\''", "/*", "*/", "/**", "\n", " ", ";", ",", "=", "@Override ",
        "@Deprecated(since=\"1\") ", "int ", "void ", "throws ", "default ", "extends ",
        "import x.y;\n", "{@inheritDoc}", "{@link ", "<p>", "</pre>", "\\",
        "/** Doc. */\npublic class C {\n", "/** M. */ public int m(int a) { return a; }\n",
        "/** F. */ public static final int F = 1;\n", "/** E. */ public enum E { ",
    ]  # fmt: skip

    def read(text: str) -> list[Document]:
        return api_documents([JavaFile(P("p/A.java"), "a", text)], "local")

    assert (
        fuzzed(read, pieces, "java:") > 0
    )  # some of the random texts declare something documented
