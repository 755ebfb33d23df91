"""The math rules' references, inputs and judging, without a GPU (the device side: test_math_gpu)."""
import math

import pytest

from suitegen.cases import math_reference as m
from suitegen.execute.checks import MathCheck
from suitegen.oracle import loader


def spec(**kw):
    base = {"call": "f(a0)", "ref": "sin", "type": "float", "args": ["x"], "ulp": 2}
    return m.Spec.of({**base, **kw})


def test_every_math_rule_has_valid_params_and_a_statement_from_the_current_edition():
    orc = loader.load()
    rules = [r for r in orc.rules if r.section in ("math-functions", "math-intrinsics")]
    assert len(rules) > 200
    for r in rules:
        assert r.edition == "13.0", r.id
        for v in r.variants:
            m.Spec.of(v.params)
    from suitegen.oracle.statements import load_statements, negative_rules
    found = load_statements(orc.root, orc.sections, [r.id for r in orc.rules], negative_rules(orc.rules))
    traced = {rid for s in found for rid in s.rules if s.source}
    assert {r.id for r in rules} <= traced


@pytest.mark.parametrize("ref,kind,x,want", [
    ("sin", "float", 1.0, 0.8414709568023682),  # binary32 nearest to sin(1)
    ("sin", "double", 1e22, -0.8522008497671888),  # a hard argument reduction
    ("erfinv", "double", 0.5, 0.4769362762044699),
    ("erfcinv", "float", 1e-30, 8.148615837097168),
    ("i0", "double", 1.0, 1.2660658777520084),
    ("i1", "double", -2.0, -1.5906368546373291),
    ("sinpi", "double", 1e300, 0.0), ("cospi", "float", 0.5, 0.0), ("sinpi", "float", -0.5, -1.0),
    ("erfcx", "double", 1e40, 5.641895835477563e-41),
    ("normcdfinv", "double", 0.975, 1.959963984540054),
    ("rcbrt", "float", 8.0, 0.5), ("rsqrt", "double", 4.0, 0.5),
])
def test_references_are_the_correctly_rounded_values(ref, kind, x, want):
    got = m.reference(m.Spec.of({"call": "f", "ref": ref, "type": kind, "args": ["x"], "ulp": 0}), [[x]])[0][0]
    assert got == pytest.approx(want, rel=2.0 ** -23 if kind == "float" else 1e-15, abs=0)


def test_subnormal_and_directed_rounding():
    sub = 2.0 ** -149
    down = m.reference(m.Spec.of({"call": "f", "ref": "mul", "type": "float", "args": ["x", "x"], "ulp": 0,
                                  "round": "rd"}), [[1.5 * sub], [0.5]])[0][0]
    up = m.reference(m.Spec.of({"call": "f", "ref": "mul", "type": "float", "args": ["x", "x"], "ulp": 0,
                                "round": "ru"}), [[1.5 * sub], [0.5]])[0][0]
    assert (down, up) == (0.0, sub)
    flushed = m.reference(m.Spec.of({"call": "f", "ref": "add", "type": "float", "args": ["x", "x"], "ulp": 0,
                                     "ftz": True}), [[sub], [0.0]])[0][0]
    assert flushed == 0.0


def test_inputs_are_seeded_and_cover_the_special_values():
    s = spec(samples=64)
    a, b = m.inputs(s, "seed"), m.inputs(s, "seed")
    assert [m.to_bits(v, "float") for v in a[0]] == [m.to_bits(v, "float") for v in b[0]]
    assert m.inputs(s, "other")[0][-64:] != a[0][-64:]
    xs = a[0]
    assert any(math.isnan(v) for v in xs) and math.inf in xs and -math.inf in xs and 2.0 ** -149 in xs
    two = m.inputs(spec(ref="atan2", args=["x", "x"], samples=8), "seed")
    assert len(two[0]) == len(two[1]) == len(m.special_values("float")) ** 2 + 8


def test_judging_counts_ulps_from_the_correctly_rounded_value():
    s = spec(ulp=2)
    x = [0.5, 1.0, 2.0]
    want = m.reference(s, [x])
    step = lambda v, k: m.from_bits(m.to_bits(v, "float") + k, "float")  # noqa: E731
    ok = m.judge(s, [x], [[step(want[0][0], 2), want[1][0], step(want[2][0], -1)]], want)
    assert ok.failures == [] and ok.worst == 2 and ok.checked == 3
    bad = m.judge(s, [x], [[step(want[0][0], 3), want[1][0], math.nan]], want)
    assert len(bad.failures) == 2 and "3 ulp, bound 2" in bad.failures[0] and "0x3f000000" in bad.failures[0]
    assert m.ulp_error(0.0, -0.0, "float") == 0 and m.ulp_error(2.0 ** -149, -(2.0 ** -149), "float") == 2


def test_ranges_say_which_bound_holds_where():
    both = spec(ulp=9, abs=2.2e-6, range=[-8.0, 8.0])
    assert [both.checked([x]) for x in (1.0, 9.0)] == ["ulp", "abs"]
    alone = spec(ulp=None, abs=3.6e-7, range=[-3.0, 3.0])
    assert [alone.checked([x]) for x in (1.0, 9.0)] == ["abs", ""]
    outside = spec(ulp=6, exclude=[-10.001, -2.264])
    assert [outside.checked([x]) for x in (-5.0, 1.0)] == ["", "ulp"]
    div = spec(ref="div", args=["x", "x"], yrange=[2.0 ** -126, 2.0 ** 126])
    assert [div.checked([1.0, y]) for y in (2.0, 2.0 ** 127)] == ["ulp", ""]


