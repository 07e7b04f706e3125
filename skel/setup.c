/*
 * Set-up of a run (sk_new, sk_setup): validate, partition, open the device, allocate, initialise;
 * sk_release and sk_free undo it. Every phase ends in err_agree(), so a failure on any rank
 * becomes the same error on all ranks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "skprog.h"

static int sk_check_args(sk_run *r, const long *sizes, const stencil_desc *st, long iters,
                         stencil_init_fn init, int resume)
{
    if (!sizes || !st || (!init && !resume))
        return SK_FAIL(r, STENCIL_EINVAL, "%s is NULL",
                       !sizes ? "sizes"
                       : !st  ? "stencil description"
                              : "init callback");
    if (iters < 0) return SK_FAIL(r, STENCIL_EINVAL, "negative iteration count %ld", iters);
    int rc = sl_stencil_make(&r->st, st, r->msg, sizeof r->msg);
    if (rc) return rc;
    for (int d = 0; d < st->ndims; d++)
        if (sizes[d] <= 0)
            return SK_FAIL(r, STENCIL_EINVAL, "size of dimension %d is %ld", d, sizes[d]);
    if (r->opt.partition != STENCIL_PART_BANDS && r->opt.partition != STENCIL_PART_BLOCKS)
        return SK_FAIL(r, STENCIL_EINVAL, "unknown partition kind %d", (int)r->opt.partition);
    if (r->opt.boundary != STENCIL_BOUNDARY_FIXED && r->opt.boundary != STENCIL_BOUNDARY_PERIODIC)
        return SK_FAIL(r, STENCIL_EINVAL, "unknown boundary mode %d", (int)r->opt.boundary);
    if (r->opt.fuse < 0 || r->opt.fuse > STENCIL_MAX_STEPS)
        return SK_FAIL(r, STENCIL_EINVAL, "options.fuse is %d, not in 0..%d", r->opt.fuse,
                       STENCIL_MAX_STEPS);
    if (r->opt.steps < 0 || r->opt.steps > STENCIL_MAX_STEPS)
        return SK_FAIL(r, STENCIL_EINVAL, "options.steps is %d, not in 0..%d", r->opt.steps,
                       STENCIL_MAX_STEPS);
    if (r->opt.monitor_every < 0 || r->opt.checkpoint_every < 0)
        return SK_FAIL(r, STENCIL_EINVAL, "options.%s is %ld, not 0 (off) or positive",
                       r->opt.monitor_every < 0 ? "monitor_every" : "checkpoint_every",
                       r->opt.monitor_every < 0 ? r->opt.monitor_every : r->opt.checkpoint_every);
    return 0;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ULL;
    return h;
}

/*
 * Ranks that disagree on the problem, or on an option that steers a collective path, would
 * deadlock or compute nonsense: refuse it up front, in this one place. Hashed per group, so that
 * the message names the group: the problem (sizes, iterations, stencil, partition, boundary,
 * process grid, kernel), options.rank_weights and weights_auto (the partition), and the
 * periodic work (monitor and checkpoint, their periods and the checkpoint path). options.fuse
 * is agreed by taking the largest (steps.c), restart with the checkpoint (sk_resuming); the
 * rest (backend, device, device_memory, out_of_core, progress, trace, serialize) may differ.
 * h[0] is the caller's problem hash.
 */
