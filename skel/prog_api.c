/*
 * The public calls of programs (stencil.h, "Programs"): a stencil_program is the parsed
 * program, its text (each run parses its own copy, so a program may be freed while its runs
 * go on) and the parameters' current values.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skprog.h"

struct stencil_program {
    kgt_prog *p;
    char *text;
    double par[KGT_PROG_MAX_PARAMS];
};

int stencil_program_parse(const char *text, stencil_program **prog, char *msg, size_t msglen)
{
    kgt_perr e;
    if (prog) *prog = NULL;
    if (!text || !prog) {
        if (msg && msglen) snprintf(msg, msglen, "%s is NULL", !text ? "text" : "prog");
        return STENCIL_EINVAL;
    }
    stencil_program *g = calloc(1, sizeof *g);
    if (g) g->text = malloc(strlen(text) + 1);
    if (!g || !g->text) {
        free(g);
        if (msg && msglen) snprintf(msg, msglen, "out of memory");
        return STENCIL_ENOMEM;
    }
    strcpy(g->text, text);
    memset(&e, 0, sizeof e);
    g->p = kgt_prog_parse_string(text, &e);
    if (!g->p) {
        if (msg && msglen) snprintf(msg, msglen, "%d:%d: %s", e.line, e.col, e.msg);
        free(g->text);
        free(g);
        return STENCIL_EFORMAT;
    }
    for (int i = 0; i < g->p->npar; i++) g->par[i] = g->p->par[i].value;
    if (msg && msglen) msg[0] = 0;
    *prog = g;
    return 0;
}

void stencil_program_free(stencil_program *prog)
{
    if (!prog) return;
    kgt_prog_free(prog->p);
    free(prog->text);
    free(prog);
}

int stencil_program_ndims(const stencil_program *prog)
{
    return prog ? prog->p->ndims : STENCIL_EINVAL;
}

const char *stencil_program_name(const stencil_program *prog)
{
    return prog ? prog->p->name : NULL;
}

int stencil_program_nfields(const stencil_program *prog)
{
    return prog ? prog->p->nf : STENCIL_EINVAL;
}

const char *stencil_program_field(const stencil_program *prog, int i)
{
    return prog && i >= 0 && i < prog->p->nf ? prog->p->f[i].name : NULL;
}

int stencil_program_find_field(const stencil_program *prog, const char *name)
{
    return prog && name ? kgt_prog_find_field(prog->p, name) : -1;
}

int stencil_program_is_coef(const stencil_program *prog, int i)
{
    if (!prog || i < 0 || i >= prog->p->nf) return STENCIL_EINVAL;
    return prog->p->f[i].coef != 0;
}

static int find_param(const kgt_prog *p, const char *name)
{
    for (int i = 0; name && i < p->npar; i++)
        if (!strcmp(p->par[i].name, name)) return i;
    return -1;
}

int stencil_program_set_param(stencil_program *prog, const char *name, double value)
{
    if (!prog) return STENCIL_EINVAL;
    int i = find_param(prog->p, name);
    if (i < 0 || !isfinite(value)) return STENCIL_EINVAL;
    prog->par[i] = value;
    return 0;
}

int stencil_program_get_param(const stencil_program *prog, const char *name, double *value)
{
    if (!prog || !value) return STENCIL_EINVAL;
    int i = find_param(prog->p, name);
    if (i < 0) return STENCIL_EINVAL;
    *value = prog->par[i];
    return 0;
}

/*
 * After set-up (which agreed on the program's text): every rank passed the same parameter
 * values, else each rank would compute another problem. All KGT_PROG_MAX_PARAMS slots are
 * reduced, so that the call is the same on every rank.
 */
