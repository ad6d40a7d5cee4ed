#!/usr/bin/env bash
# CI, TensorFlow part (called by .ci/run; runs alone too): a fresh venv with torch 2.13.0 (CPU) and
# tensorflow-cpu 2.21.0 beside it; the package installed without compiling the extension (TensorFlow's
# checks do not use it; the other venvs test the extension); then ONLY the TensorFlow tests, and the
# report, which must be healthy there (exit status 0, TensorFlow area ok).
#   usage: tensorflow.sh [setup|test|all]   (default all; .ci/run sets up while other tests run)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$PWD
WORK=${TE_CI_DIR:-${WORK:-$(mktemp -d /tmp/torch-envcheck-ci-tf.XXXXXX)}}
PY=${PYTHON:-python3}
PHASE=${1:-all}
export PIP_DISABLE_PIP_VERSION_CHECK=1
t0=$(date +%s)
stamp() { echo "== [tf: $(( $(date +%s) - t0 )) s] $*"; }
venv=$WORK/tf-cpu

setup() {
  "$PY" -m venv "$venv"
  local base_sp=("$WORK"/cpu/lib/python3.*/site-packages)
  if [ -x "$WORK/cpu/bin/python" ] && "$WORK/cpu/bin/python" -c 'import torch, sys; sys.exit(torch.__version__ != "2.13.0+cpu")'; then
    # Called by .ci/run: the CPU venv already holds torch 2.13.0; this venv sees it through a .pth file
    # (unpacking torch again took half of this step's time).
    stamp "venv tf-cpu: tensorflow-cpu==2.21.0 over the CPU venv's torch 2.13.0"
    local sp
    sp=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "${base_sp[0]}" > "$sp/_ci_cpu_venv.pth"
    "$venv/bin/pip" install -q "tensorflow-cpu==2.21.0" "setuptools>=77" wheel
  else
    stamp "venv tf-cpu: torch==2.13.0 + tensorflow-cpu==2.21.0"
    "$venv/bin/pip" install -q "torch==2.13.0" "tensorflow-cpu==2.21.0" "setuptools>=77" wheel
  fi
  # Installed from a copy of the sources: other steps may be building or testing in the checkout.
  local src=$WORK/tf-src
  rm -rf "$src" && mkdir -p "$src"
  (cd "$REPO" && tar --exclude=./.git --exclude=./build --exclude='./*.egg-info' -cf - .) | (cd "$src" && tar -xf -)
  (cd "$src" && TORCH_ENVCHECK_SKIP_AOT=1 "$venv/bin/pip" install -q --no-build-isolation ".[test]")
  stamp "venv tf-cpu ready"
}

run_tests() {
  (
    # shellcheck disable=SC1091
    source "$venv/bin/activate"
    cd "$REPO"
    stamp "the report in the tf-cpu venv (must be healthy)"
    torch-envcheck --json > "$WORK/tf-cpu-report.json" || { echo "the report is not healthy:"; torch-envcheck --no-color; exit 1; }
    python - "$WORK/tf-cpu-report.json" <<'PYEOF'
import json, sys
rep = json.load(open(sys.argv[1]))
tf = [f for f in rep["findings"] if f["area"] == "tensorflow"]
print("tensorflow area:", rep["summary"]["tensorflow"], [(f["code"], f["severity"]) for f in tf])
assert rep["exit_status"] == 0 and rep["summary"]["tensorflow"] == "ok", "the tf-cpu venv's report is not healthy"
assert any(f["code"] == "TE800" for f in tf), "no TE800: TensorFlow was not probed"
PYEOF
    torch-envcheck --no-color || true   # the report itself, for the log
    stamp "TensorFlow tests"
    # python -m: over the CPU venv, pytest is the base's (no script in this venv's bin)
    python -m pytest -rs tests/integration/probes/test_tensorflow_probe.py \
      tests/integration/probes/test_tensorflow_overlap.py tests/integration/cli/test_tensorflow_cli.py
  )
  stamp "done"
}

case "$PHASE" in
  setup) setup ;;
  test) run_tests ;;
  all) setup; run_tests ;;
  *) echo "usage: $0 [setup|test|all]" >&2; exit 2 ;;
esac
