"""Kotlin read as its packages' API, as Dokka reads KDoc: source files scanned, never
compiled, each public (or protected) item with a KDoc comment a document; and the questions
the generator then asks about it."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import ask, collect_tree, fuzzed, write_tree
from jupiter.collect import CollectResult
from jupiter.collect.ktapi import (
    FIXES,
    KOTLIN_GENERATED,
    KOTLIN_NO_API,
    KOTLIN_TEST,
    KotlinFile,
    api_documents,
    is_kotlin,
    kdoc,
    scan,
)
from jupiter.config.cli import source_entry
from jupiter.records import Document
from jupiter.synth import parse

QUEUE = r'''/*
 * Copyright 2024 Acme. Licensed under the Apache License 2.0.
 * /* a nested comment: its end does not end the license */
 */
@file:JvmName("QueueKt")
@file:Suppress("unused")

package acme.spool

import kotlin.coroutines.CoroutineContext

/**
 * A queue of jobs kept in one folder.
 *
 * Opened with [Queue.open]; see [Priority] for the order jobs run in,
 * and [the job type][Job] for what runs. Jobs are &quot;never&quot; lost.
 *
 * ```
 * val q = Queue<String>("/tmp/q")
 * q.push("mail") { println("${it.name} done") }
 * ```
 *
 * @param T the type of the jobs' payloads
 * @param capacity how many jobs it holds
 * @property dir the folder the queue keeps its jobs in
 * @constructor Opens the queue in [dir].
 * @author Ann Example
 * @since 1.0
 * @see Job
 * @sample acme.spool.samples.queueSample
 */
@Suppress("UNCHECKED_CAST")
public open class Queue<T>(
    val dir: String,
    private val secret: Int,
    capacity: Int = 16,
    /** Whether jobs run in order. */
    var ordered: Boolean = true,
) : Iterable<T> {
    /** A brace in a string: "}" or a char: '}' or a template: ${"{"} ends no class. */
    val banner: String = "} ${if (dir.isEmpty()) "{" else "}"} {" + '{' + """
        raw { ${ "}" } text "" }
    """

    /**
     * Opens a queue with a name.
     *
     * @param name the queue's name
     */
    constructor(name: String, size: Int) : this("/var/spool/$name", 0, size)

    init {
        /** Inside an init block: no document. */
        val x = 1
    }

    /**
     * Adds a job at the end of the queue.
     *
     * @param name the job's name
     * @return the job's position in the queue
     */
    fun push(name: String): Int = push(name, 0) { }

    /**
     * Adds a job with a priority and a callback.
     *
     * @param name the job's name
     * @param priority how soon it runs: `0` first
     * @param done called when the job is done
     * @throws IllegalStateException if the queue is closed
     */
    @JvmOverloads
    fun push(
        name: String,
        @Suppress("UNUSED_PARAMETER") priority: Int = 0,
        done: (Job) -> Unit,
    ): Int {
        /** A local function: no document. */
        fun local() {}
        val handler = object : Runnable {
            /** Inside an object expression: no document. */
            override fun run() {}
        }
        return 0
    }

    /**
     * Waits for the queue to empty.
     *
     * @param timeout the most time it waits, in milliseconds
     */
    suspend fun drain(timeout: Long = Long.MAX_VALUE) {}

    /** Called when a job fails: for subclasses. */
    protected open fun onFailure(job: Job) {}

    /** Private: no document. */
    private fun helper() {}

    /** Internal: no document. */
    internal fun tidy() {}

    /** The jobs waiting. */
    val size: Int
        get() = 0

    /** The last error. */
    lateinit var lastError: Throwable

    override fun iterator(): Iterator<T> = emptyList<T>().iterator()

    /**
     * Hidden from Dokka.
     *
     * @suppress
     */
    fun secretHandshake() {}

    /** A listener of a queue's jobs. */
    fun interface Listener {
        /**
         * Called when a job is done.
         *
         * @param job the job
         * @param ok whether it succeeded
         */
        fun done(job: Job, ok: Boolean)
    }

    /** Its factory and limits. */
    companion object {
        /** The most attempts a failing job gets. */
        const val MAX_ATTEMPTS = 5

        /**
         * Opens a queue in [dir].
         *
         * @return the queue
         */
        fun <T> open(dir: String): Queue<T> = Queue(dir, 0)
    }
}
'''


JOBS = r"""package acme.spool

/**
 * How soon a job runs.
 *
 * @property level the level's number, `0` the lowest
 */
enum class Priority(val level: Int) {
    /** Runs when nothing else waits. */
    LOW(0),

    /**
     * Runs first.
     *
     * @deprecated use [LOW] with a short queue
     */
    HIGH(1) {
        override fun boost() = 2
    },
    UNDOCUMENTED(2);

    /** How much it boosts a job. */
    open fun boost(): Int = 1
}

/**
 * A job: its name and what it carries.
 *
 * @property name the job's name
 * @property payload what it carries
 */
