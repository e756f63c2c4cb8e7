"""JAX117 jacobian-then-contract: its claim on real jax (the contracted Jacobian equals one
`jax.vjp` / `jax.jvp`, and costs about one pass per Jacobian row or column more), beyond
the rule's VALID/INVALID examples (tests/test_rule_examples.py)."""
from __future__ import annotations

import pytest

from helpers import lint_source


def _mlp(jax, jnp, n_in: int, width: int, n_out: int):
    k1, k2, k3 = jax.random.split(jax.random.key(0), 3)
    params = {"w1": jax.random.normal(k1, (width, n_in)) / n_in ** 0.5, "b1": jnp.zeros(width),
              "w2": jax.random.normal(k2, (n_out, width)) / width ** 0.5, "b2": jnp.zeros(n_out)}

    def model(p, y):
        return p["w2"] @ jnp.tanh(p["w1"] @ y + p["b1"]) + p["b2"]

    return params, model, jax.random.normal(k3, (n_in,))


def _flops(jax, fn, *args) -> float:
    cost = jax.jit(fn).lower(*args).compile().cost_analysis()
    cost = cost[0] if isinstance(cost, (list, tuple)) else cost
    return float(cost["flops"])


def test_the_contracted_jacobian_is_one_vjp_with_the_same_values_at_a_fraction_of_the_flops():
    # the neural ODE adjoint's parameter term: a jacfwd over every parameter, contracted
    # with the adjoint `a` on the output side (the rule's first INVALID example)
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    params, model, y = _mlp(jax, jnp, n_in=2, width=64, n_out=2)
    a = jnp.array([0.3, -1.2])
    n = sum(x.size for x in jax.tree.leaves(params))  # 322 parameters: the Jacobian is 2 x 322

    def published(p, y, a):
        J = jax.jacfwd(model, argnums=0)(p, y)
        return jax.tree.map(lambda x: jnp.einsum("j,j...->...", -a, x), J)

    def rewritten(p, y, a):
        _, pullback = jax.vjp(lambda q: model(q, y), p)
        (g,) = pullback(-a)
        return g

    want, got = jax.jit(published)(params, y, a), jax.jit(rewritten)(params, y, a)
    for k in params:
        assert jnp.allclose(want[k], got[k], rtol=1e-5, atol=1e-6), k
    # the whole Jacobian is n forward passes: many times the flops of the one reverse pass
    ratio = _flops(jax, published, params, y, a) / _flops(jax, rewritten, params, y, a)
    assert ratio > 20, (ratio, n)
    assert not lint_source("""
        import jax

        def rewritten(model, p, y, a):
            _, pullback = jax.vjp(lambda q: model(q, y), p)
            return pullback(-a)[0]
        """, select=["JAX117"])


def test_a_jacobian_times_a_vector_is_one_jvp_and_a_hessian_times_a_vector_is_jvp_of_grad():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    params, model, y = _mlp(jax, jnp, n_in=64, width=32, n_out=3)
    v = jnp.linspace(-1.0, 1.0, 64)
    f = lambda y: model(params, y)  # noqa: E731
    full = jax.jit(lambda y, v: jnp.dot(jax.jacfwd(f)(y), v))
    one = jax.jit(lambda y, v: jax.jvp(f, (y,), (v,))[1])
    assert jnp.allclose(full(y, v), one(y, v), rtol=1e-5, atol=1e-6)
    assert _flops(jax, full, y, v) > 10 * _flops(jax, one, y, v)

    loss = lambda y: jnp.sum(f(y) ** 2)  # noqa: E731
    hvp_full = jax.jit(lambda y, v: jnp.einsum("ij,j->i", jax.hessian(loss)(y), v))
    hvp_one = jax.jit(lambda y, v: jax.jvp(jax.grad(loss), (y,), (v,))[1])
    assert jnp.allclose(hvp_full(y, v), hvp_one(y, v), rtol=1e-4, atol=1e-5)
    assert _flops(jax, hvp_full, y, v) > 10 * _flops(jax, hvp_one, y, v)


def test_the_hessians_of_the_outputs_weighted_by_a_vector_are_the_hessian_of_the_weighted_sum():
    # an interior-point solver's Lagrangian term (seen in an opened corpus): the Hessian of
    # each of m constraints, then weighted by the multipliers
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    params, model, y = _mlp(jax, jnp, n_in=16, width=32, n_out=8)
    c = lambda y: jnp.tanh(model(params, y))  # noqa: E731
    v = jnp.linspace(0.5, 2.0, 8)
    full = jax.jit(lambda y, v: jnp.einsum("ijk,i->jk", jax.hessian(c)(y), v))
    one = jax.jit(lambda y, v: jax.hessian(lambda y: v @ c(y))(y))
    assert jnp.allclose(full(y, v), one(y, v), rtol=1e-4, atol=1e-5)
    assert _flops(jax, full, y, v) > 3 * _flops(jax, one, y, v)
    [d] = lint_source("""
        import jax
        import jax.numpy as jnp

        def lagrangian_hessian(c, x, v):
            return jnp.einsum("ijk,i->jk", jax.hessian(c)(x), v)
        """, select=["JAX117"])
    assert "`jax.hessian` of that one weighted sum" in d.message


