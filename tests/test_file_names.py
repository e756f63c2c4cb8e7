"""A file whose name is not UTF-8 (any Linux file system allows one) or not ASCII under a
locale that is not UTF-8 is checked like any other, in every output format, with the
cache cold and warm. Before, asking git which files it ignores ended the whole run with
an internal error (exit 2, nothing checked), the cache key and the SARIF/GitLab
fingerprints failed on that file. Real CLI, real git."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

SRC = "import jax\nimport numpy as np\n\nT = np.zeros((1000, 1000))\n\n\n@jax.jit\ndef f(x):\n    return x + T\n"
FORMATS = ("concise", "full", "github", "gitlab", "json", "json-lines", "junit", "markdown", "sarif")
NAMES = (b"bad\xff.py", "café.py".encode(), b"ok.py")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a file name that is not UTF-8")


def _env(locale: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAXLINT_", "LC_", "PYTHONIOENCODING"))}
    if locale == "C":
        env.update(LC_ALL="C", LANG="C", PYTHONUTF8="0")
    else:
        env.update(LC_ALL="C.UTF-8")
    return env


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("names")
    if shutil.which("git"):  # inside a git work tree discovery asks git what it ignores
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name in NAMES:
        with open(os.path.join(os.fsencode(root), name), "w") as f:
            f.write(SRC)
    return root


@pytest.mark.parametrize("locale", ["C", "UTF-8"])
def test_every_file_is_checked_in_every_format(project, locale):
    env = _env(locale)
    for fmt in FORMATS:
        for run in ("cold", "warm"):
            r = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--isolated", "--cache-dir",
                                str(project / f".cache-{locale}"), "--output-format", fmt, "."],
                               cwd=project, env=env, capture_output=True, timeout=600)
            err = r.stderr.decode(errors="replace")
            assert r.returncode == 1, (fmt, run, err)
            assert "internal error" not in err and "error:" not in err, (fmt, run, err)
            out = r.stdout.decode("utf-8", "surrogateescape")  # a text report names the file by its bytes
            assert out.count("JAX101") >= 3 or fmt in ("sarif", "junit", "gitlab"), (fmt, out)
            if fmt == "json":
                names = sorted(d["filename"] for d in json.loads(out))
                assert len(names) == 3 and names[-1] == "ok.py" and names[0].startswith("bad"), names
            if fmt == "sarif":
                results = json.loads(out)["runs"][0]["results"]
                assert len(results) == 3
                uris = sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results)
                assert uris == ["bad%FF.py", "caf%C3%A9.py", "ok.py"], uris  # the name's bytes, percent-encoded
                assert len({r["partialFingerprints"]["jaxlint/v1"] for r in results}) == 3
            if fmt == "gitlab":
                assert len({d["fingerprint"] for d in json.loads(out)}) == 3
