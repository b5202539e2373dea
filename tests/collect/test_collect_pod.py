"""Perl's POD read as perldoc shows it: a module's POD between its code, a script's, a .pod
document; the formatting codes as text; from a folder and a git repository."""

from __future__ import annotations

import random
from pathlib import Path

from apitree import collect_tree, write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import pod
from jupiter.config.cli import source_entry
from jupiter.records import Chunk
from jupiter.synth.questions import make_questions

MODULE = """package Spool::Queue;
use strict;

=head1 NAME

Spool::Queue - a queue of jobs kept on disk

=head1 SYNOPSIS

    my $q = Spool::Queue->new(dir => '/tmp/q');
    $q->push('mail');

=cut

sub new { my ($class, %args) = @_; return bless {%args}, $class }

=head1 METHODS

=over 4

=item B<push>($name)

Adds the job C<$name> at the end of the queue; see L<Spool::Worker/"Running jobs">.

=item B<pop>

Takes the first job, or C<< undef >> when the queue is E<lt>emptyE<gt>.

=back

=begin html

<p>Only for the HTML formatter.</p>

=end html

=cut

sub push { 1 }
1;
"""
GUIDE = """=head1 NAME

spool - run jobs from a queue

=head1 OPTIONS

=over

=item B<--workers> I<N>

Run at most I<N> jobs at the same time.

=item *

A bullet with its text below.

=back
"""
TREE = {
    "Makefile.PL": "use ExtUtils::MakeMaker;\n",
    "lib/Spool/Queue.pm": MODULE,
    "lib/Spool/Util.pm": "package Spool::Util;\nsub x { 1 }\n1;\n",
    "doc/spool.pod": GUIDE,
}
QUEUE_MD = """# NAME

Spool::Queue - a queue of jobs kept on disk

# SYNOPSIS

```
my $q = Spool::Queue->new(dir => '/tmp/q');
$q->push('mail');
```

# METHODS

- `push($name)`: Adds the job `$name` at the end of the queue; see "Running jobs" in Spool::Worker.

- `pop`: Takes the first job, or `undef` when the queue is <empty>.
"""


def test_a_modules_script_and_documents_pod(tmp_path: Path) -> None:
    docs, rejects = collect_tree(tmp_path, TREE, ["*.pm", "*.pod"])
    by_name = {Path(uri).name: d for uri, d in docs.items()}
    assert sorted(by_name) == ["Queue.pm", "spool.pod"]
    assert rejects.rejects == {"pod_none": 1}  # Util.pm: code, no POD
    queue = by_name["Queue.pm"]
    assert (queue.title, queue.text) == ("Spool::Queue - a queue of jobs kept on disk", QUEUE_MD)
    assert by_name["spool.pod"].text.endswith(
        "- `--workers N`: Run at most N jobs at the same time.\n\n- A bullet with its text below.\n"
    )
    as_text, _ = collect_tree(tmp_path / "b", TREE, ["*.pm"], perl="text")
    assert "package Spool::Queue;" in next(d.text for d in as_text.values() if "Queue" in d.uri)


def test_the_same_from_a_git_repository_and_init(tmp_path: Path) -> None:
    write_tree(tmp_path / "repo", TREE)
    sha = commit_all(tmp_path / "repo")
    result = collect_repo(tmp_path)  # git reads *.pm and *.pod by default
    got = {d.meta["path"]: d for d in result.documents if d.meta.get("language") == "pod"}
    assert sorted(got) == ["doc/spool.pod", "lib/Spool/Queue.pm"]
    assert got["lib/Spool/Queue.pm"].text == QUEUE_MD
    assert got["lib/Spool/Queue.pm"].meta["commit"] == sha
    assert result.rejects == {"pod_none": 1}
    entry = source_entry(str(tmp_path / "repo"))
    assert {"*.pm", "*.pl"} <= set(entry["include"])  # type: ignore[arg-type]


def test_formatting_codes_and_questions() -> None:
    assert pod.codes("C<< $a <=> $b >>, B<I<bold italic>>, F</etc/spool>, X<idx>Z<>end") == (
        "`$a <=> $b`, bold italic, `/etc/spool`, end"
    )
    assert pod.codes("L<the guide|https://example.com>, L<perlfunc/open>, E<0x41>E<gt>") == (
        'the guide, "open" in perlfunc, A>'
    )
    title, text = pod.to_markdown(GUIDE, whole=True)
    chunk = Chunk("c", "local", "/doc/spool.pod", title, 0, len(text), text)
    answers = {q.answer for q in make_questions(chunk, ["define"], 10, random.Random(0))}
    assert "Run at most N jobs at the same time." in answers
