#!/usr/bin/env bash
# The CLI start-up row of the bench README (issue 13): CALLS calls (default 20) of `holdfast run NAME -- true` on a
# SQLite file, through the repository's ./holdfast launcher (with the start-up aids the build leaves next to the jar),
# against `flock FILE true`, interleaved call by call; prints a Markdown table of wall time per call (median, min,
# max) with the date, load average and versions. Needs holdfast-cli/target/holdfast.jar: build it first with
#   ./mvnw -q -pl holdfast-cli -am package -DskipTests
# Usage: holdfast-bench/cli-startup.sh [CALLS]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
calls="${1:-20}"
if ! [[ "$calls" =~ ^[1-9][0-9]*$ ]]; then
    echo "cli-startup.sh: CALLS must be a positive whole number; got '$calls'" >&2
    exit 2
fi
jar="$root/holdfast-cli/target/holdfast.jar"
if [[ ! -f "$jar" ]]; then
    echo "cli-startup.sh: $jar is missing; build it first: ./mvnw -q -pl holdfast-cli -am package -DskipTests" >&2
    exit 2
fi
command -v flock >/dev/null || { echo "cli-startup.sh: flock(1) (util-linux) is not installed" >&2; exit 2; }

dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
export HOLDFAST_URI="sqlite:$dir/locks.db"
holdfast=("$root/holdfast" run bench-startup -- true)
flock=(flock "$dir/flock.lock" true)

# Microseconds one run of "$@" takes, its output discarded; fails the script if the command fails.
micros() {
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null
    end=$(date +%s%N)
    echo $(((end - start) / 1000))
}

# "median min max" in ms of the microsecond values on stdin.
summary() {
    sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                                         printf "%.1f | %.1f | %.1f", m / 1000, v[1] / 1000, v[NR] / 1000 }'
}

load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
"${holdfast[@]}" >/dev/null # the first call creates the file: not counted
"${flock[@]}"
: >"$dir/holdfast.us"
: >"$dir/flock.us"
for ((i = 0; i < calls; i++)); do
    micros "${holdfast[@]}" >>"$dir/holdfast.us"
    micros "${flock[@]}" >>"$dir/flock.us"
done

java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
echo "### CLI start-up: \`holdfast run NAME -- true\` vs \`flock(1)\`"
echo
echo "- Date: $(date -u +%Y-%m-%dT%H:%M:%SZ); load average at start $load_start, at end $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- Command: \`holdfast-bench/cli-startup.sh $calls\` ($calls calls of each, interleaved, after one uncounted call; SQLite file in a temporary directory)"
echo "- Versions: $("$java_bin" -version 2>&1 | head -1); jar built $(date -u -r "$jar" +%Y-%m-%dT%H:%M:%SZ); $(flock --version 2>&1 | head -1)"
echo
echo "| command | median ms | min ms | max ms |"
echo "|---|---:|---:|---:|"
echo "| \`./holdfast run bench-startup -- true\` (sqlite) | $(summary <"$dir/holdfast.us") |"
echo "| \`flock FILE true\` | $(summary <"$dir/flock.us") |"
