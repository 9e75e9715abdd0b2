"""A real Postgres for the tests: Debian's ``postgresql`` binaries, a private data directory,
127.0.0.1 and a free port, stopped and removed afterwards.

Postgres refuses to run as root, so under root its server runs as the
``postgres`` user the Debian package creates (else ``nobody``). ``scripts/setup``
installs the package when it is missing; without it the tests fail, naming it.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Optional

from server_process import free_port

SUPERUSER = "agent_panel_test"


def postgres_bin() -> Path:
    """The folder of ``initdb`` and ``postgres``; AssertionError says how to install them."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    assert found, "No Postgres in /usr/lib/postgresql/*/bin: run scripts/setup, which installs Debian's postgresql"
    return Path(found[-1]).parent


def _server_user() -> Optional[str]:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            pass
    raise AssertionError("running as root and there is no 'postgres' or 'nobody' user to run Postgres as")


class PostgresServer:
    """``with PostgresServer() as url:`` a database URL that takes any connection from 127.0.0.1."""

    def __init__(self):
        self.bin = postgres_bin()
        self.user = _server_user()
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="agent-panel-postgres-"))
        self.data = self.folder / "data"
        self.started = False

    @property
    def url(self) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/postgres"

    def _as_server_user(self, *command: str) -> list:
        return ["runuser", "-u", self.user, "--", *command] if self.user else list(command)

    def __enter__(self) -> str:
        if self.user:
            shutil.chown(self.folder, self.user)
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8")
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.folder / "postgres.log")
        try:
            self._run("pg_ctl", "start", "-D", str(self.data), "-l", log, "-o", options, "-w", "-t", "60")
        except AssertionError:
            self.__exit__()
            raise
        self.started = True
        return self.url

    def _run(self, program: str, *arguments: str) -> None:
        command = [str(self.bin / program), *arguments]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True)
        log = self.folder / "postgres.log"
        logged = log.read_text(errors="replace") if log.exists() else ""
        assert done.returncode == 0, f"{program} failed ({done.returncode}): {done.stdout}{done.stderr}{logged}"

    def __exit__(self, *exc_info) -> None:
        if self.started:
            self.started = False
            self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "fast", "-w", "-t", "60")
        shutil.rmtree(self.folder, ignore_errors=True)
