/* Private interface of the skeleton: the run state, the exchange and collective errors. */
#ifndef SK_SKEL_H
#define SK_SKEL_H

#include <mpi.h>

#include "backend.h"
#include "err.h"
#include "layout.h"
#include "stencil.h"

/* One neighbour link of the halo exchange. */
typedef struct sk_link {
    int dir; /* sl_dir_index of the direction */
    int peer, send_tag, recv_tag;
    sl_box send, recv; /* local indices */
    size_t sbytes, rbytes;
    void *sbuf;
    void *rbuf[2]; /* alternate, so a receive never lands on a pending host->device copy */
    /* Peer path: halos pulled straight from the neighbour's device buffer, messages are tokens. */
    int pull;       /* we copy our recv box from the peer's buffers */
    int peer_pulls; /* the peer copies our send box: send a token, not data */
    int opened;     /* pbuf were opened with ipc_open (not our own buffers) */
    sb_mem pbuf[2]; /* the peer's two buffers */
    sl_box psend;   /* the peer's send box, in the peer's local indices */
    long pstride[SL_D];
} sk_link;

typedef struct sk_exchange {
    int n;
    sk_link link[SL_NDIRS];
    MPI_Request req[2 * SL_NDIRS];
    MPI_Status status[2 * SL_NDIRS]; /* not STATUSES_IGNORE: gcc 12 misreads MPICH's annotation */
    int nreq;
    int parity;
    long long bytes_sent, messages;
    int npull; /* links using the peer path */
} sk_exchange;

/* What this rank runs on, after options, environment and configuration file. */
typedef struct sk_rankcfg {
    char backend[16];
    int device;
    double weight;
    int weight_auto;
} sk_rankcfg;

/*
 * The environment variables the skeleton and layout take (env.c), read once when a run is
 * created: NULL where unset or empty. Parsed where they are used.
 */
typedef struct sk_env {
    const char *backend, *device, *weight, *config; /* config.c */
    const char *trace;                              /* "": off */
    const char *peer;                               /* 0 or 1 where options.peer is automatic */
    const char *steps;                              /* STENCIL_STEPS, else STENCIL_FUSE */
    const char *split;                              /* loop.c: 1 keeps the border/inner split */
    int verbose;                                    /* STENCIL_VERBOSE set */
    const char *calibration_rounds;                 /* weights.c */
    const char *ooc, *device_memory, *ooc_file, *ooc_bufs; /* out of core (ooc_decide.c, ooc.c) */
    int row_align; /* STENCIL_ROW_ALIGN in 1..1024, else 0 (sl_partition.row_align) */
    char *copy;    /* the strings above (env.c), freed with the run */
} sk_env;
void sk_env_read(sk_env *e);

struct sk_trace;
typedef struct sk_ooc sk_ooc;

