"""A file opened through a symlinked folder (`~/work -> /data/work`, the editor keeps the
path it was given): the dynamic phase's findings on save reach it, with their related
places in it, through a real `jaxlint server` and a real trace in its child."""
from __future__ import annotations

import sys

import pytest

pytest.importorskip("pygls", reason="the `lsp` extra (pygls) is not installed")

from lsp_session import run, session  # noqa: E402

UNROLLED = """\
import jax
import jax.numpy as jnp


# jaxlint: args=(f32[8],)
@jax.jit
def run(x):
    for _ in range(400):  # a count of 100 or more: JAX102's kind on by default
        x = jnp.sin(x) * 2.0
    return x
"""


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_dynamic_findings_on_save_reach_a_file_opened_through_a_symlinked_folder(tmp_path):
    pytest.importorskip("jax")
    real = tmp_path / "real"
    real.mkdir()
    (real / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)

    async def go():
        async with session(link, pull=False, init={"dynamic": True}) as s:
            uri = s.open("m.py", UNROLLED)
            assert [d.code for d in (await s.next_publish(uri)).diagnostics] == ["JAX102"]  # static
            s.save(uri, "m.py")
            await s.next_publish(uri, after=1)  # the static re-lint on save
            (d,) = (await s.next_publish(uri, after=2, timeout=120)).diagnostics
            assert d.code == "JAX202" and d.range.start.line == 7  # measured; supersedes JAX102
            assert d.related_information
            assert {r.location.uri for r in d.related_information} == {uri}

    run(go(), timeout=180)
