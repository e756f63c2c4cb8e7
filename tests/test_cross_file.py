"""Function summaries and classes across the modules of the checked tree
(``jaxlint/static/tree.py``): what the value model answers about a function or class
imported from another file, the bounds on it, and the static cache, whose entries hold
only while the modules they read are unchanged."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from helpers import lint_source
from jaxlint.config import Settings
from jaxlint.files.discovery import FileTask
from jaxlint.static.runner import check_one
from jaxlint.static.semantic import ModuleModel
from jaxlint.static.tree import MAX_MODULES, Link, digest
from jaxlint.static.values import Kind, Summaries

UTILS = """
    import jax.numpy as jnp

    def n_rows(x):
        return x.shape[0] * 2

    def total(x):
        return jnp.sum(x)

    def unknown(x):
        return x.compute()
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))


def _model(root: Path, rel: str) -> ModuleModel:
    path = root / rel
    return ModuleModel(ast.parse(path.read_text()), "", Link.for_file(path, root))


def _returns(model: ModuleModel, call_line: int) -> Kind:
    """What the summary says the call on ``call_line`` of the model returns."""
    call = next(n for n in model.nodes(ast.Call) if n.lineno == call_line)
    return Summaries.of(model).callee_returns(call.func, model.function_of(call))


@pytest.mark.parametrize("importing", [
    "from .utils import n_rows, total, unknown\nn_rows(a)\ntotal(a)\nunknown(a)\n",
    "from . import utils\nutils.n_rows(a)\nutils.total(a)\nutils.unknown(a)\n",
    "import pkg.utils as u\nu.n_rows(a)\nu.total(a)\nu.unknown(a)\n",
    "import pkg.utils\npkg.utils.n_rows(a)\npkg.utils.total(a)\npkg.utils.unknown(a)\n",
    "from pkg import utils\nutils.n_rows(a)\nutils.total(a)\nutils.unknown(a)\n",
    # a package's __init__ re-exports the helpers
    "from pkg import n_rows, total, unknown\nn_rows(a)\ntotal(a)\nunknown(a)\n",
    "from . import n_rows, total, unknown\nn_rows(a)\ntotal(a)\nunknown(a)\n",
])
def test_a_summary_of_another_module_is_what_a_call_returns(tmp_path, importing):
    _write(tmp_path, {"pkg/__init__.py": "from .utils import n_rows, total, unknown\n",
                      "pkg/utils.py": UTILS, "pkg/main.py": importing})
    m = _model(tmp_path, "pkg/main.py")
    assert [_returns(m, line) for line in (2, 3, 4)] == [Kind.STATIC, Kind.TRACED, Kind.UNKNOWN]
    assert set(m.link.used) >= {"pkg/utils.py"}


def test_a_module_under_src_and_a_helper_that_calls_a_helper_of_a_third_module(tmp_path):
    _write(tmp_path, {
        "src/lib/__init__.py": "",
        "src/lib/shapes.py": "def rows(x):\n    return x.shape[0]\n",
        "src/lib/wrap.py": "from lib.shapes import rows\n\ndef twice(x):\n    return rows(x) * 2\n",
        "src/lib/main.py": "from lib.wrap import twice\ntwice(a)\n",
    })
    m = _model(tmp_path, "src/lib/main.py")
    assert _returns(m, 2) is Kind.STATIC
    # both modules the answer rests on are recorded, the one read through the other too
    assert set(m.link.used) == {"src/lib/wrap.py", "src/lib/shapes.py"}


@pytest.mark.parametrize("files,why", [
    ({"main.py": "from numpy_helpers import rows\nrows(a)\n"}, "a module outside the tree"),
    ({"main.py": "from helpers import rows\nrows(a)\n", "helpers.py": "def rows(x)\n    return x.shape[0]\n"},
     "a module that does not parse"),
    ({"main.py": "from a import f\nf(x)\n",
      "a.py": "from b import g\n\ndef f(x):\n    return g(x)\n",
      "b.py": "from a import f\n\ndef g(x):\n    return f(x)\n"}, "recursion across modules"),
    ({"main.py": "from helpers import rows\nrows(a)\n", "helpers.py": "rows = len\n"}, "not a def"),
])
def test_what_cannot_be_read_is_unknown(tmp_path, files, why):
    _write(tmp_path, files)
    assert _returns(_model(tmp_path, "main.py"), 2) is Kind.UNKNOWN, why


