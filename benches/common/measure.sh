# Shell helpers the benchmark scripts share (sourced by benches/*.sh).

# I refs of one command under cachegrind, counted whether or not it
# succeeds (some golden inputs are meant to fail). With $pin set (e.g.
# `taskset -c 1`), valgrind runs under it: a large module's helper thread
# would count too.
irefs() {
    { ${pin:-} valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null || true; } |
        awk '/I +refs:/ { gsub(",", "", $NF); print $NF }'
}

# Median wall time of $runs runs of a command, in seconds.
timed_median_s() {
    local i start end
    for ((i = 0; i < runs; i++)); do
        start=$(date +%s%N)
        "$@" >/dev/null 2>&1
        end=$(date +%s%N)
        echo $((end - start))
    done | sort -n | awk '{ t[NR] = $1 } END { printf "%.6f", t[int((NR + 1) / 2)] / 1e9 }'
}
