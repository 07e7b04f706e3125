/*
 * libstencil - iterative stencil computations on distributed, heterogeneous devices.
 *
 * One call, stencil_skeleton(), partitions a 1-3 dimensional array over the ranks of an MPI
 * communicator, runs a stencil on each rank's device for a number of iterations while the halo
 * exchange overlaps the inner update, and hands the result to an output callback.
 *
 * Every public function returns 0 or a negative STENCIL_E* code; stencil_strerror() names it.
 * Collective functions return the same code on every rank.
 */
#ifndef STENCIL_H
#define STENCIL_H

#include <stddef.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STENCIL_MAX_DIMS 3
/* Widest halo supported on one side of one dimension. */
#define STENCIL_MAX_RADIUS 8
/* The most time steps per halo exchange options.steps may ask for. */
#define STENCIL_MAX_STEPS 16
/* Iterations traced (stencil_options.trace): the passes that start within the first this many. */
#define STENCIL_TRACE_MAX 100000L

/* Error codes. */
#define STENCIL_OK         0
#define STENCIL_EINVAL     (-1)  /* an argument is invalid */
#define STENCIL_ENOMEM     (-2)  /* host memory exhausted */
#define STENCIL_EPARTITION (-3)  /* the grid cannot be cut for these ranks and radii */
#define STENCIL_ENOBACKEND (-4)  /* backend not built in, or no usable device */
#define STENCIL_ENOKERNEL  (-5)  /* unknown kernel name, or none for this backend */
#define STENCIL_EDEVICE    (-6)  /* a device runtime call failed */
#define STENCIL_EBUILD     (-7)  /* a device kernel failed to compile */
#define STENCIL_EMPI       (-8)  /* an MPI call failed */
#define STENCIL_ECALLBACK  (-9)  /* a user callback returned non-zero */
#define STENCIL_ENOSYS     (-10) /* operation not supported by this backend */
#define STENCIL_ENOFP64    (-11) /* double requested on a device without fp64 */
#define STENCIL_EDEVMEM    (-12) /* device memory exhausted or too small for the grid */
#define STENCIL_EIO        (-13) /* file input/output failed */
#define STENCIL_EFORMAT    (-14) /* a file or description is malformed */
#define STENCIL_ECODE_MIN  (-14)

typedef enum stencil_type { STENCIL_FLOAT = 0, STENCIL_DOUBLE = 1 } stencil_type;

/*
 * A stencil: new[c] = (sum over non-zero w[o] * old[c + o]) / divisor.
 *
 * weights is dense over the box of offsets [-radius_lo[d], +radius_hi[d]] per dimension, row-major
 * with dimension 0 slowest; its length is the product of (radius_lo[d] + 1 + radius_hi[d]).
 * Zero weights are not neighbours: they are never read, exchanged or allocated for.
 * The non-zero terms are summed in that row-major order, which every backend keeps, so results are
 * bitwise reproducible for a given backend whatever the partition.
 */
typedef struct stencil_desc {
    int ndims;                       /* 1..3 */
    int radius_lo[STENCIL_MAX_DIMS]; /* 0..STENCIL_MAX_RADIUS */
    int radius_hi[STENCIL_MAX_DIMS]; /* 0..STENCIL_MAX_RADIUS */
    const double *weights;
    double divisor;    /* non-zero, finite */
    stencil_type type; /* element type of the array */
} stencil_desc;

/*
 * A rank's owned part of the global array, as the callbacks see it (host memory).
 * Element (i, j, k) of the tile, global index offset + (i, j, k), is at
 * data + i * stride[0] + j * stride[1] + k * stride[2] elements (unused dims have size 1).
 */
typedef struct stencil_tile {
    stencil_type type;
    int ndims;
    long global_size[STENCIL_MAX_DIMS];
    long offset[STENCIL_MAX_DIMS];
    long size[STENCIL_MAX_DIMS];
    long stride[STENCIL_MAX_DIMS];
    void *data;
    int boundary_lo[STENCIL_MAX_DIMS]; /* 1: this tile's low face is the global low edge */
    int boundary_hi[STENCIL_MAX_DIMS]; /* 1: this tile's high face is the global high edge */
    int rank;
    long iteration; /* iterations done when the tile is shown */
    /*
     * Programs (stencil_program_*): the field this tile holds, by name, and its time level (0
     * the current one; -1 the previous one of a field that keeps it, shown to init only).
     * NULL and 0 for a stencil run.
     */
    const char *field;
    int level;
} stencil_tile;

