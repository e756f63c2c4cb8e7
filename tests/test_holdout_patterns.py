"""False-alarm patterns found on the held-out precision corpus (benchmarks/bench_precision.py
--corpus holdout), each written as a minimal program, with the true finding next to it
that the fix must keep."""
from __future__ import annotations

from helpers import lines, lint_source
from jaxlint.diagnostic import Severity


def test_jax105_psum_of_a_constant_is_the_axis_size_a_python_int():
    # jax-md tpu.py: `lax.psum(1, axis_name)` returns a concrete int (checked on jax 0.10.2)
    assert lines("JAX105", """
        import jax
        from jax import lax

        def send_next(x, axis_name):
            n = lax.psum(1, axis_name)
            perm = [(i, (i + 1) % n) for i in range(n)]
            return lax.ppermute(x, axis_name, perm)

        @jax.jit
        def f(x):
            return jax.vmap(lambda y: send_next(y, "i"), axis_name="i")(x)
        """) == []
    # the sum of a traced value is traced
    assert lines("JAX105", """
        import jax
        from jax import lax

        @jax.jit
        def f(x):
            n = lax.psum(x, "i")
            return [x for i in range(n)]
        """) == [7]


def test_jax105_what_range_yields_is_a_python_int_even_from_a_traced_callers_loop():
    # jax-md: `for axis in range(grid.num_dims): exchange(data, axis, grid)` with the
    # exchange vmapped with in_axes=(0, None, None): `axis` stays a Python int
    assert lines("JAX105", """
        import jax

        def exchange(data, axis, grid):
            names = ["x", "y", "z"]
            pre = [f"({a} q)" if i == axis else a for i, a in enumerate(names)]
            return data

        exchange = jax.vmap(exchange, in_axes=(0, None, None))

        def update(data, grid):
            for axis in range(grid.num_dims):
                data = exchange(data, axis, grid)
            return data

        @jax.jit
        def step(data, grid):
            return update(data, grid)
        """) == []


def test_jax105_truth_of_a_pytree_field_is_not_an_error():
    # jumanji: `extras = final_state.timestep.extras; if extras:` (a dict field)
    src = """
        import jax

        def episode(state):
            final = jax.lax.while_loop(lambda s: s.t < 10, lambda s: s, state)
            extras = final.timestep.extras
            metrics = {"ret": final.ret}
            if extras:
                metrics.update(extras)
            if final.ret > 0:
                metrics["positive"] = True
            return metrics

        run = jax.jit(jax.vmap(episode))
        """
    diags = lint_source(src, select=["JAX105"])
    # the field tested bare is not reported; the comparison of a field is, as a warning
    assert [(d.start.line, d.severity) for d in diags] == [(9, Severity.WARNING)]


def test_jax112_x64_in_a_test_file_is_left_alone_unless_asked():
    src = "import jax\njax.config.update('jax_enable_x64', True)\n\n@jax.jit\ndef f(x):\n    return x\n"
    assert lint_source(src, select=["JAX112"], path="tests/test_solver.py") == []
    assert lint_source(src, select=["JAX112"], path="pkg/solver_test.py") == []
    # outside tests, a module that turns x64 on has made float64 its policy: reported only on request
    assert lint_source(src, select=["JAX112"], path="pkg/solver.py") == []
    assert [d.start.line for d in lint_source(src, select=["JAX112"], path="pkg/solver.py",
                                              options={"JAX112": {"report-x64-projects": True}})] == [2]
    assert [d.start.line for d in lint_source(src, select=["JAX112"], path="tests/test_solver.py",
                                              options={"JAX112": {"check-tests": True,
                                                                  "report-x64-projects": True}})] == [2]


def test_jax105_a_helper_is_as_sure_as_the_arguments_its_traced_callers_pass():
    # penzai: axis indices read from a pytree's static dict, compared in a nested helper
    src = """
        import jax

        def step(views, x):
            def shift(other):
                if other < axis:
                    return other
                return other - 1
            for view in views:
                axis = view.axes["batch"]
                shifted = {name: shift(a) for name, a in view.axes.items()}

            def clip(y):
                if y > 0:
                    return y
                return -y
            return clip(x * 2)

        run = jax.jit(step)
        """
    diags = lint_source(src, select=["JAX105"])
    assert [(d.start.line, d.severity) for d in diags] == [(5, Severity.WARNING), (13, Severity.ERROR)]
    assert "if `other` holds a Python value, such as a static pytree field, this is fine" in diags[0].message


def test_jax105_a_comprehension_filter_reads_the_comprehension_variable_not_the_loop_index():
    # kfac-jax: `tuple(i for i in range(len(spec)) if i != spec.c_axis)` inside a
    # fori_loop body whose own `i` is traced
    assert lines("JAX105", """
        import jax

        def moments(x, spec):
            def body(i, acc):
                axis = tuple(i for i in range(x.ndim) if i != spec.c_axis)
                return acc + x.sum(axis=axis) * i
            return jax.lax.fori_loop(0, 3, body, x)

        run = jax.jit(moments, static_argnums=1)
        """) == []
    assert lines("JAX105", """
        import jax

        def moments(x):
            def body(i, acc):
                axis = tuple(j for j in range(x.ndim) if i != j)
                return acc + x.sum(axis=axis)
            return jax.lax.fori_loop(0, 3, body, x)

        run = jax.jit(moments)
        """) == [5]
