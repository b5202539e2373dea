"""Elixir read as its project's API, as ExDoc (HexDocs) reads it: source files scanned,
never run, each module with a @moduledoc, each public function, macro and callback with a
@doc and each type with a @typedoc a document named as ExDoc names it (`Enum.map/2`); and
the questions the generator then asks about one."""

from __future__ import annotations

import re
from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import ask, collect_tree, fuzzed, write_tree
from jupiter.collect import CollectResult
from jupiter.collect.exapi import (
    ELIXIR_NO_API,
    ELIXIR_TEST,
    FIXES,
    SUFFIXES,
    URI_PREFIX,
    ElixirFile,
    api_documents,
    doc_text,
    is_elixir,
    literal_value,
    scan,
    type_text,
)
from jupiter.config.cli import source_entry
from jupiter.records import Document
from jupiter.synth import parse

SPOOL = r'''# The spool library: `do`, `end` and "quotes in a comment change nothing.
defmodule Spool do
  @moduledoc """
  Spool runs jobs from a queue kept on disk.

  Open a queue with `open/2`:

      iex> {:ok, q} = Spool.open("/tmp/q")
      iex> Spool.push(q, "mail")
      :ok

  Or from a script:

  ```elixir
  Spool.open("/tmp/q", workers: 2)
  ```
  """
  @moduledoc since: "1.0.0"

  @doc """
  Opens the queue in `dir`.

  ## Options

    * `:workers` - how many jobs run at once, `2` when not given:

          iex> Spool.open("/tmp/q", workers: 4)

    * `:sync` - whether a push waits
  """
  @doc since: "1.2.0"
  @spec open(Path.t(), keyword) :: {:ok, pid} | {:error, term}
  def open(dir, opts \\ [])

  def open(dir, opts) when is_binary(dir) and is_list(opts) do
    {:ok, spawn(fn -> loop(dir, opts) end)}
  end

  def open(_dir, _opts), do: {:error, :badarg}

  @doc "Opens the queue, or raises."
  @deprecated "Use open/2 instead"
  @spec open!(Path.t()) :: pid
  def open!(dir), do: elem(open(dir), 1)

  @doc """
  Pushes a job at the end of the queue.
  """
  @impl true
  def push(%{} = queue, _job), do: queue

  @doc "Pushes a job with a priority."
  def push(queue, [head | _] = job, priority) when priority in [:low, :high] do
    # end
    send(queue, {:push, job, priority, head})
  end

  defp loop(_dir, _opts) do
    receive do
      :stop -> :ok
    end
  end

  @doc false
  def internal, do: :ok

  @doc "Taken by the macro call below, which defines a function of its own."
  defsequence(:reset, 0)

  def reset_all, do: :ok

  @doc "Whether the queue is empty."
  defmacro empty?(queue) do
    quote do
      @doc "Inside a quote: no document."
      def inner, do: unquote(queue)
    end
  end

  @doc "Whether `term` is a job."
  defguard is_job(term) when is_tuple(term) and elem(term, 0) == :job

  @doc "Private: no document."
  defp helper(x), do: x

  @doc "Runs the job now."
  defdelegate run(job, opts \\ []), to: Spool.Runner, as: :run_now

  defmodule Queue do
    @moduledoc "A queue of jobs."

    @doc "The queue's size."
    def size(queue), do: length(queue)
  end

  defmodule Worker.Pool do
    @moduledoc "A pool of workers."
  end
end
'''

JOB = r'''defmodule Spool.Job do
  @moduledoc ~S"""
  A job: its name and what it carries.

  Written in a raw heredoc: "#{name}" and \n stay as written.
  """

  @enforce_keys [:name]
  defstruct [:name, payload: %{}, attempts: 0]

  @typedoc """
  A job.
  """
  @typedoc since: "1.1.0"
  @type t :: %__MODULE__{name: String.t(), payload: map, attempts: non_neg_integer}

  @typedoc "A job's state."
  @opaque state :: {atom, term}

  @typedoc "Private: no document."
  @typep secret :: term

  @typedoc "A job's priority: a level, or a word."
  @type priority(level) :: level | :low | :high

  @type undocumented :: term

  @doc """
  Builds a job.

      iex> Spool.Job.new("mail")
      %Spool.Job{name: "mail"}
  """
  @spec new(String.t(), map) :: t
  def new(name, payload \\ %{}), do: %__MODULE__{name: name, payload: payload}
end

defmodule Spool.JobError do
  @moduledoc "Raised when a job fails."
  defexception [:job, message: "job failed"]
end
'''