/* The change between two consecutive iterates over the updated cells of the whole array. */
typedef struct stencil_norm {
    double l2;       /* sqrt(sum of (new - old)^2), summed in double (order: per rank, then MPI) */
    double max;      /* max |new - old|, exact; NaN when the sum is NaN (a diverging run) */
    long long cells; /* updated cells counted */
    long iteration;  /* the newer iterate's iteration count */
} stencil_norm;

/* Callbacks return 0, or non-zero to make every rank fail with STENCIL_ECALLBACK. */
typedef int (*stencil_init_fn)(stencil_tile *tile, void *user);
typedef int (*stencil_output_fn)(const stencil_tile *tile, void *user);
typedef void (*stencil_error_fn)(int code, const char *message, void *user);

typedef enum stencil_partition {
    STENCIL_PART_BANDS = 0, /* contiguous bands along dimension 0 */
    STENCIL_PART_BLOCKS = 1 /* blocks over a process grid of ndims dimensions */
} stencil_partition;

typedef enum stencil_boundary {
    STENCIL_BOUNDARY_FIXED = 0,    /* an outer frame of width = radius keeps its initial values */
    STENCIL_BOUNDARY_PERIODIC = 1, /* offsets wrap around the global grid */
    /* Faces only (stencil_options.face): reads beyond the face reflect about it (ghost cell -1
       is cell 0: zero gradient), and every cell up to the face is updated. */
    STENCIL_BOUNDARY_MIRROR = 2,
    /* Faces only: reads beyond the face read stencil_options.face_value; every cell updated. */
    STENCIL_BOUNDARY_CONSTANT = 3
} stencil_boundary;

/*
 * Per-rank measurements; times in seconds, counts for this rank unless named global.
 * exchange_hidden, traced (options.trace): over the traced passes, the time [border end, unpack
 * end] (the exchange) overlaps [inner start, inner end], divided by the exchange time (device
 * stamps). Untraced, a lower bound: the host time from the border wait to the end of the unpack
 * calls of the passes whose inner update was still running then, over all of that time.
 */