data class Job(val name: String, val payload: ByteArray = byteArrayOf())

/** What a job's run gives. */
sealed class Outcome {
    /** It ran. @property value what it gave */
    data class Done(val value: Int) : Outcome()

    /** It failed. */
    object Failed : Outcome()
}

/** A callback run with a job. */
typealias JobHandler = (job: Job) -> Unit

/** The default folder. */
const val DEFAULT_DIR: String =
    "/var/spool/acme"

/**
 * The job's name in capitals.
 *
 * @receiver the job named
 */
val Job.loudName: String get() = name.uppercase()

/**
 * Runs the job, with `` `is` `` backquotes.
 *
 * @param times how many times
 * @return whether it ran
 */
@Deprecated("Use run(times) on the queue", ReplaceWith("queue.run(this, times)"))
infix fun Job.`runs`(times: Int): Boolean = true

/** Binary compatibility: hidden from Kotlin. */
@Deprecated("Gone", level = DeprecationLevel.HIDDEN)
fun Job.old() {}

/** Internal: no document. */
internal class Spooler {
    /** A member of an internal class: no document. */
    fun spool() {}
}

/** Private: no document. */
private fun secret() {}

/** A wrapper of a job's id. */
@JvmInline
value class JobId(val raw: Long)

/**
 * Marks an API that may change.
 */
@Retention(AnnotationRetention.BINARY)
annotation class Unstable

/** Jobs run now. */
object Now {
    /**
     * Runs a job at once.
     *
     * @param job the job
     */
    operator fun invoke(job: Job) {}
}

