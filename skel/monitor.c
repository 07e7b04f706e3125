/*
 * The monitor callback's two collective halves, shared by stencil and program runs
 * (skeleton.c, prog_image.c): the call on each rank, its failure agreed, then whether any rank
 * asked to stop.
 */
#include "skel.h"

int sk_monitor_call(sk_run *r, const stencil_tile *t, const stencil_norm *change, int *mine)
{
    int rc = 0, cb = r->opt.monitor(t, change, r->opt.user);
    if (cb == 1) *mine = 1;
    SK_PHASE(r, rc,
             cb == 0 || cb == 1 ? 0 : SK_FAIL(r, STENCIL_ECALLBACK, "monitor callback failed"));
    return rc;
}

int sk_monitor_stop(sk_run *r, int rc, int mine, int *stop)
{
    int any = 0;
    if (!rc && MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, r->comm) != MPI_SUCCESS)
        rc = err_agree(r->comm, SK_FAIL(r, STENCIL_EMPI, "MPI_Allreduce (monitor)"), r->msg,
                       sizeof r->msg);
    *stop = any;
    return rc;
}