typedef struct stencil_stats {
    double t_total;         /* whole call */
    double t_setup;         /* partition, device, kernel build, init upload */
    double t_loop;          /* the iterations, max over ranks */
    double t_border;        /* host time waiting for border kernels and device->host copies */
    double t_mpi;           /* host time in the MPI exchange */
    double t_halo_in;       /* host time issuing host->device halo copies */
    double exchange_hidden; /* fraction of the exchange during which the inner update ran, 0..1 */
    double gcells;          /* global updated cells * iterations / t_loop / 1e9 */
    long long cells;        /* global updated cells per iteration (programs: of the grid, the
                               most any evolving field updates, not summed over the fields) */
    long long bytes_sent;   /* halo bytes this rank sent */
    long long messages;     /* halo messages this rank sent */
    int peer_links;         /* of those, links whose halos arrive device to device */
    int links;              /* neighbour links this rank receives halos on */
    size_t device_bytes;    /* device memory this rank allocated */
    size_t local_bytes;     /* bytes of this rank's owned cells */
    int nranks;
    int proc_grid[STENCIL_MAX_DIMS];
    long owned_lo[STENCIL_MAX_DIMS], owned_hi[STENCIL_MAX_DIMS];
    double weight;      /* this rank's share weight */
    int calib_rounds;   /* timed calibration rounds behind the weights (weights auto), else 0 */
    int steps;          /* T, time steps per halo exchange (options.steps) */
    char steps_why[48]; /* how T was chosen: "forced", "automatic: ...", "parts too thin ..." */
    char backend[16];
    char device[64];
    /* Tracing on: each phase's device time summed over the traced passes (0 when off). */
    double t_dev_border; /* [border start, border end] */
    double t_dev_pack;   /* [border end, pack end]: device->host halo copies */
    double t_dev_unpack; /* [unpack start, unpack end]: host->device or peer halo copies */
    double t_dev_inner;  /* [inner start, inner end] */
    long traced;         /* iterations the traced passes cover; 0: off */
    /*
     * The kernel this rank ran: "generic", "rtc" (specialized to the stencil at run time: NVRTC,
     * hiprtc or the OpenCL compiler, from kgt's emitters), or "named" (a registered kernel).
     */
    char kernel[16];
    double t_compile; /* of t_setup, seconds spent compiling run-time kernels (0: cached, none) */
    /*
     * Out of core (options.out_of_core): ooc is 1 when this rank streamed its part through its
     * device (backend, device and device_bytes are then the device's, steps the steps per sweep);
     * bytes are the sweeps' transfers. A probe at set-up times one chunk's upload beside a download
     * (ooc_bandwidth, each way) and its update (ooc_rate); ooc_hidden is the fraction of the
     * transfer time the sweeps hid behind the updates at those rates (0 on a synchronous backend).
     */
    int ooc;
    int ooc_chunks;             /* chunks per sweep */
    long long ooc_up, ooc_down; /* bytes host->device, device->host */
    double ooc_hidden;          /* 0..1 */
    double ooc_bandwidth;       /* measured host<->device bytes/s, each way */
    double ooc_rate;            /* measured kernel cells/s (cells times steps) */
    /* Time in checkpoints (options.checkpoint, stencil_checkpoint) and in outputs (read-back
       and callback: the output callback, the monitor, stencil_view): in t_total, not t_loop. */
    double t_checkpoint;
    double t_output;
} stencil_stats;

typedef struct stencil_kernel stencil_kernel;

