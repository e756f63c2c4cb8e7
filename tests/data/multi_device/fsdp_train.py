"""A sharded (FSDP) training step on 8 devices, one layer left without its annotation."""
import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))
init = nnx.initializers.lecun_normal()


class MLP(nnx.Module):
    def __init__(self, rngs):
        self.fc1 = nnx.Linear(512, 1024, kernel_init=nnx.with_partitioning(init, ("data", None)), rngs=rngs)
        self.fc2 = nnx.Linear(1024, 1024, rngs=rngs)
        self.fc3 = nnx.Linear(1024, 512, kernel_init=nnx.with_partitioning(init, ("data", None)), rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.fc1(x))
        x = nnx.relu(self.fc2(x))  # JAX310
        return self.fc3(x)


def named(spec):
    return NamedSharding(mesh, spec)


@nnx.jit
def create():
    model = MLP(nnx.Rngs(0))
    state = nnx.state(model)
    shardings = jax.tree.map(named, nnx.get_partition_spec(state), is_leaf=lambda s: isinstance(s, P))
    nnx.update(model, jax.lax.with_sharding_constraint(state, shardings))
    return model


@nnx.jit
def train_step(model, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    params = nnx.state(model, nnx.Param)
    nnx.update(model, jax.tree.map(lambda p, g: p - 0.01 * g, params, grads))
    return loss


def in_mesh():
    # flax 0.12 wants a mesh context to create annotated variables (jax.set_mesh); 0.4 jax a Mesh
    return jax.set_mesh(mesh) if hasattr(jax, "set_mesh") else mesh


def main():
    with in_mesh():
        model = create()
    batch = named(P("data"))
    for step in range(3):
        x = jax.device_put(jnp.ones((64, 512)) * step, batch)
        y = jax.device_put(jnp.zeros((64, 512)), batch)
        print(step, float(train_step(model, x, y)))


if __name__ == "__main__":
    main()
