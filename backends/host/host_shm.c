/* The host backend's buffers: shared memory for the peer path, else aligned heap memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host.h"

/* Maps the shared object name (creating it when create); 1 without an error when create finds
 * the name taken (a process that was killed leaves its objects behind, and pids come back). */
static int host_shm_map(sb_dev *dev, const char *name, size_t bytes, int create, void **p)
{
    int fd = shm_open(name, create ? O_CREAT | O_EXCL | O_RDWR : O_RDWR, 0600);
    if (fd < 0 && create && errno == EEXIST) return 1;
    if (fd < 0)
        return sb_fail(dev, STENCIL_EDEVMEM, "shm_open %s failed: %s", name, strerror(errno));
    if (create && ftruncate(fd, (off_t)bytes) != 0) {
        close(fd);
        shm_unlink(name);
        return sb_fail(dev, STENCIL_EDEVMEM, "cannot size shared memory to %zu bytes", bytes);
    }
    *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (*p == MAP_FAILED) {
        if (create) shm_unlink(name);
        return sb_fail(dev, STENCIL_EDEVMEM, "mmap of %zu shared bytes failed", bytes);
    }
    return 0;
}

static int host_shm_add(sb_dev *dev, const char *name, size_t bytes, int create, void **p)
{
    host_impl *h = dev->impl;
    host_shm *m = calloc(1, sizeof *m);
    if (!m) return sb_fail(dev, STENCIL_ENOMEM, "host backend: out of memory");
    int rc = host_shm_map(dev, name, bytes, create, p);
    if (rc) {
        free(m);
        return rc;
    }
    m->p = *p;
    m->bytes = bytes;
    if (create) snprintf(m->name, sizeof m->name, "%s", name);
    m->next = h->shm;
    h->shm = m;
    return 0;
}

/* Unmaps p if it is a shared mapping (and removes its name if we created it); 1 if it was. */
int host_shm_drop(host_impl *h, void *p)
{
    for (host_shm **pp = &h->shm; *pp; pp = &(*pp)->next) {
        host_shm *m = *pp;
        if (m->p != p) continue;
        munmap(m->p, m->bytes ? m->bytes : 1);
        if (m->name[0]) shm_unlink(m->name);
        *pp = m->next;
        free(m);
        return 1;
    }
    return 0;
}

/* Removes the names of our shared buffers; the mappings stay until each buffer is freed. */
void host_ipc_seal(sb_dev *dev)
{
    host_impl *h = dev->impl;
    h->sealed = 1;
    for (host_shm *m = h->shm; m; m = m->next)
        if (m->name[0]) {
            shm_unlink(m->name);
            m->name[0] = '\0';
        }
}

int host_mem_alloc(sb_dev *dev, size_t bytes, sb_mem *m)
{
    host_impl *h = dev->impl;
    void *p = NULL;
    static unsigned serial;
    if (h->peer) {
        char name[48];
        int rc = 1;
        for (int t = 0; rc == 1 && t < 64; t++) {
            snprintf(name, sizeof name, "/stencil-%ld-%u", (long)getpid(), serial++);
            rc = host_shm_add(dev, name, bytes, 1, &p);
        }
        if (rc == 1)
            return sb_fail(dev, STENCIL_EDEVMEM, "shm_open: 64 names /stencil-%ld-* in use",
                           (long)getpid());
        if (rc) return rc;
        if (h->sealed) host_ipc_seal(dev);
    } else if (posix_memalign(&p, 64, bytes ? bytes : 1)) {
        return sb_fail(dev, STENCIL_ENOMEM, "host backend: cannot allocate %zu bytes", bytes);
    }
    *m = p;
    dev->device_bytes += bytes;
    return 0;
}

void host_mem_free(sb_dev *dev, sb_mem m)
{
    if (!host_shm_drop(dev->impl, m)) free(m);
}

typedef struct host_handle {
    size_t bytes;
    char name[48];
} host_handle;

int host_ipc_export(sb_dev *dev, sb_mem m, void *handle, size_t cap, size_t *len)
{
    host_impl *h = dev->impl;
    host_handle hh;
    for (host_shm *s = h->shm; s; s = s->next) {
        if (s->p != m || !s->name[0]) continue;
        if (cap < sizeof hh) return sb_fail(dev, STENCIL_EINVAL, "handle buffer too small");
        memset(&hh, 0, sizeof hh);
        hh.bytes = s->bytes;
        memcpy(hh.name, s->name, sizeof hh.name);
        memcpy(handle, &hh, sizeof hh);
        *len = sizeof hh;
        return 0;
    }
    return sb_fail(dev, STENCIL_ENOSYS, "buffer is not in shared memory");
}

int host_ipc_open(sb_dev *dev, const void *handle, size_t len, sb_mem *m)
{
    host_handle hh;
    if (len != sizeof hh) return sb_fail(dev, STENCIL_EINVAL, "not a host handle");
    memcpy(&hh, handle, sizeof hh);
    hh.name[sizeof hh.name - 1] = '\0';
    return host_shm_add(dev, hh.name, hh.bytes, 0, m);
}

void host_ipc_close(sb_dev *dev, sb_mem m)
{
    host_shm_drop(dev->impl, m);
}
