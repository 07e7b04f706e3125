/*
 * What the backend-level tests (tests/gpu, tests/opencl) share: a one-rank layout of a stencil
 * with the device buffers and host mirrors that go with it, and the assertion macros they use.
 * Header only, so that only test programs built with Check include it.
 */
#ifndef TEST_BACKEND_FIXTURE_H
#define TEST_BACKEND_FIXTURE_H

#include <check.h>
#include <string.h>

#include "backend.h"
#include "layout.h"

/* Check records every passing ck_assert; hot loops assert only failures. */
#define REQ(c)                                                                                     \
    do {                                                                                           \
        if (!(c)) ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #c);                               \
    } while (0)
#define OK(dev, call)                                                                              \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_) ck_abort_msg("%s:%d: %s = %d: %s", __FILE__, __LINE__, #call, rc_, (dev)->err);   \
    } while (0)

typedef struct fixture {
    stencil_desc desc;
    sl_stencil s;
    sl_partition p;
    sl_local l;
    sb_dev dev;
    sb_mem m[2];
    size_t es, bytes;
    char *h[2]; /* host mirrors of m */
} fixture;

/* The layout of rank 0 of a one-rank partition of gsize for stencil d. */
static inline void fx_layout(fixture *f, const stencil_desc *d, const long *gsize, int periodic)
{
    char msg[256];
    int pgrid[SL_D] = {1, 1, 1}, minpart[SL_D];
    long g[SL_D] = {1, 1, 1};
    memset(f, 0, sizeof *f);
    f->desc = *d;
    memcpy(g, gsize, sizeof *g * (size_t)d->ndims);
    int rc = sl_stencil_make(&f->s, d, msg, sizeof msg);
    ck_assert_msg(rc == 0, "sl_stencil_make: %s", msg);
    sl_min_part(&f->s, minpart);
    rc = sl_partition_make(&f->p, d->ndims, g, pgrid, NULL, minpart, periodic, msg, sizeof msg);
    ck_assert_msg(rc == 0, "sl_partition_make: %s", msg);
    ck_assert_int_eq(sl_local_make(&f->l, &f->p, &f->s, 0), 0);
    f->es = sb_elem_size(d->type);
    f->bytes = f->l.nelems * f->es;
}

#endif /* TEST_BACKEND_FIXTURE_H */
