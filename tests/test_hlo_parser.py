"""The optimized-HLO parser on text captured from jax 0.4.38, 0.8.3 and 0.10.2, and live."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from jaxlint.compile.hlo import (
    COLLECTIVES, HloParseError, collectives, enclosing_loops, host_calls, parse_hlo, parse_shape, trip_count,
)

DATA = Path(__file__).parent / "data" / "hlo"
SOURCE = (DATA / "programs.py").read_text().splitlines()
VERSIONS = ("0.4.38", "0.8.3", "0.10.2")


def line_of(text: str) -> int:
    hits = [i + 1 for i, l in enumerate(SOURCE) if text in l]
    assert len(hits) == 1, text
    return hits[0]


def captured(name: str, version: str):
    return parse_hlo((DATA / f"{name}-{version}.hlo").read_text())


def lines(module, inst) -> set[int]:
    return {loc.line for loc in module.source_lines(inst)}


@pytest.mark.parametrize("version", VERSIONS)
def test_callback_kernel_sits_between_elementwise_fusions_at_the_users_lines(version):
    m = captured("chain", version)
    calls = [k for k in m.kernels() if k.opcode == "custom-call"]
    assert len(calls) == 1
    cb = calls[0]
    assert cb.custom_call_target in ("xla_python_cpu_callback", "xla_ffi_python_cpu_callback")
    assert cb.source.line == line_of("b = jax.pure_callback")
    assert cb.source.file.endswith("tests/data/hlo/programs.py")
    producers = [m.producer(op) for op in cb.operands]
    producers = [p for p in producers if p is not None and p.opcode != "constant"]
    assert [m.is_elementwise(p) for p in producers] == [True]
    assert lines(m, producers[0]) == {line_of("a = jnp.tanh(x)")}
    consumers = m.consumers(cb)
    assert any(m.is_elementwise(c) and lines(m, c) == {line_of("c = jnp.exp(b) + y")} for c in consumers)


@pytest.mark.parametrize("version", VERSIONS)
def test_fusion_kinds_and_shapes_are_read(version):
    m = captured("chain", version)
    kinds = {i.fusion_kind for i in m.instructions.values() if i.opcode == "fusion"}
    assert "kLoop" in kinds
    sort = next(k for k in m.kernels() if k.opcode == "sort")
    assert (sort.shape.dtype, sort.shape.dims, sort.shape.bytes) == ("f32", (128, 256), 128 * 256 * 4)
    root = m.entry.root
    assert root.opcode == "tuple" and root.shape.is_tuple
    assert [str(s) for _, s in m.entry_outputs()] == ["f32[256]", "f32[128,256]"]


def test_custom_fusion_kind_is_read_from_backend_config_on_new_cpu():
    m = captured("chain", "0.10.2")
    assert any(i.custom_fusion_kind == "__ynn_fusion" for i in m.instructions.values())


@pytest.mark.parametrize("version", VERSIONS)
def test_fused_lines_come_from_every_fused_instruction(version):
    m = captured("nested", version)
    fused = [k for k in m.kernels() if k.opcode == "fusion" and len(lines(m, k)) == 2]
    assert any(lines(m, k) == {line_of("return jnp.sin(v) * 3.0"), line_of("return inner(v) + 1.0")}
               for k in fused)


@pytest.mark.parametrize("version", ("0.8.3", "0.10.2"))
def test_stack_frames_resolve_to_the_full_user_stack(version):
    m = captured("nested", version)
    assert m.stack_frames
    sines = [i for i in m.instructions.values() if i.opcode == "sine"]
    assert sines
    stack = sines[0].stack
    assert [(s.function, s.line) for s in stack[:3]] == [
        ("inner", line_of("return jnp.sin(v) * 3.0")),
        ("middle", line_of("return inner(v) + 1.0")),
        ("nested", line_of("y = middle(x)")),
    ]
    assert stack[0].column == SOURCE[stack[0].line - 1].index("jnp.sin") + 1
    assert sines[0].location_in("programs.py").line == stack[0].line


def test_old_metadata_gives_file_and_line_without_stack():
    m = captured("nested", "0.4.38")
    assert not m.stack_frames
    sine = next(i for i in m.instructions.values() if i.opcode == "sine")
    assert len(sine.stack) == 1 and sine.source.line == line_of("return jnp.sin(v) * 3.0")


@pytest.mark.parametrize("version", VERSIONS)
def test_loop_bodies_are_scheduled_computations(version):
    m = captured("nested", version)
    whiles = [i for i in m.entry.instructions if i.opcode == "while"]
    assert len(whiles) == 1
    body = {c.name for c in m.scheduled_computations()}
    assert set(whiles[0].called) <= body
    loop_kernels = [k for k in m.kernels() if k.computation in whiles[0].called]
    assert any(line_of("lambda i, c: c * 2.0") in lines(m, k) for k in loop_kernels)


@pytest.mark.parametrize("version", VERSIONS)
def test_donation_aliases_and_pruned_parameters(version):
    m = captured("update", version)
    params = m.entry_parameters()
    # the unused (donated) argument is pruned: state['b'], state['w'], batch, lr
    assert [p.metadata.get("op_name") for p in params] == ["state['b']", "state['w']", "batch", "lr"]
    assert {a.parameter for a in m.aliases} == {0, 1}
    assert {a.output_index for a in m.aliases} == {(0,), (1,)}


def test_unusable_donation_has_no_alias_on_old_jax_and_a_size_alias_on_new():
    assert captured("donate_transposed", "0.4.38").aliases == ()
    new = captured("donate_transposed", "0.10.2").aliases
    assert len(new) == 1 and new[0].output_index == () and new[0].parameter == 0


@pytest.mark.parametrize("version", VERSIONS)
def test_large_constants_are_elided_but_keep_their_shape(version):
    m = captured("folded", version)
    big = [c for c in m.constants() if c.shape.bytes >= 1 << 16]
    assert len(big) == 1
    assert big[0].literal == "{...}" and big[0].shape.dims == (256, 256)
    users = m.consumers(big[0])
    assert users and users[0].source.line == line_of("return x @ (jnp.asarray(C)")


@pytest.mark.parametrize("text,dims,nbytes", [
    ("f32[128,256]{1,0}", (128, 256), 131072),
    ("pred[7]", (7,), 7),
    ("s4[3]", (3,), 2),
    ("bf16[2,<=10]", (2, 10), 40),
    ("f32[8,128]{1,0:T(8,128)}", (8, 128), 4096),
    ("f32[]", (), 4),
    ("token[]", (), 0),
])
def test_shape_bytes(text, dims, nbytes):
    s = parse_shape(text)
    assert s.dims == dims and s.bytes == nbytes


def test_tuple_shape_counts_its_elements():
    s = parse_shape("(s32[], f32[64,64]{1,0}, (pred[2]))")
    assert s.is_tuple and len(s.elements) == 3
    assert s.bytes == 4 + 64 * 64 * 4 + 2
    assert [str(x) for x in s.leaves()] == ["s32[]", "f32[64,64]", "pred[2]"]


def test_text_that_is_not_hlo_is_rejected():
    with pytest.raises(HloParseError):
        parse_hlo("module @jit_f { func.func public @main() }")
    with pytest.raises(HloParseError):
        parse_hlo("HloModule m\n\nENTRY %main () -> f32[] {\n  %x = f32[] constant(1)\n")


def test_live_compile_with_the_installed_jax_parses_and_maps_lines():
    jax = pytest.importorskip("jax")
    sys.path.insert(0, str(DATA))
    try:
        import programs
    finally:
        sys.path.remove(str(DATA))
    for name in programs.PROGRAMS:
        compiled = programs.compiled(name)
        m = parse_hlo(compiled.as_text())
        assert m.entry.root is not None, name
        assert m.stack_frames == (tuple(int(x) for x in jax.__version__.split(".")[:2]) >= (0, 8)), name
        located = [i for i in m.instructions.values() if i.source is not None]
        assert located, name
        assert all(i.source.file.endswith("programs.py") for i in located), name
    m = parse_hlo(programs.compiled("chain").as_text())
    cb = next(k for k in m.kernels() if k.opcode == "custom-call")
    assert cb.source.line == line_of("b = jax.pure_callback")


@pytest.mark.parametrize("version", VERSIONS)
def test_long_tuples_with_index_comments_parse(version):
    text = (DATA / f"many_outputs-{version}.hlo").read_text()
    assert "/*index=5*/" in text
    m = parse_hlo(text)
    assert [str(s) for _, s in m.entry_outputs()] == ["f32[8,4]"] * 7


# -- collectives: sharded programs on 8 forced host devices (tests/data/hlo/sharded.py) ----
SHARDED = (DATA / "sharded.py").read_text().splitlines()
SHARDED_VERSIONS = ("0.4.38", "0.10.2")


def sharded(name: str, version: str):
    return parse_hlo((DATA / f"sharded_{name}-{version}.hlo").read_text())


def sharded_line(text: str) -> int:
    hits = [i + 1 for i, l in enumerate(SHARDED) if text in l]
    assert len(hits) == 1, text
    return hits[0]


def spellings(name: str, version: str) -> list[str]:
    return [i.attrs.get("replica_groups", "") for i in sharded(name, version).instructions.values()
            if i.opcode in COLLECTIVES]


def test_replica_groups_in_all_four_spellings_give_the_same_groups():
    from jaxlint.compile.hlo import parse_replica_groups

    texts = {
        "explicit": spellings("scan_psum", "0.10.2")[0],
        "iota": spellings("regroup", "0.4.38")[0],
        "shardy": spellings("fsdp", "0.10.2")[0],
        "shardy+device_ids": spellings("regroup", "0.10.2")[0],
    }
    assert texts["explicit"].startswith("{{") and "<=" in texts["iota"]
    assert texts["shardy"].startswith("mesh[") and "device_ids=(" in texts["shardy+device_ids"]
    for kind, text in texts.items():
        assert parse_replica_groups(text) == ((0, 2, 4, 6), (1, 3, 5, 7)), (kind, text)
    assert parse_replica_groups("[4,2]<=[8]") == ((0, 1), (2, 3), (4, 5), (6, 7))
    assert parse_replica_groups("{}") is None


@pytest.mark.parametrize("version", SHARDED_VERSIONS)
def test_collectives_have_kind_shapes_bytes_and_the_users_line(version):
    m = sharded("fsdp", version)
    assert m.header["num_partitions"] == "8"
    cs = collectives(m)
    assert sorted(c.kind for c in cs) == ["all-gather", "all-reduce"]
    gather = next(c for c in cs if c.kind == "all-gather")
    # the weight's shard, gathered: f32[64,256] -> f32[256,256], operand looked up by name
    assert [str(s) for s in gather.operand_shapes] == ["f32[64,256]"] and str(gather.result_shape) == "f32[256,256]"
    assert gather.bytes == gather.payload == 256 * 256 * 4 and not gather.in_loop
    assert gather.argument == 0  # straight from the first argument
    assert gather.origin.source.line == sharded_line("return jnp.mean(jnp.tanh(x @ w) ** 2)")


@pytest.mark.parametrize("version", SHARDED_VERSIONS)
def test_a_collective_in_a_scan_carries_the_loops_trip_count(version):
    (c,) = collectives(sharded("scan_psum", version))
    assert c.kind == "all-reduce" and c.in_loop
    assert [lp.trip_count for lp in c.loops] == [12]
    assert c.bytes == 256 * 16 * 4 and c.payload == 12 * c.bytes
    assert c.origin.source.line == sharded_line('return c + 1.0, jax.lax.psum(x * c, "data")')


@pytest.mark.parametrize("version", SHARDED_VERSIONS)
def test_a_reshard_without_metadata_is_placed_at_its_producers_line(version):
    (c,) = collectives(sharded("out_reshard", version))
    assert c.kind == "all-gather" and not c.inst.stack  # XLA gave it no metadata
    assert c.origin_via == "operand" and c.origin.source.line == sharded_line("return jnp.tanh(x) * 2")


@pytest.mark.parametrize("version", SHARDED_VERSIONS)
def test_pmap_compiles_one_program_per_device(version):
    m = sharded("pmap", version)
    # jax 0.4 compiles pmap over replicas, later versions over partitions (jit + shard_map)
    devices = int(m.header.get("replica_count", 1)) * int(m.header.get("num_partitions", 1))
    assert devices == 8
    (c,) = collectives(m)
    assert c.kind == "all-reduce" and c.groups == (tuple(range(8)),) and c.bytes == 128 * 4


# -- a TPU's program (v5e, compiled deviceless by tests/data/hlo/make_tpu_hlo.py) ----------

TPU_SOURCE = (DATA / "tpu_programs.py").read_text().splitlines()
TPU_MEMORY = json.loads((DATA / "tpu_memory-0.10.2.json").read_text())


def tpu(name: str):
    return parse_hlo((DATA / f"tpu_{name}-0.10.2.hlo").read_text())


def tpu_line(text: str) -> int:
    hits = [i + 1 for i, l in enumerate(TPU_SOURCE) if text in l]
    assert len(hits) == 1, text
    return hits[0]


def test_tpu_layouts_give_tiles_memory_spaces_and_the_bytes_the_chip_allocates():
    s = parse_shape("bf16[3,200]{1,0:T(4,128)(2,1)S(1)}")
    assert (s.dims, s.minor_to_major, s.tiles, s.memory_space) == ((3, 200), (1, 0), ((4, 128), (2, 1)), 1)
    assert (s.bytes, s.physical_dims, s.tiled_bytes) == (1200, (4, 256), 2048)
    t = parse_shape("f32[1000,200]{0,1:T(8,128)}")  # column-major: the 1000 rows are minor
    assert (t.physical_dims, t.tiled_bytes) == ((200, 1024), 200 * 1024 * 4)
    assert parse_shape("f32[]{:T(128)}").tiled_bytes == 512
    assert parse_shape("f32[8]{0}").tiled_bytes == parse_shape("f32[8]").tiled_bytes == 32  # no tiles: no padding
    assert parse_shape("f32[8]{0}") == parse_shape("f32[8]")  # the layout is not part of a shape's identity
    # the chip's own allocation of every argument and output, to the byte
    for name, figures in TPU_MEMORY.items():
        m = tpu(name)
        assert sum(p.shape.tiled_bytes for p in m.entry.parameters()) == figures["argument_size_in_bytes"], name
        outs = m.entry_outputs()
        table = 512 if len(outs) > 1 else 0  # a tuple result's table of buffers
        assert sum(s.tiled_bytes for _, s in outs) + table == figures["output_size_in_bytes"], name
    padded = tpu("padded")
    x = next(p for p in padded.entry.parameters() if p.literal == "0")
    assert (x.shape.bytes, x.shape.tiled_bytes) == (800_000, 819_200)


def test_tpu_memory_moves_and_multi_output_fusions_lead_back_to_the_parameters():
    m = tpu("train_step")
    params = {p.metadata["op_name"]: p for p in m.entry.parameters()}
    root = m.entry.root
    # every new parameter and moment comes out of a matmul fusion with several results
    made = [m.produced(op) for op in root.operands[:6]]
    assert all(inst.opcode == "fusion" and inst.fusion_kind == "kOutput" and index is not None
               for inst, index in made)
    # w1 reaches its update as slices put together again, w2 prefetched into another memory space
    for k, (inst, index) in enumerate(made[:2]):
        reads = {m.producer(op).name for op in m.elementwise_operands(inst, index)}
        name = f"p['w{k + 1}']"
        assert params[name].name in reads, (name, reads)
        # the update's lines, not those of the matmul fused beside it
        assert {j.source.line for j in m.elementwise_part(inst, index) if j.source} <= {
            tpu_line("m = jax.tree.map"), tpu_line("v = jax.tree.map"), tpu_line("p = jax.tree.map")}
    moved = [i for i in m.entry.instructions if i.opcode in ("copy-done", "custom-call")]
    assert {m.producer(i.name).opcode for i in moved} == {"parameter"}
    # and the consumers of a parameter are the kernels that read it, not its moves
    assert {c.opcode for c in m.consumers(params["p['w1']"])} == {"fusion"}


def test_tpu_host_callback_is_its_host_transfers_between_the_fusions():
    m = tpu("chain")
    calls = host_calls(m)
    assert len(calls) == 1 and calls[0].target == "host transfer"
    call = calls[0]
    assert call.inst.opcode == "send" and call.inst.source.file.endswith("tests/data/hlo/programs.py")
    assert call.inst.source.line == line_of("b = jax.pure_callback")
    assert [r.opcode for r in call.results] == ["recv-done"]
    assert [m.is_elementwise(m.producer(op)) for op in call.inputs] == [True]
    # (the TPU fuses the sum beside the elementwise consumer: one multi-output fusion)
    assert any(line_of("c = jnp.exp(b) + y") in lines(m, c) for r in call.results for c in m.consumers(r))
    # the CPU's callback is a custom call: the same model
    cpu = host_calls(captured("chain", "0.10.2"))
    assert [(c.inst.opcode, c.results[0].opcode) for c in cpu] == [("custom-call", "custom-call")]


def test_a_tpu_scan_has_its_trip_count_read_from_the_loop():
    """A TPU's while carries no known_trip_count: the count comes from `counter < 12`,
    its start (0) and its step (1), so a collective in it counts 12 times (JAX311)."""
    m = tpu("decay")
    (loop,) = [i for i in m.entry.instructions if i.opcode == "while"]
    assert "known_trip_count" not in loop.attrs.get("backend_config", "")
    assert trip_count(loop) == loop.derived_trip_count == 12
    inner = next(i for c in m.computations.values() for i in c.instructions if i.computation == loop.attrs["body"].lstrip("%"))
    assert [lp.trip_count for lp in enclosing_loops(m, inner)] == [12]
    # a loop whose counter is not stepped by a constant is not counted
    text = (DATA / "tpu_decay-0.10.2.hlo").read_text().replace("direction=LT", "direction=NE")
    (other,) = [i for i in parse_hlo(text).entry.instructions if i.opcode == "while"]
    assert trip_count(other) is None


def test_a_tpu_async_collective_held_by_several_fusions_counts_once():
    """A v5e-8's FSDP step runs its all-gathers asynchronously: the start, the matmul it
    overlaps and the done are fusions that each hold a copy of the all-gather, with one
    channel_id. The program has the CPU's eight collectives, not twelve."""
    m = parse_hlo((DATA / "tpu8_fsdp_step-0.10.2.hlo").read_text())
    found = collectives(m)
    copies = [i for c in m.computations.values() for i in c.instructions if i.opcode == "all-gather"]
    assert len(copies) > sum(c.kind == "all-gather" for c in found) == 4
    assert sorted(c.kind for c in found) == ["all-gather"] * 4 + ["all-reduce"] + ["all-to-all"] * 3
    assert len({(c.kind, c.inst.attrs.get("channel_id")) for c in found}) == len(found)
