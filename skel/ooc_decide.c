/*
 * Whether a rank runs out of core, and with what T: the mode and the device memory limit
 * (options, else the environment), the expectation before the partition (steps.c asks it for T),
 * the choice at allocation (asked, over the limit, or refused by the device), and whether set-up
 * runs again with the T the probe wants (ooc_probe.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ooc.h"

static long long ooc_parse_bytes(const char *s, int *bad)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    long long mul = *end == 'k' || *end == 'K'   ? 1LL << 10
                    : *end == 'm' || *end == 'M' ? 1LL << 20
                    : *end == 'g' || *end == 'G' ? 1LL << 30
                                                 : 1;
    if (mul > 1) end++;
    *bad = end == s || *end != 0 || v < 0;
    return v * mul;
}

/* -1 off, 0 automatic, 1 on: options.out_of_core, else $STENCIL_OOC. */
int sk_ooc_mode(const sk_run *r)
{
    if (r->ooc_round > 0) return 1;
    if (r->opt.out_of_core) return r->opt.out_of_core > 0 ? 1 : -1;
    const char *e = r->env.ooc;
    if (e && (!strcmp(e, "on") || !strcmp(e, "1"))) return 1;
    if (e && (!strcmp(e, "off") || !strcmp(e, "0"))) return -1;
    return 0;
}

/* The device memory limit: options.device_memory, else $STENCIL_DEVICE_MEMORY; 0: none, -1: bad. */
static long long ooc_limit_of(const sk_run *r)
{
    const char *e = r->env.device_memory;
    int bad = 0;
    if (r->opt.device_memory) return r->opt.device_memory < 0 ? -1 : r->opt.device_memory;
    long long v = e && e[0] ? ooc_parse_bytes(e, &bad) : 0;
    return bad ? -1 : v;
}

int sk_ooc_limit(sk_run *r, long long *limit)
{
    *limit = ooc_limit_of(r);
    if (*limit >= 0) return 0;
    if (r->opt.device_memory < 0)
        return SK_FAIL(r, STENCIL_EINVAL, "options.device_memory is negative (%lld)",
                       r->opt.device_memory);
    return SK_FAIL(r, STENCIL_EINVAL, "STENCIL_DEVICE_MEMORY='%s' is not a size",
                   r->env.device_memory);
}

/*
 * Whether this rank will start out of core, as far as the partition at T = 1 tells (steps.c: T
 * then follows the sweeps, not the in-core model). A bad limit is reported by sk_ooc_decide.
 */
int sk_ooc_expected(sk_run *r)
{
    long long limit = ooc_limit_of(r);
    int mode = sk_ooc_mode(r);
    sl_local l;
    if (mode != 0) return mode == 1;
    if (limit <= 0 || sl_local_make(&l, &r->part, &r->st, r->rank)) return 0;
    return 2LL * (long long)(l.nelems * sb_elem_size(r->st.type)) > limit;
}

/* Collective: *all is 1 when every rank expects to start out of core (sk_ooc_expected). */
int sk_ooc_all_expected(sk_run *r, int *all)
{
    int mine = sk_ooc_expected(r);
    if (MPI_Allreduce(&mine, all, 1, MPI_INT, MPI_MIN, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (out-of-core steps)");
    return 0;
}

/*
 * Out of core: the T its probe wanted, as far as the parts allow; before the probe, two
 * steps, which halve the transfers per step at the cost of the chunks' halo rows.
 */
int sk_ooc_steps(sk_run *r, int fit)
{
    int T = r->ooc_T > 0 ? r->ooc_T : r->iters >= 2 ? 2 : 1;
    if (r->ooc_Tmax > 0 && T > r->ooc_Tmax) T = r->ooc_Tmax;
    r->steps = T <= fit ? T : fit;
    if (r->ooc_T > 0)
        sk_ooc_why(r);
    else
        snprintf(r->why, sizeof r->why, "out of core: before the probe");
    return 0;
}

/*
 * Whether this rank starts out of core (1), in core (0), or fails. Collective (calibrated weights
 * time the device on the whole part, which an out-of-core rank does not hold).
 */
int sk_ooc_decide(sk_run *r, int *want)
{
    long long limit = 0,
              need = (2LL + r->nscr) * (long long)(r->loc.nelems * sb_elem_size(r->st.type));
    int mode = sk_ooc_mode(r), anyauto = 0, rc = sk_ooc_limit(r, &limit);
    if (MPI_Allreduce(&r->cfg.weight_auto, &anyauto, 1, MPI_INT, MPI_MAX, r->comm) != MPI_SUCCESS)
        return SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce failed (out-of-core mode)");
    if (rc) return rc;
    if (r->opt.out_of_core < -1 || r->opt.out_of_core > 1)
        return SK_FAIL(r, STENCIL_EINVAL, "options.out_of_core is %d, not -1, 0 or 1",
                       r->opt.out_of_core);
    *want = mode == 1 || (mode == 0 && limit > 0 && need > limit);
    if (mode == -1 && limit > 0 && need > limit)
        return SK_FAIL(r, STENCIL_EDEVMEM,
                       "the part needs %lld bytes of device memory, the limit is %lld and "
                       "out-of-core runs are off",
                       need, limit);
    if (*want && anyauto)
        return SK_FAIL(r, STENCIL_EINVAL,
                       "weights=auto cannot calibrate an out-of-core rank: give the weights");
    return 0;
}

/* In core, or out of core when asked, or when the device has no room for the part. */
int sk_alloc_any(sk_run *r)
{
    int ooc = 0, rc = sk_ooc_decide(r, &ooc);
    if (!rc && !ooc) rc = sk_alloc(r);
    if (rc == STENCIL_EDEVMEM && sk_ooc_mode(r) == 0 && !r->cfg.weight_auto) ooc = 1, rc = 0;
    return rc || !ooc ? rc : sk_ooc_start(r);
}

/*
 * The steps per exchange were chosen before anyone knew the parts would not fit. When every rank
 * is out of core and T was not forced, the probe says what T the sweeps want (sk_ooc_want: the
 * smallest over the ranks), and set-up runs again with it when it differs. The first probe times
 * two steps per launch, where the sweeps of a larger T launch the device's fused depth (a much
 * higher rate per step), so the second set-up's probe, at that depth, may move T once more.
 */
int sk_ooc_again(sk_run *r)
{
    int mine[2] = {r->ooc != NULL, SK_OOC_MAX}, all[2] = {0, 0};
    if (r->ooc_round >= 2 || r->opt.steps != 0 || r->iters < 2) mine[0] = 0;
    if (mine[0]) mine[1] = sk_ooc_want(r);
    if (MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, r->comm) != MPI_SUCCESS) return 0;
    int T = all[1] < r->iters ? all[1] : (int)r->iters;
    if (r->ooc_Tmax > 0 && T > r->ooc_Tmax) T = r->ooc_Tmax;
    if (all[0] && T == r->steps) sk_ooc_why(r); /* the T set up is the one the probe wants */
    if (!all[0] || T == r->steps) return 0;
    r->ooc_T = T;
    r->ooc_round++;
    return 1;
}

int sk_ooc_retry(sk_run *r, int rc)
{
    int mine = r->ooc_short > 0 ? r->ooc_short : INT_MAX, all = INT_MAX;
    r->ooc_short = 0;
    if (rc != STENCIL_EDEVMEM || r->opt.steps != 0) return 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, r->comm) != MPI_SUCCESS) return 0;
    if (all == INT_MAX || all >= r->steps) return 0;
    r->ooc_Tmax = all;
    if (r->ooc_T > all) r->ooc_T = all;
    r->msg[0] = '\0';
    return 1;
}
