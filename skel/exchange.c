/*
 * Split-phase halo exchange through host staging buffers:
 * post receives -> pack (device->host) -> send -> wait -> unpack (host->device).
 * The links come straight from the layout's exact pattern, so only needed cells travel.
 *
 * On the peer path (peer.c) a link's message is an empty token saying "my border is ready" and
 * unpack pulls the cells from the neighbour's device buffer. A puller with nothing else to send
 * returns a token too, one iteration later, so the neighbour knows the pull is done before it
 * overwrites that buffer again.
 */
#include <string.h>

#include "skel.h"

static void link_init(sk_link *k, const sl_local *l, const sl_dir *dir, size_t esize)
{
    memset(k, 0, sizeof *k);
    k->dir = sl_dir_index(dir->d);
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

/* Bytes travelling on a link per exchange: data, -1 for an empty token, or 0 for nothing. */
static long send_size(const sk_link *k)
{
    if (k->peer_pulls || (k->pull && !k->sbytes)) return -1;
    return (long)k->sbytes;
}

static long recv_size(const sk_link *k)
{
    if (k->pull || (k->peer_pulls && !k->rbytes)) return -1;
    return (long)k->rbytes;
}

int sk_exchange_post(sk_exchange *x, MPI_Comm comm)
{
    for (int i = 0; i < x->n; i++) {
        sk_link *k = &x->link[i];
        long n = recv_size(k);
        if (!n) continue;
        int rc = MPI_Irecv(n > 0 ? k->rbuf[x->parity] : NULL, n > 0 ? (int)n : 0, MPI_BYTE, k->peer,
                           k->recv_tag, comm, &x->req[x->nreq++]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int sk_exchange_pack(sk_exchange *x, sb_dev *dev, sb_mem *buf, int idx)
{
    for (int i = 0; i < x->n; i++) {
        sk_link *k = &x->link[i];
        if (send_size(k) <= 0) continue;
        int rc = dev->ops->copy_out(dev, SB_QBORDER, buf[idx], &k->send, k->sbuf);
        if (rc) return rc;
    }
    return dev->ops->flush(dev, SB_QBORDER);
}

int sk_exchange_send(sk_exchange *x, MPI_Comm comm)
{
    for (int i = 0; i < x->n; i++) {
        sk_link *k = &x->link[i];
        long n = send_size(k);
        if (!n) continue;
        int rc = MPI_Isend(n > 0 ? k->sbuf : NULL, n > 0 ? (int)n : 0, MPI_BYTE, k->peer,
                           k->send_tag, comm, &x->req[x->nreq++]);
        if (rc != MPI_SUCCESS) return rc;
        x->bytes_sent += (long long)k->sbytes; /* halo bytes moved, by MPI or device to device */
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

int sk_exchange_unpack(sk_exchange *x, sb_dev *dev, sb_mem *buf, int idx, const long *stride)
{
    for (int i = 0; i < x->n; i++) {
        sk_link *k = &x->link[i];
        if (!k->rbytes) continue;
        int rc = k->pull
                     ? dev->ops->copy_peer(dev, SB_QBORDER, buf[idx], &k->recv, stride,
                                           k->pbuf[idx], &k->psend, k->pstride)
                     : dev->ops->copy_in(dev, SB_QBORDER, buf[idx], &k->recv, k->rbuf[x->parity]);
        if (rc) return rc;
    }
    x->parity ^= 1;
    return dev->ops->flush(dev, SB_QBORDER);
}
