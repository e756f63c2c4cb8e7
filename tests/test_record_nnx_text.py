"""The recorder's text of a flax NNX object's structure (``abstract.structure``), made once
per structure (issue 37: writing it out cost ~4 ms an ``nnx.jit`` call): with real flax
objects, the text is the one ``str`` of the structure gives, every time, for every view."""
from __future__ import annotations

import pytest

pytest.importorskip("jax")
nnx = pytest.importorskip("flax.nnx")

from jaxlint.dynamic import abstract  # noqa: E402


def _written_out(obj) -> str:
    return abstract._ADDRESS.sub("", str(nnx.split(obj)[0]))


class _Holder(nnx.Module):
    def __init__(self, flag, rngs):
        self.lin = nnx.Linear(2, 3, rngs=rngs)
        self.flag = flag


def test_a_structure_seen_again_has_the_text_it_had_and_views_keep_their_own():
    model = nnx.Sequential(nnx.Linear(2, 4, rngs=nnx.Rngs(0)), nnx.BatchNorm(4, rngs=nnx.Rngs(0)), nnx.Dropout(0.1))
    train = nnx.view(model, deterministic=False, use_running_average=False)
    evaluate = nnx.view(model, deterministic=True, use_running_average=True)
    texts = {}
    for _ in range(3):  # the first time written out, then the kept text: the same each time
        for name, obj in (("model", model), ("train", train), ("eval", evaluate)):
            text = abstract.structure(obj)[1]
            assert text == _written_out(obj)
            texts.setdefault(name, set()).add(text)
    assert all(len(t) == 1 for t in texts.values())
    assert texts["train"] != texts["eval"]


def test_static_values_that_compare_equal_keep_their_own_text():
    # 1 == True == 1.0 and they hash alike: their structures compare equal, their texts differ
    made = [_Holder(flag, nnx.Rngs(0)) for flag in (1, True, 1.0, 1, True)]
    texts = [abstract.structure(m)[1] for m in made]
    assert texts == [_written_out(m) for m in made]
    assert len(set(texts)) == 3


def test_a_module_changed_in_place_is_described_as_it_is_now():
    model = _Holder("a", nnx.Rngs(0))
    before = abstract.structure(model)[1]
    model.flag = "b"
    model.extra = nnx.Linear(3, 1, rngs=nnx.Rngs(1))
    after = abstract.structure(model)[1]
    assert before != after and after == _written_out(model)


def test_a_flax_nnx_object_is_found_in_a_tree():
    """Found anywhere in a call's arguments: the recorder then keys the call with the object
    as a leaf (``record_calls._graph_key``), as ``nnx.split`` reads it, not through jax's
    tree of it."""
    model = nnx.Linear(2, 2, rngs=nnx.Rngs(0))
    assert abstract.holds_graph_node(((1, {"m": [model]}), {}))
    assert not abstract.holds_graph_node(((1, {"m": [2.0]}), {"k": None}))
