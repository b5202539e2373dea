"""Scala read as its packages' API, as Scaladoc reads it: source files scanned, never
compiled, each public (or protected) item with a Scaladoc comment a document; and the
questions the generator then asks about it."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import ask, collect_tree, fuzzed, write_tree
from jupiter.collect import CollectResult
from jupiter.collect.scalaapi import (
    FIXES,
    SCALA_GENERATED,
    SCALA_NO_API,
    SCALA_TEST,
    ScalaFile,
    api_documents,
    is_scala,
    scaladoc,
    scan,
    wiki,
)
from jupiter.config.cli import source_entry
from jupiter.records import Document
from jupiter.synth import parse

QUEUE = r'''/*
 * Copyright 2024 Acme. Licensed under the Apache License 2.0.
 * /* a nested comment: its end does not end the license */
 */
package acme
package spool

import scala.collection.mutable.{ArrayBuffer, Map => MMap}

/** A queue of jobs kept in one folder.
 *
 *  Opened with [[acme.spool.Queue$.open]]; see [[Priority]] for the order jobs run
 *  in, and [[acme.spool.Job the job type]] for what runs.
 *
 *  == Usage ==
 *
 *  {{{
 *  val q = new Queue[String]("/tmp/q")
 *  q.push("mail") { j => println(s"${j.name} done") }
 *  }}}
 *
 *  @param dir the folder the queue keeps its jobs in
 *  @param capacity how many jobs it holds
 *  @tparam T the type of the jobs' payloads
 *  @constructor Opens the queue in `dir`.
 *  @author Ann Example
 *  @since 1.0
 *  @see [[Job]]
 *  @define coll queue
 */
@SerialVersionUID(1L)
class Queue[T](val dir: String, private val secret: Int, capacity: Int = 16)
    extends Iterable[T]
    with Serializable {

  /** A brace in a string: "}" or a char: '}' or a hole: ${"{"} ends no class. */
  val banner: String = "} \" {" + s"${if (dir.isEmpty) "{" else "}"} {" + '{' + """
      raw { ${ "}" } text "" }
  """ + 'sym.name + raw"\d{2}" + f"${capacity}%d}"

  /** Opens a queue with a name.
   *
   *  @param name the queue's name
   */
  def this(name: String, size: Int) = this(s"/var/spool/$name", 0, size)

  /** Adds a job at the end of the $coll.
   *
   *  @param name the job's name
   *  @return the job's position in the queue
   */
  def push(name: String): Int = push(name, 0)(_ => ())

  /** Adds a job with a priority and a callback.
   *
   *  @param name the job's name
   *  @param priority how soon it runs: `0` first
   *  @param done called when the job is done
   *  @throws IllegalStateException if the queue is closed
   */
  def push(name: String, priority: Int = 0)(done: Job => Unit): Int = {
    /** A local def: no document. */
    def local() = ()
    val handler = new Runnable {
      /** Inside an anonymous class: no document. */
      def run(): Unit = ()
    }
    0
  }

  /** Folds the jobs, left to right.
   *
   *  @param z the start value
   *  @param op the operation
   *  @param ord how results compare
   *  @tparam B the result type
   *  @return the folded value
   *  @usecase def foldJobs(z: Int)(op: (Int, Job) => Int): Int
   *    @inheritdoc
   */
  def foldJobs[B](z: B)(op: (B, Job) => B)(implicit ord: Ordering[B]): B = z

  /** Appends all jobs: `q ++= jobs`. */
  def ++=(jobs: Seq[Job]): this.type = this

  /** Called when a job fails: for subclasses. */
  protected def onFailure(job: Job): Unit = ()

  /** Private: no document. */
  private def helper(): Unit = ()

  /** Package-private: no document. */
  private[spool] def tidy(): Unit = ()

  /** The jobs waiting. */
  def waiting: Int = 0

  /** The last error. */
  var lastError: Throwable = _

  /** Read when first asked for. */
  lazy val config: Map[String, String] = Map.empty

  override def iterator: Iterator[T] = Iterator.empty

  /** A listener of a queue's jobs. */
  trait Listener {

    /** Called when a job is done.
     *
     *  @param job the job
     *  @param ok whether it succeeded
     */
    def done(job: Job, ok: Boolean): Unit
  }
}

/** Its factory and limits. */
object Queue {

  /** The most attempts a failing job gets. */
  final val MaxAttempts = 5

  /** Opens a queue in `dir`.
   *
   *  @return the queue
   */
  def open[T](dir: String): Queue[T] = new Queue[T](dir, 0)

  /** Protected in an object: no document. */
  protected def guarded(): Unit = ()
}
'''

JOBS = r"""package acme.spool

/** How soon a job runs. */
object Priority extends Enumeration {

  /** The levels, lowest first. */
  val Low, Normal, High = Value
}

/** A job: its name and what it carries. Jobs are '''never''' lost,
 *  ''ever'': `'''true'''`, x,,1,, and 2^10^ are __plain__.
 *
 *  @param name the job's name
 *  @param payload what it carries
 */
case class Job(name: String, payload: Array[Byte] = Array.emptyByteArray)

/** What a job's run gives. */
sealed trait Outcome

object Outcome {

  /** It ran.
   *
   *  @param value what it gave
   */
  final case class Done(value: Int) extends Outcome

  /** It failed. */
  case object Failed extends Outcome
}

/** Jobs run now. */
object Now {

  /** Runs a job at once. */
  def apply(job: Job): Unit = ()
}

/** A final class. */
final class Closed {

  /** Protected in a final class: no document. */
  protected def hidden(): Unit = ()
}

/** Package-private: no document. */
private[spool] class Spooler {

  /** A member of a class that is not public: no document. */
  def spool(): Unit = ()
}

/** An old queue. */
@deprecated("Use Queue instead", "2.11.0")
class OldQueue

/** An older one.
 *
 *  @deprecated use [[Queue]] with a short capacity
 */
class Older
"""

PACKAGE = r"""package acme

/** Spooling jobs: the package's own document. */
package object spool {

  /** A callback run with a job. */
  type JobHandler = Job => Unit

  /** The default folder. */
  val DefaultDir: String = "/var/spool/acme"

  /** A job from its name, implicitly. */
  implicit def nameToJob(name: String): Job = Job(name)
}
"""

BLOCKS = r"""package acme.net {

  /** A socket. */
  class Socket {

    /** Closes it. */
    def close(): Unit = ()
  }

  package http {

    /** A request. */
    trait Request
  }
}

