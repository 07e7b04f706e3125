/*
 * The intra-node peer path: neighbours on one node read each other's device buffers directly
 * (CUDA IPC; POSIX shared memory for the host backend, which lets CI test the protocol), so
 * halos skip the host. Handles are swapped once over MPI; each link falls back to host staging
 * on its own when either side cannot map the other's memory. Which path each link takes is
 * agreed by both of its ends before the first exchange.
 */
#include <string.h>

#include "skel.h"

#define SK_HANDLE 128
enum { TAG_HANDLES = 100, TAG_PULLS = 200, TAG_CLOSED = 300 };

typedef struct peer_msg {
    int can;
    int len;
    char h[2][SK_HANDLE];
} peer_msg;

static int want_peer(const sk_run *r)
{
    return r->opt.peer == 1 || (r->opt.peer < 0 && r->dev.ops->peer_default);
}

/* onnode[i]: the peer of link i shares this node (so its memory can be mapped). */
static int node_peers(sk_run *r, int *onnode)
{
    MPI_Comm node;
    MPI_Group wg, ng;
    int rc = MPI_Comm_split_type(r->comm, MPI_COMM_TYPE_SHARED, r->rank, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Comm_group(r->comm, &wg);
    MPI_Comm_group(node, &ng);
    for (int i = 0; i < r->x.n; i++) {
        int in;
        MPI_Group_translate_ranks(wg, 1, &r->x.link[i].peer, ng, &in);
        onnode[i] = in != MPI_UNDEFINED;
    }
    MPI_Group_free(&wg);
    MPI_Group_free(&ng);
    MPI_Comm_free(&node);
    return MPI_SUCCESS;
}

/* Sends `mine` on every link and receives each peer's into theirs[i] (tag base + link tag). */
static int swap(sk_run *r, const void *mine, size_t mlen, void *theirs, size_t tlen, int base,
                int only_pairs)
{
    sk_exchange *x = &r->x;
    int n = 0;
    for (int i = 0; i < x->n; i++) {
        const sk_link *k = &x->link[i];
        MPI_Irecv((char *)theirs + tlen * (size_t)i, (int)tlen, MPI_BYTE, k->peer,
                  base + k->recv_tag, r->comm, &x->req[n++]);
        MPI_Isend(only_pairs ? (const char *)mine + mlen * (size_t)i : mine, (int)mlen, MPI_BYTE,
                  k->peer, base + k->send_tag, r->comm, &x->req[n++]);
    }
    int rc = MPI_Waitall(n, x->req, x->status);
    return rc;
}

/* Where the peer keeps the cells we receive: its send box toward us, in its local indices. */
static int peer_box(sk_run *r, sk_link *k)
{
    sl_local pl;
    int rc = sl_local_make(&pl, &r->part, &r->lst, k->peer);
    if (rc) return rc;
    const sl_dir *d = &pl.dir[SL_NDIRS - 1 - k->dir];
    k->psend = sl_local_box(&pl, &d->send);
    memcpy(k->pstride, pl.stride, sizeof k->pstride);
    return d->has_send && sl_box_volume(&k->psend) == sl_box_volume(&k->recv) ? 0 : -1;
}

static int try_open(sk_run *r, sk_link *k, const peer_msg *m)
{
    const sb_ops *o = r->dev.ops;
    if (o->ipc_open(&r->dev, m->h[0], (size_t)m->len, &k->pbuf[0])) return 0;
    if (o->ipc_open(&r->dev, m->h[1], (size_t)m->len, &k->pbuf[1])) {
        o->ipc_close(&r->dev, k->pbuf[0]);
        return 0;
    }
    k->opened = 1;
    return 1;
}

static void decide(sk_run *r, sk_link *k, const peer_msg *mine, const peer_msg *theirs, int on)
{
    k->pull = 0;
    if (!k->rbytes || !mine->can || !theirs->can || !on || peer_box(r, k)) return;
    if (k->peer == r->rank) { /* our own buffers: no mapping needed */
        k->pbuf[0] = r->buf[0];
        k->pbuf[1] = r->buf[1];
        k->pull = 1;
        return;
    }
    k->pull = try_open(r, k, theirs);
}

static int export_buffers(sk_run *r, peer_msg *m)
{
    size_t len = 0;
    memset(m, 0, sizeof *m);
    m->can = want_peer(r);
    for (int i = 0; i < 2 && m->can; i++)
        if (r->dev.ops->ipc_export(&r->dev, r->buf[i], m->h[i], SK_HANDLE, &len)) m->can = 0;
    m->len = (int)len;
    return m->can;
}

/* The handles are no longer needed: a killed process leaves no shared memory behind. */
static void seal(sk_run *r)
{
    if (r->dev.ops->ipc_seal) r->dev.ops->ipc_seal(&r->dev);
}

int sk_peer_setup(sk_run *r)
{
    sk_exchange *x = &r->x;
    peer_msg mine, theirs[SL_NDIRS];
    int onnode[SL_NDIRS], pulls[SL_NDIRS], peer_pulls[SL_NDIRS], any = 0, rc;
    int can = export_buffers(r, &mine);
    MPI_Allreduce(&can, &any, 1, MPI_INT, MPI_MAX, r->comm);
    if (!any) { /* nobody wants it: no extra messages */
        seal(r);
        return 0;
    }
    rc = node_peers(r, onnode);
    if (rc == MPI_SUCCESS) rc = swap(r, &mine, sizeof mine, theirs, sizeof mine, TAG_HANDLES, 0);
    if (rc != MPI_SUCCESS) return err_mpi(r->msg, sizeof r->msg, STENCIL_EMPI, rc, "peer handles");
    for (int i = 0; i < x->n; i++) {
        decide(r, &x->link[i], &mine, &theirs[i], onnode[i]);
        pulls[i] = x->link[i].pull;
        x->npull += pulls[i];
    }
    rc = swap(r, pulls, sizeof(int), peer_pulls, sizeof(int), TAG_PULLS, 1);
    if (rc != MPI_SUCCESS)
        return err_mpi(r->msg, sizeof r->msg, STENCIL_EMPI, rc, "peer decisions");
    for (int i = 0; i < x->n; i++) x->link[i].peer_pulls = peer_pulls[i];
    seal(r); /* every neighbour has decided, so has opened what it pulls from */
    return 0;
}

/* Unmaps the peers' buffers, then tells them, so nobody frees memory still mapped elsewhere. */
void sk_peer_close(sk_run *r)
{
    sk_exchange *x = &r->x;
    int n = 0;
    for (int i = 0; i < x->n; i++) {
        sk_link *k = &x->link[i];
        if (k->opened) {
            r->dev.ops->ipc_close(&r->dev, k->pbuf[0]);
            r->dev.ops->ipc_close(&r->dev, k->pbuf[1]);
            k->opened = 0;
        }
        if (k->pull)
            MPI_Isend(NULL, 0, MPI_BYTE, k->peer, TAG_CLOSED + k->send_tag, r->comm, &x->req[n++]);
        if (k->peer_pulls)
            MPI_Irecv(NULL, 0, MPI_BYTE, k->peer, TAG_CLOSED + k->recv_tag, r->comm, &x->req[n++]);
        k->pull = k->peer_pulls = 0;
    }
    MPI_Waitall(n, x->req, x->status);
    x->npull = 0;
}
