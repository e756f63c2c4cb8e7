"""Regenerate the captured HLO: ``python tests/data/hlo/make_hlo.py`` with each supported jax.

Absolute paths of this folder are replaced by ``tests/data/hlo`` so the files do not
depend on the machine that produced them.
"""
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import jax  # noqa: E402

from programs import PROGRAMS, compiled  # noqa: E402

if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for name in PROGRAMS:
        text = compiled(name).as_text().replace(HERE, "tests/data/hlo")
        with open(os.path.join(HERE, f"{name}-{jax.__version__}.hlo"), "w") as f:
            f.write(text)
        print(name, jax.__version__, len(text))
