/*
 * The host images of a program run's levels: the tiles the callbacks see (init per field and
 * level, view per field), and checkpoints. A checkpoint of a program holds every level of every
 * field, coefficients included (a restart needs them all). In the native format it is one file
 * per level (stencil_write's, with a hash of the program text in its header): the path itself
 * for the first field, path.FIELD for the others and path.FIELD.prev for previous levels, each
 * written to a temporary name and all renamed once all of them are in. A path ending in .h5 or
 * .hdf5 is one HDF5 file of a dataset per level, named FIELD and FIELD.prev (each with the
 * attributes of io/README.md and the program's hash), beside its XDMF sidecar showing them all
 * on one grid; it is written and renamed as a stencil's. stencil_load reads either back on any
 * rank count and partition.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sio.h"
#include "skprog.h"

unsigned long long sk_prog_hash(const char *text)
{
    unsigned long long h = 14695981039346656037ULL;
    for (const char *c = text; c && *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    return h ? h : 1; /* 0 means "none recorded" */
}

void sk_prog_tile(sk_run *r, stencil_tile *t, int f, int level)
{
    sk_tile(r, t);
    t->field = r->prog->linear ? NULL : r->prog->p->f[f].name;
    t->level = level;
    t->iteration = r->done;
}

/* init per field and level into the host image, then to the device: level 0 into cur and nxt
   (the fixed frame is never written), the previous level into prv. */
int sk_prog_init(sk_run *r, stencil_init_fn init)
{
    sk_prog *sp = r->prog;
    const kgt_prog *p = sp->p;
    size_t bytes = r->loc.nelems * sb_elem_size(r->st.type);
    const sb_ops *o = r->dev.ops;
    for (int f = 0; f < p->nf; f++)
        for (int lv = 0; lv >= (p->f[f].keeps ? -1 : 0); lv--) {
            stencil_tile t;
            memset(r->host, 0, bytes);
            sk_prog_tile(r, &t, f, lv);
            if (init(&t, r->opt.user))
                return SK_FAIL(r, STENCIL_ECALLBACK, "init callback failed (field %s, level %d)",
                               p->f[f].name, lv);
            sb_mem a = lv ? sp->prv[f] : sp->cur[f], b = lv ? NULL : sp->nxt[f];
            int rc = o->write(&r->dev, a, r->host, bytes);
            if (!rc && b) rc = o->write(&r->dev, b, r->host, bytes);
            if (rc) return SK_FAIL(r, rc, "%s", r->dev.err);
        }
    return 0;
}

int sk_prog_view(sk_run *r, stencil_output_fn fn)
{
    sk_prog *sp = r->prog;
    size_t bytes = r->loc.nelems * sb_elem_size(r->st.type);
    for (int f = 0; f < sp->p->nf; f++) {
        stencil_tile t;
        int rc = r->dev.ops->read(&r->dev, sp->cur[f], r->host, bytes);
        rc = err_agree(r->comm, rc ? SK_FAIL(r, rc, "%s", r->dev.err) : 0, r->msg, sizeof r->msg);
        if (rc) return rc;
        sk_prog_tile(r, &t, f, 0);
        rc = fn(&t, r->opt.user) ? SK_FAIL(r, STENCIL_ECALLBACK, "output callback failed") : 0;
        if ((rc = err_agree(r->comm, rc, r->msg, sizeof r->msg))) return rc;
    }
    return 0;
}

int sk_prog_monitor(sk_run *r, const stencil_norm *changes, int *stop)
{
    sk_prog *sp = r->prog;
    size_t bytes = r->loc.nelems * sb_elem_size(r->st.type);
    int rc = 0, mine = 0;
    for (int f = 0; f < sp->p->nf && !rc; f++) {
        stencil_tile t;
        int e = r->opt.monitor_data ? r->dev.ops->read(&r->dev, sp->cur[f], r->host, bytes) : 0;
        SK_PHASE(r, rc, e ? SK_FAIL(r, e, "%s", r->dev.err) : 0);
        if (rc) return rc;
        sk_prog_tile(r, &t, f, 0);
        if (!r->opt.monitor_data) t.data = NULL;
        rc = sk_monitor_call(r, &t, &changes[f], &mine);
    }
    return sk_monitor_stop(r, rc, mine, stop);
}

