#!/bin/sh
# The GPU checks a session that touches execution runs on the GPU machine, in one call:
#   benchmarks/gpu_session.sh OUT [tests|quick|nvrtc|reference|clang|nightly|nightly-K-N|ref-nightly-K-N ...]
# tests: the GPU-marked tests (-n $GPU_TESTS_N, default 6; -v, so that each test's outcome is in the log; stopped
# with SIGINT after $GPU_TESTS_LIMIT seconds, default 480, so that pytest still writes its summary);
# quick: the quick profile with execution (batched, cold private cache);
# nvrtc: the quick profile compiled by the toolkit's own NVRTC (beside the nvcc on PATH), with execution;
# reference: the quick profile with execution from .ref/ (a `git archive` of an earlier commit, for verdict
# comparisons), with a cache of its own, and ref-nightly-K-N its nightly shard; clang: the quick profile with
# execution, every build replayed from the build store .store/clang-q (recorded where clang is, with --builds-to);
# nightly-K-N: shard K of N of the nightly profile with execution; nightly: the whole nightly profile with execution,
# its children traced (benchmarks/children.py); fuzz-SEED: a leg of a 10-minute campaign of that seed (--known
# benchmarks/findings: the project's published findings), stopped with SIGINT after $LEG seconds (default 540, inside
# a call's 10 minutes; its triage's reduce budget, $REDUCE or 400 s, fits in a leg) and resumed by the same step in a
# later call: its folder is $FUZZ_DIR/fuzz-SEED (default OUT; carry it back and point FUZZ_DIR at it), the budget
# counts over every leg and a triage a stop cut short goes on from investigated.jsonl. Each step's log and run folder
# go to OUT, with its wall time (the `time` line) and `where_time_goes.py` on its records.
out=${1:?usage: gpu_session.sh OUT [steps]}; shift
mkdir -p "$out"
export SUITEGEN_CACHE="$out/cache"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
nproc
for step in "$@"; do
  start=$(date +%s)
  case "$step" in
    tests) timeout -k 20 -s INT "${GPU_TESTS_LIMIT:-480}" python3 -m pytest -m gpu tests -v -p no:cacheprovider \
           -n "${GPU_TESTS_N:-6}" -rfE --durations=12 > "$out/tests.log" 2>&1 ;;
    quick) SUITEGEN_TRACE_CHILDREN="$out/quick-trace.jsonl" python3 -m suitegen run --profile quick -q \
           --out "$out/quick" > "$out/quick.log" 2>&1
           python3 benchmarks/children.py "$out/quick-trace.jsonl" >> "$out/quick.log" ;;
    nvrtc) top=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
           lib=$(ls "$top"/lib64/libnvrtc.so.[0-9]* "$top"/targets/*/lib/libnvrtc.so.[0-9]* 2>/dev/null | head -n 1)
           python3 -m suitegen run --nvcc "$lib" --profile quick -q --out "$out/nvrtc" > "$out/nvrtc.log" 2>&1 ;;
    reference) (cd .ref && SUITEGEN_CACHE="$out/refcache" PYTHONPATH="$PWD:$PYTHONPATH" \
                python3 -m suitegen run --profile quick -q --out "$out/reference") > "$out/reference.log" 2>&1 ;;
    clang) LD_LIBRARY_PATH="/usr/local/cuda/lib64:$LD_LIBRARY_PATH" \
           python3 -m suitegen run --profile quick -q --builds-from .store/clang-q --out "$out/clang" \
           > "$out/clang.log" 2>&1 ;;
    ref-nightly-*-*) shard=${step#ref-nightly-}
                 (cd .ref && SUITEGEN_CACHE="$out/refcache" PYTHONPATH="$PWD:$PYTHONPATH" python3 -m suitegen run \
                  --profile nightly -q --shard "${shard%-*}/${shard#*-}" --out "$out/$step") > "$out/$step.log" 2>&1 ;;
    nightly) SUITEGEN_TRACE_CHILDREN="$out/nightly-trace.jsonl" python3 -m suitegen run --profile nightly -q \
             --out "$out/nightly" > "$out/nightly.log" 2>&1
             python3 benchmarks/children.py "$out/nightly-trace.jsonl" >> "$out/nightly.log" ;;
    nightly-*-*) shard=${step#nightly-}
                 SUITEGEN_TRACE_CHILDREN="$out/$step-trace.jsonl" python3 -m suitegen run --profile nightly -q \
                 --shard "${shard%-*}/${shard#*-}" --out "$out/$step" > "$out/$step.log" 2>&1
                 python3 benchmarks/children.py "$out/$step-trace.jsonl" >> "$out/$step.log" ;;
    fuzz-*) seed=${step#fuzz-}
            timeout -k 20 -s INT "${LEG:-540}" python3 -m suitegen fuzz --seed "$seed" --budget 10m \
              --reduce-budget "${REDUCE:-400s}" -j "$(nproc)" --known benchmarks/findings \
              --out "${FUZZ_DIR:-$out}/$step" \
              > "$out/$step.log" 2>&1 ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
  rc=$?
  echo "== $step: exit $rc, $(( $(date +%s) - start )) s"
  tail -n 16 "$out/$step.log"
  [ -d "$out/$step" ] && python3 benchmarks/where_time_goes.py "$out/$step" | tail -n 6
done
rm -rf "$out/cache" "$out/refcache"
