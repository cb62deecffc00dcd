# SPDX-License-Identifier: MIT
# SYNTHETIC example kernel for flyprof (FlyDSL-like, not a real FlyDSL kernel).
# A 64x64 output tile per workgroup, K loop in steps of 32, double-buffered LDS.
import flydsl as fx
from flydsl import arith, rocdl

TILE_M = 64
TILE_N = 64
TILE_K = 32
WAVES = 4


def load_tile_a(a_desc, m0, k0, tid):
    """Global -> registers for one A sub-tile (dwordx4 per lane)."""
    row = m0 + tid // 4
    col = k0 + (tid % 4) * 8
    return fx.buffer_load(a_desc, row * a_desc.stride + col, vec=4)


def load_tile_b(b_ptr, n0, k0, tid):
    row = k0 + tid // 8
    col = n0 + (tid % 8) * 8
    return fx.global_load(b_ptr + row * b_ptr.stride + col, vec=4)


def store_lds(lds, buf, frag, tid):
    base = buf * TILE_K * (TILE_M + TILE_N)
    fx.ds_write(lds, base + tid * 16, frag)


def read_lds(lds, buf, wave, lane):
    base = buf * TILE_K * (TILE_M + TILE_N)
    a_frag = fx.ds_read(lds, base + wave * 512 + lane * 8, vec=2)
    b_frag = fx.ds_read(lds, base + 4096 + lane * 8, vec=2)
    return a_frag, b_frag


@fx.kernel(workgroup_size=256)
def gemm_kernel(a_desc, b_ptr, c_ptr, M, N, K):
    tid = fx.thread_id()
    wave = tid // 64
    lane = tid % 64
    m0 = fx.block_id(0) * TILE_M
    n0 = fx.block_id(1) * TILE_N
    lds = fx.shared_memory(2 * TILE_K * (TILE_M + TILE_N), fx.bf16)
    acc = fx.zeros((4, 4), fx.f32)

    # prologue: first K tile into LDS buffer 0
    a_frag = load_tile_a(a_desc, m0, 0, tid)
    b_frag = load_tile_b(b_ptr, n0, 0, tid)
    store_lds(lds, 0, a_frag, tid)
    store_lds(lds, 0, b_frag, tid + 256)
    fx.barrier()

    for k0 in fx.range(TILE_K, K, TILE_K):
        buf = (k0 // TILE_K) % 2
        # issue the next tile's global loads early (software pipelining)
        a_next = load_tile_a(a_desc, m0, k0, tid)
        b_next = load_tile_b(b_ptr, n0, k0, tid)
        # compute on the current buffer
        a_cur, b_cur = read_lds(lds, 1 - buf, wave, lane)
        acc = rocdl.mfma_f32_16x16x32_bf16(a_cur, b_cur, acc)
        acc = rocdl.mfma_f32_16x16x32_bf16(a_cur, b_cur, acc)
        # stage the next tile
        fx.wait_vmem()
        store_lds(lds, buf, a_next, tid)
        store_lds(lds, buf, b_next, tid + 256)
        fx.barrier()

    # epilogue: last buffer
    a_cur, b_cur = read_lds(lds, 1, wave, lane)
    acc = rocdl.mfma_f32_16x16x32_bf16(a_cur, b_cur, acc)
    acc = rocdl.mfma_f32_16x16x32_bf16(a_cur, b_cur, acc)
    out = arith.truncf(acc, fx.bf16)
    row = m0 + wave * 16 + lane // 4
    col = n0 + (lane % 4) * 4
    fx.global_store(c_ptr + row * N + col, out)


def launch(a, b, c):
    M, K = a.shape
    N = b.shape[1]
    grid = (M // TILE_M, N // TILE_N)
    gemm_kernel[grid](a.desc(), b.data_ptr(), c.data_ptr(), M, N, K)
