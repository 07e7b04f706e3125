/* kgt command line: parse a description file, then write the requested outputs. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "kgt.h"
#include "prog.h"

static const char example[] =
    "# heat.stencil: two stencils for kgt\n"
    "stencil jacobi2d        # 2D 4-point Jacobi, point by point\n"
    "  dims 2\n"
    "  point -1  0 : 1       # offset (dimension 0 first) : weight\n"
    "  point  1  0 : 1\n"
    "  point  0 -1 : 1\n"
    "  point  0  1 : 1\n"
    "  divisor 4\n"
    "end\n"
    "\n"
    "stencil box9            # a 3x3 box as a dense pattern\n"
    "  dims 2\n"
    "  radius 1 1            # per dimension: R, or LO/HI as in 2/0\n"
    "  pattern               # rows: dimension 0 = -1, 0, +1; columns: dimension 1\n"
    "    1 4 1\n"
    "    4 0 4\n"
    "    1 4 1\n"
    "  divisor 20\n"
    "end\n";

static const char usage[] =
    "Usage: kgt [OPTIONS] FILE\n"
    "Generates specialized libstencil kernels from a stencil description file.\n"
    "\n"
    "Options:\n"
    "  -t, --target LIST     comma-separated: host, opencl, cuda, hip (default host,opencl)\n"
    "  -p, --prefix NAME     prefix of the output files and symbols (default: the file name\n"
    "                        without extension, other characters than [A-Za-z0-9_] made '_')\n"
    "  -o, --output-dir DIR  directory of the outputs (default .)\n"
    "  -c, --check           validate FILE, write nothing\n"
    "      --explain         print the kernel family and plan each stencil gets on each GPU\n"
    "                        path (named and run-time kernels), write nothing\n"
    "  -w, --walk N          CUDA/HIP 2D/3D kernels: cells of dimension 0 per thread,\n"
    "                        1..32 (default 8)\n"
    "      --fused MODE      which 2D stencils also get CUDA/HIP kernels computing two time\n"
    "                        steps per launch (stencil_options.fuse): auto (default) = those\n"
    "                        whose non-zero weights reach at most 1 cell in each direction\n"
    "                        and star stencils (weights on the axes only) reaching at most 2,\n"
    "                        all, none\n"
    "      --example         print the example below\n"
    "  -h, --help            print this text\n"
    "      --version         print the version\n"
    "\n"
    "Outputs, for prefix P:\n"
    "  P.h, P.c    always: the kernels' descriptions, host kernels, OpenCL sources, one\n"
    "              'const stencil_kernel P_NAME_kernel' per stencil and 'int P_register(void)'\n"
    "  P.cu        target cuda: compile with nvcc (any -fmad); launchers P_NAME_cuda_f/_d,\n"
    "              and P_NAME_cuda_fused_f/_d for the stencils --fused selects\n"
    "  P_hip.cpp   target hip: the same text, compile with hipcc (not -ffp-contract=fast)\n"
    "  Compile P.c with -DKGT_WITH_CUDA / -DKGT_WITH_HIP when the CUDA / HIP object is linked.\n"
    "  The files turn FMA contraction off themselves (CUDA/HIP: kgt_add/kgt_mul calls): results\n"
    "  equal the generic kernels bitwise. Never -ffast-math or --use_fast_math.\n"
    "\n"
    "Description format: one statement per line; '#' starts a comment.\n"
    "  stencil NAME     starts a stencil: NAME (letters, digits, '_', '-') is the name it\n"
    "                   registers under, unique in the file; '-' becomes '_' in symbols\n"
    "  dims N           1, 2 or 3; before radius, point and pattern\n"
    "  radius R...      optional, one per dimension: R or LO/HI, each 0..8; without it the\n"
    "                   radius is the extent of the non-zero weights\n"
    "  point O... : W   weight W at offset O (one integer per dimension, dimension 0 first)\n"
    "  pattern          dense weights instead of points (needs radius): the next lines are\n"
    "                   rows along the last dimension, for dimension 0 (then 1) from -LO to +HI\n"
    "  divisor D        required: new = (sum of W * old[c + O]) / D\n"
    "  end              ends the stencil\n"
    "  Weights and divisors are decimal or hexadecimal floating constants, finite and in float\n"
    "  range; the divisor is non-zero; zero weights are skipped.\n"
    "\n"
    "  program NAME ... end   a stencil program (several fields, non-linear updates): dims N,\n"
    "                   field U [prev], coef C, param P = V, let L = EXPR, update U = EXPR,\n"
    "                   boundary U|* FACE fixed|periodic|mirror|constant V; written to\n"
    "                   P_prog.h, P_prog.c (host, OpenCL) and P_prog.cu (kgt/README.md)\n"
    "\n"
    "Example:\n";

typedef struct opts {
    int check, explain, targets, walk, fused;
    const char *prefix, *outdir, *file;
} opts;

static int parse_targets(const char *list, int *t)
{
    static const char *const names[] = {"host", "opencl", "cuda", "hip"};
    *t = 0;
    while (*list) {
        size_t n = strcspn(list, ",");
        int found = 0;
        for (int i = 0; i < 4; i++)
            if (strlen(names[i]) == n && strncmp(list, names[i], n) == 0) found = 1 << i;
        if (!found) {
            fprintf(stderr, "kgt: unknown target '%.*s' (host, opencl, cuda, hip)\n", (int)n, list);
            return -1;
        }
        *t |= found;
        list += n + (list[n] == ',');
    }
    if (!*t) fprintf(stderr, "kgt: empty target list\n");
    return *t ? 0 : -1;
}

static int parse_walk(const char *v, int *walk)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < 1 || n > KGT_WALK_MAX) {
        fprintf(stderr, "kgt: --walk must be 1..%d, not '%s'\n", KGT_WALK_MAX, v);
        return -1;
    }
    *walk = (int)n;
    return 0;
}

static int parse_fused(const char *v, int *fused)
{
    static const char *const names[] = {"auto", "all", "none"};
    static const int modes[] = {KGT_FUSED_AUTO, KGT_FUSED_ALL, KGT_FUSED_NONE};
    for (int i = 0; i < 3; i++)
        if (strcmp(v, names[i]) == 0) {
            *fused = modes[i];
            return 0;
        }
    fprintf(stderr, "kgt: --fused must be auto, all or none, not '%s'\n", v);
    return -1;
}

/* Value of option arg: "--opt=value", or the next argument. */
static const char *opt_value(int argc, char **argv, int *i, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (eq && arg[1] == '-') return eq + 1;
    if (*i + 1 >= argc) {
        fprintf(stderr, "kgt: option %s needs a value\n", arg);
        return NULL;
    }
    return argv[++*i];
}

