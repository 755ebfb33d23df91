"""C++ source builders that templates call, so class shapes are written in one place."""
from __future__ import annotations

from suitegen.oracle.definitions import ClassSpec

HD = "__host__ __device__"

_CTOR = {
    "implicit": None,
    "defaulted": "{n}() = default;",
    "empty": HD + " {n}() {{}}",
    "params": HD + " {n}(int = 0) {{}}",
    "init-list": HD + " {n}() : x(1) {{}}",
    "constexpr-init-list": HD + " constexpr {n}() : x(5) {{}}",  # not empty by the guide: an initialiser
    "body": HD + " {n}() {{ x = 1; }}",
    "declared": HD + " {n}();",
}
_DTOR = {
    "implicit": None,
    "defaulted": "~{n}() = default;",
    "empty": HD + " ~{n}() {{}}",
    "body": HD + " ~{n}() {{ x = 0; }}",
    "declared": HD + " ~{n}();",
}


def class_decls(spec: ClassSpec | dict, name: str) -> str:
    """Return C++ definitions of class ``name`` (and the classes it uses) shaped as ``spec``."""
    if not isinstance(spec, ClassSpec):
        spec = ClassSpec.from_params(spec)
    out: list[str] = []
    bases: list[str] = []
    if spec.base is not None:
        out.append(class_decls(spec.base, f"{name}_base"))
        bases.append(f"public {name}_base")
    if spec.virtual_base:
        out.append(f"struct {name}_vbase {{ }};")
        bases.append(f"virtual public {name}_vbase")
    if spec.member is not None:
        out.append(class_decls(spec.member, f"{name}_member"))
    head = f"struct {name}" + (f" : {', '.join(bases)}" if bases else "")
    body = ["  int x" + (" = 1;" if spec.nsdmi else ";")]
    if spec.member is not None:
        body.append(f"  {name}_member m;")
    if spec.virtual:
        body.append(f"  virtual {HD} int vf() {{ return x; }}")
    for table, kind in ((_CTOR, spec.ctor), (_DTOR, spec.dtor)):
        if table[kind]:
            body.append("  " + table[kind].format(n=name))
    out.append(head + " {\n" + "\n".join(body) + "\n};")
    return "\n".join(out)
