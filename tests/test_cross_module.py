"""Module-level constants across the modules of the checked tree: a host array that one
module defines and a jitted function of another closes over is baked into *that*
function's compile (JAX101 in the importing file), through every import form. Real CLI
on multi-module projects written here, the resolver itself (``Link.constant``), and the
static cache, whose entry goes when the module defining the array is edited."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from helpers import json_findings, run_cli
from jaxlint.static.semantic import ModuleModel
from jaxlint.static.tree import Link
from jaxlint.static.values import imported_constant

BIG = "TABLE = np.random.randn(2048, 2048)\n"  # 32 MiB of float64
DATA = "import numpy as np\n\nN = 2048\n" + BIG


def _write(root: Path, files: dict[str, str]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))


def _jax101(root: Path, target: str, *extra: str) -> list[tuple[str, int, str]]:
    """JAX101's findings on ``target``; without a cache unless ``extra`` names one."""
    cache = () if "--cache-dir" in extra else ("--no-cache",)
    proc = run_cli("check", *cache, "--select", "JAX101", "--output-format", "json", *extra, target, cwd=root)
    assert proc.returncode in (0, 1), proc.stderr
    return [(d["filename"], d["location"]["row"], d["message"]) for d in json_findings(proc, "JAX101")]


def _jitted(importing: str, read: str) -> str:
    return f"{importing}\nimport jax\n\n\n@jax.jit\ndef predict(x):\n    return x @ {read}\n"


#: (files, the checked file, what the jitted function reads): each closes over the
#: 32 MiB table of another module of the tree
INVALID = {
    "script-sibling-from": ({"data.py": DATA}, "train.py", "from data import TABLE", "TABLE"),
    "script-sibling-import": ({"data.py": DATA}, "train.py", "import data", "data.TABLE"),
    "script-sibling-import-as": ({"data.py": DATA}, "train.py", "import data as d", "d.TABLE.T"),
    "relative-from": ({"pkg/__init__.py": "", "pkg/data.py": DATA}, "pkg/train.py", "from .data import TABLE", "TABLE"),
    "relative-module": ({"pkg/__init__.py": "", "pkg/data.py": DATA}, "pkg/train.py", "from . import data",
                        "data.TABLE"),
    "absolute-dotted": ({"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/data.py": DATA},
                        "pkg/train.py", "import pkg.sub.data as sd", "sd.TABLE"),
    "import-a-b-binds-a": ({"pkg/__init__.py": "", "pkg/data.py": DATA}, "pkg/train.py", "import pkg.data",
                           "pkg.data.TABLE"),
    "init-re-export": ({"pkg/__init__.py": "from .data import TABLE\n", "pkg/data.py": DATA}, "main.py",
                       "from pkg import TABLE", "TABLE"),
    "src-layout": ({"src/pkg/__init__.py": "", "src/pkg/data.py": DATA}, "src/pkg/train.py",
                   "from pkg.data import TABLE", "TABLE"),
    # the size follows the other module's own constants
    "size-from-its-constants": ({"data.py": "import numpy as np\n\nN, M = 4096, 1024\nTABLE = np.zeros((N, M))\n"},
                                "train.py", "from data import TABLE", "TABLE"),
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_an_imported_module_level_array_is_captured_in_the_importing_module(tmp_path, case):
    files, target, importing, read = INVALID[case]
    _write(tmp_path, {**files, target: _jitted(importing, read)})
    found = _jax101(tmp_path, target)
    assert len(found) == 1, found
    path, line, message = found[0]
    assert (path, line) == (target, 7)
    assert "MiB array" in message and "baked into the compiled program" in message


def test_the_finding_names_where_the_array_is_defined(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/data.py": DATA,
                      "pkg/train.py": _jitted("from .data import TABLE", "TABLE")})
    proc = run_cli("check", "--no-cache", "--select", "JAX101", "--output-format", "json", "pkg/train.py",
                   cwd=tmp_path)
    (d,) = json_findings(proc, "JAX101")
    assert "32.0 MiB" in d["message"] and "`TABLE`" in d["message"]
    proc = run_cli("check", "--no-cache", "--select", "JAX101", "--output-format", "sarif", "pkg/train.py",
                   cwd=tmp_path)
    assert "pkg/data.py" in proc.stdout  # the related location: the array's definition, in its own file