WORKER = r'''defmodule Spool.Worker do
  @moduledoc """
  A behaviour for the modules that run jobs.
  """

  @doc """
  Runs one job, and returns its result.
  """
  @doc since: "1.3.0"
  @callback perform(job :: Spool.Job.t(), opts :: keyword) :: {:ok, term} | {:error, term}

  @doc "Called when a job fails."
  @callback failed(Spool.Job.t(), reason :: term) :: :ok

  @doc "Builds the worker's child spec at compile time."
  @macrocallback spec(keyword) :: Macro.t()

  @callback undocumented(term) :: term

  @optional_callbacks failed: 2

  @doc "Performs `job` with the worker `module`."
  def perform(module, job), do: module.perform(job, [])
end

defprotocol Spool.Sized do
  @moduledoc "Things with a size."

  @doc "The size of `term`."
  @spec size(t) :: non_neg_integer
  def size(term)
end

defimpl Spool.Sized, for: Spool.Job do
  @doc "An implementation: ExDoc leaves it out."
  def size(job), do: map_size(job.payload)
end
'''

INTERNAL = r"""defmodule Spool.Internal do
  @moduledoc false

  @doc "Hidden with its module."
  def tidy, do: :ok

  defmodule Nested do
    @moduledoc "Hidden: the @moduledoc false over it hides what is in it."

    @doc "Hidden too."
    def deep, do: :ok
  end
end
"""

LOCK = "defmodule Spool.Lock do\n  def take, do: :ok\nend\n"
TEST_SUPPORT = 'defmodule Spool.Case do\n  @moduledoc "A test case."\nend\n'

TREE = {
    "lib/spool.ex": SPOOL,
    "lib/spool/job.ex": JOB,
    "lib/spool/worker.ex": WORKER,
    "lib/spool/internal.ex": INTERNAL,
    "lib/spool/lock.ex": LOCK,
    "test/support/case.ex": TEST_SUPPORT,
    "lib/spool/queue_test.ex": TEST_SUPPORT,
}
EXPECTED = [
    "elixir:Spool",
    "elixir:Spool.Job",
    "elixir:Spool.Job.new/2",
    "elixir:Spool.Job.priority/1",
    "elixir:Spool.Job.state/0",
    "elixir:Spool.Job.t/0",
    "elixir:Spool.JobError",
    "elixir:Spool.Queue",
    "elixir:Spool.Queue.size/1",
    "elixir:Spool.Sized",
    "elixir:Spool.Sized.size/1",
    "elixir:Spool.Worker",
    "elixir:Spool.Worker.Pool",
    "elixir:Spool.Worker.failed/2",
    "elixir:Spool.Worker.perform/2",
    "elixir:Spool.Worker.spec/1",
    "elixir:Spool.empty?/1",
    "elixir:Spool.is_job/1",
    "elixir:Spool.open!/1",
    "elixir:Spool.open/2",
    "elixir:Spool.push/2",
    "elixir:Spool.push/3",
    "elixir:Spool.run/2",
    "elixir:c:Spool.Worker.perform/2",
]
REJECTS = {ELIXIR_NO_API: 2, ELIXIR_TEST: 2}


def docs_by_uri(tree: dict[str, str] = TREE) -> tuple[dict[str, Document], CollectResult]:
    files = [ElixirFile(P(rel), f"/src/{rel}", text, {"lang": "ex"}) for rel, text in tree.items()]
    rejects = CollectResult()
    docs = api_documents(files, "local", rejects)
    return {d.uri: d for d in docs}, rejects


def one(source: str) -> dict[str, str]:
    """The texts of one file's documents, by uri."""
    docs, _ = docs_by_uri({"lib/one.ex": source})
    return {uri: d.text for uri, d in docs.items()}


