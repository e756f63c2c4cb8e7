"""Blind recall on bug reports (issue 19): does the static phase find the problem of each
case in ``recall_blind_cases.py`` (first round, written before any rule was changed for
issue 19), ``recall_blind2_cases.py`` (second round, written and committed before
jaxlint was run on them), ``recall_blind3_cases.py`` (third round, likewise, and
sealed from the engineer who changed the value model in the same session) and
``recall_blind4_cases.py`` (fourth round, sealed the same way from the engineers who
changed the value model and the rules' scope) and ``recall_blind5_cases.py`` (fifth round,
sealed the same way from the engineers who changed the value model, the libraries'
protocols and the rules' scope) and ``recall_blind6_cases.py`` (sixth round, sealed the
same way) and ``recall_blind7_cases.py`` (seventh round, issue 36, sealed the same way) and
``recall_blind8_cases.py`` (eighth round, issue 36, sealed by an engineer who changes no rule) and
``recall_blind9_cases.py`` (ninth round, issue 36, sealed the same way) and ``recall_blind10_cases.py``
(tenth round, issue 36, sealed the same way) and ``recall_blind11_cases.py`` (eleventh round, issue 36,
sealed the same way) and ``recall_blind12_cases.py`` (twelfth round, issue 36, sealed the same way) and
``recall_blind13_cases.py`` (thirteenth round, issue 36, sealed the same way, from JAX libraries' public
bug-fix commits) and ``recall_blind14_cases.py`` (fourteenth round, issue 36, sealed the same way, from
bug-fix commits of JAX repositories outside the thirteenth round's) and ``recall_blind15_cases.py`` (fifteenth
round, issue 36, sealed the same way, from bug-fix commits of JAX repositories outside rounds thirteen and
fourteen's) and ``recall_blind16_cases.py`` (sixteenth round, issue 36, sealed the same way, from bug-fix
commits of JAX repositories outside all earlier rounds') and ``recall_blind17_cases.py`` (seventeenth round,
issue 36, sealed the same way, from bug-fix commits of JAX repositories outside all earlier rounds' and the
sealed corpora's) and ``recall_blind18_cases.py`` (eighteenth round, issue 36, sealed the same way, from
bug-fix commits in the histories of JAX repositories mirrored here that no earlier round used) and
``recall_blind19_cases.py`` (nineteenth round, issue 36, sealed the same way, from bug-fix commits of JAX
repositories fetched for it and issue threads no earlier round used) and ``recall_blind20_cases.py``
(twentieth round, issue 36, sealed the same way, from bug-fix commits of JAX repositories mirrored here or
fetched for it that no earlier round read, and an issue thread no earlier round used) and
``recall_blind21_cases.py`` (twenty-first round, issue 36, sealed the same way, from bug-fix commits of JAX
repositories fetched for it and threads no earlier round used) and ``recall_blind22_cases.py`` (twenty-second
round, issue 36, sealed the same way, from bug-fix commits of JAX repositories fetched for it and threads no
earlier round used), one small program per public bug report?

``ROUNDS`` lists every round with what its last measurement found (``FOUND``, ``FOUND2``, ...)
and the floors it keeps. The real CLI runs once over all the cases of every round and the 34
earlier ones (``--select ALL``, as the first recall measurement did), and once more over the
sealed rounds of issue 36 with the default selection (issue 36 asks for its figure with the
default selection). A case recorded as found must stay found, a case not recorded is an
expected miss (``xfail``, not strict: when a change makes the rule find it, pytest reports
XPASS and the case belongs in the set), and each round's count stays at or above its floors.
So the file documents what is found, and gets stricter as the rules improve. A new round is
one ``Round`` in ``ROUNDS``.

``python tests/test_recall_blind.py`` prints the table (run it with the interpreter of
the jaxlint to measure).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_blind2_cases import CASES2  # noqa: E402
from recall_blind3_cases import CASES3  # noqa: E402
from recall_blind4_cases import CASES4  # noqa: E402
from recall_blind5_cases import CASES5  # noqa: E402
from recall_blind6_cases import CASES6  # noqa: E402
from recall_blind7_cases import CASES7  # noqa: E402
from recall_blind8_cases import CASES8  # noqa: E402
from recall_blind9_cases import CASES9  # noqa: E402
from recall_blind10_cases import CASES10  # noqa: E402
from recall_blind11_cases import CASES11  # noqa: E402
from recall_blind12_cases import CASES12  # noqa: E402
from recall_blind13_cases import CASES13  # noqa: E402
from recall_blind14_cases import CASES14  # noqa: E402
from recall_blind15_cases import CASES15  # noqa: E402
from recall_blind16_cases import CASES16  # noqa: E402
from recall_blind17_cases import CASES17  # noqa: E402
from recall_blind18_cases import CASES18  # noqa: E402
from recall_blind19_cases import CASES19  # noqa: E402
from recall_blind20_cases import CASES20  # noqa: E402
from recall_blind21_cases import CASES21  # noqa: E402
from recall_blind22_cases import CASES22  # noqa: E402
from recall_blind_cases import CASES, Case  # noqa: E402
from recall_earlier_cases import EARLIER_CASES  # noqa: E402

#: Cases found with ``--select ALL``, measured at 58dcb14 (before issue 19 changed any
#: rule): 41 of 58. Add a case here when a change makes it found.
FOUND = frozenset({
    "brax-227",
    "brax-321",
    "aesara-43",  # found after JAX111 checked every size position (scope40; tuning)
    "covo-mpc-2",
    "distrax-291",  # found after JAX104 knew a row of a NumPy array (for g in np.indices(...)) (scope50; tuning)
    "equinox-1141",
    "galax-692",
    "genjax-1179",
    "herculens-29",
    "jax-1141",
    "jax-1223",
    "jax-1333",
    "jax-14279",  # found after JAX111 checked every size position (scope40; tuning)
    "jax-14597",
    "jax-15948",
    "jax-16845",
    "jax-16906",
    "jax-17366",
    "jax-19570",
    "jax-2048",  # found after a function passed as a parameter was followed into jax.jvp (fix56; tuning)
    "jax-204",  # found after the value model's fixes (model30; tuning)
    "jax-21300",
    "jax-24740",
    "jax-2515-jit",
    "jax-27033",
    "jax-29322",
    "jax-31319",
    "jax-3133",  # found after the value model's fixes (model30; tuning)
    "jax-3761",
    "jax-4412",  # found after JAX111 checked traced axes (scope40; tuning)
    "jax-4615",
    "jax-470",
    "jax-5206",
    "jax-5790",
    "jax-575",
    "jax-5905",
    "jax-5934",
    "jax-652",
    "jax-7032",
    "jax-7090",
    "jax-7703",  # found after JAX108 checked static fields and static objects (scope40; tuning)
    "jax-7826",  # found after JAX108 checked static fields and static objects (scope40; tuning)
    "jax-9288",
    "jax-9675",
    "jax-9635",  # found after JAX113 checked a buffer donated and passed again in one call (scope50; tuning)
    "jaxonnxruntime-29",
    "jaxopt-350",
    "openpi-550",
    "quantecon-442",
    "reservoirpy-247-sign",
    "reservoirpy-247-store",
    "stheno-21",
    "xland-minigrid-42",
})


#: The 34 earlier cases (``recall_earlier_cases.py``, rewritten from the table of
#: ``benchmarks/recall_reports.md``) found at 58dcb14: 31 of 34, the table's figure
#: and its three misses.
FOUND_EARLIER = frozenset({
    "1-jax-22098",
    "10-jax-6233",
    "11-jax-883",
    "12-flax-2410",
    "13-jax-2813",
    "14-jax-2287",
    "15-jax-7783",
    "16-jax-21994",
    "17-jax-4471",
    "18-spu-148",
    "19-jax-4418",
    "2-jax-16430",
    "20-jax-5280",
    "21-jax-5186",
    "23-jax-2009",
    "24-tf-jax-tutorials-4",
    "25-blackjax-53",
    "26-jax-196",
    "27-jax-1476",
    "29-pmwd-9",
    "3-jax-2777",
    "30-quantecon-lecture-jax-33",
    "31-crackedaicode",
    "32-jax-648",
    "33-jax-7336",
    "34-flax-2410-key",
    "4-jax-16278",
    "5-jax-5071",
    "6-jax-282",
    "7-jax-4312",
    "9-jax-3654",
})


#: Second-round cases (``recall_blind2_cases.py``) found with ``--select ALL`` at bd63979,
#: the commit that added them, before any rule was changed for them: 25 of 41 (blind);
#: 38 of 41 after the model was fixed for the misses (tuning); 39 after recall48 (desc-310).
FOUND2 = frozenset({
    "autoray-27",
    "desc-310",  # found after JAX108 showed a static self at its decorator (recall48; tuning)
    "diffrax-379",
    "flax-1218",
    "gpjax-191",
    "jasmine-214",
    "jax-1131",
    "jax-1133",
    "jax-1162",
    "jax-1832",
    "jax-2936",
    "jax-3083",
    "jax-352",
    "jax-38612",
    "jax-4436",
    "jax-4585",
    "jax-4712",
    "jax-5073",
    "jax-md-132",
    "jaxley-603",
    "liesel-317",
    "openillumi-static-arrays",
    "probdiffeq-813",
    "probml-notebooks-70",
    "raytrax-10",
    "wecopttool-427",
    # found after the value model's fixes for the round's misses (model30; tuning, not blind)
    "coronagraphoto-perf",
    "crackedaicode-static-argnames",
    "jax-15136",
    "jax-1776",
    "jax-3596",
    "jax-3646",
    "jax-3696",
    "jax-3701",
    "jax-5017",
    "jax-553",
    "jax-7116",
    "numpyro-1763",
    "optax-1059",
})


#: Third-round cases (``recall_blind3_cases.py``) found with ``--select ALL``. The blind
#: figure: 26 of 44 at 1a2da8d (the session's start, before the value-model changes of
#: the same session; the cases were committed, fc126d2, tag recall30-blind-cases, before
#: jaxlint ran on them); 29 of 44 at e141c0d, after those changes, which were made without
#: sight of these cases (held-out).
FOUND3 = frozenset({
    "aesara-1344",
    "array-api-999",
    "egoallo-17",  # found after JAX111 checked every size position (scope40; tuning)
    "flax-1903",  # held-out: found at e141c0d
    "flax-2665",
    "gymnax-83",
    "jax-101",
    "jax-10231",
    "jax-15338",
    "jax-18831",  # found once array sizes used the value model's evaluator of static values (lead40; tuning)
    "jax-18950",
    "jax-19433",  # found after JAX111 checked every size position (scope40; tuning)
    "jax-2251",
    "jax-3086",
    "jax-3220",
    "jax-4449",  # held-out: found at e141c0d
    "jax-4714",
    "jax-4763",
    "jax-4798",  # held-out: found at e141c0d
    "jax-5208",  # found after JAX111 checked every size position (scope40; tuning)
    "jax-5815",
    "jax-7561",  # found after JAX108 followed wrappers of static arguments (scope40; tuning)
    "jax-8599",
    "jax-8947",  # found by the value model's builtins (sum of tracers), model40 in session 40
    "jax-9024",  # found after JAX108 checked static fields and static objects (scope40; tuning)
    "jaxmg-29",
    "jaxsim-43",
    "liesel-272",
    "marginaleffects-1587",
    "mujoco-1373",  # found once `jax.jit(env.step)` maps to the method, model40 in session 40
    "objax-59",
    "openillumi-np-power-grad",  # found once jax.grad alone traces the loss, model40 in session 40
    "pymdp-346",  # found after JAX108 checked static fields and static objects (scope40; tuning)
    "raytrax-38",
    "s2fft-95",
    "scoremd-7",
    "secretflow-406",
    "timemachine-800",
    "unxt-906",
})


#: Fourth-round cases (``recall_blind4_cases.py``) found with ``--select ALL``. The blind
#: figure: 20 of 39 at bd8ce79 (the session's start; the cases were committed, 184a44a,
#: tag recall40-blind-cases, before jaxlint ran on them); 24 of 39 at 059849f, main at
#: 11:30 after the session's value-model and scope changes, made without sight of these
#: cases (held-out).
FOUND4 = frozenset({
    "axlearn-815",
    "bartz-162",  # found at 3b6d370, after session 50's changes (tuning)
    "dlux-260",  # held-out: found at 059849f
    "dopamine-189",  # held-out: found at 059849f
    "energnn-75",
    "ivy-16255",  # found at 3b6d370, after session 50's changes (tuning)
    "jax-12334",  # held-out: found at 059849f
    "jax-1406",
    "jax-16637",
    "jax-23637",
    "jax-24315",
    "jax-24511",  # found after fix41 (tuning)
    "jax-2708",
    "jax-35090",  # found after fix41 (tuning)
    "jax-36305",  # found at 3b6d370, after session 50's changes (tuning)
    "jax-4342",
    "jax-4531",  # found after fix41 (tuning)
    "jax-4572",
    "jax-4663",  # found at 3b6d370, after session 50's changes (tuning)
    "jax-689",
    "jax-6905",
    "jax-7952",  # held-out: found at 059849f
    "jax-7969",
    "jax-8931",
    "maxtext-946",
    "mbi-206",  # found at 3b6d370, after session 50's changes (tuning)
    "mcx-58",
    "mlkatas-204",
    "multinerf-62",  # found at 3b6d370, after session 50's changes (tuning)
    "numpyro-900",
    "pyhf-2580",  # found after fix41 (tuning)
    "pymbar-557",
    "s2fft-361",  # found after fix41 (tuning)
    "simphony-88",
    "waymax-14",
})


#: Fifth-round cases (``recall_blind5_cases.py``) found with ``--select ALL``. The blind
#: figure: 31 of 37 at ebbfc9e (the session's start; the cases were committed, 3d67d14,
#: tag recall50-blind-cases, before jaxlint ran on them); 34 of 37 at 3b6d370, main at
#: 14:32 after the session's value-model, library-protocol and scope changes, made
#: without sight of these cases (held-out).
FOUND5 = frozenset({
    "coreax-375",  # found after JAX114 read a key closed over by a lax loop body (lib51; tuning)
    "crackedaicode-tracer-leak",
    "ctd-15",  # found after JAX108 read unhashable values inside tuples and NamedTuples (lib51; tuning)
    "emergent-comm-2",
    "evox-jitable",
    "flax-1077",
    "flax-587",
    "interpax-99",
    "jax-12627",  # held-out: found at 3b6d370
    "jax-1399",
    "jax-14080",  # held-out: found at 3b6d370
    "jax-1605",
    "jax-1629",
    "jax-1919",
    "jax-2057",
    "jax-23457",
    "jax-2506",
    "jax-2783",
    "jax-2833",  # found after the jit map saw a static argument traced again by remat (lib51; tuning)
    "jax-5013",
    "jax-5100",
    "jax-6713",
    "jax-6853",
    "mujoco-playground-349",
    "nerf-diet-11",
    "numpyro-1982",
    "numpyro-5",
    "openfermion-1396",
    "openillumi-dynamic-loop",
    "phentax-28",  # held-out: found at 3b6d370
    "pyautoarray-127",
    "pylcm-316",
    "pytroubles-913",
    "s2fft-97",
    "scipy-22781",
    "t5x-959",
    "timemachine-1183",
})


#: Cases of the sixth round (``recall_blind6_cases.py``) found with ``--select ALL``. Blind
#: figure: 23 of 31 at 276617d (the session's start; the cases were committed, a9ea7e3,
#: tag recall51-blind-cases, before jaxlint ran on them); 23 of 31 at 8080d94, main at
#: 17:42 after the session's changes, made without sight of these cases (held-out); 25 of
#: 31 after recall36b's capabilities, tuned on the seventh round (jax-15509, pcax-3).
FOUND6 = frozenset({
    "blackjax-1029",
    "deepmd-kit-5583",
    "exojax-122",
    "flax-2631",  # found after a key drawn from in a closure of a jitted step counted as drawn (fix51a; tuning)
    "jax-1076",
    "jax-11448",
    "jax-15509",  # found after an element at a traced index was taken as traced (recall36b; tuning)
    "jax-19867",
    "jax-20254",
    "jax-24683",
    "jax-26560",
    "jax-2765",
    "jax-5454",
    "jax-9672",
    "jax-gcm-747",
    "jax-md-119",
    "keras-core-198",
    "klujax-34",
    "numpyro-1214",
    "op-system-74",
    "openillumi-list-static-arg",
    "pcax-3",  # found after JAX108 saw a tracer passed to a static parameter (recall36b; tuning)
    "pfjax-3",
    "scipy-22219",
    "theneuralbase-key-reuse",
    "theneuralbase-tracer-control-flow",
})


#: Cases of the seventh round (``recall_blind7_cases.py``) found with ``--select ALL`` and
#: with the default selection alike. Blind figure: 8 of 22 at 4419f18 (main at the start
#: of issue 36's session; the cases were committed, bd2a613, tag recall36-blind-cases,
#: before jaxlint ran on them and before the session's rule changes landed). After the
#: round was opened (tuning, recall36b): 14 of 22, the library protocols (odeint, an optax
#: schedule, an optax transformation's functions), an element at a traced index, a tracer
#: reaching a static parameter through a Partial, and jnp.pad's widths.
FOUND7 = frozenset({
    "crackedaicode-prngkey-split",
    "desc-1334",  # the registered class every call passes tells its leaves (fix59; tuning; JAX104 is nursery)
    "d2l-2366",
    "jax-1007",
    "jax-12719",
    "jax-16994",
    "jax-2323",  # tuning
    "jax-3620",  # tuning
    "jax-5609",  # tuning
    "lagrangian-nns-7",  # tuning
    "netket-908",  # tuning
    "openscvx-58",
    "optax-187",  # tuning
    "pax-26",
    "theneuralbase-what-jit-compiles",
})


#: Cases of the eighth round (``recall_blind8_cases.py``) found with ``--select ALL`` at
#: 3f74d6e, main when the round was sealed (the cases were committed alone, ec82201, tag
#: recall-round8-blind-cases, before jaxlint ran on them): 9 of 11; with the default selection
#: 7 (JAX103 and JAX107 are off by default).
FOUND8 = frozenset({
    "gwpopulation-83",
    "jax-17626",
    "jax-192",
    "jax-27541",
    "jax-4645",
    "jax-5492",
    "jax-6501",
    "jax-9085",
    "pennylane-3616",
})

#: Cases of the ninth round (``recall_blind9_cases.py``) found with ``--select ALL`` at
#: 6ccfa6c, main when the round was sealed (the cases were committed alone, tag
#: recall-round9-blind-cases, before jaxlint ran on them): 13 of 20; with the default selection
#: 12 (JAX108 is off by default). After tuning (model44a, issue 36): also jax-9463, an element
#: of a module-level jax array as a slice bound under jit, and brax-440, a jitted bound method's
#: stale attribute (JAX108, off by default): 15 and 13.
FOUND9 = frozenset({
    "aesara-629",
    "brax-440",
    "jax-9463",
    "algoperf-124",
    "array-api-690",
    "google-research-1025",
    "gpjax-99",
    "jax-11646",
    "jax-1575",
    "jax-18937",
    "jax-2273",
    "jax-999",
    "numpyro-1570",
    "vmcnet-18",
    "westdri-jx-jit",
})

#: Cases of the tenth round (``recall_blind10_cases.py``) found with ``--select ALL`` at
#: f1b4bab, main when the round was sealed (the cases were committed alone, tag
#: recall-round10-blind-cases, before jaxlint ran on them): 7 of 13; the same 7 with the default
#: selection.
FOUND10 = frozenset({
    "apxml-jit-static-vs-traced",
    "jax-3740",
    "jax-errors-page-cond-expr",
    "jax-faq-impure-print",
    "learning-jax-tracer-bool",
    "pytzer-55",
    "theneuralbase-static-vs-dynamic",
})

#: Cases of the eleventh round (``recall_blind11_cases.py``) found with ``--select ALL`` at
#: c22deb7, main when the round was sealed (the cases were committed alone, tag
#: recall-round11-blind-cases, before jaxlint ran on them): 8 of 12; 6 with the default selection
#: (equinox-746 and jaxember-21-counter are JAX108's, off by default).
FOUND11 = frozenset({
    "crackedaicode-bounded-search",
    "crackedaicode-python-while",
    "equinox-746",
    "jax-5558",
    "jaxember-21-counter",
    "mrmustard-546",
    "python-performance-minicourse-jax",
    "reservoirpy-234",
    "torchstain-31",  # found after JAX111 read a mask reduced by jnp.any (recall48; tuning)
    "keras-21501",  # found after JAX111 followed sizes generated in tuple() (recall48; tuning)
    "reservoirpy-235",  # found after JAX108 showed a static self at its decorator (recall48; tuning)
    "keras-19639",  # found after the model traced keras 3's call on jax (recall48; tuning)
})

#: Cases of the twelfth round (``recall_blind12_cases.py``) found with ``--select ALL`` at
#: 2de3065, main when the round was sealed (the cases were committed alone, tag
#: recall-round12-blind-cases, before jaxlint ran on them): 8 of 9; the same 8 with the default
#: selection (jit-env-36 is missed: a check in the ``__init__`` of a class built in traced code).
FOUND12 = frozenset({
    "brainpy-607",
    "jax-1271",
    "jax-3994",
    "jax-9578",
    "jax-9579",
    "jax-968",
    "pounce-795",
    "wlsqs-switch-chained-compare",
    "jit-env-36",  # found after the model ran the __init__ of a class traced code builds (fix50a; tuning)
})

#: Cases of the thirteenth round (``recall_blind13_cases.py``) found with ``--select ALL`` at
#: 131d38a, main when the round was sealed (the cases were committed alone, tag
#: recall-round13-blind-cases, before jaxlint ran on them): 8 of 16; 6 with the default selection
#: (init2winit-e2e6bf1 is JAX103's, off by default; equinox-e906718 is JAX114's drawn-then-split
#: kind, off by default). flashbax-6619200 is found only with ``--preview`` (not a floor here).
#: Six more after fix51a built the round's model gaps as general capabilities (tuning): 14 of
#: 16, 12 with the default selection; dm-haiku-96ecde6 stays missed (its numbers are read
#: for their shapes only, so the key's reuse reaches no read).
FOUND13 = frozenset({
    "brax-5ffd446",
    "cleanrl-ee80f6bb",  # a linen module made inline: `Critic().init(key, ...)` (fix51a; tuning)
    "equinox-e906718",
    "flashbax-6619200",  # the registered class every call passes tells its leaves (fix59; tuning)
    "flax-331bdc2c",
    "flax-64a7cb54",  # `apply(..., rngs={"dropout": rng})` in a closure of a jitted step (fix51a; tuning)
    "gymnax-0096e0e",
    "init2winit-e2e6bf1",
    "jumanji-7b4ce1c6",  # `jax.jit(instance)` traces `__call__` (fix51a; tuning)
    "netket-05bf7912",
    "numpyro-ba5125d0",
    "numpyro-e2c3f136",
    "optax-47404ab6",  # a function a factory returns in a tuple (fix51a; tuning)
    "ott-338202c6",  # a boolean array made from constants in traced code (fix51a; tuning)
    "trax-0ebc33aa",  # initializers stored on `self` (fix51a; tuning)
})

#: Cases of the fourteenth round (``recall_blind14_cases.py``) found with ``--select ALL`` at
#: ccb11c5, main when the session's rule work stopped (the cases were committed alone at b70484a, tag
#: recall-round14-blind-cases, and 73d376e, before jaxlint ran on them): 8 of 16; 6 with the default
#: selection (paxml-e4fad96 and dalle-mini-4b8c3a8 are JAX103's, off by default). pgx-3baf39f9 is
#: found only with ``--preview`` (not a floor here).
#: Five more after fix52a built the round's model gaps as general capabilities (tuning): 13 of 16,
#: 11 with the default selection; praxis-527b478 (a value kept in an object's dict) and
#: jax-cosmo-cf8500c (`self` fields in a pytree's property) stay missed.
FOUND14 = frozenset({
    "clu-9147399",  # a classmethod called from traced code, `Average.from_model_output(...)` (fix52a; tuning)
    "dalle-mini-4b8c3a8",
    "gpjax-ae1ecdb7",
    "haliax-7a077f0",  # `prefix_len: int` given the jitted caller's traced argument (fix52a; tuning)
    "kfac-jax-9a65189",  # `self._pmap_step = jax.pmap(self._step)` draws from its key (fix52a; tuning)
    "kfac-jax-c275017",  # a flag handed to a `lax.cond` branch by `partial(f, **kwargs)` (fix52a; tuning)
    "keras-504bb958",
    "navix-d7f95f2",
    "paxml-e4fad96",
    "pgx-3baf39f9",  # the registered class every call passes tells its leaves (fix59; tuning)
    "rebayes-154023f",
    "rejax-bc825f4",  # a classmethod jitted as `jax.jit(partial(DQN.train, config))` (fix52a; tuning)
    "scenic-a69dfe0",
    "scico-a03aa568",
})

#: Cases of the fifteenth round (``recall_blind15_cases.py``) found with ``--select ALL`` at
#: 87f2855, main at 04:15 UTC when the session's findings-changing landings stopped (the cases were
#: committed alone at ca0fea2, tag recall-round15-blind-cases, before jaxlint ran on them):
#: 8 of 12; 7 with the default selection (tunix-0454a18 is JAX103's, off by default). No further case is
#: found with ``--preview``. After tuning (fix52c's two JAX114 capabilities, back with fix53 once the key
#: flow moved to ``jaxlint/static/keyflow.py``): aequus-jax-d388177 and jaxtar-4c6ff8a too, 10 of 12; and
#: qdax-8c95384 (fix53: a draw one call below a function mapped over a pytree's leaves), 11 of 12.
FOUND15 = frozenset({
    "aequus-jax-c5f924d",
    "aequus-jax-d388177",
    "craftax-606e8f0",
    "discs-2074b0d",
    "flax-illuminant-estimation-b88b245",
    "jax-bhm-377334d",
    "jaxtar-4c6ff8a",
    "qdax-632ff41",
    "qdax-8c95384",
    "serl-327684b",
    "tunix-0454a18",
})

#: Cases of the sixteenth round (``recall_blind16_cases.py``) found with ``--select ALL`` at
#: 03b2261, main at 07:20 UTC when the session's findings-changing landings stopped (the cases were
#: committed alone at 28bda0a, tag recall-round16-blind-cases, before jaxlint ran on them):
#: 9 of 16, the same 9 with the default selection (JAX114's two hits are of kinds on by default);
#: 12 with ``--preview`` (dynamiqs-2669aebe, dmff-52d8830 and deepqmc-bb422ce, rated only possible).
#: After tuning on the opened round (fix54a: an ``if`` that raises for every other shape checks the
#: argument and is no shape guard), dynamiqs-2669aebe is found by default too: 10 of 16; and with
#: ``--select ALL`` jaxtronomy-aadd592 (JAX108, pedantic: a jitted method called through an instance
#: attribute is followed to its static parameters): 11 of 16.
FOUND16 = frozenset({
    "deepqmc-299f4c4",
    "dynamiqs-2669aebe",
    "dynamiqs-51c4d147",
    "dynamiqs-ddb79cbe",
    "efax-b83fb46",
    "flowjax-8f8ec87",
    "jaxpm-5108e56",
    "jaxtronomy-aadd592",
    "jaxtronomy-c44886c",
    "open-duck-playground-d160551",
    "qiskit-dynamics-221d09b1",
})

#: Cases of the seventeenth round (``recall_blind17_cases.py``) found with ``--select ALL`` at
#: 1c75a63, main at 10:20 UTC when the session's findings-changing landings stopped (the cases were
#: committed alone at 68b184e, tag recall-round17-blind-cases, before jaxlint ran on them): 13 of 16,
#: 8 with the default selection (JAX103, JAX104, JAX107 and JAX108 are off by default); the same 13 with
#: ``--preview``.
FOUND17 = frozenset({
    "cryojax-81bbf18a",
    "cryojax-b79690f1",
    "fedjax-e2e6896",
    "flowmc-3ca18de",
    "jax-ent-5d7a40e",
    "pdequinox-b94f818",
    "rheojax-0e083f79",
    "rheojax-5891e9b1",
    "sglang-jax-05eac5cf",
    "sglang-jax-49a6fd3f",
    "tomojax-0555660",
    "tomojax-0e30170",
    "xpcsjax-29df996",
    "xpcsjax-2a651d2",  # found after a parameter's class was read from its callers (fix57r; tuning, JAX104 nursery)
})

#: Cases of the eighteenth round (``recall_blind18_cases.py``) found with ``--select ALL`` at
#: ef622bc, main at 12:50 UTC (the cases were committed alone at ef622bc, tag
#: recall-round18-blind-cases, before jaxlint ran on them): 5 of 10, the same 5 with the default
#: selection and with ``--preview``; 9 after fix56 (tuning: the round was opened), 8 of them by default.
FOUND18 = frozenset({
    "casoptax-c8df6b3",  # found after JAX103 saw a jit made in one arm of a conditional expression (fix56; tuning)
    "mjx-fitted-iteration-1c943c6",
    "nanovllm-jax-80b3ea2",
    "optformer-e76d7d4",
    "titans-jax-d5c2678",  # found after nn.remat/checkpoint traced what they are given (fix56; tuning)
    "viperleed-jax-085a140",
    "viperleed-jax-2d9178e",  # found after a function passed as a parameter was followed (fix56; tuning)
    "viperleed-jax-8401a57",
    "vmoe-dd822ef",  # found after JAX114 saw a closure drawing from its scope's key per loop pass (fix56; tuning)
})

#: Cases of the nineteenth round (``recall_blind19_cases.py``) found with ``--select ALL`` at
#: 17d4cef, main at 16:00 UTC after the session's rule landings stopped at 15:40 (the cases were
#: committed alone at 8e3fcd0, tag recall-round19-blind-cases, before jaxlint ran on them): 11 of 13,
#: 8 with the default selection (JAX103, JAX104 and JAX115 are off by default); the same 11 with
#: ``--preview``.
FOUND19 = frozenset({
    "e3x-a08d4e7",
    "flax-3946",  # found after a linen class lifted at module level was followed into init/apply (fix57r; tuning)
    "flax-4085",
    "gtmp-1",
    "gwkokab-2c1f32a",  # found after a parameter's class was read from its callers (fix57r; tuning)
    "gwkokab-371",
    "gwkokab-5bde5e7",
    "gwkokab-65c897f",
    "jax-fdm-27e82c9",
    "jim-385ac9d",
    "rwmetropolis-a824826",
    "sax-af8d2c4",
    "vbjax-2d0e871",
})

#: Cases of the twentieth round (``recall_blind20_cases.py``) found with ``--select ALL`` at
#: 5d4274d, main at 18:45 UTC after the session's rule landings stopped at 18:40 (the cases were
#: committed alone at 10be3e4, tag recall-round20-blind-cases, before jaxlint ran on them): 5 of 10,
#: 1 with the default selection (JAX108 is pedantic, JAX113 and JAX115 nursery); the same 5 with
#: ``--preview``. After the round was opened, fix57c (tuning): secon-bvar-8b27e20 and 25ac8b9 (names
#: a cond branch unpacks from its operand tuple are traced): 7 of 10, 3 with the default selection.
#: fix58 (tuning): enn-da821c5 and react-jax-17c0f54 (a key handed to a library dropout layer's call,
#: ``apis.KEYED_DRAWS``, is drawn from): 9 of 10, 5 with the default selection.
FOUND20 = frozenset({
    "bonsai-b33c507",
    "enn-da821c5",  # tuning
    "fea-in-jax-b13c1a3",
    "jax-1219",
    "react-jax-17c0f54",  # tuning
    "react-jax-90cb7a0",
    "s5-60dcef1",
    "secon-bvar-25ac8b9",  # tuning
    "secon-bvar-8b27e20",  # tuning
})


#: Cases of the twenty-first round (``recall_blind21_cases.py``) found with ``--select ALL`` at
#: ``c0ef00e`` (main at 22:05 UTC, the session's rule landings stopped at 22:00), the blind measurement:
#: 3 of 7, the same 3 with the default selection; qutip-jax-62d6df0 is found with ``--preview`` only.
#: After the round was opened, fix59 (tuning): gpax-ebe5b32 (a defaulted parameter of a jitted method
#: that a call through an instance passes is traced), wax-ml-009c07c (a key handed to a step function
#: received as a parameter, which every call of the factory hands a step that draws) and
#: qutip-jax-62d6df0 (a ``zip`` target as traced as its own iterable; the leaves of the registered class
#: every call passes): 6 of 7, 6 with the default selection
FOUND21 = frozenset({
    "gpax-ebe5b32",  # tuning
    "jax-1461",
    "jester-pr55",
    "qutip-jax-4727189",
    "qutip-jax-62d6df0",  # tuning
    "wax-ml-009c07c",  # tuning
})


#: Cases of the twenty-second round (``recall_blind22_cases.py``) found with ``--select ALL`` at
#: ``7584034`` (main at 00:50 UTC, the session's rule landings stopped at 00:45; the cases were committed
#: alone at 8a02bbd, before jaxlint ran on them), the blind measurement: 5 of 7, 3 with the default
#: selection (e3nn-jax-412dc9d is JAX102's, pedantic; disentangled_rnns-a1d29b8 JAX104's, nursery); the same
#: 5 with ``--preview``
FOUND22 = frozenset({
    "disentangled_rnns-a1d29b8",
    "e3nn-jax-412dc9d",
    "goal-jax-eadbd41",
    "quantum-rf-pdk-833",
    "tornadox-6432ebc",
})


@dataclass(frozen=True)
class Round:
    """One round of cases: what its last measurement found, and the floors it keeps."""
    title: str
    cases: list[Case]
    found: frozenset[str]
    #: the round's size, a floor (a case is never dropped)
    size: int
    #: cases found with ``--select ALL``, at least (a tuned figure is a floor too)
    floor: int = 0
    #: cases found with the default selection, at least; None: a round of issue 19, measured
    #: with ``--select ALL`` only (issue 36 measures its sealed rounds with the default selection)
    default_floor: int | None = None
    #: one case per report (thread or commit)
    one_per_report: bool = True
    #: the round's reports are its own: none is a report of another round
    new_reports: bool = True


#: Every round, with its floors and where they come from. A sealed round of issue 36 keeps the
#: figure it was sealed at, or its figure after tuning (``docs/precision.md``), as floors: with
#: ``--select ALL`` (``floor``) and with the default selection, for the found cases whose rule and
#: kind are on by default (``default_floor``; a lint group set by measurement may move a rule off).
ROUNDS = [
    Round("blind cases (issue 19)", CASES, FOUND, size=40, floor=len(FOUND), one_per_report=False,
          new_reports=False),
    # issue 19: the 34 earlier cases stay at 31 of 34 or better
    Round("the 34 earlier cases, rewritten", EARLIER_CASES, FOUND_EARLIER, size=34, floor=31,
          one_per_report=False, new_reports=False),
    Round("blind cases, second round (issue 19)", CASES2, FOUND2, size=40, one_per_report=False),
    Round("blind cases, third round (issue 19)", CASES3, FOUND3, size=40, one_per_report=False),
    Round("blind cases, fourth round (issue 19)", CASES4, FOUND4, size=39),
    Round("blind cases, fifth round (issue 19)", CASES5, FOUND5, size=37),
    Round("blind cases, sixth round (issue 19)", CASES6, FOUND6, size=31),
    # 8 of 22 blind, 14 after tuning; with the default selection the 8 sealed at 4419f18 were 7 once
    # JAX103, JAX106, JAX107, JAX108 and JAX112 left the default groups
    # 15 after fix59 (tuning: desc-1334, JAX104's, off by default)
    Round("blind cases, seventh round (issue 36)", CASES7, FOUND7, size=22, floor=15, default_floor=7),
    # 9 of 11; 7 of 11 with the default selection at 3f74d6e (the two other hits are JAX103's and
    # JAX107's, off by default)
    Round("blind cases, eighth round (issue 36, sealed)", CASES8, FOUND8, size=11, floor=9, default_floor=7),
    # 13 of 20 blind, 15 after tuning; default: 12 sealed at 6ccfa6c, 13 after tuning (jax-9463), 12 once
    # JAX114's drawn-then-split kind left the default (gpjax-99, OFF_BY_KIND), 11 once JAX113 moved to
    # nursery (vmcnet-18; a3cbe7f), 10 once blind52 took JAX106's print-of-value kind to nursery (jax-999)
    Round("blind cases, ninth round (issue 36, sealed)", CASES9, FOUND9, size=20, floor=15, default_floor=10),
    # 7 of 13, the same cases with the default selection at f1b4bab
    Round("blind cases, tenth round (issue 36, sealed)", CASES10, FOUND10, size=13, floor=7, default_floor=0),
    # 8 of 12 blind, 12 after tuning (recall48); default: 6 at c22deb7 (the two other hits are
    # JAX108's, off by default), 9 after tuning
    Round("blind cases, eleventh round (issue 36, sealed)", CASES11, FOUND11, size=12, floor=12,
          default_floor=9),
    # 8 of 9, the same cases with the default selection at 2de3065 (JAX105 and JAX111 are on by default)
    Round("blind cases, twelfth round (issue 36, sealed)", CASES12, FOUND12, size=9, floor=8, default_floor=0),
    # 8 of 16 blind, 14 after fix51a; default: 6 at 131d38a (the two other hits are JAX103's and
    # JAX114's drawn-then-split kind, off by default), 12 after fix51a; 15 and 13 after fix59
    # (tuning: flashbax-6619200, an unannotated parameter's leaf known from the class its calls pass)
    Round("blind cases, thirteenth round (issue 36, sealed)", CASES13, FOUND13, size=16, floor=15,
          default_floor=13),
    # 8 of 16 blind, 13 after fix52a; default: 6 at ccb11c5 (the two other hits are JAX103's), 11 after
    # fix52a; 14 and 12 after fix59 (tuning: pgx-3baf39f9, as flashbax-6619200)
    Round("blind cases, fourteenth round (issue 36, sealed)", CASES14, FOUND14, size=16, floor=14,
          default_floor=12),
    # 8 of 12 blind, 11 after fix53; default: 7 at 87f2855, 10 after fix53
    Round("blind cases, fifteenth round (issue 36, sealed)", CASES15, FOUND15, size=12, floor=11,
          default_floor=10),
    # 9 of 16; default: 9 at 03b2261, 10 since
    Round("blind cases, sixteenth round (issue 36, sealed)", CASES16, FOUND16, size=16, floor=9,
          default_floor=10),
    # 13 of 16; default: 8 at 1c75a63 (the five other hits are JAX103's, JAX104's, JAX107's and
    # JAX108's, off by default); 14 after fix57r (xpcsjax-2a651d2, JAX104's: tuning on an opened round)
    Round("blind cases, seventeenth round (issue 36, sealed)", CASES17, FOUND17, size=16, floor=14,
          default_floor=8),
    # 5 of 10 at ef622bc, the same 5 with the default selection (JAX105 twice, JAX111 three times);
    # 9 after fix56 (tuning), 8 with the default selection (casoptax-c8df6b3 is JAX103's, pedantic)
    Round("blind cases, eighteenth round (issue 36, sealed)", CASES18, FOUND18, size=10, floor=9,
          default_floor=8),
    # 11 of 13 at 17d4cef (blind); default: 8 (the three other hits are JAX103's, JAX104's and
    # JAX115's, off by default); 13 after fix57r (tuning: flax-3946, gwkokab-2c1f32a), 10 with the
    # default selection
    Round("blind cases, nineteenth round (issue 36, sealed)", CASES19, FOUND19, size=13, floor=13,
          default_floor=10),
    # 5 of 10 at 5d4274d (blind); default: 1 (the four other hits are JAX108's, JAX113's and JAX115's
    # twice, off by default); 7 after fix57c (tuning: secon-bvar-8b27e20, 25ac8b9), 3 by default; 9 after
    # fix58 (tuning: enn-da821c5, react-jax-17c0f54, library dropout layers), 5 by default
    Round("blind cases, twentieth round (issue 36, sealed)", CASES20, FOUND20, size=10, floor=9,
          default_floor=5),
    # 3 of 7 at c0ef00e (blind), the same 3 with the default selection (JAX105 twice, JAX114's
    # same-numbers kind); qutip-jax-62d6df0 with --preview only (a possible finding); 6 after fix59
    # (tuning: gpax-ebe5b32, wax-ml-009c07c, qutip-jax-62d6df0), 6 with the default selection
    Round("blind cases, twenty-first round (issue 36, sealed)", CASES21, FOUND21, size=7, floor=6,
          default_floor=6),
    # 5 of 7 at 7584034 (blind); default: 3 (JAX105 once, JAX111 twice; the two other hits are JAX102's and
    # JAX104's, off by default); community-events-24882f1 (JAX103) and optax-503 (JAX107) by no selection
    Round("blind cases, twenty-second round (issue 36, sealed)", CASES22, FOUND22, size=7, floor=5,
          default_floor=3),
]

#: every case of every round, and every case recorded as found
EVERY_CASE = [c for r in ROUNDS for c in r.cases]
EVERY_FOUND = frozenset().union(*(r.found for r in ROUNDS))
#: the sealed rounds of issue 36, measured with the default selection too
SEALED = [r for r in ROUNDS if r.default_floor is not None]


def run_cli(select_all: bool, cases: list[Case] = CASES) -> dict[str, list[tuple[str, int]]]:
    """(code, line) of every finding, per case, from one ``jaxlint check`` of all cases."""
    with tempfile.TemporaryDirectory(prefix="jaxlint-recall-") as tmp:
        root = Path(tmp)
        for case in cases:
            (root / f"{case.name.replace('-', '_')}.py").write_text(case.text)
        out = root / "out.json"
        cmd = [sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache", "--output-format", "json",
               "-o", str(out), "--exit-zero", *(["--select", "ALL"] if select_all else []), "."]
        env = {k: v for k, v in os.environ.items() if not k.startswith("JAXLINT_")}
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        findings = json.loads(out.read_text())
    by_case: dict[str, list[tuple[str, int]]] = {c.name: [] for c in cases}
    stem_to_name = {c.name.replace("-", "_"): c.name for c in cases}
    for f in findings:
        by_case[stem_to_name[Path(f["filename"]).stem]].append((f["code"], f["location"]["row"]))
    return by_case


def found(by_case: dict[str, list[tuple[str, int]]], cases: list[Case] = CASES) -> set[str]:
    return {c.name for c in cases if any(code == c.rule and line in c.marked for code, line in by_case[c.name])}


@pytest.fixture(scope="module")
def measured() -> dict[str, list[tuple[str, int]]]:
    return run_cli(select_all=True, cases=EVERY_CASE)


#: found cases whose finding is of a kind off by default (docs/precision.md, "JAX114's
#: finding kinds"): the default selection's floors below leave them out, named here
OFF_BY_KIND = {
    "gpjax-99": "JAX114 drawn-then-split (pedantic): choice(key) then split(key)",
    "equinox-e906718": "JAX114 drawn-then-split (pedantic): permutation(key) then split(key, 1)",
    "d2l-2366": "JAX102 without its long-count kind (pedantic): a loop whose count the model does not know",
    "e3nn-jax-412dc9d": "JAX102 without its long-count kind (pedantic): an outer loop of 25 (325 nested pairs)",
}


def on_by_default(cases: list[Case], found_cases: frozenset[str]) -> set[str]:
    """The found cases whose rule is on by default, or has a kind on by default (JAX114's own
    group is pedantic, its `same-numbers` and `different-draws` suspicious), and whose finding
    is of a kind on by default."""
    from jaxlint.registry import rules_by_code
    from jaxlint.rule import GROUPS

    def on(rule) -> bool:
        return rule.default_enabled or any(GROUPS[k.group].on for k in rule.kinds.values())

    return {c.name for c in cases if c.name in found_cases and on(rules_by_code()[c.rule])
            and c.name not in OFF_BY_KIND}


@pytest.fixture(scope="module")
def measured_default() -> dict[str, list[tuple[str, int]]]:
    """The sealed rounds of issue 36 with the default selection, in one run."""
    return run_cli(select_all=False, cases=[c for r in SEALED for c in r.cases])


def test_every_case_marks_its_problem_and_names_a_report():
    names = [c.name for c in EVERY_CASE]
    assert len(names) == len(set(names))
    for c in EVERY_CASE:
        assert c.marked, c.name
        assert c.url.startswith("https://"), c.name
        compile(c.text, c.name, "exec")
    for r in ROUNDS:
        assert len(r.cases) >= r.size, r.title
        urls = {c.url for c in r.cases}
        if r.one_per_report:
            assert len(urls) == len(r.cases), r.title
        if r.new_reports:  # no report of this round is another round's
            assert not urls & {c.url for c in EVERY_CASE if c not in r.cases}, r.title
    assert len(EARLIER_CASES) == 34
    assert EVERY_FOUND <= set(names)


@pytest.mark.parametrize("case", [
    pytest.param(c, id=c.name, marks=() if c.name in EVERY_FOUND
                 else pytest.mark.xfail(reason="a known miss", strict=False))
    for c in EVERY_CASE
])
def test_case_is_found_by_its_rule(case, measured):
    hits = [line for code, line in measured[case.name] if code == case.rule]
    assert set(hits) & set(case.marked), (
        f"{case.rule} should report line {case.marked} of {case.name}; it reported {hits}; "
        f"all findings: {measured[case.name]}")


@pytest.mark.parametrize("rnd", [pytest.param(r, id=r.title) for r in ROUNDS])
def test_recall_figure_did_not_drop(rnd, measured):
    now = found(measured, rnd.cases)
    assert rnd.found <= now, f"cases no longer found: {sorted(rnd.found - now)}"
    assert len(now) >= rnd.floor


@pytest.mark.parametrize("rnd", [pytest.param(r, id=r.title) for r in SEALED])
def test_sealed_round_with_the_default_selection(rnd, measured_default):
    # issue 36 measures recall with the default selection: the round's figure is a floor, for the
    # found cases whose rule and kind are on by default
    on = on_by_default(rnd.cases, rnd.found)
    now = found(measured_default, rnd.cases)
    assert on <= now, sorted(on - now)
    assert len(on) >= (rnd.default_floor or 0)


#: Cases whose problem is an error, each with the call that shows it: run with real jax
#: on CPU, every one must raise (proof that the case is a real problem, not a pattern a
#: rule happens to match). Cases about cost (loops, captured arrays, callbacks,
#: recompiles, key reuse, float64 truncation) run without error and are left out.
FAILING_CALLS = {
    "jax-3133": "row_jit(1)",
    "distrax-291": "select(jnp.zeros((3, 3, 3)))",
    "brax-321": "step(jnp.ones(3), jnp.ones(3))",
    "brax-227": "rollout(jnp.zeros(8))",
    "galax-692": "potential(1.0, 2.0, 3.0)",
    "openpi-550": "sample_jit(jax.random.key(0), jnp.zeros(4), 1.0, 3)",
    "jax-3761": "choose(1.0, 2.0)",
    "jax-24740": "escape_all(jnp.zeros(4, jnp.complex64), 10)",
    "jax-15948": "band(550.0)",
    "jaxopt-350": "keep_going(True, False, 1.0, 0.1)",
    "jax-575": "metropolis_step(jnp.ones(3), jnp.ones(3), jax.random.key(0), 1)",
    "stheno-21": "grad_fn(1.0, jnp.ones(3))",
    "jax-2048": "f(1.0)",
    "jax-7032": "warp(jnp.ones((2, 4)), jnp.eye(3))",
    "jax-204": "pad_rows(jnp.ones(2), 4)",
    "jax-14279": "repeat_rows(jnp.ones(2), 3)",
    "aesara-43": "reshape_to(jnp.ones(6), 2)",
    "jax-4412": "reduce(jnp.ones((2, 2)), 0)",
    "jaxonnxruntime-29": "onnx_nonzero(jnp.ones(3))",
    "jax-7542": "positions(jnp.array([[0, 0, 1, 1], [1, 1, 0, 0]]))",
    "jax-7090": "unique_rows(jnp.ones((3, 2)))",
    "genjax-1179": "main()",
    "jax-7703": "main()",
    "jax-7826": "main()",
    # second round (recall_blind2_cases.py); numpyro-1763 is an error case too, but
    # numpyro is not a test dependency, so it is not run here
    "jax-7545": "model(params)",
    "jax-553": "pick(jnp.array([0, 1, 2]))",
    "jaxley-603": "weighted_length(jnp.ones(2))",
    "jax-1162": "matvec(jnp.ones((2, 3)), jnp.ones(3))",
    "desc-998": "radial_jac(jnp.ones(3), 2.0, 1.0, 0)",
    "diffrax-379": "measured_solve(jnp.ones(2), 0.1, 16)",
    "probdiffeq-813": "step(jnp.ones(3), jnp.ones(()))",
    "jax-15136": "(lambda t: (t.step(), t.params + 1))(Trainer(jnp.ones(2), jnp.ones((3, 2)), jnp.ones(3), 0.1))",
    "jax-1133": "(noisy(jnp.ones(2)), random.normal(keys.next_key(), (2,)))",
    "autoray-27": "(sampler(), normal())",
    "jax-4712": "run(jnp.zeros(3))",
    "jax-3701": "run_eval(jnp.ones(2))",
    "openillumi-static-arrays": "fit(jnp.zeros(2))",
    "wecopttool-427": "block_diagonal([jnp.eye(2), jnp.eye(2)])",
    "probml-notebooks-70": "masked_scores(jnp.ones((2, 3)), jnp.ones((4, 3)), jnp.ones((2, 4)))",
    "jax-5073": "log_multigamma_jit(3.0, 2)",
    "jax-4585": "above_one(jnp.arange(3))",
    "crackedaicode-static-argnames": "tile_rows(jnp.ones(2), 3)",
    "jax-38612": "keep_positive(jnp.array([1.0, -1.0]))",
    "jax-3696": "encode_all(jnp.array([0, 1, 2]), jnp.array([3, 4, 5]))",
    "jax-5017": "simulate_jit(1.0)",
    "jax-2936": "double(jnp.ones(3))",
    "optax-1059": "first_step(jnp.ones(3), jnp.ones(3))",
    # third round (recall_blind3_cases.py); the other 17 are about cost or silent
    # behaviour (a stale static result, donation that CPU skips) and run without error.
    # flax-4695 and flax-5461 are error cases too (they raise with flax 0.12.8, run by
    # hand before the measurement) but are not run here: importing flax costs seconds
    "qnlp-lorenz-2": "get_cost_jit(jnp.array([0.3]))",
    "openillumi-np-power-grad": "main()",
    "array-api-999": "hits_jit(jnp.eye(3))",
    "gymnax-83": 'step({"collisions": jnp.zeros(3)})',
    "timemachine-800": "nonbonded_jit(jnp.ones((3, 3)), jnp.ones(3), jnp.eye(3), 0.5)",
    "raytrax-38": "trace_ray(jnp.linspace(0.0, 1.0, 5), jnp.ones(5), 0.5)",
    "jax-8947": "f()",
    "flax-1903": "train_step(jnp.ones(2), jnp.ones(2), 0)",
    "jaxsim-43": "(reset(jnp.ones(3), jnp.ones(4)), model.data.base_position + 1.0)",
    "jax-4714": "(propagate(jnp.zeros((64, 64))), wf.intensity())",
    "jax-3086": "(f(7), last_input + 1)",
    "jax-7561": "callback(1.0)",
    "marginaleffects-1587": "get_se_delta(jnp.ones((2, 2)), jnp.eye(2))",
    "objax-59": "bump_middle()",
    "jax-101": "load_batches([jnp.ones((2, 32, 32, 3))], 2)",
    "jax-4449": "custom_ones(jnp.ones(3))",
    "jax-5208": "grid()",
    "jax-4798": "first_n(5, jnp.arange(10))",
    "jax-19433": "window(jnp.zeros(1, dtype=jnp.int32))",
    "secretflow-406": "update_centroids(jnp.ones((6, 2)), jnp.array([0, 1, 2, 0, 1, 2]))",
    "jax-10231": "effects_by_age(jnp.array([24, 25, 24]), jnp.ones(40))",
    "aesara-89": "unique_of_a()",
    "egoallo-17": "optimize(jnp.ones(3), GuidanceParams(1.0, 5))",
    "desc-625": ("(objective.build(np.array([[0, 0, 0], [0, 1, 4], [0, 2, 1]])), "
                 "compute_jit(jnp.ones(3), objective.constants))"),
    "liesel-272": "run(jnp.ones(3), jax.random.key(0))",
    # fourth round (recall_blind4_cases.py): the 23 error cases but ivy-16255 (a flax
    # module; it raises TracerArrayConversionError with flax 0.12.8, run by hand before
    # the measurement, left out here: importing flax costs seconds). jax-4663 leaks a
    # tracer without an error (test_leak_under_remat_is_caught_by_the_leak_checker); the
    # other 15 are about cost or silent behaviour and run without error
    "multinerf-62": "train_step(jnp.ones((3, 3)), jnp.ones((4, 3)), jnp.ones((4, 3)))",
    "waymax-14": "replay(SimState(jnp.zeros(3), jnp.array(4)))",
    "jax-7969": "main()",
    "jax-24511": "main()",
    "jax-4342": "main()",
    "axlearn-815": "repeated(jnp.ones((2, 3)), jnp.ones((4, 3, 3)))",
    "jax-2708": "count_up()",
    "jax-1406": "main()",
    "jax-23637": "run()",
    "pyhf-2580": "fit(jnp.ones(1))",
    "mcx-58": "main()",
    "jax-4572": "main([jnp.ones(2)])",
    "jax-24315": "main()",
    "pymbar-557": "initialize_with_bar(jnp.ones((3, 4)), 3)",
    "simphony-88": "assemble_s_matrix(jnp.ones(2), jnp.ones((2, 2)))",
    "jax-35090": "main()",
    "jax-689": "main()",
    "jax-7952": "main()",
    "jax-4531": "main()",
    "jax-12334": "main()",
    "dlux-260": "main()",
    "bartz-162": "benchmark_step(jnp.ones(3))",
    # fifth round (recall_blind5_cases.py): all 22 error cases (each run with real jax
    # before the seal). numpyro-1982 leaks a tracer without an error
    # (test_leak_through_self_attribute_is_caught_by_the_leak_checker); the other 14 are
    # about cost or silent behaviour (captured arrays, unrolled loops, recompiles, NumPy's
    # random numbers frozen at trace time, prints at trace time, a callback per mapped
    # element, float64 truncated, key reuse) and run without error
    "jax-2833": "main()",
    "jax-6713": "main()",
    "openillumi-dynamic-loop": "main()",
    "scipy-22781": "main()",
    "openfermion-1396": "main()",
    "jax-2783": "main()",
    "phentax-28": "main()",
    "crackedaicode-tracer-leak": "main()",
    "pytroubles-913": "main()",
    "flax-587": "main()",
    "ctd-15": "main()",
    "pyautoarray-127": "main()",
    "jax-2057": "main()",
    "jax-2506": "main()",
    "evox-jitable": "main()",
    "flax-1077": "main()",
    "jax-1629": "main()",
    "jax-5100": "main()",
    "jax-5013": "main()",
    "jax-6853": "main()",
    "nerf-diet-11": "main()",
    "jax-12627": "train(2)",
    # sixth round (recall_blind6_cases.py): the 19 error cases whose imports are jax and
    # NumPy alone (each run with real jax before the seal). numpyro-1651 leaks a tracer
    # too but is not run here: numpyro is not a test dependency. The other 11 are about
    # cost or silent behaviour (a captured array, unrolled loops, jit per call, a NumPy
    # conversion caught by its caller, a stale static `self`, a print at trace time,
    # float64 truncated, key reuse) and run without error
    "op-system-74": "main()",
    "jax-1076": "main()",
    "klujax-34": "main()",
    "pfjax-3": "main()",
    "theneuralbase-tracer-control-flow": "main()",
    "jax-gcm-747": "main()",
    "deepmd-kit-5583": "main()",
    "jax-24683": "main()",
    "blackjax-1029": "main()",
    "scipy-22219": "main()",
    "jax-26560": "main()",
    "pcax-3": "main()",
    "openillumi-list-static-arg": "main()",
    "openillumi-vmap-partial-static": "main()",
    "exojax-122": "main()",
    "galpy-1280": "main()",
    "jax-15509": "main()",
    "jax-5454": "main()",
    "jax-2765": "main()",
    # seventh round (recall_blind7_cases.py): the error cases whose imports are jax alone,
    # run by hand before the measurement and kept here. equinox-1089 raises too (Non-hashable
    # static arguments) but imports equinox; flax-4146 no longer raises with the flax
    # installed here (nnx.jit now honours static_argnames given positionally); ott-3 and
    # jaxley-74 import libraries that are not test dependencies.
    "jax-3620": "main()",
    "jax-2323": "main()",
    "jax-1007": "main()",
    "jax-16994": "main()",
    "jax-5609": "main()",
    "lagrangian-nns-7": "main()",
    "desc-1334": "main()",
    # eighth round (recall_blind8_cases.py): the five error cases, each run with real jax before
    # the measurement (jax-5492 raises UnexpectedTracerError when the leaked tracer is used); the
    # other six are about cost or silent behaviour (a captured array, a jit wrapper per call,
    # recompiles on static values, key reuse) and run without error
    "pennylane-3616": "main()",
    "jax-9085": "main()",
    "gwpopulation-83": "main()",
    "jax-5492": "main()",
    "jax-6501": "main()",
    # ninth round (recall_blind9_cases.py): the error cases whose imports are jax (and optax, a test
    # dependency), each run with real jax 0.10.2 before the measurement. numpyro-1570 raises too
    # (TracerBoolConversionError under NUTS) but imports numpyro, not a test dependency;
    # dynalang-10 no longer raises with the jax installed here (jax.nn.one_hot now takes a NumPy
    # scalar array as num_classes); vmcnet-18 raises RuntimeError (a deleted donated buffer) where
    # the backend honours donation, which is not every jax version's CPU; the other cases are about
    # cost or silent behaviour (a tracer printed, recompiles, a stale jitted method, key reuse)
    "westdri-jx-jit": "main()",
    "jax-2273": "main()",
    "jax-1575": "main()",
    "jax-11646": "main()",
    "aesara-629": "main()",
    "algoperf-124": "main()",
    "google-research-1025": "main()",
    "jax-18937": "main()",
    "array-api-690": "main()",
    "jax-9463": "main()",
    # tenth round (recall_blind10_cases.py): the seven error cases, each run with real jax 0.10.2
    # before the measurement (TracerBoolConversionError five times, TracerIntegerConversionError
    # twice); the other six are about cost or silent behaviour (an unrolled loop, a print run once,
    # float64 truncated, key reuse across calls and in a loop) and run without error
    "jax-3740": "main()",
    "pytzer-55": "main()",
    "learning-jax-tracer-bool": "main()",
    "jax-errors-page-cond-expr": "main()",
    "apxml-jit-static-vs-traced": "main()",
    "theneuralbase-static-vs-dynamic": "main()",
    "jax-15386": "main()",
    # eleventh round (recall_blind11_cases.py): the error cases whose imports are jax alone, each run
    # with real jax 0.10.2 before the measurement (TracerBoolConversionError four times,
    # ConcretizationTypeError, NonConcreteBooleanIndexError, TypeError for traced slice sizes).
    # equinox-746 raises too (ValueError: a static field holds an array) but imports equinox;
    # keras-19639 imports keras, not a test dependency; the other four are silent (a stale static
    # self twice, discarded .at[] updates)
    "crackedaicode-python-while": "main()",
    "crackedaicode-bounded-search": "main()",
    "mrmustard-546": "main()",
    "python-performance-minicourse-jax": "main()",
    "jax-5558": "main()",
    "torchstain-31": "main()",
    "keras-21501": "main()",
    # twelfth round (recall_blind12_cases.py): all nine raise with real jax 0.10.2, run before the
    # measurement (TracerBoolConversionError four times, ConcretizationTypeError twice, ValueError for
    # the truth value of a traced array, IndexError for a traced slice start, NonConcreteBooleanIndexError)
    "wlsqs-switch-chained-compare": "main()",
    "jax-1271": "main()",
    "jax-3994": "main()",
    "jit-env-36": "main()",
    "pounce-795": "main()",
    "jax-968": "main()",
    "brainpy-607": "main()",
    "jax-9578": "main()",
    "jax-9579": "main()",
    # thirteenth round (recall_blind13_cases.py): the nine error cases, each run with real jax 0.10.2
    # before the measurement (TracerBoolConversionError four times, ConcretizationTypeError three
    # times, NonConcreteBooleanIndexError twice); the other seven are about cost or silent behaviour
    # (a jit wrapper per call, key reuse) and run without error
    "brax-5ffd446": "main()",
    "gymnax-0096e0e": "main()",
    "optax-47404ab6": "main()",
    "flashbax-6619200": "main()",
    "netket-05bf7912": "main()",
    "flax-331bdc2c": "main()",
    "numpyro-e2c3f136": "main()",
    "jumanji-7b4ce1c6": "main()",
    "ott-338202c6": "main()",
    # fourteenth round (recall_blind14_cases.py): the eleven error cases, each run with real jax 0.10.2
    # before the measurement (TracerBoolConversionError eight times, a ValueError for the truth value of
    # a traced key, TracerIntegerConversionError for a traced axis, NonConcreteBooleanIndexError once);
    # the other five are about cost or silent behaviour (a jit or pmap wrapper per call, key reuse, a
    # discarded update) and run without error
    "kfac-jax-c275017": "main()",
    "scenic-a69dfe0": "main()",
    "praxis-527b478": "main()",
    "rejax-bc825f4": "main()",
    "keras-504bb958": "main()",
    "haliax-7a077f0": "main()",
    "gpjax-ae1ecdb7": "main()",
    "pgx-3baf39f9": "main()",
    "clu-9147399": "main()",
    "scico-a03aa568": "main()",
    "jax-cosmo-cf8500c": "main()",
    # fifteenth round (recall_blind15_cases.py): the three error cases, each run with real jax 0.10.2
    # before the measurement (TracerBoolConversionError twice, NonConcreteBooleanIndexError once); the
    # other nine are about cost or silent behaviour (a jit wrapper per call, discarded updates, key reuse)
    # and run without error
    "jax-bhm-377334d": "main()",
    "jax-galsim-c2cdfde": "main()",
    "aequus-jax-c5f924d": "main()",
    # sixteenth round (recall_blind16_cases.py): the eleven error cases, each run with real jax 0.10.2
    # before the measurement, each raising at its marked line (TracerBoolConversionError seven times,
    # ConcretizationTypeError, `Non-hashable static arguments`, the immutable-array TypeError,
    # NonConcreteBooleanIndexError); the other five are about cost or silent behaviour (an unrolled
    # builtin `sum`, discarded updates, key reuse) and run without error
    "dynamiqs-2669aebe": "main()",
    "dynamiqs-ddb79cbe": "main()",
    "dynamiqs-51c4d147": "main()",
    "qiskit-dynamics-221d09b1": "main()",
    "jaxtronomy-c44886c": "main()",
    "dmff-52d8830": "main()",
    "flowjax-8f8ec87": "main()",
    "deepqmc-bb422ce": "main()",
    "jaxtronomy-aadd592": "main()",
    "open-duck-playground-a92a55a": "main()",
    "jaxpm-5108e56": "main()",
    # seventeenth round (recall_blind17_cases.py): the ten error cases, each run with real jax 0.10.2
    # before the measurement (TracerArrayConversionError twice, TracerBoolConversionError twice,
    # ConcretizationTypeError four times, UnexpectedTracerError for the leaked device cache, `Non-hashable
    # static arguments`); the other six are about cost or silent behaviour (a jit made per loop iteration
    # twice, a recompile per particle, keys consumed twice or more) and run without error
    "rheojax-0e083f79": "main()",
    "xpcsjax-2a651d2": "main()",
    "jax-ent-5d7a40e": "main()",
    "rheojax-5891e9b1": "main()",
    "xpcsjax-29df996": "main()",
    "sglang-jax-49a6fd3f": "main()",
    "tomojax-0555660": "main()",
    "fedjax-e2e6896": "main()",
    "tomojax-0e30170": "main()",
    "cryojax-b79690f1": "main()",
    # eighteenth round (recall_blind18_cases.py): the eight error cases, each run with real jax 0.10.2
    # before the seal (TracerBoolConversionError four times,
    # ConcretizationTypeError, the shape TypeError of a traced size twice, `Non-hashable static
    # arguments`); the other two are about cost or silent behaviour (a jit made per call, one key split
    # from the enclosing state on every microstep) and run without error
    "viperleed-jax-8401a57": "main()",
    "viperleed-jax-2d9178e": "main()",
    "optformer-e76d7d4": "main()",
    "titans-jax-d5c2678": "main()",
    "wobble-jax-150c43f": "main()",
    "viperleed-jax-085a140": "main()",
    "mjx-fitted-iteration-1c943c6": "main()",
    "nanovllm-jax-80b3ea2": "main()",
    # nineteenth round (recall_blind19_cases.py): the eight error cases, each run with real jax 0.10.2
    # before the seal (TracerBoolConversionError five times, the ValueError of a traced array's truth
    # value, NonConcreteBooleanIndexError, the shape TypeError of a traced sample shape); the other
    # five are about cost or silent behaviour (a jit made per batch, a NumPy seed read at tracing, one
    # key drawn from twice and passed on every step, one key split three times, a clock read without
    # waiting) and run without error
    "vbjax-2d0e871": "main()",
    "jax-fdm-27e82c9": "main()",
    "jim-385ac9d": "main()",
    "e3x-a08d4e7": "main()",
    "flax-4085": "main()",
    "flax-3946": "main()",
    "sax-af8d2c4": "main()",
    "gwkokab-2c1f32a": "main()",
    # twentieth round (recall_blind20_cases.py): the six error cases, each run with real jax 0.10.2
    # before the seal (TracerBoolConversionError twice, the shape TypeError and the static-slice
    # IndexError of lax.cond operands, the pytree metadata ValueError of NumPy arrays in static fields,
    # the deleted-buffer error of a donated argument passed again); the other four are about silent
    # behaviour or cost (one key given to two dropouts twice, a clock read without waiting twice) and
    # run without error
    "secon-bvar-b1cb216": "main()",
    "react-jax-90cb7a0": "main()",
    "fea-in-jax-b13c1a3": "main()",
    "secon-bvar-8b27e20": "main()",
    "secon-bvar-25ac8b9": "main()",
    "bonsai-b33c507": "main()",
    # twenty-first round (recall_blind21_cases.py): the four error cases, each run with real jax 0.10.2
    # before the seal (TracerBoolConversionError four times); the other three are about silent behaviour
    # or cost (one key handed to every scan step, one key for two flows' samples, a jit made per call)
    # and run without error
    "gpax-ebe5b32": "main()",
    "jax-1461": "main()",
    "qutip-jax-4727189": "main()",
    "qutip-jax-62d6df0": "main()",
    # twenty-second round (recall_blind22_cases.py): the five error cases, each run with real jax 0.10.2
    # before the seal (TracerArrayConversionError, ConcretizationTypeError twice, a TypeError for a traced
    # shape, UnexpectedTracerError); the other two are about cost (a compile per pipeline object, a loop
    # unrolled into about 650 updates) and run without error
    "disentangled_rnns-a1d29b8": "main()",
    "goal-jax-eadbd41": "main()",
    "optax-503": "main()",
    "quantum-rf-pdk-833": "main()",
    "tornadox-6432ebc": "main()",
}


@pytest.mark.parametrize("name", sorted(FAILING_CALLS))
def test_case_fails_under_jax(name):
    pytest.importorskip("jax")
    case = {c.name: c for c in EVERY_CASE if c not in EARLIER_CASES}[name]
    scope: dict = {}
    exec(compile(case.text + "\nimport jax, jax.numpy as jnp\n", name, "exec"), scope)  # noqa: S102 - our own case
    with pytest.raises(Exception) as err:  # noqa: B017 - each case fails its own way (see the ids)
        eval(FAILING_CALLS[name], scope)  # noqa: S307 - a call from the table above
    assert type(err.value).__module__.startswith(("jax", "builtins")), err.value


def test_leak_through_eval_shape_fails_under_jax():
    jax = pytest.importorskip("jax")
    case = {c.name: c for c in CASES}["jax-38460"]
    with pytest.raises(jax.errors.UnexpectedTracerError):
        exec(compile(case.text, case.name, "exec"), {})  # noqa: S102 - our own case


def test_leak_under_remat_is_caught_by_the_leak_checker():
    jax = pytest.importorskip("jax")
    case = {c.name: c for c in CASES4}["jax-4663"]
    scope: dict = {}
    exec(compile(case.text, case.name, "exec"), scope)  # noqa: S102 - our own case
    # the leak checker raises a plain Exception
    with jax.checking_leaks(), pytest.raises(Exception, match="Leaked"):  # noqa: B017
        scope["main"]()


def test_leak_through_self_attribute_is_caught_by_the_leak_checker():
    jax = pytest.importorskip("jax")
    case = {c.name: c for c in CASES5}["numpyro-1982"]
    scope: dict = {}
    exec(compile(case.text + "\nimport jax.numpy as jnp\n", case.name, "exec"), scope)  # noqa: S102 - our own case
    # the leak checker raises a plain Exception
    with jax.checking_leaks(), pytest.raises(Exception, match="Leaked"):  # noqa: B017
        scope["SteinVI"](0.1).run(scope["jnp"].ones(3), 2)


def table(cases: list[Case], title: str) -> None:
    results = {sel: run_cli(select_all=sel, cases=cases) for sel in (True, False)}
    hits = {sel: found(results[sel], cases) for sel in results}
    by_rule: dict[str, list[int]] = {}
    print(f"== {title}")
    print(f"{'case':<30}{'rule':<8}{'ALL':<6}{'dflt':<6}findings (--select ALL)")
    for c in cases:
        print(f"{c.name:<30}{c.rule:<8}{'hit' if c.name in hits[True] else 'miss':<6}"
              f"{'hit' if c.name in hits[False] else 'miss':<6}"
              f"{' '.join(f'{code}:{line}' for code, line in sorted(results[True][c.name]))}")
        r = by_rule.setdefault(c.rule, [0, 0, 0])
        r[0] += 1
        r[1] += c.name in hits[True]
        r[2] += c.name in hits[False]
    print()
    for rule, (n, a, d) in sorted(by_rule.items()):
        print(f"{rule:<8}{n:>4}{a:>5}{d:>5}")
    n = len(cases)
    print(f"found: --select ALL {len(hits[True])}/{n} ({len(hits[True]) / n:.0%}), "
          f"default selection {len(hits[False])}/{n} ({len(hits[False]) / n:.0%})")
    print("found (--select ALL):", sorted(hits[True]))
    print()


def main() -> int:
    for r in ROUNDS:
        table(r.cases, r.title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
