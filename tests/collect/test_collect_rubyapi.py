"""Ruby read as its library's API, as YARD and RDoc read it: a gem's files scanned, never
run, each public module, class, method, attribute and constant with a doc comment a
document; and the questions the generator then asks about one."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import ask, collect_tree, fuzzed, write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import CollectResult
from jupiter.collect.rubyapi import FIXES, RubyFile, api_documents, is_ruby, scan
from jupiter.config.cli import source_entry
from jupiter.records import Document

SPOOL = r"""# frozen_string_literal: true
# Copyright (c) the spool authors. Released under the MIT license.

require "spool/queue"

# Spool runs jobs from a queue kept on disk.
#
# === Getting started
#
# Open a queue with Spool.open:
#
#   q = Spool.open("/tmp/q")
#   q.push("mail")
module Spool
  # The version of the gem.
  VERSION = "1.4.0"

  # Seconds a worker sleeps when the queue is empty.
  IDLE = 5 # :nodoc:

  class << self
    # The folder new queues are opened in.
    attr_accessor :root

    # Opens the queue in +dir+.
    #
    # @param dir [String] the folder
    # @return [Spool::Queue] the opened queue
    def open(dir = root, **opts, &block)
      Queue.new(dir, **opts, &block)
    end

    private

    # Not the API: a private singleton method.
    def reset!; end
  end

  # Helpers usable as <tt>Spool::Paths.join</tt>.
  module Paths
    module_function

    # Joins the parts with slashes.
    def join(*parts) = parts.join("/")
  end
end
"""

QUEUE = r"""module Spool
  # A queue of jobs kept in one folder.
  #
  # @example Pushing a job
  #   queue = Spool::Queue.new("/tmp/q")
  #   queue.push("mail", to: "ann")
  class Queue < Base
    # How many jobs run at once.
    # @return [Integer]
    attr_accessor :workers, :limit

    TEMPLATE = <<~RUBY
      def trap
      end
      class Trap
    RUBY

    # Creates a queue in +dir+.
    #
    # @param dir [String] the folder the jobs are kept in
    # @param options [Hash] how the queue runs
    # @option options [Integer] :workers (2) how many jobs run at once
    # @option options [Boolean] :sync whether a push waits
    # @raise [ArgumentError] when +dir+ is not a folder
    def initialize(dir, options = {})
      @dir = dir
      @label = "def #{dir.map { |d| "}#{d}" }} end"
      raise ArgumentError, "not a folder: end" unless File.directory?(dir)
    end

    # Adds a job with its payload at the end of the queue.
    #
    # Jobs run in the order they were pushed: *first* in, _first_ out.
    #
    # @param name [String] the job's name
    # @param payload [Hash] what the job works on
    # @yield [job] the job, before it is saved
    # @return [Integer] the job's position in the queue
    # @see #pop
    def push(name, payload = {}, *tags, key:, at: nil, **meta, &block)
      return 0 if name.empty?
      while full? do sleep 1 end
      %w[def end class].each { |w| w }
      pattern = %r{\A/end/}
      ch = ?e
      payload[:end] = name =~ /end$/
      position
    end

    # Takes the first job off the queue.
    #
    # ==== Returns
    # The job, or +nil+ when the queue is empty.
    def pop = @jobs.shift

    # Compares two queues by folder.
    def ==(other)
      other.is_a?(Queue) && other.dir == dir
    end

    # Whether nothing waits.
    def empty?; @jobs.empty?; end

    # Reads old queues.
    #
    # @deprecated Use {#push} instead.
    # @api private
    def legacy; end

    # Counts the jobs.
    def count # :nodoc:
      @jobs.size
    end

    # Made private below.
    def compact; end
    private :compact

    private

    # Not the API: a private method.
    def position
      @jobs.size
    end

    public

    # The folder, as given.
    def dir
      @dir
    end
  end