/* The state of one stencil_skeleton() call. */
typedef struct sk_run {
    MPI_Comm comm;
    int rank, size;
    long iters;
    stencil_options opt;
    sk_env env; /* the environment, read by sk_new */
    sk_rankcfg cfg;
    int local_rank, local_size; /* among the ranks of this node */
    double *weights;            /* share weights of all ranks, or NULL for equal shares */
    int measured;               /* they are timed rates (weights.c): they may move to fit */
    sl_stencil st;              /* the stencil the kernels compute */
    sl_stencil lst; /* what `steps` updates in a row read: the halos and messages follow it */
    int steps;      /* T, time steps per exchange (options.steps or the automatic choice) */
    char why[48];   /* how T was chosen (stats.steps_why) */
    long npass;     /* loop passes: iterations / steps, rounded up (the rest in a shorter one) */
    int pass_steps; /* steps the updates being queued take (sk_update_boxes) */
    int fused;      /* a pass is one k-step update per box (2 <= T <= fuse_depth): no scratch */
    int nscr;       /* scratch arrays in scr: 0, 1 (T = 2), 2 (T >= 3), 4 (T >= 3, async) */
    sb_mem scr[4];  /* intermediate steps of a pass (loop.c); frame cells hold the fixed values */
    int scr_stale;  /* frame cells in the halos of scr not yet filled (after sk_upload) */
    double rate;    /* cells per second this rank measured (weights auto), else 0 */
    int depth;      /* its fuse_depth: steps per update call that run fast (<= 1: none) */
    sl_partition part;
    sl_local loc;
    sb_dev dev;
    int dev_open;
    sb_mem buf[2];
    void *host; /* host image of the local array, seen by the callbacks (sk_host) */
    sk_exchange x;
    stencil_stats stats;
    double hidden, xtime; /* exchange time with the inner update still running, and in all */
    struct sk_trace *tr;  /* per-iteration timestamps (trace.c), NULL when tracing is off */
    int rc;               /* first device error inside the loop; MPI keeps going so no peer hangs */
    int noticed;          /* a backend's notice was printed (sk_notice): once per call */
    int local;            /* a calibration pass (sk_local_pass): the exchange sends nothing */
    char msg[256];
    /* The persistent run (run.c): where the current iterate is and how far the run got. */
    long done;     /* iterations since the start, a loaded checkpoint's included */
    long ran;      /* iterations the loops of this run computed (statistics) */
    long goal;     /* progress lines: the skeleton's total; 0: each advance's own */
    int cur;       /* buf[cur] holds the current iterate */
    int failed;    /* an advance failed (agreed code): the run refuses more work */
    int traced;    /* the first advance was traced; later ones are not */
    long nckpt;    /* checkpoints written (stats.t_checkpoint is their time) */
    long nout;     /* monitor calls and views timed into stats.t_output */
    int out_end;   /* the skeleton's output callback is still to come */
    double t0;     /* MPI_Wtime() at creation */
    double t_up;   /* setup time, for stats */
    sk_ooc *ooc;   /* out of core (ooc.c): r->dev is then the host backend on the host copies */
    int ooc_T;     /* the T out-of-core sweeps want (sk_ooc_again), 0 before the probe */
    int ooc_round; /* set-ups run again, out of core, with a T from the probe (sk_ooc_again: at
                      most 2; every rank went out of core) */
    int ooc_Tmax;  /* the largest T set-up may choose: a larger one's chunks did not fit the
                      device memory limit (sk_ooc_retry; 0: no bound) */
    int ooc_short; /* this rank's chunks did not fit at r->steps: the largest smaller T whose
                      may (ooc.c; 0: none, or T was 1) */
    double ooc_bw, ooc_rate; /* the probe: bytes/s each way, both busy; kernel cells/s per step */
    struct sk_prog *prog;    /* a program run (skprog.h), else NULL */
} sk_run;

/* The public handle of a persistent run. */
struct stencil_run {
    sk_run *r;
};

/* Failures of the run's phases: err.h's helpers into r->msg. */
#define SK_FAIL(r, code, ...) ERR_FAIL(r, code, __VA_ARGS__)

int sk_exchange_init(sk_exchange *x, const sl_local *l, sb_dev *dev, size_t esize);
void sk_exchange_free(sk_exchange *x, sb_dev *dev);
/* Each phase works on buffer buf[idx] (the one just computed). */
int sk_exchange_post(sk_exchange *x, MPI_Comm comm);
int sk_exchange_pack(sk_exchange *x, sb_dev *dev, sb_mem *buf, int idx);
int sk_exchange_send(sk_exchange *x, MPI_Comm comm);
int sk_exchange_wait(sk_exchange *x);
int sk_exchange_unpack(sk_exchange *x, sb_dev *dev, sb_mem *buf, int idx, const long *stride);

/* The peer path (peer.c): set up after the buffers exist, torn down before they are freed. */
int sk_peer_setup(sk_run *r);
void sk_peer_close(sk_run *r);

/* Checks the stencil of a named kernel against the call's; 0 when equal. */
int sk_kernel_matches(const stencil_kernel *k, const sl_stencil *s, char *msg, size_t len);
/* The registered kernel named kernel (NULL: none asked, 0), checked against s: ENOKERNEL for an
   unknown name (the known ones in msg), EINVAL for another stencil. */
