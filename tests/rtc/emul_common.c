/* Shared parts of the emulation tests (emul_common.h). */
#include "emul_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cksuite.h"

static int nfiles;
static kgt_file files[4];

const kgt_stencil *emul_find(const char *name)
{
    for (int f = 0; f < nfiles; f++)
        for (int i = 0; i < files[f].nst; i++)
            if (!strcmp(files[f].st[i].name, name)) return &files[f].st[i];
    return NULL;
}

const kgt_prog *emul_find_prog(const char *name)
{
    for (int f = 0; f < nfiles; f++)
        for (int i = 0; i < files[f].nprog; i++)
            if (!strcmp(files[f].prog[i]->name, name)) return files[f].prog[i];
    return NULL;
}

int emul_nprogs(void)
{
    int n = 0;
    for (int f = 0; f < nfiles; f++) n += files[f].nprog;
    return n;
}

void emul_desc(const kgt_stencil *ks, int dbl, stencil_desc *st)
{
    memset(st, 0, sizeof *st);
    st->ndims = ks->ndims;
    for (int d = 0; d < ks->ndims; d++)
        st->radius_lo[d] = ks->rlo[d], st->radius_hi[d] = ks->rhi[d];
    st->weights = kgt_dense(ks);
    st->divisor = ks->divisor;
    st->type = dbl ? STENCIL_DOUBLE : STENCIL_FLOAT;
}

static void set(void *p, long i, int dbl, double v)
{
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

/* The case in three dimensions (a 2D one gets a last dimension of one cell) and its strides. */
static void pad3(const emul_case *c, int nd, emul_case *p, long *stride)
{
    *p = *c;
    for (int d = nd; d < 3; d++) p->n[d] = p->hi[d] = p->lhi[d] = 1, p->lo[d] = p->llo[d] = 0;
    stride[2] = 1, stride[1] = p->n[2], stride[0] = p->n[1] * p->n[2];
}

/* L reference steps over the whole array, live cells only, a cell's reach inside the array; the
   box's cells of the result into ref. */
static void reference(const stencil_desc *st, const emul_case *c, const long *stride, int levels,
                      const void *in, void *ref, size_t bytes)
{
    const size_t esz = st->type == STENCIL_DOUBLE ? 8 : 4;
    long lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    void *prev = malloc(bytes), *cur = malloc(bytes);
    ck_assert(prev && cur);
    memcpy(prev, in, bytes);
    int empty = 0;
    for (int d = 0; d < st->ndims; d++) {
        lo[d] = c->llo[d] > st->radius_lo[d] ? c->llo[d] : st->radius_lo[d];
        hi[d] = c->lhi[d] < c->n[d] - st->radius_hi[d] ? c->lhi[d] : c->n[d] - st->radius_hi[d];
        empty |= lo[d] >= hi[d];
    }
    for (int k = 0; k < levels; k++) {
        memcpy(cur, prev, bytes);
        if (!empty) tu_reference_box(st, stride, lo, hi, prev, cur);
        void *t = prev;
        prev = cur, cur = t;
    }
    for (long z = c->lo[0]; z < c->hi[0]; z++)
        for (long y = c->lo[1]; y < c->hi[1]; y++) {
            size_t at = (size_t)(z * stride[0] + y * stride[1] + c->lo[2]) * esz;
            memcpy((char *)ref + at, (char *)prev + at, (size_t)(c->hi[2] - c->lo[2]) * esz);
        }
    free(prev);
    free(cur);
}

void emul_arrays(const stencil_desc *st, const emul_case *c0, const long *a, const long *b,
                 int levels, unsigned long seed, void **in, void **out, void **ref, size_t *bytes)
{
    emul_case c;
    long stride[3], pa[3] = {0, 0, 0}, pb[3] = {1, 1, 1};
    pad3(c0, st->ndims, &c, stride);
    for (int d = 0; d < st->ndims; d++) {
        ck_assert(a[d] >= 0 && b[d] <= c.n[d]);
        pa[d] = a[d], pb[d] = b[d];
    }
    const int dbl = st->type == STENCIL_DOUBLE;
    const size_t cells = (size_t)(c.n[0] * stride[0]);
    *bytes = cells * (dbl ? 8 : 4);
    *in = *out = NULL;
    *ref = malloc(*bytes);
    ck_assert(!posix_memalign(in, 64, *bytes) && !posix_memalign(out, 64, *bytes) && *ref);
    for (long z = 0; z < c.n[0]; z++)
        for (long y = 0; y < c.n[1]; y++)
            for (long x = 0; x < c.n[2]; x++) {
                long at = z * stride[0] + y * stride[1] + x;
                int readable =
                    z >= pa[0] && z < pb[0] && y >= pa[1] && y < pb[1] && x >= pa[2] && x < pb[2];
                set(*in, at, dbl, readable ? tu_random(seed, at) : NAN);
                set(*out, at, dbl, -7.25);
            }
    memcpy(*ref, *out, *bytes);
    reference(st, &c, stride, levels, *in, *ref, *bytes);
}

long emul_compare(const stencil_desc *st, void *in, void *out, void *ref, size_t bytes)
{
    const size_t esz = st->type == STENCIL_DOUBLE ? 8 : 4;
    long bad = 0;
    for (size_t k = 0; k < bytes; k += esz)
        bad += memcmp((char *)out + k, (char *)ref + k, esz) != 0;
    free(in);
    free(out);
    free(ref);
    return bad;
}

int emul_main(int argc, char **argv, const char *suite, const TTest *test, int count)
{
    for (int a = 1; a < argc && nfiles < 4; a++)
        if (kgt_parse(argv[a], &files[nfiles++])) return EXIT_FAILURE;
    tu_one_cpu();
    Suite *s = suite_create(suite);
    TCase *tc = tcase_create("emul");
    tcase_set_timeout(tc, 600);
    tu_add_loop_shard(tc, test, count);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    for (int f = 0; f < nfiles; f++) kgt_file_free(&files[f]);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