end
"""

UNDOCUMENTED = "module Spool\n  class Lock\n    def take; end\n  end\nend\n"
SPEC = "# Tests the queue.\nRSpec.describe Spool::Queue do\n  # A helper.\n  def helper; end\nend\n"
TREE = {
    "lib/spool.rb": SPOOL,
    "lib/spool/queue.rb": QUEUE,
    "lib/spool/lock.rb": UNDOCUMENTED,
    "spec/queue_spec.rb": SPEC,
    "lib/spool/queue_test.rb": "# A test.\nclass QueueTest; end\n",
}
EXPECTED = [
    "ruby:Spool",
    "ruby:Spool.open",
    "ruby:Spool.root",
    "ruby:Spool::Paths",
    "ruby:Spool::Paths.join",
    "ruby:Spool::Queue",
    "ruby:Spool::Queue#==",
    "ruby:Spool::Queue#dir",
    "ruby:Spool::Queue#empty?",
    "ruby:Spool::Queue#initialize",
    "ruby:Spool::Queue#limit",
    "ruby:Spool::Queue#pop",
    "ruby:Spool::Queue#push",
    "ruby:Spool::Queue#workers",
    "ruby:Spool::VERSION",
]
REJECTS = {"ruby_no_api": 1, "ruby_test": 2}


def docs_by_uri(tree: dict[str, str] = TREE) -> tuple[dict[str, Document], CollectResult]:
    files = [RubyFile(P(rel), f"/src/{rel}", text, {"lang": "rb"}) for rel, text in tree.items()]
    rejects = CollectResult()
    docs = api_documents(files, "local", rejects)
    return {d.uri: d for d in docs}, rejects


def test_a_local_folder_and_a_git_repository_read_the_same_api(tmp_path: Path) -> None:
    """*.rb read as the gem's API from a folder (its include) and from git (the default
    globs); `ruby: text` reads them as text; `jupiter init` adds *.rb for a Gemfile."""
    docs, rejects = collect_tree(tmp_path / "a", TREE, ["*.rb"])
    assert sorted(uri for uri in docs if uri.startswith("ruby:")) == EXPECTED
    assert rejects.rejects == REJECTS
    as_text, _ = collect_tree(tmp_path / "b", TREE, ["*.rb"], ruby="text")
    assert not [uri for uri in as_text if uri.startswith("ruby:")]
    write_tree(tmp_path / "repo", TREE)
    sha = commit_all(tmp_path / "repo")
    result = collect_repo(tmp_path)
    got = {d.uri: d for d in result.documents if d.uri.startswith("ruby:")}
    assert sorted(got) == EXPECTED and result.rejects == REJECTS
    meta = got["ruby:Spool::Queue#push"].meta
    assert (meta["commit"], meta["path"], meta["language"]) == (sha, "lib/spool/queue.rb", "ruby")
    write_tree(tmp_path / "gem", {"Gemfile": "source 'https://rubygems.org'\n", "lib/a.rb": ""})
    assert "*.rb" in source_entry(str(tmp_path / "gem"))["include"]  # type: ignore[operator]


def test_a_gem_becomes_its_documented_public_api() -> None:
    docs, rejects = docs_by_uri()
    assert sorted(docs) == EXPECTED
    assert rejects.rejects == REJECTS
    assert set(rejects.samples["ruby_test"]) == {
        "/src/spec/queue_spec.rb",
        "/src/lib/spool/queue_test.rb",
    }
    assert set(FIXES) == {"ruby_test", "ruby_no_api"}
    assert is_ruby("lib/spool.rb") and not is_ruby("Gemfile")
    text = {uri: d.text for uri, d in docs.items()}
    # the magic comment and the license header are no doc; an RDoc heading becomes a
    # Markdown one, an indented block a fenced one
    assert text["ruby:Spool"] == (
        "Spool\n\nSpool runs jobs from a queue kept on disk.\n\n### Getting started\n\n"
        "Open a queue with Spool.open:\n\n"
        '```\nq = Spool.open("/tmp/q")\nq.push("mail")\n```'
    )
    # @param, @option, @raise as the templates read them; braces and quotes inside an
    # interpolation and `end` in strings end nothing
    assert text["ruby:Spool::Queue#initialize"] == (
        "Spool::Queue#initialize(dir, options = {})\n\n"
        "Creates a queue in `dir`.\n\n"
        ":param dir: (`String`) the folder the jobs are kept in\n"
        ":param options: (`Hash`) how the queue runs\n"
        "  - `:workers` (`Integer`; default `2`): how many jobs run at once\n"
        "  - `:sync` (`Boolean`): whether a push waits\n"
        ":raises ArgumentError: when `dir` is not a folder"
    )
    # every kind of parameter as written; *bold* and _em_ as text; the yield, return and
    # see tags as lines; %w[], %r{}, ?e, :end and a regexp holding `end` end nothing
    assert text["ruby:Spool::Queue#push"] == (
        "Spool::Queue#push(name, payload = {}, *tags, key:, at: nil, **meta, &block)\n\n"
        "Adds a job with its payload at the end of the queue.\n\n"
        "Jobs run in the order they were pushed: first in, first out.\n\n"
        ":param name: (`String`) the job's name\n"
        ":param payload: (`Hash`) what the job works on\n\n"
        "Yields |job|: the job, before it is saved\n\n"
        ":returns: the job's position in the queue\n\n"
        "See also: `#pop`"
    )
    # an endless def; a Returns section's text is the :returns: field
    assert text["ruby:Spool::Queue#pop"] == (
        "Spool::Queue#pop()\n\nTakes the first job off the queue.\n\n#### Returns\n\n"
        ":returns: The job, or `nil` when the queue is empty."
    )
    # an @example with its title; the superclass
    assert text["ruby:Spool::Queue"] == (
        "Spool::Queue\n\nA queue of jobs kept in one folder.\n\nExample: Pushing a job\n\n"
        '```ruby\nqueue = Spool::Queue.new("/tmp/q")\nqueue.push("mail", to: "ann")\n```\n\n'
        "Superclass: `Base`"
    )
    # each name of an attr_accessor its own document; what @return says of it, its type
    assert text["ruby:Spool::Queue#limit"] == (
        "Spool::Queue#limit\n\nHow many jobs run at once.\n\nType: `Integer`\n\n"
        "Read-write attribute."
    )
    assert text["ruby:Spool::VERSION"] == (
        'Spool::VERSION\n\nThe version of the gem.\n\nValue: `"1.4.0"`'
    )
    # `class << self` and module_function: class methods, Ruby's `.`
    assert text["ruby:Spool.open"] == (
        "Spool.open(dir = root, **opts, &block)\n\nOpens the queue in `dir`.\n\n"
        ":param dir: (`String`) the folder\n:returns: the opened queue"
    )
    assert text["ruby:Spool.root"].endswith(
        "The folder new queues are opened in.\n\nRead-write attribute."
    )
    assert (
        text["ruby:Spool::Paths.join"]
        == "Spool::Paths.join(*parts)\n\nJoins the parts with slashes."
    )
    assert text["ruby:Spool::Paths"] == "Spool::Paths\n\nHelpers usable as `Spool::Paths.join`."
    # an operator method; a method after a private section opened again with `public`
    assert (
        text["ruby:Spool::Queue#=="] == "Spool::Queue#==(other)\n\nCompares two queues by folder."
    )
    assert text["ruby:Spool::Queue#dir"] == "Spool::Queue#dir()\n\nThe folder, as given."
    meta = docs["ruby:Spool::Queue#push"].meta
    assert meta == {
        "lang": "rb",
        "kind": "method",
        "qualname": "Spool::Queue#push",
        "signature": "(name, payload = {}, *tags, key:, at: nil, **meta, &block)",
        "origin": "/src/lib/spool/queue.rb",
        "line": 40,
    }
    assert [docs[u].meta["kind"] for u in EXPECTED] == [
        "module", "class_method", "class_attribute", "module", "class_method", "class",
        "method", "method", "method", "constructor", "attribute", "method", "method",
        "attribute", "constant",
    ]  # fmt: skip
    assert docs["ruby:Spool::Queue"].title == "Spool::Queue"


def test_questions_about_a_ruby_api() -> None:
    docs, _ = docs_by_uri()
    push = ask(docs["ruby:Spool::Queue#push"])
    assert push["what_does"] == "Adds a job with its payload at the end of the queue."
    assert push["signature"] == (
        "`Spool::Queue#push(name, payload = {}, *tags, key:, at: nil, **meta, &block)`"
    )
    assert push["arguments"].startswith(
        "`Spool::Queue#push` takes 6 arguments: name, payload = {}, *tags, key:, at: nil, "
        "**meta. Keyword-only: key, at.\n\n"
    )
    assert "- name: (`String`) the job's name" in push["arguments"]
    assert "- payload: (`Hash`) what the job works on" in push["arguments"]
    assert push["returns"] == "the job's position in the queue"
    built = ask(docs["ruby:Spool::Queue#initialize"])
    assert built["signature"] == "`Spool::Queue#initialize(dir, options = {})`"
    assert built["arguments"] == (
        "`Spool::Queue#initialize` takes 2 arguments: dir, options = {}.\n\n"
        "- dir: (`String`) the folder the jobs are kept in\n"
        "- options: (`Hash`) how the queue runs - `:workers` (`Integer`; default `2`): how "
        "many jobs run at once - `:sync` (`Boolean`): whether a push waits"
    )
    # a class method and a class: their names are no module's
    assert ask(docs["ruby:Spool.open"])["signature"] == "`Spool.open(dir = root, **opts, &block)`"
    queue = ask(docs["ruby:Spool::Queue"])
    assert queue["what_does"] == "A queue of jobs kept in one folder."
    assert "signature" not in queue


def test_visibility_and_rdoc_directives_leave_items_out() -> None:
    docs, _ = docs_by_uri()
    uris = set(docs)
    # private section, private :x, a private singleton method, :nodoc: after a method and
    # a constant, @api private
    for left_out in (
        "ruby:Spool::Queue#position",
        "ruby:Spool::Queue#compact",
        "ruby:Spool.reset!",
        "ruby:Spool::Queue#count",
        "ruby:Spool::IDLE",
        "ruby:Spool::Queue#legacy",
    ):
        assert left_out not in uris
    source = """module Box
  # Hidden, and all inside it.
  class Secret # :nodoc: all
    # Not shown.
    class Inner; end
  end
  # Its members hidden, its nested classes not.
  class Quiet # :nodoc:
    # Not shown.
    def shown?; end
    # Shown.
    class Loud; end
  end
  # :stopdoc:
  # Not shown.
  def stopped; end
  # :startdoc:
  # Shown.
  def started; end
  # A private constant's class.
  class Internal; end
  private_constant :Internal
  # Shown, in a public section of a class body.
  protected def guarded; end
  # Private with a symbol list.
  def one; end
  # Private with a symbol list.
  def two; end
  private :one, "two"
  # @!visibility private
  def invisible; end
  ##
  # RDoc's `##` opening, and text hidden by --/++:
  #--
  # internal note
  #++
  # shown after it.
  def marked; end
  # TODO: not a doc.
  def todo; end
