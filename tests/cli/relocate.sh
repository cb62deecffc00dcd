#!/bin/bash
# relocate: bundles are relocatable. Every path an artifact stores that lies in
# the bundle is bundle-relative (docs/bundle.md), so
# 1. a bundle built from the shipped example, copied elsewhere and re-reported
#    (bubbles, map, report, tile) from another working directory with another
#    spelling of its path, has byte-identical artifacts;
# 2. a bundle made by `run` (fake rocprofv3) holds its own path nowhere, and
#    its copy re-reports identically; so does the example `bundle` publishes.
. "$(dirname "$0")/lib/capture_env.sh"

analyse() { # DIR-as-given, from the current directory
  "$FLYPROF" tile --bundle "$1" --shape 4096,4096,4096 --gpu-name MI350X -q -f json > /dev/null || fail "tile on $1"
  for c in "bubbles" "map" "report"; do
    "$FLYPROF" $c --bundle "$1" -q -f json > /dev/null || fail "$c on $1 (cwd $PWD)"
  done
}
same_tree() { # A B: every file byte for byte
  diff -r "$1" "$2" > "$T/tree.diff" || { head -40 "$T/tree.diff" >&2; fail "$1 and $2 differ"; }
}
no_path() { # DIR PATH: no artifact or kept envelope (*.json, *.md, *.html, *.svg,
  # *.folded) under DIR mentions PATH. rocprofv3's own input files (input_*.json: its
  # output_directory must be absolute) and its stderr logs are kept verbatim.
  if grep -rlF --include='*.json' --include='*.md' --include='*.html' --include='*.svg' --include='*.folded' \
      --exclude='input_*.json' \
      "$2" "$1" > "$T/hits"; then
    cat "$T/hits" >&2
    fail "$(wc -l < "$T/hits") artifact(s) under $1 still hold the path $2"
  fi
}

# 1. the example: a relative bundle path from one cwd, an absolute one from another
mkdir -p "$T/one" "$T/far/away/two"
cp -r "$FP_SRC/examples/synthetic_gemm" "$T/one/B"
(cd "$T/one" && analyse B)
for f in bubbles.json map.json report.json tile.json REPORT.md report.html flamegraph.svg; do
  [ -f "$T/one/B/$f" ] || fail "no $f written"
done
cp -r "$T/one/B" "$T/far/away/two/C"
(cd "$T/far" && analyse "$T/far/away/two/C/")
same_tree "$T/one/B" "$T/far/away/two/C"
no_path "$T/one/B" "$T/one"
[ "$(jget "$T/one/B/bubbles.json" 'd["dispatch"]["dir"]')" = att/ui_output_agent_4242_dispatch_3 ] ||
  fail "bubbles dispatch.dir: $(jget "$T/one/B/bubbles.json" 'd["dispatch"]["dir"]')"
[ "$(jget "$T/one/B/map.json" '(d["dispatch"]["dir"], d["flamegraph"]["svg"], d["artifact"])')" = \
  "('att/ui_output_agent_4242_dispatch_3', 'flamegraph.svg', 'map.json')" ] || fail "map.json paths"
# the envelope still says where things are, absolutely
"$FLYPROF" map --bundle "$T/far/away/two/C" -q -f json > "$T/env.json" || fail "map envelope"
[ "$(jget "$T/env.json" 'd["data"]["flamegraph"]["svg"]')" = "$T/far/away/two/C/flamegraph.svg" ] || fail "envelope svg path"

# 2. a run bundle (fake rocprofv3) and the example it publishes
mkdir -p "$T/bin" "$T/dec"
: > "$T/dec/librocprof-trace-decoder.so"
printf '#!/bin/sh\nprintf "Agent 2\\n  Name: gfx950\\n  Marketing Name: AMD Instinct MI350X\\n  Device Type: GPU\\n  Compute Unit: 256\\n"\n' \
  > "$T/bin/rocminfo"
chmod +x "$T/bin/rocminfo"
export PATH="$T/bin:$PATH" ROCPROF_ATT_LIBRARY_PATH="$T/dec"
export FAKE_ROCPROF_GEN_SPEC=$FP_SRC/tests/data/gen/synthetic_gemm.json FAKE_ROCPROF_KERNELS="softmax_kernel_0:12:30000:96"
fp run softmax --bundle "$T/runs/r1" --shape 4096,4096,4096,bf16 --examples-dir "$T/ex"
[ "$RC" = 0 ] || { cat "$T/out.json" "$T/err.txt"; fail "run exit $RC"; }
no_path "$T/runs/r1" "$T/runs/r1"
no_path "$T/ex" "$T/runs"
ex=$(ls "$T/ex")
[ -n "$ex" ] || fail "nothing published"
no_path "$T/ex/$ex" "$T/ex/$ex"
[ -d "$T/ex/$ex/$(jget "$T/ex/$ex/map.json" 'd["dispatch"]["dir"]')" ] || fail "published map.json: dispatch dir not in the example"
[ -d "$T/ex/$ex/$(jget "$T/ex/$ex/bubbles.json" 'd["dispatch"]["dir"]')" ] || fail "published bubbles.json: dispatch dir"
# (the published example is re-analysed in place first: `bundle` copies the run's
# bubbles.json, whose inventory lists every dispatch of the run, not only the one published)
"$FLYPROF" bubbles --bundle "$T/ex/$ex" -q -f json > /dev/null || fail "bubbles on the example"
for src in "$T/runs/r1" "$T/ex/$ex"; do
  rm -rf "$T/moved"
  cp -r "$src" "$T/moved"
  for c in bubbles map report; do
    "$FLYPROF" $c --bundle "$T/moved" -q -f json > /dev/null || fail "$c on the moved copy of $src"
  done
  for f in bubbles.json map.json report.json headlines.json REPORT.md report.html flamegraph.folded flamegraph.svg; do
    cmp -s "$src/$f" "$T/moved/$f" || { diff "$src/$f" "$T/moved/$f" | head -10 >&2; fail "$f of $src changed when moved"; }
  done
done
echo ok
