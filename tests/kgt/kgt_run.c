/*
 * Test driver for the kgt command: runs it as a child process and checks exit status, stderr and
 * output files. A C program rather than a script so that the suite needs nothing but the compiler.
 *
 *   kgt_run golden KGT INPUT PREFIX TARGETS OUTDIR GOLDENDIR   outputs equal the golden files
 *   kgt_run error KGT FILE          FILE's first line is "# expect: L:C: message"; kgt --check
 *                                   must fail with exactly "FILE:L:C: message\n" on stderr
 *   kgt_run help KGT OUTDIR         --help shows the example; the example checks and generates
 *   kgt_run cli KGT INPUT OUTDIR    usage errors exit 2 with a message; --fused picks the
 *                                   stencils that get fused launchers
 *   kgt_run many KGT N OUTDIR       a file of N small stencils checks (in linear time: the
 *                                   timeout guards it), and a duplicate name, a clashing stem
 *                                   and a duplicate offset after them are still found
 *   kgt_run explain KGT INPUT OUTDIR  --explain on docs/STENCILS.md's set names the family and
 *                                   plan step_plan.c's rules give a few stencils, writes no file
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs argv with stdout and stderr sent to files; returns the exit status, or -1. */
static int run(char *const argv[], const char *out, const char *err)
{
    int st;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0) _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

/* Whole file as a NUL-terminated string; NULL if unreadable. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *s = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (s = malloc((size_t)n + 1)) != NULL) {
        *len = fread(s, 1, (size_t)n, f);
        s[*len] = '\0';
    }
    fclose(f);
    return s;
}

/* Byte-exact comparison; on a difference names the first differing line. */
static int same_file(const char *got, const char *want)
{
    size_t ng = 0, nw = 0, i, line = 1;
    char *g = slurp(got, &ng), *w = slurp(want, &nw);
    int ok = g && w && ng == nw && memcmp(g, w, ng) == 0;
    if (!g || !w) fprintf(stderr, "cannot read %s or %s\n", got, want);
    if (g && w && !ok) {
        for (i = 0; i < ng && i < nw && g[i] == w[i]; i++) line += g[i] == '\n';
        fprintf(stderr, "%s differs from %s from line %zu\n", got, want, line);
    }
    free(g);
    free(w);
    return ok;
}

static char *path_join(const char *dir, const char *a, const char *b)
{
    size_t n = strlen(dir) + strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s%s", dir, a, b);
    return p;
}

static int golden(char **av)
{
    /* av: KGT INPUT PREFIX TARGETS OUTDIR GOLDENDIR */
    static const char *const suffixes[] = {".h", ".c", ".cu", "_hip.cpp"};
    char *argv[] = {av[0],          "--target", av[3], "--prefix", av[2],
                    "--output-dir", av[4],      av[1], NULL};
    char *out = path_join(av[4], "stdout", ".txt"), *err = path_join(av[4], "stderr", ".txt");
    int ok = 1;
    mkdir(av[4], 0755);
    if (run(argv, out, err) != 0) {
        fprintf(stderr, "kgt failed on %s\n", av[1]);
        ok = 0;
    }
    for (int i = 0; ok && i < 4; i++) {
        char *got = path_join(av[4], av[2], suffixes[i]);
        /* kgt's HIP text is its CUDA text (kgt/README.md): one golden file holds both. */
        char *want = path_join(av[5], av[2], suffixes[i == 3 ? 2 : i]);
        if (i < 2 || strstr(av[3], i == 2 ? "cuda" : "hip")) ok = same_file(got, want) && ok;
        free(got);
        free(want);
    }
    free(out);
    free(err);
    return ok ? 0 : 1;
}