def test_a_project_becomes_its_documented_public_api() -> None:
    docs, rejects = docs_by_uri()
    assert sorted(docs) == EXPECTED
    assert rejects.rejects == REJECTS
    assert set(rejects.samples[ELIXIR_TEST]) == {
        "/src/test/support/case.ex",
        "/src/lib/spool/queue_test.ex",
    }
    # nothing documented: a module of undocumented functions, and a @moduledoc false one
    assert set(rejects.samples[ELIXIR_NO_API]) == {
        "/src/lib/spool/lock.ex",
        "/src/lib/spool/internal.ex",
    }
    assert set(FIXES) == {ELIXIR_TEST, ELIXIR_NO_API}
    assert all(x.endswith("the source's elixir: text reads them as text") for x in FIXES.values())
    assert (SUFFIXES, URI_PREFIX) == ((".ex",), "elixir:")
    assert is_elixir("lib/spool.ex") and not is_elixir("test/spool_test.exs")
    assert not is_elixir("mix.exs")
    text = {uri: d.text for uri, d in docs.items()}
    # the module's doc: an indented iex> block fenced as Elixir, a fenced block kept;
    # @moduledoc since:
    assert text["elixir:Spool"] == (
        "Spool\n\nSpool runs jobs from a queue kept on disk.\n\nOpen a queue with `open/2`:\n\n"
        '```elixir\niex> {:ok, q} = Spool.open("/tmp/q")\niex> Spool.push(q, "mail")\n:ok\n```'
        '\n\nOr from a script:\n\n```elixir\nSpool.open("/tmp/q", workers: 2)\n```\n\n'
        "Since: 1.0.0"
    )
    # the bodiless head's arguments with its default; an Options list kept, an example in
    # an item fenced at the item's margin; the clauses one function; @doc since:, @spec
    assert text["elixir:Spool.open/2"] == (
        "Spool.open(dir, opts \\\\ [])\n\nOpens the queue in `dir`.\n\n## Options\n\n"
        "  * `:workers` - how many jobs run at once, `2` when not given:\n\n"
        '    ```elixir\n    iex> Spool.open("/tmp/q", workers: 4)\n    ```\n\n'
        "  * `:sync` - whether a push waits\n\n"
        "Default arguments: may also be called as `open/1`.\n\n"
        "Spec: `open(Path.t(), keyword()) :: {:ok, pid()} | {:error, term()}`\n\n"
        "Since: 1.2.0"
    )
    assert text["elixir:Spool.open!/1"] == (
        "Spool.open!(dir)\n\nOpens the queue, or raises.\n\n"
        "Spec: `open!(Path.t()) :: pid()`\n\nDeprecated: Use open/2 instead"
    )
    # patterns shown by the names bound to them, a variable without its underscore
    assert text["elixir:Spool.push/2"] == (
        "Spool.push(queue, job)\n\nPushes a job at the end of the queue."
    )
    assert text["elixir:Spool.push/3"] == (
        "Spool.push(queue, job, priority)\n\nPushes a job with a priority."
    )
    assert text["elixir:Spool.empty?/1"] == (
        "Spool.empty?(queue)\n\nWhether the queue is empty.\n\nMacro."
    )
    assert text["elixir:Spool.is_job/1"] == (
        "Spool.is_job(term)\n\nWhether `term` is a job.\n\nMacro."
    )
    assert text["elixir:Spool.run/2"] == (
        "Spool.run(job, opts \\\\ [])\n\nRuns the job now.\n\n"
        "Default arguments: may also be called as `run/1`.\n\n"
        "Delegates to `Spool.Runner.run_now/2`."
    )
    # nested modules' names are relative, a dotted one's too
    assert text["elixir:Spool.Queue.size/1"] == "Spool.Queue.size(queue)\n\nThe queue's size."
    assert text["elixir:Spool.Worker.Pool"] == "Spool.Worker.Pool\n\nA pool of workers."
    meta = docs["elixir:Spool.open/2"].meta
    assert meta == {
        "lang": "ex",
        "kind": "function",
        "qualname": "Spool.open/2",
        "language": "elixir",
        "signature": "(dir, opts \\\\ [])",
        "origin": "/src/lib/spool.ex",
        "line": 33,
    }
    assert docs["elixir:Spool.open/2"].title == "Spool.open/2"
    assert [docs[u].meta["kind"] for u in EXPECTED] == [
        "module", "module", "function", "type", "opaque", "type", "exception", "module",
        "function", "protocol", "function", "module", "module", "callback", "function",
        "macrocallback", "macro", "macro", "function", "function", "function", "function",
        "function", "callback",
    ]  # fmt: skip