def test_a_loaded_array_of_another_module_is_likely(tmp_path):
    _write(tmp_path, {"data.py": "import numpy as np\n\nTABLE = np.load('table.npy')\n",
                      "train.py": _jitted("from data import TABLE", "TABLE")})
    (found,) = _jax101(tmp_path, "train.py")
    assert "np.load" in found[2]


#: (files, checked file, the importing module's source): quiet
VALID = {
    "small-array": ({"data.py": "import numpy as np\n\nTABLE = np.ones((8, 8))\n"}, "train.py",
                    _jitted("from data import TABLE", "TABLE")),
    "only-its-shape": ({"data.py": DATA}, "train.py",
                       "import jax\nimport jax.numpy as jnp\nfrom data import TABLE\nimport data\n\n\n@jax.jit\n"
                       "def f(x):\n    return jnp.zeros(TABLE.shape) + data.TABLE.shape[0] + x\n"),
    "passed-as-an-argument": ({"data.py": DATA}, "train.py",
                              "import jax\nfrom data import TABLE\n\n\n@jax.jit\ndef f(x, t):\n    return x @ t\n\n\n"
                              "f(1.0, TABLE)\n"),
    "not-traced": ({"data.py": DATA}, "train.py", "from data import TABLE\n\n\ndef f(x):\n    return x @ TABLE\n"),
    "bound-twice-there": ({"data.py": DATA + "if N > 4:\n    TABLE = None\n"}, "train.py",
                          _jitted("from data import TABLE", "TABLE")),
    "shadowed-after-the-import": ({"data.py": DATA}, "train.py",
                                  _jitted("import numpy as np\nfrom data import TABLE\nTABLE = np.ones(4)", "TABLE")),
    "a-function-not-a-constant": ({"data.py": "import numpy as np\n\ndef TABLE():\n    return np.ones((2048, 2048))\n"},
                                  "train.py", _jitted("from data import TABLE", "TABLE()")),
    "missing-module": ({}, "train.py", _jitted("from data import TABLE", "TABLE")),
    "re-export-cycle": ({"pkg/__init__.py": "from .a import TABLE\n", "pkg/a.py": "from .b import TABLE\n",
                         "pkg/b.py": "from .a import TABLE\n"}, "main.py", _jitted("from pkg import TABLE", "TABLE")),
}


@pytest.mark.parametrize("case", sorted(VALID))
def test_what_is_not_an_imported_array_constant_is_quiet(tmp_path, case):
    files, target, source = VALID[case]
    _write(tmp_path, {**files, target: source})
    assert _jax101(tmp_path, target) == []