static int error_case(char **av)
{
    /* av: KGT FILE OUTDIR */
    char *argv[] = {av[0], "--check", av[1], NULL};
    char *out = path_join(av[2], "stdout", ".txt"), *err = path_join(av[2], "stderr", ".txt");
    size_t n = 0, ne = 0;
    char *src = slurp(av[1], &n), *got = NULL, *want = NULL, *nl;
    int rc, ok = 0;
    mkdir(av[2], 0755);
    if (!src || strncmp(src, "# expect: ", 10) != 0 || !(nl = strchr(src, '\n'))) {
        fprintf(stderr, "%s: first line must be '# expect: L:C: message'\n", av[1]);
        goto done;
    }
    *nl = '\0';
    if (!(want = malloc(strlen(av[1]) + strlen(src) + 4))) goto done;
    sprintf(want, "%s:%s\n", av[1], src + 10);
    rc = run(argv, out, err);
    got = slurp(err, &ne);
    ok = rc > 0 && got && strcmp(got, want) == 0;
    if (!ok) fprintf(stderr, "exit %d\nwant: %sgot:  %s", rc, want, got ? got : "(nothing)\n");
done:
    free(src);
    free(got);
    free(want);
    free(out);
    free(err);
    return ok ? 0 : 1;
}

static int expect_status(char *const argv[], const char *dir, int want, const char *needle)
{
    char *out = path_join(dir, "stdout", ".txt"), *err = path_join(dir, "stderr", ".txt");
    size_t n = 0;
    int rc = run(argv, out, err);
    char *text = slurp(want == 0 ? out : err, &n);
    int ok = rc == want && text && strstr(text, needle);
    if (!ok)
        fprintf(stderr, "%s %s: exit %d (want %d), output lacks '%s'\n", argv[0], argv[1], rc, want,
                needle);
    free(text);
    free(out);
    free(err);
    return ok;
}

static int help(char **av)
{
    /* av: KGT OUTDIR */
    char *h[] = {av[0], "--help", NULL}, *e[] = {av[0], "--example", NULL};
    char *ex = path_join(av[1], "stdout", ".txt"), *file = path_join(av[1], "example", ".stencil");
    char *chk[] = {av[0], "--check", file, NULL};
    char *gen[] = {av[0], "-t", "host,opencl,cuda,hip", "-o", av[1], file, NULL};
    size_t n = 0;
    char *text;
    int ok;
    mkdir(av[1], 0755);
    ok =
        expect_status(h, av[1], 0, "Usage: kgt") && expect_status(h, av[1], 0, "divisor 20\nend\n");
    /* The example printed by --help must itself be a valid description. */
    ok = ok && expect_status(e, av[1], 0, "stencil jacobi2d");
    text = ok ? slurp(ex, &n) : NULL;
    if (text) {
        FILE *f = fopen(file, "w");
        ok = f && fputs(text, f) >= 0;
        if (f) fclose(f);
    }
    ok = ok && text && expect_status(chk, av[1], 0, "") && expect_status(gen, av[1], 0, "");
    free(text);
    free(ex);
    free(file);
    return ok ? 0 : 1;
}

/* Which stencils of INPUT (docs/STENCILS.md's set) get fused CUDA launchers under --fused mode. */
static int fused_choice(char **av, char *mode, int want_2d4, int want_2d9nc)
{
    char *argv[] = {av[0], "-t", "host,cuda", "-p",  "sel", "--fused",
                    mode,  "-o", av[2],       av[1], NULL};
    char *c = path_join(av[2], "sel", ".c"), *text = NULL;
    size_t n = 0;
    int ok = expect_status(argv, av[2], 0, "") && (text = slurp(c, &n)) != NULL;
    /* Only 2D stencils: 1D and 3D ones never get fused launchers. */
    ok = ok && !strstr(text, "sel_1d3_cuda_fused") && !strstr(text, "sel_3d7_cuda_fused");
    ok = ok && (strstr(text, ".cuda_fused = {sel_2d4_cuda_fused_f,") != NULL) == want_2d4;
    ok = ok && (strstr(text, ".cuda_fused = {sel_2d9nc_cuda_fused_f,") != NULL) == want_2d9nc;
    if (!ok) fprintf(stderr, "--fused %s: wrong fused launchers in %s\n", mode, c);
    free(text);
    free(c);
    return ok;
}

