/* fuzz_codeobj - the AMDGPU code object reader (codeobj.h) on hostile ELF:
 * any bytes either read (every kernel named, counts within their types) or fail
 * with BAD_INPUT; never a crash, leak or unbounded allocation (the msgpack
 * note is walked by a bounded validator before msgpack-c unpacks it). */
#include <stdlib.h>
#include <string.h>

#include "flyprof/codeobj.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fp_codeobj co;
    fp_err err = {0};
    if (fp_codeobj_read_mem(data, size, &co, &err) == 0) {
        for (size_t i = 0; i < co.n; i++) {
            const fp_co_kernel *k = &co.k[i];
            if (!k->name || fp_codeobj_find(&co, k->name) == NULL)
                abort(); /* a kernel read is a kernel found */
            if (k->has_kd && (k->kd_vgpr_alloc < 4 || k->kd_vgpr_alloc > 64 * 8))
                abort(); /* 6 granule bits: at most 64 granules */
        }
        fp_codeobj_free(&co);
    } else if (err.code != FP_BAD_INPUT) {
        abort(); /* hostile bytes are bad input, not a bug */
    }
    return 0;
}