int sk_named_for(const char *kernel, const sl_stencil *s, const stencil_kernel **named, char *msg,
                 size_t len);

/*
 * Device-to-device box copies on one queue, held and sent as few copy_many launches
 * (skel/copies.c). add holds c (its boxes copied, its strides must outlive the batch), first
 * sending the held copies
 * where c depends on one of them (or the batch is full); flush sends them; touch: whether a held
 * copy reads or writes box x of m (strides s), for a caller about to write it another way.
 */
typedef struct sk_copies {
    sb_copy c[SB_COPY_MANY];
    sl_box box[SB_COPY_MANY][2]; /* each copy's boxes: destination, source */
    int n;
} sk_copies;
int sk_copies_add(sb_dev *dev, int q, sk_copies *b, const sb_copy *c);
int sk_copies_flush(sb_dev *dev, int q, sk_copies *b);
int sk_copies_touch(const sk_copies *b, sb_mem m, const sl_box *x, const long *s);

/* A device call inside the loop: skipped once r->rc is set, its failure sets r->rc. */
#define SK_DEV(r, call)                                                                            \
    do {                                                                                           \
        if (!(r)->rc) {                                                                            \
            int e_ = (call);                                                                       \
            if (e_) (r)->rc = err_set((r)->msg, sizeof(r)->msg, e_, "%s", (r)->dev.err);           \
        }                                                                                          \
    } while (0)

/* Runs one phase on every rank and agrees on its result; skipped once something failed. */
#define SK_PHASE(r, rc, call)                                                                      \
    do {                                                                                           \
        if (!(rc)) rc = err_agree((r)->comm, (call), (r)->msg, sizeof(r)->msg);                    \
    } while (0)

/* The backend this rank will open: the named one, or for "auto" the first candidate (sb_auto). */
const sb_ops *sk_planned_backend(const sk_run *r);

/* Whether set-up resumes from options.checkpoint (options.restart and the file exists);
   collective (setup.c). */
int sk_resuming(sk_run *r, int *resume);
/* Program runs: the iterations, weights and periodic work the same on every rank (setup.c). */
int sk_check_same_options(sk_run *r);
/* options.monitor (monitor.c): one call, its result agreed (1 sets *mine); then, after every
   call, whether any rank asked to stop (*stop), collective. */
int sk_monitor_call(sk_run *r, const stencil_tile *t, const stencil_norm *change, int *mine);
int sk_monitor_stop(sk_run *r, int rc, int mine, int *stop);
/* The rest of a one-call run after set-up gave rc (skeleton.c): the loop to each monitor and
   checkpoint point, the output, the statistics, the report; frees r. */
int sk_skeleton_finish(sk_run *r, int rc, long iterations, stencil_output_fn output);

/* A backend's notice (dev.note), printed once per call by rank 0 with how many ranks it
   concerns; collective, never an error (setup.c). */
int sk_notice(sk_run *r);

/* Resolves r->cfg from options, environment and configuration file (config.c). */
int sk_config_resolve(sk_run *r, int local_rank);

/* Sets r->weights from options, configured weights or a timed calibration (weights.c). */
int sk_weights(sk_run *r, const long *sizes, const stencil_kernel *named);
/*
 * The same with another calibration: rate(r, sizes, arg, &cells_per_s) times this rank on the
 * partition of r->weights (NULL: equal shares), 0 or a code agreed over the ranks, with r->msg
 * (a program's runs, prog_weights.c). sk_calib_pace times pass(r, k, arg), k = 0, 1, ... (the
 * first untimed) one at a time, both queues waited for, into seconds per pass; device errors
 * are taken from r->rc (SK_DEV) and cleared.
 */