/* The file of field f's level lv (0 or -1) of the checkpoint at path. */
static int level_path(const sk_run *r, const char *path, int f, int lv, char *out, size_t len)
{
    const char *name = r->prog->p->f[f].name;
    int n = f == 0 && lv == 0 ? snprintf(out, len, "%s", path)
                              : snprintf(out, len, "%s.%s%s", path, name, lv ? ".prev" : "");
    return n < 0 || (size_t)n >= len;
}

/* Every level of every field, with its buffer; returns the count. */
static int levels(const sk_prog *sp, int *fi, int *lvi, sb_mem *m)
{
    int n = 0;
    for (int f = 0; f < sp->p->nf; f++)
        for (int lv = 0; lv >= (sp->p->f[f].keeps ? -1 : 0); lv--) {
            fi[n] = f, lvi[n] = lv;
            m[n++] = lv ? sp->prv[f] : sp->cur[f];
        }
    return n;
}

/* The levels of an HDF5 checkpoint, read from the devices one at a time as they are written. */
typedef struct h5_levels {
    sk_run *r;
    const int *fi, *lvi;
    const sb_mem *m;
} h5_levels;

static int fill_level(int i, stencil_tile *t, void *user, char *why, size_t len)
{
    h5_levels *h = user;
    sk_run *r = h->r;
    int e = r->dev.ops->read(&r->dev, h->m[i], r->host, r->loc.nelems * sb_elem_size(r->st.type));
    if (e) {
        snprintf(why, len, "%s", r->dev.err);
        return e;
    }
    sk_prog_tile(r, t, h->fi[i], h->lvi[i]);
    return 0;
}

/* The sidecar first (when it cannot be written the old checkpoint stays), then path.tmp, both
   renamed once complete. */