typedef struct stencil_options {
    stencil_partition partition;
    int proc_grid[STENCIL_MAX_DIMS]; /* blocks: ranks per dimension, 0 = automatic */
    const double *rank_weights;      /* weighted partition: one positive weight per rank, or NULL */
    int weights_auto;                /* 1: calibrate weights by a short timed run first */
    stencil_boundary boundary;
    const char *backend; /* "host", "opencl", "cuda", "hip", or NULL/"auto" */
    const char *config;  /* per-rank configuration file (README); NULL: $STENCIL_CONFIG */
    int device;          /* device index; -1 = node-local rank modulo device count */
    int serialize;       /* 1: no overlap (phases one after another), for measuring */
    int peer; /* neighbours on one node swap halos device to device: -1 auto, 0 off, 1 on */
    /* Rank 0 prints a line every this many iterations (0: off): the rate and the time left,
       with the checkpoints and outputs to come at the mean time of those so far. */
    int progress;
    /*
     * T, time steps per halo exchange: each pass updates T steps from halos T times as deep (T
     * times fewer messages; the margins the neighbours also compute are recomputed). Results are
     * bitwise the same for every T. 1..STENCIL_MAX_STEPS forces T (STENCIL_EPARTITION when a part
     * is thinner than T radii; ranks that differ: the largest); 0 (default) is $STENCIL_STEPS (or
     * $STENCIL_FUSE) when a number, else automatic (docs/CONCEPTS.md, "Time steps per exchange").
     * Other values: STENCIL_EINVAL. Programs: automatic is 1, 4 where one rank's 2D float
     * program fuses on a CUDA/HIP device (stats.steps_why), and out of core a sweep's; a forced T
     * is lowered (stats.steps_why) where a part is thinner than T steps read, and is 1 where an
     * update reads the cell's index along a periodic dimension.
     */
    int steps;
    int fuse; /* deprecated alias of steps, used when steps is 0 */
    /*
     * Phase timestamps: each rank writes "<trace>.<rank>.jsonl", a JSON line per pass of T steps
     * ("it": its first iteration, "steps": how many; docs/TRACING.md) that starts in the first
     * STENCIL_TRACE_MAX iterations. NULL = $STENCIL_TRACE; "" = off.
     */
    const char *trace;
    stencil_stats *stats;      /* optional, stencil_skeleton fills it (all zeros after an error) */
    stencil_error_fn on_error; /* optional, called on every rank with the agreed error */
    void *user;                /* passed to every callback */
    /*
     * Periodic work of stencil_skeleton() (stencil_create/stencil_advance do it by hand). Every
     * monitor_every iterations the last step runs alone, the norm of its change is computed and
     * monitor(tile, change, user) is called on every rank: tile->data holds the current array
     * when monitor_data is 1 (read back from the device), else it is NULL (geometry only, no
     * transfer). The monitor returns 0 to go on, 1 to stop there on every rank (any rank asking
     * stops all; output then sees that iteration), anything else fails with STENCIL_ECALLBACK.
     */
    long monitor_every;
    int (*monitor)(const stencil_tile *tile, const stencil_norm *change, void *user);
    int monitor_data;
    /*
     * Checkpoints: every checkpoint_every iterations (and at the end), the array goes to
     * `checkpoint` (stencil_checkpoint: HDF5 when the name ends in .h5, else the native format).
     * With restart = 1 a call whose checkpoint file exists resumes from it (stencil_load): it
     * runs only what is left of `iterations`, and init is not called.
     */
    long checkpoint_every;
    const char *checkpoint;
    int restart;
    /*
     * Grids larger than device memory (docs/OUT-OF-CORE.md). Out of core, a rank keeps both
     * time levels in host memory and streams them through its device in chunks of rows of
     * dimension 0, T steps per sweep (options.steps, else chosen from probed rates;
     * stats.steps_why). out_of_core: 0 (default) $STENCIL_OOC if on or off, else when the part
     * does not fit device_memory or the device; 1 always; -1 never (STENCIL_EDEVMEM instead).
     * device_memory: bytes a rank may allocate on its device; 0: $STENCIL_DEVICE_MEMORY (k, M, G
     * suffixes), else the device's own limit. ooc_file: "<path>.<rank>" backs the host copies by
     * a memory-mapped file (unlinked at once), for parts larger than host memory; NULL:
     * $STENCIL_OOC_FILE; "": none. Out of core, tracing and the peer path are off and
     * weights_auto fails with STENCIL_EINVAL. Programs: every level of every field streams
     * (device_memory counts them all; ooc_file holds them all).
     */
    int out_of_core;
    long long device_memory;
    const char *ooc_file;
    /*
     * A failed call without on_error: rank 0 prints the agreed message (the reason, with its
     * numbers) once on stderr, "libstencil: <strerror>: rank N: <message>". 1: print nothing.
     */
    int quiet;
    /*
     * A boundary per face of a stencil run: face[d][0] the low side of dimension d, face[d][1]
     * the high one, face_value the value a constant face reads. All FIXED (the default): the
     * faces are options.boundary. Otherwise each face is its own, periodic on both sides of a
     * dimension or neither (STENCIL_EINVAL), e.g. a channel periodic along one dimension with
     * mirror walls across it. Programs state their boundaries in their text instead.
     */
    stencil_boundary face[STENCIL_MAX_DIMS][2];
    double face_value[STENCIL_MAX_DIMS][2];
} stencil_options;

/* Sets the defaults: bands, fixed boundary, automatic backend and device, no stats. */
void stencil_options_init(stencil_options *opt);

/*
 * Runs `iterations` steps of `st` over a global array of `sizes` (ndims entries) distributed over
 * `comm`. `kernel` names a registered specialized kernel, or NULL: CUDA and HIP then compile a
 * kernel specialized to `st` at run time (NVRTC, hiprtc), OpenCL builds its kernel with the
 * stencil's terms, the host runs its table-driven kernel; where a run-time compile fails (or
 * $STENCIL_RTC=0) the table-driven kernel runs, with a notice.
 * `init` fills each rank's owned tile (required); `output` sees the final tile (optional).
 * Collective over comm; reentrant (no global state but the kernel registry).
 */
