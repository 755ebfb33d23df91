"""A long-lived GPU process: loads modules with cupy.RawModule and launches kernels, many per process.

Protocol: one JSON request per stdin line, one JSON reply per stdout line. A request either launches a
kernel and returns its output (``module``, ``kernel``, ...), or only loads a module (``load``): with
CUDA_MODULE_LOADING=EAGER (the runner sets it) the driver then resolves every kernel of the module,
compiling its PTX where it holds no SASS for this GPU. After a CUDA error the context may be unusable
(a sticky error), so the worker replies and exits; the caller starts another.
"""
from __future__ import annotations

import json
import sys


def serve() -> int:
    try:
        import cupy
        import numpy
    except ImportError as exc:  # pragma: no cover - only where cupy is missing
        print(json.dumps({"ok": False, "error": f"cupy is not importable: {exc}", "fatal": True}), flush=True)
        return 1
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if "load" in req:
                cupy.RawModule(path=req["load"])
                cupy.cuda.runtime.deviceSynchronize()
                print(json.dumps({"ok": True, "out": []}), flush=True)
                continue
            module = cupy.RawModule(path=req["module"])
            kernel = module.get_function(req["kernel"])
            args = [cupy.asarray(numpy.array(values, dtype=dtype)) for dtype, values in req["inputs"]]
            out = cupy.zeros(req["n"], dtype=req["out"])
            kernel((1,), (max(32, req["n"]),), (*args, out, numpy.int32(req["n"])))
            cupy.cuda.runtime.deviceSynchronize()
            print(json.dumps({"ok": True, "out": out.get().tolist()}), flush=True)
        except Exception as exc:  # a CUDA fault may leave the context unusable: report and exit
            print(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {exc}"}), flush=True)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(serve())