def test_a_helper_of_another_module_traced_on_one_path_only_is_unknown(tmp_path):
    """numpyro's `while_loop` returns `lax.while_loop(...)`, or its value when control
    flow is switched off: a tracer on one path only, not known from another module."""
    _write(tmp_path, {"util.py": """
        from jax import lax

        def while_loop(cond, body, init):
            if DISABLED:
                val = init
                while cond(val):
                    val = body(val)
                return val
            return lax.while_loop(cond, body, init)

        def always(cond, body, init):
            return lax.while_loop(cond, body, init)
        """, "main.py": "from util import while_loop, always\nwhile_loop(c, b, x)\nalways(c, b, x)\n"})
    m = _model(tmp_path, "main.py")
    assert [_returns(m, 2), _returns(m, 3)] == [Kind.UNKNOWN, Kind.TRACED]


def test_no_link_no_other_module(tmp_path):
    _write(tmp_path, {"helpers.py": "def rows(x):\n    return x.shape[0]\n",
                      "main.py": "from helpers import rows\nrows(a)\n"})
    m = ModuleModel(ast.parse((tmp_path / "main.py").read_text()), "main")
    assert _returns(m, 2) is Kind.UNKNOWN


def test_one_file_reads_at_most_max_modules_others(tmp_path):
    n = MAX_MODULES + 4
    files = {f"h{i}.py": "def rows(x):\n    return x.shape[0]\n" for i in range(n)}
    files["main.py"] = "".join(f"from h{i} import rows as r{i}\n" for i in range(n)) + "".join(
        f"r{i}(a)\n" for i in range(n))
    _write(tmp_path, files)
    m = _model(tmp_path, "main.py")
    kinds = [_returns(m, n + 1 + i) for i in range(n)]
    assert kinds == [Kind.STATIC] * MAX_MODULES + [Kind.UNKNOWN] * 4
    assert len(m.link.used) == MAX_MODULES


def test_another_module_is_read_never_run(tmp_path):
    marker = tmp_path / "ran"
    _write(tmp_path, {"helpers.py": f"open({str(marker)!r}, 'w').write('x')\n\ndef rows(x):\n    return x.shape[0]\n",
                      "main.py": "from helpers import rows\nrows(a)\n"})
    assert _returns(_model(tmp_path, "main.py"), 2) is Kind.STATIC
    assert not marker.exists()


JITTED = """
    import jax
    from helpers import rows

    @jax.jit
    def f(x):
        if rows(x) > 2:
            x = x + 1
        return x
"""


def test_the_findings_of_a_rule_follow_the_summary(tmp_path):
    """A static helper is no tracer (the possible finding is gone), a traced one is a
    certain finding (an error, reported by default)."""
    static = {"helpers.py": "def rows(x):\n    return x.shape[0]\n"}
    traced = {"helpers.py": "import jax.numpy as jnp\n\ndef rows(x):\n    return jnp.sum(x)\n"}
    alone = lint_source(JITTED, select=["JAX105"], confidence="possible")
    assert [d.confidence.value for d in alone] == ["possible"]
    assert lint_source(JITTED, select=["JAX105"], confidence="possible", files=static) == []
    found = lint_source(JITTED, select=["JAX105"], files=traced)
    assert [(d.start.line, d.confidence.value, d.severity.value) for d in found] == [(6, "certain", "error")]


def test_a_class_imported_from_another_module_declares_its_static_fields(tmp_path):
    src = """
        import jax
        from .types import State

        @jax.jit
        def step(state, x):
            if state.n > 2:
                x = x * 2
            if state.w > 0:
                x = x + 1
            return x
    """
    types = """
        import dataclasses
        import jax

        @jax.tree_util.register_dataclass
        @dataclasses.dataclass
        class State:
            w: jax.Array
            n: int = dataclasses.field(metadata=dict(static=True))
    """
    alone = lint_source(src, select=["JAX105"])
    assert [d.start.line for d in alone] == [6, 8]
    linked = lint_source(src, select=["JAX105"], path="pkg/main.py",
                         files={"pkg/__init__.py": "", "pkg/types.py": types})
    assert [d.start.line for d in linked] == [8]  # `w` is a leaf: still a finding