typedef int (*sk_rate_fn)(sk_run *r, const long *sizes, void *arg, double *rate);
int sk_weights_by(sk_run *r, const long *sizes, sk_rate_fn rate, void *arg);
int sk_calib_pace(sk_run *r, void (*pass)(sk_run *r, long k, void *arg), void *arg, double *pace);
/*
 * sl_partition_make with r->weights into r->part. Measured weights (r->measured) that leave a part
 * thinner than minpart (a rank that was starved of its core while timed) move towards their mean,
 * by an eighth, a quarter, a half and all of the way, until every part holds (r->weights then the
 * ones used); given weights fail as they are. The same on every rank.
 */
int sk_partition_weighted(sk_run *r, int ndims, const long *g, const int *pgrid, const int *minpart,
                          int periodic);

/* Partition, device and buffers for the given weights (setup.c); sk_release undoes it. */
int sk_prepare(sk_run *r, const long *sizes, const stencil_kernel *named);
void sk_release(sk_run *r);

/*
 * Tracing (trace.c). Device stamps of one iteration, in queue order: border start and end, pack
 * end on the border queue, then unpack start and end; inner start and end on the inner queue.
 * Host times: just before the sends, and when the MPI wait returned.
 */
enum { SK_B0, SK_B1, SK_P1, SK_U0, SK_U1, SK_I0, SK_I1, SK_NDEV };
enum { SK_SEND, SK_WAIT, SK_NHOST };
/* Timestamp slots the device prepares (sb_open_args.stamps); 0 when tracing is off. */
int sk_trace_slots(const sk_run *r);
/* Creates r->tr and the trace file when tracing is on; 0 or STENCIL_ENOMEM / STENCIL_EIO. */
int sk_trace_open(sk_run *r);
/* Before the loop, queues idle: the first clock reference. */
void sk_trace_start(sk_run *r);
/* Before pass t: traced or not; reads the device stamps back when the chunk is full. */
void sk_trace_begin(sk_run *r, long t);
void sk_trace_stamp(sk_run *r, int q, int what);
void sk_trace_host(sk_run *r, int what, double when);
/* After the loop, queues idle: the last stamps, the file, and the totals into r->stats. */
void sk_trace_finish(sk_run *r, double t0);
void sk_trace_free(sk_run *r);

/* n iterations from buf[cur] (loop.c), then their statistics; cur and done move on. */
int sk_loop(sk_run *r, long n);
/* One pass of the loop without messages, for calibration (loop.c). */
void sk_local_pass(sk_run *r, long k);
/* Passes of the loop for n iterations: n / steps, rounded up. */
long sk_passes(const sk_run *r, long n);
/* The progress line's seconds left at iteration done of goal, per_iter seconds per iteration. */
double sk_time_left(const sk_run *r, double per_iter, long done, long goal);
/* Time steps per exchange for this run, the same on every rank, and the layout for it (steps.c). */
int sk_setup_steps(sk_run *r, const long g[SL_D], const int pgrid[SL_D],
                   const stencil_kernel *named);
/* Box b widened by k steps of the stencil's reach on each side, within live (same indices;
   widen.c). */
sl_box sk_widen(const sk_run *r, const sl_box *b, int k, const sl_box *live);
/* Queues updates of the global boxes b[0..n-1] on queue q and flushes it; errors go to r->rc. */
void sk_update_boxes(sk_run *r, int q, sb_mem in, sb_mem out, const sl_box *b, int n);
void sk_stats(sk_run *r, double t0, double t_setup);

/* The persistent run (setup.c, run.c, checkpoint.c), without calling on_error. */
int sk_new(MPI_Comm comm, const stencil_options *opt, sk_run **out);
int sk_setup(sk_run *r, const long *sizes, const stencil_desc *st, const char *kernel,
             stencil_init_fn init);
void sk_free(sk_run *r);
int sk_advance(sk_run *r, long n, stencil_norm *change);
/* A program run's advance (skprog.h): changes per field (nchanges >= fields) or, with
   nchanges -1, one for all fields together; NULL: none. */