def test_structs_types_and_callbacks() -> None:
    docs, _ = docs_by_uri()
    text = {uri: d.text for uri, d in docs.items()}
    # a ~S heredoc kept raw; the struct's fields
    assert text["elixir:Spool.Job"] == (
        "Spool.Job\n\nA job: its name and what it carries.\n\n"
        'Written in a raw heredoc: "#{name}" and \\n stay as written.\n\n'
        "Fields: `name`, `payload`, `attempts`"
    )
    assert text["elixir:Spool.JobError"] == (
        "Spool.JobError\n\nRaised when a job fails.\n\nFields: `job`, `message`"
    )
    # types written as ExDoc writes them, __MODULE__ named, a parameter a variable
    assert text["elixir:Spool.Job.t/0"] == (
        "Spool.Job.t()\n\nA job.\n\nDefinition: `t() :: %Spool.Job{name: String.t(), "
        "payload: map(), attempts: non_neg_integer()}`\n\nSince: 1.1.0"
    )
    assert text["elixir:Spool.Job.priority/1"] == (
        "Spool.Job.priority(level)\n\nA job's priority: a level, or a word.\n\n"
        "Definition: `priority(level) :: level | :low | :high`"
    )
    assert text["elixir:Spool.Job.state/0"] == (
        "Spool.Job.state()\n\nA job's state.\n\nOpaque type."
    )
    assert text["elixir:Spool.Job.new/2"] == (
        "Spool.Job.new(name, payload \\\\ %{})\n\nBuilds a job.\n\n"
        '```elixir\niex> Spool.Job.new("mail")\n%Spool.Job{name: "mail"}\n```\n\n'
        "Default arguments: may also be called as `new/1`.\n\n"
        "Spec: `new(String.t(), map()) :: t()`"
    )
    # callbacks: their arguments named from the spec; one named like a function of its
    # module by ExDoc's c: reference; an optional one said so; a protocol's functions
    assert text["elixir:c:Spool.Worker.perform/2"] == (
        "Spool.Worker.perform(job, opts)\n\nRuns one job, and returns its result.\n\n"
        "Callback.\n\nSpec: `perform(job :: Spool.Job.t(), opts :: keyword()) :: "
        "{:ok, term()} | {:error, term()}`\n\nSince: 1.3.0"
    )
    assert text["elixir:Spool.Worker.perform/2"] == (
        "Spool.Worker.perform(module, job)\n\nPerforms `job` with the worker `module`."
    )
    assert text["elixir:Spool.Worker.failed/2"] == (
        "Spool.Worker.failed(arg1, reason)\n\nCalled when a job fails.\n\nOptional callback."
        "\n\nSpec: `failed(Spool.Job.t(), reason :: term()) :: :ok`"
    )
    assert text["elixir:Spool.Worker.spec/1"] == (
        "Spool.Worker.spec(keyword)\n\nBuilds the worker's child spec at compile time.\n\n"
        "Macro callback.\n\nSpec: `spec(keyword()) :: Macro.t()`"
    )
    assert text["elixir:Spool.Sized.size/1"] == (
        "Spool.Sized.size(term)\n\nThe size of `term`.\n\nSpec: `size(t()) :: non_neg_integer()`"
    )
    # a @doc over defstruct: the struct's, ExDoc's %Module{}
    got = one(
        'defmodule Point do\n  @doc "A point."\n  defstruct x: 0, y: 0\n\n'
        '  @doc "The origin."\n  def origin, do: %__MODULE__{}\nend\n'
    )
    assert got == {
        "elixir:Point.__struct__/0": "%Point{}\n\nA point.\n\nFields: `x`, `y`",
        "elixir:Point.origin/0": "Point.origin()\n\nThe origin.",
    }


def test_what_is_not_the_api_is_left_out() -> None:
    docs, _ = docs_by_uri()
    for left_out in (
        "elixir:Spool.internal/0",  # @doc false
        "elixir:Spool.loop/2",  # defp
        "elixir:Spool.helper/1",  # a @doc over a defp
        "elixir:Spool.reset_all/0",  # after a macro call that took the @doc over it
        "elixir:Spool.inner/0",  # inside a quote
        "elixir:Spool.Internal",  # @moduledoc false, and everything in it
        "elixir:Spool.Internal.tidy/0",
        "elixir:Spool.Internal.Nested",
        "elixir:Spool.Internal.Nested.deep/0",
        "elixir:Spool.Sized.Spool.Job.size/1",  # a protocol implementation
        "elixir:Spool.Job.secret/0",  # @typep
        "elixir:Spool.Job.undocumented/0",
        "elixir:Spool.Worker.undocumented/1",
        "elixir:Spool.Case",  # a test's
    ):
        assert left_out not in docs
    got = one(
        "defmodule Box do\n"
        '  @moduledoc "Shown."\n'
        '  @doc "Hidden: the @doc false after it wins."\n'
        "  @doc false\n"
        "  def hidden, do: 1\n"
        "  @typedoc false\n  @type t :: term\n"
        '  @doc "Private macro."\n  defmacrop m, do: 1\n'
        '  @doc "Private guard."\n  defguardp g(x) when x\n'
        '  @doc ""\n  def empty, do: 1\n'
        "end\n"
    )
    assert list(got) == ["elixir:Box"]


