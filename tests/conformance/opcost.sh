#!/bin/bash
# The measured rows of the opcode cost table (src/analysis/opcost.c, docs/sol.md): the mode of the
# issue spacing of back-to-back same-opcode instructions in the corpus (tests/tools/opcost_spacing.py,
# Python over the raw wave files + code.json, not flyprof) must equal the cycles the table states.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
python3 "$FP_SRC/tests/tools/opcost_spacing.py" "$C/preshuffle_gemm_v2-big" "$C/flash_attn_func-small" \
    "$C/moe_gemm-big" "$C/pa_mqa_logits_fp4-big" "$C/layernorm-big" > "$T/spacing.tsv" || fail "spacing script"
# case <TAB> opcode key <TAB> cycles in the table (gfx950)
while IFS=$'\t' read -r case key want; do
    got=$(awk -F'\t' -v c="$case" -v k="$key" '$1 == c && $2 == k { sub("mode=", "", $3); print $3 }' "$T/spacing.tsv")
    [ "$got" = "$want" ] || fail "$case $key: measured mode '$got', table says $want"
done <<'ROWS'
preshuffle_gemm_v2-big	v_mfma_f32_16x16x32_bf16	16
flash_attn_func-small	v_mfma_f32_32x32x16_bf16	32
moe_gemm-big	v_mfma_f32_16x16x32_fp8_fp8	16
pa_mqa_logits_fp4-big	v_mfma_scale_f32_16x16x128_f8f6f4 cbsz:4 blgp:4	16
flash_attn_func-small	v_exp_f32_e32 ->valu	8
layernorm-big	v_pk_mul_f32	4
ROWS
echo "ok: $(wc -l < "$T/spacing.tsv") opcode spacings measured"