def test_a_module_outside_the_root_is_not_read(tmp_path):
    """The checked tree is the project root: a sibling project's module is not followed."""
    _write(tmp_path / "other", {"data.py": DATA})
    _write(tmp_path / "proj", {"train.py": _jitted("import sys\nsys.path.insert(0, '../other')\nfrom data import TABLE",
                                                   "TABLE")})
    assert _jax101(tmp_path / "proj", "train.py") == []
    _write(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/train.py": _jitted("from ...other import data", "data.TABLE")})
    assert _jax101(tmp_path / "proj", "pkg/train.py") == []
    # the same import of a module inside the root is followed
    _write(tmp_path / "proj", {"other/data.py": DATA, "pkg/inner.py": _jitted("from ..other import data", "data.TABLE")})
    assert len(_jax101(tmp_path / "proj", "pkg/inner.py")) == 1


def _model(root: Path, rel: str) -> ModuleModel:
    path = root / rel
    return ModuleModel(ast.parse(path.read_text()), "", Link.for_file(path, root))


def _constant(model: ModuleModel, text: str):
    """What the model says the expression ``text`` (as read at the end of the module) is."""
    expr = next(n for n in model.nodes(ast.Name, ast.Attribute) if ast.unparse(n) == text)
    return imported_constant(model, expr, model.function_of(expr))


@pytest.mark.parametrize("importing, read, found", [
    ("from .data import TABLE", "TABLE", "np.random.randn(2048, 2048)"),
    ("from . import data", "data.TABLE", "np.random.randn(2048, 2048)"),
    ("import pkg.data", "pkg.data.TABLE", "np.random.randn(2048, 2048)"),
    ("import pkg.data as d", "d.N", "2048"),
    ("from ...beyond import TABLE", "TABLE", None),  # a relative import above the top
    ("from .missing import TABLE", "TABLE", None),
    ("from .data import np", "np", None),  # an import there, not an assignment
    ("from .data import TABLE\nTABLE = 1", "TABLE", None),  # shadowed after the import
])
def test_the_resolver(tmp_path, importing, read, found):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/data.py": DATA, "pkg/main.py": f"{importing}\n{read}\n"})
    got = _constant(_model(tmp_path, "pkg/main.py"), read)
    if found is None:
        assert got is None
    else:
        assert ast.unparse(got.value) == found
        assert got.path == (tmp_path / "pkg" / "data.py").resolve()
        assert got.start[0] == 4 if read != "d.N" else got.start[0] == 3


def test_a_re_export_cycle_gives_unknown(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "from .a import T\n", "pkg/a.py": "from .b import T\n",
                      "pkg/b.py": "from .a import T\n", "main.py": "from pkg import T\nT\n"})
    assert _constant(_model(tmp_path, "main.py"), "T") is None


def test_the_constant_is_a_dependency_of_the_checked_file(tmp_path):
    _write(tmp_path, {"data.py": DATA, "main.py": "from data import TABLE\nTABLE\n"})
    m = _model(tmp_path, "main.py")
    assert _constant(m, "TABLE") is not None
    assert list(m.link.used) == ["data.py"]


def test_the_cache_follows_an_edit_of_the_defining_module(tmp_path):
    """Check train.py, edit data.py only, check again with the cache: the finding follows."""
    cache = tmp_path / "cache"
    root = tmp_path / "proj"
    root.mkdir()
    _write(root, {"data.py": DATA, "train.py": _jitted("from data import TABLE", "TABLE")})
    args = ("--cache-dir", str(cache))
    assert len(_jax101(root, "train.py", *args)) == 1
    assert len(_jax101(root, "train.py", *args)) == 1  # from the cache
    (root / "data.py").write_text("import numpy as np\n\nTABLE = np.ones(8)\n")
    assert _jax101(root, "train.py", *args) == []
    (root / "data.py").write_text(DATA)
    assert len(_jax101(root, "train.py", *args)) == 1


def test_a_module_is_parsed_only_when_its_assignment_may_be_an_array(tmp_path):
    """JAX101 asks only of names assigned a NumPy / jax call, a name or a display: a
    module that assigns anything else is not parsed (the cost on libraries that import
    their own modules heavily)."""
    _write(tmp_path, {"data.py": "import numpy as np\nfrom .make import make\n\nTABLE = make(np.float32)\n",
                      "train.py": _jitted("from data import TABLE", "TABLE")})
    m = _model(tmp_path, "train.py")
    expr = next(n for n in m.nodes(ast.Name) if n.id == "TABLE" and m.function_of(n) is not None)
    from jaxlint.rules.static.jax101_captured_array import _arrayish

    assert imported_constant(m, expr, None, _arrayish) is None
    data = m.link.tree.module((tmp_path / "data.py").resolve())
    assert data is not None and data._scopes is False  # read, never parsed
    assert imported_constant(m, expr, None) is not None  # asked without the test, it is parsed
    assert data._scopes is not False


# -- a helper of another module that hands its parameter to NumPy (JAX104 at the call) ------

UTILS = """
import numpy as np


def to_host(x):
    return np.asarray(x) * 2


def summed(v, axis=0):
    scale = 2.0
    total = np.sum(v, axis)
    return total * scale


def guarded(x):
    if isinstance(x, np.ndarray):
        return np.asarray(x)
    return x


def after_try(x):
    try:
        import scipy  # noqa: F401
    except ImportError:
        return x
    return np.asarray(x)


def shape_of(x):
    return np.shape(x)


def rebound(x):
    x = float(len(x))
    return np.asarray(x)


def in_a_branch(x, host):
    return np.asarray(x) if host else x


class Box:
    def host(self, x):
        return np.asarray(x)
"""