def test_every_use_must_be_a_contraction_with_a_vector_the_code_shows():
    src = """
        import jax
        import jax.numpy as jnp

        def side(f, x, a, M):
            r = jnp.einsum("i,i->", a, a)             # `a` is a vector: einsum gives it one index
            J1 = jax.jacrev(f)(x)
            J2 = jax.jacfwd(f)(x)
            J3 = jax.jacfwd(f)(x)
            J4 = jax.jacfwd(f, has_aux=True)(x)
            u = jnp.dot(jax.jacobian(f)(x), jnp.ones(5))
            w = jnp.tensordot(a, jax.jacfwd(f)(x), axes=1)
            q = M @ jax.jacfwd(f)(x)
            z = jnp.ones((3, 4)) @ jax.jacfwd(f)(x)
            return r, a @ J1, J2 @ a, J2, J3 @ M, u, w, q, z
        """
    got = sorted((d.start.line, d.data["vectors"][0]) for d in lint_source(src, select=["JAX117"]))
    # J1: a vector on its output side; J2 and J3 are used otherwise too (returned, with a matrix);
    # J4 is a (Jacobian, aux) pair; M and a (3, 4) array are not vectors
    assert got == [(6, "a"), (10, "jnp.ones(5)"), (11, "a")], got


def test_a_name_bound_twice_is_no_evidence_and_the_side_is_named():
    src = """
        import jax
        import jax.numpy as jnp

        def rhs(f, y, a):
            a = a.reshape(-1, 2)                      # bound twice: its rank is not shown
            jnp.einsum("j,j->", a, a)
            return a @ jax.jacfwd(f)(y)

        def jvp_side(f, y):
            v = jnp.zeros(4)
            return jax.jacrev(f)(y) @ v
        """
    diags = lint_source(src, select=["JAX117"])
    assert [d.start.line for d in diags] == [11]
    assert "a Jacobian-vector product: `jax.jvp`" in diags[0].message


def test_off_by_default_as_a_nursery_rule(tmp_path):
    """Not measured blind yet: nursery, reported with --preview or --select JAX117."""
    from helpers import run_cli

    (tmp_path / "adj.py").write_text("import jax\nimport jax.numpy as jnp\n\ndef f(g, x):\n"
                                     "    return jnp.ones(3) @ jax.jacfwd(g)(x)\n")
    plain = run_cli("check", "--isolated", "--no-cache", str(tmp_path))
    preview = run_cli("check", "--isolated", "--no-cache", "--preview", str(tmp_path))
    assert "JAX117" not in plain.stdout and "JAX117" in preview.stdout


def test_linspace_between_arrays_is_no_vector():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    assert jnp.linspace(jnp.zeros(3), jnp.ones(3), 5).shape == (5, 3)  # 2-D: no evidence
    src = """
        import jax
        import jax.numpy as jnp

        def f(g, x, a, b):
            return jnp.linspace(a, b, 5) @ jax.jacfwd(g)(x), jnp.linspace(-1, 1.5, 5) @ jax.jacrev(g)(x)
        """
    assert [d.data["vectors"] for d in lint_source(src, select=["JAX117"])] == [["jnp.linspace(-1, 1.5, 5)"]]


def test_the_transpose_contracts_the_other_side():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    params, model, y = _mlp(jax, jnp, n_in=5, width=8, n_out=3)
    f = lambda y: model(params, y)  # noqa: E731
    a = jnp.array([0.5, -1.0, 2.0])
    # `J.T @ a` is the vector-Jacobian product of `a`
    assert jnp.allclose(jax.jacfwd(f)(y).T @ a, jax.vjp(f, y)[1](a)[0], rtol=1e-5, atol=1e-6)
    src = """
        import jax
        import jax.numpy as jnp

        def pull(f, y):
            a = jnp.ones(3)
            return jax.jacfwd(f)(y).T @ a, jax.jacfwd(f)(y).T.sum()
        """
    [d] = lint_source(src, select=["JAX117"])
    assert "a vector-Jacobian product: `jax.vjp`" in d.message
