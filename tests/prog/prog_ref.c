/* Helpers of the program tests (prog_ref.h). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cksuite.h"
#include "prog_ref.h"

double value(int f, int lv, const long *g, int binary)
{
    unsigned long h = 2166136261UL ^ (unsigned long)(f * 7 + lv + 3);
    for (int d = 0; d < 3; d++) h = (h ^ (unsigned long)(g[d] + 1)) * 16777619UL % 4294967296UL;
    h = h * 2654435761UL % 4294967296UL;
    double x = (double)(h >> 8) / 16777216.0;
    return binary ? (x < 0.4) : x;
}

static size_t cell_of(const stencil_tile *t, const long *x)
{
    size_t i = 0;
    for (int d = 0; d < t->ndims; d++) i += (size_t)(x[d] * t->stride[d]);
    return i;
}

static long gindex(const long *n, int nd, const long *g)
{
    long i = 0;
    for (int d = 0; d < nd; d++) i = i * n[d] + g[d];
    return i;
}

/* Calls fn for every owned cell of a tile: i its element, g its global index. */
typedef void (*cell_fn)(const stencil_tile *t, size_t i, const long *g, ctx *c, int f);
static void each_cell(const stencil_tile *t, cell_fn fn, ctx *c, int f)
{
    long x[3] = {0, 0, 0}, g[3] = {0, 0, 0}, n[3] = {1, 1, 1};
    for (int d = 0; d < t->ndims; d++) n[d] = t->size[d];
    for (x[0] = 0; x[0] < n[0]; x[0]++)
        for (x[1] = 0; x[1] < n[1]; x[1]++)
            for (x[2] = 0; x[2] < n[2]; x[2]++) {
                for (int d = 0; d < 3; d++) g[d] = x[d] + (d < t->ndims ? t->offset[d] : 0);
                fn(t, cell_of(t, x), g, c, f);
            }
}

static void init_cell(const stencil_tile *t, size_t i, const long *g, ctx *c, int f)
{
    double v = value(f, t->level, g, c->binary);
    if (t->type == STENCIL_DOUBLE)
        ((double *)t->data)[i] = v;
    else
        ((float *)t->data)[i] = (float)v;
}

int init(stencil_tile *t, void *user)
{
    ctx *c = user;
    int f = stencil_program_find_field(c->prog, t->field);
    if (f < 0) return 1;
    each_cell(t, init_cell, c, f);
    return 0;
}

static void check_cell(const stencil_tile *t, size_t i, const long *g, ctx *c, int f)
{
    long k = gindex(t->global_size, t->ndims, g);
    int same = c->dbl ? !memcmp(&((double *)t->data)[i], &((double *)c->ref[f])[k], sizeof(double))
                      : !memcmp(&((float *)t->data)[i], &((float *)c->ref[f])[k], sizeof(float));
    c->bad += !same;
    c->seen++;
}

int check_out(const stencil_tile *t, void *user)
{
    ctx *c = user;
    int f = stencil_program_find_field(c->prog, t->field);
    if (f < 0) return 1;
    each_cell(t, check_cell, c, f);
    return 0;
}

void ref_init(ref *R, const prog_case *pc, int dbl)
{
    kgt_perr e;
    memset(R, 0, sizeof *R);
    R->p = kgt_prog_parse_string(pc->text, &e);
    ck_assert_msg(R->p, "%d:%d: %s", e.line, e.col, e.msg);
    R->dbl = dbl;
    R->total = 1;
    for (int d = 0; d < R->p->ndims; d++) R->n[d] = pc->n[d], R->total *= pc->n[d];
    size_t es = dbl ? sizeof(double) : sizeof(float);
    for (int f = 0; f < R->p->nf; f++) {
        R->cur[f] = malloc((size_t)R->total * es);
        R->prev[f] = malloc((size_t)R->total * es);
        R->out[f] = malloc((size_t)R->total * es);
        for (long i = 0; i < R->total; i++) {
            long g[3] = {0, 0, 0};
            for (long k = i, d = R->p->ndims - 1; d >= 0; d--) g[d] = k % R->n[d], k /= R->n[d];
            for (int lv = 0; lv >= -1; lv--) {
                double v = value(f, lv, g, pc->binary);
                void *a = lv ? R->prev[f] : R->cur[f];
                if (dbl)
                    ((double *)a)[i] = v;
                else
                    ((float *)a)[i] = (float)v;
            }
        }
    }
    for (int i = 0; i < R->p->npar; i++) R->par[i] = R->p->par[i].value;
}