end
"""
    got, rejects = docs_by_uri({"lib/box.rb": source})
    assert sorted(got) == ["ruby:Box#marked", "ruby:Box#started", "ruby:Box::Quiet::Loud"]
    assert got["ruby:Box#marked"].text == (
        "Box#marked()\n\nRDoc's `##` opening, and text hidden by --/++:\nshown after it."
    )
    assert rejects.rejects == {}


def test_directives_and_tags_make_their_own_documents() -> None:
    source = """module Http
  # Options of a request.
  #
  # @!attribute [r] timeout
  #   @return [Integer] seconds to wait
  # @!attribute verbose
  #   Whether to log.
  class Options < Struct; end

  class Client
    # @!method get(url, params = nil)
    # Makes a GET request.
    # @param url [String] where to
    # @return [Response]

    # @overload call(env)
    #   Runs the request.
    #   @param env [Hash] the request's environment
    #   @return [Array] the response
    def call(*args)
    end

    # Also documented.
    alias_method :perform, :call
  end
end
"""
    docs, _ = docs_by_uri({"lib/http.rb": source})
    assert sorted(docs) == [
        "ruby:Http::Client#call",
        "ruby:Http::Client#get",
        "ruby:Http::Client#perform",
        "ruby:Http::Options",
        "ruby:Http::Options#timeout",
        "ruby:Http::Options#verbose",
    ]
    text = {uri: d.text for uri, d in docs.items()}
    # the class's own text without its directives' blocks
    assert text["ruby:Http::Options"] == (
        "Http::Options\n\nOptions of a request.\n\nSuperclass: `Struct`"
    )
    assert text["ruby:Http::Options#timeout"] == (
        "Http::Options#timeout\n\nSeconds to wait\n\nType: `Integer`\n\nRead-only attribute."
    )
    assert text["ruby:Http::Options#verbose"] == (
        "Http::Options#verbose\n\nWhether to log.\n\nRead-write attribute."
    )
    # a free-standing @!method: the comment's text is the method's
    assert text["ruby:Http::Client#get"] == (
        "Http::Client#get(url, params = nil)\n\nMakes a GET request.\n\n"
        ":param url: (`String`) where to\n:returns: `Response`"
    )
    assert text["ruby:Http::Client#call"] == (
        "Http::Client#call(*args)\n\nOverload `call(env)`:\n\nRuns the request.\n\n"
        ":param env: (`Hash`) the request's environment\n:returns: the response"
    )
    assert text["ruby:Http::Client#perform"] == (
        "Http::Client#perform(*args)\n\nAlso documented.\n\nAlias of `call`."
    )


def test_rdoc_labelled_lists_and_margin_examples() -> None:
    source = """class Thor
  # Copies a file.
  #
  # ==== Parameters
  # source<String>:: the relative path to the source root.
  # config<Hash>:: give :verbose => false to not log the status,
  #                and :mode => :preserve to keep the mode.
  # shell<Thor::Shell>
  #
  # ==== Options
  # :force:: overwrite the file.
  #
  # ==== Examples
  #
  #   copy_file "README", "doc/README"
  #
  def copy_file(source, *args, &block)
  end

  # Asks the user.
  #
  # ==== Example
  # ask("What is your name?")
  #
  # ask("Your age?", :limited_to => ["1", "2"])
  #
  def ask(statement, *args)
  end
