#!/bin/bash
# doctor with everything in place (fake rocprofv3, a decoder library where
# rocprofv3 looks, a rocminfo that lists an MI350X, a built worktree): ready.
# Then each missing piece turns into its blocker; bad config is an error.
. "$(dirname "$0")/lib/capture_env.sh"
mkdir -p "$T/bin" "$T/dec/sub"
: > "$T/dec/sub/librocprof-trace-decoder.so"
cat > "$T/bin/rocminfo" <<'RI'
#!/bin/sh
cat <<'OUT'
*******
Agent 1
*******
  Name:                    AMD EPYC 9575F 64-Core Processor
  Marketing Name:          AMD EPYC 9575F 64-Core Processor
  Device Type:             CPU
  Compute Unit:            128
*******
Agent 2
*******
  Name:                    gfx950
  Marketing Name:          AMD Instinct MI350X
  Device Type:             GPU
  Compute Unit:            256
OUT
RI
chmod +x "$T/bin/rocminfo"
export PATH="$T/bin:$PATH" ROCPROF_ATT_LIBRARY_PATH="$T/dec"
fp doctor
[ "$RC" = 0 ] || fail "exit $RC"
[ "$(jget $T/out.json 'd["data"]["verdict"]')" = ready ] || { cat $T/out.json; fail "not ready"; }
[ "$(jget $T/out.json 'd["data"]["trace_decoder"]["path"]')" = "$T/dec/sub/librocprof-trace-decoder.so" ] || fail decoder
[ "$(jget $T/out.json 'd["data"]["gpu"]["arch"]')" = gfx950 ] || fail arch
[ "$(jget $T/out.json 'd["data"]["gpus"][0]["compute_units"]')" = 256 ] || fail cus
[ "$(jget $T/out.json 'd["data"]["rocprofv3"]["version"]')" = 1.1.0 ] || fail version
[ "$(jget $T/out.json 'd["data"]["rocprofv3"]["default_output_format"]')" = rocpd ] || fail format
[ "$(jget $T/out.json 'd["data"]["soc_spec"]["loaded"]')" = True ] || fail soc
[ "$(jget $T/out.json 'd["data"]["worktree"]["branch"] is not None')" = True ] || fail branch
[ "$(jget $T/out.json 'd["data"]["worktree"]["dirty"]')" = False ] || fail clean

# a pre-7.0 rocprofv3 (no --version): warning, csv default
FAKE_ROCPROF_VERSION=0.6.0 fp doctor
[ "$(jget $T/out.json 'd["data"]["rocprofv3"]["default_output_format"]')" = csv ] || fail "old format"

# dirty worktree is reported
echo "# edit" >> "$WT/tests/kernels/test_softmax.py"
fp doctor
[ "$(jget $T/out.json 'd["data"]["worktree"]["dirty"]')" = True ] || fail dirty
[ "$(jget $T/out.json 'd["data"]["worktree"]["modified_files"]')" = 1 ] || fail modified

# each missing piece -> its blocker, still exit 0
fp doctor --gpu 5; [ "$RC" = 0 ] || fail "gpu5 exit"
[ "$(jget $T/out.json '[b["code"] for b in d["data"]["blockers"]]')" = "['NO_GPU']" ] || fail "gpu 5 blocker"
ROCPROF_ATT_LIBRARY_PATH="$T/nothing" LD_LIBRARY_PATH= fp doctor
[ "$(jget $T/out.json '[b["code"] for b in d["data"]["blockers"]]')" = "['TRACE_DECODER_MISSING']" ] || fail decoder-blocker
rm -rf "$WT/build-fly"
fp doctor
[ "$(jget $T/out.json '[b["code"] for b in d["data"]["blockers"]]')" = "['BUILD_TREE_MISSING']" ] || fail build-blocker
fp doctor --rocprofv3 "$T/none"
[ "$(jget $T/out.json 'd["data"]["blockers"][0]["code"]')" = ROCPROFV3_MISSING ] || fail rp-blocker

# the config file supplies defaults; flags and env win over it
mkdir -p "$HOME/.config/flyprof"
printf 'worktree: %s\ngpu: 0\narch: gfx942\n' "$T/cfgwt" > "$HOME/.config/flyprof/config.yaml"
unset FLYPROF_WORKTREE
fp doctor
[ "$(jget $T/out.json 'd["data"]["config"]["worktree"]["source"]')" = config ] || fail "config source"
[ "$(jget $T/out.json 'd["data"]["config"]["arch"]["value"]')" = gfx942 ] || fail "config arch"
fp doctor --worktree "$WT"
[ "$(jget $T/out.json 'd["data"]["config"]["worktree"]["source"]')" = flag ] || fail "flag wins"
# bad input of doctor itself is an error
printf 'worktree: [unclosed\n' > "$T/bad.yaml"
fp doctor --config "$T/bad.yaml"; expect_error BAD_INPUT 65
printf 'worktre: /x\n' > "$T/typo.yaml"
fp doctor --config "$T/typo.yaml"; expect_error BAD_INPUT 65
fp doctor --config "$T/missing.yaml"; expect_error NO_ARTIFACT 66
fp doctor --arch 'gfx950;rm' ; expect_error BAD_ARGS 78
echo ok
