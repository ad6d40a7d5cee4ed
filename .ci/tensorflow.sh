#!/usr/bin/env bash
# CI, TensorFlow part (called by .ci/run; runs alone too): a fresh venv with torch 2.13.0 (CPU) and
# tensorflow-cpu 2.21.0 beside it; the package installed without compiling the extension (TensorFlow's
# checks do not use it; the other venvs test the extension); then ONLY the TensorFlow tests, and the
# report, which must be healthy there (exit status 0, TensorFlow area ok).  Each step's output is in
# its log ($WORK/logs), as in .ci/run.
#   usage: tensorflow.sh [setup|test|all]   (default all; .ci/run sets up while other tests run)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$PWD
WORK=${TE_CI_DIR:-${WORK:-$(mktemp -d /tmp/torch-envcheck-ci-tf.XXXXXX)}}
PY=${PYTHON:-python3}
PHASE=${1:-all}
export PIP_DISABLE_PIP_VERSION_CHECK=1
t0=$(date +%s)
export LOGS=$WORK/logs
# shellcheck source=steps.sh
source "$REPO/.ci/steps.sh"
stamp() { echo "== [tf: $(( $(date +%s) - t0 )) s] $*"; }
venv=$WORK/tf-cpu
TF=(env VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH")

setup() {
  "$PY" -m venv "$venv"
  local base_sp=("$WORK"/cpu/lib/python3.*/site-packages)
  if [ -x "$WORK/cpu/bin/python" ] && "$WORK/cpu/bin/python" -c 'import torch, sys; sys.exit(torch.__version__ != "2.13.0+cpu")'; then
    # Called by .ci/run: the CPU venv already holds torch 2.13.0; this venv sees it through a .pth file
    # (unpacking torch again took half of this step's time).
    local sp
    sp=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "${base_sp[0]}" > "$sp/_ci_cpu_venv.pth"
    step "tf venv: tensorflow-cpu==2.21.0 over the CPU venv's torch 2.13.0" 1500 \
      "$venv/bin/pip" install -q "tensorflow-cpu==2.21.0" "setuptools>=77" wheel
  else
    step "tf venv: torch==2.13.0 + tensorflow-cpu==2.21.0" 1500 \
      "$venv/bin/pip" install -q "torch==2.13.0" "tensorflow-cpu==2.21.0" "setuptools>=77" wheel
  fi
  # Installed from a copy of the sources: other steps may be building or testing in the checkout.
  local src=$WORK/tf-src
  rm -rf "$src" && mkdir -p "$src"
  (cd "$REPO" && tar --exclude=./.git --exclude=./build --exclude='./*.egg-info' -cf - .) | (cd "$src" && tar -xf -)
  (cd "$src" && step "tf venv: the package, without the extension" 900 env TORCH_ENVCHECK_SKIP_AOT=1 \
    "$venv/bin/pip" install -q --no-build-isolation ".[test]")
  stamp "tf venv ready"
}

check_report() {  # the saved JSON report: healthy, and TensorFlow probed
  python - "$WORK/tf-cpu-report.json" <<'PYEOF'
import json, sys
rep = json.load(open(sys.argv[1]))
tf = [f for f in rep["findings"] if f["area"] == "tensorflow"]
print("tensorflow area:", rep["summary"]["tensorflow"], [(f["code"], f["severity"]) for f in tf])
assert rep["exit_status"] == 0 and rep["summary"]["tensorflow"] == "ok", "the tf-cpu venv's report is not healthy"
assert any(f["code"] == "TE800" for f in tf), "no TE800: TensorFlow was not probed"
PYEOF
}

run_tests() {
  # The JSON report goes to its own file; what the command says on stderr goes to the step's log.
  step "tf venv: the report as JSON (must be healthy)" 300 "${TF[@]}" bash -c \
    'torch-envcheck --json > "$1"' _ "$WORK/tf-cpu-report.json"
  step "tf venv: the report's TensorFlow area" 120 "${TF[@]}" bash -c "$(declare -f check_report); WORK='$WORK' check_report"
  step_soft "tf venv: the report, for the log" 300 "${TF[@]}" torch-envcheck --no-color
  show_log "tf venv: the report, for the log" 4096
  # python -m: over the CPU venv, pytest is the base's (no script in this venv's bin)
  step "tf venv: the TensorFlow tests" 600 "${TF[@]}" python -m pytest -rs \
    tests/integration/probes/test_tensorflow_probe.py tests/integration/probes/test_tensorflow_overlap.py \
    tests/integration/cli/test_tensorflow_cli.py
  stamp "done"
}

case "$PHASE" in
  setup) setup ;;
  test) run_tests ;;
  all) setup; run_tests ;;
  *) echo "usage: $0 [setup|test|all]" >&2; exit 2 ;;
esac
