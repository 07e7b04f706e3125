/*
 * Programs on the host, compiled: the program's host kernels as kgt writes them
 * (kgt_prog_emit_host_unit) compiled at open by the system C compiler into a shared object,
 * which is loaded with dlopen. Objects are cached in a folder by a hash of the text and the
 * compiler's command, so later opens of the same program (other ranks, later runs) only load
 * it. Where no object can be had the interpreter runs (host_prog.c) and dev->note says why.
 *
 * Environment: STENCIL_HOST_CC (the compiler, default cc; "none": always the interpreter),
 * STENCIL_CACHE_DIR (the cache folder; default $XDG_CACHE_HOME/libstencil, else
 * $HOME/.cache/libstencil, else /tmp/libstencil-UID).
 *
 * The command is `CC -O2 -shared -fPIC -ffp-contract=off -o OBJ SRC -lm`: contraction is off in
 * the text too (its pragmas), so the object follows the arithmetic contract whatever CC's
 * defaults; -ffast-math and the like are never passed.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "prog.h"

extern char **environ;

static const char *const cc_flags[] = {"-O2", "-shared", "-fPIC", "-ffp-contract=off"};

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* mkdir -p of path (at most one level below an existing folder is typical). */
static int make_dirs(char *path)
{
    for (char *c = path + 1; *c; c++) {
        if (*c != '/') continue;
        *c = 0;
        int bad = mkdir(path, 0700) && errno != EEXIST;
        *c = '/';
        if (bad) return -1;
    }
    return mkdir(path, 0700) && errno != EEXIST ? -1 : 0;
}

static int cache_dir(char *dir, size_t cap)
{
    const char *e = getenv("STENCIL_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    if (e && *e)
        snprintf(dir, cap, "%s", e);
    else if (x && *x)
        snprintf(dir, cap, "%s/libstencil", x);
    else if (home && *home)
        snprintf(dir, cap, "%s/.cache/libstencil", home);
    else
        snprintf(dir, cap, "/tmp/libstencil-%ld", (long)getuid());
    return make_dirs(dir);
}

/* Runs cc on src into obj; 0 when it exited with 0. */
static int run_cc(const char *cc, const char *src, const char *obj, char *why, size_t cap)
{
    char *argv[12];
    int n = 0, st = 0;
    pid_t pid;
    argv[n++] = (char *)cc;
    for (size_t i = 0; i < sizeof cc_flags / sizeof *cc_flags; i++) argv[n++] = (char *)cc_flags[i];
    argv[n++] = "-o";
    argv[n++] = (char *)obj;
    argv[n++] = (char *)src;
    argv[n++] = "-lm";
    argv[n] = NULL;
    int rc = posix_spawnp(&pid, cc, NULL, NULL, argv, environ);
    if (rc) return snprintf(why, cap, "cannot start %.60s: %s", cc, strerror(rc)), -1;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return snprintf(why, cap, "waitpid: %s", strerror(errno)), -1;
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        return snprintf(why, cap, "%.60s failed (status %d)", cc,
                        WIFEXITED(st) ? WEXITSTATUS(st) : -1),
               -1;
    return 0;
}

/* The object of text in the cache, compiled now if missing: 0 and its path in obj. */
static int cached_object(const char *text, const char *cc, char *obj, size_t cap, char *why,
                         size_t wcap, double *secs)
{
    char dir[512], src[600], tmp[600];
    uint64_t h = 14695981039346656037ULL;
    h = fnv(h, cc);
    for (size_t i = 0; i < sizeof cc_flags / sizeof *cc_flags; i++) h = fnv(h, cc_flags[i]);
    h = fnv(h, text);
    if (cache_dir(dir, sizeof dir))
        return snprintf(why, wcap, "no cache folder %.80s: %s", dir, strerror(errno)), -1;
    snprintf(obj, cap, "%.400s/prog-%016llx.so", dir, (unsigned long long)h);
    if (access(obj, R_OK) == 0) return 0;
    /* Private names until the rename, so ranks compiling the same text at once never see a
       half-written object. */
    snprintf(src, sizeof src, "%.400s/prog-%016llx-%ld.c", dir, (unsigned long long)h,
             (long)getpid());
    snprintf(tmp, sizeof tmp, "%.400s/prog-%016llx-%ld.so", dir, (unsigned long long)h,
             (long)getpid());
    FILE *fp = fopen(src, "w");
    if (!fp) return snprintf(why, wcap, "cannot write %.80s: %s", src, strerror(errno)), -1;
    int bad = fputs(text, fp) < 0;
    bad |= fclose(fp) != 0;
    if (bad) {
        remove(src);
        return snprintf(why, wcap, "cannot write %.80s", src), -1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = run_cc(cc, src, tmp, why, wcap);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    remove(src);
    if (!rc && rename(tmp, obj)) {
        snprintf(why, wcap, "cannot rename %.80s: %s", tmp, strerror(errno));
        rc = -1;
    }
    if (rc) remove(tmp);
    return rc;
}

void host_prog_open(sb_dev *dev, host_impl *h)
{
    const kgt_prog *p = h->prog;
    const char *cc = getenv("STENCIL_HOST_CC");
    char obj[600], why[160] = "", name[96];
    kgt_buf b = {0};
    double secs = 0;
    int dbl = h->type == STENCIL_DOUBLE;
    if (!cc || !*cc) cc = "cc";
    if (strcmp(cc, "none") == 0) {
        snprintf(dev->note, sizeof dev->note,
                 "host backend: STENCIL_HOST_CC=none: program '%.60s' is interpreted (slow)",
                 p->name);
        return;
    }
    kgt_prog_emit_host_unit(&b, p, "sb_prog");
    int rc = b.oom ? (snprintf(why, sizeof why, "out of memory"), -1)
                   : cached_object(b.s, cc, obj, sizeof obj, why, sizeof why, &secs);
    free(b.s);
    dev->t_compile += secs;
    if (!rc) {
        h->prog_so = dlopen(obj, RTLD_NOW | RTLD_LOCAL);
        snprintf(name, sizeof name, "sb_prog_%s_host_%c", p->name, dbl ? 'd' : 'f');
        if (h->prog_so) *(void **)&h->prog_fn = dlsym(h->prog_so, name);
        if (!h->prog_fn) {
            const char *e = dlerror();
            snprintf(why, sizeof why, "%s", e ? e : "no kernel in the object");
            if (h->prog_so) dlclose(h->prog_so);
            h->prog_so = NULL;
            rc = -1;
        }
    }
    if (rc) {
        snprintf(dev->note, sizeof dev->note,
                 "host backend: program '%.40s' not compiled (%.80s); the interpreter runs (slow)",
                 p->name, why);
        return;
    }
    snprintf(dev->kernel, sizeof dev->kernel, "rtc");
}

void host_prog_close(host_impl *h)
{
    if (h->prog_so) dlclose(h->prog_so);
    h->prog_so = NULL;
    h->prog_fn = NULL;
}
