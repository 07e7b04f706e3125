/*
 * MPI waits that give the processor away, for test runs with more ranks than cores.
 *
 * MPICH's ch4:ucx device waits by polling without ever yielding: with 3 or 4 ranks on a 2-core
 * CI machine, a rank waiting for a neighbour that is descheduled spins away the neighbour's
 * time slice, and every exchange costs scheduler slices instead of microseconds. These
 * definitions of the blocking calls the library and the tests make take precedence over
 * libmpich's (the test executables define them; libstencil.so's calls bind to them): each is
 * the nonblocking call, then PMPI_Test until done, yielding the processor between polls and
 * sleeping once a wait has lasted a while. Same semantics as the blocking calls.
 *
 * MPI_Comm_split_type (a shared-memory split, twice in every stencil_skeleton call) has no
 * nonblocking form; its collectives inside MPICH spun for most of a 3-rank run. Where MPICH says
 * every rank of MPI_COMM_WORLD is on one node, the split of any communicator with the keys in
 * rank order is that communicator again, which MPI_Comm_idup makes; elsewhere (the multinode
 * tests' namespaces, other keys) MPICH splits.
 */
#include <mpi.h>
#include <sched.h>
#include <time.h>

/* Polls before a wait starts to sleep; each poll after that sleeps this long. */
enum { SPIN_POLLS = 64, NAP_NS = 20000 };

static int wait_n(int n, MPI_Request *reqs, MPI_Status *sts)
{
    for (long polls = 0;; polls++) {
        int done = 0;
        int rc = n == 1 ? PMPI_Test(reqs, &done, sts) : PMPI_Testall(n, reqs, &done, sts);
        if (rc != MPI_SUCCESS || done) return rc;
        if (polls < SPIN_POLLS) {
            sched_yield();
        } else {
            struct timespec nap = {0, NAP_NS};
            nanosleep(&nap, NULL);
        }
    }
}

int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    return wait_n(1, req, st);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    return wait_n(n, reqs, sts);
}

int MPI_Barrier(MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Ibarrier(comm, &r);
    return rc != MPI_SUCCESS ? rc : wait_n(1, &r, MPI_STATUS_IGNORE);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Ibcast(buf, count, type, root, comm, &r);
    return rc != MPI_SUCCESS ? rc : wait_n(1, &r, MPI_STATUS_IGNORE);
}

int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Iallreduce(in, out, count, type, op, comm, &r);
    return rc != MPI_SUCCESS ? rc : wait_n(1, &r, MPI_STATUS_IGNORE);
}

int MPI_Allgather(const void *in, int incount, MPI_Datatype intype, void *out, int outcount,
                  MPI_Datatype outtype, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Iallgather(in, incount, intype, out, outcount, outtype, comm, &r);
    return rc != MPI_SUCCESS ? rc : wait_n(1, &r, MPI_STATUS_IGNORE);
}

static int idup(MPI_Comm comm, MPI_Comm *out)
{
    MPI_Request r;
    int rc = PMPI_Comm_idup(comm, out, &r);
    return rc != MPI_SUCCESS ? rc : wait_n(1, &r, MPI_STATUS_IGNORE);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    return idup(comm, out);
}

/* Whether every rank of MPI_COMM_WORLD shares one node: asked of MPICH once, at MPI_Init, where
   every rank takes part. */
static int one_node;

static int init_done(int rc)
{
    MPI_Comm node;
    int n, w;
    if (rc == MPI_SUCCESS && PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                                                  MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        PMPI_Comm_size(node, &n);
        PMPI_Comm_size(MPI_COMM_WORLD, &w);
        PMPI_Comm_free(&node);
        one_node = n == w;
    }
    return rc;
}

int MPI_Init(int *argc, char ***argv)
{
    return init_done(PMPI_Init(argc, argv));
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return init_done(PMPI_Init_thread(argc, argv, required, provided));
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out)
{
    int size, rc, in_order = 1;
    if (type != MPI_COMM_TYPE_SHARED || !one_node)
        return PMPI_Comm_split_type(comm, type, key, info, out);
    PMPI_Comm_size(comm, &size);
    int keys[size];
    rc = MPI_Allgather(&key, 1, MPI_INT, keys, 1, MPI_INT, comm);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 1; i < size; i++) in_order &= keys[i - 1] <= keys[i];
    return in_order ? idup(comm, out) : PMPI_Comm_split_type(comm, type, key, info, out);
}
