"""Regenerate the captured TPU HLO: ``python tests/data/hlo/make_tpu_hlo.py`` with
``jax[tpu]`` installed (no TPU needed: XLA compiles for a v5e chip deviceless).

Writes ``tpu_<name>-<jax version>.hlo`` (one chip), ``tpu8_<name>-...`` (a v5e-8) and, in ``tpu_memory-<jax version>.json``, each
program's ``memory_analysis()`` figures (what the parser's tiled sizes are checked
against). Absolute paths of this folder become ``tests/data/hlo``.
"""
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")

import jax  # noqa: E402
from jax.experimental import topologies  # noqa: E402

from tpu_programs import programs, sharded_programs  # noqa: E402

if __name__ == "__main__":
    warnings.simplefilter("ignore")
    device = topologies.get_topology_desc("v5e:1x1", "tpu", chips_per_host_bounds=(1, 1, 1)).devices[0]
    memory = {}
    for name, (fn, args) in programs(device).items():
        compiled = jax.jit(fn).trace(*args).lower(lowering_platforms=("tpu",)).compile()
        text = compiled.as_text().replace(HERE, "tests/data/hlo")
        with open(os.path.join(HERE, f"tpu_{name}-{jax.__version__}.hlo"), "w") as f:
            f.write(text)
        stats = compiled.memory_analysis()
        memory[name] = {k: getattr(stats, k) for k in ("argument_size_in_bytes", "output_size_in_bytes",
                                                         "temp_size_in_bytes", "peak_memory_in_bytes")}
        print(name, jax.__version__, len(text))
    slice8 = topologies.get_topology_desc("v5e:2x4", "tpu", chips_per_host_bounds=(2, 2, 1)).devices
    for name, (fn, kw, args) in sharded_programs(slice8).items():
        compiled = jax.jit(fn, **kw).trace(*args).lower(lowering_platforms=("tpu",)).compile()
        with open(os.path.join(HERE, f"tpu8_{name}-{jax.__version__}.hlo"), "w") as f:
            f.write(compiled.as_text().replace(HERE, "tests/data/hlo"))
        print(name, "v5e:2x4", jax.__version__)
    with open(os.path.join(HERE, f"tpu_memory-{jax.__version__}.json"), "w") as f:
        json.dump(memory, f, indent=1)
        f.write("\n")
