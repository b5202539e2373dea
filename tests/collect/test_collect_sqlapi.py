"""SQL read as the documentation of the schema it defines: a project's .sql files (on disk
and in a git repository) scanned, never run, each documented table, view, type and routine
a document; and the questions the generator then asks about them."""

from __future__ import annotations

import random
from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import collect_tree, write_tree
from gitrepo import collect_repo, commit_all
from jupiter.collect import CollectResult
from jupiter.collect.sqlapi import SqlFile, api_documents, literal, statements
from jupiter.records import Chunk, Document
from jupiter.synth.questions import make_questions

SHOP = r"""-- Shop schema.
\set ON_ERROR_STOP on

CREATE EXTENSION IF NOT EXISTS citext;

-- Registered customers of the shop; one row per account.
CREATE TABLE public.customers (
    id bigserial PRIMARY KEY,            -- the customer's number, never reused
    email citext NOT NULL UNIQUE,        -- login e-mail; compared without case
    -- when the account was closed; NULL while it is open
    closed_at timestamptz,
    note text DEFAULT 'it''s; fine',
    CONSTRAINT email_has_at CHECK (position('@' in email) > 1)
);

CREATE TABLE "Orders" (
    id bigserial PRIMARY KEY,
    customer_id bigint REFERENCES customers (id),
    total numeric(10, 2) NOT NULL
);

COMMENT ON TABLE "Orders" IS 'One order a customer placed; its lines are in order_lines.';
COMMENT ON COLUMN "Orders".total IS 'The order''s total in euros, tax included.';

CREATE TYPE order_state AS ENUM ('open', 'paid', 'shipped');
COMMENT ON TYPE order_state IS $$Where an order stands.$$;

/*
 * Total spent by a customer over all paid orders; 0 when none.
 */
CREATE OR REPLACE FUNCTION customer_total(p_customer bigint, since date DEFAULT NULL)
RETURNS numeric
LANGUAGE plpgsql STABLE AS $body$
BEGIN
    -- a comment inside the body; a ; too
    RETURN (SELECT coalesce(sum(total), 0) FROM "Orders" WHERE customer_id = p_customer);
END;
$body$;

CREATE FUNCTION touch() RETURNS trigger AS $$ BEGIN NEW.updated = now(); RETURN NEW; END $$
LANGUAGE plpgsql;

--
-- Reports
--
CREATE VIEW open_orders AS SELECT * FROM "Orders";
"""
MORE = """-- Where to call about a delivery.
ALTER TABLE customers ADD COLUMN phone text;
ALTER TABLE customers ADD COLUMN vip boolean DEFAULT false, ADD COLUMN IF NOT EXISTS tier int;
COMMENT ON COLUMN public.customers.vip IS 'Whether the customer gets free shipping.';
COMMENT ON FUNCTION customer_total(bigint, date) IS 'What a customer spent, in euros.';
"""
MYSQL = """DELIMITER //
CREATE TABLE `products` (
  `id` int NOT NULL AUTO_INCREMENT COMMENT 'Product number in the catalogue',
  `name` varchar(200) NOT NULL COMMENT 'Name shown to customers',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB COMMENT='Everything the shop sells'//
DELIMITER ;
"""
TREE = {
    "db/001_shop.sql": SHOP,
    "db/002_more.sql": MORE,
    "mysql/catalog.sql": MYSQL,
    "db/seed.sql": "INSERT INTO customers (email) VALUES ('a@example.org'); -- the first\n",
    "tests/schema_test.sql": "-- Checks that the schema loads.\nCREATE TABLE t (x int);\n",
    "README.md": "# Shop\n\nThe shop's database.\n",
}
EXPECTED = [
    "sql-table:Orders",
    "sql-table:customers",
    "sql-table:products",
    "sql-type:order_state",
    "sql:customer_total",
]
CUSTOMERS = """# customers

Registered customers of the shop; one row per account.

Columns: `id` (`bigserial`), `email` (`citext`), `closed_at` (`timestamptz`), `note` (`text`), \
`phone` (`text`), `vip` (`boolean`), `tier` (`int`).

- `id`: the customer's number, never reused.
- `email`: login e-mail; compared without case.
- `closed_at`: when the account was closed; NULL while it is open.
- `phone`: Where to call about a delivery.
- `vip`: Whether the customer gets free shipping.

```sql
CREATE TABLE public.customers (
    id bigserial PRIMARY KEY,
    email citext NOT NULL UNIQUE,
    closed_at timestamptz,
    note text DEFAULT 'it''s; fine',
    CONSTRAINT email_has_at CHECK (position('@' in email) > 1)
);
```"""