static int is_opt(const char *arg, const char *s, const char *l)
{
    size_t n = strlen(l);
    return (s && strcmp(arg, s) == 0) || (strncmp(arg, l, n) == 0 && (!arg[n] || arg[n] == '='));
}

/* Returns 0 to go on, 1 when done (help, version), -1 on a usage error. */
static int parse_args(int argc, char **argv, opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (is_opt(a, "-h", "--help")) {
            printf("%s%s", usage, example);
            return 1;
        } else if (is_opt(a, NULL, "--example")) {
            printf("%s", example);
            return 1;
        } else if (is_opt(a, NULL, "--version")) {
            printf("kgt %s\n", KGT_VERSION);
            return 1;
        } else if (is_opt(a, "-c", "--check")) {
            o->check = 1;
        } else if (is_opt(a, NULL, "--explain")) {
            o->explain = 1;
        } else if (is_opt(a, "-t", "--target")) {
            if (!(v = opt_value(argc, argv, &i, a)) || parse_targets(v, &o->targets)) return -1;
        } else if (is_opt(a, "-w", "--walk")) {
            if (!(v = opt_value(argc, argv, &i, a)) || parse_walk(v, &o->walk)) return -1;
        } else if (is_opt(a, NULL, "--fused")) {
            if (!(v = opt_value(argc, argv, &i, a)) || parse_fused(v, &o->fused)) return -1;
        } else if (is_opt(a, "-p", "--prefix")) {
            if (!(o->prefix = opt_value(argc, argv, &i, a))) return -1;
        } else if (is_opt(a, "-o", "--output-dir")) {
            if (!(o->outdir = opt_value(argc, argv, &i, a))) return -1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "kgt: unknown option '%s' (try --help)\n", a);
            return -1;
        } else if (o->file) {
            fprintf(stderr, "kgt: more than one input file\n");
            return -1;
        } else {
            o->file = a;
        }
    }
    if (!o->file) fprintf(stderr, "kgt: no input file (try --help)\n");
    return o->file ? 0 : -1;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The default prefix: the file name without its extension, made a C identifier. */
static char *default_prefix(const char *path)
{
    const char *b = base_name(path), *dot = strrchr(b, '.');
    size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b), k = 0;
    char *p = malloc(n + 5);
    if (!p) return NULL;
    if (!n || !isalpha((unsigned char)b[0])) {
        memcpy(p, "kgt_", 4);
        k = 4;
    }
    for (size_t i = 0; i < n; i++) p[k++] = isalnum((unsigned char)b[i]) ? b[i] : '_';
    p[k] = '\0';
    return p;
}

static int valid_prefix(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_') return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return 0;
    return 1;
}

