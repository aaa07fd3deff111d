"""A local Neo4j server managed without Docker: jars from Maven Central, run on Java 17.

Two places on disk:

* the **install** (``<home>/lib``): the jars of one Neo4j version plus the Browser, shared by
  every instance and fetched once with Maven;
* an **instance** (default ``<home>`` itself): ``conf/neo4j.conf``, ``data/``, ``logs/``,
  ``run/neo4j.pid`` and the ``password`` file (mode 0600). Tests start throwaway instances
  in temporary directories on free ports while reusing the install.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import neo4j
import psutil
from neo4j.exceptions import AuthError, ServiceUnavailable, SessionExpired

from graphsvc.errors import ConfigError, ManagedNeo4jError
from graphsvc.neo4j.memory import memory_settings
from graphsvc.settings import Neo4jSettings, Settings

MAIN_CLASS = "org.neo4j.server.CommunityEntryPoint"
ADMIN_CLASS = "org.neo4j.cli.AdminTool"
SUPPORTED_JAVA = (17, 21)

# The JVM flags Neo4j's own launcher passes (server.jvm.additional in the stock neo4j.conf),
# minus the ones meant for big dedicated machines (-XX:+AlwaysPreTouch), and with the
# throughput collector instead of G1: an index's writes leave short-lived garbage at a high
# rate, which G1 collected with 2.3 s of the server's CPU per cold index of the standard
# library (18–20 s in all) and the parallel collector with 0.5 s (docs/scaling.md).
JVM_FLAGS = (
    "-XX:+UseParallelGC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
)

# An index is sampled again (a scan of all of it, for the planner's selectivity figures) once
# this share of it changed. At Neo4j's own 5 %, a first index of a large tree had each entity
# index scanned again every few seconds while it grew. Selectivities move little as a tree of
# the same kind grows, and our writes name the index they seek.
INDEX_RESAMPLE_PERCENT = 50

State = Literal["running", "stopped", "stale"]

# Servers started by this Python process, kept so they are reaped (no zombies, no
# "subprocess still running" warnings) when stopped from the same process.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class ConnectionInfo:
    """How to reach a Neo4j server."""

    uri: str
    user: str
    password: str


@dataclass(frozen=True)
class Neo4jStatus:
    """What `ManagedNeo4j.status()` reports; `to_dict()` is the `--json` form."""

    state: State
    pid: int | None
    version: str
    bolt_uri: str
    browser_url: str
    bolt_port: int
    http_port: int
    user: str
    password_file: Path
    home: Path
    instance_dir: Path
    log_file: Path

    def to_dict(self) -> dict[str, object]:
        return {k: str(v) if isinstance(v, Path) else v for k, v in asdict(self).items()}


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # Not SO_REUSEADDR's "ignore TIME_WAIT" semantics alone: a listener still makes bind fail.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Serialise install/start across processes (CLI, server and tests may race)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def find_java() -> Path:
    """The `java` to run Neo4j with: $JAVA_HOME/bin/java, else `java` on PATH, else a JDK 17
    under /usr/lib/jvm. Raises ConfigError when none is a supported version."""
    candidates: list[Path] = []
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        java = Path(java_home) / "bin" / "java"
        if not java.is_file():
            raise ConfigError(
                f"JAVA_HOME={java_home} has no bin/java; point JAVA_HOME at a Java 17 JDK "
                "(e.g. apt-get install openjdk-17-jre-headless) or unset it"
            )
        candidates.append(java)
    else:
        on_path = shutil.which("java")
        if on_path:
            candidates.append(Path(on_path))
        candidates.extend(sorted(Path("/usr/lib/jvm").glob("*17*/bin/java")))
    seen: list[str] = []
    for java in candidates:
        major = java_major_version(java)
        if major in SUPPORTED_JAVA:
            return java
        seen.append(f"{java} is Java {major}")
    found = f" ({'; '.join(seen)})" if seen else ""
    raise ConfigError(
        f"Java 17 not found{found}; Neo4j 5.26 needs Java 17: install it "
        "(e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME to a Java 17 JDK"
    )


def java_major_version(java: Path) -> int | None:
    try:
        out = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=30
        ).stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major


def find_maven() -> Path:
    mvn = shutil.which("mvn")
    if not mvn:
        raise ConfigError(
            "Maven (mvn) not found on PATH; it is needed once to download Neo4j: "
            "install it (e.g. apt-get install maven) and run `graphsvc neo4j install` again"
        )
    return Path(mvn)


_POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>graphsvc.local</groupId>
  <artifactId>managed-neo4j</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.neo4j</groupId>
      <artifactId>neo4j</artifactId>
      <version>{version}</version>
    </dependency>
    <dependency>
      <groupId>org.neo4j.client</groupId>
      <artifactId>neo4j-browser</artifactId>
      <version>{browser_version}</version>
    </dependency>
  </dependencies>
</project>
"""


