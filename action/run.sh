#!/usr/bin/env bash
# The script of the torchdoctor GitHub Action (action.yml at the repository root). It installs
# torchdoctor, runs `torchdoctor ci --sarif`, and reports the exit status and the SARIF path as step
# outputs WITHOUT failing, so the upload step runs even when the gate fails; the action's last step
# fails the job. Inputs arrive as TORCHDOCTOR_* environment variables; runs locally too (tests).
set -uo pipefail

python="${TORCHDOCTOR_PYTHON:-python3}"
sarif="${TORCHDOCTOR_SARIF:-torchdoctor.sarif}"
output="${GITHUB_OUTPUT:-/dev/null}"

emit() { printf '%s=%s\n' "$1" "$2" >>"$output"; }

if [ "${TORCHDOCTOR_INSTALL:-true}" = "true" ]; then
  src="${TORCHDOCTOR_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}"
  if ! "$python" -m pip install --quiet --disable-pip-version-check "$src"; then
    echo "::error title=torchdoctor::could not install torchdoctor from $src"
    emit exit-code 2
    emit sarif-file ""
    exit 0
  fi
fi

args=(ci --sarif "$sarif")
[ "${TORCHDOCTOR_QUICK:-true}" = "true" ] && args+=(--quick)
# Checkpoints: space- or newline-separated paths (no spaces inside a path).
for ckpt in ${TORCHDOCTOR_CHECKPOINTS:-}; do
  args+=(--checkpoint "$ckpt")
done
# Paths: space-separated; default the repository root.
read -r -a paths <<<"${TORCHDOCTOR_PATHS:-.}"
[ "${#paths[@]}" -eq 0 ] && paths=(.)
args+=("${paths[@]}")

echo "torchdoctor ${args[*]}"
"$python" -m torchdoctor "${args[@]}"
status=$?
emit exit-code "$status"
if [ -s "$sarif" ]; then
  emit sarif-file "$sarif"
else
  emit sarif-file ""
fi
exit 0
