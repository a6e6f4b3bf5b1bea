"""TLS between the client, the scheduler and the workers (issue 16): with certificates given,
a cluster of Dask's own commands started with ``--tls-*`` plays games for ``arena run``, and a
client without them, or with files that are not there, is refused with a clear message."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.core.botspec import BotSpec
from arena.core.job import GameJob
from arena.core.timing import TimeControl
from arena.runners.dask_node import ClusterError, TlsFiles
from tests.fixtures.daskcluster import LocalCluster

pytestmark = pytest.mark.slow


def make_certificates(folder: Path) -> tuple[str, str, str]:
    """A certificate authority, and a certificate and key for 127.0.0.1 that it signed: (CA
    file, certificate, key), made with the openssl program."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl program to make the test's certificates")

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60)

    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=arena test CA",
    )
    (folder / "san.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "node.key", "-out", "node.csr", "-subj", "/CN=127.0.0.1")
    openssl(
        "x509",
        "-req",
        "-in",
        "node.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "node.pem",
        "-days",
        "2",
        "-extfile",
        "san.cnf",
    )
    return str(folder / "ca.pem"), str(folder / "node.pem"), str(folder / "node.key")


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    files = make_certificates(tmp_path_factory.mktemp("certificates"))
    with LocalCluster(workers=1, tls=files) as running:
        yield running, files


def test_games_are_played_over_tls_when_certificates_are_given(tls_cluster):
    from arena.runners.dask_runner import DaskRunner

    cluster, (ca, cert, key) = tls_cluster
    assert cluster.address.startswith("tls://")
    bot = BotSpec(name="random", kind="python", target="bots.randombot")
    jobs = [GameJob(i, {"name": "tictactoe", "params": {}}, (bot, bot), i, TimeControl(move=5.0)) for i in (1, 2)]
    with DaskRunner(cluster.address, TlsFiles(ca, cert, key)) as runner:
        records = sorted(runner.run(jobs), key=lambda record: record.game_id)
    assert [r.game_id for r in records] == [1, 2]
    assert all(r.termination.value == "normal" and r.moves for r in records)


def test_a_client_without_the_certificates_is_refused(tls_cluster):
    from arena.runners.dask_runner import DaskRunner

    cluster, (ca, cert, key) = tls_cluster
    plain = cluster.address.replace("tls://", "tcp://")
    with pytest.raises(ClusterError, match=f"cannot reach the Dask scheduler at {plain}"):
        DaskRunner(plain, timeout=3).open()
    with pytest.raises(ClusterError, match=r"the TLS key '/no/such/node.key' is not a readable file"):
        DaskRunner(cluster.address, TlsFiles(ca, cert, "/no/such/node.key")).open()
    with pytest.raises(ClusterError, match="TLS certificates were given, but tcp://"):
        DaskRunner(plain, TlsFiles(ca, cert, key)).open()
