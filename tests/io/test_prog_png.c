/*
 * A picture of one chosen field of a program (issue 43), under mpiexec -n 2 and 4 on the host:
 * the output callback sees every field's tile by name and writes the PNG of one of them; rank 0
 * decodes it (libpng's reader) and compares it pixel by pixel with the picture of the serial
 * reference's field (kgt's interpreter over the whole grid, tests/prog/prog_ref.c) written from
 * one plain tile on rank 0 alone. The picture of another field differs from it, so the chosen
 * field is the one shown. 2D (Gray-Scott, v) and a slice of a 3D program (chan3, q).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cksuite.h"
#include "pngread.h"
#include "prog_ref.h"
#include "testutil.h"

static int rank, nranks;

typedef struct pick {
    ctx c; /* init's, first: options.user is a pick */
    const char *field, *path;
    int slice_dim;
    long slice_index;
    int rc, shown;
} pick;

static int picture_of(const stencil_tile *t, void *user)
{
    pick *k = user;
    if (stencil_program_find_field(k->c.prog, t->field) < 0 || t->level != 0) return 1;
    if (strcmp(t->field, k->field)) return 0;
    k->shown++;
    k->rc = stencil_write_png(MPI_COMM_WORLD, k->path, t, k->slice_dim, k->slice_index, 0, 0);
    return 0;
}

/* Rank 0: the picture of field f of the reference's whole grid, from one tile. */
static int reference_png(const ref *R, int f, const char *path, int slice_dim, long slice_index)
{
    stencil_tile t;
    tp_whole_tile(&t, R, R->cur[f], NULL);
    return stencil_write_png(MPI_COMM_SELF, path, &t, slice_dim, slice_index, 0, 0);
}

/* Pixels that differ between two PNG files (-1: one cannot be read, or another size). */
static long differ(const char *a, const char *b)
{
    pr_image x, y;
    char why[256];
    if (pr_read(a, &x, why, sizeof why)) return fprintf(stderr, "%s\n", why), -1;
    if (pr_read(b, &y, why, sizeof why)) return pr_free(&x), fprintf(stderr, "%s\n", why), -1;
    long bad = x.w != y.w || x.h != y.h ? -1 : 0;
    for (unsigned i = 0; bad >= 0 && i < x.w * x.h * 3; i++) bad += x.rgb[i] != y.rgb[i];
    pr_free(&x);
    pr_free(&y);
    return bad;
}

/* _i: Gray-Scott's v in double, chan3's q in float through the slice k = 3. */
START_TEST(picture_of_one_field)
{
    const prog_case *pc = &tp_cases[_i ? 7 : 2];
    const char *field = _i ? "q" : "v", *other = _i ? "p" : "u";
    int dbl = !_i, sd = _i ? 2 : -1;
    long si = _i ? 3 : 0;
    char dir[256], got[320], want[320], wrong[320];
    tu_scratch_make(MPI_COMM_WORLD, "prog-png", dir, sizeof dir);
    ck_assert(dir[0]);
    snprintf(got, sizeof got, "%s/got.png", dir);
    snprintf(want, sizeof want, "%s/want.png", dir);
    snprintf(wrong, sizeof wrong, "%s/wrong.png", dir);
    tp_env e;
    tp_begin(&e, pc, dbl, 1);
    pick k = {.c = e.c, .field = field, .path = got, .slice_dim = sd, .slice_index = si, .rc = 1};
    e.o.user = &k;
    ck_assert_int_eq(stencil_program_skeleton(MPI_COMM_WORLD, pc->n, e.p,
                                              dbl ? STENCIL_DOUBLE : STENCIL_FLOAT, 4, init,
                                              picture_of, &e.o),
                     0);
    ck_assert_int_eq(sum_long(k.shown), nranks);
    ck_assert_int_eq(sum_long(k.rc), 0);
    long bad = 0, other_bad = 0;
    if (rank == 0) {
        for (long t = 0; t < 4; t++) ref_step(&e.R, t);
        int f = stencil_program_find_field(e.p, field), g = stencil_program_find_field(e.p, other);
        int rc = reference_png(&e.R, f, want, sd, si) || reference_png(&e.R, g, wrong, sd, si);
        bad = rc ? -1 : differ(got, want); /* no assertion on one rank: the others would wait */
        other_bad = rc ? -1 : differ(got, wrong);
    }
    MPI_Bcast(&bad, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Bcast(&other_bad, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    ck_assert_msg(bad == 0, "%ld bytes of the picture of %s differ from the reference's", bad,
                  field);
    ck_assert_msg(other_bad > 0, "the picture of %s is also that of %s", field, other);
    const char *names[] = {"got.png", "want.png", "wrong.png"};
    tu_scratch_remove(MPI_COMM_WORLD, dir, names, 3);
    tp_end(&e);
}
END_TEST

static void add_tests(TCase *tc)
{
    tcase_add_loop_test(tc, picture_of_one_field, 0, 2);
}

int main(int argc, char **argv)
{
    return tp_main(argc, argv, "program pictures", add_tests, &rank, &nranks);
}