static int cli(char **av)
{
    /* av: KGT INPUT OUTDIR */
    char *a[] = {av[0], "--target", "fortran", av[1], NULL};
    char *b[] = {av[0], "--bogus", av[1], NULL};
    char *c[] = {av[0], "--prefix", "1x", av[1], NULL};
    char *d[] = {av[0], NULL};
    char *e[] = {av[0], "--version", NULL};
    char *f[] = {av[0], "--check", "/nonexistent/file.stencil", NULL};
    char *g[] = {av[0], "--fused", "sometimes", av[1], NULL};
    int ok = 1;
    mkdir(av[2], 0755);
    ok = expect_status(a, av[2], 2, "unknown target 'fortran'") && ok;
    ok = expect_status(b, av[2], 2, "unknown option '--bogus'") && ok;
    ok = expect_status(c, av[2], 2, "invalid prefix '1x'") && ok;
    ok = expect_status(d, av[2], 2, "no input file") && ok;
    ok = expect_status(e, av[2], 0, "kgt ") && ok;
    ok = expect_status(f, av[2], 1, "/nonexistent/file.stencil: cannot open") && ok;
    ok = expect_status(g, av[2], 2, "--fused must be auto, all or none, not 'sometimes'") && ok;
    /* auto: the compact 2d4 (extent 1), not 2d9nc (extent 2). */
    ok = fused_choice(av, "auto", 1, 1) && ok; /* 2d9nc: a radius-2 star (streaming) */
    ok = fused_choice(av, "all", 1, 1) && ok;
    ok = fused_choice(av, "none", 0, 0) && ok;
    return ok ? 0 : 1;
}

/* Stencil i of the many-stencils file, 7 lines each: 2D points, a 1D pattern, 3D points. */
static void write_small(FILE *f, long i)
{
    if (i % 3 == 0)
        fprintf(f,
                "stencil s%ld\n  dims 2\n  point -1 0 : 1\n  point 1 0 : 1\n"
                "  point 0 1 : %ld\n  divisor 4\nend\n",
                i, i % 7 + 1);
    else if (i % 3 == 1)
        fprintf(f,
                "stencil t-%ld\n  dims 1\n  radius 1\n  pattern\n    1 %ld 1\n  divisor 3\nend\n",
                i, i % 5);
    else
        fprintf(f,
                "stencil u_%ld\n  dims 3\n  point -1 0 0 : 1\n  point 0 0 1 : 2\n"
                "  point 1 1 1 : 0.5\n  divisor 7\nend\n",
                i);
}

/* The body, then tail, written to path; then kgt --check must exit with want and say needle. */
static int many_case(char *kgt, const char *path, long n, const char *tail, const char *dir,
                     int want, const char *needle)
{
    char *argv[] = {kgt, "--check", (char *)path, NULL};
    FILE *f = fopen(path, "w");
    int ok = f != NULL;
    for (long i = 0; ok && i < n; i++) write_small(f, i);
    ok = ok && fputs(tail, f) >= 0;
    if (f) ok = fclose(f) == 0 && ok;
    if (!ok) fprintf(stderr, "cannot write %s\n", path);
    return ok && expect_status(argv, dir, want, needle);
}

