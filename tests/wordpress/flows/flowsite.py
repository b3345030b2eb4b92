"""Throw-away sites for the flows tools (capture, differ, benches): a MariaDB server of its
own, a stock WordPress assembled from Debian's package with the logging drop-in, installed
from the CLI and served by `php -S`. Everything lives under one temporary folder and ends
with the context managers. Python standard library only."""

import contextlib
import json
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
WORDPRESS = "/usr/share/wordpress"
PAYLOAD = os.path.join(REPO, "plugins", "templates", "wordpress", "payload")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def unprivileged_user():
    """Database servers refuse root: run them as mysql, or nobody."""
    if os.getuid() != 0:
        return None
    for name in ("mysql", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            pass
    raise RuntimeError("no unprivileged user (mysql or nobody) to run the database as")


def as_user(user, argv):
    return ["runuser", "-u", user, "--"] + argv if user else argv


def wordpress_version():
    with open(os.path.join(WORDPRESS, "wp-includes", "version.php")) as f:
        for line in f:
            if line.startswith("$wp_version"):
                return line.split("'")[1]
    raise RuntimeError("no $wp_version in wp-includes/version.php")


@contextlib.contextmanager
def mariadb(workdir, database="wp"):
    """A MariaDB server on its own socket and loopback port; yields the socket path."""
    user = unprivileged_user()
    folder = os.path.join(workdir, "mariadb")
    os.makedirs(folder)
    os.chmod(workdir, 0o755)
    if user:
        shutil.chown(folder, user)
    data = os.path.join(folder, "data")
    sock = os.path.join(folder, "mysqld.sock")
    log = os.path.join(folder, "server.log")
    subprocess.run(as_user(user, ["mariadb-install-db", "--no-defaults", "--datadir=" + data,
                                  "--auth-root-authentication-method=normal", "--skip-test-db",
                                  "--skip-name-resolve"]),
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    port = free_port()
    server = subprocess.Popen(as_user(user, [
        "mariadbd", "--no-defaults", "--datadir=" + data, "--socket=" + sock,
        "--port=%d" % port, "--bind-address=127.0.0.1", "--pid-file=" + os.path.join(folder, "pid"),
        "--log-error=" + log, "--skip-name-resolve", "--character-set-server=utf8mb4",
        "--collation-server=utf8mb4_general_ci", "--innodb-flush-log-at-trx-commit=0",
        "--innodb-buffer-pool-size=64M", "--skip-log-bin"]),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            if os.path.exists(sock):
                ok = subprocess.run(["mariadb", "--no-defaults", "-S", sock, "-uroot", "-e", "SELECT 1"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
                if ok:
                    break
            if server.poll() is not None:
                raise RuntimeError("mariadbd ended: " + open(log).read()[-2000:])
            time.sleep(0.1)
        else:
            raise RuntimeError("mariadbd did not answer in 30 s")
        subprocess.run(["mariadb", "--no-defaults", "-S", sock, "-uroot", "-e",
                        "CREATE DATABASE `%s`" % database], check=True)
        yield sock
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


SALTS = "".join("define('%s', 'berth-flows-%s');\n" % (k, k.lower()) for k in (
    "AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY",
    "AUTH_SALT", "SECURE_AUTH_SALT", "LOGGED_IN_SALT", "NONCE_SALT"))


def wp_config(backend, log, db_host="localhost", db_name="wp", value_limit=256):
    """The test wp-config.php: MariaDB as root on the socket, or the Berth drop-in (which
    connects with DATABASE_URL); no cron on page loads (wp-cron.php is a flow of its own),
    no requests leave the machine."""
    return """<?php
define('DB_NAME', %s);
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', %s);
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
%s$table_prefix = 'wp_';
define('BERTH_FLOWS_BACKEND', %s);
define('BERTH_FLOWS_LOG', %s);
define('BERTH_FLOWS_VALUE_LIMIT', %d);
define('DISABLE_WP_CRON', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_AUTO_UPDATE_CORE', false);
define('WP_DEBUG', false);
if (!defined('ABSPATH')) {
    define('ABSPATH', __DIR__ . '/');
}
require_once ABSPATH . 'wp-settings.php';
""" % (phps(db_name), phps(db_host), SALTS, phps(backend), phps(log), value_limit)


def phps(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def assemble(workdir, backend, log, db_host="localhost", payload=PAYLOAD, value_limit=256):
    """Stock WordPress from Debian's package (symlinks resolved, Debian's wp-config.php
    dispatcher left out), the test wp-config.php and the logging drop-in; for 'pgsql' the
    Berth library beside it."""
    root = os.path.join(workdir, "wordpress")
    shutil.copytree(WORDPRESS, root, symlinks=False, ignore=lambda d, names: ["wp-config.php"] if d == WORDPRESS else [])
    with open(os.path.join(root, "wp-config.php"), "w") as f:
        f.write(wp_config(backend, log, db_host, value_limit=value_limit))
    content = os.path.join(root, "wp-content")
    shutil.copy(os.path.join(HERE, "logging-db.php"), os.path.join(content, "db.php"))
    if backend == "pgsql":
        shutil.copytree(os.path.join(payload, "wp-content", "berth-pgsql"), os.path.join(content, "berth-pgsql"))
    os.makedirs(os.path.join(content, "uploads"), exist_ok=True)
    return root


def install(root, base, user, password, env=None):
    started = time.monotonic()
    run = subprocess.run(["php", os.path.join(HERE, "install.php"), root, base, user, password],
                         env=dict(env or os.environ, BERTH_FLOW="install"), capture_output=True, text=True)
    ms = (time.monotonic() - started) * 1000
    # wp_die() ends a CLI run with status 0: only install.php's own last line says it worked.
    last = run.stdout.strip().splitlines()[-1:] or [""]
    if run.returncode != 0 or not last[0].startswith('{"user_id"'):
        text = re.sub(r"\s+", " ", re.sub(r"(?s)<style.*?</style>|<[^>]+>", " ", run.stderr + run.stdout))
        raise RuntimeError("install failed: " + text.strip()[-3000:])
    print(json.dumps({"flow": "install", "status": 0, "ms": round(ms, 1), "ok": True,
                      "detail": "wp_install() from php-cli"}), flush=True)


@contextlib.contextmanager
def serve(root, port, env=None, log=None):
    """`php -S` on the loopback port with the router; several workers, so WordPress's own
    loopback requests (site health) are answered while a request waits for them."""
    environment = dict(env or os.environ, PHP_CLI_SERVER_WORKERS="4")
    out = open(log, "ab") if log else subprocess.DEVNULL
    server = subprocess.Popen(["php", "-d", "display_errors=stderr", "-S", "127.0.0.1:%d" % port,
                               "-t", root, os.path.join(HERE, "router.php")],
                              env=environment, stdout=out, stderr=out, cwd=root)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError("php -S ended at start")
                time.sleep(0.1)
        yield "http://127.0.0.1:%d" % port
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if log:
            out.close()


def drive(base, user, password, extra=()):
    """drive.py against the site; returns (exit code, the JSON lines it printed)."""
    run = subprocess.run([sys.executable, os.path.join(HERE, "drive.py"), "--base", base,
                          "--user", user, "--password", password] + list(extra),
                         capture_output=True, text=True)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    steps = [json.loads(l) for l in run.stdout.splitlines() if l.startswith("{")]
    return run.returncode, steps
