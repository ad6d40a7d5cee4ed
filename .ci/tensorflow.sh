#!/usr/bin/env bash
# CI, TensorFlow part (called by .ci/run; runs alone too): a fresh venv with torch 2.13.0 (CPU) and
# tensorflow-cpu 2.21.0 beside it; the package installed without compiling the extension (TensorFlow's
# checks do not use it; the other venvs test the extension); then ONLY the TensorFlow tests, and the
# report, which must be healthy there (exit status 0, TensorFlow area ok).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$PWD
WORK=${TE_CI_DIR:-${WORK:-$(mktemp -d /tmp/torch-envcheck-ci-tf.XXXXXX)}}
PY=${PYTHON:-python3}
export PIP_DISABLE_PIP_VERSION_CHECK=1
t0=$(date +%s)
stamp() { echo "== [tf: $(( $(date +%s) - t0 )) s] $*"; }

venv=$WORK/tf-cpu
stamp "venv tf-cpu: torch==2.13.0 + tensorflow-cpu==2.21.0"
"$PY" -m venv "$venv"
"$venv/bin/pip" install -q "torch==2.13.0" "tensorflow-cpu==2.21.0" setuptools wheel
rm -rf "$REPO/build" "$REPO"/*.egg-info
TORCH_ENVCHECK_SKIP_AOT=1 "$venv/bin/pip" install -q --no-build-isolation ".[test]"
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
  pytest -rs tests/test_tensorflow_*.py
)
stamp "done"