static int many(char **av)
{
    /* av: KGT N OUTDIR */
    long n = atol(av[1]), at = 7 * n + 1; /* the line after the body */
    char *path = path_join(av[2], "many", ".stencil"), tail[8192], want[512];
    int ok = n >= 2 && path != NULL, len;
    mkdir(av[2], 0755);
    ok = ok && many_case(av[0], path, n, "", av[2], 0, "");
    snprintf(want, sizeof want, "%s:%ld:9: duplicate stencil name 's0' (first defined at line 1)",
             path, at);
    ok = ok && many_case(av[0], path, n, "stencil s0\n", av[2], 1, want);
    snprintf(want, sizeof want,
             "%s:%ld:9: stencil name 't_1' clashes with 't-1' (line 8) in C symbols", path, at);
    ok = ok && many_case(av[0], path, n, "stencil t_1\n", av[2], 1, want);
    /* 289 points, then the first one's offset again. */
    len = snprintf(tail, sizeof tail, "stencil big\n  dims 2\n");
    for (int y = -8; y <= 8; y++)
        for (int x = -8; x <= 8; x++)
            len += snprintf(tail + len, sizeof tail - (size_t)len, "  point %d %d : 1\n", y, x);
    snprintf(tail + len, sizeof tail - (size_t)len, "  point -8 -8 : 2\n");
    snprintf(want, sizeof want, "%s:%ld:9: duplicate offset (-8, -8) (first at line %ld)", path,
             at + 2 + 289, at + 2);
    ok = ok && many_case(av[0], path, n, tail, av[2], 1, want);
    if (ok && path) remove(path); /* 17 MB for 200,000 stencils */
    free(path);
    return ok ? 0 : 1;
}

/* Stencil name's lines of an --explain text (up to the next stencil), or NULL; free it. */
static char *explained(const char *text, const char *name)
{
    char head[64];
    snprintf(head, sizeof head, "stencil %s:", name);
    const char *a = strstr(text, head), *e = a ? strstr(a + 1, "\nstencil ") : NULL;
    size_t n = a ? (e ? (size_t)(e - a) + 1 : strlen(a)) : 0;
    char *b = a ? malloc(n + 1) : NULL;
    if (b) memcpy(b, a, n), b[n] = '\0';
    return b;
}

/* Every line of want (separated by '|') is in stencil name's explanation. */
static int explains(const char *text, const char *name, const char *want)
{
    char *b = explained(text, name), line[256];
    int ok = b != NULL;
    for (const char *w = want; ok && *w;) {
        size_t n = strcspn(w, "|");
        snprintf(line, sizeof line, "%.*s", (int)n, w);
        if (!strstr(b, line)) {
            fprintf(stderr, "--explain of %s lacks '%s':\n%s", name, line, b);
            ok = 0;
        }
        w += n + (w[n] == '|');
    }
    if (!b) fprintf(stderr, "--explain names no stencil %s\n", name);
    free(b);
    return ok;
}

/* kgt --explain of input with option opt (NULL: none): its stdout, or NULL. */
static char *explain_text(char **av, char *input, char *opt, char *val)
{
    char *argv[] = {av[0], "--explain", "-o", av[2], opt ? opt : input, opt ? val : NULL,
                    input, NULL};
    char *out = path_join(av[2], "stdout", ".txt"), *err = path_join(av[2], "stderr", ".txt");
    size_t n = 0;
    char *text = run(argv, out, err) == 0 ? slurp(out, &n) : NULL;
    if (!text) fprintf(stderr, "kgt --explain %s failed\n", input);
    free(out);
    free(err);
    return text;
}