package acme.io {

  /** A file. */
  class File
}
"""

DOC = "package acme\n\n/** Doc. */\nclass T\n"
TREE = {
    "src/main/scala/acme/spool/Queue.scala": QUEUE,
    "src/main/scala/acme/spool/Jobs.scala": JOBS,
    "src/main/scala/acme/spool/package.scala": PACKAGE,
    "src/main/scala/acme/Blocks.scala": BLOCKS,
    "src/main/scala/acme/Internal.scala": (
        "package acme\n\n/** Private. */\nprivate object Internal\n"
    ),
    "src/test/scala/acme/QueueSpec.scala": DOC,
    "src/main/scala/acme/QueueSuite.scala": DOC,
    "target/scala-2.13/src_managed/main/acme/Gen.scala": DOC,
    "src/main/scala/acme/Parser.scala": (
        "// Generated by the grammar tool. Do not edit!\npackage acme\n\n"
        "/** The parser. */\nclass Parser\n"
    ),
}
EXPECTED = [
    "scala:acme.io.File",
    "scala:acme.net.Socket",
    "scala:acme.net.Socket.close",
    "scala:acme.net.http.Request",
    "scala:acme.spool",
    "scala:acme.spool.Closed",
    "scala:acme.spool.DefaultDir",
    "scala:acme.spool.Job",
    "scala:acme.spool.Job.name",
    "scala:acme.spool.Job.payload",
    "scala:acme.spool.JobHandler",
    "scala:acme.spool.Now",
    "scala:acme.spool.Now.apply",
    "scala:acme.spool.OldQueue",
    "scala:acme.spool.Older",
    "scala:acme.spool.Outcome",
    "scala:acme.spool.Outcome.Done",
    "scala:acme.spool.Outcome.Done.value",
    "scala:acme.spool.Outcome.Failed",
    "scala:acme.spool.Priority",
    "scala:acme.spool.Priority.High",
    "scala:acme.spool.Priority.Low",
    "scala:acme.spool.Priority.Normal",
    "scala:acme.spool.Queue",
    "scala:acme.spool.Queue.++=",
    "scala:acme.spool.Queue.Listener",
    "scala:acme.spool.Queue.Listener.done",
    "scala:acme.spool.Queue.MaxAttempts",
    "scala:acme.spool.Queue.Queue",
    "scala:acme.spool.Queue.banner",
    "scala:acme.spool.Queue.config",
    "scala:acme.spool.Queue.dir",
    "scala:acme.spool.Queue.foldJobs",
    "scala:acme.spool.Queue.lastError",
    "scala:acme.spool.Queue.onFailure",
    "scala:acme.spool.Queue.open",
    "scala:acme.spool.Queue.push",
    "scala:acme.spool.Queue.waiting",
    "scala:acme.spool.nameToJob",
]


def files(tree: dict[str, str]) -> list[ScalaFile]:
    return [ScalaFile(P(rel), f"/project/{rel}", text) for rel, text in tree.items()]


def read_all(tree: dict[str, str]) -> dict[str, str]:
    """The documents the files give: their texts by uri."""
    return {d.uri: d.text for d in api_documents(files(tree), "local")}


def read(text: str, rel: str = "src/main/scala/p/A.scala") -> dict[str, str]:
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
        SCALA_TEST: 2,  # under src/test/, a *Suite.scala file
        SCALA_GENERATED: 2,  # under target/.../src_managed/, a "do not edit" note on top
        SCALA_NO_API: 1,  # only a private object
    }
    text = {uri: d.text for uri, d in docs.items()}
    # a class: its primary constructor's parameters (no `val`, no modifiers) head it;
    # links as their name or text, a heading, a code block fenced as Scala, @param,
    # @tparam, @constructor, @since and @see read, @author and @define left out; its
    # companion object, documented too, is the document's second section
    assert text["scala:acme.spool.Queue"] == (
        "acme.spool.Queue(dir: String, secret: Int, capacity: Int = 16)\n\n"
        "A queue of jobs kept in one folder.\n\n"
        "Opened with `Queue.open`; see `Priority` for the order jobs run\n"
        "in, and the job type for what runs.\n\n"
        "## Usage\n\n"
        '```scala\nval q = new Queue[String]("/tmp/q")\n'
        'q.push("mail") { j => println(s"${j.name} done") }\n```\n\n'
        "Constructor: Opens the queue in `dir`.\n\n"
        ":param dir: the folder the queue keeps its jobs in\n"
        ":param capacity: how many jobs it holds\n\n"
        "Type parameter T: the type of the jobs' payloads\n\n"
        "Declaration: `class Queue[T] extends Iterable[T] with Serializable`\n\n"
        "Since: 1.0\n\nSee also: `Job`\n\n"
        "acme.spool.Queue\n\nIts factory and limits.\n\nDeclaration: `object Queue`"
    )
    # a constructor `val` its class's @param documents (not a plain parameter)
    assert text["scala:acme.spool.Queue.dir"] == (
        "acme.spool.Queue.dir\n\nthe folder the queue keeps its jobs in\n\nType: `String`"
    )
    # overloads are one document: the first's signature heads it, the second follows with
    # its own, both its parameter lists; a declared type where no @return says it; a
    # macro left as written; a local def and an anonymous class's members not read
    assert text["scala:acme.spool.Queue.push"] == (
        "acme.spool.Queue.push(name: String)\n\n"
        "Adds a job at the end of the $coll.\n\n"
        ":param name: the job's name\n:returns: the job's position in the queue\n\n"
        "acme.spool.Queue.push(name: String, priority: Int = 0)(done: Job => Unit)\n\n"
        "Adds a job with a priority and a callback.\n\n"
        ":param name: the job's name\n:param priority: how soon it runs: `0` first\n"
        ":param done: called when the job is done\n:returns: `Int`\n"
        ":raises IllegalStateException: if the queue is closed"
    )
    # all its parameter lists as written, the implicit one too; a use case's signature
    assert text["scala:acme.spool.Queue.foldJobs"] == (
        "acme.spool.Queue.foldJobs(z: B)(op: (B, Job) => B)(implicit ord: Ordering[B])\n\n"
        "Folds the jobs, left to right.\n\n"
        "Use case: `def foldJobs(z: Int)(op: (Int, Job) => Int): Int`\n\n"
        ":param z: the start value\n:param op: the operation\n"
        ":param ord: how results compare\n:returns: the folded value\n\n"
        "Type parameter B: the result type\n\nType parameters: `[B]`."
    )
    # a secondary constructor is <Type>.<Type>; an operator is its own name
    assert text["scala:acme.spool.Queue.Queue"] == (
        "acme.spool.Queue.Queue(name: String, size: Int)\n\n"
        "Opens a queue with a name.\n\n:param name: the queue's name"
    )
    assert text["scala:acme.spool.Queue.++="] == (
        "acme.spool.Queue.++=(jobs: Seq[Job])\n\nAppends all jobs: `q ++= jobs`.\n\n"
        ":returns: `this.type`"
    )
    # protected in an open class is API; the braces in the strings before ended nothing
    assert text["scala:acme.spool.Queue.onFailure"] == (
        "acme.spool.Queue.onFailure(job: Job)\n\n"
        "Called when a job fails: for subclasses.\n\nModifiers: `protected`."
    )
    assert text["scala:acme.spool.Queue.banner"] == (
        "acme.spool.Queue.banner\n\n"
        'A brace in a string: "}" or a char: \'}\' or a hole: ${"{"} ends no class.\n\n'
        "Type: `String`"
    )
    # a def without parameters, a var, a lazy val
    assert text["scala:acme.spool.Queue.waiting"] == (
        "acme.spool.Queue.waiting\n\nThe jobs waiting.\n\n:returns: `Int`"
    )
    assert text["scala:acme.spool.Queue.lastError"] == (
        "acme.spool.Queue.lastError\n\nThe last error.\n\nType: `Throwable`\n\nModifiers: `var`."
    )
    assert text["scala:acme.spool.Queue.config"].endswith(
        "Type: `Map[String, String]`\n\nModifiers: `lazy`."
    )
    # the companion object's members named through it; a constant's value
    assert text["scala:acme.spool.Queue.MaxAttempts"] == (
        "acme.spool.Queue.MaxAttempts\n\nThe most attempts a failing job gets.\n\n"
        "Value: `5`\n\nModifiers: `final`."
    )
    assert text["scala:acme.spool.Queue.open"] == (
        "acme.spool.Queue.open(dir: String)\n\nOpens a queue in `dir`.\n\n"
        ":returns: the queue\n\nType parameters: `[T]`."
    )
    assert text["scala:acme.spool.Queue.Listener.done"] == (
        "acme.spool.Queue.Listener.done(job: Job, ok: Boolean)\n\n"
        "Called when a job is done.\n\n:param job: the job\n:param ok: whether it succeeded"
    )
    # a case class: its parameters head it and are vals; wiki markup as Markdown
    assert text["scala:acme.spool.Job"] == (
        "acme.spool.Job(name: String, payload: Array[Byte] = Array.emptyByteArray)\n\n"
        "A job: its name and what it carries. Jobs are **never** lost,\n"
        "*ever*: `true`, x1 and 210 are plain.\n\n"
        ":param name: the job's name\n:param payload: what it carries\n\n"
        "Declaration: `case class Job`"
    )
    assert text["scala:acme.spool.Job.payload"] == (
        "acme.spool.Job.payload\n\nwhat it carries\n\nType: `Array[Byte]`"
    )
    assert text["scala:acme.spool.Outcome.Done"] == (
        "acme.spool.Outcome.Done(value: Int)\n\nIt ran.\n\n:param value: what it gave\n\n"
        "Declaration: `final case class Done extends Outcome`"
    )
    assert text["scala:acme.spool.Outcome.Failed"] == (
        "acme.spool.Outcome.Failed\n\nIt failed.\n\nDeclaration: `case object Failed extends Outcome`"
    )
    # an Enumeration's values: each name of one `val` a document
    assert text["scala:acme.spool.Priority.Low"] == (
        "acme.spool.Priority.Low\n\nThe levels, lowest first."
    )
    # the annotation and the tag
    assert text["scala:acme.spool.OldQueue"] == (
        "acme.spool.OldQueue\n\nAn old queue.\n\nDeprecated: Use Queue instead (since 2.11.0)\n\n"
        "Declaration: `class OldQueue`"
    )
    assert text["scala:acme.spool.Older"] == (
        "acme.spool.Older\n\nAn older one.\n\nDeprecated: use `Queue` with a short capacity\n\n"
        "Declaration: `class Older`"
    )
    # a package object is its package's document, its members named through it
    assert text["scala:acme.spool"] == (
        "acme.spool\n\nSpooling jobs: the package's own document.\n\n"
        "Declaration: `package object spool`"
    )
    assert text["scala:acme.spool.JobHandler"] == (
        "acme.spool.JobHandler\n\nA callback run with a job.\n\n"
        "Declaration: `type JobHandler = Job => Unit`"
    )
    assert text["scala:acme.spool.DefaultDir"] == (
        "acme.spool.DefaultDir\n\nThe default folder.\n\nType: `String`\n\n"
        'Value: `"/var/spool/acme"`'
    )
    assert text["scala:acme.spool.nameToJob"] == (
        "acme.spool.nameToJob(name: String)\n\nA job from its name, implicitly.\n\n"
        ":returns: `Job`\n\nModifiers: `implicit`."
    )
    # package blocks, nested
    assert text["scala:acme.net.http.Request"] == (
        "acme.net.http.Request\n\nA request.\n\nDeclaration: `trait Request`"
    )
    assert text["scala:acme.net.Socket.close"] == "acme.net.Socket.close()\n\nCloses it."
    meta = docs["scala:acme.spool.Queue.push"].meta
    assert meta == {
        "kind": "method",
        "qualname": "acme.spool.Queue.push",
        "language": "scala",
        "signature": "(name: String)",
        "origin": "/project/src/main/scala/acme/spool/Queue.scala",
        "line": 52,
    }
    kinds = {uri.removeprefix("scala:acme."): d.meta["kind"] for uri, d in docs.items()}
    assert kinds == {
        "io.File": "class",
        "net.Socket": "class",
        "net.Socket.close": "method",
        "net.http.Request": "trait",
        "spool": "package",
        "spool.Closed": "class",
        "spool.DefaultDir": "constant",
        "spool.Job": "class",
        "spool.Job.name": "value",
        "spool.Job.payload": "value",
        "spool.JobHandler": "type",
        "spool.Now": "object",
        "spool.Now.apply": "method",
        "spool.OldQueue": "class",
        "spool.Older": "class",
        "spool.Outcome": "trait",
        "spool.Outcome.Done": "class",
        "spool.Outcome.Done.value": "value",
        "spool.Outcome.Failed": "object",
        "spool.Priority": "object",
        "spool.Priority.High": "value",
        "spool.Priority.Low": "value",
        "spool.Priority.Normal": "value",
        "spool.Queue": "class",
        "spool.Queue.++=": "method",
        "spool.Queue.Listener": "trait",
        "spool.Queue.Listener.done": "method",
        "spool.Queue.MaxAttempts": "constant",
        "spool.Queue.Queue": "constructor",
        "spool.Queue.banner": "value",
        "spool.Queue.config": "value",
        "spool.Queue.dir": "value",
        "spool.Queue.foldJobs": "method",
        "spool.Queue.lastError": "variable",
        "spool.Queue.onFailure": "method",
        "spool.Queue.open": "method",
        "spool.Queue.push": "method",
        "spool.Queue.waiting": "method",
        "spool.nameToJob": "method",
    }
    assert all(d.meta["language"] == "scala" for d in docs.values())


def test_questions_about_a_scala_api() -> None:
    assert "scala:" in parse.API_PREFIXES  # the question generator reads them as an API's
    docs, _ = project()
    push = ask(docs["scala:acme.spool.Queue.push"])
    assert push["what_does"] == "Adds a job at the end of the $coll."
    assert push["signature"] == "`acme.spool.Queue.push(name: String)`"
    assert push["returns"] == "the job's position in the queue"
    assert push["arguments"] == (
        "`acme.spool.Queue.push` takes 1 argument: name: String.\n\n- name: the job's name"
    )
    # Scala's "name: Type = default" read for its name, each with its @param
    queue = ask(docs["scala:acme.spool.Queue"])
    assert queue["what_does"] == "A queue of jobs kept in one folder."
    assert queue["arguments"] == (
        "`acme.spool.Queue` takes 3 arguments: dir: String, secret: Int, capacity: Int = 16."
        "\n\n- dir: the folder the queue keeps its jobs in\n- capacity: how many jobs it holds"
    )
    job = ask(docs["scala:acme.spool.Job"])
    assert job["arguments"].startswith(
        "`acme.spool.Job` takes 2 arguments: name: String, "
        "payload: Array[Byte] = Array.emptyByteArray."
    )
    # several parameter lists: the signature is all of them, and so are the arguments
    # (an implicit list's keyword out of the name)
    fold = ask(docs["scala:acme.spool.Queue.foldJobs"])
    assert fold["signature"] == (
        "`acme.spool.Queue.foldJobs(z: B)(op: (B, Job) => B)(implicit ord: Ordering[B])`"
    )
    assert fold["returns"] == "the folded value"
    assert fold["arguments"].startswith(
        "`acme.spool.Queue.foldJobs` takes 3 arguments: z: B, op: (B, Job) => B, "
        "implicit ord: Ordering[B].\n\n- z: the start value"
    )
    # a type without a constructor: its name line is not read as its text, no signature
    listener = ask(docs["scala:acme.spool.Queue.Listener"])
    assert listener["what_does"] == "A listener of a queue's jobs."
    assert "signature" not in listener


def test_scaladoc_tags_and_wiki_syntax() -> None:
    doc = scaladoc(
        r""" Formats a value, as [[scala.collection.Seq]] would, or [[scala.collection.Seq#map]],
   *  [[scala.collection.immutable.List$ the List object]] and [[List.apply[A](xs:A*)* apply]];
   *  a web link [[https://example.com "the site"]], a bare one [[https://example.com]].
   *  '''Bold''', ''italic over
   *  two lines'', __underlined__, E = mc^2^, x,,i,, and `'''code'''` read plainly;
   *  `[[not a link]]` stays; so do macros, not expanded: $coll and ${Coll}s.
   *
   *  === Notes ===
   *  Lists stay lists:
   *   - one
   *   - two
   *   1. first
   *
   *  {{{
   *  val x = Seq(1) map { _ + 1 } // code: '''no''' markup, [[no]] link
   *      .sum
   *  }}}
   *  @inheritdoc
   *
   *  @param xs - the values,
   *    over two lines
   *  @param f how each is made
   *
   *  A paragraph after a field's is the description's.
   *  @tparam A the element type
   *  @return the text
   *  @throws [[java.util.NoSuchElementException]] when it is empty
   *  @throws IllegalStateException - when it is closed
   *  @since 2.8
   *  @see [[scala.collection.Seq]] for more
   *  @see the guide
   *  @note It will not terminate
   *        on infinite collections.
   *  @example {{{
   *  format(Seq(1, 2))
   *  }}}
   *  @example format(Nil)
   *  @deprecated use `show`
   *  @constructor makes one
   *  @usecase def format(xs: Seq[A]): String
   *    @inheritdoc
   *
   *    Example: {{{format(Seq(1))}}}
   *  @author Ann
   *  @version 1.0
   *  @define coll sequence
   *
   *    a macro's text over paragraphs
   *  @group formatting
   *  @todo faster
   """
    )
    assert doc.description == (
        "Formats a value, as `Seq` would, or `Seq.map`,\n"
        "the List object and apply;\n"
        "a web link [the site](https://example.com), a bare one https://example.com.\n"
        "**Bold**, *italic over\ntwo lines*, underlined, E = mc2, xi and `code` read plainly;\n"
        "`[[not a link]]` stays; so do macros, not expanded: $coll and ${Coll}s.\n\n"
        "### Notes\n\n"
        "Lists stay lists:\n - one\n - two\n 1. first\n\n"
        "```scala\nval x = Seq(1) map { _ + 1 } // code: '''no''' markup, [[no]] link\n"
        "    .sum\n```\n\n"
        "A paragraph after a field's is the description's."
    )
    assert doc.params == [("xs", "the values, over two lines"), ("f", "how each is made")]
    assert doc.tparams == [("A", "the element type")]
    assert doc.returns == "the text"
    assert doc.throws == [
        ("java.util.NoSuchElementException", "when it is empty"),
        ("IllegalStateException", "when it is closed"),
    ]
    assert doc.since == ["2.8"]
    assert doc.see == ["`Seq` for more", "the guide"]
    assert doc.notes == ["It will not terminate on infinite collections."]
    assert doc.examples == ["```scala\nformat(Seq(1, 2))\n```", "```scala\nformat(Nil)\n```"]
    assert doc.deprecated == "use `show`"
    assert doc.constructor == "makes one"
    assert doc.usecases == [
        "Use case: `def format(xs: Seq[A]): String`\n\nExample:\n\n```scala\nformat(Seq(1))\n```"
    ]
    assert doc.documented()
    # nothing said about the item: only @inheritdoc, macros, @since or @see
    assert not scaladoc(" @inheritdoc ").documented()
    assert not scaladoc(" $factoryInfo\n * @define coll list\n ").documented()
    assert not scaladoc(" @since 1.0\n * @see Foo\n ").documented()
    assert wiki("==Top==\ntext\n=no heading") == "## Top\n\ntext\n=no heading"
    # tags on a narrower margin than the description's leave it unindented; a field
    # holding a code block keeps it, its text around it on lines of their own
    folded = scaladoc(
        """ Folds.
   *  Left to right.
   *
   * @return the result:
   *         {{{
   *         op(op(z, x1), x2)
   *         }}}
   *         where `x1, x2` are the elements.
   """
    )
    assert folded.description == "Folds.\nLeft to right."
    assert folded.returns == (
        "the result:\n\n```scala\nop(op(z, x1), x2)\n```\n\nwhere `x1, x2` are the elements."
    )


def test_the_scanner_tells_literals_and_comments_from_code() -> None:
    text = (
        "class A { /* outer /* inner { */ still a comment } */\n"
        '  val s = "}\\"{" + s"${ Map("k" -> "{").get("}") }{$$" + "${"\n'
        '  val r = """ { "" "}"""" + s""" { ${ "}" + """x""" } $$ } """\n'
        "  val c = '{'; val q = '\\''; val u = '\\u007B'; val d = '\"'\n"
        '  val sym = \'sym; val f = raw"\\d{2}}"; val n = s"${ s"{${"}"}" }"\n'
        "  def `a } name`() = 1 // } in a line comment\n"
        "  /** { */ val x = 1 }"
    )
    code, bare, comments = scan(text)
    assert len(code) == len(bare) == len(text)
    assert code.count("{") == 1 and code.count("}") == 1  # the class's
    assert [c.doc for c in comments] == [False, False, True]
    assert comments[0].text == " outer /* inner { */ still a comment } "
    assert "/*" not in bare and "//" not in bare and "`a } name`" in bare
    # the literals kept in the text, blanked in the code but for their opening quotes;
    # `"${"` is no interpolated string, `'sym` a symbol, no character
    assert bare.splitlines()[1:5] == text.splitlines()[1:5]
    assert code.splitlines()[1].split() == ["val", "s", "=", '"', "+", 's"', "+", '"']
    assert code.splitlines()[2].split() == ["val", "r", "=", '"', "+", 's"']
    assert code.splitlines()[3].split() == "val c = ' ; val q = ' ; val u = ' ; val d = '".split()
    assert code.splitlines()[4].split() == [
        "val", "sym", "=", "'sym;", "val", "f", "=", 'raw"', ";", "val", "n", "=", 's"',
    ]  # fmt: skip
    assert "`        `" in code  # a backquoted name's inside blanked, its backquotes kept


def test_visibility() -> None:
    text = """package p

/** Open. */
abstract class Base protected (val id: Int) {

  /** Protected in an abstract class: API. */
  protected def step(): Unit

  /** Qualified protected: API too. */
  protected[p] def hook(): Unit = ()

  /** Private in a class: no document. */
  private val cache = 0

  /** Private to the instance: no document. */
  private[this] var count = 0

  /** A protected nested class of an open one: API, and its members. */
  protected class Part {

    /** Its member. */
    def size: Int = 0
  }

  /** An initializer block's insides are not read. */
  val table: Map[String, Int] = {
    /** No document. */
    val inner = 1
    Map("a" -> inner)
  }
}

/** A private constructor: no parameters head it.
 *
 *  @param size how big
 *  @param tag its tag
 */
class Box private (val size: Int, private val tag: String) {

  /** A val the class's doc does not name. */
  val weight = 1
}

/** A case class: its parameters are vals, but a private one.
 *
 *  @param x the first
 *  @param y the second
 */
case class Point(x: Int, private val y: Int)

/** A final class. */
final class Sealed {

  /** Protected in a final class: no document. */
  protected def hidden(): Unit = ()

  /** Public: a document. */
  def shown(): Unit = ()
}

/** An object. */
object Registry {

  /** Protected in an object: no document. */
  protected def guarded(): Unit = ()

  /** Qualified private: no document. */
  private[p] val items = List(1)

  /** A private nested object and its members: no document. */
  private object Secret {

    /** None. */
    def make(): Int = 0
  }
}

/** A trait. */
trait Shape {

  /** Protected in a trait: API. */
  protected def sides: Int
}

/** Private: no document. */
private class Hidden {

  /** A member of a private class: no document. */
  def member(): Unit = ()
}

/** Package-private with its members. */
private[p] object Tools {

  /** None. */
  def tool(): Unit = ()
}
"""
    docs = read(text)
    assert sorted(docs) == [
        "scala:p.Base",
        "scala:p.Base.Part",
        "scala:p.Base.Part.size",
        "scala:p.Base.hook",
        "scala:p.Base.step",
        "scala:p.Base.table",
        "scala:p.Box",
        "scala:p.Box.size",
        "scala:p.Box.weight",
        "scala:p.Point",
        "scala:p.Point.x",
        "scala:p.Registry",
        "scala:p.Sealed",
        "scala:p.Sealed.shown",
        "scala:p.Shape",
        "scala:p.Shape.sides",
    ]
    # a protected constructor of an abstract class heads it; a private one does not
    assert docs["scala:p.Base"] == (
        "p.Base(id: Int)\n\nOpen.\n\nDeclaration: `abstract class Base protected`"
    )
    assert docs["scala:p.Base.hook"].endswith("Modifiers: `protected[p]`.")
    assert docs["scala:p.Base.table"] == (
        "p.Base.table\n\nAn initializer block's insides are not read.\n\nType: `Map[String, Int]`"
    )
    assert docs["scala:p.Box"] == (
        "p.Box\n\nA private constructor: no parameters head it.\n\n"
        ":param size: how big\n:param tag: its tag\n\nDeclaration: `class Box private`"
    )
    assert docs["scala:p.Box.size"] == "p.Box.size\n\nhow big\n\nType: `Int`"
    assert docs["scala:p.Box.weight"] == (
        "p.Box.weight\n\nA val the class's doc does not name.\n\nValue: `1`"
    )
    assert docs["scala:p.Shape.sides"] == (
        "p.Shape.sides\n\nProtected in a trait: API.\n\n:returns: `Int`\n\nModifiers: `protected`."
    )


def test_declarations_end_where_their_lines_do() -> None:
    """No semicolons: a body, a header and a type that run over lines end where the next
    line does not carry them on; operators, odd names and annotations."""
    text = """package p.q

/** Sums, its body on the next lines. */
def sum(a: Int, b: Int) =
  a +
    b

/** A header over lines.
 *
 *  @tparam T the element type
 */
abstract class Pool[T](size: Int)
    extends Base(size)
    with Comparable[Pool[T]]
{

  /** Abstract: its line ends it. */
  def take(): T

  /** With its implicit list on the next line. */
  def sorted[B >: T]
      (implicit ord: Ordering[B])
      : Pool[B] = this

  /** Procedure syntax: no result. */
  def clear() { () }

  /** An anonymous class's members are not read. */
  def handler =
    new Runnable {
      /** No document. */
      def run(): Unit = ()
    }

  /** A type over lines. */
  type Key =
    Map[String,
      Int]

  /** An abstract type, bounded. */
  type Elem <: AnyRef

  /** After them all. */
  def last: T
}

/** Operators and odd names. */
class Ops {

  /** Prepends. */
  def ::[B >: Int](x: B): List[B] = Nil

  /** Appends. */
  def :+(x: Int): Ops = this

  /** Negates. */
  def unary_! : Ops = this

  /** Reverses onto. */
  def reverse_:::(prefix: List[Int]): List[Int] = prefix

  /** Sets the size. */
  def size_=(n: Int): Unit = ()

  /** A keyword as a name. */
  def `type`: String = "ops"

  /** Multiple lists, a by-name and a repeated parameter.
   *
   *  @param xs the values
   *  @param f how each is made
   */
  def fill(xs: Int*)(f: => Int): Seq[Int] = xs
}

/** Annotated. */
object Annotated {

  /** Deprecated with named arguments. */
  @deprecated(message = "Use " + "newer", since = "2.12.0")
  def old(): Unit = ()

  /** Changed.
   *
   *  @return the keys
   */
  @migration("`keys` returns `Iterable[A]` rather than `Iterator[A]`.", "2.8.0")
  def keys: Iterable[Int] = Nil

  /** Reads.
   *
   *  @throws java.io.IOException - when it cannot
   */
  @throws(classOf[java.io.IOException])
  @throws[IllegalStateException]("when closed")
  def load(): Unit = ()

  /** Deprecated both ways.
   *
   *  @deprecated it leaks
   */
  @deprecated("Use close", "2.11.0") @inline final def shut(): Unit = ()
}
"""
    docs = read(text)
    assert sorted(docs) == [
        "scala:p.q.Annotated",
        "scala:p.q.Annotated.keys",
        "scala:p.q.Annotated.load",
        "scala:p.q.Annotated.old",
        "scala:p.q.Annotated.shut",
        "scala:p.q.Ops",
        "scala:p.q.Ops.:+",
        "scala:p.q.Ops.::",
        "scala:p.q.Ops.fill",
        "scala:p.q.Ops.reverse_:::",
        "scala:p.q.Ops.size_=",
        "scala:p.q.Ops.type",
        "scala:p.q.Ops.unary_!",
        "scala:p.q.Pool",
        "scala:p.q.Pool.Elem",
        "scala:p.q.Pool.Key",
        "scala:p.q.Pool.clear",
        "scala:p.q.Pool.handler",
        "scala:p.q.Pool.last",
        "scala:p.q.Pool.sorted",
        "scala:p.q.Pool.take",
        "scala:p.q.sum",
    ]
    assert docs["scala:p.q.sum"] == "p.q.sum(a: Int, b: Int)\n\nSums, its body on the next lines."
    assert docs["scala:p.q.Pool"] == (
        "p.q.Pool(size: Int)\n\nA header over lines.\n\nType parameter T: the element type\n\n"
        "Declaration: `abstract class Pool[T] extends Base(size) with Comparable[Pool[T]]`"
    )
    assert (
        docs["scala:p.q.Pool.take"]
        == "p.q.Pool.take()\n\nAbstract: its line ends it.\n\n:returns: `T`"
    )
    assert docs["scala:p.q.Pool.sorted"] == (
        "p.q.Pool.sorted(implicit ord: Ordering[B])\n\nWith its implicit list on the next line.\n\n"
        ":returns: `Pool[B]`\n\nType parameters: `[B >: T]`."
    )
    assert docs["scala:p.q.Pool.clear"] == "p.q.Pool.clear()\n\nProcedure syntax: no result."
    assert docs["scala:p.q.Pool.Key"] == (
        "p.q.Pool.Key\n\nA type over lines.\n\nDeclaration: `type Key = Map[String, Int]`"
    )
    assert docs["scala:p.q.Pool.Elem"].endswith("Declaration: `type Elem <: AnyRef`")
    assert docs["scala:p.q.Pool.last"] == "p.q.Pool.last\n\nAfter them all.\n\n:returns: `T`"
    assert docs["scala:p.q.Ops.::"] == (
        "p.q.Ops.::(x: B)\n\nPrepends.\n\n:returns: `List[B]`\n\nType parameters: `[B >: Int]`."
    )
    assert docs["scala:p.q.Ops.unary_!"] == "p.q.Ops.unary_!\n\nNegates.\n\n:returns: `Ops`"
    assert docs["scala:p.q.Ops.size_="] == "p.q.Ops.size_=(n: Int)\n\nSets the size."
    assert docs["scala:p.q.Ops.type"].startswith("p.q.Ops.type\n\nA keyword as a name.")
    assert docs["scala:p.q.Ops.fill"] == (
        "p.q.Ops.fill(xs: Int*)(f: => Int)\n\nMultiple lists, a by-name and a repeated parameter."
        "\n\n:param xs: the values\n:param f: how each is made\n:returns: `Seq[Int]`"
    )
    # @deprecated with named arguments and a message in pieces; @migration as Scaladoc
    # notes it; @throws annotations no tag describes; the annotation and the tag
    assert docs["scala:p.q.Annotated.old"] == (
        "p.q.Annotated.old()\n\nDeprecated with named arguments.\n\n"
        "Deprecated: Use newer (since 2.12.0)"
    )
    assert docs["scala:p.q.Annotated.keys"] == (
        "p.q.Annotated.keys\n\nChanged.\n\n:returns: the keys\n\n"
        "Note: (Changed in version 2.8.0) `keys` returns `Iterable[A]` rather than `Iterator[A]`."
    )
    assert docs["scala:p.q.Annotated.load"] == (
        "p.q.Annotated.load()\n\nReads.\n\n:raises java.io.IOException: when it cannot\n\n"
        "Throws: `IllegalStateException`."
    )
    assert docs["scala:p.q.Annotated.shut"] == (
        "p.q.Annotated.shut()\n\nDeprecated both ways.\n\n"
        "Deprecated: Use close (since 2.11.0) it leaks\n\nModifiers: `final`."
    )


def test_companions_and_overloads() -> None:
    """A class and its object are one document, the class first wherever the object
    stands; an object alone is its own; members of both of one name are overloads."""
    text = """package c

/** Makes boxes. */
object Box {

  /** A box of one value. */
  def apply(x: Int): Box = new Box(x)
}

/** A box.
 *
 *  @param x its value
 */
class Box(x: Int) {

  /** Its value again. */
  def apply(): Int = x
}

/** A class its object's doc does not join: the object has none. */
class Plain

object Plain {

  /** A member of an undocumented object. */
  val empty: Plain = new Plain
}

/** An object alone. */
object Lone
"""
    docs = read(text)
    assert sorted(docs) == [
        "scala:c.Box",
        "scala:c.Box.apply",
        "scala:c.Lone",
        "scala:c.Plain",
        "scala:c.Plain.empty",
    ]
    assert docs["scala:c.Box"] == (
        "c.Box(x: Int)\n\nA box.\n\n:param x: its value\n\nDeclaration: `class Box`\n\n"
        "c.Box\n\nMakes boxes.\n\nDeclaration: `object Box`"
    )
    assert docs["scala:c.Box.apply"] == (
        "c.Box.apply(x: Int)\n\nA box of one value.\n\n:returns: `Box`\n\n"
        "c.Box.apply()\n\nIts value again.\n\n:returns: `Int`"
    )
    assert docs["scala:c.Plain.empty"] == (
        "c.Plain.empty\n\nA member of an undocumented object.\n\nType: `Plain`"
    )
    assert docs["scala:c.Lone"] == "c.Lone\n\nAn object alone.\n\nDeclaration: `object Lone`"


def test_scala_3_bodies_without_braces_and_enums() -> None:
    """Scala 3: a body without braces is the lines indented deeper than its declaration
    (`end` closes one); an enum's cases, braced or not."""
    text = """package s3

/** A shape. */
trait Shape:

  /** Its area. */
  def area: Double

  /** Scaled.
   *
   *  @param k the factor
   */
  def scale(k: Double): Shape =
    /** A local def in a body without braces: no document. */
    def helper = k * 2
    this

end Shape

/** A circle. */
case class Circle(r: Double) extends Shape:

  /** Its area, computed. */
  def area: Double = math.Pi * r * r

/** At the top level. */
def top(x: Int): Int =
  /** Local: no document. */
  val y = x
  y

/** Colors. */
enum Color:
  /** Red. */
  case Red
  /** Green and blue. */
  case Green, Blue

/** Planets, with their mass.
 *
 *  @param mass in kilograms
 */
enum Planet(val mass: Double) {

  /** The third. */
  case Earth extends Planet(5.97e24)

  /** Its weight on it. */
  def weight(m: Double): Double = m * mass
}
"""
    docs = read(text)
    assert sorted(docs) == [
        "scala:s3.Circle",
        "scala:s3.Circle.area",
        "scala:s3.Color",
        "scala:s3.Color.Blue",
        "scala:s3.Color.Green",
        "scala:s3.Color.Red",
        "scala:s3.Planet",
        "scala:s3.Planet.Earth",
        "scala:s3.Planet.mass",
        "scala:s3.Planet.weight",
        "scala:s3.Shape",
        "scala:s3.Shape.area",
        "scala:s3.Shape.scale",
        "scala:s3.top",
    ]
    assert docs["scala:s3.Shape.scale"] == (
        "s3.Shape.scale(k: Double)\n\nScaled.\n\n:param k: the factor\n:returns: `Shape`"
    )
    assert docs["scala:s3.top"] == "s3.top(x: Int)\n\nAt the top level.\n\n:returns: `Int`"
    assert docs["scala:s3.Color.Blue"] == "s3.Color.Blue\n\nGreen and blue."
    assert docs["scala:s3.Planet"] == (
        "s3.Planet(mass: Double)\n\nPlanets, with their mass.\n\n:param mass: in kilograms\n\n"
        "Declaration: `enum Planet`"
    )
    assert docs["scala:s3.Planet.Earth"] == "s3.Planet.Earth\n\nThe third."


def test_an_odd_indentation_ends_no_member() -> None:
    """A declaration indented less than its neighbours (a body in braces, a one-line
    one) does not take them for its own lines."""
    text = """package o

object Kmp {
 /** Less indented, in braces. */
 def table(n: Int) = {
    Array(n)
  }

  /** Its neighbour. */
  def search(n: Int): Int = n
 /** Less indented, on one line. */
 def one = 1
  /** The last. */
  def last = 2
}
"""
    assert sorted(read(text)) == [
        "scala:o.Kmp.last",
        "scala:o.Kmp.one",
        "scala:o.Kmp.search",
        "scala:o.Kmp.table",
    ]


def test_test_and_generated_files_give_none_and_are_counted() -> None:
    paths = [
        "src/test/scala/p/A.scala",
        "test/p/A.scala",
        "tests/p/A.scala",
        "core/src/test/scala-2.13/p/A.scala",
        "src/main/scala/p/QueueTest.scala",
        "src/main/scala/p/QueueTests.scala",
        "src/main/scala/p/QueueSpec.scala",
        "src/main/scala/p/QueueSuite.scala",
    ]
    rejects = CollectResult()
    assert api_documents(files(dict.fromkeys(paths, DOC)), "local", rejects) == []
    assert rejects.rejects == {SCALA_TEST: len(paths)}
    generated = {
        "target/scala-2.13/src_managed/main/p/A.scala": DOC,
        "core/target/scala-2.12/p/B.scala": DOC,
        "src/main/scala/p/C.scala": "/* This file was generated by a tool. DO NOT EDIT. */\n" + DOC,
        "src/main/scala/p/D.scala": "// Automatically generated, do not modify\n" + DOC,
    }
    rejects = CollectResult()
    assert api_documents(files(generated), "local", rejects) == []
    assert rejects.rejects == {SCALA_GENERATED: 4}
    # a note further down, a package named target or testing under src/: read
    kept = {
        "src/main/scala/p/Testing.scala": DOC + "// generated below; do not edit by hand\n",
        "src/main/scala/acme/target/B.scala": DOC.replace("class T", "class U"),
        "src/main/scala/testing/C.scala": DOC.replace("class T", "class V"),
    }
    assert sorted(read_all(kept)) == ["scala:acme.T", "scala:acme.U", "scala:acme.V"]
    assert is_scala("Queue.scala") and is_scala("A.SCALA") and not is_scala("build.sbt")
    assert set(FIXES) == {SCALA_TEST, SCALA_GENERATED, SCALA_NO_API}
    assert all(
        fix.endswith("the source's scala: text reads them as text") for fix in FIXES.values()
    )


def test_the_first_file_in_path_order_keeps_a_name() -> None:
    one = "package p\n\n/** From a. */\nclass X\n"
    two = "package p\n\n/** From b. */\nclass X\n"
    docs = api_documents(files({"b/X.scala": two, "a/X.scala": one}), "local")
    assert [(d.uri, d.meta["origin"]) for d in docs] == [("scala:p.X", "/project/a/X.scala")]
    # no package: the root; an empty file and an undocumented one are counted
    assert read("/** No package. */\nobject Top\n", "Top.scala") == {
        "scala:Top": "Top\n\nNo package.\n\nDeclaration: `object Top`"
    }
    rejects = CollectResult()
    empty = {"p/Empty.scala": "", "p/Bare.scala": "package p\n\nclass Bare\n"}
    assert api_documents(files(empty), "local", rejects) == []
    assert rejects.rejects == {SCALA_NO_API: 2}


def test_any_text_scans_without_an_error() -> None:
    """Unterminated strings, interpolations, triple quotes, characters and nested
    comments, stray brackets: the scanner and the item reader end."""
    pieces = [
        "/** A doc [[x]] {{{ code @param a b */\n", "/* c /* d */", "*/", "// l\n",
        "package p\n", "package q {\n", "package object o ", "private ", "private[p] ",
        "protected ", "protected[this] ", "final ", "sealed ", "abstract ", "implicit ",
        "lazy ", "override ", "case ", "object ", "class ", "trait ", "def ", "val ", "var ",
        "type ", "this", "extends ", "with ", "new ", "A ", "b ", "(", ")", "{", "}", "[",
        "]", "=>", "=", ":", "::", "++=", ",", ";", ".", "\n", " ", '"', '"""', 's"', 'f"""',
        "${", "$$", "$", "'", "'a'", "'\\''", "'sym ", "`", "`x`", "/*", "/**", "\\",
        "@deprecated(\"m\", \"1\") ", "@throws(classOf[E]) ", "@inline ", "Int", "_",
        "/** Doc. */\nclass C(val a: Int) {\n", "/** M. */ def m(a: Int)(b: Int): Int = a\n",
        "/** V. */ final val V = 1\n", "/** T. */ type T = Int\n", "/** O. */ object O {\n",
        "/** D. */ def this(x: Int) = this()\n", "/** E. */ val A, B = Value\n",
    ]  # fmt: skip

    def read_one(text: str) -> list[Document]:
        return api_documents(files({"p/A.scala": text}), "local")

    assert fuzzed(read_one, pieces, "scala:") > 0  # some random texts document something


def test_an_sbt_projects_scala_is_read_as_its_api(tmp_path: Path) -> None:
    tree = {
        "build.sbt": 'name := "spool"\n',
        "src/main/scala/acme/Spool.scala": (
            "package acme\n\n/** Winds thread.\n  * @param turns how many turns\n  */\n"
            "class Reel(turns: Int)\n"
        ),
        "src/test/scala/acme/ReelSpec.scala": "package acme\n\n/** A test. */\nclass ReelSpec\n",
    }
    write_tree(tmp_path / "p", tree)
    entry = source_entry(str(tmp_path / "p"))
    assert "*.scala" in entry["include"]  # type: ignore[operator]
    docs, rejects = collect_tree(tmp_path, tree, list(entry["include"]))  # type: ignore[call-overload]
    assert [u for u in docs if u.startswith("scala:")] == ["scala:acme.Reel"]
    assert dict(rejects.rejects)["scala_test"] == 1
    whole, _ = collect_tree(tmp_path / "t", tree, ["*.scala"], scala="text")
    assert not any(u.startswith("scala:") for u in whole)


def test_scala_parameters_are_every_list() -> None:
    got = parse.parameters("(z: B)(op: (B, A) => B)(implicit `ord`: Ordering[B])", "scala")
    assert [p.name for p in got] == ["z", "op", "ord"]