int stencil_skeleton(MPI_Comm comm, const long *sizes, const stencil_desc *st, long iterations,
                     const char *kernel, stencil_init_fn init, stencil_output_fn output,
                     const stencil_options *opt);

/* A static string describing an error code. */
const char *stencil_strerror(int code);

/* Checks a stencil description without running anything (not collective). */
int stencil_desc_check(const stencil_desc *st, char *msg, size_t msglen);

/*
 * Specialized kernels. A kernel updates the box [lo, hi) of a rank's local array, in local
 * indices, reading `in` and writing `out`; stride is the local array's element strides.
 * Device launchers take the backend's stream or queue as `queue` and return 0 or non-zero. The
 * backend calls its launcher once at set-up with an empty box (lo == hi), NULL arrays and queue:
 * it must launch nothing (kgt's launchers load their kernels then, not in the run's loop).
 */
typedef void (*stencil_host_kernel_fn)(const void *in, void *out, const long *lo, const long *hi,
                                       const long *stride);
typedef int (*stencil_device_kernel_fn)(const void *in, void *out, const long *lo, const long *hi,
                                        const long *stride, void *queue);
/*
 * A fused launcher computes two steps in one launch: out over [lo, hi) receives the stencil
 * applied twice to in. The first step, needed up to a radius around the box, is computed (on
 * chip, never stored) only inside [live_lo, live_hi); cells outside it (the fixed frame) keep
 * their values. `in` is valid over the box plus twice the radius, clipped to the local array.
 */
typedef int (*stencil_device_fused_fn)(const void *in, void *out, const long *lo, const long *hi,
                                       const long *live_lo, const long *live_hi, const long *stride,
                                       void *queue);

/*
 * Several steps per launch, made by kgt (P.cu): kernels[L] are the device compiler's handles of the
 * library's L-step streaming kernels (2 <= L <= depth), the same ones kernel NULL runs, launched
 * by the library's own plans; stamp[L] a digest of their source, which must equal the library's.
 */
typedef struct stencil_device_steps {
    int depth;
    unsigned long long stamp[5];
    const void *kernels[5][2];
} stencil_device_steps;

struct stencil_kernel {
    const char *name;
    stencil_desc stencil;           /* what it computes; a call must pass an equal stencil */
    stencil_host_kernel_fn host[2]; /* indexed by stencil_type; NULL = none */
    const char *opencl_source; /* OpenCL C defining stencil_update (backends/opencl); NULL = none */
    stencil_device_kernel_fn cuda[2];          /* NULL = none */
    stencil_device_kernel_fn hip[2];           /* NULL = none */
    stencil_device_fused_fn cuda_fused[2];     /* two steps per launch; NULL = none */
    stencil_device_fused_fn hip_fused[2];      /* NULL = none */
    const stencil_device_steps *cuda_steps[2]; /* kgt's multi-step kernels; NULL = none */
    const stencil_device_steps *hip_steps[2];  /* NULL = none */
};

/*
 * Adds a kernel to the process-wide registry (call before the skeleton, not concurrently with it).
 * STENCIL_EINVAL for a NULL or unnamed kernel, an invalid stencil, or another kernel of the same
 * name; STENCIL_ENOMEM when the registry is full. The reason is printed on stderr;
 * stencil_register_kernel_msg writes it into msg instead (not collective, like the registry).
 */
int stencil_register_kernel(const stencil_kernel *k);
int stencil_register_kernel_msg(const stencil_kernel *k, char *msg, size_t msglen);
/* Looks a kernel up; NULL if unknown. */
const stencil_kernel *stencil_find_kernel(const char *name);
/* Writes the registered names, comma separated, into buf. */
void stencil_kernel_names(char *buf, size_t len);

/*
 * Persistent runs: stencil_create (all stencil_skeleton() does before its loop), advances,
 * views, norms, checkpoints, stencil_destroy; stencil_skeleton() is exactly create + advance +
 * view + destroy, and advances of n1, n2, ... give bitwise one advance of n1 + n2 + ....
 * Every call but stencil_iteration is collective over the run's communicator and returns the
 * same code on every rank. A run whose advance failed (a device or MPI error) refuses further
 * work with STENCIL_EINVAL but can be destroyed; a failed view, checkpoint or load leaves the
 * array as it was (docs/GUARANTEES.md). Runs are independent (own duplicate communicators).
 */