def test_nested_modules_are_named_from_the_outer_ones() -> None:
    got = one(
        """defmodule A.B do
  @moduledoc "A.B."
  defmodule C do
    @moduledoc "C inside A.B."
    defmodule D.E do
      @moduledoc "D.E inside A.B.C."
      @doc "Deep."
      def deep(x), do: x
    end
  end
  defmodule Elixir.Top do
    @moduledoc "Elixir. makes a name absolute."
  end
  defmodule __MODULE__.Own do
    @moduledoc "__MODULE__ names the module it stands in."
  end
  @doc "Back in A.B after the nested modules' ends."
  def back, do: :ok
end

defmodule A do
  defmodule B.F do
    @moduledoc "A dotted name nested: A.B.F."
  end
end

if Code.ensure_loaded?(Jason) do
  defmodule A.Json do
    @moduledoc "Inside an if: read, as ExDoc reads what compiled."
    if Version.match?(System.version(), ">= 1.10.0") do
      @doc "Inside an if in a module's body."
      def encode(x), do: x
    else
      def encode(x), do: fn -> x end
    end
    @doc "After the if's end."
    def decode(x), do: x
  end
end
"""
    )
    assert sorted(got) == [
        "elixir:A.B",
        "elixir:A.B.C",
        "elixir:A.B.C.D.E",
        "elixir:A.B.C.D.E.deep/1",
        "elixir:A.B.F",
        "elixir:A.B.Own",
        "elixir:A.B.back/0",
        "elixir:A.Json",
        "elixir:A.Json.decode/1",
        "elixir:A.Json.encode/1",
        "elixir:Top",
    ]
    assert got["elixir:A.B.C.D.E.deep/1"] == "A.B.C.D.E.deep(x)\n\nDeep."


def test_clauses_guards_defaults_patterns_and_operators() -> None:
    got = one(
        r"""defmodule Ops do
  @doc "Many clauses, one function; a later clause's @doc documents nothing more."
  def size([]), do: 0
  def size([_ | tail]) when is_list(tail), do: 1 + size(tail)
  @doc "A second @doc for size/1."
  def size(%{} = map), do: map_size(map)

  @doc "Another arity: a document of its own."
  def size(list, acc) when is_list(list) and is_integer(acc) do
    acc
  end

  @doc "Patterns: the name bound, else as written; defaults on several arguments."
  def slice(map = %{}, first..last//step = range, {a, b}, _opts, at \\ 0, by \\ 1) do
    {map, range, a, b, at, by}
  end

  @doc "No parentheses."
  def now, do: :now

  @doc "Adds."
  def left + right, do: left
  @doc "Negates."
  def -value, do: value
  @doc "Pipes."
  defmacro left |> right, do: right
  @doc "Membership."
  defmacro left in right, do: right
  @doc "A range with a step."
  defmacro first..last//step, do: step
  @doc "The full range."
  defmacro (..), do: nil
  @doc "A tuple."
  defmacro unquote(:{})(args), do: args
  @doc "Not."
  defmacro !{:!, _, [value]}, do: value
  @doc "Strictly not."
  def not value, do: value
  @doc "Matches."
  def left =~ "" when is_binary(left), do: true
  @doc "A binary's commas part no arguments."
  def decode(<<x, y>> = bin, <<_::8, rest::binary>>), do: {x, y, bin, rest}
  @doc "A sigil."
  defmacro sigil_X({:<<>>, _, [string]}, []) when is_binary(string), do: string
end
"""
    )
    assert sorted(got) == sorted([
        "elixir:Ops.!/1", "elixir:Ops.+/2", "elixir:Ops.-/1", "elixir:Ops.../0",
        "elixir:Ops...///3", "elixir:Ops.=~/2", "elixir:Ops.in/2", "elixir:Ops.not/1",
        "elixir:Ops.now/0", "elixir:Ops.sigil_X/2", "elixir:Ops.decode/2", "elixir:Ops.size/1", "elixir:Ops.size/2",
        "elixir:Ops.slice/6", "elixir:Ops.{}/1", "elixir:Ops.|>/2",
    ])  # fmt: skip
    assert got["elixir:Ops.size/1"] == (
        "Ops.size([])\n\nMany clauses, one function; a later clause's @doc documents nothing more."
    )
    assert got["elixir:Ops.size/2"] == (
        "Ops.size(list, acc)\n\nAnother arity: a document of its own."
    )
    assert got["elixir:Ops.slice/6"] == (
        "Ops.slice(map, range, {a, b}, opts, at \\\\ 0, by \\\\ 1)\n\n"
        "Patterns: the name bound, else as written; defaults on several arguments.\n\n"
        "Default arguments: may also be called as `slice/4`, `slice/5`."
    )
    heads = {uri: text.partition("\n")[0] for uri, text in got.items()}
    assert heads["elixir:Ops.now/0"] == "Ops.now()"
    assert heads["elixir:Ops.+/2"] == "Ops.+(left, right)"
    assert heads["elixir:Ops.-/1"] == "Ops.-(value)"
    assert heads["elixir:Ops.|>/2"] == "Ops.|>(left, right)"
    assert heads["elixir:Ops.in/2"] == "Ops.in(left, right)"
    assert heads["elixir:Ops...///3"] == "Ops...//(first, last, step)"
    assert heads["elixir:Ops.../0"] == "Ops...()"
    assert heads["elixir:Ops.{}/1"] == "Ops.{}(args)"
    assert heads["elixir:Ops.!/1"] == "Ops.!({:!, _, [value]})"
    assert heads["elixir:Ops.not/1"] == "Ops.not(value)"
    assert heads["elixir:Ops.=~/2"] == 'Ops.=~(left, "")'
    assert heads["elixir:Ops.decode/2"] == "Ops.decode(bin, <<_::8, rest::binary>>)"
    assert heads["elixir:Ops.sigil_X/2"] == "Ops.sigil_X({:<<>>, _, [string]}, [])"