def _jax104(root: Path, target: str) -> list[tuple[int, str]]:
    proc = run_cli("check", "--no-cache", "--select", "JAX104", "--output-format", "json", target, cwd=root)
    assert proc.returncode in (0, 1), proc.stderr
    return [(d["location"]["row"], d["message"]) for d in json_findings(proc, "JAX104")]


def _step(importing: str, body: str, decorator: str = "@jax.jit") -> str:
    return (f"import jax\nimport jax.numpy as jnp\n{importing}\n\n\n{decorator}\ndef step(x):\n"
            f"    y = {body}\n    return y\n")


HOST_INVALID = {
    "from-import": ("utils.py", "train.py", "from utils import to_host", "to_host(x)", "np.asarray"),
    "module-attribute": ("utils.py", "train.py", "import utils", "utils.to_host(x + 1)", "np.asarray"),
    "keyword": ("utils.py", "train.py", "from utils import summed", "summed(axis=1, v=x)", "np.sum"),
    "relative-in-a-package": ("pkg/utils.py", "pkg/train.py", "from .utils import to_host", "to_host(x)",
                              "np.asarray"),
    "jitted-at-a-call": ("utils.py", "train.py", "from utils import to_host", "to_host(x).sum()", "np.asarray"),
}


@pytest.mark.parametrize("case", sorted(HOST_INVALID))
def test_a_helper_of_another_module_handing_a_tracer_to_numpy_is_reported_at_the_call(tmp_path, case):
    where, target, importing, body, numpy = HOST_INVALID[case]
    step = _step(importing, body, "" if case == "jitted-at-a-call" else "@jax.jit")
    if case == "jitted-at-a-call":
        step += "\n\nfast = jax.jit(step)\n"
    files = {where: UTILS, target: step}
    if where.startswith("pkg/"):
        files["pkg/__init__.py"] = ""
    _write(tmp_path, files)
    found = _jax104(tmp_path, target)
    assert len(found) == 1, found
    line, message = found[0]
    assert line == 8 and f"`{numpy}`" in message and "utils.py:" in message


@pytest.mark.parametrize("body", [
    "guarded(x)",  # a branch ahead of the NumPy call
    "after_try(x)",  # a try ahead of it
    "shape_of(x)",  # a shape query, fine on a tracer
    "rebound(x)",  # the parameter is rebound before NumPy sees it
    "in_a_branch(x, False)",  # only one arm of a conditional expression
    "to_host(3.0) + x",  # the argument is not traced
    "Box().host(x)",  # a method: not followed
])
def test_what_does_not_surely_hand_a_tracer_to_numpy_is_quiet(tmp_path, body):
    _write(tmp_path, {"utils.py": UTILS,
                      "train.py": _step("from utils import to_host, guarded, after_try, shape_of, rebound, "
                                        "in_a_branch, Box", body)})
    assert _jax104(tmp_path, "train.py") == []


def test_a_helper_called_outside_traced_code_is_quiet(tmp_path):
    _write(tmp_path, {"utils.py": UTILS, "train.py": "from utils import to_host\n\n\ndef main(x):\n"
                                                     "    return to_host(x)\n"})
    assert _jax104(tmp_path, "train.py") == []


def test_the_reported_helper_raises_under_real_jax_and_the_quiet_ones_run(tmp_path):
    """The truth of the cases above, under jax: the reported call raises, the guarded,
    shape-query and rebinding helpers trace."""
    _write(tmp_path, {"utils.py": UTILS})
    script = textwrap.dedent("""
        import jax, jax.numpy as jnp
        import utils
        x = jnp.ones(3)
        for name in ("to_host", "guarded", "shape_of", "rebound"):
            try:
                jax.jit(getattr(utils, name))(x)
                print(name, "ok")
            except Exception as e:
                print(name, type(e).__name__)
    """)
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "JAX_PLATFORMS": "cpu"})
    assert out.stdout.split("\n")[:4] == ["to_host TracerArrayConversionError", "guarded ok", "shape_of ok",
                                          "rebound ok"], out.stderr[-2000:]


