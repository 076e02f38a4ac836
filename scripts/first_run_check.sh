#!/usr/bin/env bash
# Measures what a new user's first command costs: scripts/run.sh in a new clone of this checkout's
# HEAD (committed work only), with a new build folder, empty download caches (XDG_CACHE_HOME and
# npm's cache in the scratch folder: ONNX Runtime is downloaded again) and no compiler cache
# (CCACHE_DISABLE=1),
# then a second run of the same command. Debian packages already installed stay installed (the
# deps phase then only checks them). Prints run.sh's phase lines, then for each run the wall time,
# the CPU time (user + system, from /usr/bin/time -v) and the load average before and after: on a
# shared machine the wall time depends on the other work, the CPU time much less.
#   scripts/first_run_check.sh [--keep]       (--keep leaves the scratch folder; its path is printed)
# Needs ../shared beside this checkout for the stories260k model (linked into the scratch folder).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
keep=0
[ "${1:-}" = "--keep" ] && keep=1
scratch=$(mktemp -d /tmp/ogai-first-run.XXXXXX)
[ "$keep" = 1 ] || trap 'rm -rf "$scratch"' EXIT
git clone --quiet --no-hardlinks "$here" "$scratch/ogai"
[ -d "$here/../shared" ] && ln -s "$(cd "$here/../shared" && pwd)" "$scratch/shared"
mkdir -p "$scratch/cache"
echo "first_run_check: clone of $(git -C "$here" rev-parse --short HEAD) in $scratch/ogai, $(nproc) CPUs"

timed_run() {  # timed_run LABEL: runs scripts/run.sh in the clone under /usr/bin/time -v
  local label=$1 before after log="$scratch/$1.log" times="$scratch/$1.time"
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  (cd "$scratch/ogai" && env -u OGAI_BUILD_DIR -u ONNXRUNTIME_ROOT -u OGAI_PROGRESS_START \
     XDG_CACHE_HOME="$scratch/cache" npm_config_cache="$scratch/npm-cache" CCACHE_DISABLE=1 \
     /usr/bin/time -v -o "$times" scripts/run.sh) > "$log" 2>&1 &
  local pid=$!
  tail -n +1 -f "$log" --pid=$pid | grep --line-buffered -E '^\[[0-9]+:[0-9]{2}\]|^installing|^downloading|error' || true
  wait $pid || { echo "first_run_check: $label run failed; its output: $log" >&2; keep=1; trap - EXIT; tail -30 "$log" >&2; exit 1; }
  after=$(cut -d' ' -f1-3 /proc/loadavg)
  local wall user sys
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$times")
  user=$(sed -n 's/.*User time (seconds): //p' "$times")
  sys=$(sed -n 's/.*System time (seconds): //p' "$times")
  printf '%s run: wall %s, CPU %.0f s (user %s + system %s), load average %s before, %s after\n' \
    "$label" "$wall" "$(awk "BEGIN { print $user + $sys }")" \
    "$user" "$sys" "$before" "$after"
}
timed_run first
grep -A3 '^\$ ogai generate' "$scratch/first.log" | head -4 | cut -c1-160
timed_run second
[ "$keep" = 1 ] && echo "first_run_check: kept $scratch"
