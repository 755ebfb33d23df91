"""A long-lived GPU process: loads modules (cupy.cuda.function.Module) and launches kernels, many per process.

Protocol: one JSON request per stdin line, one JSON reply per stdout line. A request either launches a
generated program's kernels (``cells``: each of ``launches`` on its own zeroed uint64 buffer), or a
kernel and returns its output (``module``, ``kernel``, ...), runs a value check (``value``: launch the
first of ``kernels`` the module has, one thread, on an int out[1] that starts at 0, and return out), the
value checks of a batch module's members one after another (``values``: ``members`` holds each one's
``kernels``; after a fault the reply has the outs of the members before it, and the worker exits), a kernel over arrays
read from raw files (``files``: one thread per element, ``width`` float64 results each, written to the file
``out``), or only loads a module (``load``): with CUDA_MODULE_LOADING=EAGER (the runner sets it) the driver then
resolves every kernel of the module, compiling its PTX where it holds no SASS for this GPU. The last few
modules stay loaded, so the members of one batch module load it once. After a CUDA error the context may
be unusable (a sticky error), so the worker replies and exits; the caller starts another.
"""
from __future__ import annotations

import json
import os
import sys

KEEP = 4  # modules kept loaded per worker


def _first_kernel(mod, names, not_found):
    """Return the first of ``names`` the module holds as a kernel, or None; other driver errors raise."""
    for name in names:
        try:
            return mod.get_function(name)
        except not_found as exc:
            if "CUDA_ERROR_NOT_FOUND" not in str(exc):
                raise
    return None


def serve() -> int:
    try:
        import cupy
        import numpy
    except ImportError as exc:  # pragma: no cover - only where cupy is missing
        print(json.dumps({"ok": False, "error": f"cupy is not importable: {exc}", "fatal": True}), flush=True)
        return 1
    loaded: dict[str, object] = {}

    def value(mod, kernels):
        """Launch the first of ``kernels`` the module holds, one thread, on an int out[1] starting at 0;
        return out, or None where it holds none of them."""
        kernel = _first_kernel(mod, kernels, cupy.cuda.driver.CUDADriverError)
        if kernel is None:
            return None
        out = cupy.zeros(1, dtype="int32")
        kernel((1,), (1,), (out,))
        cupy.cuda.runtime.deviceSynchronize()
        return out.get().tolist()

    def get(path: str):
        """Load a module now (cuModuleLoad: with EAGER loading every kernel is resolved, PTX JIT-compiled);
        the last KEEP stay loaded, keyed by path and stamp, so a reused scratch path is loaded afresh."""
        st = os.stat(path)
        key = f"{path}:{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"
        if key not in loaded:
            if len(loaded) >= KEEP:
                del loaded[next(iter(loaded))]  # its Module unloads when released
            mod = cupy.cuda.function.Module()
            mod.load_file(path)
            loaded[key] = mod
        return loaded[key]

    for line in sys.stdin:
        req = json.loads(line)
        try:
            if "load" in req:
                get(req["load"])
                cupy.cuda.runtime.deviceSynchronize()
                print(json.dumps({"ok": True, "out": []}), flush=True)
                continue
            if "cells" in req:  # generated programs: each kernel on its own zeroed 64-bit buffer
                mod = get(req["cells"])
                outs = []
                for name, blocks, threads, n in req["launches"]:
                    buf = cupy.zeros(n, dtype="uint64")
                    mod.get_function(name)((blocks,), (threads,), (buf,))
                    cupy.cuda.runtime.deviceSynchronize()
                    outs.append([int(v) for v in buf.get().tolist()])
                print(json.dumps({"ok": True, "out": outs}), flush=True)
                continue
            if "value" in req:
                mod = get(req["value"])
                out = value(mod, req["kernels"])
                print(json.dumps({"ok": True, "out": out, **({} if out else {"missing": req["kernels"]})}),
                      flush=True)
                continue
            if "values" in req:
                mod = get(req["values"])
                outs: list = []
                try:
                    for kernels in req["members"]:
                        outs.append(value(mod, kernels))
                except Exception as exc:  # the members before the fault keep their outs
                    print(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {exc}", "out": outs}),
                          flush=True)
                    return 2
                print(json.dumps({"ok": True, "out": outs}), flush=True)
                continue
            if "files" in req:  # arrays in raw files, the result written to one: many inputs, no JSON for them
                kernel = get(req["module"]).get_function(req["kernel"])
                args = [cupy.asarray(numpy.fromfile(path, dtype=dtype)) for dtype, path in req["files"]]
                out = cupy.zeros(req["n"] * req["width"], dtype="float64")
                kernel(((req["n"] + 255) // 256,), (256,), (*args, out, numpy.int32(req["n"])))
                cupy.cuda.runtime.deviceSynchronize()
                out.get().tofile(req["out"])
                print(json.dumps({"ok": True, "out": req["out"]}), flush=True)
                continue
            kernel = get(req["module"]).get_function(req["kernel"])
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
