"""PHP read as its API, as phpDocumentor reads it: a package on disk (and in a git
repository) scanned, never run, each public item with a docblock a document; and the
questions the generator then asks about it."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import ask, collect_tree, fuzzed, write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import CollectResult
from jupiter.collect.phpapi import PhpFile, api_documents, scan, split_type
from jupiter.config.cli import source_entry
from jupiter.records import Document

QUEUE = r"""<?php

/*
 * This file is part of the Spool package. (c) the Spool authors.
 */

namespace Spool;

use Psr\Log\LoggerInterface;

/**
 * A queue of jobs kept in one folder.
 *
 * Usage example:
 * <pre>
 * $q = new Queue('/tmp/q');
 * $q->push('mail', ['to' => 'ann']);
 * </pre>
 *
 * @author Someone <someone@example.com>
 * @phpstan-type Job array{name: string}
 */
final class Queue implements \Countable
{
    /**
     * The most attempts a failing job gets before it is dropped.
     */
    public const MAX_ATTEMPTS = 5;

    /**
     * @var int How many jobs run at once
     */
    public int $workers = 2;

    /** A private note: no document. */
    private string $secret = "}";

    /**
     * Opens the queue in a folder, creating it when it is missing.
     *
     * @param string $dir The folder; "{" in a string ends nothing
     * @param array<string, mixed> $options Settings: see {@link Queue::MAX_ATTEMPTS}
     */
    public function __construct(private string $dir, array $options = [])
    {
        $this->secret = <<<EOT
        } a heredoc with a brace
        EOT;
    }

    /**
     * Adds a job at the end of the queue.
     *
     * @param string $name    the job's name
     * @param array  $payload what the job works on
     *
     * @return int the job's position
     *
     * @throws \RuntimeException when the folder is not writable
     */
    #[\ReturnTypeWillChange]
    public function push(string $name, array $payload = []): int
    {
        return 0;
    }

    /**
     * {@inheritdoc}
     */
    public function count(): int
    {
        return 0;
    }

    /**
     * @internal
     */
    public function lock(): void {}

    /** Not public: no document. */
    private function next(): ?string { return null; }
}

/**
 * Creates a queue in a temporary folder.
 */
