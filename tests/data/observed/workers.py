"""Jitted functions called from a thread and from child processes (fork and spawn)."""
import multiprocessing
import threading

import jax
import jax.numpy as jnp


@jax.jit
def in_thread(x):
    for _ in range(12):  # JAX202
        x = jnp.cos(x) * 2.0 + 1.0
    return x


@jax.jit
def in_child(x):
    for _ in range(12):  # JAX202
        x = jnp.sin(x) * 2.0 + 1.0
    return x


def child(n):
    print("child", float(in_child(jnp.ones(n)).sum()))


if __name__ == "__main__":
    # fork before this process runs anything on jax (its threads do not survive a fork),
    # as jax asks; spawn at any time
    for method in ("fork", "spawn"):
        p = multiprocessing.get_context(method).Process(target=child, args=(4,))
        p.start()
        p.join()
        assert p.exitcode == 0, p.exitcode
    t = threading.Thread(target=lambda: print("thread", float(in_thread(jnp.ones(3)).sum())))
    t.start()
    t.join()