def test_specs_are_matched_to_their_functions() -> None:
    got = one(
        r"""defmodule Calc do
  @doc "Adds."
  @spec integer + integer :: integer
  @spec float + float ::
          float
  def left + right, do: left

  @doc "Its specs after it, one for each arity its defaults give."
  def scale(x, by \\ 2), do: x * by
  @spec scale(number) :: number
  @spec scale(number, number) ::
          number
          | nil
  @spec other(t) :: t

  @doc "A when clause's variables stay as they are."
  @spec pick([elem, ...], pos_integer) :: elem when elem: var
  def pick(list, n), do: Enum.at(list, n)

  @doc "Old."
  @doc since: "1.1.0", deprecated: "Use now/0 instead"
  def then, do: :ok

  @doc "No parentheses in its spec."
  @spec now :: DateTime.t
  def now, do: DateTime.utc_now()
end
"""
    )
    assert got["elixir:Calc.+/2"].endswith(
        "Spec: `integer() + integer() :: integer()`\nSpec: `float() + float() :: float()`"
    )
    assert got["elixir:Calc.scale/2"].endswith(
        "Spec: `scale(number()) :: number()`\nSpec: `scale(number(), number()) :: number() | nil`"
    )
    assert got["elixir:Calc.pick/2"].endswith(
        "Spec: `pick([elem, ...], pos_integer()) :: elem when elem: var`"
    )
    assert got["elixir:Calc.now/0"].endswith("Spec: `now() :: DateTime.t()`")
    # a keyword @doc's since: and deprecated:
    assert got["elixir:Calc.then/0"] == (
        "Calc.then()\n\nOld.\n\nDeprecated: Use now/0 instead\n\nSince: 1.1.0"
    )


def test_type_text_writes_types_as_exdoc_does() -> None:
    assert type_text("map(t, (element -> any)) :: list", "Enum") == (
        "map(t(), (element() -> any())) :: list()"
    )
    assert type_text("fetch(term :: t, key) :: {:ok, value} | :error", "Access") == (
        "fetch(term :: t(), key()) :: {:ok, value()} | :error"
    )
    assert type_text("pop(data, key) :: {value, data} when data: container", "Access") == (
        "pop(data, key()) :: {value(), data} when data: container()"
    )
    assert type_text("t :: %__MODULE__{a: :erlang.timestamp, b: [_]}", "X") == (
        "t() :: %X{a: :erlang.timestamp(), b: [_]}"
    )
    assert type_text('s :: <<_::8>> | "lit" | :"at om" | true', "X") == (
        's() :: <<_::8>> | "lit" | :"at om" | true'
    )