def test_a_method_of_a_class_imported_from_another_module_is_summarised(tmp_path):
    src = """
        import jax
        from .types import Buffer

        @jax.jit
        def step(buf, x):
            if buf.count() > 2:
                x = x * 2
            if buf.total() > 0:
                x = x + 1
            return x
    """
    types = """
        import jax.numpy as jnp

        class Buffer:
            def __init__(self, items):
                self.items = items

            def count(self):
                return len(self.items)

            def total(self):
                return jnp.sum(self.items[0])
    """
    alone = lint_source(src, select=["JAX105"], confidence="possible")
    assert [(d.start.line, d.confidence.value) for d in alone] == [(6, "possible"), (8, "possible")]
    linked = lint_source(src, select=["JAX105"], confidence="possible", path="pkg/main.py",
                         files={"pkg/__init__.py": "", "pkg/types.py": types})
    # `count` returns a Python int; `total` a jax.numpy result: the finding is as sure as the buffer
    assert [d.start.line for d in linked] == [8]
    assert linked[0].confidence.value != "possible"


def _check(root: Path, cache: Path):
    settings = Settings(root=root)
    return check_one(FileTask(root / "pkg" / "main.py", "pkg/main.py", settings), str(cache))


def test_the_cache_entry_of_a_file_goes_when_a_module_it_read_changes(tmp_path):
    """Only the helper module is edited: the importing file's finding appears and
    disappears on the next run with the warm cache."""
    root, cache = tmp_path / "proj", tmp_path / "cache"
    _write(root, {"pkg/__init__.py": "", "pkg/main.py": JITTED.replace("from helpers", "from .helpers"),
                  "pkg/helpers.py": "def rows(x):\n    return x.shape[0]\n"})
    first = _check(root, cache)
    assert (first.cached, first.diagnostics) == (False, [])
    again = _check(root, cache)
    assert (again.cached, again.diagnostics) == (True, [])

    (root / "pkg" / "helpers.py").write_text("import jax.numpy as jnp\n\ndef rows(x):\n    return jnp.sum(x)\n")
    changed = _check(root, cache)
    assert not changed.cached
    assert [(d.code, d.start.line) for d in changed.diagnostics] == [("JAX105", 6)]
    assert _check(root, cache).cached

    (root / "pkg" / "helpers.py").write_text("def rows(x):\n    return x.shape[0]\n")
    back = _check(root, cache)
    assert (back.cached, back.diagnostics) == (False, [])


def test_a_file_that_reads_no_other_module_keeps_its_entry(tmp_path):
    root, cache = tmp_path / "proj", tmp_path / "cache"
    _write(root, {"pkg/__init__.py": "", "pkg/main.py": "import jax\n\n@jax.jit\ndef f(x):\n    return x\n",
                  "pkg/helpers.py": "def rows(x):\n    return x.shape[0]\n"})
    assert not _check(root, cache).cached
    (root / "pkg" / "helpers.py").write_text("def rows(x):\n    return x.shape[1]\n")
    assert _check(root, cache).cached


def test_the_dependency_is_the_digest_of_the_bytes(tmp_path):
    _write(tmp_path, {"helpers.py": "def rows(x):\n    return x.shape[0]\n",
                      "main.py": "from helpers import rows\nrows(a)\n"})
    m = _model(tmp_path, "main.py")
    _returns(m, 2)
    assert m.link.used == {"helpers.py": digest((tmp_path / "helpers.py").read_bytes())}


#: a module that takes the helpers by star import, and the calls it makes of them
STARRED = "{importing}\nn_rows(a)\ntotal(a)\nunknown(a)\n"
FLAT_UTILS = textwrap.dedent(UTILS).lstrip("\n")