def local_docs(tmp_path: Path, **extra: object) -> tuple[dict[str, Document], CollectResult]:
    return collect_tree(tmp_path, TREE, ["*.md", "*.sql"], **extra)


def test_a_schema_becomes_a_document_per_documented_object(tmp_path: Path) -> None:
    docs, rejects = local_docs(tmp_path)
    sql = {uri: d for uri, d in docs.items() if uri.startswith("sql")}
    assert sorted(sql) == EXPECTED  # the extension, touch() and the view under a banner: none
    assert rejects.rejects == {"sql_no_api": 1, "sql_test": 1}
    root = (tmp_path / "project").resolve()
    assert rejects.samples["sql_no_api"] == [str(root / "db/seed.sql")]
    # comments beside and over columns, COMMENT ON COLUMN and the columns a later migration
    # adds (the comment over a one-column ALTER TABLE documents it); quotes inside strings
    # and a ";" in a default end nothing
    customers = sql["sql-table:customers"]
    assert customers.text == CUSTOMERS
    assert customers.meta == {
        "kind": "table",
        "qualname": "customers",
        "origin": f"{root / 'db/001_shop.sql'}:7",
        "line": 7,
    }
    orders = sql["sql-table:Orders"].text
    assert orders.startswith(
        "# Orders\n\nOne order a customer placed; its lines are in order_lines.\n\n"
    )
    assert "- `total`: The order's total in euros, tax included." in orders
    # COMMENT ON comes first, the comment over the CREATE after; the body's ";" and the
    # comment in it are the body's
    assert sql["sql:customer_total"].text == (
        "customer_total(p_customer bigint, since date DEFAULT NULL)\n\n"
        "What a customer spent, in euros.\n\n"
        "Total spent by a customer over all paid orders; 0 when none.\n\n"
        ":returns: `numeric`"
    )
    assert sql["sql-type:order_state"].text == (
        "# order_state\n\nWhere an order stands.\n\n```sql\n"
        "CREATE TYPE order_state AS ENUM ('open', 'paid', 'shipped');\n```"
    )
    products = sql["sql-table:products"].text
    assert products.startswith("# products\n\nEverything the shop sells\n\n")
    assert "- `name`: Name shown to customers." in products
    assert [d.title for d in docs.values() if d.uri.endswith("README.md")] == ["Shop"]


def test_sql_text_reads_the_files_as_before(tmp_path: Path) -> None:
    docs, rejects = local_docs(tmp_path, sql="text")
    assert not [uri for uri in docs if uri.startswith("sql")]
    assert {d.title for d in docs.values()} >= {"001_shop.sql", "seed.sql"}
    assert not {k for k in rejects.rejects if k.startswith("sql")}


def test_the_same_schema_from_a_git_repository(tmp_path: Path) -> None:
    """A git source reads *.sql by default: as the schema's documentation."""
    write_tree(tmp_path / "repo", TREE)
    sha = commit_all(tmp_path / "repo")
    result = collect_repo(tmp_path)
    sql = {d.uri: d for d in result.documents if d.uri.startswith("sql")}
    assert sorted(sql) == EXPECTED
    assert result.rejects == {"sql_no_api": 1, "sql_test": 1}
    meta = sql["sql:customer_total"].meta
    assert (meta["commit"], meta["path"], meta["language"]) == (sha, "db/001_shop.sql", "sql")
    assert sql["sql-table:customers"].text == CUSTOMERS