class ManagedNeo4j:
    """One managed Neo4j instance: install / start / stop / status / logs.

    `instance_dir`, `bolt_port` and `http_port` override the settings (tests use a temporary
    directory and free ports); `progress` receives human-readable messages (default: stderr).
    """

    def __init__(
        self,
        settings: Neo4jSettings,
        *,
        instance_dir: Path | None = None,
        bolt_port: int | None = None,
        http_port: int | None = None,
        progress: Callable[[str], None] | None = _stderr,
    ) -> None:
        if settings.home is None:
            raise ConfigError("settings.neo4j.home is unset; load settings with get_settings()")
        self.settings = settings
        self.home = Path(settings.home).expanduser().resolve()
        self.lib_dir = self.home / "lib"
        self.instance_dir = Path(instance_dir or self.home).expanduser().resolve()
        self.bolt_port = bolt_port or settings.bolt_port
        self.http_port = http_port or settings.http_port
        self._say = progress or (lambda _msg: None)
        self.conf_dir = self.instance_dir / "conf"
        self.data_dir = self.instance_dir / "data"
        self.logs_dir = self.instance_dir / "logs"
        self.pid_file = self.instance_dir / "run" / "neo4j.pid"
        self.password_file = self.instance_dir / "password"
        # The server's console output (Neo4j's own debug.log sits next to it).
        self.log_file = self.logs_dir / "console.log"
        self._marker = self.lib_dir / ".installed.json"

    # -- install -----------------------------------------------------------------------

    def installed_version(self) -> str | None:
        try:
            return str(json.loads(self._marker.read_text())["neo4j"])
        except (OSError, ValueError, KeyError):
            return None

    def is_installed(self) -> bool:
        try:
            marker = json.loads(self._marker.read_text())
        except (OSError, ValueError):
            return False
        return marker == self._wanted()

    def _wanted(self) -> dict[str, str]:
        return {"neo4j": self.settings.version, "browser": self.settings.browser_version}

    def install(self) -> bool:
        """Download the jars into `<home>/lib` unless that version is already there.

        Returns True when it downloaded, False when the install was already complete.
        """
        if self.is_installed():
            return False
        with _file_lock(self.home / "install.lock"):
            if self.is_installed():  # another process finished it while we waited
                return False
            self._install_locked()
        return True

    def _install_locked(self) -> None:
        mvn = find_maven()
        find_java()  # Maven needs a JDK too; fail with the Java message, not Maven's
        version, browser = self.settings.version, self.settings.browser_version
        self._say(
            f"installing Neo4j {version} (community) and Browser {browser} with Maven into "
            f"{self.lib_dir} (first time: about 1-10 min, ~140 MB)..."
        )
        started = time.monotonic()
        self.home.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".install-", dir=self.home))
        log_path = self.home / "install.log"
        try:
            (work / "pom.xml").write_text(_POM.format(version=version, browser_version=browser))
            staged = work / "lib"
            cmd = [
                str(mvn), "-B", "-Dstyle.color=never", "-f", str(work / "pom.xml"),
                "dependency:copy-dependencies",
                f"-DoutputDirectory={staged}", "-DincludeScope=runtime",
            ]  # fmt: skip
            self._run_maven(cmd, log_path)
            jars = list(staged.glob("*.jar"))
            if not any(j.name == f"neo4j-{version}.jar" for j in jars):
                raise ManagedNeo4jError(
                    f"Maven finished but neo4j-{version}.jar is missing from {staged}; "
                    f"see {log_path}"
                )
            (staged / ".installed.json").write_text(json.dumps(self._wanted()))
            old = self.home / ".lib-old"
            shutil.rmtree(old, ignore_errors=True)
            if self.lib_dir.exists():
                self.lib_dir.rename(old)
            staged.rename(self.lib_dir)
            shutil.rmtree(old, ignore_errors=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        size = sum(j.stat().st_size for j in self.lib_dir.glob("*.jar")) / 1e6
        self._say(
            f"installed {len(jars)} jars ({size:.0f} MB) in {time.monotonic() - started:.0f} s"
        )

    def _run_maven(self, cmd: list[str], log_path: Path) -> None:
        downloaded = 0
        last_report = time.monotonic()
        with open(log_path, "w") as log:
            proc = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                stdin=subprocess.DEVNULL,
            )  # fmt: skip
            assert proc.stdout is not None
            for line in proc.stdout:
                log.write(line)
                if "Downloaded from" in line:
                    downloaded += 1
                    if time.monotonic() - last_report > 10:
                        self._say(f"  ... {downloaded} files downloaded")
                        last_report = time.monotonic()
            code = proc.wait()
        if code != 0:
            errors = [
                ln.strip() for ln in log_path.read_text().splitlines() if "[ERROR]" in ln
            ][:1]
            detail = f": {errors[0]}" if errors else ""
            raise ManagedNeo4jError(
                f"Maven failed to download Neo4j {self.settings.version} (exit {code}){detail}; "
                f"check network access to Maven Central and the full log {log_path}"
            )

    # -- status ------------------------------------------------------------------------

    def _read_pid(self) -> int | None:
        try:
            return int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def _is_ours(self, pid: int) -> bool:
        """True when `pid` is a live Neo4j server running this instance's config."""
        try:
            proc = psutil.Process(pid)
            if proc.status() == psutil.STATUS_ZOMBIE:
                return False
            cmdline = proc.cmdline()
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            return False
        return MAIN_CLASS in cmdline and f"--config-dir={self.conf_dir}" in cmdline

    def _find_server(self) -> int | None:
        """The pid of a server of this instance that runs without a pid file, if any."""
        flag = f"--config-dir={self.conf_dir}"
        for proc in psutil.process_iter(["cmdline"]):
            cmdline = proc.info["cmdline"] or []
            if flag in cmdline and MAIN_CLASS in cmdline and self._is_ours(proc.pid):
                return proc.pid
        return None

    def _running_ports(self) -> tuple[int, int]:
        """The ports in the config the server was started with (they may differ from settings)."""
        try:
            text = (self.conf_dir / "neo4j.conf").read_text()
        except OSError:
            return self.bolt_port, self.http_port
        bolt = re.search(r"^server\.bolt\.listen_address=.*:(\d+)$", text, re.M)
        http = re.search(r"^server\.http\.listen_address=.*:(\d+)$", text, re.M)
        return (
            int(bolt.group(1)) if bolt else self.bolt_port,
            int(http.group(1)) if http else self.http_port,
        )

    def status(self) -> Neo4jStatus:
        pid = self._read_pid()
        state: State
        if pid is not None and self._is_ours(pid):
            state = "running"
        elif (found := self._find_server()) is not None:
            # Running although the pid file is missing or wrong (deleted by hand, say).
            pid, state = found, "running"
        else:
            state = "stopped" if pid is None else "stale"
        bolt, http = self._running_ports() if state == "running" else (
            self.bolt_port, self.http_port,
        )  # fmt: skip
        return Neo4jStatus(
            state=state,
            pid=pid,
            version=self.installed_version() or self.settings.version,
            bolt_uri=f"bolt://127.0.0.1:{bolt}",
            browser_url=f"http://127.0.0.1:{http}/browser/",
            bolt_port=bolt,
            http_port=http,
            user=self.settings.user,
            password_file=self.password_file,
            home=self.home,
            instance_dir=self.instance_dir,
            log_file=self.log_file,
        )

    def connection_info(self) -> ConnectionInfo:
        status = self.status()
        return ConnectionInfo(status.bolt_uri, status.user, self._read_password())

    # -- start -------------------------------------------------------------------------

    def start(self, *, free_ports: bool = False) -> Neo4jStatus:
        """Start the server (installing first if needed) and wait until Bolt accepts our login.

        A running server is left alone. A configured port held by another process is an
        error naming the port, unless `free_ports` is set, which picks unused ports instead.
        """
        java = find_java()
        self.install()
        with _file_lock(self.instance_dir / "run" / "start.lock"):
            status = self.status()
            if status.state == "running":
                if self._read_pid() != status.pid:  # its pid file was lost: adopt it
                    self.pid_file.write_text(f"{status.pid}\n")
                self._say(f"Neo4j already running (pid {status.pid}) at {status.bolt_uri}")
                return status
            if status.state == "stale":
                self.pid_file.unlink(missing_ok=True)
            self._choose_ports(free_ports)
            password = self._prepare_instance(java)
            return self._launch(java, password)

    def _choose_ports(self, free_ports: bool) -> None:
        for name in ("bolt_port", "http_port"):
            port = getattr(self, name)
            if port_is_free(port):
                continue
            if not free_ports:
                label = "Bolt" if name == "bolt_port" else "HTTP"
                raise ConfigError(
                    f"port {port} ({label}) on 127.0.0.1 is already in use by another "
                    f"process; stop it, set GRAPHSVC_NEO4J__{name.upper()} to a free port, "
                    "or pass --free-ports"
                )
            setattr(self, name, free_port())
        if self.bolt_port == self.http_port:
            raise ConfigError(f"Bolt and HTTP are both set to port {self.bolt_port}; pick two")

    def _prepare_instance(self, java: Path) -> str:
        for d in (self.conf_dir, self.data_dir, self.logs_dir, self.pid_file.parent):
            d.mkdir(parents=True, exist_ok=True)
        (self.instance_dir / "plugins").mkdir(exist_ok=True)
        (self.instance_dir / "import").mkdir(exist_ok=True)
        (self.conf_dir / "neo4j.conf").write_text(self._config())
        initialised = (self.data_dir / "databases" / "system").exists()
        if initialised:
            if not self.password_file.exists():
                raise ManagedNeo4jError(
                    f"the password file {self.password_file} is missing but the database in "
                    f"{self.data_dir} already has one; restore the file, or delete "
                    f"{self.data_dir} to start over with an empty database"
                )
            return self._read_password()
        if not self.password_file.exists():
            # Hex only: the admin tool reads a password that starts with '-' as an option.
            self._write_password(secrets.token_hex(24))
        password = self._read_password()
        self._set_initial_password(java, password)
        return password

    def _write_password(self, password: str) -> None:
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(password + "\n")
        os.chmod(self.password_file, 0o600)

    def _read_password(self) -> str:
        try:
            return self.password_file.read_text().strip()
        except OSError as exc:
            raise ManagedNeo4jError(
                f"cannot read the Neo4j password file {self.password_file} ({exc.strerror}); "
                "run `graphsvc neo4j start` to create it"
            ) from exc

    def _set_initial_password(self, java: Path, password: str) -> None:
        env = {**os.environ, "NEO4J_HOME": str(self.instance_dir), "NEO4J_CONF": str(self.conf_dir)}
        result = subprocess.run(
            [
                str(java), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", f"{self.lib_dir}/*", ADMIN_CLASS,
                "dbms", "set-initial-password", "--", password,
            ],
            env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300,
        )  # fmt: skip
        if result.returncode != 0:
            # The first line carries the exception message; the rest is a stack trace.
            first = (result.stderr or result.stdout).strip().splitlines()[:1] or ["no output"]
            raise ManagedNeo4jError(
                f"setting the initial Neo4j password failed: {first[0][:300]} "
                f"(instance {self.instance_dir})"
            )

    def _config(self) -> str:
        inst = self.instance_dir
        s = self.settings
        heap, pagecache = memory_settings(s.heap, s.pagecache)
        lines = {
            "server.default_listen_address": "127.0.0.1",
            "server.default_advertised_address": "127.0.0.1",
            "server.bolt.enabled": "true",
            "server.bolt.listen_address": f"127.0.0.1:{self.bolt_port}",
            "server.bolt.advertised_address": f"127.0.0.1:{self.bolt_port}",
            "server.http.enabled": "true",
            "server.http.listen_address": f"127.0.0.1:{self.http_port}",
            "server.http.advertised_address": f"127.0.0.1:{self.http_port}",
            "server.https.enabled": "false",
            "dbms.security.auth_enabled": "true",
            "server.directories.data": inst / "data",
            "server.directories.logs": inst / "logs",
            "server.directories.run": inst / "run",
            "server.directories.plugins": inst / "plugins",
            "server.directories.import": inst / "import",
            "server.directories.lib": self.lib_dir,
            "server.memory.heap.initial_size": heap,
            "server.memory.heap.max_size": heap,
            "server.memory.pagecache.size": pagecache,
            "db.transaction.timeout": f"{s.transaction_timeout_s:g}s",
            "dbms.usage_report.enabled": "false",
            "db.tx_log.rotation.retention_policy": "2 files",
            "db.index_sampling.update_percentage": str(INDEX_RESAMPLE_PERCENT),
            "db.logs.query.enabled": "OFF",
            "server.logs.debug.enabled": "true",
        }
        head = "# Generated by graphsvc on every start; edit the settings, not this file.\n"
        return head + "".join(f"{k}={v}\n" for k, v in lines.items())

    def _launch(self, java: Path, password: str) -> Neo4jStatus:
        heap = memory_settings(self.settings.heap, self.settings.pagecache)[0]
        cmd = [
            str(java), f"-Xms{heap}", f"-Xmx{heap}", *JVM_FLAGS,
            "-cp", f"{self.lib_dir}/*", MAIN_CLASS,
            f"--home-dir={self.instance_dir}", f"--config-dir={self.conf_dir}", "--console-mode",
        ]  # fmt: skip
        self._say(
            f"starting Neo4j {self.settings.version} (Bolt 127.0.0.1:{self.bolt_port}, "
            f"HTTP 127.0.0.1:{self.http_port}), log {self.log_file} ..."
        )
        started = time.monotonic()
        with open(self.log_file, "ab") as log:
            log.write(f"\n--- graphsvc start {time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode())
            log.flush()
            proc = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                cwd=self.instance_dir, start_new_session=True,
            )  # fmt: skip
        _CHILDREN[proc.pid] = proc
        self.pid_file.write_text(f"{proc.pid}\n")
        try:
            self._wait_for_bolt(proc, password)
        except BaseException:
            self._terminate(proc.pid, timeout_s=20)
            raise
        status = self.status()
        self._say(
            f"Neo4j running (pid {proc.pid}, {time.monotonic() - started:.0f} s): "
            f"Bolt {status.bolt_uri}, Browser {status.browser_url}, "
            f"user {status.user}, password in {self.password_file}"
        )
        return status

    def _wait_for_bolt(self, proc: subprocess.Popen[bytes], password: str) -> None:
        uri = f"bolt://127.0.0.1:{self.bolt_port}"
        deadline = time.monotonic() + self.settings.start_timeout_s
        while True:
            if proc.poll() is not None:
                raise ManagedNeo4jError(
                    f"Neo4j exited during start (code {proc.returncode}): "
                    f"{self._last_error_line()}; see {self.log_file}"
                )
            try:
                with neo4j.GraphDatabase.driver(
                    uri, auth=(self.settings.user, password), connection_timeout=2
                ) as driver:
                    driver.verify_connectivity()
                return
            except AuthError as exc:
                raise ManagedNeo4jError(
                    f"Neo4j at {uri} rejected the password in {self.password_file} ({exc.message}); "
                    f"delete {self.data_dir} to start over with an empty database"
                ) from exc
            except (ServiceUnavailable, SessionExpired, OSError):
                pass
            if time.monotonic() > deadline:
                raise ManagedNeo4jError(
                    f"Neo4j did not accept Bolt connections on {uri} within "
                    f"{self.settings.start_timeout_s:g} s; see the log tail in {self.log_file} "
                    "or raise GRAPHSVC_NEO4J__START_TIMEOUT_S"
                )
            time.sleep(0.5)

    def _last_error_line(self) -> str:
        lines = self.log_tail(200)
        for line in reversed(lines):
            if "ERROR" in line or "Exception" in line:
                return line.strip()[:300]
        return lines[-1].strip()[:300] if lines else "no output"

    # -- stop --------------------------------------------------------------------------

    def stop(self, timeout_s: float = 60.0) -> bool:
        """Shut the server down (SIGTERM, then SIGKILL after `timeout_s`).

        Returns True when a server was stopped; a stale pid file is just removed.
        """
        status = self.status()
        if status.state != "running" or status.pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        self._say(f"stopping Neo4j (pid {status.pid}) ...")
        self._terminate(status.pid, timeout_s)
        self._say("Neo4j stopped")
        return True

    def _terminate(self, pid: int, timeout_s: float) -> None:
        try:
            proc = psutil.Process(pid)
            proc.terminate()
            try:
                proc.wait(timeout_s)
            except psutil.TimeoutExpired:
                self._say(f"Neo4j (pid {pid}) did not stop within {timeout_s:g} s; killing it")
                proc.kill()
                proc.wait(10)
        except psutil.NoSuchProcess:
            pass
        child = _CHILDREN.pop(pid, None)
        if child is not None:
            child.wait()
        self.pid_file.unlink(missing_ok=True)

    # -- logs --------------------------------------------------------------------------

    def log_tail(self, lines: int = 50) -> list[str]:
        try:
            with open(self.log_file, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                fh.seek(max(0, fh.tell() - 256 * 1024))
                text = fh.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return []
        return text.splitlines()[-lines:] if lines > 0 else []

    def follow_log(self, lines: int = 50, poll_s: float = 0.5) -> Iterator[str]:
        """Yield the last `lines` lines, then every new line as it is written (until interrupted)."""
        yield from self.log_tail(lines)
        while not self.log_file.exists():
            time.sleep(poll_s)
        with open(self.log_file, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            buf = b""
            while True:
                chunk = fh.read()
                if not chunk:
                    time.sleep(poll_s)
                    continue
                buf += chunk
                *complete, buf = buf.split(b"\n")
                for line in complete:
                    yield line.decode("utf-8", "replace")


def ensure_running(settings: Settings) -> ConnectionInfo:
    """Connection details for the configured Neo4j.

    With `settings.neo4j.uri` set, that server is used as is. Otherwise the managed server is
    installed and started on first use (a running one is reused).
    """
    n = settings.neo4j
    if n.uri:
        return ConnectionInfo(n.uri, n.user, n.password or "")
    server = ManagedNeo4j(n)
    if server.status().state != "running":
        server.start()
    return server.connection_info()