int sk_advance_prog(sk_run *r, long n, stencil_norm *changes, int nchanges);
/* The device's figures of a program run out of core into the statistics (prog_ooc.c). */
void sk_prog_stats(sk_run *r, stencil_stats *s);
/* Node-local rank and this rank's backend configuration (setup.c). */
int sk_node_config(sk_run *r);
/* The current tile: data read back from the device when fetch, else NULL. */
int sk_current(sk_run *r, stencil_tile *t, int fetch);
int sk_view(sk_run *r, stencil_output_fn fn);
/* The tile of the host image r->host (image.c), as the callbacks see it. */
void sk_tile(sk_run *r, stencil_tile *t);
/* The host image (image.c) into both device buffers. */
int sk_upload(sk_run *r);
/* The init callback on the host image, then sk_upload. */
int sk_init_data(sk_run *r, stencil_init_fn init);
int sk_checkpoint(sk_run *r, const char *path);
/* Checkpoint files' steps, for program runs too (ckfile.c): path and its temporary name path.tmp
   checked (rank 0 looks at the directory), rank 0's rename, an io failure's agreed message. */
int sk_path_ok(sk_run *r, const char *path, char *tmp, size_t len);
int sk_commit(sk_run *r, const char *tmp, const char *path);
int sk_io_fail(sk_run *r, int rc, const char *what, const char *path, const char *io);
/* A public call's end: on_error with the agreed message, else rank 0 prints it (run.c). */
int sk_report(sk_run *r, int rc);
int sk_load(sk_run *r, const char *path);
/* Collective: 0, or STENCIL_EINVAL on every rank when the ranks' strings differ (what: for the
   message; ckfile.c). Not agreed: call it inside SK_PHASE. */
int sk_same_text(sk_run *r, const char *s, const char *what);
/* A hash of the stencil (offsets, weights, divisor, type): checkpoints record it. */
unsigned long long sk_stencil_hash(const sl_stencil *s);

/*
 * Out-of-core runs. The decision (ooc_decide.c): sk_ooc_mode -1 off, 0 automatic, 1 on;
 * sk_ooc_expected, before the partition, whether this rank will start out of core, and
 * sk_ooc_all_expected whether every rank will (collective); sk_ooc_steps the T then (steps.c);
 * sk_ooc_decide (collective) whether this rank starts out of core; sk_alloc_any allocates in
 * core (sk_alloc) or out of core (sk_ooc_start, also after the device refused the memory).
 * sk_ooc_start (ooc.c) moves the opened device aside, allocates the chunk buffers and probes the
 * link and the kernel; sk_ooc_host then allocates the host copies, once T is settled
 * (sk_ooc_again); a sweep advances buf[src] by T steps into buf[src ^ 1] (errors into r->rc).
 */
int sk_ooc_mode(const sk_run *r);
int sk_ooc_expected(sk_run *r);
int sk_ooc_all_expected(sk_run *r, int *all);
int sk_ooc_steps(sk_run *r, int fit);
int sk_ooc_decide(sk_run *r, int *want);
int sk_alloc(sk_run *r);
int sk_alloc_any(sk_run *r);
int sk_ooc_start(sk_run *r);
int sk_ooc_host(sk_run *r);
/*
 * Collective, after set-up: 1 when every rank is out of core, T was not forced, and the T the
 * probe wants (sk_ooc_want, the smallest over the ranks) differs from the one set up: r->ooc_T
 * is then set, for set-up to run again with it. Twice at most: the first probe runs two steps per
 * launch, the second the sweeps' own depth.
 */
int sk_ooc_again(sk_run *r);
/*
 * Collective, after set-up failed with the agreed code rc: 1 when some rank's chunks did not fit
 * at the T set up (r->ooc_short) and T was not forced; r->ooc_Tmax is then the least such bound,
 * for set-up to run again under it (T only decreases, so this ends).
 */
int sk_ooc_retry(sk_run *r, int rc);
void sk_ooc_release(sk_run *r);
void sk_ooc_why(sk_run *r); /* stats.steps_why of the probe's T (ooc_stats.c) */
void sk_ooc_sweep(sk_run *r, int src, int T, int next_T);
void sk_ooc_stats(sk_run *r, stencil_stats *s);

#endif /* SK_SKEL_H */
