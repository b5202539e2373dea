"""C and C++ headers read as their library's API, as Doxygen reads them: headers on disk (and
in a git repository) scanned, never compiled, each documented declaration a document; a
header without Doxygen comments read by its plain comments; and the questions the
generator then asks about it."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import ask, collect_tree, fuzzed, write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import CollectResult
from jupiter.collect.capi import CFile, api_documents, scan
from jupiter.config.cli import source_entry
from jupiter.records import Document

SPOOL_H = r"""/*
 * Copyright (C) the spool authors. Licensed under the MIT license.
 */
#ifndef SPOOL_H
#define SPOOL_H

#include <stddef.h>

/**
 * @file spool.h
 * @brief A queue of jobs kept on disk.
 * @defgroup spool Spool
 * @{
 */
SPOOL_BEGIN_DECL

/** The most attempts a failing job gets before it is dropped. */
#define SPOOL_MAX_ATTEMPTS 5

#define SPOOL_INTERNAL 1 /**< internal: said after it on its line */

/** How soon a job runs. */
typedef enum {
	SPOOL_LOW = 0,      /**< Runs when nothing else waits. */
	/** Runs first. */
	SPOOL_HIGH = 1 << 2,
	SPOOL_UNDOCUMENTED,
} spool_priority;

/**
 * Options for opening a queue.
 */
typedef struct spool_options {
	/** How many jobs run at once. */
	unsigned int workers;
	const char *dir; ///< The folder the queue keeps its jobs in.
	int flags;
} spool_options;

/**
 * Open the queue in a folder, creating it when it is missing.
 *
 * A brace in a string ends nothing: "}".
 *
 * @param[out] out where the queue is stored
 * @param dir the folder; see @ref spool_options
 * @param opts the options, or NULL for the defaults
 * @return 0 on success, or an error code
 * @see spool_close
 *
 * @code
 * spool *q;
 * spool_open(&q, "/tmp/q", NULL);
 * @endcode
 */
SPOOL_EXTERN(int) spool_open(spool **out, const char *dir,
	const spool_options *opts);

/** Close the queue @p q and free it. */
SPOOL_EXTERN(void) spool_close(spool *q);

size_t spool_size(const spool *q); /**< How many jobs wait in @p q. */

/** Called for each job; returns non-zero to stop. */
typedef int (*spool_cb)(const char *name, void *payload);

int spool_undocumented(void);

/** @} */
SPOOL_END_DECL
#endif
"""
QUEUE_HPP = r"""#pragma once
#include <string>

namespace spool {

namespace detail {
/// Internal: no document.
inline int helper() { return 0; }
}  // namespace detail

/// A queue of jobs, as a C++ class.
template <typename Job>
class Queue {
    /// Private by default: no document.
    int lock_{0};

  public:
    /// Open the queue in `dir`.
    explicit Queue(const std::string &dir) : dir_(dir) {}

    /// Add a job; returns its position.
    std::size_t push(const Job &job, int priority = 0);

    /// Whether two queues share a folder.
    bool operator==(const Queue &other) const { return dir_ == other.dir_; }

    /// The folder, as given.
    std::string dir_{};

    /// How many jobs wait.
    [[nodiscard]] auto size() const noexcept -> std::size_t { return 0; }

  private:
    /// Private: no document.
    void drop();
};

/// Kinds of jobs.
enum class Kind : int {
    Mail,   ///< A message to send.
    Report, ///< A report to build.
};

/// A job that runs on a timer.
using Timed = Queue<std::string>;

}  // namespace spool
"""
SQLITE_STYLE_H = r"""/*
** The author disclaims copyright to this source code.
*/

/*
** CAPI3REF: Opening A Queue
**
** Opens the queue named by the file name.
*/
int kv_open(const char *filename, kv **ppDb);

/* a comment with a blank line under it */

int kv_close(kv *db);

/* Version 2 and later */
int kv_sync(kv *db);

