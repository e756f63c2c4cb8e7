from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, Valid
from jaxlint.rules.hlo._base import HloRule
from jaxlint.textutil import human_bytes

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileContext


class TilePadding(HloRule):
    """
    ## What it does
    Finds arrays that a TPU stores padded: the chip lays an array out in tiles (for a
    float32 matrix, 8 rows by 128 columns; the layouts of the optimized program say
    which, `f32[1000,200]{1,0:T(8,128)}`), so a dimension the tile spans is rounded up
    to a multiple of it. A feature dimension of 200 takes 256 columns, one of 100 takes
    128, a batch of 3 rows takes 8 (or 4). It reports a function whose arguments,
    outputs and intermediate arrays in the chip's main memory take `min-bytes` more than
    their data (counting each array whose tiled size is `min-ratio` times its data), with
    the padded bytes, each array's padded dimensions and the line that chose its shape:
    an intermediate or an output at the line that computes it, an argument at the
    function (its parameter); the finding sits at the most padded array. XLA chooses
    layouts that avoid padding where it can (`f32[1000,200]` is stored with its 1000
    rows minor, 2 % more): what remains is padding no layout avoids. Only a program
    compiled for a TPU has tiles (a target, `--target v5e:1x1`, or a TPU host): on the
    CPU the rule is quiet.

    ## Why is this bad?
    The padding is memory the chip allocates and moves for nothing, and the matrix
    units compute on it too: a layer of width 200 costs what one of 256 does, 28 % more
    than its data. A width that is a multiple of 128 (a batch that is a multiple of 8)
    uses the whole tile.

    ## Example
    ```python
    @jax.jit
    def drift(pos, vel):  # pos, vel: f32[2097152, 3], particles' x, y, z
        return pos + 0.01 * vel  # each [N, 3] array is stored as [N, 4]: 33 % more
    ```

    ## Use instead
    Choose sizes that fill the tiles (a width of 256 or 128, not 200; a batch that is a
    multiple of 8), or keep a small dimension out of the two minor ones: the particles
    flat (`f32[3 * N]`, x, y, z of each in a row) or coordinate-major with the particles
    last (`f32[3, N // 128, 128]`).

    ## Options

    ## References
    * [Cloud TPU performance guide: tiling and padding](https://cloud.google.com/tpu/docs/performance-guide)
    * [XLA: tiled layouts](https://openxla.org/xla/tiled_layout)
    """

    code = "JAX316"
    group = "perf"
    name = "tile-padding"
    summary = "an array takes much more memory on the TPU than its data: its tiles pad a dimension"
    fix_hint = "use sizes that are multiples of the tile (128 for a minor dimension, 8 for the one before)"
    options = {
        "min-bytes": Option(16 << 20, "report a function whose padded arrays take at least this many bytes more "
                                      "than their data, per device", int, 0),
        "min-ratio": Option(1.2, "an array counts when its tiled size is at least this many times its data",
                            (int, float), 1),
    }
    VALID = [
        # the same particles kept flat (x, y, z of each in a row): nothing to pad
        Valid(
            """
            import jax

            # jaxlint: args=(f32[6291456], f32[6291456])
            @jax.jit
            def drift(pos, vel):
                return pos + 0.01 * vel
            """,
        ),
    ]
    INVALID = [
        # positions and velocities of 2M particles as [N, 3]: the 3 is padded to 4
        Invalid(
            """
            import jax

            # jaxlint: args=(f32[2097152,3], f32[2097152,3])
            @jax.jit
            def drift(pos, vel):
                return pos + 0.01 * vel
            """,
            line=5,
            message="3 arrays take 24.0 MiB more on the TPU than their data (96.0 MiB for 72.0 MiB, 33% more, "
                    "per device)",
        ),
    ]

    def check(self, ctx: CompileContext) -> None:
        from jaxlint.compile.facts import lines_text

        facts = ctx.facts
        if not any(p.shape.tiles for p in facts.module.entry_parameters()):
            return  # no tiled layouts: not a TPU's program
        bufs = facts.argument_buffers() + facts.output_buffers() + facts.temporary_buffers()
        padded = sorted((b for b in bufs if b.shape.padded_dims()
                         and b.bytes >= self.opts["min-ratio"] * max(b.shape.bytes, 1)),
                        key=lambda b: b.shape.bytes - b.bytes)
        waste = sum(b.bytes - b.shape.bytes for b in padded)
        if not padded or waste < self.opts["min-bytes"]:
            return
        data, tiled = sum(b.shape.bytes for b in padded), sum(b.bytes for b in padded)
        shown = []
        for b in padded[:3]:
            what = {"argument": f"argument `{b.name}`", "output": f"output `{b.name}`" if b.name else "the output",
                    "temporary": "an intermediate"}[b.kind]
            dims = ", ".join(f"dimension {d} of {n} padded to {p}" for d, n, p in b.shape.padded_dims())
            at = f" at {lines_text(b.lines, facts)}" if b.lines else ""
            shown.append(f"{what} {b.shape.dtype}[{','.join(map(str, b.shape.dims))}]{at} "
                         f"({dims} by {'x'.join(map(str, b.shape.tiles[0]))} tiles: "
                         f"{human_bytes(b.bytes)} for {human_bytes(b.shape.bytes)})")
        rest = f" and {len(padded) - 3} more" if len(padded) > 3 else ""
        # at the line that makes the most padded array; an argument's shape is its caller's: at the function
        where = padded[0].lines[0] if padded[0].lines and padded[0].kind != "argument" else None
        related = [ctx.related(b.lines[0], f"makes a padded {b.shape.dtype}[{','.join(map(str, b.shape.dims))}]")
                   for b in padded if b.lines and b.lines[0] != where][:3]
        if where is not None:
            related.append(ctx.related(*facts.definition()))
        ctx.report(
            where,
            f"{len(padded)} array{'s' if len(padded) > 1 else ''} take{'' if len(padded) > 1 else 's'} "
            f"{human_bytes(waste)} more on the TPU than {'their' if len(padded) > 1 else 'its'} data "
            f"({human_bytes(tiled)} for {human_bytes(data)}, {waste / max(data, 1):.0%} more, per device): the chip's "
            f"tiles pad {'their' if len(padded) > 1 else 'its'} minor dimensions; " + "; ".join(shown) + rest,
            data={"padding_bytes": waste, "bytes": data, "tiled_bytes": tiled,
                  "arrays": [{"kind": b.kind, "name": b.name, "shape": list(b.shape.dims), "dtype": b.shape.dtype,
                              "tile": list(b.shape.tiles[0]), "bytes": b.shape.bytes, "tiled_bytes": b.bytes,
                              "padded": [list(x) for x in b.shape.padded_dims()]} for b in padded]},
            related=related,
            key="padding")