def test_int_cells_compare_as_the_documentation_fixes_them():
    rq = m.Spec.of({"call": "remquof(a0, a1, &o1)", "ref": "remquo", "type": "float", "args": ["x", "x"],
                    "outs": ["int"], "ulp": 0})
    want = m.reference(rq, [[7.0], [2.0]])  # 7 / 2 = 3.5: quotient 4, remainder -1
    assert want == [(-1.0, 4)]
    assert m.judge(rq, [[7.0], [2.0]], [[-1.0], [12]], want).failures == []  # the same 3 low bits
    assert m.judge(rq, [[7.0], [2.0]], [[-1.0], [5]], want).failures


def test_a_math_check_writes_its_inputs_and_reads_the_devices_cells(tmp_path):
    check = MathCheck({"call": "sqrtf(a0)", "ref": "sqrt", "type": "float", "args": ["x"], "ulp": 0, "samples": 32})
    req = check.request(str(tmp_path / "m.cubin"))
    assert req["kernel"] == "sg_math" and req["files"][0][0] == "float32" and req["width"] == 1
    from array import array
    xs = array("f", open(req["files"][0][1], "rb").read())
    right = [v[0] for v in m.reference(check.spec, [list(xs)])]
    open(req["out"], "wb").write(array("d", right).tobytes())
    assert check.mismatches(req["out"]) == [] and "largest error 0 ulp" in check.summary
    req = check.request(str(tmp_path / "m.cubin"))
    wrong = [v * (1 + 2 ** -20) if math.isfinite(v) and v else v for v in right]
    open(req["out"], "wb").write(array("d", wrong).tobytes())
    bad = check.mismatches(req["out"])
    assert bad and bad[0].startswith("sqrtf(a0) at (") and "bound 0" in bad[0]


def test_references_are_kept_and_served_only_where_their_entry_checks(tmp_path, monkeypatch):
    """MPFR's references depend on the function and its inputs alone: computed once, then read back as they were
    (NaNs, and rows the function left short); an entry whose bytes changed is computed again, never served."""
    monkeypatch.setenv("SUITEGEN_CORPUS_CACHE", str(tmp_path))
    s = spec(ref="modf", outs=["x"], samples=64)
    args = m.inputs(s, m.SEED)
    want = [row + (None,) * (2 - len(row)) for row in m.reference(s, args)]
    assert any(len(row) < 2 for row in m.reference(s, args)), "modf of NaN has no value: a short row"
    assert str(m.references(s, args)) == str(want)
    [entry] = (tmp_path / "math").rglob("*.ref")
    monkeypatch.setattr(m, "reference", lambda _, columns: [("again",)] * len(columns[0]))
    assert str(m.references(s, args)) == str(want)  # from the entry
    assert str(m.references(m.Spec.of({**s.__dict__, "ulp": 1}), args)) == str(want)  # a bound is not its key
    data = bytearray(entry.read_bytes())
    data[-5] ^= 1
    entry.write_bytes(bytes(data))
    assert m.references(s, args)[0] == ("again", None)


def test_references_the_cache_lacks_are_computed_in_pieces_that_add_up(tmp_path, monkeypatch):
    """A function's references are computed in pieces of PIECE inputs (across the pool, here in this process),
    put together in order, kept, and then served from the cache."""
    import concurrent.futures as cf
    monkeypatch.setenv("SUITEGEN_CORPUS_CACHE", str(tmp_path))
    pieces = []

    def here(fn, *args):
        pieces.extend([args[1:]] if fn is m._reference_here else [])
        done = cf.Future()
        done.set_result(fn(*args))
        return done

    monkeypatch.setattr(m, "_submit", here)
    monkeypatch.setattr(m, "PIECE", 7)
    s = spec(samples=40)
    args = m.inputs(s, m.SEED)
    n, whole = len(args[0]), m.reference(s, args)
    right = [[row[0] for row in whole]]
    assert m.judged(s, right).failures == [] and m.judged(s, right).checked > 0
    assert pieces[0] == (0, 7) and pieces[-1][1] == n and len(pieces) == -(-n // 7)
    assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:])), "the pieces cover every input once, in order"
    assert str(m._cached(s, args)) == str(whole)
    pieces.clear()
    wrong = [[v * (1 + 2 ** -10) if math.isfinite(v) and v else v for v in right[0]]]
    assert m.judged(s, wrong).failures and pieces == [], "judged from the cache: nothing computed again"


def test_a_judgement_measures_only_the_rows_that_differ():
    s = spec(samples=16)
    args = m.inputs(s, m.SEED)
    want = m.reference(s, args)
    cells = [[math.nan if r[0] is None else r[0] for r in want]]
    assert m.judge(s, args, cells, want).failed == 0
    cells[0][3] = math.nan  # sin of the least normal float is not NaN
    cells[0][0] = -0.0  # sin(+0) is +0: -0 is 0 ulp from it
    found = m.judge(s, args, cells, want)
    assert found.failed == 1 and found.worst == math.inf and found.checked == len(want)
    near = spec(samples=16, ulp=None, abs=1e-6)  # an absolute bound: a row that differs is measured, NaN too
    cells[0][3], cells[0][5] = want[3][0] + 1e-3, math.nan
    assert m.judge(near, args, cells, want).failed == 2 and m.judge(near, args, cells, want).worst_abs > 1e-4
