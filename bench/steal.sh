# bench/steal.sh - sourced by the bench scripts: how much of the run the host took away.
# On a VM a vCPU that is runnable but not run by the host counts as "steal" in /proc/stat
# (its 8th field); wall-time ratios taken while the host steals 10-20 % move from one run
# to the next (docs/architecture.md, "Threads come from a team"), so the scripts print it
# beside their figures. steal_mark saves the counters; steal_report prints the share of CPU
# time stolen since, in percent (or that the kernel gives none).
steal_mark() {
    _steal0=$(awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t; exit }' /proc/stat 2> /dev/null)
}
steal_report() {
    local now
    now=$(awk '/^cpu / { t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t; exit }' /proc/stat 2> /dev/null)
    if [ -z "${_steal0:-}" ] || [ -z "$now" ]; then
        echo "host steal: unknown (no /proc/stat)"
        return
    fi
    awk -v a="$_steal0" -v b="$now" 'BEGIN {
        split(a, x, " "); split(b, y, " "); dt = y[2] - x[2]
        if (dt <= 0) { print "host steal: unknown (no time passed)"; exit }
        printf "host steal during the run: %.1f %% of CPU time (/proc/stat; > ~5 %% makes wall ratios noisy)\n", 100 * (y[1] - x[1]) / dt }'
}