static int explain(char **av)
{
    /* av: KGT INPUT OUTDIR */
    char *t = NULL, *u = NULL;
    int ok = 1;
    mkdir(av[2], 0755);
    ok = (t = explain_text(av, av[1], NULL, NULL)) != NULL;
    /* 2D float up to five points: vector rows, 256 threads; 2D double with at most two new loads
       a row: a register walk of 4; both stream up to 4 steps, and get fused launchers. */
    ok = ok && explains(t, "2d4",
                        "stencil 2d4: 2D, 4 points, reach 1/1 1/1, star\n"
                        "|  float cuda one step, named and run-time: step kernel, vector rows: "
                        "block 256x1,"
                        "|  double hip one step, named and run-time: step kernel, register walk: "
                        "block 128x1, cells/thread 1, planes/block 4, unroll 4,"
                        "|  float two steps, named: fused two-step tile, 2D streaming"
                        "|  float steps per launch, run-time: 2D star streaming, up to 4:");
    /* 2D double with a divisor of no exact reciprocal: kgt's vector walk, the run-time step kernel
       on a scalar tile; a box streams. */
    ok = ok && explains(t, "2d9",
                        "box\n|  double cuda one step, named: vector walk kernel, cells/thread 8\n"
                        "|  double cuda one step, run-time: step kernel, scalar tile"
                        "|  float cuda one step, named and run-time: step kernel, vector rows: "
                        "block 128x1,|split division"
                        "|  float steps per launch, run-time: 2D box streaming, up to 3:");
    /* 3D: vector rows with running sums; a 3D star streams, a 3D box by partial sums; 1D: none. */
    ok = ok && explains(t, "3d7",
                        "  float cuda one step, named and run-time: step kernel, 3D vector rows, "
                        "running sums: block 64x2, cells/thread 2,|min blocks/SM 9"
                        "|  float steps per launch, run-time: 3D star streaming, up to 3:"
                        "|  double steps per launch, run-time: 3D star streaming, up to 2:");
    ok = ok && explains(t, "3d27",
                        "  double cuda one step, named and run-time: step kernel, "
                        "scalar tile, asynchronous copies:"
                        "|  double hip one step, named and run-time: step kernel, "
                        "scalar tile, planes through registers:"
                        "|  float steps per launch, run-time: 1 (streaming kernels of up to");
    ok = ok && explains(t, "3d-oct",
                        "  float steps per launch, run-time: 3D box streaming, partial sums, "
                        "up to 2:");
    ok = ok && explains(t, "1d3", "  float steps per launch, run-time: 1 (no streaming kernel)");
    char *b1 = explained(t, "1d3"); /* 1D: no fused launcher */
    ok = ok && b1 && !strstr(b1, "two steps, named");
    free(b1);
    /* The options steer it: --walk and --fused none (on 2d9 alone, for time). */
    char *one = path_join(av[2], "2d9", ".stencil");
    FILE *f = one ? fopen(one, "w") : NULL;
    ok = ok && f &&
         fputs("stencil 2d9\n dims 2\n radius 1 1\n pattern\n  1 4 1\n  4 0 4\n  1 4 1\n"
               " divisor 20\nend\n",
               f) >= 0;
    if (f) ok = fclose(f) == 0 && ok;
    ok = ok && (u = explain_text(av, one, "--walk", "4")) != NULL &&
         explains(u, "2d9", "  double cuda one step, named: vector walk kernel, cells/thread 4\n");
    free(u);
    u = NULL;
    ok = ok && (u = explain_text(av, one, "--fused", "none")) != NULL &&
         strstr(u, "stencil 2d9:") && !strstr(u, "two steps, named");
    free(one);
    /* Nothing written but the test's own captures. */
    char *h = path_join(av[2], "stencil_set", ".h");
    ok = ok && h && access(h, F_OK) != 0;
    free(h);
    free(u);
    free(t);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 8 && strcmp(argv[1], "golden") == 0) return golden(argv + 2);
    if (argc == 5 && strcmp(argv[1], "error") == 0) return error_case(argv + 2);
    if (argc == 4 && strcmp(argv[1], "help") == 0) return help(argv + 2);
    if (argc == 5 && strcmp(argv[1], "cli") == 0) return cli(argv + 2);
    if (argc == 5 && strcmp(argv[1], "many") == 0) return many(argv + 2);
    if (argc == 5 && strcmp(argv[1], "explain") == 0) return explain(argv + 2);
    fprintf(stderr,
            "usage: kgt_run golden|error|help|cli|many|explain KGT ARGS... (see the source)\n");
    return 2;
}
