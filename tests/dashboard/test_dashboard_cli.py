"""`jupiter dashboard` as a real process: it serves the page, stops on Ctrl-C, and says in
one line what is wrong with an unknown domain, a missing workspace or a taken port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from dashboard_runs import JUPITER, get, jupiter

from jupiter.records import Document
from jupiter.store import Store

YAML = "name: small\nsources: [{type: python_stdlib, modules: [json]}]\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """A domain YAML in tmp_path (JUPITER_HOME) with a workspace holding one document."""
    (tmp_path / "small.yaml").write_text(YAML)
    with Store(tmp_path / "runs" / "small" / "jupiter.sqlite") as s:
        s.add_documents([Document("local", "/a.md", "a", "some text")])
    return tmp_path


def one_error_line(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


def test_unknown_domain(tmp_path: Path) -> None:
    line = one_error_line(jupiter(["dashboard", "--domain", "no_such_domain"], tmp_path))
    assert "unknown domain 'no_such_domain'" in line


def test_no_workspace_yet(tmp_path: Path) -> None:
    (tmp_path / "fresh.yaml").write_text(YAML.replace("small", "fresh"))
    r = jupiter(["dashboard", "--domain", "fresh.yaml", "--quick"], tmp_path)
    line = one_error_line(r)
    assert "no workspace yet for 'fresh'" in line
    assert "run `jupiter start --domain fresh.yaml --quick` first" in line
    assert not (tmp_path / "runs").exists()  # nothing created


@pytest.mark.parametrize("command", ["dashboard", "generators", "rollback"])
def test_a_folder_at_the_store_path_is_named(command: str, tmp_path: Path) -> None:
    (tmp_path / "fresh.yaml").write_text(YAML.replace("small", "fresh"))
    store = tmp_path / "runs" / "fresh-quick" / "jupiter.sqlite"
    store.mkdir(parents=True)
    (store / "keep.txt").write_text("mine")
    line = one_error_line(jupiter([command, "--domain", "fresh.yaml", "--quick"], tmp_path))
    assert f"the store {store} is not a file" in line, line
    assert (store / "keep.txt").read_text() == "mine"


def test_port_in_use(small: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = jupiter(["dashboard", "--domain", "small.yaml", "--port", str(port)], small)
    line = one_error_line(r)
    assert f"port {port} on 127.0.0.1 is in use: choose another with --port" in line


def test_serves_the_page_and_stops_on_ctrl_c(small: Path) -> None:
    port = free_port()
    env = dict(os.environ, JUPITER_HOME=str(small), COLUMNS="200")
    proc = subprocess.Popen(
        [JUPITER, "dashboard", "--domain", "small.yaml", "--port", str(port)],
        cwd=small,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a test run started in the background (`make test &`) inherits SIGINT ignored, and
        # Python then installs no KeyboardInterrupt handler: give the server Ctrl-C back
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.time() + 60
        while True:
            try:
                status, _, body = get(f"http://127.0.0.1:{port}/api/state")
                break
            except OSError:
                assert proc.poll() is None and time.time() < deadline, proc.communicate()
                time.sleep(0.2)
        assert status == 200 and b'"documents": 1' in body
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert f"on http://127.0.0.1:{port}/" in out and out.strip().endswith("stopped")


def test_beyond_loopback_the_page_needs_its_key(small: Path) -> None:
    """Bound to every interface: refused without --api-key (one line); with one, every
    path answers 401 without it and 200 with ?key= or a Bearer header."""
    from jupiter.dashboard.server import start_in_thread, url_of
    from jupiter.dashboard.state import Board

    r = jupiter(
        ["dashboard", "--domain", "small.yaml", "--host", "0.0.0.0", "--port", str(free_port())],
        small,
    )
    line = one_error_line(r)
    assert "without a key" in line and "--api-key" in line
    board = Board(small / "runs" / "small", "small")
    server = start_in_thread(board, host="0.0.0.0", port=0, api_key="s3cret")
    try:
        port = server.server_address[1]
        base = f"http://127.0.0.1:{port}"
        for path in ("/", "/api/state", "/app.js"):
            assert get(base + path)[0] == 401
        assert get(base + "/api/state?key=wrong")[0] == 401
        status, _, body = get(base + "/api/state?key=s3cret")
        assert status == 200 and b'"documents": 1' in body
        assert get(base + "/api/state", {"Authorization": "Bearer s3cret"})[0] == 200
        assert url_of(server).endswith(f":{port}/")
    finally:
        server.shutdown()
        server.server_close()
        board.close()