static int sk_compare(sk_run *r, uint64_t h[3])
{
    static const char *const group[3] = {
        "sizes, stencil, iterations, kernel, partition, boundary or proc_grid",
        "options.rank_weights or weights_auto",
        "options.monitor, monitor_every, checkpoint or checkpoint_every"};
    uint64_t lo[3], hi[3];
    int wv[2] = {r->opt.rank_weights != NULL, r->opt.weights_auto != 0};
    h[1] = fnv(h[1], wv, sizeof wv);
    if (r->opt.rank_weights)
        h[1] = fnv(h[1], r->opt.rank_weights, sizeof *r->opt.rank_weights * (size_t)r->size);
    long pv[4] = {r->opt.monitor != NULL, r->opt.monitor ? r->opt.monitor_every : 0,
                  r->opt.checkpoint != NULL, r->opt.checkpoint ? r->opt.checkpoint_every : 0};
    h[2] = fnv(h[2], pv, sizeof pv);
    if (r->opt.checkpoint) h[2] = fnv(h[2], r->opt.checkpoint, strlen(r->opt.checkpoint));
    if (MPI_Allreduce(h, lo, 3, MPI_UINT64_T, MPI_MIN, r->comm) != MPI_SUCCESS ||
        MPI_Allreduce(h, hi, 3, MPI_UINT64_T, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed while comparing arguments");
    for (int g = 0; g < 3; g++)
        if (lo[g] != hi[g])
            return SK_FAIL(r, STENCIL_EINVAL, "ranks passed different %s", group[g]);
    return 0;
}

static int sk_check_same(sk_run *r, const long *sizes, const char *kernel)
{
    const uint64_t seed = 14695981039346656037ULL;
    uint64_t h[3] = {seed, seed, seed};
    h[0] = fnv(h[0], sizes, sizeof *sizes * (size_t)r->st.ndims);
    h[0] = fnv(h[0], &r->iters, sizeof r->iters);
    h[0] = fnv(h[0], &r->st.npts, sizeof r->st.npts);
    h[0] = fnv(h[0], r->st.off, sizeof *r->st.off * (size_t)r->st.npts);
    h[0] = fnv(h[0], r->st.w, sizeof *r->st.w * (size_t)r->st.npts);
    h[0] = fnv(h[0], &r->st.divisor, sizeof r->st.divisor);
    h[0] = fnv(h[0], &r->st.type, sizeof r->st.type);
    h[0] = fnv(h[0], &r->opt.partition, sizeof r->opt.partition);
    h[0] = fnv(h[0], &r->opt.boundary, sizeof r->opt.boundary);
    h[0] = fnv(h[0], r->opt.proc_grid, sizeof r->opt.proc_grid);
    h[0] = fnv(h[0], kernel ? kernel : "", kernel ? strlen(kernel) : 0);
    return sk_compare(r, h);
}

/* Program runs, whose text, sizes and partition prog_setup.c agrees on: the rest as above. */
int sk_check_same_options(sk_run *r)
{
    const uint64_t seed = 14695981039346656037ULL;
    uint64_t h[3] = {seed, seed, seed};
    h[0] = fnv(h[0], &r->iters, sizeof r->iters);
    return sk_compare(r, h);
}

const sb_ops *sk_planned_backend(const sk_run *r)
{
    return strcmp(r->cfg.backend, "auto") != 0 ? sb_find(r->cfg.backend) : sb_auto(0);
}

static int sk_setup_layout(sk_run *r, const long *sizes, const stencil_kernel *named)
{
    long g[SL_D] = {1, 1, 1};
    int pgrid[SL_D];
    for (int d = 0; d < r->st.ndims; d++) g[d] = sizes[d];
    int rc = sl_grid_choose(r->st.ndims, g, r->size, r->opt.partition, r->opt.proc_grid, pgrid,
                            r->msg, sizeof r->msg);
    return rc ? rc : sk_setup_steps(r, g, pgrid, named);
}

/* Node-local rank (device selection) and this rank's backend, device and weight. */
int sk_node_config(sk_run *r)
{
    MPI_Comm node;
    int rc = MPI_Comm_split_type(r->comm, MPI_COMM_TYPE_SHARED, r->rank, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS)
        return err_mpi(r->msg, sizeof r->msg, STENCIL_EMPI, rc, "MPI_Comm_split_type");
    MPI_Comm_rank(node, &r->local_rank);
    MPI_Comm_size(node, &r->local_size);
    MPI_Comm_free(&node);
    return sk_config_resolve(r, r->local_rank);
}

static int sk_try_open(sk_run *r, const sb_ops *ops, const sb_open_args *a)
{
    memset(&r->dev, 0, sizeof r->dev);
    r->dev.ops = ops;
    int rc = ops->open(&r->dev, a);
    if (rc) return SK_FAIL(r, rc, "%s backend: %s", ops->name, r->dev.err);
    r->dev_open = 1;
    if (!r->dev.kernel[0])
        snprintf(r->dev.kernel, sizeof r->dev.kernel, "%s", a->named ? "named" : "generic");
    r->stats.t_compile += r->dev.t_compile;
    return 0;
}

/*
 * A backend's notice (a run-time kernel that fell back to the generic one): printed once per
 * call by rank 0, with how many ranks it concerns. Collective; never an error.
 */
int sk_notice(sk_run *r)
{
    int mine = r->dev.note[0] != 0, n = 0;
    if (r->noticed || MPI_Allreduce(&mine, &n, 1, MPI_INT, MPI_SUM, r->comm) != MPI_SUCCESS)
        return 0;
    r->noticed = n > 0;
    if (r->rank == 0 && n > 0)
        fprintf(stderr, "libstencil: %s (%d of %d ranks)\n",
                mine ? r->dev.note : "a run-time kernel fell back to the generic kernel", n,
                r->size);
    return 0;
}

/* "auto" (the default) takes the first of the registry's candidates that opens (sb_auto). */
static int sk_open_backend(sk_run *r, const stencil_kernel *named)
{
    const char *name = r->cfg.backend;
    sb_open_args a = {.peer = r->opt.peer != 0,
                      .device = r->cfg.device,
                      .local_rank = r->local_rank,
                      .local_size = r->local_size,
                      .st = &r->st,
                      .named = named,
                      .local = &r->loc,
                      .stamps = sk_trace_slots(r),
                      .steps = r->steps};
    if (strcmp(name, "auto") != 0) {
        const sb_ops *ops = sb_find(name);
        if (!ops)
            return SK_FAIL(r, STENCIL_ENOBACKEND, "backend '%s' is not built in (built: %s)", name,
                           sb_names());
        return sk_try_open(r, ops, &a);
    }
    int rc = 0;
    for (int i = 0; sb_auto(i); i++)
        if ((rc = sk_try_open(r, sb_auto(i), &a)) == 0) return 0;
    return rc;
}

static int sk_find_named(sk_run *r, const char *kernel, const stencil_kernel **named)
{
    return sk_named_for(kernel, &r->st, named, r->msg, sizeof r->msg);
}

int sk_alloc(sk_run *r)
{
    size_t bytes = r->loc.nelems * sb_elem_size(r->st.type);
    r->host = calloc(r->loc.nelems ? r->loc.nelems : 1, sb_elem_size(r->st.type));
    if (!r->host)
        return SK_FAIL(r, STENCIL_ENOMEM, "cannot allocate %zu bytes of host memory", bytes);
    for (int i = 0; i < 2; i++) {
        int rc = r->dev.ops->mem_alloc(&r->dev, bytes, &r->buf[i]);
        if (rc) return SK_FAIL(r, rc, "%s", r->dev.err);
    }
    for (int i = 0; i < r->nscr; i++) {
        int rc = r->dev.ops->mem_alloc(&r->dev, bytes, &r->scr[i]);
        if (rc) return SK_FAIL(r, rc, "%s", r->dev.err);
    }
    int rc = sk_exchange_init(&r->x, &r->loc, &r->dev, sb_elem_size(r->st.type));
    return rc ? SK_FAIL(r, rc, "%s", r->dev.err) : 0;
}

/*
 * Scratch arrays for the steps inside a pass (loop.c): none for one step or a fused kernel of T
 * or more steps, one for T = 2, two alternating for T >= 3, and a pair per queue where the queues
 * run concurrently. The opened backend's fused depth also serves out-of-core sweeps.
 */
static int sk_plan_scratch(sk_run *r, const stencil_kernel *named)
{
    const sb_ops *o = r->dev.ops;
    r->depth = o->fuse_depth(&r->st, named);
    r->fused = r->steps >= 2 && r->steps <= r->depth;
    r->nscr = r->steps == 1 || r->fused ? 0 : r->steps == 2 ? 1 : o->async ? 4 : 2;
    return 0;
}

void sk_release(sk_run *r)
{
    sk_ooc_release(r);
    if (r->dev_open) {
        sk_peer_close(r);
        sk_exchange_free(&r->x, &r->dev);
        for (int i = 0; i < 2; i++)
            if (r->buf[i]) r->dev.ops->mem_free(&r->dev, r->buf[i]);
        for (int i = 0; i < r->nscr; i++)
            if (r->scr[i]) r->dev.ops->mem_free(&r->dev, r->scr[i]);
        r->dev.ops->close(&r->dev);
    }
    r->dev_open = 0;
    r->buf[0] = r->buf[1] = NULL;
    memset(r->scr, 0, sizeof r->scr);
    r->nscr = 0;
    free(r->host);
    r->host = NULL;
    sl_partition_free(&r->part);
    memset(&r->part, 0, sizeof r->part);
}

void sk_free(sk_run *r)
{
    if (!r) return;
    sk_trace_free(r);
    sk_prog_free(r);
    sk_release(r);
    free(r->weights);
    sl_stencil_free(&r->st);
    sl_stencil_free(&r->lst);
    if (r->comm != MPI_COMM_NULL) MPI_Comm_free(&r->comm);
    free(r->env.copy);
    free(r);
}

int sk_prepare(sk_run *r, const long *sizes, const stencil_kernel *named)
{
    int rc = 0;
    SK_PHASE(r, rc, sk_setup_layout(r, sizes, named));
    SK_PHASE(r, rc, sk_open_backend(r, named));
    SK_PHASE(r, rc, sk_notice(r));
    SK_PHASE(r, rc, sk_plan_scratch(r, named));
    SK_PHASE(r, rc, sk_alloc_any(r));
    if (rc && sk_ooc_retry(r, rc)) { /* the chunks of a smaller T fit where these did not */
        sk_release(r);
        return sk_prepare(r, sizes, named);
    }
    if (!rc && sk_ooc_again(r)) { /* every rank out of core: again, with the T the probe wants */
        sk_release(r);
        return sk_prepare(r, sizes, named);
    }
    SK_PHASE(r, rc, r->ooc ? sk_ooc_host(r) : 0); /* the host copies, once T is known */
    return rc;
}

/*
 * A restart resumes from options.checkpoint when asked to and the file exists: rank 0 looks, and
 * ranks that disagree on asking (or on the path) fail together rather than take both paths.
 */
int sk_resuming(sk_run *r, int *resume)
{
    const char *ck = r->opt.checkpoint;
    int want = r->opt.restart && ck, v[3] = {want, -want, 0}, m[3];
    if (want && r->rank == 0) v[2] = access(ck, F_OK) == 0;
    *resume = 0;
    if (MPI_Allreduce(v, m, 3, MPI_INT, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (options.restart)");
    if (m[0] != -m[1])
        return SK_FAIL(r, STENCIL_EINVAL, "ranks disagree on options.restart and .checkpoint");
    int rc = want ? sk_same_text(r, ck, "options.checkpoint") : 0;
    *resume = !rc && m[0] && m[2];
    return rc;
}

/* Everything before the loop; r->iters is the iteration count the call plans (a hint). */
int sk_setup(sk_run *r, const long *sizes, const stencil_desc *st, const char *kernel,
             stencil_init_fn init)
{
    const stencil_kernel *named = NULL;
    int rc = 0, resume = 0;
    if (sk_face_any(&r->opt)) return sk_face_setup(r, sizes, st, kernel, init);
    SK_PHASE(r, rc, sk_resuming(r, &resume));
    SK_PHASE(r, rc, sk_check_args(r, sizes, st, r->iters, init, resume));
    if (!rc) rc = sk_check_same(r, sizes, kernel);
    SK_PHASE(r, rc, sk_node_config(r));
    SK_PHASE(r, rc, sk_find_named(r, kernel, &named));
    if (!rc) rc = sk_weights(r, sizes, named);
    if (!rc) rc = sk_prepare(r, sizes, named);
    SK_PHASE(r, rc, sk_peer_setup(r));
    if (!rc && resume) rc = sk_load(r, r->opt.checkpoint);
    if (!resume) SK_PHASE(r, rc, sk_init_data(r, init));
    r->t_up = MPI_Wtime() - r->t0;
    return rc;
}

int sk_new(MPI_Comm comm, const stencil_options *opt, sk_run **out)
{
    *out = NULL;
    sk_run *r = calloc(1, sizeof *r);
    if (!r || comm == MPI_COMM_NULL) {
        free(r);
        return !r ? STENCIL_ENOMEM : STENCIL_EINVAL;
    }
    r->comm = MPI_COMM_NULL;
    r->t0 = MPI_Wtime();
    sk_env_read(&r->env);
    if (opt)
        r->opt = *opt;
    else
        stencil_options_init(&r->opt);
    if (r->opt.steps == 0) r->opt.steps = r->opt.fuse; /* the deprecated name */
    /* A private communicator: our messages never meet the caller's, and errors come back. */
    int rc = MPI_Comm_dup(comm, &r->comm);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(r->comm, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) {
        if (r->comm != MPI_COMM_NULL) MPI_Comm_free(&r->comm);
        free(r->env.copy);
        free(r);
        return STENCIL_EMPI;
    }
    MPI_Comm_rank(r->comm, &r->rank);
    MPI_Comm_size(r->comm, &r->size);
    *out = r;
    return 0;
}