static int write_file(const char *dir, const char *prefix, const char *suffix, const kgt_buf *b)
{
    size_t n = strlen(dir) + strlen(prefix) + strlen(suffix) + 2;
    char *path = malloc(n);
    FILE *f;
    int rc = 0;
    if (!path || b->oom) {
        fprintf(stderr, "kgt: out of memory\n");
        free(path);
        return -1;
    }
    snprintf(path, n, "%s/%s%s", dir, prefix, suffix);
    if (!(f = fopen(path, "w")) || fwrite(b->s, 1, b->len, f) != b->len) rc = -1;
    if (f && fclose(f) != 0) rc = -1;
    if (rc) fprintf(stderr, "kgt: cannot write %s: %s\n", path, strerror(errno));
    free(path);
    return rc;
}

typedef void (*emit_fn)(kgt_buf *b, const kgt_gen *g);

static int emit_one(const kgt_gen *g, const char *dir, const char *suffix, emit_fn fn)
{
    kgt_buf b = {0};
    int rc;
    fn(&b, g);
    rc = write_file(dir, g->prefix, suffix, &b);
    free(b.s);
    return rc;
}

/*
 * The CUDA and HIP outputs are one text (its vendor header picks the runtime), so it is generated
 * once: generation checks each split divisor over 2^23 quotients (split.c).
 */
static int emit_gpu(const kgt_gen *g, const char *dir)
{
    kgt_buf b = {0};
    int rc = 0;
    if (!(g->targets & (KGT_T_CUDA | KGT_T_HIP))) return 0;
    kgt_emit_gpu(&b, g);
    if (g->targets & KGT_T_CUDA) rc = write_file(dir, g->prefix, ".cu", &b);
    if (!rc && (g->targets & KGT_T_HIP)) rc = write_file(dir, g->prefix, "_hip.cpp", &b);
    free(b.s);
    return rc;
}

/* Programs have files of their own (prog_out.c): P.h and P.c stay the stencils'. */
static int write_programs(const kgt_gen *g, const char *dir)
{
    kgt_buf h = {0}, c = {0}, gpu = {0};
    int rc;
    kgt_prog_emit_outputs(g->file, g->prefix, g->targets, &h, &c, &gpu);
    rc = write_file(dir, g->prefix, "_prog.h", &h) || write_file(dir, g->prefix, "_prog.c", &c);
    if (!rc && (g->targets & KGT_T_CUDA)) rc = write_file(dir, g->prefix, "_prog.cu", &gpu);
    if (!rc && (g->targets & KGT_T_HIP)) rc = write_file(dir, g->prefix, "_prog_hip.cpp", &gpu);
    free(h.s);
    free(c.s);
    free(gpu.s);
    return rc ? -1 : 0;
}

static int generate(const opts *o, const kgt_file *f, const char *prefix)
{
    kgt_gen g;
    const char *dir = o->outdir ? o->outdir : ".";
    g.file = f;
    g.prefix = prefix;
    g.walk = o->walk;
    g.fused = o->fused;
    g.source = base_name(o->file);
    g.targets = o->targets ? o->targets : KGT_T_HOST | KGT_T_OPENCL;
    if (f->nprog && write_programs(&g, dir)) return -1;
    if (!f->nst) return 0;
    if (emit_one(&g, dir, ".h", kgt_emit_header) || emit_one(&g, dir, ".c", kgt_emit_c)) return -1;
    return emit_gpu(&g, dir);
}

/* --explain: the plans the options (--walk, --fused) give, on stdout. */
static int explain(const opts *o, const kgt_file *f)
{
    kgt_gen g;
    memset(&g, 0, sizeof g);
    g.file = f;
    g.walk = o->walk;
    g.fused = o->fused;
    if (kgt_explain(stdout, &g) == 0 && fflush(stdout) == 0) return 0;
    fprintf(stderr, "kgt: cannot write the explanation: %s\n", strerror(errno));
    return 1;
}

int main(int argc, char **argv)
{
    opts o;
    kgt_file f;
    char *prefix = NULL;
    int rc;
    memset(&o, 0, sizeof o);
    if ((rc = parse_args(argc, argv, &o)) != 0) return rc < 0 ? 2 : 0;
    if (o.prefix && !valid_prefix(o.prefix)) {
        fprintf(stderr, "kgt: invalid prefix '%s' (must be a C identifier)\n", o.prefix);
        return 2;
    }
    if (kgt_parse(o.file, &f)) return 1;
    if (o.explain) {
        rc = explain(&o, &f);
    } else if (!o.check) {
        if (!o.prefix && !(prefix = default_prefix(o.file))) {
            fprintf(stderr, "kgt: out of memory\n");
            rc = 1;
        } else {
            rc = generate(&o, &f, o.prefix ? o.prefix : prefix) ? 1 : 0;
        }
    }
    free(prefix);
    kgt_file_free(&f);
    return rc;
}