def test_the_scanner_tells_literals_and_comments_from_code() -> None:
    text = (
        'x = "do #{if y, do: "end", else: "}"} fn" # end do\n'
        'c = [?#, ?", ?\\\\, ?}, :do, :end, :"fn do", :{}, do: 1, end: 2]\n'
        "r = ~r/end|do(?=#)/i ++ ~w(do end)a ++ ~s{do \\} end} ++ ~S|end|\n"
        "h = '''\n  end\n  '''\n"
        'm = %{"do": 1} && fn -> :ok end\n'
    )
    code, literals = scan(text)
    assert len(code) == len(text)
    words = re.findall(r"(?<![\w:])(?:do|end|fn)(?![\w?!:])", code)
    assert words == ["fn", "end"]  # the one real fn ... end
    assert "#" not in code  # the comment blanked; ?# is no comment
    lines = code.split("\n")
    assert "do:" in code and "end:" in code and "}" not in lines[0]
    assert not set("{}") & set(lines[1])  # ?} and :{} are no brackets
    assert literal_value(text, literals[4]) == 'do #{if y, do: "end", else: "}"} fn'


def test_heredocs_are_dedented_and_escaped_as_elixir_does() -> None:
    text = (
        '@doc """\n'
        "    Indented by four; the closing delimiter by two.\n"
        '  A \\\\ backslash, a \\"quote\\", #{"an \\\\ interpolation"} as written.\n'
        "  \n"
        '  """\n'
        "@doc ~S'''\n"
        "  Raw: \\\\ and #{x}.\n"
        "  '''\n"
    )
    _, literals = scan(text)
    cooked, raw = literals[5], literals[text.index("~S")]  # (the string in the hole is one)
    assert literal_value(text, cooked) == (
        "  Indented by four; the closing delimiter by two.\n"
        'A \\ backslash, a "quote", #{"an \\\\ interpolation"} as written.\n\n'
    )
    assert literal_value(text, raw) == "Raw: \\\\ and #{x}.\n"


def test_literals_holding_do_end_hash_and_braces_change_no_structure() -> None:
    got = one(
        r'''defmodule Traps do
  @moduledoc """
  Heredoc content holding code: do
  defmodule Fake do
    def fake, do: :ok
  end
  """

  @doc ~S"""
  A raw heredoc: #{kept}, \n and a "quote".
  """
  def raw(x) do
    s = "do #{if x, do: "end", else: "}"} fn"
    c = 'end'
    r = ~r/end|do(?=#)/i
    w = ~w(do end fn)a
    b = ~s{do \} end}
    p = ~S|end|
    h = ~S"""
    end
    """
    q = fn c -> c == ?# end
    d = fn c -> c == ?" end
    e = ?\\
    a = [:do, :end, :"end do", :fn, do: 1, end: 2]
    m = %{"do": 1}
    t = :{}
    {s, c, r, w, b, p, h, q, d, e, a, m, t}
  end

  def banner(msg) do
    """
    #Inspect.Error<
      #{msg}
    >\
    """
  end

  @doc "Still in `Traps`: every literal above ended."
  def after_traps(x), do: fn y -> x + y end

  @doc "One line: `do:` opens no block."
  def one_line(x), do: if(x, do: :yes, else: :no)

  @doc "A @doc whose value " <>
         "goes on: its first string is read."
  def joined, do: :ok
end
'''
    )
    assert sorted(got) == [
        "elixir:Traps",
        "elixir:Traps.after_traps/1",
        "elixir:Traps.joined/0",
        "elixir:Traps.one_line/1",
        "elixir:Traps.raw/1",
    ]
    assert got["elixir:Traps"] == (
        "Traps\n\nHeredoc content holding code: do\ndefmodule Fake do\n  def fake, do: :ok\nend"
    )
    assert got["elixir:Traps.raw/1"] == (
        'Traps.raw(x)\n\nA raw heredoc: #{kept}, \\n and a "quote".'
    )
    assert got["elixir:Traps.joined/0"] == "Traps.joined()\n\nA @doc whose value"


