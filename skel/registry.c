/*
 * The process-wide registry of named kernels. Registration happens before runs start (kgt's
 * generated <prefix>_register() or a hand-written table), so lookups need no lock. Also
 * stencil_desc_check, the check of a description that registration and runs rely on.
 */
#include <stdio.h>
#include <string.h>

#include "skel.h"

#define SK_MAX_KERNELS 256

static const stencil_kernel *registry[SK_MAX_KERNELS];
static int nregistered;

const stencil_kernel *stencil_find_kernel(const char *name)
{
    if (!name) return NULL;
    for (int i = 0; i < nregistered; i++)
        if (strcmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}

int stencil_register_kernel_msg(const stencil_kernel *k, char *msg, size_t msglen)
{
    char buf[256], why[200];
    if (!msg || !msglen) msg = buf, msglen = sizeof buf;
    msg[0] = '\0';
    if (!k || !k->name || !k->name[0])
        return err_set(msg, msglen, STENCIL_EINVAL, "the kernel is NULL or has no name");
    if (stencil_desc_check(&k->stencil, why, sizeof why))
        return err_set(msg, msglen, STENCIL_EINVAL, "kernel '%s': %s", k->name, why);
    const stencil_kernel *old = stencil_find_kernel(k->name);
    if (old == k) return 0; /* re-registering the same table is harmless */
    if (old)
        return err_set(msg, msglen, STENCIL_EINVAL, "another kernel is already registered as '%s'",
                       k->name);
    if (nregistered == SK_MAX_KERNELS)
        return err_set(msg, msglen, STENCIL_ENOMEM, "the registry is full (%d kernels)",
                       SK_MAX_KERNELS);
    registry[nregistered++] = k;
    return 0;
}

int stencil_register_kernel(const stencil_kernel *k)
{
    char msg[256];
    int rc = stencil_register_kernel_msg(k, msg, sizeof msg);
    if (rc) fprintf(stderr, "libstencil: stencil_register_kernel: %s\n", msg);
    return rc;
}

void stencil_kernel_names(char *buf, size_t len)
{
    size_t used = 0;
    if (!len) return;
    buf[0] = '\0';
    for (int i = 0; i < nregistered && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", registry[i]->name);
        if (n < 0) break;
        used += (size_t)n;
    }
}

/* Equal stencils have the same non-zero points, weights and divisor (dense boxes may differ). */
int sk_kernel_matches(const stencil_kernel *k, const sl_stencil *s, char *msg, size_t len)
{
    sl_stencil ks;
    int rc = sl_stencil_make(&ks, &k->stencil, msg, len);
    if (rc) return rc;
    int same = ks.ndims == s->ndims && ks.npts == s->npts && ks.divisor == s->divisor;
    for (int p = 0; same && p < s->npts; p++)
        same = ks.w[p] == s->w[p] && memcmp(ks.off[p], s->off[p], sizeof ks.off[p]) == 0;
    sl_stencil_free(&ks);
    if (!same)
        return err_set(msg, len, STENCIL_EINVAL,
                       "kernel '%s' computes a different stencil than the one passed", k->name);
    return 0;
}

int stencil_desc_check(const stencil_desc *st, char *msg, size_t msglen)
{
    sl_stencil s;
    char buf[256];
    if (!st)
        return err_set(msg ? msg : buf, msg ? msglen : sizeof buf, STENCIL_EINVAL,
                       "stencil description is NULL");
    int rc = sl_stencil_make(&s, st, msg ? msg : buf, msg ? msglen : sizeof buf);
    if (!rc) sl_stencil_free(&s);
    return rc;
}

int sk_named_for(const char *kernel, const sl_stencil *s, const stencil_kernel **named, char *msg,
                 size_t len)
{
    *named = NULL;
    if (!kernel) return 0;
    *named = stencil_find_kernel(kernel);
    if (!*named) {
        char names[160];
        stencil_kernel_names(names, sizeof names);
        return err_set(msg, len, STENCIL_ENOKERNEL, "unknown kernel '%s' (known: %s)", kernel,
                       names[0] ? names : "none registered");
    }
    return sk_kernel_matches(*named, s, msg, len);
}
