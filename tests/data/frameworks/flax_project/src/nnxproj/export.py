import sys

import jax

if "--out" not in sys.argv:
    sys.exit("usage: python -m nnxproj.export --out DIR")  # JAX200


@jax.jit  # jaxlint: args=(f32[8, 4],)
def to_probabilities(logits):
    return jax.nn.softmax(logits)
