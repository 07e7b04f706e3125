/*
 * The parts of the one-step streaming kernel's tiles (emit_step.c): the signature and head, the
 * tile loader, the slot arithmetic and split division's quotients. Below the emitter, which
 * keeps only its traversal.
 */
#include <stdlib.h>
#include <string.h>

#include "step.h"

/* The signature of every step kernel (kgt_rt.h) with its opening brace: in->name, then sfx. */
void kgt_step_signature(kgt_buf *b, const kgt_step_info *in, int dbl, const char *sfx)
{
    const char *t = kgt_types[dbl].name;
    kgt_printf(b, "KGT_EXTERN_C __global__ void __launch_bounds__(%d", in->sh.bx * in->sh.by);
    if (in->sh.minb) kgt_printf(b, ", %d", in->sh.minb);
    kgt_printf(b,
               ")\n"
               "    %s%s(const %s *__restrict__ in, %s *__restrict__ out, int z0, int z1, int y0,\n"
               "    int y1, int xa, int x0, int x1, long long s0, long long s1, int zc)\n{\n",
               in->name, sfx, t, t);
}

void kgt_step_head(kgt_buf *b, const step *st, const char *sfx)
{
    const kgt_step_info *in = st->in;
    const char *t = kgt_types[st->dbl].name;
    kgt_step_signature(b, in, st->dbl, sfx);
    kgt_printf(b, "    __shared__ %s sm[%d];\n", t, st->slots * st->tot);
    kgt_printf(b,
               "    const int tid = threadIdx.y * %d + threadIdx.x;\n"
               "    const int tx0 = xa + (int)blockIdx.x * %d, ty0 = y0 + (int)blockIdx.y * %d;\n"
               "    const int zs = z0 + (int)blockIdx.z * zc, ze = zs + zc < z1 ? zs + zc : z1;\n"
               "    const int n = ze - zs + %d;\n",
               in->sh.bx, in->tx, in->ty, in->elo[0] + in->ehi[0]);
}

/* Each thread's share of a plane: k cells of the tile grown by the reach, clamped in the array. */
void kgt_step_loader(kgt_buf *b, const step *st)
{
    const kgt_step_info *in = st->in;
    /* Offsets from the tile's first (clamped) cell fit an int: the launcher checks the tile. */
    kgt_printf(
        b,
        "    const long long tb = (long long)KGT_CLAMP(ty0 - %d, y0 - %d, y1 - 1 + %d) * s1 +\n"
        "                         KGT_CLAMP(tx0 - %d, x0 - %d, x1 - 1 + %d);\n"
        "    const %s *ib = in + tb;\n",
        in->elo[1], in->elo[1], in->ehi[1], st->rim, in->elo[2], in->ehi[2],
        kgt_types[st->dbl].name);
    for (int k = 0; k < st->k; k++) {
        int partial = (k + 1) * st->nt > st->tot;
        kgt_printf(b, "    int g%d;\n    {\n", k);
        if (partial)
            kgt_printf(b, "        const int i = tid + %d < %d ? tid + %d : %d;\n", k * st->nt,
                       st->tot, k * st->nt, st->tot - 1);
        else
            kgt_printf(b, "        const int i = tid + %d;\n", k * st->nt);
        kgt_printf(b,
                   "        const int r = i / %d, c = i - r * %d;\n"
                   "        const int gy = KGT_CLAMP(ty0 + r - %d, y0 - %d, y1 - 1 + %d);\n"
                   "        const int gx = KGT_CLAMP(tx0 + c - %d, x0 - %d, x1 - 1 + %d);\n"
                   "        g%d = (int)((long long)gy * s1 + gx - tb);\n    }\n",
                   st->w, st->w, in->elo[1], in->elo[1], in->ehi[1], st->rim, in->elo[2],
                   in->ehi[2], k);
    }
}

int kgt_step_mod(int a, int p)
{
    return ((a % p) + p) % p;
}

void kgt_step_split(kgt_buf *b, const step *st, char q, int a, int nc)
{
    kgt_split_cell c[16 * 4]; /* nc: at most 16 cells, or vectors of at most 4 */
    kgt_printf(b, "                float");
    for (int i = 0; i < nc; i++) {
        snprintf(c[i].dst, sizeof c[i].dst, "%c%d", q, i);
        snprintf(c[i].in, sizeof c[i].in, "ok%d", i);
        snprintf(c[i].num, sizeof c[i].num, "a%d_%d", a, i);
        kgt_printf(b, "%s %s", i ? "," : "", c[i].dst);
    }
    kgt_printf(b, ";\n");
    kgt_emit_split_quotients(b, nc, c, st->s->divisor, st->in->rd, 0);
}