def test_doc_text_fences_indented_code_and_keeps_the_rest() -> None:
    doc = (
        "Summary.\n\n"
        "    iex> 1 + 1\n    2\n\n"
        "A list:\n\n"
        "  * `:a` - the first\n"
        "    goes on\n\n"
        "    and a paragraph of the item\n\n"
        "        code in the item\n\n"
        "  * `:b` - the second\n\n"
        "Back at the margin:\n\n"
        "    plain code\n\n"
        "```erlang\n    indented inside a fence\n```\n"
    )
    assert doc_text(doc) == (
        "Summary.\n\n"
        "```elixir\niex> 1 + 1\n2\n```\n\n"
        "A list:\n\n"
        "  * `:a` - the first\n"
        "    goes on\n\n"
        "    and a paragraph of the item\n\n"
        "    ```elixir\n    code in the item\n    ```\n\n"
        "  * `:b` - the second\n\n"
        "Back at the margin:\n\n"
        "```elixir\nplain code\n```\n\n"
        "```erlang\n    indented inside a fence\n```"
    )


def test_questions_about_an_elixir_function() -> None:
    """What the generator asks about an ExDoc-named function (`/arity` off for its
    signature line, `arg \\\\ default` read for the argument's name)."""
    assert "elixir:" in parse.API_PREFIXES
    docs, _ = docs_by_uri()
    asked = ask(docs["elixir:Spool.open/2"])
    assert asked["what_does"] == "Opens the queue in `dir`."
    assert asked["signature"].startswith("`Spool.open(")
    assert asked["arguments"].startswith("`Spool.open/2` takes 2 arguments:")
    module = ask(docs["elixir:Spool"])
    assert module["what_does"] == "Spool runs jobs from a queue kept on disk."


def test_any_text_scans_without_an_error() -> None:
    """Unterminated strings, heredocs, sigils and interpolations, stray `end`s and
    brackets: the scanner and the walker end."""
    pieces = [
        "defmodule M do\n", "defmodule N.O do\n", '@moduledoc """\nA module.\n"""\n',
        '@doc "A doc."\n', "@doc false\n", '@doc since: "1.0"\n', "@spec f(t) :: t\n",
        "@callback c(x :: t) :: :ok\n", '@typedoc "T."\n', "@type t :: term\n", "def ",
        "defp ", "defmacro ", "defstruct [:a, b: 1]\n", "defimpl P, for: X do\n",
        "f", "(a, b \\\\ 1)", " when is_list(a)", " do\n", ", do: 1\n", "end\n", "fn x -> ",
        "\n", " ", "{", "}", "(", ")", "[", "]", '"', "'", '"""\n', "'''\n", "#{", "# c\n",
        "~s(", '~S"""\n', "~r/", "/", "?#", "?\\\\", "?", ":do", ':"', "::", ":",
        "left + right", "unquote(:{})", "\\\\", "|>",
    ]  # fmt: skip

    def read(text: str) -> list[Document]:
        return api_documents([ElixirFile(P("lib/m.ex"), "m", text)], "local")

    assert fuzzed(read, pieces, "elixir:") > 0  # some random texts document something


def test_a_mix_projects_elixir_is_read_as_its_api(tmp_path: Path) -> None:
    tree = {
        "mix.exs": "defmodule Spool.MixProject do\n  use Mix.Project\nend\n",
        "lib/spool.ex": (
            'defmodule Spool do\n  @moduledoc "Winds thread."\n\n'
            '  @doc "Winds `n` turns."\n  def wind(reel, n \\\\ 1), do: {reel, n}\nend\n'
        ),
        "test/spool_test.ex": 'defmodule SpoolTest do\n  @moduledoc "A test."\nend\n',
    }
    write_tree(tmp_path / "p", tree)
    entry = source_entry(str(tmp_path / "p"))
    assert "*.ex" in entry["include"]  # type: ignore[operator]
    docs, rejects = collect_tree(tmp_path, tree, list(entry["include"]))  # type: ignore[call-overload]
    assert sorted(u for u in docs if u.startswith("elixir:")) == [
        "elixir:Spool",
        "elixir:Spool.wind/2",
    ]
    assert dict(rejects.rejects)["elixir_test"] == 1
    asked = ask(docs["elixir:Spool.wind/2"])
    assert asked["signature"] == "`Spool.wind(reel, n \\\\ 1)`"
    assert asked["arguments"].startswith("`Spool.wind/2` takes 2 arguments: reel, n \\\\ 1.")
    whole, _ = collect_tree(tmp_path / "t", tree, ["*.ex"], elixir="text")
    assert not any(u.startswith("elixir:") for u in whole)
