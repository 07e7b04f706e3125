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
/* Entry i: its program's name, element type, shape (bx, by, cy) and whether it is the plan's. */
void emu_prog_entry(int i, const char **name, int *dbl, int shape[3], int *plan);
/* Every block of grid (x, y, z), every thread of the entry's block, one after another. */
void emu_prog_launch(int i, const emu_prog_args *a, const long *u, const unsigned *grid);

#ifdef __cplusplus
}
#endif

#endif
