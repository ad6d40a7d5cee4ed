# CI's step runner, sourced by .ci/run and .ci/tensorflow.sh.
#
# Each step writes everything it prints to a log file of its own under $LOGS, never to CI's output:
# a runner that drains its output only now and then (or only at the end) must never be able to stall a
# step on a full pipe, and a process a test leaves behind must not hold CI's output open.  CI's output
# gets a line when a step starts, the step's summary lines, and on failure the tail of its log.  Every
# step runs under a deadline (GNU timeout ends the step's whole process group), so a hang is a failure
# that names the step, not a run that times out silently.
#   stamp TEXT                          one line with the seconds since $t0
#   step NAME LIMIT_S CMD...            run CMD with stdin from /dev/null and its output in the log
#   step_soft NAME LIMIT_S CMD...       the same, but its exit status is shown, not a failure
#                                       (the reports printed for the log describe the machine)
#   show_log NAME [BYTES]               print (at most BYTES of) the log of the step whose name starts
#                                       with NAME

LOGS=${LOGS:?LOGS must name the folder for the step logs}
mkdir -p "$LOGS"
TAIL_LINES=${TAIL_LINES:-150}

stamp() { echo "== [$(( $(date +%s) - t0 )) s] $*"; }

# Named by the step's start (seconds since $t0) and its name: steps started at once in subshells
# (the two installs) cannot share a counter, and a folder listing shows the order they ran in.
_log_of() { echo "$LOGS/$(printf '%05d' "$(( $(date +%s) - t0 ))")s-$(echo "$1" | tr -c 'A-Za-z0-9\n' '-' | cut -c1-60).log"; }

# The lines worth keeping in CI's output: pytest's and the checks' summaries.
_summary() {
  grep -aE '^(=+ .*(passed|failed|error|skipped|deselected|no tests ran).* =+$|Contracts: |tensorflow area: |.*No issues found|.*No failures|.*[0-9]+ failures?[;.])' "$1" \
    | tail -n 5 | cut -c1-300 || true
}

_run_step() {  # soft, name, limit, cmd...
  local soft=$1 name=$2 limit=$3; shift 3
  local log rc=0
  log=$(_log_of "$name")
  stamp "$name"
  timeout -k 20 "$limit" "$@" > "$log" 2>&1 < /dev/null || rc=$?
  _summary "$log"
  if [ "$rc" = 0 ]; then
    return 0
  fi
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo "!! '$name' ran past its ${limit} s and was stopped; the end of its log ($log):"
  elif [ "$soft" = 1 ]; then
    echo "   (exit status $rc: the report describes this machine, not the code)"
    return 0
  else
    echo "!! '$name' failed (exit status $rc); the end of its log ($log):"
  fi
  tail -n "$TAIL_LINES" "$log" | cut -c1-400
  return "$rc"
}

step() { _run_step 0 "$@"; }
step_soft() { _run_step 1 "$@"; }

show_log() {  # name [bytes]: the newest log of that step
  local pattern
  pattern=$(echo "$1" | tr -c 'A-Za-z0-9\n' '-' | cut -c1-60)
  local log
  log=$(ls -1 "$LOGS"/*-"$pattern"*.log 2>/dev/null | tail -n 1)
  [ -n "$log" ] && head -c "${2:-4096}" "$log" | cut -c1-400
  return 0
}