static double rget(const ref *R, const void *a, long i)
{
    return R->dbl ? ((const double *)a)[i] : ((const float *)a)[i];
}

void ref_step(ref *R, long t)
{
    double par[KGT_PROG_MAX_PARAMS];
    for (int i = 0; i < R->p->npar; i++) par[i] = R->dbl ? R->par[i] : (float)R->par[i];
    ck_assert_int_eq(kgt_prog_eval_step(R->p, R->dbl, R->n, t, par, R->cur, R->prev, R->out), 0);
    for (int f = 0; f < R->p->nf; f++) {
        if (R->p->f[f].coef) continue;
        double s = 0, m = 0;
        for (long i = 0; i < R->total; i++) {
            double d = rget(R, R->out[f], i) - rget(R, R->cur[f], i);
            s += d * d;
            m = fabs(d) > m ? fabs(d) : m;
        }
        R->l2[f] = sqrt(s), R->max[f] = m;
        void *old = R->prev[f];
        R->prev[f] = R->cur[f];
        R->cur[f] = R->out[f];
        R->out[f] = old;
    }
}

void ref_free(ref *R)
{
    for (int f = 0; f < R->p->nf; f++) free(R->cur[f]), free(R->prev[f]), free(R->out[f]);
    kgt_prog_free(R->p);
}

long sum_long(long v)
{
    long s;
    MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

stencil_program *parse(const char *text)
{
    char msg[256];
    stencil_program *p = NULL;
    int rc = stencil_program_parse(text, &p, msg, sizeof msg);
    ck_assert_msg(rc == 0, "parse: %s", msg);
    return p;
}

const char *test_backend(void)
{
    const char *b = getenv("STENCIL_BACKEND");
    return b && b[0] ? b : "host";
}

void opts(stencil_options *o, int blocks)
{
    stencil_options_init(o);
    o->backend = test_backend();
    o->partition = blocks ? STENCIL_PART_BLOCKS : STENCIL_PART_BANDS;
    o->quiet = 1;
}

int tp_main(int argc, char **argv, const char *name, void (*add)(TCase *), int *rank, int *nranks)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, nranks);
    Suite *s = suite_create(name);
    TCase *tc = tcase_create("prog");
    tcase_set_timeout(tc, 600);
    add(tc);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    MPI_Finalize();
    return failed != 0;
}

void tp_begin(tp_env *e, const prog_case *pc, int dbl, int blocks)
{
    memset(e, 0, sizeof *e);
    e->p = parse(pc->text);
    ref_init(&e->R, pc, dbl);
    e->c.prog = e->p;
    e->c.binary = pc->binary;
    e->c.dbl = dbl;
    opts(&e->o, blocks);
    e->o.user = &e->c;
}

void tp_end(tp_env *e)
{
    ref_free(&e->R);
    stencil_program_free(e->p);
}

void tp_persistent(tp_env *e, const long *n, const long *adv, int nadv, stencil_stats *st)
{
    stencil_run *run = NULL;
    stencil_norm nr[KGT_PROG_MAX_FIELDS];
    long t = 0;
    ck_assert_int_eq(
        stencil_program_create(MPI_COMM_WORLD, n, e->p, STENCIL_DOUBLE, init, &e->o, &run), 0);
    for (int i = 0; i < nadv; i++) {
        if (i == nadv - 1 && e->R.p->npar > 0) {
            ck_assert_int_eq(stencil_run_set_param(run, e->R.p->par[0].name, 0.125), 0);
            e->R.par[0] = 0.125;
        }
        if (i < nadv - 1)
            ck_assert_int_eq(stencil_advance(run, adv[i]), 0);
        else
            ck_assert_int_eq(stencil_advance_norms(run, adv[i], nr, KGT_PROG_MAX_FIELDS), 0);
        for (long k = 0; k < adv[i]; k++) ref_step(&e->R, t++);
    }
    for (int f = 0; f < e->R.p->nf; f++) {
        if (e->R.p->f[f].coef) continue;
        ck_assert_msg(nr[f].max == e->R.max[f], "%s field %d max %g, expected %g", e->R.p->name, f,
                      nr[f].max, e->R.max[f]);
        ck_assert_msg(fabs(nr[f].l2 - e->R.l2[f]) <= 1e-12 * (e->R.l2[f] + 1e-300),
                      "%s field %d l2 %.17g, expected %.17g", e->R.p->name, f, nr[f].l2,
                      e->R.l2[f]);
    }
    memcpy(e->c.ref, e->R.cur, sizeof e->c.ref);
    ck_assert_int_eq(stencil_view(run, check_out), 0);
    ck_assert_int_eq(sum_long(e->c.bad), 0);
    ck_assert_int_eq(stencil_run_stats(run, st), 0);
    ck_assert_int_eq(stencil_destroy(&run), 0);
}