#define KV_OK 0 /* Successful result */
#define KV_BUSY 5 /* The database file is locked */
struct kv_stat {
  long reads;  /* pages read */
  long writes; /* pages written */
};
"""
TREE = {
    "include/spool.h": SPOOL_H,
    "include/spool/queue.hpp": QUEUE_HPP,
    "include/kv.h": SQLITE_STYLE_H,
    "include/empty.h": "#pragma once\nint nothing(void);\n",
    "tests/fixture.h": "/** A test helper. */\nint fixture(void);\n",
    "src/spool.c": "/** Not a header. */\nint spool_open_impl(void) { return 0; }\n",
}
EXPECTED = [
    "c:KV_BUSY",
    "c:KV_OK",
    "c:SPOOL_HIGH",
    "c:SPOOL_INTERNAL",
    "c:SPOOL_LOW",
    "c:SPOOL_MAX_ATTEMPTS",
    "c:include/spool.h",
    "c:kv_open",
    "c:kv_stat::reads",
    "c:kv_stat::writes",
    "c:spool::Kind",
    "c:spool::Kind::Mail",
    "c:spool::Kind::Report",
    "c:spool::Queue",
    "c:spool::Queue::Queue",
    "c:spool::Queue::dir_",
    "c:spool::Queue::operator==",
    "c:spool::Queue::push",
    "c:spool::Queue::size",
    "c:spool::Timed",
    "c:spool_cb",
    "c:spool_close",
    "c:spool_open",
    "c:spool_options",
    "c:spool_options::dir",
    "c:spool_options::workers",
    "c:spool_priority",
    "c:spool_size",
]
REJECTS = {"c_no_api": 1, "c_test": 1}


def headers() -> list[CFile]:
    return [CFile(P(rel), rel, text) for rel, text in TREE.items() if not rel.endswith(".c")]


def docs_by_uri() -> tuple[dict[str, Document], CollectResult]:
    rejects = CollectResult()
    docs = api_documents(headers(), "local", rejects)
    return {d.uri: d for d in docs}, rejects


def test_headers_become_their_documented_api() -> None:
    docs, rejects = docs_by_uri()
    assert sorted(docs) == EXPECTED
    assert rejects.rejects == REJECTS
    text = {uri: d.text for uri, d in docs.items()}
    # the @file block is the header's document; its group markers are no item's doc
    assert text["c:include/spool.h"] == "A queue of jobs kept on disk."
    # a macro's return type inside it; @param/@return/@see/@code as the templates read them
    assert text["c:spool_open"] == (
        "spool_open(spool **out, const char *dir, const spool_options *opts)\n\n"
        "Open the queue in a folder, creating it when it is missing.\n\n"
        'A brace in a string ends nothing: "}".\n\n'
        ":param out: where the queue is stored\n"
        ":param dir: the folder; see `spool_options`\n"
        ":param opts: the options, or NULL for the defaults\n"
        ":returns: 0 on success, or an error code\n"
        "See also: spool_close\n\n"
        '```\nspool *q;\nspool_open(&q, "/tmp/q", NULL);\n```'
    )
    assert text["c:spool_close"] == "spool_close(spool *q)\n\nClose the queue `q` and free it."
    # a doc after the declaration on its line; the return type where no @return says it
    assert text["c:spool_size"] == (
        "spool_size(const spool *q)\n\nHow many jobs wait in `q`.\n\n:returns: `size_t`"
    )
    assert text["c:SPOOL_MAX_ATTEMPTS"] == (
        "SPOOL_MAX_ATTEMPTS\n\nThe most attempts a failing job gets before it is dropped."
        "\n\nValue: `5`"
    )
    # enumerators in the enclosing scope (C), their docs over or after them
    assert text["c:SPOOL_INTERNAL"] == (
        "SPOOL_INTERNAL\n\ninternal: said after it on its line\n\nValue: `1`"
    )
    assert text["c:SPOOL_LOW"] == "SPOOL_LOW\n\nRuns when nothing else waits.\n\nValue: `0`"
    assert text["c:SPOOL_HIGH"] == "SPOOL_HIGH\n\nRuns first.\n\nValue: `1 << 2`"
    assert text["c:spool_options::dir"] == (
        "spool_options::dir\n\nThe folder the queue keeps its jobs in.\n\nType: `const char *`"
    )
    assert text["c:spool_cb"].startswith("spool_cb\n\nCalled for each job; returns non-zero")
    # C++: namespaces and classes name their members; private ones and detail:: left out
    assert text["c:spool::Queue::push"] == (
        "spool::Queue::push(const Job &job, int priority = 0)\n\n"
        "Add a job; returns its position.\n\n:returns: `std::size_t`"
    )
    assert text["c:spool::Queue::dir_"] == (
        "spool::Queue::dir_\n\nThe folder, as given.\n\nType: `std::string`"
    )
    assert text["c:spool::Queue::size"] == (
        "spool::Queue::size()\n\nHow many jobs wait.\n\nQualifiers: `const noexcept`.\n\n"
        ":returns: `std::size_t`"
    )
    assert docs["c:spool::Queue::Queue"].meta["kind"] == "constructor"
    assert text["c:spool::Queue"].endswith("Template parameters: `<typename Job>`.")
    assert text["c:spool::Kind::Mail"] == "spool::Kind::Mail\n\nA message to send."
    assert text["c:spool::Timed"].endswith("Definition: `Queue<std::string>`")
    # no Doxygen comment in the header: a plain block comment right over a declaration
    # and the plain comment after a declaration on its line is its doc, not the next one's
    assert text["c:KV_BUSY"] == "KV_BUSY\n\nThe database file is locked\n\nValue: `5`"
    assert text["c:KV_OK"] == "KV_OK\n\nSuccessful result\n\nValue: `0`"
    assert text["c:kv_stat::writes"] == "kv_stat::writes\n\npages written\n\nType: `long`"
    assert text["c:kv_open"] == (
        "kv_open(const char *filename, kv **ppDb)\n\n"
        "CAPI3REF: Opening A Queue\n\nOpens the queue named by the file name.\n\n"
        ":returns: `int`"
    )
    meta = docs["c:spool_close"].meta
    assert (meta["kind"], meta["qualname"], meta["signature"], meta["line"]) == (
        "function",
        "spool_close",
        "(spool *q)",
        60,
    )


def test_a_local_folder_and_a_git_repository_read_the_same_api(tmp_path: Path) -> None:
    """Headers are read as their API by default (git reads *.h and *.hpp by default); a .c
    file is no header; `c: text` reads the headers as text, as before."""
    docs, rejects = collect_tree(tmp_path / "a", TREE, ["*.h", "*.hpp", "*.c"])
    api = sorted(uri for uri in docs if uri.startswith("c:"))
    assert api == EXPECTED
    assert rejects.rejects == REJECTS
    assert any(d.title == "spool.c" for d in docs.values())  # a source file: text, as before
    as_text, rejects = collect_tree(tmp_path / "b", TREE, ["*.h", "*.hpp"], c="text")
    assert not [uri for uri in as_text if uri.startswith("c:")]
    assert "spool.h" in {d.title for d in as_text.values()} and not rejects.rejects
    write_tree(tmp_path / "repo", TREE)
    sha = commit_all(tmp_path / "repo")
    result = collect_repo(tmp_path)
    got = {d.uri: d for d in result.documents if d.uri.startswith("c:")}
    assert sorted(got) == EXPECTED
    assert result.rejects == REJECTS
    meta = got["c:spool_open"].meta
    assert (meta["commit"], meta["path"], meta["language"]) == (sha, "include/spool.h", "c")


def test_init_reads_a_librarys_headers(tmp_path: Path) -> None:
    write_tree(tmp_path / "lib", {"include/lib.h": "int f(void);\n", "README.md": "# Lib\n"})
    entry = source_entry(str(tmp_path / "lib"))
    assert {"*.h", "*.hpp"} <= set(entry["include"])  # type: ignore[arg-type]


def test_questions_about_a_c_api() -> None:
    docs, _ = docs_by_uri()

    def asked(uri: str) -> dict[str, str]:
        return ask(docs[uri], ["what_does", "signature", "returns"])

    got = asked("c:spool_open")
    assert got["what_does"].startswith("Open the queue in a folder")
    assert got["signature"] == (
        "`spool_open(spool **out, const char *dir, const spool_options *opts)`"
    )
    assert got["returns"].startswith("0 on success, or an error code")
    assert asked("c:spool::Queue::push")["signature"] == (
        "`spool::Queue::push(const Job &job, int priority = 0)`"
    )


def test_the_scanner_sets_strings_comments_and_directives_apart() -> None:
    text = '#define X "{" /**< a brace */\nint f(void) { char c = \'}\'; return "}"[0]; }\n'
    code, comments, directives = scan(text)
    assert len(code) == len(text)
    assert code.count("{") == 1 and code.count("}") == 1  # the body's own braces only
    assert [c.text.strip() for c in comments] == ["a brace"] and comments[0].trailing
    assert directives == [(0, text.index("/**<"))]


def test_any_text_scans_without_an_error() -> None:
    """Unterminated strings and comments, stray brackets and directives: the reader ends."""
    pieces = [
        "/** A doc. */\n", "/// Line doc.\n", "///< after\n", "int ", "f", "(", ")", "{",
        "}", "[", "]", "<", ">", '"', "'", "/*", "*/", "\n", " ", "struct ", "S ", "enum ",
        "class ", "public:", "namespace ", "n ", "typedef ", ";", ",", "=", "#define X 1\n",
        "#if A\n", "template <typename T> ", "operator==", "MACRO(int) ", "~",
    ]  # fmt: skip

    def read(text: str) -> list[Document]:
        return api_documents([CFile(P("a.h"), "a", text)], "local")

    assert fuzzed(read, pieces, "c:") > 0  # some of the random texts declare something documented
