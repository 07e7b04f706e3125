/*
 * Split-phase halo exchange through host staging buffers:
 * post receives -> pack (device->host) -> send -> wait -> unpack (host->device).
 * The links come straight from the layout's exact pattern, so only needed cells travel.
 */
#include <string.h>

#include "skel.h"

static void link_init(sk_link *k, const sl_local *l, const sl_dir *dir, size_t esize)
{
    memset(k, 0, sizeof *k);
    k->peer = dir->peer;
    k->send_tag = dir->send_tag;
    k->recv_tag = dir->recv_tag;
    if (dir->has_send) k->send = sl_local_box(l, &dir->send);
    if (dir->has_recv) k->recv = sl_local_box(l, &dir->recv);
    k->sbytes = dir->has_send ? (size_t)sl_box_volume(&k->send) * esize : 0;
    k->rbytes = dir->has_recv ? (size_t)sl_box_volume(&k->recv) * esize : 0;
}

static int link_alloc(sk_link *k, sb_dev *dev)
{
    int rc = 0;
    if (k->sbytes) rc = dev->ops->host_alloc(dev, k->sbytes, &k->sbuf);
    for (int i = 0; i < 2 && !rc && k->rbytes; i++)
        rc = dev->ops->host_alloc(dev, k->rbytes, &k->rbuf[i]);
    return rc;
}

int sk_exchange_init(sk_exchange *x, const sl_local *l, sb_dev *dev, size_t esize)
{
    memset(x, 0, sizeof *x);
    for (int i = 0; i < SL_NDIRS; i++) {
        if (!l->dir[i].active) continue;
        sk_link *k = &x->link[x->n++];
        link_init(k, l, &l->dir[i], esize);
        int rc = link_alloc(k, dev);
        if (rc) return rc;
    }
    return 0;
}

void sk_exchange_free(sk_exchange *x, sb_dev *dev)
{
    for (int i = 0; i < x->n; i++) {
        sk_link *k = &x->link[i];
        if (k->sbuf) dev->ops->host_free(dev, k->sbuf);
        for (int j = 0; j < 2; j++)
            if (k->rbuf[j]) dev->ops->host_free(dev, k->rbuf[j]);
    }
    x->n = 0;
}

int sk_exchange_post(sk_exchange *x, MPI_Comm comm)
{
    for (int i = 0; i < x->n; i++) {
        sk_link *k = &x->link[i];
        if (!k->rbytes) continue;
        int rc = MPI_Irecv(k->rbuf[x->parity], (int)k->rbytes, MPI_BYTE, k->peer, k->recv_tag, comm,
                           &x->req[x->nreq++]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int sk_exchange_pack(sk_exchange *x, sb_dev *dev, sb_mem m)
{
    for (int i = 0; i < x->n; i++) {
        sk_link *k = &x->link[i];
        if (!k->sbytes) continue;
        int rc = dev->ops->copy_out(dev, SB_QBORDER, m, &k->send, k->sbuf);
        if (rc) return rc;
    }
    return dev->ops->flush(dev, SB_QBORDER);
}

int sk_exchange_send(sk_exchange *x, MPI_Comm comm)
{
    for (int i = 0; i < x->n; i++) {
        sk_link *k = &x->link[i];
        if (!k->sbytes) continue;
        int rc = MPI_Isend(k->sbuf, (int)k->sbytes, MPI_BYTE, k->peer, k->send_tag, comm,
                           &x->req[x->nreq++]);
        if (rc != MPI_SUCCESS) return rc;
        x->bytes_sent += (long long)k->sbytes;
        x->messages++;
    }
    return MPI_SUCCESS;
}

int sk_exchange_wait(sk_exchange *x)
{
    int rc = MPI_Waitall(x->nreq, x->req, x->status);
    x->nreq = 0;
    return rc;
}

int sk_exchange_unpack(sk_exchange *x, sb_dev *dev, sb_mem m)
{
    for (int i = 0; i < x->n; i++) {
        sk_link *k = &x->link[i];
        if (!k->rbytes) continue;
        int rc = dev->ops->copy_in(dev, SB_QBORDER, m, &k->recv, k->rbuf[x->parity]);
        if (rc) return rc;
    }
    x->parity ^= 1;
    return dev->ops->flush(dev, SB_QBORDER);
}
