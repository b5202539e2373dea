"""C# read as its assemblies' API, as its XML doc comments document it: source files
scanned, never compiled, each public or protected item with a `///` comment a document;
and the questions the generator then asks about it."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import ask, collect_tree, fuzzed, write_tree
from jupiter.collect import CollectResult
from jupiter.collect.csapi import (
    CSHARP_GENERATED,
    CSHARP_NO_API,
    CSHARP_TEST,
    FIXES,
    CsFile,
    api_documents,
    is_csharp,
    scan,
    xmldoc,
)
from jupiter.config.cli import source_entry
from jupiter.records import Document
from jupiter.synth import parse

QUEUE = r'''// Copyright 2024 Acme. Licensed under the MIT License.
using System;
using System.Collections.Generic;
using System.ComponentModel;

namespace Acme.Spool
{
    /// <summary>
    /// A queue of jobs kept in one folder.
    /// </summary>
    /// <remarks>
    /// <para>Opened with its constructor; see <see cref="T:Acme.Spool.Priority"/> for the
    /// order jobs run in and <see cref="M:Acme.Spool.Queue`1.Push(System.String,System.Int32)"/>
    /// to add one. Jobs are <b>never</b> lost &amp; never run&#160;twice.</para>
    /// <list type="bullet">
    ///   <item><description><c>Push</c> adds a job;</description></item>
    ///   <item><description><c>Drain</c> empties the queue.</description></item>
    /// </list>
    /// </remarks>
    /// <typeparam name="T">the type of the jobs' payloads</typeparam>
    /// <seealso cref="Job"/>
    /// <seealso href="https://acme.example/spool">the spool guide</seealso>
    [Serializable]
    public class Queue<T> : IEnumerable<T> where T : class
    {
        /// <summary>The most attempts a failing job gets.</summary>
        public const int MaxAttempts = 5;

        /// <summary>The folder the queue keeps its jobs in.</summary>
        protected readonly string dir;

        /// <summary>Private: no document.</summary>
        private int size;

        /// <summary>No modifier, so private: no document.</summary>
        int workers;

        /// <summary>Internal: no document.</summary>
        internal int Pending;

        /// <summary>Private protected: no document.</summary>
        private protected void Trim() { }

        /// <summary>
        /// Opens the queue in <paramref name="dir"/>.
        /// </summary>
        /// <param name="dir">the folder, created when missing</param>
        /// <exception cref="T:System.ArgumentException">if <paramref name="dir"/> is empty</exception>
        public Queue(string dir)
        {
            this.dir = dir;
            string brace = "}\"{"; char open = '{'; char quote = '\'';
            string verbatim = @"a ""}"" {";
            string interpolated = $"{(dir == null ? "}" : "")} {{ }}";
            string both = $@"{dir} "" {{ }";
            string raw = """
                a { raw " "" } string
                """;
            string rawInterpolated = $$"""{{dir}} { }""";
            // } in a comment
            /* { in another */
        }

        /// <summary>Adds a job at the end of the queue.</summary>
        /// <param name="name">the job's name</param>
        /// <returns>the job's position in the queue</returns>
        public int Push(string name) => Push(name, 0);

        /// <summary>
        /// Adds a job with a priority, as in:
        /// </summary>
        /// <param name="name">the job's name</param>
        /// <param name="priority">how soon it runs: <c>0</c> first</param>
        /// <returns>the job's position in the queue</returns>
        /// <exception cref="InvalidOperationException">if the queue is closed</exception>
        /// <example>
        /// <code>
        /// var q = new Queue&lt;string&gt;("/tmp/q");
        /// if (q.Push("mail", 2) > 10) {
        ///     q.Drain();
        /// }
        /// </code>
        /// </example>
        public virtual int Push([NotNull] string name, int priority = 0)
        {
            return 0;
        }

        /// <summary>Maps each job's payload with <paramref name="fn"/>.</summary>
        /// <param name="fn">the function applied</param>
        /// <typeparam name="TResult">the type of the results</typeparam>
        /// <returns>the results, in queue order</returns>
        public IList<TResult> Map<TResult>(Func<T, TResult> fn) where TResult : new()
        {
            /// <summary>A local function: no document.</summary>
            void Local() { }
            return null;
        }

        /// <inheritdoc/>
        public IEnumerator<T> GetEnumerator() { return null; }

        /// <summary>An explicit interface implementation: no document.</summary>
        System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => null;

        /// <summary>How many jobs wait.</summary>
        /// <value>the number of jobs, <c>0</c> when empty</value>
        public int Count { get; private set; }

        /// <summary>The queue's name.</summary>
        public string Name => dir;

        /// <summary>When it was opened.</summary>
        public DateTime Opened { get; init; } = DateTime.Now;

        /// <summary>A job's payload by its position.</summary>
        /// <param name="index">the job's position</param>
        public T this[int index] { get { return null; } set { } }

        /// <summary>Raised when a job is done.</summary>
        public event EventHandler<string> Done;

        /// <summary>Joins two queues.</summary>
        /// <param name="a">the first</param>
        /// <param name="b">the second</param>
        public static Queue<T> operator +(Queue<T> a, Queue<T> b) => a;

        /// <summary>Whether two queues share a folder.</summary>
        public static bool operator ==(Queue<T> a, Queue<T> b) { return a.dir == b.dir; }

        /// <summary>Whether two queues keep different folders.</summary>
        public static bool operator !=(Queue<T> a, Queue<T> b) { return !(a == b); }

        /// <summary>The queue's folder.</summary>
        public static implicit operator string(Queue<T> q) => q.dir;

        /// <summary>Drains the queue.</summary>
        [Obsolete("Use Clear() instead.")]
        protected internal void Drain() { }

        /// <summary>Hidden from completion lists: no document.</summary>
        [EditorBrowsable(EditorBrowsableState.Never)]
        public void Compact() { }

        /// <summary>Excluded: no document.</summary>
        /// <exclude/>
        public void Secret() { }

        /// <summary>
        /// Listens to a queue's jobs.
        /// </summary>
        public interface IListener
        {
            /// <summary>Called when a job is done.</summary>
            /// <param name="name">the job's name</param>
            /// <param name="ok">whether it succeeded</param>
            void Finished(string name, bool ok);

            /// <summary>A private interface member: no document.</summary>
            private void Helper() { }
        }

        /// <summary>A private nested class: no document.</summary>
        private class Slot
        {
            /// <summary>Public in a private class: no document.</summary>
            public int Index;
        }
    }
}
'''
PRIORITY = """namespace Acme.Spool;

using System;

/// <summary>How soon a job runs.</summary>
public enum Priority : byte
{
    /// <summary>Runs when nothing else waits.</summary>
    Low,

    /// <summary>Runs first.</summary>
    [Obsolete]
    High = 1 << 2,

    Undocumented,
}

/// <summary>A job: its name and what it carries.</summary>
/// <param name="Name">the job's name</param>
/// <param name="Payload">what it carries</param>
public record Job(string Name, byte[] Payload);

/// <summary>A job's place on disk.</summary>
public readonly record struct Slot(int Index);

/// <summary>Decides whether a job runs now.</summary>
/// <param name="job">the job</param>
/// <returns><see langword="true"/> to run it</returns>
public delegate bool Gate(Job job);

/// <summary>An internal type: no document.</summary>
internal class Cache
{
    /// <summary>No document either.</summary>
    public void Clear() { }
}

/// <summary>A type without a modifier is internal: no document.</summary>
class Helper { }
"""
DISK = """namespace Acme
{
    namespace Spool.Disk
    {
        /// <summary>Where the jobs lie.</summary>
        public static class Folder
        {
            /// <summary>The folder's default path.</summary>
            public static readonly string Default = "/var/spool";

            /// <summary>A nested type.</summary>
            public sealed class Lock
            {
                /// <summary>Takes the lock, waiting at most <paramref name="seconds"/>.</summary>
                /// <param name="seconds">how long to wait</param>
                protected virtual void Take(double seconds) { }
            }
        }
    }
}
"""
DOCUMENTED = "namespace Acme.Spool;\n\n/// <summary>Doc.</summary>\npublic class {name} {{ }}\n"
TREE = {
    "src/Acme.Spool/Queue.cs": QUEUE,
    "src/Acme.Spool/Priority.cs": PRIORITY,
    "src/Acme.Spool/Disk/Folder.cs": DISK,
    # named like a test, but without a test attribute: an API's own class
    "src/Acme.Spool/Test.cs": DOCUMENTED.format(name="Test"),
    "src/Acme.Spool/Internal.cs": "namespace Acme.Spool;\n\n/// <summary>Doc.</summary>\ninternal class Internal { }\n",
    "src/Acme.Spool/Properties/Resources.Designer.cs": DOCUMENTED.format(name="Resources"),
    "src/Acme.Spool/Properties/AssemblyInfo.cs": '[assembly: AssemblyTitle("Acme.Spool")]\n',
    "src/Acme.Spool/Parser.cs": "// <auto-generated>\n//     This code was generated by a tool.\n// </auto-generated>\n"
    + DOCUMENTED.format(name="Parser"),
    "src/Acme.Spool/Proxy.cs": 'namespace Acme.Spool;\n\n/// <summary>Doc.</summary>\n[System.CodeDom.Compiler.GeneratedCode("svcutil", "4.0")]\npublic class Proxy { }\n',
    "tests/Acme.Spool.Tests/QueueTests.cs": DOCUMENTED.format(name="QueueTests"),
}
EXPECTED = [
    "csharp:Acme.Spool.Disk.Folder",
    "csharp:Acme.Spool.Disk.Folder.Default",
    "csharp:Acme.Spool.Disk.Folder.Lock",
    "csharp:Acme.Spool.Disk.Folder.Lock.Take",
    "csharp:Acme.Spool.Gate",
    "csharp:Acme.Spool.Job",
    "csharp:Acme.Spool.Priority",
    "csharp:Acme.Spool.Priority.High",
    "csharp:Acme.Spool.Priority.Low",
    "csharp:Acme.Spool.Queue",
    "csharp:Acme.Spool.Queue.Count",
    "csharp:Acme.Spool.Queue.Done",
    "csharp:Acme.Spool.Queue.Drain",
    "csharp:Acme.Spool.Queue.IListener",
    "csharp:Acme.Spool.Queue.IListener.Finished",
    "csharp:Acme.Spool.Queue.Item",
    "csharp:Acme.Spool.Queue.Map",
    "csharp:Acme.Spool.Queue.MaxAttempts",
    "csharp:Acme.Spool.Queue.Name",
    "csharp:Acme.Spool.Queue.Opened",
    "csharp:Acme.Spool.Queue.Push",
    "csharp:Acme.Spool.Queue.Queue",
    "csharp:Acme.Spool.Queue.dir",
    "csharp:Acme.Spool.Queue.implicit operator string",
    "csharp:Acme.Spool.Queue.operator !=",
    "csharp:Acme.Spool.Queue.operator +",
    "csharp:Acme.Spool.Queue.operator ==",
    "csharp:Acme.Spool.Slot",
    "csharp:Acme.Spool.Test",
]
REJECTS = {CSHARP_GENERATED: 4, CSHARP_NO_API: 1, CSHARP_TEST: 1}


def files(tree: dict[str, str]) -> list[CsFile]:
    return [CsFile(P(rel), f"/repo/{rel}", text) for rel, text in tree.items()]


def project() -> tuple[dict[str, Document], CollectResult]:
    rejects = CollectResult()
    docs = api_documents(files(TREE), "local", rejects)
    return {d.uri: d for d in docs}, rejects


def test_a_project_becomes_its_documented_public_api() -> None:
    api, rejects = project()
    assert sorted(api) == EXPECTED
    assert rejects.rejects == REJECTS
    text = {uri.removeprefix("csharp:Acme.Spool."): d.text for uri, d in api.items()}
    # XML to text: a paragraph, bold and entities, a list, <c>, crefs as their short name
    # (a type's last component, a member's last two, a generic's arity out), <seealso>
    assert text["Queue"] == (
        "Acme.Spool.Queue\n\nA queue of jobs kept in one folder.\n\n"
        "Opened with its constructor; see `Priority` for the order jobs run in and "
        "`Queue.Push` to add one. Jobs are **never** lost & never run twice.\n\n"
        "- `Push` adds a job;\n- `Drain` empties the queue.\n\n"
        "Type parameter T: the type of the jobs' payloads\n\n"
        "Declaration: `public class Queue<T> : IEnumerable<T> where T : class`\n\n"
        "See also: `Job`, the spool guide"
    )
    # overloads are one document: the first's signature heads it, the second follows with
    # its own; a <code> example keeps its lines and indentation (its braces balanced);
    # attributes are out of the parameters, defaults in
    assert text["Queue.Push"] == (
        "Acme.Spool.Queue.Push(string name)\n\n"
        "Adds a job at the end of the queue.\n\n"
        ":param name: the job's name\n:returns: the job's position in the queue\n\n"
        "Acme.Spool.Queue.Push(string name, int priority = 0)\n\n"
        "Adds a job with a priority, as in:\n\n"
        ":param name: the job's name\n:param priority: how soon it runs: `0` first\n"
        ":returns: the job's position in the queue\n"
        ":raises InvalidOperationException: if the queue is closed\n\n"
        "Modifiers: `virtual`.\n\n"
        'Example:\n\n```csharp\nvar q = new Queue<string>("/tmp/q");\n'
        'if (q.Push("mail", 2) > 10) {\n    q.Drain();\n}\n```'
    )
    # braces in regular, verbatim, interpolated and raw strings, chars and comments end no
    # constructor; an exception's cref as its type's name
    assert text["Queue.Queue"] == (
        "Acme.Spool.Queue.Queue(string dir)\n\nOpens the queue in `dir`.\n\n"
        ":param dir: the folder, created when missing\n"
        ":raises ArgumentException: if `dir` is empty"
    )
    # a generic method: its arity out of the name, its type parameters after the fields
    assert text["Queue.Map"] == (
        "Acme.Spool.Queue.Map(Func<T, TResult> fn)\n\n"
        "Maps each job's payload with `fn`.\n\n"
        ":param fn: the function applied\n:returns: the results, in queue order\n\n"
        "Type parameter TResult: the type of the results\n\n"
        "Type parameters: `<TResult> where TResult : new()`."
    )
    assert text["Queue.Count"] == (
        "Acme.Spool.Queue.Count\n\nHow many jobs wait.\n\n"
        "Value: the number of jobs, `0` when empty\n\nType: `int`\n\n"
        "Accessors: `get; private set`"
    )
    assert text["Queue.Name"].endswith("Type: `string`\n\nAccessors: `get`")
    assert text["Queue.Opened"].endswith("Type: `DateTime`\n\nAccessors: `get; init`")
    assert text["Queue.Item"] == (
        "Acme.Spool.Queue.Item(int index)\n\nA job's payload by its position.\n\n"
        ":param index: the job's position\n\nType: `T`\n\nAccessors: `get; set`"
    )
    assert text["Queue.Done"] == (
        "Acme.Spool.Queue.Done\n\nRaised when a job is done.\n\nType: `EventHandler<string>`"
    )
    assert text["Queue.MaxAttempts"] == (
        "Acme.Spool.Queue.MaxAttempts\n\nThe most attempts a failing job gets.\n\n"
        "Type: `int`\n\nValue: `5`\n\nModifiers: `const`."
    )
    assert text["Queue.dir"].endswith("Type: `string`\n\nModifiers: `protected readonly`.")
    assert text["Queue.operator +"] == (
        "Acme.Spool.Queue.operator +(Queue<T> a, Queue<T> b)\n\nJoins two queues.\n\n"
        ":param a: the first\n:param b: the second\n:returns: `Queue<T>`\n\n"
        "Modifiers: `static`."
    )
    # `==` in an operator's name starts no initializer: its body ends it, `!=` follows
    assert text["Queue.operator =="].startswith(
        "Acme.Spool.Queue.operator ==(Queue<T> a, Queue<T> b)\n\nWhether two queues share"
    )
    assert text["Queue.operator !="].startswith("Acme.Spool.Queue.operator !=(Queue<T> a")
    assert text["Queue.implicit operator string"] == (
        "Acme.Spool.Queue.implicit operator string(Queue<T> q)\n\nThe queue's folder.\n\n"
        ":returns: `string`\n\nModifiers: `static`."
    )
    assert text["Queue.Drain"] == (
        "Acme.Spool.Queue.Drain()\n\nDrains the queue.\n\nDeprecated: Use Clear() instead.\n\n"
        "Modifiers: `protected internal`."
    )
    # an interface's members are public without the keyword; void: no :returns:
    assert text["Queue.IListener.Finished"] == (
        "Acme.Spool.Queue.IListener.Finished(string name, bool ok)\n\n"
        "Called when a job is done.\n\n"
        ":param name: the job's name\n:param ok: whether it succeeded"
    )
    # a file-scoped namespace; an enum's members, [Obsolete] without a message
    assert text["Priority"] == (
        "Acme.Spool.Priority\n\nHow soon a job runs.\n\nDeclaration: `public enum Priority : byte`"
    )
    assert text["Priority.High"] == (
        "Acme.Spool.Priority.High\n\nRuns first.\n\nDeprecated.\n\nValue: `1 << 2`"
    )
    assert text["Priority.Low"] == "Acme.Spool.Priority.Low\n\nRuns when nothing else waits."
    # a record's parameters head it; a delegate is a signature
    assert text["Job"] == (
        "Acme.Spool.Job(string Name, byte[] Payload)\n\n"
        "A job: its name and what it carries.\n\n"
        ":param Name: the job's name\n:param Payload: what it carries\n\n"
        "Declaration: `public record Job(string Name, byte[] Payload)`"
    )
    assert text["Slot"].endswith("Declaration: `public readonly record struct Slot(int Index)`")
    assert text["Gate"] == (
        "Acme.Spool.Gate(Job job)\n\nDecides whether a job runs now.\n\n"
        ":param job: the job\n:returns: `true` to run it\n\n"
        "Declaration: `public delegate bool Gate(Job job)`"
    )
    # nested namespaces and a nested type's members named through it
    assert text["Disk.Folder.Lock.Take"] == (
        "Acme.Spool.Disk.Folder.Lock.Take(double seconds)\n\n"
        "Takes the lock, waiting at most `seconds`.\n\n"
        ":param seconds: how long to wait\n\nModifiers: `protected virtual`."
    )
    assert text["Disk.Folder.Default"] == (
        "Acme.Spool.Disk.Folder.Default\n\nThe folder's default path.\n\n"
        "Type: `string`\n\nModifiers: `static readonly`."
    )
    meta = api["csharp:Acme.Spool.Queue.Push"].meta
    assert meta == {
        "kind": "method",
        "qualname": "Acme.Spool.Queue.Push",
        "language": "csharp",
        "signature": "(string name)",
        "origin": "/repo/src/Acme.Spool/Queue.cs",
        "line": 67,
    }
    kinds = {uri.removeprefix("csharp:Acme.Spool."): d.meta["kind"] for uri, d in api.items()}
    assert kinds == {
        "Disk.Folder": "class",
        "Disk.Folder.Default": "field",
        "Disk.Folder.Lock": "class",
        "Disk.Folder.Lock.Take": "method",
        "Gate": "delegate",
        "Job": "record",
        "Priority": "enum",
        "Priority.High": "enum_member",
        "Priority.Low": "enum_member",
        "Queue": "class",
        "Queue.Count": "property",
        "Queue.Done": "event",
        "Queue.Drain": "method",
        "Queue.IListener": "interface",
        "Queue.IListener.Finished": "method",
        "Queue.Item": "indexer",
        "Queue.Map": "method",
        "Queue.MaxAttempts": "constant",
        "Queue.Name": "property",
        "Queue.Opened": "property",
        "Queue.Push": "method",
        "Queue.Queue": "constructor",
        "Queue.dir": "field",
        "Queue.implicit operator string": "operator",
        "Queue.operator !=": "operator",
        "Queue.operator +": "operator",
        "Queue.operator ==": "operator",
        "Slot": "record struct",
        "Test": "class",
    }
    assert {d.meta["language"] for d in api.values()} == {"csharp"}


def test_private_hidden_inherited_and_inner_items_give_no_document() -> None:
    api, _ = project()
    left_out = [
        "Queue.size",  # private
        "Queue.workers",  # no modifier: private
        "Queue.Pending",  # internal
        "Queue.Trim",  # private protected
        "Queue.Local",  # a local function, inside a method's body
        "Queue.GetEnumerator",  # only <inheritdoc/>; the other an explicit implementation
        "Queue.Compact",  # [EditorBrowsable(EditorBrowsableState.Never)]
        "Queue.Secret",  # <exclude/>
        "Queue.IListener.Helper",  # a private interface member
        "Queue.Slot",  # a private nested class
        "Queue.Slot.Index",  # and its public field
        "Cache",  # internal
        "Cache.Clear",
        "Helper",  # a type without a modifier: internal
        "Priority.Undocumented",
        "Internal",
    ]
    assert not [x for x in left_out if f"csharp:Acme.Spool.{x}" in api]
    assert "csharp:Acme.Spool.Queue.Push" in api  # the names are right: some are there


def test_questions_about_a_csharp_api() -> None:
    # the generator reads csharp: documents as an API whose parameters are written "Type name"
    assert "csharp:" in parse.API_PREFIXES and "csharp" in parse.TYPE_FIRST
    api, _ = project()
    push = ask(api["csharp:Acme.Spool.Queue.Push"])
    assert push == {
        "what_does": "Adds a job at the end of the queue.",
        "signature": "`Acme.Spool.Queue.Push(string name)`",
        "returns": "the job's position in the queue",
        "arguments": (
            "`Acme.Spool.Queue.Push` takes 1 argument: string name.\n\n- name: the job's name"
        ),
    }
    # the type parameters' paragraph leaves the fields whole: :returns: is read
    map_ = ask(api["csharp:Acme.Spool.Queue.Map"])
    assert map_["returns"] == "the results, in queue order"
    assert map_["arguments"] == (
        "`Acme.Spool.Queue.Map` takes 1 argument: Func<T, TResult> fn.\n\n"
        "- fn: the function applied"
    )
    finished = ask(api["csharp:Acme.Spool.Queue.IListener.Finished"])
    assert finished["arguments"] == (
        "`Acme.Spool.Queue.IListener.Finished` takes 2 arguments: string name, bool ok.\n\n"
        "- name: the job's name\n- ok: whether it succeeded"
    )
    # a type is no module: its name line is not read as its text
    queue = ask(api["csharp:Acme.Spool.Queue"])
    assert queue == {"what_does": "A queue of jobs kept in one folder."}


def test_xml_doc_tags_become_text() -> None:
    body = """
     <summary>
     Formats a value, as <c>string.Format("{0}", v)</c> would, and <code>x &lt; y</code>
     inline; <paramref name="v"/> and <typeparamref name="T"/> are named.
     Links: <see cref="T:System.Collections.Generic.List`1"/>,
     <see cref="M:Acme.Spool.Queue`1.Push(System.String)"/>,
     <see cref="P:Acme.Spool.Queue`1.Count"/>, <see cref="F:Acme.Spool.Queue`1.dir"/>,
     <see cref="E:Acme.Spool.Queue`1.Done"/>, <see cref="N:Acme.Spool"/>,
     <see cref="Acme.Spool.Disk.Folder.Default"/>, <see cref="IList{T}.Add(T)"/>,
     <see cref="Queue{T}.#ctor(string)"/>, <see langword="null"/>,
     <see href="https://acme.example/">the site</see>, <see href="https://acme.example/x"/>
     and a List<int> that is no markup.<br/>A new line; <i>leaning</i>, <em>stressed</em>,
     <strong>strong</strong>. <!-- a comment, not shown -->
     <para>A second paragraph with <![CDATA[<raw> & text]]>.</para>
     <list type="number">
       <item><description>first</description></item>
       <item><description>second</description></item>
     </list>
     <list type="table">
       <listheader><term>Name</term><description>Meaning</description></listheader>
       <item><term>a</term><description>the first</description></item>
       <item><term>b</term><description>the second</description></item>
     </list>
     <note type="caution">Mind the gap.</note>
     </summary>
     <remarks>
     Remarks come second.

     A blank line breaks a paragraph too.
     </remarks>
     <param name="v">the value</param>
     <param name="empty"></param>
     <typeparam name="T">the value's type</typeparam>
     <returns>
     <list type="bullet">
     <item><term>If it fits</term><description>the text.</description></item>
     <item><term>otherwise</term><description><see langword="null"/></description></item>
     </list>
     </returns>
     <value>what it holds</value>
     <exception cref="T:System.FormatException">when <paramref name="v"/> is bad</exception>
     <exception cref="System.IO.IOException"/>
     <seealso cref="M:System.String.Format(System.String,System.Object)"/>
     <seealso href="https://acme.example/guide">the guide</seealso>
     <example>
     Format a number:
     <code language="csharp">
     var s = Formatter.Format(42);
     if (s != null) {
         Console.WriteLine(s);
     }
     </code>
     </example>
     <example>
     [Test]
     public void Formats() {
         Assert.AreEqual("42", Formatter.Format(42));
     }
     </example>
     <inheritdoc/>
    """
    doc = xmldoc(body, frozenset({"System", "Acme", "Acme.Spool", "Acme.Spool.Disk"}))
    assert doc.summary == (
        'Formats a value, as `string.Format("{0}", v)` would, and `x < y` inline; `v` and `T` '
        "are named. Links: `List`, `Queue.Push`, `Queue.Count`, `Queue.dir`, `Queue.Done`, "
        "`Acme.Spool`, `Folder.Default`, `IList.Add`, `Queue.Queue`, `null`, the site, "
        "https://acme.example/x and a List<int> that is no markup.\n"
        "A new line; *leaning*, *stressed*, **strong**.\n\n"
        "A second paragraph with <raw> & text.\n\n"
        "1. first\n2. second\n\n- a: the first\n- b: the second\n\nNote: Mind the gap."
    )
    assert doc.remarks == "Remarks come second.\n\nA blank line breaks a paragraph too."
    assert doc.params == [("v", "the value"), ("empty", "")]
    assert doc.typeparams == [("T", "the value's type")]
    assert doc.returns == "If it fits: the text. otherwise: `null`"  # a list on one line
    assert doc.value == "what it holds"
    assert doc.exceptions == [("FormatException", "when `v` is bad"), ("IOException", "")]
    assert doc.see == ["`String.Format`", "the guide"]
    assert doc.examples == [
        "Format a number:\n\n```csharp\nvar s = Formatter.Format(42);\nif (s != null) {\n"
        "    Console.WriteLine(s);\n}\n```",
        # code written without <code>: fenced all the same
        '```csharp\n[Test]\npublic void Formats() {\n    Assert.AreEqual("42", '
        "Formatter.Format(42));\n}\n```",
    ]
    assert doc.documented() and not doc.exclude
    # only <inheritdoc/>, or only empty tags: nothing said
    assert not xmldoc(" <inheritdoc/>").documented()
    assert not xmldoc(' <summary> </summary>\n <param name="a"/>').documented()
    assert xmldoc(" <summary>Gone.</summary>\n <exclude/>").exclude
    # text without <summary> is the summary; broken XML read leniently
    assert xmldoc("   Just text, no summary tag.\n   On two lines.").summary == (
        "Just text, no summary tag. On two lines."
    )
    lenient = xmldoc(
        " <summary>Unclosed <b>bold and <c>code\n </summary>\n <param name=x>y</param> </stray>"
    )
    assert (lenient.summary, lenient.params) == ("Unclosed **bold and `code`**", [("x", "y")])


MODERN = """namespace Acme.Modern;

/// <summary>A service with a primary constructor.</summary>
/// <param name="logger">where it logs</param>
public sealed class Service(ILogger logger) : IService
{
    /// <summary>A pair.</summary>
    public (int Count, string Name) Pair() => (1, "a");

    /// <summary>Maybe a name.</summary>
    public string? Name { get; set; }

    /// <summary>Required.</summary>
    public required string Id { get; init; }

    /// <summary>A kind by switch.</summary>
    public string Kind => Count switch { 1 => "one", _ => "{many}" };

    /// <summary>A lambda with a block.</summary>
    public Func<int, int> F = x => { return x + 1; };

    /// <summary>Options with an initializer.</summary>
    public Options Opts { get; } = new Options { A = 1, B = { 2 } };

    /// <summary>A collection expression.</summary>
    public static int[] Defaults = [1, 2, 3];

    /// <summary>Runs it.</summary>
    /// <param name="ct">cancels it</param>
    [return: NotNull]
    public static async Task<int> RunAsync(CancellationToken ct = default) { return 0; }

    /// <summary>With accessors.</summary>
    public event EventHandler Changed { add { } remove { } }

    /// <summary>Compares.</summary>
    public static bool operator >=(Service a, Service b) => true;

    /// <summary>Converts explicitly.</summary>
    public static explicit operator Service(string s) => null;

    /// <summary>An attribute on the line.</summary>
    [Fact] public void Inline() { }

    /// <summary>Generic with two constraints.</summary>
    public T Make<T, U>(U u) where T : class, new() where U : struct => new T();
}

/// <summary>A math interface.</summary>
public interface IAdd<TSelf> where TSelf : IAdd<TSelf>
{
    /// <summary>Adds.</summary>
    static abstract TSelf operator +(TSelf a, TSelf b);

    /// <summary>A default method.</summary>
    void Log(string m) { Console.WriteLine(m); }

    /// <summary>Internal: no document.</summary>
    internal void Hidden();
}

/// <summary>Extensions.</summary>
public static class Ext
{
    /// <summary>Doubles a text.</summary>
    public static string Twice(this string s) => s + s;
}
"""


def test_newer_declarations_read_as_the_rest() -> None:
    """Tuples, nullable and `required` members, `init`, a primary constructor, bodies that
    are switch expressions or lambdas with braces, initializers with braces, event
    accessors, static abstract interface members, extension methods."""
    docs = api_documents(files({"src/Modern.cs": MODERN}), "local")
    text = {d.uri.removeprefix("csharp:Acme.Modern."): d.text for d in docs}
    assert sorted(text) == [
        "Ext",
        "Ext.Twice",
        "IAdd",
        "IAdd.Log",
        "IAdd.operator +",
        "Service",
        "Service.Changed",
        "Service.Defaults",
        "Service.F",
        "Service.Id",
        "Service.Inline",
        "Service.Kind",
        "Service.Make",
        "Service.Name",
        "Service.Opts",
        "Service.Pair",
        "Service.RunAsync",
        "Service.explicit operator Service",
        "Service.operator >=",
    ]
    assert text["Service"] == (
        "Acme.Modern.Service(ILogger logger)\n\nA service with a primary constructor.\n\n"
        ":param logger: where it logs\n\n"
        "Declaration: `public sealed class Service(ILogger logger) : IService`"
    )
    assert text["Service.Pair"].endswith(":returns: `(int Count, string Name)`")
    assert text["Service.Name"].endswith("Type: `string?`\n\nAccessors: `get; set`")
    assert text["Service.Id"].endswith(
        "Type: `string`\n\nAccessors: `get; init`\n\nModifiers: `required`."
    )
    assert text["Service.Kind"].endswith("Type: `string`\n\nAccessors: `get`")
    assert text["Service.RunAsync"] == (
        "Acme.Modern.Service.RunAsync(CancellationToken ct = default)\n\nRuns it.\n\n"
        ":param ct: cancels it\n:returns: `Task<int>`\n\nModifiers: `static async`."
    )
    assert text["Service.Make"] == (
        "Acme.Modern.Service.Make(U u)\n\nGeneric with two constraints.\n\n:returns: `T`\n\n"
        "Type parameters: `<T, U> where T : class, new() where U : struct`."
    )
    assert text["IAdd.operator +"].endswith(":returns: `TSelf`\n\nModifiers: `static`.")
    assert text["Ext.Twice"].startswith("Acme.Modern.Ext.Twice(this string s)\n\n")


def test_if_branches_are_read_once_where_they_are_alternatives() -> None:
    text = """namespace Acme.Spool
{
#region Agents
    /// <summary>An agent that runs jobs.</summary>
#if NET8_0
    public class Agent : IDisposable {
#else
    public class Agent {
#endif
        /// <summary>Creates an agent in a domain.</summary>
        /// <param name="domain">where it runs</param>
        public static Agent Create(string domain)
        {
#if NET8_0
            var handle = Activator.CreateInstance(
                domain,
#else
            var handle = Legacy.CreateInstance(
#endif
                typeof(Agent).FullName, false);
            return null;
        }

#if DEBUG
        /// <summary>Stops the agent.</summary>
        public void Stop() { }
#else
        /// <summary>Stops the agent.</summary>
        public void Stop() { }
#endif

        /// <summary>Whether it runs.</summary>
        public bool Running { get; }
    }
#endregion
}
"""
    docs = {d.uri: d.text for d in api_documents(files({"Agent.cs": text}), "local")}
    assert sorted(docs) == [
        "csharp:Acme.Spool.Agent",
        "csharp:Acme.Spool.Agent.Create",
        "csharp:Acme.Spool.Agent.Running",
        "csharp:Acme.Spool.Agent.Stop",
    ]
    # the class's two headers: the first branch's; both `Stop`s balance, are read, and
    # the second is no overload of the first
    assert docs["csharp:Acme.Spool.Agent"].endswith(
        "Declaration: `public class Agent : IDisposable`"
    )
    assert docs["csharp:Acme.Spool.Agent.Stop"] == "Acme.Spool.Agent.Stop()\n\nStops the agent."


def test_a_stray_bracket_costs_no_block_its_end() -> None:
    text = """namespace N {
/// <summary>Half written.</summary>
public class A {
    /// <summary>Broken.</summary>
    public void F() { G(( ; }

    /// <summary>After it.</summary>
    public void H() { }
}
}
"""
    docs = api_documents(files({"A.cs": text}), "local")
    assert [d.uri for d in docs] == ["csharp:N.A", "csharp:N.A.F", "csharp:N.A.H"]


def test_a_partial_type_is_public_when_one_part_says_so() -> None:
    public = "namespace N;\n\n/// <summary>A form.</summary>\npublic partial class Form { }\n"
    parts = """namespace N;

partial class Form
{
    /// <summary>Shows it.</summary>
    public void Show() { }
}

partial class Hidden
{
    /// <summary>Never public.</summary>
    public void Show() { }
}
"""
    tree = {"Form.Parts.cs": parts, "Form.cs": public}
    docs = api_documents(files(tree), "local")
    assert [(d.uri, d.meta["origin"]) for d in docs] == [
        ("csharp:N.Form", "/repo/Form.cs"),
        ("csharp:N.Form.Show", "/repo/Form.Parts.cs"),
    ]
    rejects = CollectResult()
    assert api_documents(files({"Form.Parts.cs": parts}), "local", rejects) == []
    assert rejects.rejects == {CSHARP_NO_API: 1}


def test_the_scanner_tells_literals_and_comments_from_code() -> None:
    text = (
        'class A { string s = "}\\"{"; char c = \'{\'; char q = \'\\\'\'; string v = @"a ""}"" {";\n'
        '  string i = $"{(x ? "}" : "")} {{ }}"; string r = """\n    { " "" }\n    """;\n'
        '  string ri = $$"""{{x}} { }"""; string vi = @$"{x} "" {{";\n'
        '  string p = @"C:\\" + "}"; string m = @"a ""\n  }"" b";\n'
        "#region { a region's name\n"
        "  // } in a comment\n  /* { */ /// <summary>{</summary>\n  /// more\n  int x; }"
    )
    code, bare, comments = scan(text)
    assert len(code) == len(bare) == len(text)
    assert code.count("{") == 1 and code.count("}") == 1  # only the class body's own
    assert [c.doc for c in comments] == [False, False, True]
    assert comments[-1].text == " <summary>{</summary>\n more"  # a run of /// lines: one
    assert '"}\\"{"' in bare and '@"a ""}"" {"' in bare  # literals kept in the text
    assert "/*" not in bare and "#region" not in bare  # comments, directives blanked


def test_tests_and_generated_files_are_told_by_path_and_content() -> None:
    doc = "namespace N;\n\n/// <summary>Doc.</summary>\npublic class T { }\n"
    fixture = "namespace N;\n\n/// <summary>Doc.</summary>\n[TestFixture]\npublic class T { }\n"
    tree = {
        "test/N/T.cs": doc,
        "src/Acme.Tests/T.cs": doc,
        "src/Acme.UnitTests/T.cs": doc,
        "src/Acme.Test/T.cs": doc,
        "src/tests-net45/T.cs": doc,
        "src/FitTests/T.cs": doc,
        "src/N/QueueTests.cs": doc,
        "src/N/QueueTest.cs": fixture,
        "src/N/DatabaseFixture.cs": fixture.replace("[TestFixture]", "[Fact]"),
        "src/N/Form.designer.cs": doc,
        "src/N/Model.g.cs": doc,
        "src/N/Model.g.i.cs": doc,
        "src/N/Gen.cs": "// <autogenerated />\n" + doc,
    }
    rejects = CollectResult()
    assert api_documents(files(tree), "local", rejects) == []
    assert rejects.rejects == {CSHARP_TEST: 9, CSHARP_GENERATED: 4}
    # a test's name without a test attribute, a word that only holds "test": the API's
    kept = {
        "src/N/Test.cs": doc,
        "src/N/TestFixture.cs": doc,
        "src/Latest/T.cs": doc.replace("class T", "class L"),
    }
    assert [d.uri for d in api_documents(files(kept), "local")] == ["csharp:N.L", "csharp:N.T"]


def test_the_first_file_in_path_order_keeps_a_name() -> None:
    one = "namespace P;\n\n/// <summary>From a.</summary>\npublic class X { }\n"
    two = "namespace P;\n\n/// <summary>From b.</summary>\npublic class X { }\n"
    docs = api_documents(files({"b/X.cs": two, "a/X.cs": one}), "local")
    assert [(d.uri, d.meta["origin"]) for d in docs] == [("csharp:P.X", "/repo/a/X.cs")]
    # the global namespace: no namespace in the name
    bare = files({"X.cs": "/// <summary>No namespace.</summary>\npublic class X { }\n"})
    assert [(d.uri, d.title) for d in api_documents(bare, "local")] == [("csharp:X", "X")]


def test_the_reader_names_its_files_and_fixes() -> None:
    assert is_csharp("Queue.cs") and is_csharp("QUEUE.CS")
    assert not is_csharp("Queue.csx") and not is_csharp("queue.csproj")
    assert set(FIXES) == {CSHARP_TEST, CSHARP_GENERATED, CSHARP_NO_API}
    assert all(
        fix.endswith("the source's csharp: text reads them as text") for fix in FIXES.values()
    )


def test_any_text_scans_without_an_error() -> None:
    """Unterminated strings (regular, verbatim, interpolated, raw), characters and
    comments, stray brackets and directives: the scanner and the item reader end."""
    pieces = [
        "/// <summary>A doc <c>x</c> <code>\n", "/// </summary> <param name=\"a\">b</param>\n",
        "/* c */", "// l\n", "namespace N;\n", "namespace N {\n", "using System;\n",
        "public ", "protected ", "internal ", "private ", "static ", "partial ", "class ",
        "struct ", "interface ", "enum ", "record ", "delegate ", "event ", "const ",
        "operator ", "implicit ", "this", "A ", "b ", "(", ")", "{", "}", "[", "]", "<", ">",
        '"', '@"', '$"', '$@"', '"""', '$$"""', "'", "'\\''", "/*", "*/", "///", "\n", " ",
        ";", ",", "=", "=>", "==", ":", ".", "?", "#if X\n", "#else\n", "#endif\n",
        "#region r\n", "[Obsolete(\"x\")] ", "int ", "void ", "where T : new() ", "get; ",
        "set; ", "<inheritdoc/>", "<see cref=\"T:A.B\"/>", "\\",
        "/// <summary>Doc.</summary>\npublic class C {\n",
        "/// <summary>M.</summary>\npublic int M(int a) { return a; }\n",
        "/// <summary>F.</summary>\npublic const int F = 1;\n",
        "/// <summary>P.</summary>\npublic int P { get; set; }\n",
        "/// <summary>E.</summary>\npublic enum E { ",
    ]  # fmt: skip

    def read(text: str) -> list[Document]:
        return api_documents([CsFile(P("src/A.cs"), "a", text)], "local")

    # some of the random texts declare something documented
    assert fuzzed(read, pieces, "csharp:") > 0


def test_a_dotnet_projects_csharp_is_read_as_its_api(tmp_path: Path) -> None:
    tree = {
        "Spool.sln": "Microsoft Visual Studio Solution File\n",
        "src/Spool/Reel.cs": (
            "namespace Acme.Spool\n{\n    /// <summary>A reel of thread.</summary>\n"
            "    public class Reel\n    {\n        /// <summary>Winds it.</summary>\n"
            '        /// <param name="turns">How many.</param>\n'
            "        public int Wind(int turns) { return turns; }\n    }\n}\n"
        ),
        "tests/Spool.Tests/ReelTests.cs": "/// <summary>A test.</summary>\npublic class ReelTests {}\n",
    }
    write_tree(tmp_path / "p", tree)
    entry = source_entry(str(tmp_path / "p"))
    assert "*.cs" in entry["include"]  # type: ignore[operator]
    docs, rejects = collect_tree(tmp_path, tree, list(entry["include"]))  # type: ignore[call-overload]
    assert sorted(u for u in docs if u.startswith("csharp:")) == [
        "csharp:Acme.Spool.Reel",
        "csharp:Acme.Spool.Reel.Wind",
    ]
    assert dict(rejects.rejects)["csharp_test"] == 1
    asked = ask(docs["csharp:Acme.Spool.Reel.Wind"])
    assert (
        asked["arguments"]
        == "`Acme.Spool.Reel.Wind` takes 1 argument: int turns.\n\n- turns: How many."
    )
    whole, _ = collect_tree(tmp_path / "t", tree, ["*.cs"], csharp="text")
    assert not any(u.startswith("csharp:") for u in whole)