void tp_skeleton(tp_env *e, const prog_case *pc, long iters, stencil_stats *st, const char *what)
{
    for (long t = 0; t < iters; t++) ref_step(&e->R, t);
    memcpy(e->c.ref, e->R.cur, sizeof e->c.ref);
    e->o.stats = st;
    int rc = stencil_program_skeleton(MPI_COMM_WORLD, pc->n, e->p,
                                      e->c.dbl ? STENCIL_DOUBLE : STENCIL_FLOAT, iters, init,
                                      check_out, &e->o);
    ck_assert_msg(rc == 0, "%s %s: %s", e->R.p->name, what, stencil_strerror(rc));
    long bad = sum_long(e->c.bad), seen = sum_long(e->c.seen);
    ck_assert_msg(bad == 0, "%s %s %s %s: %ld of %ld cells differ", e->R.p->name, what,
                  e->c.dbl ? "double" : "float",
                  e->o.partition == STENCIL_PART_BLOCKS ? "blocks" : "bands", bad, seen);
    ck_assert_int_eq(seen, e->R.total * stencil_program_nfields(e->p));
}

void tp_grid_init(tp_grid *g, const tp_env *e)
{
    memset(g, 0, sizeof *g);
    g->c = e->c;
    g->total = e->R.total;
    g->es = e->c.dbl ? sizeof(double) : sizeof(float);
    for (int f = 0; f < e->R.p->nf; f++) g->a[f] = calloc((size_t)g->total, g->es);
}

/* c is the first member of a tp_grid. */
static void grid_cell(const stencil_tile *t, size_t i, const long *g, ctx *c, int f)
{
    tp_grid *G = (tp_grid *)c;
    long k = gindex(t->global_size, t->ndims, g);
    memcpy(G->a[f] + (size_t)k * G->es, (const char *)t->data + i * G->es, G->es);
}

void tp_grid_pair(tp_grid *a, tp_grid *b, const tp_env *e)
{
    tp_grid_init(a, e);
    tp_grid_init(b, e);
}

void tp_whole_tile(stencil_tile *t, const ref *R, void *data, const char *field)
{
    memset(t, 0, sizeof *t);
    t->type = R->dbl ? STENCIL_DOUBLE : STENCIL_FLOAT;
    t->ndims = R->p->ndims;
    for (int d = 0; d < 3; d++) t->global_size[d] = t->size[d] = d < t->ndims ? R->n[d] : 1;
    t->stride[2] = 1;
    t->stride[1] = t->size[2];
    t->stride[0] = t->size[1] * t->size[2];
    for (int d = 0; d < t->ndims; d++) t->boundary_lo[d] = t->boundary_hi[d] = 1;
    t->data = data;
    t->field = field;
}

void tp_grid_check(const tp_grid *g, const ref *R, ctx *c)
{
    memcpy(c->ref, R->cur, sizeof c->ref);
    c->bad = c->seen = 0;
    for (int f = 0; f < R->p->nf; f++) {
        stencil_tile t;
        tp_whole_tile(&t, R, g->a[f], R->p->f[f].name);
        check_out(&t, c);
    }
}

int tp_grid_out(const stencil_tile *t, void *user)
{
    tp_grid *g = user;
    int f = stencil_program_find_field(g->c.prog, t->field);
    if (f < 0 || !g->a[f]) return 1;
    each_cell(t, grid_cell, &g->c, f);
    return 0;
}

void tp_grid_sync(tp_grid *g, MPI_Comm comm)
{
    for (int f = 0; f < KGT_PROG_MAX_FIELDS; f++)
        if (g->a[f])
            MPI_Allreduce(MPI_IN_PLACE, g->a[f], (int)((size_t)g->total * g->es), MPI_BYTE, MPI_BOR,
                          comm);
}

long tp_grid_diff(const tp_grid *a, const tp_grid *b)
{
    long bad = 0;
    for (int f = 0; f < KGT_PROG_MAX_FIELDS; f++)
        for (size_t i = 0; a->a[f] && b->a[f] && i < (size_t)a->total * a->es; i++)
            bad += a->a[f][i] != b->a[f][i];
    return bad;
}

void tp_grid_free(tp_grid *g)
{
    for (int f = 0; f < KGT_PROG_MAX_FIELDS; f++) free(g->a[f]);
    memset(g, 0, sizeof *g);
}
