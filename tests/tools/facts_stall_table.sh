#!/bin/bash
# facts_stall_table.sh OLD_FLYPROF NEW_FLYPROF: the issue-23 closing-note table for items 2-4 - per
# corpus case HBM requested / unique %, MFMA busy before -> after, total hidden stall before -> after
# (the independent reference hidden_ref.py in brackets) and the drain, as markdown on stdout.
OLD=${1:?old flyprof}; NEW=${2:?new flyprof}; C=${FP_CORPUS:-$(dirname "$0")/../../../shared/corpus}; O=$(mktemp -d); trap 'rm -rf "$O"' EXIT
printf "| case | HBM requested %% | HBM unique %% | MFMA busy before → after | hidden stall before → after (reference) | drain exposed / wait |\n|---|---|---|---|---|---|\n"
while IFS=$'\t' read -r id _s _k _v disp _r; do
  [ "$id" = id ] && continue
  d=$C/$id/att/$disp
  for b in old new; do B=$OLD; [ $b = new ] && B=$NEW
    $B report --bundle $d --out-dir $O/$b-$id -q -f json > /dev/null
    $B bubbles --bundle $d -q --limit 1 --out $O/$b-$id.bub.json > /dev/null; done
  python3 $(dirname "$0")/hidden_ref.py $d > $O/$id.ref
  python3 - $id $O <<'PY'
import json, sys
i, O = sys.argv[1:]
ro, rn = json.load(open(f"{O}/old-{i}/report.json")), json.load(open(f"{O}/new-{i}/report.json"))
bo, bn = json.load(open(f"{O}/old-{i}.bub.json"))["totals"], json.load(open(f"{O}/new-{i}.bub.json"))["totals"]
ref = json.load(open(f"{O}/{i}.ref"))
h = rn["sol"]["hbm"]
print(f"| {i} | {h['trace']['pct_of_peak']} | {h['pct_of_peak']} | {ro['sol']['mfma']['busy_pct']} → {rn['sol']['mfma']['busy_pct']} | "
      f"{bo['hidden']} → {bn['hidden']} ({ref['hidden']}) | {bn['drain_exposed']} / {bn['drain_stall']} |")
PY
done < $C/cases.tsv