end
"""
    docs, _ = docs_by_uri({"lib/thor.rb": source})
    assert docs["ruby:Thor#copy_file"].text == (
        "Thor#copy_file(source, *args, &block)\n\nCopies a file.\n\n#### Parameters\n\n"
        ":param source: (`String`) the relative path to the source root.\n"
        ":param config: (`Hash`) give :verbose => false to not log the status, and :mode => "
        ":preserve to keep the mode.\n"
        ":param shell: (`Thor::Shell`)\n\n#### Options\n\n- :force: overwrite the file.\n\n"
        '#### Examples\n\n```\ncopy_file "README", "doc/README"\n```'
    )
    assert docs["ruby:Thor#ask"].text == (
        "Thor#ask(statement, *args)\n\nAsks the user.\n\n#### Example\n\n"
        '```\nask("What is your name?")\n\nask("Your age?", :limited_to => ["1", "2"])\n```'
    )


def test_literals_and_blocks_that_look_like_code_change_no_structure() -> None:
    """Every literal holding `def`, `class` or `end`, every block form and modifier: the
    methods after them still belong to the class they stand in."""
    source = """module Trap
  class Box
=begin
def inside_a_comment
end
=end
    RAW = <<~'EOS'
      #{ def } end
    EOS
    DASHED = <<-EOS + <<EOS
      class Dashed
      EOS
