#!/bin/bash
# list = registry ∪ tracked tests/kernels/test_*.py of the worktree (git
# index through libgit2: untracked files and build dirs are ignored).
. "$(dirname "$0")/lib/capture_env.sh"
# junk that must NOT be listed: untracked test, a test inside a build dir, a non-test file
echo x > "$WT/tests/kernels/test_untracked.py"
mkdir -p "$WT/tests/kernels/build"; echo x > "$WT/tests/kernels/build/test_built.py"
echo x > "$WT/tests/kernels/helper.py"
( cd "$WT" && git add tests/kernels/helper.py && git -c user.email=t@t -c user.name=t commit -qm helper )
cat > "$T/recipes.json" <<'J'
{"recipes": [
  {"name": "softmax", "test_file": "tests/kernels/test_softmax.py", "kernel_name_hint": "softmax_kernel",
   "kernels": ["softmax_kernel"], "shape_env": "ROCDSL_SOFTMAX_SHAPES", "requires": ["multi-gpu"]},
  {"name": "gemm_a8w8", "test_file": "tests/kernels/test_gemm_a8w8.py"}
]}
J
fp list --recipes "$T/recipes.json"
[ "$RC" = 0 ] || fail "exit $RC"
[ "$(jget $T/out.json '[k["kernel"] for k in d["data"]["kernels"]]')" = "['gemm_a8w8', 'layernorm', 'softmax']" ] \
  || fail "names $(jget $T/out.json '[k["kernel"] for k in d["data"]["kernels"]]')"
[ "$(jget $T/out.json 'd["data"]["worktree_scan"]')" = git-index ] || fail scan
k() { jget $T/out.json "[k for k in d['data']['kernels'] if k['kernel']=='$1'][0]['$2']"; }
[ "$(k softmax has_recipe)" = True ] || fail "softmax recipe"
[ "$(k softmax in_worktree)" = True ] || fail "softmax in worktree"
[ "$(k softmax requirements)" = "['rocprofv3', 'trace-decoder', 'gpu', 'build-tree', 'multi-gpu']" ] || fail requires
[ "$(k gemm_a8w8 in_worktree)" = False ] || fail "gemm not in worktree"
[ "$(k gemm_a8w8 category)" = gemm ] || fail "gemm category"
[ "$(k layernorm has_recipe)" = False ] || fail "layernorm synthesized"
[ "$(k layernorm recipe_source)" = synthesized ] || fail "layernorm source"
[ "$(k layernorm category)" = reduction ] || fail "layernorm category"
[ "$(k layernorm shape_env)" = None ] || fail "layernorm has no shape env"
[ "$(jget $T/out.json 'd["data"]["count"]')" = 3 ] || fail count

# the same registry as YAML; --category filters
printf 'recipes:\n  - name: softmax\n    test_file: tests/kernels/test_softmax.py\n' > "$T/r.yaml"
fp list --recipes "$T/r.yaml" --category reduction
[ "$(jget $T/out.json '[k["kernel"] for k in d["data"]["kernels"]]')" = "['layernorm', 'softmax']" ] || fail category
# the shipped registry by default
fp list
[ "$(jget $T/out.json 'd["data"]["registry_source"]')" = shipped ] || fail shipped
[ "$(jget $T/out.json '"rmsnorm" in [k["kernel"] for k in d["data"]["kernels"]]')" = True ] || fail "shipped rmsnorm"

# not a git repo: registry only, with a warning; missing worktree: error
mkdir -p "$T/plain/tests/kernels"; echo x > "$T/plain/tests/kernels/test_x.py"
fp list --worktree "$T/plain" --recipes "$T/r.yaml"
[ "$RC" = 0 ] || fail "plain exit"
[ "$(jget $T/out.json 'd["data"]["worktree_scan"]')" = not-a-git-repo ] || fail "plain scan"
[ "$(jget $T/out.json 'len(d["warnings"])')" = 1 ] || fail "plain warning"
fp list --worktree "$T/nope"; expect_error NO_ARTIFACT 66
# hostile or malformed registries
printf '{"recipes": [{"name": "x", "test_file": "/etc/passwd"}]}' > "$T/abs.json"
fp list --recipes "$T/abs.json"; expect_error BAD_INPUT 65
printf '{"recipes": [{"name": "x", "test_file": "a/../../b.py"}]}' > "$T/dots.json"
fp list --recipes "$T/dots.json"; expect_error BAD_INPUT 65
printf '{"recipes": [{"name": 3}' > "$T/trunc.json"
fp list --recipes "$T/trunc.json"; expect_error BAD_INPUT 65
printf 'recipes:\n  - name: x\n    test_file: tests/kernels/t.py\n    shape_env: "A;rm -rf"\n' > "$T/env.yaml"
fp list --recipes "$T/env.yaml"; expect_error BAD_INPUT 65
fp list --recipes "$T/none.yaml"; expect_error NO_ARTIFACT 66
echo ok
