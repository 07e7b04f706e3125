/*
 * The fused k-step 2D program kernels (kgt/prog_fuse.c) of every 2D program of the files given,
 * both element types, k = 1..KGT_PROG_FUSE_MAX, in small tiles that no box divides and in the
 * plan's, and by vector rows (kgt/prog_vfuse.c) in every vector width, in short walks and the
 * plan's, run on the CPU under an emulation of the CUDA execution model (prog_emu.cc: a thread
 * per GPU thread, barriers), against k one-step calls of kgt's interpreter over the same boxes
 * (tests/progdev/fuse_case.c), bitwise.
 *
 *   test_fuse_emul FILE.stencil...
 */
#include <check.h>
#include <string.h>

#include "emul_common.h"
#include "fuse_case.h"
#include "prog_emu.h"

/* The job under the emulation: entry *(int *)ctx. */
static int emu_run(void *ctx, const fuse_job *j)
{
    emu_fuse_args a;
    memset(&a, 0, sizeof a);
    for (int f = 0; f < KGT_PROG_MAX_FIELDS; f++) {
        a.in[f] = j->in[f], a.prev[f] = j->prev[f];
        a.out[f] = j->out[f], a.pout[f] = j->pout[f];
    }
    for (int d = 0; d < 2; d++) {
        a.origin[d] = j->origin[d];
        a.n[d] = (int)j->n[d];
        a.u[d] = (int)j->u[d];
    }
    a.t = j->t;
    a.stride = (int)j->stride;
    for (int s = 0; s < KGT_PROG_FUSE_MAX; s++)
        for (int f = 0; f < KGT_PROG_MAX_FIELDS; f++)
            for (int d = 0; d < 2; d++)
                for (int e = 0; e < 2; e++) a.box[s][f][d][e] = (int)j->box[s][f][d][e];
    for (int q = 0; q < KGT_PROG_MAX_PARAMS; q++) a.par[q] = j->par[q];
    return emu_fuse_launch(*(int *)ctx, &a, j->grid);
}

START_TEST(entry)
{
    const char *name;
    int dbl, fz[6], i = _i;
    emu_fuse_entry(i, &name, &dbl, fz);
    const kgt_prog *p = emul_find_prog(name);
    ck_assert_ptr_nonnull(p);
    kgt_prog_fuse z = {fz[0], fz[1], fz[2], fz[3], fz[4], fz[5]};
    for (int bc = 0; bc < FUSE_NCASES; bc++)
        ck_assert_int_eq(
            fuse_case(p, dbl, &z, bc, 4242 + 131 * (uint64_t)i + 17 * (uint64_t)bc, emu_run, &i),
            0);
}
END_TEST

int main(int argc, char **argv)
{
    return emul_main(argc, argv, "fuse-emul", entry, emu_fuse_count());
}