typedef struct stencil_run stencil_run;

/*
 * Partition, devices, kernels and init, as stencil_skeleton() (init called once on every rank;
 * with opt->restart and an existing opt->checkpoint the checkpoint is loaded instead and init
 * may be NULL). On success *run is the new run, else NULL and nothing is left allocated.
 */
int stencil_create(MPI_Comm comm, const long *sizes, const stencil_desc *st, const char *kernel,
                   stencil_init_fn init, const stencil_options *opt, stencil_run **run);
/* n >= 0 more iterations. */
int stencil_advance(stencil_run *run, long n);
/*
 * n >= 1 more iterations, the last one alone (not fused), then the norm of that last step's
 * change, computed on the device and reduced over the ranks. Costs about one read of both arrays.
 */
int stencil_advance_norm(stencil_run *run, long n, stencil_norm *change);
/* Reads the current array back from the devices and shows each rank's tile to fn. */
int stencil_view(stencil_run *run, stencil_output_fn fn);
/* Iterations done since the start (a loaded checkpoint's count included); not collective. */
int stencil_iteration(const stencil_run *run, long *iteration);
/* Statistics of the advances so far (t_loop summed, gcells over them); all zeros on error. */
int stencil_run_stats(stencil_run *run, stencil_stats *stats);
/*
 * Writes the current array with its iteration and stencil to path, completely or not at all:
 * to path + ".tmp", then renamed over path. HDF5 (with an XDMF sidecar, the name's ".h5"
 * replaced by ".xmf") when path ends in ".h5" and HDF5 is built in (else STENCIL_ENOSYS),
 * otherwise the native format (stencil_write's, with a stencil hash in its header).
 */
int stencil_checkpoint(stencil_run *run, const char *path);
/*
 * Replaces the array by a checkpoint (any format stencil_read reads, any writer's rank count
 * and partition) and sets the iteration count to the file's. STENCIL_EFORMAT when the file
 * holds another stencil, size or element type, or is truncated; STENCIL_EIO when it is missing
 * or not a regular file. A refused file leaves the array unchanged, in core and out of core; an
 * I/O error in the data itself, out of core, marks the run failed.
 */
int stencil_load(stencil_run *run, const char *path);
/* Frees everything; *run becomes NULL (a later call with it gets STENCIL_EINVAL). NULL is ok. */
int stencil_destroy(stencil_run **run);
/*
 * 1 when built with parallel HDF5, else 0. Then stencil_write() of a name ending in ".h5" or
 * ".hdf5" writes HDF5 (dataset "/u", a program's fields by name, an output's or checkpoint's
 * in one file: io/README.md; attributes iteration and sizes) and an XDMF sidecar, and
 * stencil_read() reads HDF5 files as well as native ones (told apart by their first bytes).
 */
int stencil_have_hdf5(void);

/* Parallel output, restart and pictures. */

/*
 * Writes the distributed array to one file, collectively over comm (every rank passes its tile,
 * as the output callback sees it): a 128-byte little-endian header (magic, version, ndims,
 * global sizes, element type, tile->iteration) and the elements row-major, through MPI-IO, in
 * place (not atomic: checkpoints are). An existing regular file is replaced; anything else is
 * STENCIL_EIO and left alone. STENCIL_EINVAL: tiles disagree or overlap.
 */
int stencil_write(MPI_Comm comm, const char *path, const stencil_tile *tile);
/*
 * Reads a file of stencil_write() into the tiles, collectively; any partition and rank count
 * may read what another wrote. Call it from the init callback to restart; *iteration (may be
 * NULL) and tile->iteration receive the file's iteration. STENCIL_EFORMAT when the file is not
 * such a file or its sizes or element type differ from the tile's; STENCIL_EIO when it cannot
 * be opened or read. On error, rank 0 prints the reason on stderr.
 */
