# Progress lines for the set-up scripts (sourced by scripts/setup.sh and scripts/run.sh):
#   progress PHASE DETAIL   prints "[m:ss] PHASE: DETAIL" on stderr, the time since the first
#                           script of this run started (OGAI_PROGRESS_START, exported).
#   ... | build_progress [LOG]  reads `cmake --build` output (Makefiles): counts the objects
#                           compiled, prints a line each tenth of the way and a total, and passes
#                           every other line (warnings, errors; not make's own step lines) to
#                           stderr, or appends it to LOG when given.
export OGAI_PROGRESS_START="${OGAI_PROGRESS_START:-$(date +%s)}"

progress_clock() {
  local s=$(( $(date +%s) - OGAI_PROGRESS_START ))
  printf '%d:%02d' $((s / 60)) $((s % 60))
}

progress() {
  echo "[$(progress_clock)] $1: $2" >&2
}

build_progress() {
  local objects=0 tenth=0 line pct log=${1:-/dev/stderr}
  while IFS= read -r line; do
    if [[ $line =~ ^\[\ *([0-9]+)%\]\ (Building|Linking|Built|Generating) ]]; then
      pct=${BASH_REMATCH[1]}
      if [ "${BASH_REMATCH[2]}" = Building ]; then
        objects=$((objects + 1))
        if [ $((pct / 10)) -gt "$tenth" ]; then
          tenth=$((pct / 10))
          progress build "$objects objects compiled ($pct%)"
        fi
      fi
    elif [[ ! $line =~ ^(\[\ *[0-9]+%\]\ |make(\[[0-9]+\])?:\ (Entering|Leaving)|gmake) ]]; then
      echo "$line" >> "$log"
    fi
  done
  progress build "make finished: $objects objects compiled"
}