def plain
EOS
    WORDS = %i<def end> + %Q[class #{"end"}] + [:"end", ?d, %q(e(n)d)]

    # Sorts the box.
    def sort(items)
      for item in items do item end
      case items
      when /end/ then 1
      else 2
      end
      begin
        sleep 1 while busy?
        retry_it until done?
      rescue StandardError => e
        e
      end
      items.map { |i| i }.select do |i| i end
      x = if items.empty? then 0 else 1 end
      y = unless items then 1 end
      items.sort_by { _1 }
    end

    # Made by `def Box.build`.
    def Box.build; end

    # A class method of another constant.
    def Other.make; end

    # Kept private with private_class_method.
    def self.helper; end
    private_class_method :helper

    # Private by a private_class_method before it.
    private_class_method def self.secret; end

    # A rubocop directive in a doc is no text.
    # rubocop:disable Metrics/MethodLength
    # @yieldparam item [Object] each item
    # @yieldreturn [Boolean] whether to keep it
    # @since 2.0
    # @note Slow on big boxes.
    # @deprecated Use {Box#sort} instead.
    def filter
    end
  end
end
"""
    docs, _ = docs_by_uri({"lib/trap.rb": source})
    assert sorted(docs) == [
        "ruby:Trap::Box#filter",
        "ruby:Trap::Box#sort",
        "ruby:Trap::Box.build",
        "ruby:Trap::Box::Other.make",
    ]
    assert docs["ruby:Trap::Box#filter"].text == (
        "Trap::Box#filter()\n\nA rubocop directive in a doc is no text.\n\n"
        "Block parameter item: (`Object`) each item\n\n"
        "Block returns: (`Boolean`) whether to keep it\n\n"
        "Since: 2.0\n\nNote: Slow on big boxes.\n\nDeprecated: Use `Box#sort` instead."
    )
    assert docs["ruby:Trap::Box#sort"].meta["line"] == 18


def test_the_scanner_tells_literals_and_comments_from_code() -> None:
    text = (
        'x = "a #{b.map { |c| "#{c}}" }} end" if y # def end\n'
        "z = %w[end def] + %Q{a {nested} end} + [?e, :end, /def/, 'class']\n"
        "q = <<~EOS.strip + <<-'RAW'\n  def\n  EOS\n    end\n    RAW\n"
        "=begin\nclass X\n=end\n"
        "w = a / 2 / 3\n"
        "__END__\ndef data\n"
    )
    code, comments = scan(text)
    assert len(code) == len(text)
    assert code.count("def") == 0 and code.count("class") == 0
    assert code.count("end") == 1  # the symbol :end, kept as code
    assert [c.text for c in comments] == [" def end", "=begin\nclass X\n=end"]
    assert "w = a / 2 / 3" in code  # divisions, no regexp


def test_any_text_scans_without_an_error() -> None:
    """Unterminated strings, heredocs, regexps and =begin blocks, stray `end`s and
    brackets: the scanner and the walker end."""
    pieces = [
        "# A doc.\n", "# @param x [Integer] the x\n", "module M\n", "class C < B\n", "def ",
        "self.", "f", "(a, b = 1)", "?", "=", "end\n", "\n", " ", ";", "{", "}", "(", ")",
        "[", "]", '"', "'", "`", "#{", "%w[", "%q(", "%r{", "/", "<<~EOS\n", "EOS\n", "?a",
        ":sym", "attr_reader :a\n", "private\n", "class << self\n", "X = 1\n", "if ", "while ",
        " do |x| ", "=begin\n", "=end\n", "# @!method m(a)\n", "$'", "\\", "__END__\n",
    ]  # fmt: skip

    def read(text: str) -> list[Document]:
        return api_documents([RubyFile(P("lib/m.rb"), "m", text)], "local")

    assert fuzzed(read, pieces, "ruby:") > 0  # some random texts document something
