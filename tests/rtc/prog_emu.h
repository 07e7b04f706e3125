/*
 * The program kernels' emulation (prog_emu.cc), as test_prog_emul.c calls it: plain C types, the
 * C++ side fills the kernels' own args struct from them.
 */
#ifndef PROG_EMU_H
#define PROG_EMU_H

#ifdef __cplusplus
extern "C" {
#endif

/* What one launch computes: kgt_prog_tile's members (kgt/prog.h), parameters in double. */
typedef struct emu_prog_args {
    const void *in[16], *prev[16];
    void *out[16];
    long stride[16][3], lo[16][3], hi[16][3], origin[3], t;
    double par[64];
} emu_prog_args;

int emu_prog_count(void);
/* Entry i: its program's name, element type, shape (bx, by, cy) and whether it is the plan's;
   vec: the vector-row kernel instead, shape (bx, cells a vector, zc). */
void emu_prog_entry(int i, const char **name, int *dbl, int shape[3], int *plan, int *vec);
/* Every block of grid (x, y, z), every thread of the entry's block, one after another (the
   vector rows: a block's threads at once, as POSIX threads; u[2] the end row). */
void emu_prog_launch(int i, const emu_prog_args *a, const long *u, const unsigned *grid);

/* The fused k-step kernels: kgt_prog_fuse_args' members, parameters in double. */
typedef struct emu_fuse_args {
    const void *in[16], *prev[16];
    void *out[16], *pout[16];
    long origin[2], t;
    int stride, n[2], u[2];
    int box[4][16][2][2];
    double par[64];
} emu_fuse_args;

int emu_fuse_count(void);
/* Entry i: program name, element type and its kgt_prog_fuse (k, tx, ty, nt, v, h). */
void emu_fuse_entry(int i, const char **name, int *dbl, int fz[6]);
/* Every block of grid (x, y) in turn, its threads as fibers meeting at each __syncthreads (and,
   by warps, at each shuffle). 0, or -1 when the fibers could not be started. */
int emu_fuse_launch(int i, const emu_fuse_args *a, const unsigned *grid);

#ifdef __cplusplus
}
#endif

#endif
