/*
 * Programs, analysis when a block closes: which fields each update reads and how far, so that
 *   - each field's halo is exact: the union of the offsets at which any update reads it (a field
 *     read only at offset 0 has none), separately for its previous level;
 *   - each evolving field's fixed frame is exact: on a fixed face, the cells its update would
 *     read across that face keep their values (the width is how far the update reads any field
 *     towards the face, lets included);
 *   - a boundary is consistent: periodic on both sides or neither, and no update reads a field
 *     beyond a face where that field is fixed (it has no values there).
 */
#include <stdlib.h>
#include <string.h>

#include "prog.h"

/* How far an expression reads each field: r[field][level][dim][side], any[field][level]. */
typedef struct reads {
    int any[KGT_PROG_MAX_FIELDS][2];
    int r[KGT_PROG_MAX_FIELDS][2][KGT_MAX_DIMS][2];
    const kgt_pnode *first[KGT_PROG_MAX_FIELDS][2][KGT_MAX_DIMS][2]; /* a read reaching there */
} reads;

static void merge(reads *to, const reads *from)
{
    for (int f = 0; f < KGT_PROG_MAX_FIELDS; f++)
        for (int l = 0; l < 2; l++) {
            to->any[f][l] |= from->any[f][l];
            for (int d = 0; d < KGT_MAX_DIMS; d++)
                for (int s = 0; s < 2; s++)
                    if (from->r[f][l][d][s] > to->r[f][l][d][s]) {
                        to->r[f][l][d][s] = from->r[f][l][d][s];
                        to->first[f][l][d][s] = from->first[f][l][d][s];
                    }
        }
}

static void walk(const kgt_pnode *n, const reads *lets, reads *out)
{
    if (n->kind == KP_LET) {
        merge(out, &lets[n->ref]);
        return;
    }
    if (n->kind == KP_READ) {
        out->any[n->ref][n->prev] = 1;
        for (int d = 0; d < KGT_MAX_DIMS; d++) {
            int s = n->off[d] > 0, w = abs(n->off[d]);
            if (w > out->r[n->ref][n->prev][d][s]) {
                out->r[n->ref][n->prev][d][s] = w;
                out->first[n->ref][n->prev][d][s] = n;
            }
        }
        return;
    }
    for (int i = 0; i < 3; i++)
        if (n->a[i]) walk(n->a[i], lets, out);
}

static const char *const kind_names[] = {"fixed", "periodic", "mirror", "constant"};

/* Periodic on both sides or neither; the message points at the face made periodic. */
static int check_periodic(const kgt_prog *p, kgt_perr *e)
{
    for (int f = 0; f < p->nf; f++)
        for (int d = 0; d < p->ndims; d++) {
            const kgt_bface *bc = p->f[f].bc[d];
            int a = bc[0].kind == KGT_B_PERIODIC, b = bc[1].kind == KGT_B_PERIODIC;
            if (a != b)
                return kgt_perr_set(e, bc[!a].line, bc[!a].col,
                                    "field '%s' is periodic on %c%c but not on %c%c", p->f[f].name,
                                    kgt_prog_dim_names[d], a ? '-' : '+', kgt_prog_dim_names[d],
                                    a ? '+' : '-');
        }
    return 0;
}

/* The update of f reads across its non-fixed faces: the fields read there must have values. */
static int check_across(const kgt_prog *p, int f, const reads *u, kgt_perr *e)
{
    const kgt_pfield *fd = &p->f[f];
    for (int d = 0; d < p->ndims; d++)
        for (int s = 0; s < 2; s++) {
            if (fd->bc[d][s].kind == KGT_B_FIXED) continue;
            for (int g = 0; g < p->nf; g++)
                for (int l = 0; l < 2; l++) {
                    const kgt_pnode *n = u->first[g][l][d][s];
                    if (!u->r[g][l][d][s] || p->f[g].bc[d][s].kind != KGT_B_FIXED) continue;
                    return kgt_perr_set(e, n->line, n->col,
                                        "the update of '%s' reads '%s' beyond face %c%c (%s for "
                                        "'%s'), where '%s' is fixed",
                                        fd->name, p->f[g].name, kgt_prog_dim_names[d],
                                        s ? '+' : '-', kind_names[fd->bc[d][s].kind], fd->name,
                                        p->f[g].name);
                }
        }
    return 0;
}

int kgt_prog_analyse(kgt_prog *p, int line, kgt_perr *e)
{
    reads *lets = calloc((size_t)p->nlet + 1, sizeof *lets), *u = lets + p->nlet;
    int rc = 0;
    if (!lets) return kgt_perr_set(e, line, 1, "out of memory");
    if ((rc = check_periodic(p, e))) goto done;
    for (int i = 0; i < p->nlet; i++) walk(p->let[i].e, lets, &lets[i]);
    for (int f = 0; f < p->nf; f++) {
        kgt_pfield *fd = &p->f[f];
        if (fd->coef) continue;
        memset(u, 0, sizeof *u);
        walk(fd->update, lets, u);
        for (int g = 0; g < p->nf; g++) {
            kgt_pfield *gd = &p->f[g];
            gd->read |= u->any[g][0];
            gd->pread |= u->any[g][1];
            for (int d = 0; d < p->ndims; d++)
                for (int s = 0; s < 2; s++) {
                    int a = u->r[g][0][d][s], b = u->r[g][1][d][s];
                    if (a > gd->reach[d][s]) gd->reach[d][s] = a;
                    if (b > gd->preach[d][s]) gd->preach[d][s] = b;
                    if (a > fd->frame[d][s]) fd->frame[d][s] = a;
                    if (b > fd->frame[d][s]) fd->frame[d][s] = b;
                }
        }
        if ((rc = check_across(p, f, u, e))) goto done;
    }
done:
    free(lets);
    return rc;
}
