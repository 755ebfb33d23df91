#!/bin/sh
# The GPU machine's checks of the generated corpus and of a change's verdicts, in one call:
#   benchmarks/gpu_generated.sh OUT
# quick with execution, cold, beside the quick of .ref/ (a `git archive` of the commit before the change): every
# verdict of an item both hold compared; the quick profile without the corpus, cold; the corpus of the nightly
# profile alone, with every item that did not pass listed; the corpus built by another toolkit here and replayed
# there (.store/g135: programs 0-31, from `suitegen run --profile quick --generated 32 --rules 'generated/g1.p[0-9]'
# --rules 'generated/g1.p[0-9][0-9]' --nvcc nvcc-13.5.37 --builds-to .store/g135`; a store of all 500 is 572 MB,
# past what a device call carries) against this machine's nvcc, through `suitegen diff` and `history`; the
# GPU-marked tests.
out=${1:?usage: gpu_generated.sh OUT}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
nproc
step() { name=$1; shift; start=$(date +%s); "$@" > "$out/$name.log" 2>&1; rc=$?
  echo "== $name: exit $rc, $(( $(date +%s) - start )) s"; tail -n 12 "$out/$name.log"; }
SUITEGEN_CACHE=/tmp/c-new step quick python3 -m suitegen run --profile quick -q --out /tmp/quick
(cd .ref && SUITEGEN_CACHE=/tmp/c-ref PYTHONPATH="$PWD:$PYTHONPATH" step ref python3 -m suitegen run --profile quick \
  -q --out /tmp/ref)
python3 - > "$out/compare.txt" <<'EOF'
import json
def read(p):
    return {(r["case_id"], r["config_id"]): r for r in map(json.loads, open(p))}
ref, new = read("/tmp/ref/results.jsonl"), read("/tmp/quick/results.jsonl")
gen = [r for r in new.values() if r["section"] == "generated"]
print(f"reference {len(ref)} items, new {len(new)} ({len(gen)} generated)")
print("generated verdicts:", {v: sum(r["verdict"] == v for r in gen) for v in {r["verdict"] for r in gen}})
differ = [k for k in ref if k in new and ref[k]["verdict"] != new[k]["verdict"]]
print(f"{len(differ)} of {sum(k in new for k in ref)} shared verdicts differ; {sum(k not in new for k in ref)} gone")
for k in differ: print(" ", k, ref[k]["verdict"], "->", new[k]["verdict"], new[k]["reason"][:150])
EOF
cat "$out/compare.txt"
SUITEGEN_CACHE=/tmp/c-0 step quick-without python3 -m suitegen run --profile quick -q --generated 0 --out /tmp/q0
SUITEGEN_CACHE=/tmp/c-new step nightly-generated python3 -m suitegen run --profile nightly --rules generated -q \
  --out /tmp/ngen
python3 -c "
import json
for r in map(json.loads, open('/tmp/ngen/results.jsonl')):
    if r['verdict'] != 'PASS':
        print(r['case_id'], r['config_id'], r['verdict'], r['reason'][:200], (r.get('execution') or {}).get('output', '')[-300:])
" > "$out/nightly-generated-not-passed.txt"; head -c 6000 "$out/nightly-generated-not-passed.txt"
first="--generated 32 --rules generated/g1.p[0-9] --rules generated/g1.p[0-9][0-9]"  # what .store/g135 holds
SUITEGEN_CACHE=/tmp/c-new step generated-130 python3 -m suitegen run --profile quick $first -q --out /tmp/g130
step generated-135 python3 -m suitegen run --profile quick $first -q --builds-from .store/g135 --out /tmp/g135
step diff python3 -m suitegen diff /tmp/g130 /tmp/g135
step history python3 -m suitegen history /tmp/g130 /tmp/g135 --out "$out/history"
step gpu-tests python3 -m pytest -m gpu tests -q -p no:cacheprovider -n 4