static int same_values(sk_run *r, const stencil_program *prog)
{
    enum { N = KGT_PROG_MAX_PARAMS };
    double v[2 * N], m[2 * N];
    for (int i = 0; i < N; i++) {
        v[i] = i < prog->p->npar ? prog->par[i] : 0.0;
        v[N + i] = -v[i];
    }
    if (MPI_Allreduce(v, m, 2 * N, MPI_DOUBLE, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (parameters)");
    for (int i = 0; i < prog->p->npar; i++)
        if (m[i] != -m[N + i])
            return SK_FAIL(r, STENCIL_EINVAL, "ranks passed different values of parameter '%s'",
                           prog->p->par[i].name);
    return 0;
}

int stencil_program_create(MPI_Comm comm, const long *sizes, const stencil_program *prog,
                           stencil_type type, stencil_init_fn init, const stencil_options *opt,
                           stencil_run **run)
{
    sk_run *r;
    if (!run) return STENCIL_EINVAL;
    *run = NULL;
    int rc = sk_new(comm, opt, &r);
    if (rc) return rc;
    if (!prog)
        rc = SK_FAIL(r, STENCIL_EINVAL, "the program is NULL");
    else
        rc = sk_prog_setup(r, sizes, prog->text, prog->par, type, init, 0);
    rc = err_agree(r->comm, rc, r->msg, sizeof r->msg);
    SK_PHASE(r, rc, same_values(r, prog));
    stencil_run *h = rc ? NULL : malloc(sizeof *h);
    if (!rc && !h) rc = STENCIL_ENOMEM;
    rc = err_agree(r->comm, rc, r->msg, sizeof r->msg);
    if (rc) {
        sk_report(r, rc);
        free(h);
        sk_free(r);
        return rc;
    }
    h->r = r;
    *run = h;
    return 0;
}

/* As stencil_skeleton: periodic checkpoints, a restart from options.checkpoint, statistics. */
int stencil_program_skeleton(MPI_Comm comm, const long *sizes, const stencil_program *prog,
                             stencil_type type, long iterations, stencil_init_fn init,
                             stencil_output_fn output, const stencil_options *opt)
{
    sk_run *r;
    if (opt && opt->stats) memset(opt->stats, 0, sizeof *opt->stats);
    int rc = sk_new(comm, opt, &r);
    if (rc) return rc;
    r->iters = r->goal = iterations;
    if (!prog)
        rc = SK_FAIL(r, STENCIL_EINVAL, "the program is NULL");
    else if (iterations < 0) /* as sk_setup for a stencil: sk_periodic would run none */
        rc = SK_FAIL(r, STENCIL_EINVAL, "negative iteration count %ld", iterations);
    else
        rc = sk_prog_setup(r, sizes, prog->text, prog->par, type, init, 0);
    rc = err_agree(r->comm, rc, r->msg, sizeof r->msg);
    SK_PHASE(r, rc, same_values(r, prog));
    return sk_skeleton_finish(r, rc, iterations, output);
}

/* The same name and value on every rank, else STENCIL_EINVAL everywhere. */
static int same_param(sk_run *r, const char *name, double value)
{
    int rc = sk_same_text(r, name ? name : "", "parameter names");
    if (rc) return rc;
    double v[2] = {value, -value}, m[2];
    if (MPI_Allreduce(v, m, 2, MPI_DOUBLE, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (parameter)");
    if (m[0] != -m[1] || isnan(value))
        return SK_FAIL(r, STENCIL_EINVAL, "ranks passed different values of parameter '%s'",
                       name ? name : "");
    return 0;
}

int stencil_run_set_param(stencil_run *run, const char *name, double value)
{
    if (!run || !run->r) return STENCIL_EINVAL;
    sk_run *r = run->r;
    int rc = 0;
    SK_PHASE(r, rc, r->prog ? 0 : SK_FAIL(r, STENCIL_EINVAL, "not a program run: no parameters"));
    SK_PHASE(r, rc, same_param(r, name, value));
    if (!rc) {
        int i = find_param(r->prog->p, name);
        if (i < 0) rc = SK_FAIL(r, STENCIL_EINVAL, "unknown parameter '%s'", name ? name : "");
        if (!rc && !isfinite(value))
            rc = SK_FAIL(r, STENCIL_EINVAL, "parameter '%s': value is not finite", name);
        if (!rc) r->prog->par[i] = value;
    }
    return sk_report(r, rc);
}

int stencil_advance_norms(stencil_run *run, long n, stencil_norm *changes, int nchanges)
{
    if (!run || !run->r) return STENCIL_EINVAL;
    sk_run *r = run->r;
    int rc = 0, need = r->prog ? r->prog->p->nf : 1;
    SK_PHASE(r, rc,
             !changes || nchanges < need
                 ? SK_FAIL(r, STENCIL_EINVAL, "changes has %d entries, the run needs %d",
                           changes ? nchanges : 0, need)
                 : 0);
    if (rc) return sk_report(r, rc);
    if (!r->prog) return stencil_advance_norm(run, n, changes);
    return sk_report(r, sk_advance_prog(r, n, changes, nchanges));
}