def test_the_scanner_tells_code_from_strings_bodies_and_comments() -> None:
    text = (
        "/* a /* nested */ block; */ CREATE TABLE a (x text DEFAULT ';');\n"
        "SELECT $tag$ ; $$ ; $tag$, E'it\\'s ;', \"semi;colon\";\n"
        "\\echo psql line ; no statement\n"
        "GO\n"
        "SELECT 1 -- trailing ; comment\n;"
    )
    got = [" ".join(s.code.split()) for s in statements(text)]
    assert got == [
        "CREATE TABLE a (x text DEFAULT ';')",
        "SELECT $tag$ ; $$ ; $tag$, E'it\\'s ;', \"semi;colon\"",
        "SELECT 1",
    ]
    assert literal("'it''s'") == "it's"
    assert literal("E'a\\nb'") == "a\nb"
    assert literal("$x$ dollar 'quoted' $x$") == " dollar 'quoted' "
    assert literal("NULL") is None


def test_overloads_banners_and_migrations() -> None:
    """Two overloads of one name are one document; a comment that names only the object, a
    banner or a group's heading ("-- Casts:") describes nothing; a later file's definition
    of the same table stands (migrations, in path order)."""
    first = (
        "-- cube(float8[])\nCREATE FUNCTION cube(float8[]) RETURNS cube AS 'x' LANGUAGE C;\n"
        "-- Casts:\nCREATE FUNCTION cube(float8) RETURNS cube AS 'x' LANGUAGE C;\n"
        "COMMENT ON FUNCTION cube(float8[]) IS 'Makes a cube from an array of points.';\n"
        "COMMENT ON FUNCTION cube(float8) IS 'Makes a one-dimensional cube of a point.';\n"
        "-- Old layout of the events table.\nCREATE TABLE events (id int);\n"
    )
    second = "-- Everything that happened, newest last.\nCREATE TABLE events (id bigint);\n"
    rejects = CollectResult()
    docs = api_documents(
        [SqlFile(P("b/002.sql"), "second", second), SqlFile(P("a/001.sql"), "first", first)],
        "local",
        rejects,
    )
    by_uri = {d.uri: d.text for d in docs}
    assert by_uri["sql:cube"] == (
        "cube(float8[])\n\nMakes a cube from an array of points.\n\n"
        "Also `cube(float8)`: Makes a one-dimensional cube of a point.\n\n:returns: `cube`"
    )
    assert by_uri["sql-table:events"].startswith(
        "# events\n\nEverything that happened, newest last.\n\nColumns: `id` (`bigint`)."
    )
    assert rejects.rejects == {}


def test_questions_about_a_schema(tmp_path: Path) -> None:
    docs, _ = local_docs(tmp_path)

    def asked(uri: str) -> dict[str, str]:
        d = docs[uri]
        chunk = Chunk(d.id, d.source, d.uri, d.title, 0, len(d.text), d.text)
        qs = make_questions(
            chunk, ["what_does", "signature", "define", "example"], 8, random.Random(0)
        )
        return {q.question: q.answer or "" for q in qs}

    total = asked("sql:customer_total")
    assert "What a customer spent, in euros." in total.values()
    assert "`customer_total(p_customer bigint, since date DEFAULT NULL)`" in total.values()
    customers = asked("sql-table:customers")
    answers = set(customers.values())
    assert "login e-mail; compared without case." in answers, customers
    # each column is asked about by its name, in the table's terms
    assert any("`email`" in q and "customers" in q for q in customers), customers


def test_an_argument_named_like_the_return_type_gets_no_field_line_as_its_note() -> None:
    text = (
        "CREATE FUNCTION gin_extract(text, internal) RETURNS internal AS 'x' LANGUAGE C;\n"
        "COMMENT ON FUNCTION gin_extract(text, internal) IS 'Extracts the keys of a value.';\n"
    )
    (doc,) = api_documents([SqlFile(P("a.sql"), "a", text)], "local")
    chunk = Chunk(doc.id, doc.source, doc.uri, doc.title, 0, len(doc.text), doc.text)
    (q,) = make_questions(chunk, ["arguments"], 4, random.Random(0))
    assert q.answer == "`gin_extract` takes 2 arguments: text, internal."


