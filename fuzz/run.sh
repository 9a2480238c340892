#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60), seeded from tests/
# (seed.sh) and with spirv.dict. Exits non-zero, printing the artifact paths,
# if any run produced a crash, timeout, OOM or leak artifact (or failed to
# run at all).
#
#   fuzz/run.sh [SECONDS] [TARGET...]
#
# Environment: FUZZ_TOOLCHAIN (default nightly), FUZZ_ARGS (extra libFuzzer
# flags), LSAN_OPTIONS (kept; lsan.supp's suppressions are added to it),
# FUZZ_TARGET_DIR (the build's directory, default fuzz/target).
# Logs go to fuzz/logs/<target>.log, artifacts to fuzz/artifacts/<target>/,
# the growing corpus to fuzz/corpus/<target>/.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

secs="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(read inspect specialize container)
tc="${FUZZ_TOOLCHAIN:-nightly}"
fuzz=(cargo "+$tc" fuzz)
target_dir="${FUZZ_TARGET_DIR:-$here/target}"
# LeakSanitizer ignores exactly the thread-exit records named in
# lsan.supp (glibc's and std's, not leaks of ours); every other leak is
# still reported.
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

list_artifacts() { # the crash/timeout/OOM/leak files of one target, sorted
    find "$here/artifacts/$1" -maxdepth 1 -type f \
        \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) \
        2>/dev/null | sort
}

echo "== building fuzz targets (${targets[*]}) with $tc"
build_start=$SECONDS
for t in "${targets[@]}"; do
    "${fuzz[@]}" build --target-dir "$target_dir" "$t" || { echo "fuzz build failed: $t" >&2; exit 2; }
done
echo "built in $((SECONDS - build_start)) s"

"$here/seed.sh" "${targets[@]}"
mkdir -p "$here/logs"

status=0
new_artifacts=()
for t in "${targets[@]}"; do
    mkdir -p "$here/artifacts/$t"
    before="$(list_artifacts "$t")"
    log="$here/logs/$t.log"
    echo "== fuzzing $t for ${secs}s (log: fuzz/logs/$t.log)"
    # shellcheck disable=SC2086
    "${fuzz[@]}" run --target-dir "$target_dir" "$t" "$here/corpus/$t" -- \
        -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -dict="$here/spirv.dict" -print_final_stats=1 ${FUZZ_ARGS:-} \
        >"$log" 2>&1
    rc=$?
    # Summary: the last status line and the final statistics.
    grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 | sed "s/^/  $t: /"
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" \
        | sed "s/^/  $t: /"
    after="$(list_artifacts "$t")"
    added="$(comm -13 <(echo "$before") <(echo "$after") | sed '/^$/d')"
    if [ -n "$added" ]; then
        while IFS= read -r a; do new_artifacts+=("$a"); done <<<"$added"
        echo "  $t: FOUND artifact(s); the failure:" >&2
        grep -E -m 3 -A 3 "panicked at|ERROR: libFuzzer|ERROR: AddressSanitizer|ERROR: LeakSanitizer" "$log" | sed 's/^/    /' >&2
        status=1
    elif [ "$rc" -ne 0 ]; then
        echo "  $t: cargo fuzz run exited $rc without an artifact; see $log" >&2
        tail -n 20 "$log" | sed 's/^/    /' >&2
        status=1
    fi
done

if [ ${#new_artifacts[@]} -gt 0 ]; then
    echo "== new fuzz artifacts (reproduce: cargo +$tc fuzz run TARGET PATH; minimize: cargo +$tc fuzz tmin TARGET PATH):" >&2
    printf '  %s\n' "${new_artifacts[@]}" >&2
fi
[ "$status" -eq 0 ] && echo "== fuzz: no crash, timeout or OOM in ${targets[*]} (${secs}s each)"
exit "$status"
