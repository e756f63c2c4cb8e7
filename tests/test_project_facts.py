"""Project facts (``jaxlint/static/project.py``): what a project has chosen as a whole,
read from its configuration and package modules, and what JAX112 makes of it (a project
that makes float64 its policy gets no float64 findings unless asked)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from jaxlint.config import Settings
from jaxlint.files.discovery import FileTask, SettingsResolver, discover
from jaxlint.static.project import NO_FACTS, project_facts, x64_policy
from jaxlint.static.runner import check_one
from jaxlint.static.tree import Link

MODULE = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def energy(x):
        return jnp.sum(x.astype(jnp.float64) ** 2) + jnp.zeros(3, dtype="float64").sum()
"""


@pytest.mark.parametrize("text,line", [
    ('import jax\njax.config.update("jax_enable_x64", True)\n', 2),
    ("from jax import config\n\nconfig.update('jax_enable_x64', 1)\n", 3),
    ('import os\nos.environ["JAX_ENABLE_X64"] = "1"\n', 2),
    ('os.environ.setdefault("JAX_ENABLE_X64", "True")\n', 1),
    ('[tool.pytest.ini_options]\nenv = ["JAX_ENABLE_X64=1"]\n', 2),
    ("import warnings, jax\nif not jax.config.jax_enable_x64:\n    warnings.warn('enable x64')\n", 2),
    ('import jax\njax.config.update("jax_enable_x64", False)\n', None),
    ("import jax\nif jax.config.jax_enable_x64:\n    DTYPE = 'float64'\n", None),
    ("x = 1\n", None),
    ("import warnings, jax\rif not jax.config.jax_enable_x64:\r    warnings.warn('x64')\r", 2),
    ('import jax\r\n\r\njax.config.update("jax_enable_x64", True)\r\n', 3),
])
def test_x64_policy_forms(text, line):
    found = x64_policy(text.encode())
    assert (found[0] if found else None) == line


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return tmp_path


def _jax112(tmp_path: Path, rel: str, **options) -> list:
    settings = Settings(root=tmp_path, rule_options={"JAX112": options} if options else {},
                        extend_select=("JAX112",))  # in the nursery: off by default
    path = tmp_path / rel
    out = check_one(FileTask(path, rel, settings), None)
    return [d for d in out.diagnostics if d.code == "JAX112"]


def test_a_package_that_turns_x64_on_at_import_makes_float64_its_policy(tmp_path):
    _project(tmp_path, {
        "pyproject.toml": "[project]\nname = 'phys'\n",
        "phys/__init__.py": 'import jax\njax.config.update("jax_enable_x64", True)\n',
        "phys/sub/__init__.py": "",
        "phys/sub/energy.py": MODULE,
        "other/energy.py": MODULE,
    })
    facts = project_facts(tmp_path / "phys/sub/energy.py", tmp_path)
    assert facts.x64 == "phys/__init__.py:2 turns jax_enable_x64 on"
    assert project_facts(tmp_path / "other/energy.py", tmp_path) is NO_FACTS
    assert _jax112(tmp_path, "phys/sub/energy.py") == []
    # the option brings the findings back; elsewhere one finding per function, not per dtype
    back = _jax112(tmp_path, "phys/sub/energy.py", **{"report-x64-projects": True})
    assert len(back) == 1 and "(and 1 more in `energy`)" in back[0].message
    other = _jax112(tmp_path, "other/energy.py")
    assert len(other) == 1 and other[0].data["uses"] == 2


def test_x64_in_the_project_configuration(tmp_path):
    _project(tmp_path, {
        "setup.cfg": "[tool:pytest]\nenv =\n    JAX_ENABLE_X64=True\n",
        "lib/energy.py": MODULE,
    })
    assert project_facts(tmp_path / "lib/energy.py", tmp_path).x64 == "setup.cfg:3 sets JAX_ENABLE_X64"
    assert _jax112(tmp_path, "lib/energy.py") == []


def test_the_runner_reads_facts_and_tree_through_the_path_discovery_resolved(tmp_path):
    # a project reached through a link: discovery resolves each file once (to drop one
    # found twice) and the runner's project facts and tree link take that path
    _project(tmp_path / "real", {
        "pyproject.toml": "[project]\nname = 'phys'\n",
        "phys/__init__.py": 'import jax\njax.config.update("jax_enable_x64", True)\n',
        "phys/energy.py": MODULE,
    })
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    root = tmp_path / "link"
    tasks = discover([str(root)], SettingsResolver(None, True, {}))
    assert sorted(t.path.name for t in tasks) == ["__init__.py", "energy.py"]
    for t in tasks:
        assert t.real == t.path.resolve() and t.real != t.path
        facts = project_facts(t.path, root, t.real)
        assert facts == project_facts(t.path, root)
        assert facts.x64 == "phys/__init__.py:2 turns jax_enable_x64 on"
        link = Link.for_file(t.path, root, t.real)
        assert link is not None and link.path == Link.for_file(t.path, root).path == t.real  # type: ignore[union-attr]