/** A final class. */
class Sealed {
    /** Protected in a final class: no document. */
    protected fun hidden() {}
}
"""

DOC = "package acme.spool\n\n/** Doc. */\nclass T\n"
TREE = {
    "src/commonMain/kotlin/acme/spool/Queue.kt": QUEUE,
    "src/commonMain/kotlin/acme/spool/Jobs.kt": JOBS,
    "src/commonMain/kotlin/acme/spool/Internal.kt": (
        "package acme.spool\n\n/** Internal. */\ninternal fun hidden() {}\n"
    ),
    "src/commonTest/kotlin/acme/spool/QueueSpec.kt": DOC,
    "src/jvmMain/kotlin/acme/spool/QueueTests.kt": DOC,
    "build/generated/source/acme/spool/Gen.kt": DOC,
    "src/jvmMain/kotlin/acme/spool/Parser.kt": (
        "// Generated by the grammar tool. Do not edit!\npackage acme.spool\n\n"
        "/** The parser. */\nclass Parser\n"
    ),
}
EXPECTED = [
    "kotlin:acme.spool.DEFAULT_DIR",
    "kotlin:acme.spool.Job",
    "kotlin:acme.spool.Job.name",
    "kotlin:acme.spool.Job.payload",
    "kotlin:acme.spool.JobHandler",
    "kotlin:acme.spool.JobId",
    "kotlin:acme.spool.Now",
    "kotlin:acme.spool.Now.invoke",
    "kotlin:acme.spool.Outcome",
    "kotlin:acme.spool.Outcome.Done",
    "kotlin:acme.spool.Outcome.Failed",
    "kotlin:acme.spool.Priority",
    "kotlin:acme.spool.Priority.HIGH",
    "kotlin:acme.spool.Priority.LOW",
    "kotlin:acme.spool.Priority.boost",
    "kotlin:acme.spool.Priority.level",
    "kotlin:acme.spool.Queue",
    "kotlin:acme.spool.Queue.Companion",
    "kotlin:acme.spool.Queue.Companion.MAX_ATTEMPTS",
    "kotlin:acme.spool.Queue.Companion.open",
    "kotlin:acme.spool.Queue.Listener",
    "kotlin:acme.spool.Queue.Listener.done",
    "kotlin:acme.spool.Queue.Queue",
    "kotlin:acme.spool.Queue.banner",
    "kotlin:acme.spool.Queue.dir",
    "kotlin:acme.spool.Queue.drain",
    "kotlin:acme.spool.Queue.lastError",
    "kotlin:acme.spool.Queue.onFailure",
    "kotlin:acme.spool.Queue.ordered",
    "kotlin:acme.spool.Queue.push",
    "kotlin:acme.spool.Queue.size",
    "kotlin:acme.spool.Sealed",
    "kotlin:acme.spool.Unstable",
    "kotlin:acme.spool.loudName",
    "kotlin:acme.spool.runs",
]


def files(tree: dict[str, str]) -> list[KotlinFile]:
    return [KotlinFile(P(rel), f"/project/{rel}", text) for rel, text in tree.items()]


def read_all(tree: dict[str, str]) -> dict[str, str]:
    """The documents the files give: their texts by uri."""
    return {d.uri: d.text for d in api_documents(files(tree), "local")}


def read(text: str, rel: str = "src/main/kotlin/p/A.kt") -> dict[str, str]:
    """The documents one file gives: their texts by uri."""
    return read_all({rel: text})


def project() -> tuple[dict[str, Document], CollectResult]:
    rejects = CollectResult()
    docs = api_documents(files(TREE), "local", rejects)
    return {d.uri: d for d in docs}, rejects


def test_a_project_becomes_its_documented_public_api() -> None:
    docs, rejects = project()
    assert sorted(docs) == EXPECTED
    assert rejects.rejects == {
        KOTLIN_TEST: 2,  # a commonTest source set, a *Tests.kt file
        KOTLIN_GENERATED: 2,  # under build/generated, a "do not edit" note on top
        KOTLIN_NO_API: 1,  # only an internal function
    }
    text = {uri: d.text for uri, d in docs.items()}
    # a class with a primary constructor: its parameters (no `val`, no modifiers) head
    # it; links as their text or name, an entity decoded, a fence made Kotlin's; @param
    # of a type parameter, @property and a parameter's own KDoc describe the parameters
    assert text["kotlin:acme.spool.Queue"] == (
        "acme.spool.Queue(dir: String, secret: Int, capacity: Int = 16, "
        "ordered: Boolean = true)\n\n"
        "A queue of jobs kept in one folder.\n\n"
        "Opened with `Queue.open`; see `Priority` for the order jobs run in,\n"
        'and the job type for what runs. Jobs are "never" lost.\n\n'
        '```kotlin\nval q = Queue<String>("/tmp/q")\n'
        'q.push("mail") { println("${it.name} done") }\n```\n\n'
        "Constructor: Opens the queue in `dir`.\n\n"
        ":param capacity: how many jobs it holds\n"
        ":param dir: the folder the queue keeps its jobs in\n"
        ":param ordered: Whether jobs run in order.\n\n"
        "Type parameter T: the type of the jobs' payloads\n\n"
        "Declaration: `public open class Queue<T> : Iterable<T>`\n\n"
        "Since: 1.0\n\nSee also: `Job`\n\nSample: `acme.spool.samples.queueSample`"
    )
    # constructor properties: by @property, by their own KDoc (a private one is none)
    assert text["kotlin:acme.spool.Queue.dir"] == (
        "acme.spool.Queue.dir\n\nthe folder the queue keeps its jobs in\n\nType: `String`"
    )
    assert text["kotlin:acme.spool.Queue.ordered"] == (
        "acme.spool.Queue.ordered\n\nWhether jobs run in order.\n\nType: `Boolean`\n\n"
        "Modifiers: `var`."
    )
    # overloads are one document: the first's signature heads it, the second follows with
    # its own (a parameter's annotation out, a trailing comma dropped); a declared return
    # type where no @return says it; local functions and object expressions not read
    assert text["kotlin:acme.spool.Queue.push"] == (
        "acme.spool.Queue.push(name: String)\n\n"
        "Adds a job at the end of the queue.\n\n"
        ":param name: the job's name\n:returns: the job's position in the queue\n\n"
        "acme.spool.Queue.push(name: String, priority: Int = 0, done: (Job) -> Unit)\n\n"
        "Adds a job with a priority and a callback.\n\n"
        ":param name: the job's name\n:param priority: how soon it runs: `0` first\n"
        ":param done: called when the job is done\n:returns: `Int`\n"
        ":raises IllegalStateException: if the queue is closed"
    )
    # a secondary constructor is <Type>.<Type>
    assert text["kotlin:acme.spool.Queue.Queue"] == (
        "acme.spool.Queue.Queue(name: String, size: Int)\n\n"
        "Opens a queue with a name.\n\n:param name: the queue's name"
    )
    assert text["kotlin:acme.spool.Queue.drain"] == (
        "acme.spool.Queue.drain(timeout: Long = Long.MAX_VALUE)\n\n"
        "Waits for the queue to empty.\n\n"
        ":param timeout: the most time it waits, in milliseconds\n\nModifiers: `suspend`."
    )
    # protected in an open class is API; the braces in the strings before ended nothing
    assert text["kotlin:acme.spool.Queue.onFailure"] == (
        "acme.spool.Queue.onFailure(job: Job)\n\n"
        "Called when a job fails: for subclasses.\n\nModifiers: `protected open`."
    )
    assert text["kotlin:acme.spool.Queue.size"] == (
        "acme.spool.Queue.size\n\nThe jobs waiting.\n\nType: `Int`"
    )
    assert text["kotlin:acme.spool.Queue.lastError"].endswith(
        "Type: `Throwable`\n\nModifiers: `lateinit var`."
    )
    # a companion's members named through it, as Dokka names them; a constant's value
    assert text["kotlin:acme.spool.Queue.Companion"] == (
        "acme.spool.Queue.Companion\n\nIts factory and limits.\n\nDeclaration: `companion object`"
    )
    assert text["kotlin:acme.spool.Queue.Companion.MAX_ATTEMPTS"] == (
        "acme.spool.Queue.Companion.MAX_ATTEMPTS\n\n"
        "The most attempts a failing job gets.\n\nValue: `5`"
    )
    assert text["kotlin:acme.spool.Queue.Companion.open"] == (
        "acme.spool.Queue.Companion.open(dir: String)\n\nOpens a queue in `dir`.\n\n"
        ":returns: the queue\n\nType parameters: `<T>`."
    )
    assert text["kotlin:acme.spool.Queue.Listener.done"] == (
        "acme.spool.Queue.Listener.done(job: Job, ok: Boolean)\n\n"
        "Called when a job is done.\n\n:param job: the job\n:param ok: whether it succeeded"
    )
    assert text["kotlin:acme.spool.Queue.Listener"].endswith(
        "Declaration: `fun interface Listener`"
    )
    # an enum: its entries (the @deprecated tag), its members, its constructor's property
    assert text["kotlin:acme.spool.Priority.HIGH"] == (
        "acme.spool.Priority.HIGH\n\nRuns first.\n\nDeprecated: use `LOW` with a short queue"
    )
    assert text["kotlin:acme.spool.Priority"] == (
        "acme.spool.Priority\n\nHow soon a job runs.\n\nDeclaration: `enum class Priority`"
    )
    assert text["kotlin:acme.spool.Priority.level"] == (
        "acme.spool.Priority.level\n\nthe level's number, `0` the lowest\n\nType: `Int`"
    )
    assert text["kotlin:acme.spool.Job"] == (
        "acme.spool.Job(name: String, payload: ByteArray = byteArrayOf())\n\n"
        "A job: its name and what it carries.\n\n"
        ":param name: the job's name\n:param payload: what it carries\n\n"
        "Declaration: `data class Job`"
    )
    # a tag inside a line is text; nested types through the outer one
    assert text["kotlin:acme.spool.Outcome.Done"] == (
        "acme.spool.Outcome.Done(value: Int)\n\nIt ran. @property value what it gave\n\n"
        "Declaration: `data class Done : Outcome()`"
    )
    assert text["kotlin:acme.spool.JobHandler"] == (
        "acme.spool.JobHandler\n\nA callback run with a job.\n\n"
        "Declaration: `typealias JobHandler = (job: Job) -> Unit`"
    )
    assert text["kotlin:acme.spool.DEFAULT_DIR"] == (
        "acme.spool.DEFAULT_DIR\n\nThe default folder.\n\nType: `String`\n\n"
        'Value: `"/var/spool/acme"`'
    )
    # extensions by their own name, the receiver said; @Deprecated's message and
    # replacement; a backquoted name without its backquotes
    assert text["kotlin:acme.spool.loudName"] == (
        "acme.spool.loudName\n\nThe job's name in capitals.\n\n"
        "Receiver: the job named\n\nExtension on `Job`.\n\nType: `String`"
    )
    assert text["kotlin:acme.spool.runs"] == (
        "acme.spool.runs(times: Int)\n\nRuns the job, with `` `is` `` backquotes.\n\n"
        "Deprecated: Use run(times) on the queue. Replace with `queue.run(this, times)`.\n\n"
        ":param times: how many times\n:returns: whether it ran\n\n"
        "Extension on `Job`.\n\nModifiers: `infix`."
    )
    assert text["kotlin:acme.spool.Now.invoke"].endswith("Modifiers: `operator`.")
    assert text["kotlin:acme.spool.JobId"].startswith("acme.spool.JobId(raw: Long)\n\n")
    meta = docs["kotlin:acme.spool.Queue.push"].meta
    assert meta == {
        "kind": "function",
        "qualname": "acme.spool.Queue.push",
        "language": "kotlin",
        "signature": "(name: String)",
        "origin": "/project/src/commonMain/kotlin/acme/spool/Queue.kt",
        "line": 63,
    }
    kinds = {uri.removeprefix("kotlin:acme.spool."): d.meta["kind"] for uri, d in docs.items()}
    assert kinds == {
        "DEFAULT_DIR": "constant",
        "Job": "class",
        "Job.name": "property",
        "Job.payload": "property",
        "JobHandler": "typealias",
        "JobId": "class",
        "Now": "object",
        "Now.invoke": "function",
        "Outcome": "class",
        "Outcome.Done": "class",
        "Outcome.Failed": "object",
        "Priority": "enum",
        "Priority.HIGH": "enum_entry",
        "Priority.LOW": "enum_entry",
        "Priority.boost": "function",
        "Priority.level": "property",
        "Queue": "class",
        "Queue.Companion": "object",
        "Queue.Companion.MAX_ATTEMPTS": "constant",
        "Queue.Companion.open": "function",
        "Queue.Listener": "interface",
        "Queue.Listener.done": "function",
        "Queue.Queue": "constructor",
        "Queue.banner": "property",
        "Queue.dir": "property",
        "Queue.drain": "function",
        "Queue.lastError": "property",
        "Queue.onFailure": "function",
        "Queue.ordered": "property",
        "Queue.push": "function",
        "Queue.size": "property",
        "Sealed": "class",
        "Unstable": "annotation",
        "loudName": "property",
        "runs": "function",
    }
    assert all(d.meta["language"] == "kotlin" for d in docs.values())


def test_questions_about_a_kotlin_api() -> None:
    assert "kotlin:" in parse.API_PREFIXES  # the question generator reads them as an API's
    docs, _ = project()
    push = ask(docs["kotlin:acme.spool.Queue.push"])
    assert push["what_does"] == "Adds a job at the end of the queue."
    assert push["signature"] == "`acme.spool.Queue.push(name: String)`"
    assert push["returns"] == "the job's position in the queue"
    assert push["arguments"] == (
        "`acme.spool.Queue.push` takes 1 argument: name: String.\n\n- name: the job's name"
    )
    # Kotlin's "name: Type = default" read for its name, each with its @param
    drain = ask(docs["kotlin:acme.spool.Queue.drain"])
    assert drain["arguments"] == (
        "`acme.spool.Queue.drain` takes 1 argument: timeout: Long = Long.MAX_VALUE.\n\n"
        "- timeout: the most time it waits, in milliseconds"
    )
    # a class: its constructor's parameters, described by @param, @property or own KDoc
    queue = ask(docs["kotlin:acme.spool.Queue"])
    assert queue["what_does"] == "A queue of jobs kept in one folder."
    assert queue["arguments"] == (
        "`acme.spool.Queue` takes 4 arguments: dir: String, secret: Int, capacity: Int = 16, "
        "ordered: Boolean = true.\n\n- dir: the folder the queue keeps its jobs in\n"
        "- capacity: how many jobs it holds\n- ordered: Whether jobs run in order."
    )
    # a type without a constructor: its name line is not read as its text, no signature
    listener = ask(docs["kotlin:acme.spool.Queue.Listener"])
    assert listener["what_does"] == "A listener of a queue's jobs."
    assert "signature" not in listener


def test_kdoc_tags_and_markdown() -> None:
    doc = kdoc(
        """ Formats a [value][Any.toString], as [String.format] would, or [Other.parse()]: `[not a link]` stays,
     * so does a [web link](https://example.com) and [1, 2]; &lt;T&gt; &amp; `&amp;`.
     * **Bold** stays Markdown; so do lists:
     * - one
     *   - nested
     *
     * ~~~java
     * String s = "[Foo]";
     * ~~~
     * ```
     * val x = [y] // code: no link
     * ```
     *
     * @param [value] the value, see [Other]
     * @param R the result's type
     * @return the text,
     *   over two lines
     * @throws [IllegalStateException] when it fails
     * @exception java.io.IOException when it cannot read
     * @receiver the format
     * @property width how wide
     * @see [Formatter] for more
     * @see Other.parse
     * @sample samples.format
     * @since 2.1
     * @author Ann
     * @unknown dropped
     *
     * A paragraph after the tags is the description's.
     """
    )
    assert doc.description == (
        "Formats a value, as `String.format` would, or `Other.parse()`: `[not a link]` stays,\n"
        "so does a [web link](https://example.com) and [1, 2]; <T> & `&amp;`.\n"
        "**Bold** stays Markdown; so do lists:\n- one\n  - nested\n\n"
        '~~~java\nString s = "[Foo]";\n~~~\n```kotlin\nval x = [y] // code: no link\n```\n\n'
        "A paragraph after the tags is the description's."
    )
    assert doc.params == [("value", "the value, see `Other`"), ("R", "the result's type")]
    assert doc.returns == "the text, over two lines"
    assert doc.throws == [
        ("IllegalStateException", "when it fails"),
        ("java.io.IOException", "when it cannot read"),
    ]
    assert doc.receiver == "the format"
    assert doc.properties == {"width": "how wide"}
    assert doc.see == ["`Formatter` for more", "`Other.parse`"]
    assert doc.samples == ["`samples.format`"]
    assert doc.since == ["2.1"]
    assert doc.documented() and not doc.suppressed
    assert kdoc(" Hidden.\n * @suppress\n ").suppressed
    assert not kdoc(" @since 1.0\n * @see Foo\n ").documented()
    # a margin's star, and `**bold**` on a line without one
    assert kdoc("\n * one\n **bold** two\n ").description == "one\n**bold** two"


def test_the_scanner_tells_literals_and_comments_from_code() -> None:
    text = (
        "class A { /* outer /* inner { */ still a comment } */\n"
        '  val s = "}\\"${ mapOf("k" to "{").get("}") }{" + "$name}"\n'
        '  val r = """ { ${ "}" + """x""" } "" "}""""\n'
        "  val c = '{'; val q = '\\''; val u = '\\u007B'\n"
        "  fun `a } name`() {} // } in a line comment\n"
        "  /** { */ val x = 1 }"
    )
    code, bare, comments = scan(text)
    assert len(code) == len(bare) == len(text)
    assert code.count("{") == 2 and code.count("}") == 2  # the class's and the function's
    assert [c.doc for c in comments] == [False, False, True]
    assert comments[0].text == " outer /* inner { */ still a comment } "
    assert "/*" not in bare and "//" not in bare and "`a } name`" in bare
    # the literals kept in the text, blanked in the code but for their opening quotes
    assert bare.splitlines()[1:4] == text.splitlines()[1:4]
    assert code.splitlines()[1].split() == ["val", "s", "=", '"', "+", '"']
    assert code.splitlines()[2].split() == ["val", "r", "=", '"']
    assert code.splitlines()[3].split() == "val c = ' ; val q = ' ; val u = '".split()
    assert "`        `" in code  # a backquoted name's inside blanked, its backquotes kept


def test_visibility_and_hiding() -> None:
    text = """package p

/** Open. */
abstract class Base protected constructor(val id: Int) {
    /** Protected in an abstract class: API. */
    protected abstract fun step()

    /** Private in a class: no document. */
    private val cache = 0

    /** @suppress a property hidden */
    val hidden = 1
}

/**
 * A sealed class's constructor is protected: its parameters head it.
 */
sealed class Shape(val sides: Int)

/**
 * A private constructor: no parameters head it.
 *
 * @property size how big
 * @property volume how much it holds
 */
class Box private constructor(val size: Int, private val tag: String) {
    /** A property the class's KDoc does not name. */
    val weight = 1

    val volume: Int get() = size * size

    /**
     * Opens it.
     *
     * @throws IllegalStateException when it is open
     */
    @Throws(java.io.IOException::class, IllegalStateException::class)
    fun open() {}

    companion object {
        /** Too long a value to show. */
        const val LABEL =
            "a box, and a box, and a box, and a box, and a box, and a box, and a box, and one more"
    }
}

/** Suppressed with its members. @suppress not here */
class Visible

/**
 * @suppress
 */
class Hidden {
    /** A member of a hidden class: no document. */
    fun member() {}
}

/** Private: no document. */
private class Secret {
    /** No document either. */
    fun member() {}

    /** Nor its companion's. */
    companion object {
        /** None. */
        fun make() = Secret()
    }
}

/** An object. */
object Registry {
    /** Protected in an object: no document. */
    protected fun guarded() {}

    /** Internal: no document. */
    internal val items = listOf(1)
}

/** Hidden from Kotlin callers. */
@Deprecated("gone", level = DeprecationLevel.HIDDEN)
class Gone {
    /** None. */
    fun member() {}
}

/** Deprecated as an error. */
@kotlin.Deprecated(
    message = "Use " +
        "Box instead",
    level = DeprecationLevel.ERROR,
)
class Old
"""
    docs = read(text)
    assert sorted(docs) == [
        "kotlin:p.Base",
        "kotlin:p.Base.step",
        "kotlin:p.Box",
        "kotlin:p.Box.Companion.LABEL",
        "kotlin:p.Box.open",
        "kotlin:p.Box.size",
        "kotlin:p.Box.volume",
        "kotlin:p.Box.weight",
        "kotlin:p.Old",
        "kotlin:p.Registry",
        "kotlin:p.Shape",
        "kotlin:p.Visible",
    ]
    assert docs["kotlin:p.Base"] == (
        "p.Base(id: Int)\n\nOpen.\n\nDeclaration: `abstract class Base protected constructor`"
    )
    assert docs["kotlin:p.Base.step"].endswith("Modifiers: `protected abstract`.")
    assert docs["kotlin:p.Shape"].startswith("p.Shape(sides: Int)\n\n")
    assert docs["kotlin:p.Box"] == (
        "p.Box\n\nA private constructor: no parameters head it.\n\n"
        "Declaration: `class Box private constructor`"
    )
    assert docs["kotlin:p.Box.size"] == "p.Box.size\n\nhow big\n\nType: `Int`"
    # a property in the body the class's @property tag documents
    assert docs["kotlin:p.Box.volume"] == "p.Box.volume\n\nhow much it holds\n\nType: `Int`"
    # @Throws: the exceptions no @throws tag describes
    assert docs["kotlin:p.Box.open"] == (
        "p.Box.open()\n\nOpens it.\n\n:raises IllegalStateException: when it is open\n\n"
        "Throws: `java.io.IOException`."
    )
    assert docs["kotlin:p.Box.Companion.LABEL"] == (
        "p.Box.Companion.LABEL\n\nToo long a value to show."
    )
    assert docs["kotlin:p.Old"] == (
        "p.Old\n\nDeprecated as an error.\n\nDeprecated (error): Use Box instead\n\n"
        "Declaration: `class Old`"
    )


def test_declarations_end_where_their_lines_do() -> None:
    """No semicolons: an expression body, an initializer, accessors and a header that
    runs over lines end where the next line does not carry them on."""
    text = """package p.q

/** Sums. */
fun sum(a: Int, b: Int) =
    a +
        b

/** An object's property. */
val handler =
    object : Runnable {
        /** Inside an initializer: no document. */
        override fun run() {}
    }

/** With accessors. */
var count: Int
    get() = field
    private set(value) {
        /** In a setter: no document. */
        field = value
    }

/**
 * A header over lines.
 *
 * @param T the element type
 */
class Pool<T>(
    size: Int,
)
    : Base(size),
    Comparable<Pool<T>>
    where T : Any
{
    /** In its body. */
    fun take(): T? = null
}

/** A delegated property. */
val lazyValue: String by lazy { "x" }

/** Generic with a where clause. */
fun <T> copy(from: List<T>): List<T> where T : Comparable<T> = from

/** An extension on a function type. */
fun (suspend () -> Unit).runNow(): Unit = Unit

/** An operator extension on a generic type. */
operator fun <K, V> Map<K, V>.get(key: K, default: V): V = default

/** After them all. */
fun last() {}
"""
    docs = read(text)
    assert sorted(docs) == [
        "kotlin:p.q.Pool",
        "kotlin:p.q.Pool.take",
        "kotlin:p.q.copy",
        "kotlin:p.q.count",
        "kotlin:p.q.get",
        "kotlin:p.q.handler",
        "kotlin:p.q.last",
        "kotlin:p.q.lazyValue",
        "kotlin:p.q.runNow",
        "kotlin:p.q.sum",
    ]
    assert docs["kotlin:p.q.Pool"] == (
        "p.q.Pool(size: Int)\n\nA header over lines.\n\nType parameter T: the element type\n\n"
        "Declaration: `class Pool<T> : Base(size), Comparable<Pool<T>> where T : Any`"
    )
    assert docs["kotlin:p.q.Pool.take"] == "p.q.Pool.take()\n\nIn its body.\n\n:returns: `T?`"
    assert docs["kotlin:p.q.copy"] == (
        "p.q.copy(from: List<T>)\n\nGeneric with a where clause.\n\n:returns: `List<T>`\n\n"
        "Type parameters: `<T>`."
    )
    assert docs["kotlin:p.q.count"] == (
        "p.q.count\n\nWith accessors.\n\nType: `Int`\n\nModifiers: `var`."
    )
    assert docs["kotlin:p.q.lazyValue"].endswith("Type: `String`")
    assert docs["kotlin:p.q.runNow"] == (
        "p.q.runNow()\n\nAn extension on a function type.\n\nExtension on `(suspend () -> Unit)`."
    )
    assert docs["kotlin:p.q.get"] == (
        "p.q.get(key: K, default: V)\n\nAn operator extension on a generic type.\n\n"
        ":returns: `V`\n\nExtension on `Map<K, V>`.\n\nType parameters: `<K, V>`.\n\n"
        "Modifiers: `operator`."
    )
    assert docs["kotlin:p.q.sum"] == "p.q.sum(a: Int, b: Int)\n\nSums."


def test_extensions_of_one_name_and_a_factory_are_one_document() -> None:
    text = """package k

/** A job. */
interface Job

/**
 * Creates a job.
 *
 * @param parent its parent
 */
fun Job(parent: Job? = null): Job = object : Job {}

/** Cancels a scope's job. */
fun Scope.cancel() {}

/** Cancels a context's job. */
fun Context.cancel() {}

/** A member extension. */
class Scope {
    /** Says a string. */
    fun String.say() {}
}
"""
    docs = read(text)
    assert sorted(docs) == [
        "kotlin:k.Job",
        "kotlin:k.Scope",
        "kotlin:k.Scope.say",
        "kotlin:k.cancel",
    ]
    assert docs["kotlin:k.Job"] == (
        "k.Job\n\nA job.\n\nDeclaration: `interface Job`\n\n"
        "k.Job(parent: Job? = null)\n\nCreates a job.\n\n:param parent: its parent\n:returns: `Job`"
    )
    assert docs["kotlin:k.cancel"] == (
        "k.cancel()\n\nCancels a scope's job.\n\nExtension on `Scope`.\n\n"
        "k.cancel()\n\nCancels a context's job.\n\nExtension on `Context`."
    )
    assert docs["kotlin:k.Scope.say"].endswith("Extension on `String`.")


def test_test_and_generated_files_give_none_and_are_counted() -> None:
    paths = [
        "src/test/kotlin/p/A.kt",
        "test/p/A.kt",
        "tests/p/A.kt",
        "src/androidTest/java/p/A.kt",
        "src/jvmTest/kotlin/p/A.kt",
        "src/commonTest/kotlin/p/A.kt",
        "src/main/kotlin/p/QueueTest.kt",
        "src/main/kotlin/p/QueueTests.kt",
    ]
    rejects = CollectResult()
    assert api_documents(files(dict.fromkeys(paths, DOC)), "local", rejects) == []
    assert rejects.rejects == {KOTLIN_TEST: len(paths)}
    generated = {
        "build/generated/ksp/main/kotlin/p/A.kt": DOC,
        "src/main/kotlin/p/B.kt": "/* This file was generated by a tool. DO NOT EDIT. */\n" + DOC,
        "src/main/kotlin/p/C.kt": "// Automatically generated, do not modify\n" + DOC,
    }
    rejects = CollectResult()
    assert api_documents(files(generated), "local", rejects) == []
    assert rejects.rejects == {KOTLIN_GENERATED: 3}
    # a note further down, a "Testing" folder, a main source set: read
    kept = {
        "src/main/kotlin/p/Testing.kt": DOC + "// generated below; do not edit by hand\n",
        "src/jvmMain/kotlin/testing/B.kt": DOC.replace("class T", "class U"),
    }
    assert sorted(read_all(kept)) == ["kotlin:acme.spool.T", "kotlin:acme.spool.U"]
    assert is_kotlin("Queue.kt") and is_kotlin("A.KT") and not is_kotlin("build.gradle.kts")
    assert set(FIXES) == {KOTLIN_TEST, KOTLIN_GENERATED, KOTLIN_NO_API}
    assert all(
        fix.endswith("the source's kotlin: text reads them as text") for fix in FIXES.values()
    )


def test_the_first_file_in_path_order_keeps_a_name() -> None:
    one = "package p\n\n/** From a. */\nclass X\n"
    two = "package p\n\n/** From b. */\nclass X\n"
    docs = api_documents(files({"b/X.kt": two, "a/X.kt": one}), "local")
    assert [(d.uri, d.meta["origin"]) for d in docs] == [("kotlin:p.X", "/project/a/X.kt")]
    # no package: the root; an empty file and an undocumented one are counted
    assert read("/** No package. */\nfun top() {}\n", "Top.kt") == {
        "kotlin:top": "top()\n\nNo package."
    }
    rejects = CollectResult()
    empty = {"p/Empty.kt": "", "p/Bare.kt": "package p\n\nclass Bare\n"}
    assert api_documents(files(empty), "local", rejects) == []
    assert rejects.rejects == {KOTLIN_NO_API: 2}


def test_any_text_scans_without_an_error() -> None:
    """Unterminated strings, templates, raw strings, characters and nested comments, stray
    brackets: the scanner and the item reader end."""
    pieces = [
        "/** A doc [x] @param a b */\n", "/* c /* d */", "*/", "// l\n", "package p\n",
        "public ", "protected ", "private ", "internal ", "open ", "data ", "enum ",
        "companion ", "object ", "class ", "interface ", "fun ", "val ", "var ",
        "typealias ", "constructor", "init ", "suspend ", "A ", "b ", "(", ")", "{", "}",
        "[", "]", "<", ">", "->", '"', '"""', "${", "$", "'", "'\\''", "`", "/*", "/**",
        "\n", " ", ";", ",", ":", "=", ".", "@Suppress(\"x\") ", "@Deprecated(\"m\") ",
        "Int", "where ", "by ", "get() ", "import x.y\n", "@suppress", "\\",
        "/** Doc. */\nclass C(val a: Int) {\n", "/** M. */ fun m(a: Int): Int = a\n",
        "/** F. */ const val F = 1\n", "/** E. */ enum class E { A, B; ",
        "/** X. */ fun String.x() {}\n",
    ]  # fmt: skip

    def read_one(text: str) -> list[Document]:
        return api_documents(files({"p/A.kt": text}), "local")

    assert fuzzed(read_one, pieces, "kotlin:") > 0  # some random texts document something


def test_kotlin_parameters_are_read_past_their_modifiers() -> None:
    got = parse.parameters(
        "(a: Int, vararg b: String, crossinline f: () -> Unit, `in`: Int)", "kotlin"
    )
    assert [p.name for p in got] == ["a", "b", "f", "in"]
    assert got[1].text == "vararg b: String"  # shown as written


def test_a_gradle_projects_kotlin_is_read_as_its_api(tmp_path: Path) -> None:
    tree = {
        "build.gradle.kts": 'plugins { kotlin("jvm") }\n',
        "src/main/kotlin/acme/Spool.kt": (
            "package acme\n\n/** Winds [turns] turns. @param turns how many */\n"
            "fun wind(turns: Int): Int = turns\n"
        ),
        "src/test/kotlin/acme/SpoolTest.kt": "package acme\n\n/** A test. */\nclass SpoolTest\n",
    }
    write_tree(tmp_path / "p", tree)
    entry = source_entry(str(tmp_path / "p"))
    assert "*.kt" in entry["include"]  # type: ignore[operator]
    docs, rejects = collect_tree(tmp_path, tree, list(entry["include"]))  # type: ignore[call-overload]
    assert [u for u in docs if u.startswith("kotlin:")] == ["kotlin:acme.wind"]
    assert dict(rejects.rejects)["kotlin_test"] == 1
    whole, _ = collect_tree(tmp_path / "t", tree, ["*.kt"], kotlin="text")
    assert not any(u.startswith("kotlin:") for u in whole)
