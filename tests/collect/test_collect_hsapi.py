"""Haskell read as its package's API, as Haddock reads it: source files scanned, never
compiled, each module with a header doc and each exported function, type, constructor,
record field, class and method with a Haddock comment a document named by its module
(`haskell:Data.Queue.push`); and the questions the generator then asks about one."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import ask, collect_tree, fuzzed, write_tree
from jupiter.collect import CollectResult
from jupiter.collect.hsapi import (
    FIXES,
    HASKELL_NO_API,
    HASKELL_TEST,
    SUFFIXES,
    URI_PREFIX,
    HaskellFile,
    _inline,
    api_documents,
    doc_text,
    is_haskell,
    scan,
)
from jupiter.config.cli import source_entry
from jupiter.records import Document
from jupiter.synth import parse

QUEUE = r"""{-# LANGUAGE BangPatterns #-}
{-|
Module      : Data.Queue
Description : Queues kept in two lists.
Copyright   : (c) Someone, 2024
License     : BSD3
Maintainer  : someone@example.com

A queue: 'push' at the back, 'pop' at the front.
-}
module Data.Queue
  ( -- * Queues
    Queue(..)
  , Shape(Circle)
  , Walker(..)
  , push
  , pop, (<|>), first, second
  , foldQ
    -- $notes
  , module Data.Maybe
  ) where

import Data.Maybe

-- $notes
-- A named chunk documents nothing.

#if MIN_VERSION_base(4,9,0)
import Data.Semigroup
#endif

-- | A queue of @a@s.
--
-- @since 1.2.0
data Queue a = Queue
  { front :: [a]  -- ^ what 'pop' takes from
  , back  :: ![a] -- ^ what 'push' adds to
  , size  :: Int
  } deriving (Show)

-- | A shape.
data Shape
  = Circle Double   -- ^ a circle, by its radius
  | -- | a square, by its side
    Square Double
  deriving Eq

-- | Adds an element at the back: "-- not a comment" and {- neither -}.
push :: a -> Queue a -> Queue a
push x q = q { back = x : back q }

{- | Takes the front element, if any. {- a nested comment -} still the doc. -}
pop :: Queue a   -- ^ the queue
    -> Maybe (a, Queue a) -- ^ the element and the rest
pop q = case front q of
  (x:xs) -> Just (x, q { front = xs })
  [] -> Nothing

-- | Both ends, one name after the other.
first, second :: Queue a -> Maybe a
first = undefined
second = undefined

-- | Either queue's elements, left first.
(<|>) :: Queue a -> Queue a -> Queue a
a <|> b = a

-- | Folds the queue with
-- the combining function.
foldQ :: (Ord a, Show a)
      => (a -> b -> b)  -- ^ the combining function
      -> b              -- ^ the initial value
      -> Queue a
      -> b
foldQ f' z q = let c = '\'' ; d = 'x' ; e = foldl' in z

-- | Not exported: no document.
hidden :: Int
hidden = 1

-- | Things that walk a queue.
class (Show w) => Walker w where
  -- | One step.
  step :: w -> Int
  -- | All steps.
  walk :: w
       -> [Int] -- ^ the steps
  walk = undefined

undocumented :: Int
undocumented = 2
"""


def read(text: str, rel: str = "src/Data/Queue.hs") -> dict[str, Document]:
    return {d.uri: d for d in api_documents([HaskellFile(P(rel), rel, text)], "local")}


def test_a_module_becomes_its_documented_exported_api() -> None:
    docs = read(QUEUE)
    assert sorted(docs) == [
        "haskell:Data.Queue",
        "haskell:Data.Queue.<|>",
        "haskell:Data.Queue.Circle",
        "haskell:Data.Queue.Queue",
        "haskell:Data.Queue.Shape",
        "haskell:Data.Queue.Walker",
        "haskell:Data.Queue.back",
        "haskell:Data.Queue.first",
        "haskell:Data.Queue.foldQ",
        "haskell:Data.Queue.front",
        "haskell:Data.Queue.pop",
        "haskell:Data.Queue.push",
        "haskell:Data.Queue.second",
        "haskell:Data.Queue.step",
        "haskell:Data.Queue.walk",
    ]  # Square: its type exports Circle only; hidden: not exported
    assert docs["haskell:Data.Queue"].text == (
        "Data.Queue\n\nQueues kept in two lists.\n\nA queue: `push` at the back, `pop` at the front."
    )
    assert (
        docs["haskell:Data.Queue.Queue"].text == "data Queue a\n\nA queue of `a`s.\n\nSince: 1.2.0"
    )
    assert docs["haskell:Data.Queue.front"].text == "front :: [a]\n\nwhat `pop` takes from"
    assert docs["haskell:Data.Queue.back"].text == "back :: [a]\n\nwhat `push` adds to"
    assert docs["haskell:Data.Queue.Circle"].text == "Circle Double\n\na circle, by its radius"
    assert docs["haskell:Data.Queue.push"].text == (
        "push :: a -> Queue a -> Queue a\n\n"
        'Adds an element at the back: "-- not a comment" and {- neither -}.'
    )
    assert docs["haskell:Data.Queue.pop"].text == (
        "pop :: Queue a -> Maybe (a, Queue a)\n\n"
        "Takes the front element, if any. {- a nested comment -} still the doc.\n\n"
        "Argument 1 (Queue a): the queue\n\n:returns: the element and the rest"
    )
    assert docs["haskell:Data.Queue.first"].text == (
        "first :: Queue a -> Maybe a\n\nBoth ends, one name after the other."
    )
    assert docs["haskell:Data.Queue.second"].text.startswith("second :: Queue a -> Maybe a")
    assert docs["haskell:Data.Queue.<|>"].text.startswith("(<|>) :: Queue a -> Queue a")
    assert docs["haskell:Data.Queue.foldQ"].text == (
        "foldQ :: (Ord a, Show a) => (a -> b -> b) -> b -> Queue a -> b\n\n"
        "Folds the queue with\nthe combining function.\n\n"
        "Argument 1 (a -> b -> b): the combining function\nArgument 2 (b): the initial value"
    )
    assert docs["haskell:Data.Queue.Walker"].text == "class Walker w\n\nThings that walk a queue."
    assert docs["haskell:Data.Queue.step"].text == "step :: w -> Int\n\nOne step."
    assert docs["haskell:Data.Queue.walk"].text == (
        "walk :: w -> [Int]\n\nAll steps.\n\n:returns: the steps"
    )
    meta = docs["haskell:Data.Queue.foldQ"].meta
    assert meta["kind"] == "function" and meta["language"] == "haskell"
    assert meta["signature"].startswith("(Ord a, Show a) =>") and meta["line"] == 70


def test_without_an_export_list_every_top_level_name_is_api() -> None:
    docs = read(
        "-- | A module with no export list.\nmodule M where\n\n"
        "-- | Not exported elsewhere.\nhelper :: Int\nhelper = 1\n\n"
        "-- | A synonym.\ntype Name = String\n\n"
        "-- | A family.\ntype family Elem c\n\n"
        "-- | A wrapper.\nnewtype Wrap a = Wrap { unwrap :: a -- ^ the value\n }\n\n"
        "-- | A GADT.\ndata Expr a where\n  -- | a literal\n  Lit :: Int -> Expr Int\n"
    )
    assert docs["haskell:M"].text == "M\n\nA module with no export list."
    assert docs["haskell:M.helper"].text == "helper :: Int\n\nNot exported elsewhere."
    assert docs["haskell:M.Name"].text == "type Name = String\n\nA synonym."
    assert docs["haskell:M.Elem"].text == "type family Elem c\n\nA family."
    assert docs["haskell:M.Wrap"].text == "newtype Wrap a\n\nA wrapper."
    assert docs["haskell:M.unwrap"].text == "unwrap :: a\n\nthe value"
    assert docs["haskell:M.Expr"].text == "data Expr a\n\nA GADT."
    assert docs["haskell:M.Lit"].text == "Lit :: Int -> Expr Int\n\na literal"
    assert docs["haskell:M.Lit"].meta["kind"] == "constructor"


def test_the_scanner_tells_comments_and_literals_from_code() -> None:
    text = (
        "x = \"a -- b {- c\" ++ ['-', '{', '\\'']\n"
        "y' = foldl' (-->) z |-- w -- a comment\n"
        "{- outer {- inner -} still -} t = 'Just\n"
        "{-# INLINE t #-}\n#if FOO\nu = 1\n"
    )
    code, comments = scan(text)
    assert len(code) == len(text) and code.count("\n") == text.count("\n")
    assert "--" not in code.splitlines()[0] and "{" not in code.splitlines()[0]
    assert "foldl' (-->) z |-- w" in code and "a comment" not in code
    assert "inner" not in code and "t = 'Just" in code and "INLINE" not in code
    assert "FOO" not in code and "u = 1" in code
    assert [c.text for c in comments] == [" a comment", " outer {- inner -} still "]


def test_haddock_markup_becomes_markdown() -> None:
    text, since = doc_text(
        "See 'foldr', 'Data.List.foldl'', '<>' and \"Data.Map\".\n"
        "Use @map f xs@, /really/ and __bold__, <https://x.org the site>, [x](https://y)\n"
        "and \\@ and \\/.\n\n"
        "* one\n* two\n\n(1) first\n\n"
        ">>> map (+1) [1,2]\n[2,3]\n\n"
        "> let x = 1\n> in x\n\n"
        "@\nf 'x' = 1\n@\n\n@since 0.4"
    )
    assert since == "0.4"
    assert text == (
        "See `foldr`, `Data.List.foldl'`, `<>` and `Data.Map`.\n"
        "Use `map f xs`, *really* and **bold**, the site, [x](https://y)\n"
        "and @ and /.\n\n"
        "* one\n* two\n\n1. first\n\n"
        "```haskell\n>>> map (+1) [1,2]\n[2,3]\n```\n\n"
        "```haskell\nlet x = 1\nin x\n```\n\n"
        "```haskell\nf x = 1\n```"
    )


def test_named_chunks_and_headings_document_nothing() -> None:
    docs = read(
        "module N (\n  -- * Section\n  -- $chunk\n  f\n  ) where\n\n"
        "-- $chunk\n-- Some prose.\n\nf :: Int\nf = 1\n\n"
        "-- * not a heading here, a plain comment\ng :: Int\ng = 2\n"
    )
    assert docs == {}


def test_tests_and_files_without_docs_are_counted() -> None:
    assert is_haskell("Queue.hs") and not is_haskell("Setup.lhs") and SUFFIXES == (".hs",)
    assert URI_PREFIX == "haskell:"
    assert FIXES[HASKELL_TEST].endswith("the source's haskell: text reads them as text")
    files = [
        HaskellFile(P("test/Main.hs"), "t", QUEUE),
        HaskellFile(P("src/QueueSpec.hs"), "s", QUEUE),
        HaskellFile(P("testsuite/Q.hs"), "u", QUEUE),
        HaskellFile(P("src/Plain.hs"), "p", "module Plain where\nx = 1\n"),
        HaskellFile(P("src/Data/Queue.hs"), "q", QUEUE),
    ]
    rejects = CollectResult()
    docs = api_documents(files, "local", rejects)
    assert len(docs) == 15
    assert rejects.rejects == {HASKELL_TEST: 3, HASKELL_NO_API: 1}


def test_questions_about_a_haskell_function() -> None:
    """What the generator asks: `name :: Type` is the signature Haddock shows (its type the
    signature's answer), the doc's first sentence the summary, `-- ^` on the result the
    return value; arguments have no names, so no arguments question."""
    assert "haskell:" in parse.API_PREFIXES
    docs = read(QUEUE)
    fold = ask(docs["haskell:Data.Queue.foldQ"])
    assert fold["what_does"] == "Folds the queue with the combining function."
    assert fold["signature"].startswith("`Data.Queue.foldQ :: (Ord a, Show a) => (a -> b -> b)")
    assert "arguments" not in fold
    pop = ask(docs["haskell:Data.Queue.pop"])
    assert pop["returns"] == "the element and the rest"
    assert pop["signature"] == "`Data.Queue.pop :: Queue a -> Maybe (a, Queue a)`"
    assert not pop.get("what_does", "").startswith("pop ::")


def test_any_text_scans_without_an_error() -> None:
    pieces = [
        "module M (f, T(..)) where\n", "-- | A doc.\n", "-- ^ after\n", "{-| block -}\n",
        "{- ", " -}", "{-# P #-}\n", "f :: Int -> Int\n", "f x = x\n", "data T = A | B\n",
        "data R = R { a :: Int -- ^ a\n , b :: Int }\n", "class C a where\n", "  m :: a\n",
        "newtype N = N Int\n", "type S = T\n", "(<|>) :: a\n", "#if X\n", "\n", " ", "(", ")",
        "{", "}", "[", "]", '"', "'", "'a'", "x'", "-->", "--", "=>", "->", "::", "=", "|",
        ",", "@since 1\n", "deriving Show\n", "where\n", "\\",
    ]  # fmt: skip

    def reader(text: str) -> list[Document]:
        return api_documents([HaskellFile(P("src/M.hs"), "m", text)], "local")

    assert fuzzed(reader, pieces, "haskell:") > 0


def test_a_cabal_packages_haskell_is_read_as_its_api(tmp_path: Path) -> None:
    tree = {
        "spool.cabal": "name: spool\nversion: 1.0\n",
        "src/Spool.hs": (
            "module Spool (wind) where\n\n-- | Winds thread.\nwind :: Int -> Int\nwind n = n\n"
        ),
        "test/Spec.hs": "module Main where\n\n-- | A test.\nmain :: IO ()\nmain = pure ()\n",
    }
    write_tree(tmp_path / "p", tree)
    entry = source_entry(str(tmp_path / "p"))
    assert "*.hs" in entry["include"]  # type: ignore[operator]
    docs, rejects = collect_tree(tmp_path, tree, list(entry["include"]))  # type: ignore[call-overload]
    assert [u for u in docs if u.startswith("haskell:")] == ["haskell:Spool.wind"]
    assert dict(rejects.rejects)["haskell_test"] == 1
    whole, _ = collect_tree(tmp_path / "t", tree, ["*.hs"], haskell="text")
    assert not any(u.startswith("haskell:") for u in whole)


def test_a_linked_identifiers_possessive_is_read_as_haddock_reads_it() -> None:
    assert _inline("two 'Chunk's with a 'softline', not 'x'y") == (
        "two `Chunk`s with a `softline`, not 'x'y"
    )