function temporary_queue(): Queue
{
    return new class('/tmp') extends Queue {};
}
"""
TREE = {
    "composer.json": '{"name": "spool/spool"}\n',
    "src/Queue.php": QUEUE,
    "src/Undocumented.php": "<?php\nnamespace Spool;\nclass Undocumented { public function x() {} }\n",
    "tests/QueueTest.php": "<?php\n/** A test. */\nclass QueueTest {}\n",
    "templates/page.php": "<html><?php /** a template */ echo $x; ?></html>\n",
}
EXPECTED = [
    "php:Spool\\Queue",
    "php:Spool\\Queue::$workers",
    "php:Spool\\Queue::MAX_ATTEMPTS",
    "php:Spool\\Queue::__construct",
    "php:Spool\\Queue::push",
    "php:Spool\\temporary_queue",
]
REJECTS = {"php_no_api": 2, "php_test": 1}


def local_docs(tmp_path: Path, **extra: object) -> tuple[dict[str, Document], CollectResult]:
    return collect_tree(tmp_path, TREE, ["*.php"], **extra)


def test_a_package_becomes_its_documented_public_api(tmp_path: Path) -> None:
    docs, rejects = local_docs(tmp_path)
    assert sorted(docs) == EXPECTED
    assert rejects.rejects == REJECTS
    text = {uri: d.text for uri, d in docs.items()}
    assert text["php:Spool\\Queue"] == (
        "Spool\\Queue\n\nA queue of jobs kept in one folder.\n\nUsage example:\n"
        "```php\n$q = new Queue('/tmp/q');\n$q->push('mail', ['to' => 'ann']);\n```\n\n"
        "Declaration: `final class Queue implements \\Countable`"
    )
    # the docblock's tags as the templates read them; an attribute between docblock and
    # method; the declared return type where @return says it in words
    assert text["php:Spool\\Queue::push"] == (
        "Spool\\Queue::push(string $name, array $payload = [])\n\n"
        "Adds a job at the end of the queue.\n\n"
        ":param name: (`string`) the job's name\n"
        ":param payload: (`array`) what the job works on\n"
        ":returns: the job's position\n"
        ":raises \\RuntimeException: when the folder is not writable"
    )
    # a promoted constructor parameter; a generic type with a space; strings and a heredoc
    # holding braces end nothing
    assert text["php:Spool\\Queue::__construct"] == (
        "Spool\\Queue::__construct(string $dir, array $options = [])\n\n"
        "Opens the queue in a folder, creating it when it is missing.\n\n"
        ':param dir: (`string`) The folder; "{" in a string ends nothing\n'
        ":param options: (`array<string, mixed>`) Settings: see `Queue::MAX_ATTEMPTS`"
    )
    assert text["php:Spool\\Queue::MAX_ATTEMPTS"].endswith("Value: `5`")
    # a property's @var says its type and, here, what it is
    assert text["php:Spool\\Queue::$workers"] == (
        "Spool\\Queue::$workers\n\nHow many jobs run at once\n\nType: `int`\nDefault: `2`"
    )
    assert text["php:Spool\\temporary_queue"].startswith(
        "Spool\\temporary_queue()\n\nCreates a queue in a temporary folder."
    )
    meta = docs["php:Spool\\Queue::push"].meta
    assert (meta["kind"], meta["signature"], meta["line"]) == (
        "method",
        "(string $name, array $payload = [])",
        62,
    )


def test_php_text_reads_the_files_as_before(tmp_path: Path) -> None:
    docs, rejects = local_docs(tmp_path, php="text")
    assert not [uri for uri in docs if uri.startswith("php:")]
    assert "Queue.php" in {d.title for d in docs.values()}
    assert not rejects.rejects


def test_the_same_package_from_a_git_repository(tmp_path: Path) -> None:
    write_tree(tmp_path / "repo", TREE)
    sha = commit_all(tmp_path / "repo")
    result = collect_repo(tmp_path)  # git reads *.php by default
    api = {d.uri: d for d in result.documents if d.uri.startswith("php:")}
    assert sorted(api) == EXPECTED
    assert result.rejects == REJECTS
    meta = api["php:Spool\\Queue::push"].meta
    assert (meta["commit"], meta["path"], meta["language"]) == (sha, "src/Queue.php", "php")


def test_questions_about_a_php_api(tmp_path: Path) -> None:
    docs, _ = local_docs(tmp_path)
    push = ask(docs["php:Spool\\Queue::push"])
    assert push["what_does"].startswith("Adds a job at the end of the queue.")
    assert push["signature"] == "`Spool\\Queue::push(string $name, array $payload = [])`"
    assert push["arguments"].startswith(
        "`Spool\\Queue::push` takes 2 arguments: string $name, array $payload = []."
    )
    assert "- name: (`string`) the job's name" in push["arguments"]
    assert push["returns"] == "the job's position"


def test_types_scanning_and_init(tmp_path: Path) -> None:
    assert split_type("array<string, mixed> $options Settings") == (
        "array<string, mixed>",
        "$options Settings",
    )
    assert split_type("$name the name") == ("", "$name the name")
    code, comments = scan("<?php $a = '}'; # a comment {\n$b = \"{\";\n?><p>{</p>")
    assert code.count("{") == 0 and code.count("}") == 0
    assert [c.text for c in comments] == ["# a comment {"]
    write_tree(tmp_path / "pkg", {"composer.json": "{}", "src/A.php": "<?php\n"})
    assert "*.php" in source_entry(str(tmp_path / "pkg"))["include"]  # type: ignore[operator]


def test_any_text_scans_without_an_error() -> None:
    pieces = [
        "<?php\n", "?>", "/** A doc. @param int $a b */\n", "/* c */", "// l\n", "# h\n",
        "namespace A;\n", "class ", "interface ", "trait ", "enum ", "B ", "{", "}", "(", ")",
        "public ", "private ", "static ", "function ", "f", "$x", " = ", "1;", "'", '"',
        "<<<EOT\n", "EOT;\n", "#[Attr] ", "const C = 2;", "case X;", ": int", "\n", " ",
    ]  # fmt: skip

    def read(text: str) -> list[Document]:
        return api_documents([PhpFile(P("src/A.php"), "a", text)], "local")

    assert fuzzed(read, pieces, "php:") > 0  # some of the random texts declare something