def test_a_summary_cycle_across_modules_is_unknown_and_ends(tmp_path):
    """a.f calls b.g, which calls a.f again: no summary is known, and asking ends."""
    from jaxlint.static.values import Kind, Summaries

    _write(tmp_path, {"a.py": "from b import g\n\n\ndef f(x):\n    return g(x)\n",
                      "b.py": "from a import f\n\n\ndef g(x):\n    return f(x)\n",
                      "main.py": "from a import f\nf(1)\n"})
    m = _model(tmp_path, "main.py")
    call = next(n for n in m.nodes(ast.Call))
    assert Summaries.of(m).callee_returns(call.func, None) is Kind.UNKNOWN
    assert set(m.link.used) == {"a.py", "b.py"}


# -- static values of another module: loop counts and sizes (consts.static_value) --------

CONFIG = "N = 4096\nLAYERS = 64\nFEW = 2\nNAME = 'x'\nSHAPE = (N, 8)\n"


@pytest.mark.parametrize("importing, read, value", [
    ("from config import N", "N", 4096),
    ("import config", "config.LAYERS * 2", 128),
    ("import config as c", "c.SHAPE", (4096, 8)),
    ("from config import NAME", "NAME", "x"),
    ("from config import missing", "missing", None),
    ("from config import N\nN = 3", "N", None),  # shadowed after the import: bound twice here
])
def test_a_static_value_of_another_module(tmp_path, importing, read, value):
    from jaxlint.static.consts import UNKNOWN, static_value

    _write(tmp_path, {"config.py": CONFIG, "main.py": f"{importing}\nx = {read}\n"})
    m = _model(tmp_path, "main.py")
    assign = [n for n in m.nodes(ast.Assign) if ast.unparse(n.targets[0]) == "x"][0]
    got = static_value(m, assign.value)
    assert got == value if value is not None else got is UNKNOWN


def test_a_loop_count_from_another_module_is_known(tmp_path):
    step = ("import jax\nimport config\nfrom config import LAYERS, FEW\n\n\n@jax.jit\ndef step(x):\n"
            "    for i in range(LAYERS):\n        x = x * 2\n    for i in range(config.FEW):\n        x = x + 1\n"
            "    return x\n")
    _write(tmp_path, {"config.py": CONFIG, "train.py": step})
    proc = run_cli("check", "--no-cache", "--select", "JAX102", "--output-format", "json", "train.py", cwd=tmp_path)
    found = [(d["location"]["row"], d["message"]) for d in json_findings(proc, "JAX102")]
    assert [line for line, _ in found] == [8] and "64 iterations" in found[0][1]


def test_an_array_sized_by_a_third_modules_constant_and_the_cache(tmp_path):
    """train.py closes over data.TABLE, sized by sizes.N: editing sizes.py alone changes
    train.py's cached finding."""
    root, cache = tmp_path / "proj", tmp_path / "cache"
    _write(root, {"sizes.py": CONFIG, "data.py": "import numpy as np\nfrom sizes import N\n\nTABLE = np.zeros((N, N))\n",
                  "train.py": _jitted("from data import TABLE", "TABLE")})
    args = ("--cache-dir", str(cache))
    (found,) = _jax101(root, "train.py", *args)
    assert "128.0 MiB" in found[2]
    assert _jax101(root, "train.py", *args) == [found]
    (root / "sizes.py").write_text(CONFIG.replace("N = 4096", "N = 16"))
    assert _jax101(root, "train.py", *args) == []


def test_the_definition_is_placed_in_code_points(tmp_path):
    # the related location is in the other file's columns as an editor counts them: code
    # points, not ast's UTF-8 bytes ("É" is two bytes, one column)
    value = 'np.zeros((4096, 1024), dtype="float32" if "É" else None)'
    _write(tmp_path, {"data.py": f"import numpy as np\n\nTABLE = {value}\n",
                      "train.py": _jitted("from data import TABLE", "TABLE")})
    found = _constant(_model(tmp_path, "train.py"), "TABLE")
    assert found is not None
    assert (found.start, found.end) == ((3, len("TABLE = ") + 1), (3, len(f"TABLE = {value}") + 1))