int stencil_read(MPI_Comm comm, const char *path, stencil_tile *tile, long *iteration);
/* Reads the header alone, collectively: dimensions, sizes (ndims entries), type, iteration. */
int stencil_read_info(MPI_Comm comm, const char *path, int *ndims, long *sizes, stencil_type *type,
                      long *iteration);
/*
 * A colour-mapped PNG of a 2D array, or of the slice slice_index of dimension slice_dim of a 3D
 * array (both ignored in 2D), with a colour bar and the value range. Values map over
 * [vmin, vmax]; vmin == vmax takes the global finite range. Grids over 2048 cells a side are
 * sampled down. Collective; rank 0 writes. STENCIL_ENOSYS when built without libpng.
 */
int stencil_write_png(MPI_Comm comm, const char *path, const stencil_tile *tile, int slice_dim,
                      long slice_index, double vmin, double vmax);

/*
 * Programs (README, "Programs"; the language: kgt/README.md, "Programs"): several evolving
 * fields, read-only coefficient fields, named parameters, non-linear update expressions, a
 * previous time level and a boundary per face, written once as text (`program NAME ... end`)
 * and run on every backend through the same skeleton as a stencil. A linear stencil is one case
 * of a program. A run of a program is a stencil_run: stencil_advance, stencil_advance_norm,
 * stencil_view, stencil_checkpoint, stencil_load, stencil_run_stats and stencil_destroy take it.
 */
typedef struct stencil_program stencil_program;

/*
 * Parses one program block (comments and blank lines around it allowed); not collective.
 * STENCIL_EFORMAT with "line:col: message" in msg when it does not parse; STENCIL_ENOMEM.
 * On success *prog is the program (free it with stencil_program_free), else NULL.
 */
int stencil_program_parse(const char *text, stencil_program **prog, char *msg, size_t msglen);
void stencil_program_free(stencil_program *prog);
/* Its dimensions, name, and fields: evolving and coefficient ones, in declaration order. */
int stencil_program_ndims(const stencil_program *prog);
const char *stencil_program_name(const stencil_program *prog);
int stencil_program_nfields(const stencil_program *prog);
const char *stencil_program_field(const stencil_program *prog, int i); /* NULL out of range */
int stencil_program_find_field(const stencil_program *prog, const char *name); /* -1: none */
int stencil_program_is_coef(const stencil_program *prog, int i); /* 1: coefficient field */
/*
 * A parameter's value for the runs created after it (default: the program's text). EINVAL,
 * with the name in msg where given, for an unknown parameter or a value that is not finite.
 */
int stencil_program_set_param(stencil_program *prog, const char *name, double value);
int stencil_program_get_param(const stencil_program *prog, const char *name, double *value);

/*
 * As stencil_skeleton, for a program of the given element type: `sizes` has the program's
 * dimension count; init is called on every rank once per field (tile->field names it, and once
 * more with tile->level = -1 for each field that keeps its previous level); output, where
 * given, once per field with the final tiles. Options as for a stencil, but boundary and face
 * (the program states its boundaries).
 */
int stencil_program_skeleton(MPI_Comm comm, const long *sizes, const stencil_program *prog,
                             stencil_type type, long iterations, stencil_init_fn init,
                             stencil_output_fn output, const stencil_options *opt);
/* As stencil_create, for a program (its parameters' values taken now). */
int stencil_program_create(MPI_Comm comm, const long *sizes, const stencil_program *prog,
                           stencil_type type, stencil_init_fn init, const stencil_options *opt,
                           stencil_run **run);
/*
 * Collective: a parameter's value for the advances that follow; every rank must pass the same
 * name and value (STENCIL_EINVAL otherwise, as for an unknown name or a stencil run).
 */
int stencil_run_set_param(stencil_run *run, const char *name, double value);
/*
 * As stencil_advance_norm, with the change of every field: changes[i] for field i in
 * declaration order (nchanges entries at least the field count; a coefficient field's is all
 * zero). For a stencil run, one entry.
 */
int stencil_advance_norms(stencil_run *run, long n, stencil_norm *changes, int nchanges);

#ifdef __cplusplus
}
#endif

#endif /* STENCIL_H */