static int checkpoint_h5(sk_run *r, const char *path, int n, const int *fi, const int *lvi,
                         const sb_mem *m)
{
    char tmp[4300], io[300] = "";
    si_meta meta = {.why = io, .whylen = sizeof io, .hash = r->prog->hash, .format = 1};
    si_names nm = {.n = n};
    h5_levels h = {r, fi, lvi, m};
    stencil_tile t;
    for (int i = 0; i < n; i++) {
        sk_prog_tile(r, &t, fi[i], lvi[i]);
        si_dset_name(&t, nm.name[i], sizeof nm.name[i]);
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc = si_xdmf_prepare(r->comm, path, &t, &nm, io, sizeof io);
    if (!rc) rc = si_write_set(r->comm, tmp, &t, n, fill_level, &h, &meta);
    if (rc) {
        if (r->rank == 0) si_remove_regular(tmp), si_xdmf_discard(path);
        return sk_io_fail(r, rc, "checkpoint", path, io);
    }
    SK_PHASE(r, rc, sk_commit(r, tmp, path));
    if (!rc && (rc = si_xdmf_commit(r->comm, path, io, sizeof io)))
        sk_io_fail(r, rc, "checkpoint (its sidecar)", path, io);
    if (rc && r->rank == 0) si_xdmf_discard(path);
    return rc;
}

int sk_prog_checkpoint(sk_run *r, const char *path)
{
    sk_prog *sp = r->prog;
    int fi[2 * KGT_PROG_MAX_FIELDS], lvi[2 * KGT_PROG_MAX_FIELDS], rc = 0;
    sb_mem m[2 * KGT_PROG_MAX_FIELDS];
    int n = levels(sp, fi, lvi, m);
    size_t bytes = r->loc.nelems * sb_elem_size(r->st.type);
    char name[4200], tmp[4300], io[300] = "";
    SK_PHASE(r, rc, r->failed ? SK_FAIL(r, STENCIL_EINVAL, "the run failed earlier") : 0);
    SK_PHASE(r, rc, sk_path_ok(r, path, tmp, sizeof tmp));
    SK_PHASE(r, rc, sk_same_text(r, path, "checkpoint paths"));
    if (!rc && si_h5_name(path)) return checkpoint_h5(r, path, n, fi, lvi, m);
    for (int i = 0; i < n && !rc; i++) {
        si_meta meta = {.why = io, .whylen = sizeof io, .hash = sp->hash, .format = 0};
        stencil_tile t;
        SK_PHASE(r, rc,
                 level_path(r, path, fi[i], lvi[i], name, sizeof name)
                     ? SK_FAIL(r, STENCIL_EINVAL, "checkpoint path too long")
                     : 0);
        SK_PHASE(r, rc, sk_path_ok(r, name, tmp, sizeof tmp));
        int e = rc ? 0 : r->dev.ops->read(&r->dev, m[i], r->host, bytes);
        SK_PHASE(r, rc, e ? SK_FAIL(r, e, "%s", r->dev.err) : 0);
        if (rc) break;
        sk_prog_tile(r, &t, fi[i], lvi[i]);
        t.field = NULL; /* tiles of one field each; their files say which by name */
        rc = si_write_file(r->comm, tmp, &t, &meta);
        if (rc) {
            if (r->rank == 0) si_remove_regular(tmp);
            return sk_io_fail(r, rc, "checkpoint", name, io);
        }
    }
    for (int i = 0; i < n && !rc; i++) { /* all in: now the renames */
        level_path(r, path, fi[i], lvi[i], name, sizeof name);
        snprintf(tmp, sizeof tmp, "%s.tmp", name);
        SK_PHASE(r, rc, sk_commit(r, tmp, name));
    }
    return rc;
}

/* Every file read into host memory first: on any error the run's levels are unchanged. */
int sk_prog_load(sk_run *r, const char *path)
{
    sk_prog *sp = r->prog;
    int fi[2 * KGT_PROG_MAX_FIELDS], lvi[2 * KGT_PROG_MAX_FIELDS], rc = 0;
    sb_mem m[2 * KGT_PROG_MAX_FIELDS];
    void *img[2 * KGT_PROG_MAX_FIELDS] = {NULL};
    stencil_tile t[2 * KGT_PROG_MAX_FIELDS];
    int n = levels(sp, fi, lvi, m);
    size_t es = sb_elem_size(r->st.type), bytes = r->loc.nelems * es;
    long it = 0, first = -1;
    char name[4200], io[300] = "";
    SK_PHASE(r, rc, r->failed ? SK_FAIL(r, STENCIL_EINVAL, "the run failed earlier") : 0);
    SK_PHASE(r, rc, path ? 0 : SK_FAIL(r, STENCIL_EINVAL, "checkpoint path is NULL"));
    SK_PHASE(r, rc, sk_same_text(r, path, "checkpoint paths"));
    for (int i = 0; i < n && !rc; i++) {
        img[i] = calloc(r->loc.nelems, es);
        SK_PHASE(r, rc, img[i] ? 0 : SK_FAIL(r, STENCIL_ENOMEM, "out of memory (load)"));
        sk_prog_tile(r, &t[i], fi[i], lvi[i]);
        t[i].data = img[i] ? (char *)img[i] + sl_local_index(&r->loc, r->loc.owned.lo) * es : NULL;
    }
    if (!rc && si_h5_name(path)) { /* one file of every level */
        rc = si_read_set(r->comm, path, t, n, &it, sp->hash, NULL, io, sizeof io);
        if (rc) rc = sk_io_fail(r, rc, "cannot load checkpoint", path, io);
    }
    for (int i = 0; i < n && !rc && !si_h5_name(path); i++) {
        SK_PHASE(r, rc,
                 level_path(r, path, fi[i], lvi[i], name, sizeof name)
                     ? SK_FAIL(r, STENCIL_EINVAL, "checkpoint path too long")
                     : 0);
        if (rc) break;
        rc = si_read_file(r->comm, name, &t[i], &it, sp->hash, NULL, io, sizeof io);
        if (rc) rc = sk_io_fail(r, rc, "cannot load checkpoint", name, io);
        if (!rc && first >= 0 && it != first)
            rc = SK_FAIL(r, STENCIL_EFORMAT, "checkpoint %s: iteration %ld, %s has %ld", name, it,
                         path, first);
        first = it;
    }
    int written = !rc;
    for (int i = 0; i < n && !rc; i++) { /* level 0 into both of its buffers: the frame */
        sb_mem b = lvi[i] ? NULL : sp->nxt[fi[i]];
        int e = r->dev.ops->write(&r->dev, m[i], img[i], bytes);
        if (!e && b) e = r->dev.ops->write(&r->dev, b, img[i], bytes);
        SK_PHASE(r, rc, e ? SK_FAIL(r, e, "%s", r->dev.err) : 0);
    }
    for (int i = 0; i < n; i++) free(img[i]);
    if (!rc) rc = sk_prog_halos_all(r);
    if (!rc) r->done = it;
    if (rc && written) r->failed = rc; /* the devices hold part of the file */
    return rc;
}