#: a class whose method stores a vmap of its helper and runs the helper itself (JAX105's VALID fixture)
MESH = (Path(__file__).parent / "fixtures" / "rules" / "JAX105" / "valid_stored_wrapper.py").read_text()


def test_a_stored_transform_is_traced_once_another_module_names_it_and_the_cache_follows(tmp_path):
    """``self.vec_change = jax.vmap(change)``, read by no code of mesh.py: traced only while
    another module of the tree names ``vec_change`` (every module is searched, and each is a
    dependency of mesh.py's cache entry, so an edit of sim.py re-checks it)."""
    cache, root = tmp_path / "cache", tmp_path / "proj"
    _write(root, {"mesh.py": MESH, "sim.py": "from mesh import Mesh\n\n\ndef run(m):\n    return Mesh(m).step(0.1)\n"})

    def jax105(*extra: str) -> list[int]:
        proc = run_cli("check", "--select", "JAX105", "--output-format", "json", *extra, "mesh.py", cwd=root)
        assert proc.returncode in (0, 1), proc.stderr
        return [d["location"]["row"] for d in json_findings(proc, "JAX105")]

    args = ("--cache-dir", str(cache))
    assert jax105(*args) == [] and jax105(*args) == []
    (root / "sim.py").write_text("from mesh import Mesh\n\n\ndef run(m, ids):\n"
                                 "    mesh = Mesh(m)\n    mesh.step(0.1)\n    return mesh.vec_change(0.1, ids)\n")
    assert jax105(*args) == [13]
    m = ModuleModel(ast.parse(MESH), "mesh", link=Link.for_file(root / "mesh.py", root))
    assert next(f for f in m.functions if f.name == "change").traced
    assert "sim.py" in (m.link.used or {})


def test_the_tree_search_answers_named_when_the_tree_is_too_large_to_search(tmp_path, monkeypatch):
    from jaxlint.static import tree

    _write(tmp_path, {"mesh.py": MESH, "a.py": "", "b.py": "", ".venv/c.py": "vec_change\n",
                      "site-packages/d.py": "vec_change\n"})
    deps: set = set()
    assert not Link.for_file(tmp_path / "mesh.py", tmp_path).mentioned_elsewhere("vec_change", deps)
    assert {rel for rel, _ in deps} == {"", "a.py", "b.py"}  # the listing; hidden folders and site-packages are not the project's
    for bound, value in (("MAX_SCAN", 2), ("MAX_LISTED", 3)):
        with monkeypatch.context() as m:
            m.setattr(tree, bound, value)
            m.setattr(tree.SourceTree, "_by_root", {})
            assert Link.for_file(tmp_path / "mesh.py", tmp_path).mentioned_elsewhere("vec_change", set())


def test_a_module_added_to_the_tree_re_checks_a_file_whose_findings_searched_it(tmp_path):
    """The search of the whole tree depends on which module files there are: a cached entry
    whose answer was "named nowhere else" is checked again once a new module names the word
    (the tree's listing is a dependency of the entry, not shown among the files it read)."""
    cache, root = tmp_path / "cache", tmp_path / "proj"
    _write(root, {"mesh.py": MESH})

    def jax105() -> list[int]:
        proc = run_cli("check", "--select", "JAX105", "--output-format", "json", "--cache-dir", str(cache),
                       "mesh.py", cwd=root)
        assert proc.returncode in (0, 1), proc.stderr
        return [d["location"]["row"] for d in json_findings(proc, "JAX105")]

    assert jax105() == [] and jax105() == []
    (root / "sim.py").write_text("from mesh import Mesh\n\n\ndef run(m, ids):\n"
                                 "    mesh = Mesh(m)\n    return mesh.vec_change(0.1, ids)\n")
    assert jax105() == [13]
    deps: set = set()
    Link.for_file(root / "mesh.py", root).mentioned_elsewhere("vec_change", deps)
    assert ("", Link.for_file(root / "mesh.py", root).tree.listing()[1]) in deps