def test_named_queries_are_documents_when_described() -> None:
    """Query files as aiosql, sqlc and HugSQL write them ("-- name: x" over a description
    and the query), and the same without ";" between queries ("-- x --" names the next)."""
    aiosql = (
        "-- name: get-all-greetings\n-- Get all the greetings in the database.\n"
        "select greeting_id, greeting from greetings;\n\n"
        "-- name: get-user-by-username^\nselect user_id from users where username = :username;\n"
    )
    bare = (
        "-- fetch_job --\n-- Get the first awaiting job\nSELECT id FROM jobs_fetch(%(queues)s)\n\n"
        "-- count_jobs --\n-- Count the jobs per status\nSELECT status, count(*) FROM jobs\n"
        "GROUP BY status\n"
    )
    docs = api_documents(
        [SqlFile(P("q/greetings.sql"), "a", aiosql), SqlFile(P("q/jobs.sql"), "b", bare)],
        "local",
    )
    by_uri = {d.uri: d.text for d in docs}
    assert sorted(by_uri) == [
        "sql-query:count_jobs",
        "sql-query:fetch_job",
        "sql-query:get-all-greetings",
    ]
    assert by_uri["sql-query:get-all-greetings"] == (
        "# get-all-greetings\n\nGet all the greetings in the database.\n\n```sql\n"
        "select greeting_id, greeting from greetings;\n```"
    )
    assert by_uri["sql-query:count_jobs"] == (
        "# count_jobs\n\nCount the jobs per status\n\n```sql\n"
        "SELECT status, count(*) FROM jobs\nGROUP BY status;\n```"
    )


def test_a_runners_schema_placeholder_and_a_redefinition_without_its_comment() -> None:
    """graphile-worker's migrations: the schema a psql variable (`:SCHEMA.add_job`), a
    directive line ("--! breaking-change") no text, and a later CREATE OR REPLACE without a
    comment keeps what was said of the function before (as COMMENT ON persists)."""
    first = (
        "--! breaking-change\n-- Function to queue a job\n"
        "create function :GRAPHILE_WORKER_SCHEMA.add_job(identifier text, payload json = '{}')\n"
        "returns :GRAPHILE_WORKER_SCHEMA.jobs as $$ select 1; $$ language sql;\n"
    )
    later = (
        "create or replace function :GRAPHILE_WORKER_SCHEMA.add_job(identifier text, "
        "payload json = '{}')\nreturns :GRAPHILE_WORKER_SCHEMA.jobs as $$ select 2; $$ "
        "language sql;\n"
    )
    docs = api_documents(
        [SqlFile(P("sql/000001.sql"), "a", first), SqlFile(P("sql/000002.sql"), "b", later)],
        "local",
    )
    assert [(d.uri, d.text) for d in docs] == [
        (
            "sql:add_job",
            "add_job(identifier text, payload json = '{}')\n\nFunction to queue a job\n\n"
            ":returns: `jobs`",
        )
    ]
    assert docs[0].meta["origin"] == "b:1"  # the definition that stands


def test_any_text_scans_without_an_error() -> None:
    """Unterminated strings, comments and dollar quotes, stray brackets: the scanner ends
    and says what it can (a damaged or half-written file is not a crash)."""
    pieces = [
        "CREATE ", "TABLE ", "FUNCTION ", "f", "(", ")", "'", "''", '"', "$$", "$a$", "--",
        "/*", "*/", ";", "\n", " ", "COMMENT ON ", "IS ", "x", ",", "`", "[", "]",
        "\\echo a\n", "DELIMITER //\n", "//", "ALTER TABLE t ADD ", "-- name: q\n",
        "SELECT 1", "E'\\'", "RETURNS int ", "-- Keeps the orders.\n",
        "CREATE TABLE t (a int);", "COMMENT ON TABLE t IS 'All of them.';",
    ]  # fmt: skip
    rng = random.Random(0)
    made = 0
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 60)))
        for doc in api_documents([SqlFile(P("a.sql"), "a", text)], "local"):
            assert doc.uri.startswith("sql") and doc.text
            made += 1
    assert made > 0  # some of the random texts declare something documented
