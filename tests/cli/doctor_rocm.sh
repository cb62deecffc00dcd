#!/bin/bash
# issue 18 item 6: doctor checks what a real ROCm 7.0-7.2 install gets wrong: the
# decoder by its exact file name (with its version), aqlprofile, the 7.0 walk of
# ROCPROF_ATT_LIBRARY_PATH, and the python rocprofv3 runs under (PyYAML).
. "$(dirname "$0")/lib/capture_env.sh"
mkdir -p "$T/bin" "$T/dec" "$T/aql"
cat > "$T/bin/rocminfo" <<'RI'
#!/bin/sh
printf 'Agent 2\n  Name: gfx950\n  Marketing Name: AMD Instinct MI350X\n  Device Type: GPU\n  Compute Unit: 256\n'
RI
chmod +x "$T/bin/rocminfo"
export PATH="$T/bin:$PATH"
unset ROCPROF_ATT_LIBRARY_PATH
chk() { jget $T/out.json "[x for x in d['data']['checks'] if x['name']=='$1'][0]['$2']"; }

# 1. only the versioned decoder (the open-source build's SOVERSION file): found by the
#    search, but 7.0-7.2 dlopen exactly librocprof-trace-decoder.so -> blocker with the fix
: > "$T/dec/librocprof-trace-decoder.so.0.2.0"
LD_LIBRARY_PATH="$T/dec" fp doctor
[ "$RC" = 0 ] || fail "exit $RC"
[ "$(chk trace_decoder status)" = fail ] && [ "$(chk trace_decoder blocker)" = TRACE_DECODER_MISSING ] || fail "versioned only"
chk trace_decoder fix | grep -q "ln -s librocprof-trace-decoder.so.0.2.0 $T/dec/librocprof-trace-decoder.so" || fail "fix"
[ "$(jget $T/out.json 'd["data"]["trace_decoder"]["exact_name"]')" = False ] || fail "exact_name false"
ln -s librocprof-trace-decoder.so.0.2.0 "$T/dec/librocprof-trace-decoder.so"
LD_LIBRARY_PATH="$T/dec" fp doctor
[ "$(chk trace_decoder status)" = ok ] || fail "symlinked decoder"
[ "$(jget $T/out.json 'd["data"]["trace_decoder"]["version"]')" = 0.2.0 ] || fail "decoder version"

# 2. aqlprofile: warn when absent, ok when on LD_LIBRARY_PATH
[ "$(chk aqlprofile status)" = warn ] || fail "aqlprofile absent"
: > "$T/aql/libhsa-amd-aqlprofile64.so"
LD_LIBRARY_PATH="$T/dec:$T/aql" fp doctor
[ "$(chk aqlprofile status)" = ok ] && [ "$(jget $T/out.json 'd["data"]["aqlprofile"]["path"]')" = "$T/aql/libhsa-amd-aqlprofile64.so" ] \
  || fail "aqlprofile found"

# 3. the 7.0-7.2 filesystem walk: ROCPROF_ATT_LIBRARY_PATH with SDK < 1.3.0 is a warning; 1.3.0 is fine
ROCPROF_ATT_LIBRARY_PATH="$T/dec" fp doctor
[ "$(chk att_library_env status)" = warn ] || fail "walk hazard"
chk att_library_env evidence | grep -q "walks '/'" || fail "walk evidence"
FAKE_ROCPROF_VERSION=1.3.0 ROCPROF_ATT_LIBRARY_PATH="$T/dec" fp doctor
[ "$(jget $T/out.json 'any(x["name"]=="att_library_env" for x in d["data"]["checks"])')" = False ] || fail "1.3.0 walk"

# 4. rocprofv3 as the real thing is: a python script run by the first python3 on PATH
mkdir -p "$T/rocm/bin" "$T/venv"
cat > "$T/rocm/bin/rocprofv3" <<PYS
#!/usr/bin/env python3
import os, sys
os.execv("$FP_TOOLS/rocprofv3", ["$FP_TOOLS/rocprofv3"] + sys.argv[1:])
PYS
chmod +x "$T/rocm/bin/rocprofv3"
PATH="$T/venv:$PATH" fp doctor --rocprofv3 "$T/rocm/bin/rocprofv3"
[ "$(jget $T/out.json 'd["data"]["rocprofv3"]["version"]')" = 1.1.0 ] || fail "script rocprofv3 --version"
want=True; /usr/bin/python3 -c "import yaml" 2>/dev/null || want=False   # the machine's own python3
[ "$(jget $T/out.json 'd["data"]["rocprofv3_python"]["pyyaml"]')" = $want ] \
  || fail "system python PyYAML $want: $(chk rocprofv3_python evidence)"
# a virtualenv python3 first on PATH that cannot import yaml
cat > "$T/venv/python3" <<'VP'
#!/bin/sh
[ "$1" = -c ] && [ "$2" = "import yaml" ] && { echo "ModuleNotFoundError: No module named 'yaml'" >&2; exit 1; }
exec /usr/bin/python3 "$@"
VP
chmod +x "$T/venv/python3"
PATH="$T/venv:$PATH" fp doctor --rocprofv3 "$T/rocm/bin/rocprofv3"
[ "$(chk rocprofv3_python status)" = warn ] || fail "venv without PyYAML"
[ "$(jget $T/out.json 'd["data"]["rocprofv3_python"]["path"]')" = "$T/venv/python3" ] || fail "the venv python"
[ "$(jget $T/out.json 'd["data"]["rocprofv3_python"]["pyyaml"]')" = False ] || fail "pyyaml false"
echo ok