@pytest.mark.parametrize("importing,files", [
    ("from .utils import *", {}),
    ("from pkg.utils import *", {}),
    # through a module that takes them by star import itself (two hops)
    ("from .mid import *", {"pkg/mid.py": "from .utils import *\n"}),
    # `__all__` names them
    ("from .utils import *", {"pkg/utils.py": FLAT_UTILS + "\n__all__ = ['n_rows', 'total']\n__all__ += ('unknown',)\n"}),
    # the last star import that gives the name binds it
    ("from .other import *\nfrom .utils import *", {"pkg/other.py": "import jax.numpy as jnp\n\ndef n_rows(x):\n"
                                                                     "    return jnp.sum(x)\n"}),
])
def test_a_name_a_module_takes_by_star_import_is_followed(tmp_path, importing, files):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/utils.py": UTILS, **files,
                      "pkg/main.py": STARRED.format(importing=importing)})
    m = _model(tmp_path, "pkg/main.py")
    lines = importing.count("\n") + 2
    assert [_returns(m, line) for line in range(lines, lines + 3)] == [Kind.STATIC, Kind.TRACED, Kind.UNKNOWN]
    assert "pkg/utils.py" in m.link.used


@pytest.mark.parametrize("importing,files,why", [
    ("from .utils import *", {"pkg/utils.py": FLAT_UTILS + "\n__all__ = ['unknown']\n"}, "not in `__all__`"),
    ("from .utils import *", {"pkg/utils.py": FLAT_UTILS + "\n__all__ = [f.__name__ for f in (unknown,)]\n"},
     "an `__all__` not written out"),
    ("from .utils import *\nfrom .other import *", {"pkg/other.py": "def n_rows(x):\n    return x.compute()\n\n"
                                                                  "def total(x):\n    return x.compute()\n"},
     "a later star import binds the names again"),
    ("from numpy_helpers import *", {}, "a module outside the tree"),
])
def test_a_star_import_gives_only_what_the_module_exports(tmp_path, importing, files, why):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/utils.py": UTILS, **files,
                      "pkg/main.py": STARRED.format(importing=importing)})
    m = _model(tmp_path, "pkg/main.py")
    lines = importing.count("\n") + 2
    assert [_returns(m, line) for line in (lines, lines + 1)] == [Kind.UNKNOWN, Kind.UNKNOWN], why


def test_a_star_import_without_all_gives_public_names_only(tmp_path):
    """Without ``__all__``, ``from m import *`` binds the names of ``m`` that do not start
    with an underscore: ``_rows`` stays unbound (a NameError in Python), ``rows`` is read."""
    helpers = "def _rows(x):\n    return x.shape[0]\n\ndef rows(x):\n    return x.shape[0]\n"
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/helpers.py": helpers,
                      "pkg/main.py": "from .helpers import *\n_rows(a)\nrows(a)\n"})
    m = _model(tmp_path, "pkg/main.py")
    assert [_returns(m, 2), _returns(m, 3)] == [Kind.UNKNOWN, Kind.STATIC]


def test_the_cache_entry_of_a_file_goes_when_its_star_imported_module_changes(tmp_path):
    """The helper comes by ``from .helpers import *``: editing only that module re-checks
    the importing file, whose finding follows; a module star-imported after it that does
    not export the name is a dependency too (an edit may add it)."""
    root, cache = tmp_path / "proj", tmp_path / "cache"
    main = JITTED.replace("from helpers import rows", "from .helpers import *\n    from .extra import *")
    _write(root, {"pkg/__init__.py": "", "pkg/main.py": main, "pkg/extra.py": "def other(x):\n    return x\n",
                  "pkg/helpers.py": "def rows(x):\n    return x.shape[0]\n"})
    line = next(i for i, text in enumerate(textwrap.dedent(main).lstrip("\n").splitlines(), 1) if "if rows(" in text)
    first = _check(root, cache)
    assert (first.cached, first.diagnostics) == (False, [])
    assert _check(root, cache).cached

    (root / "pkg" / "helpers.py").write_text("import jax.numpy as jnp\n\ndef rows(x):\n    return jnp.sum(x)\n")
    changed = _check(root, cache)
    assert not changed.cached
    assert [(d.code, d.start.line) for d in changed.diagnostics] == [("JAX105", line)]

    (root / "pkg" / "extra.py").write_text("def rows(x):\n    return x.shape[0]\n")  # now binds `rows` last
    back = _check(root, cache)
    assert (back.cached, back.diagnostics) == (False, [])
