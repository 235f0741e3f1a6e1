#!/usr/bin/env bash
# The GPU check: what a session lent a CUDA GPU measures, in one call (docs/results/speed.md#gpu).
#
#     bash benchmarks/gpu_check.sh OUT_DIR [DEVICE]
#
# Run from the repository root, with the shared data in ../shared/data (or .shared/data, linked
# there) and a python3 that has a CUDA build of torch. Where pip reaches no registry, the
# wheels of phonkit's other dependencies wait in .whl/ (docs/results/speed.md#gpu says which).
# Each step has its own time limit and its own log in OUT_DIR; a failed step does not stop
# the next. DEVICE (default cuda) is cpu for a dry run of the script on a machine without one;
# GPU_CHECK_STEPS names the steps to run (default: device tests throughput train tables).
# Exit status: 0 when every step ran to its end, 1 when one failed, 2 on bad usage (no OUT_DIR,
# no torch, no shared data: one line on stderr, nothing run).
#
# 1. the device, torch and whether --precision auto takes bfloat16 there;
# 2. the test suite on a machine where CUDA is available (device auto takes it);
# 3. benchmarks/throughput.py on the GPU (bundle: float32 and auto; features: auto), and the
#    machine's CPU beside it;
# 4. README's first command (`phonkit train`, the bundled sample) on the GPU;
# 5. six textbook tables (`phonkit experiment tables`, pi, 30 runs): the GPU with --jobs 4,
#    the CPU with --jobs 8.
set -u
fail() { echo "gpu_check: $*" >&2; exit 2; }  # bad usage: one line and exit 2, nothing run
[ $# -ge 1 ] || fail "usage: bash benchmarks/gpu_check.sh OUT_DIR [DEVICE]"
out=$(realpath -m "$1")
device=${2:-cuda}
python3 -c 'import torch' 2>/dev/null ||
    fail "$(command -v python3) has no torch: activate an environment with torch (a CUDA build for a GPU)"
[ -d ../shared/data ] || [ -d .shared/data ] ||
    fail "no shared data: ../shared/data, or .shared/data in the repository"
mkdir -p "$out"
: >"$out/steps"
work=$(mktemp -d)
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
PATH="$(dirname "$(python3 -c 'import sys; print(sys.executable)')"):$PATH"

step() {  # step NAME SECONDS COMMAND...: its output in OUT/NAME.log, its wall time in OUT/steps
    local name=$1 limit=$2 started status
    shift 2
    started=$(date +%s%N)
    case " ${GPU_CHECK_STEPS:-device tests throughput train tables} " in
        *" ${name%%-*} "*) ;;
        *) return ;;
    esac
    timeout -k 10 "$limit" "$@" >"$out/$name.log" 2>&1
    status=$?
    echo "$name: exit $status, $(( ($(date +%s%N) - started) / 1000000 )) ms" | tee -a "$out/steps"
}

if [ -d .whl ] && ! python3 -c 'import rapidfuzz, epitran' 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
        --target "$work/site" .whl/*.whl && export PYTHONPATH="$work/site"
fi
if ! command -v phonkit >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-build-isolation \
        -e . -e plugins/phonkit-panphon -e plugins/phonkit-wsum
fi
[ -d ../shared/data ] || ln -s "$PWD/.shared" ../shared
data=../shared/data
[ -d $data ] || data=.shared/data

step device 30 bash -c "nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
    python3 -c 'import torch
from phonkit.model.device import choose_device, resolve_precision
d = choose_device(\"$device\")
print(\"torch\", torch.__version__, d, torch.cuda.get_device_name() if d.type == \"cuda\" else \"\",
      \"precision auto:\", resolve_precision(d, \"auto\"))'"
cat "$out/device.log"

# One line per test as it ends (-v), so that a step stopped at its limit still names its
# failures; one torch thread per worker, as the workers share the cores. Without pytest-xdist,
# in one process: pyproject.toml's addopts (-n 2) would need it.
parallel=$(python3 -c 'import xdist' 2>/dev/null && echo "-n 16" || echo "-o addopts=")
OMP_NUM_THREADS=1 step tests 240 python3 -m pytest -v -rfE --tb=line $parallel \
    -p no:cacheprovider tests plugins/phonkit-panphon/tests plugins/phonkit-wsum/tests

throughput() {
    for how in "bundle fp32" "bundle auto" "features auto"; do
        set -- $how
        python3 benchmarks/throughput.py --data-dir $data --device "$device" \
            --morphemes $1 --precision $2
    done
    python3 benchmarks/throughput.py --data-dir $data --device cpu --precision fp32
}
export -f throughput
export data device
step throughput 130 bash -c throughput

timer=$([ -x /usr/bin/time ] && echo "/usr/bin/time -v")
step train 110 $timer phonkit train --device "$device" --out "$work/sample-tur-pi"
cp "$work/sample-tur-pi/metrics.json" "$out/train-metrics.json" 2>/dev/null

mkdir -p "$work/tables"
for table in 1.12_English 2.1_Hungarian 3.2_Polish 3.6_Finnish 4.4_Latin 4.5_Turkish; do
    cp "$data/textbook/Odden_$table.csv" "$work/tables/"
done
for how in "$device 4" "cpu 8"; do
    set -- $how
    step "tables-$1-jobs$2" 70 phonkit experiment tables "$work/tables" --variants pi \
        --device "$1" --jobs "$2" --out "$work/exp-$1-$2"
    [ -f "$out/tables-$1-jobs$2.log" ] && echo "tables-$1-jobs$2: $(grep -c 'finished in' "$out/tables-$1-jobs$2.log") of 30 runs" \
        >>"$out/steps"
done


echo
cat "$out/steps"
grep -h -E '^unimorph|^\|' "$out/throughput.log" 2>/dev/null
grep -h -E 'Elapsed|Maximum resident' "$out/train.log" 2>/dev/null
[ -f "$out/train-metrics.json" ] &&
    python3 -c 'import json, sys; print("sample test", json.load(open(sys.argv[1]))["test"])' \
        "$out/train-metrics.json"
grep -E " (FAILED|ERROR) |^(FAILED|ERROR)|passed|failed" "$out/tests.log" | cut -c1-220 | sort -u | tail -40
grep -c " PASSED" "$out/tests.log"
rm -rf "$work"
! grep -q ": exit [1-9]" "$out/steps"  # the script's status: 1 where a step failed
