/*
 * The OpenCL part of test_kgt_prog.c (included once, when built with OpenCL): the program's
 * OpenCL kernel (P_NAME_opencl, from the generated examples_prog.c) run on the test's padded
 * arrays, the same ones the host kernel gets. The kernel's arguments, as prog_emit.c writes
 * them: per field its input, its previous level if it keeps one, its output if it evolves; then
 * m (longs: origin[3], t, the launch's first local cell[3], one unused, then per field 12:
 * offset of local cell 0, strides, lo[3], hi[3]) and the parameters.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

static struct {
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    int open, fp64, crdiv;
} cl;

static void ocl_open(void)
{
    cl_platform_id plat;
    cl_uint n = 0;
    cl_int err;
    cl_device_fp_config fp = 0;
    if (cl.open) return;
    ck_assert_int_eq(clGetPlatformIDs(1, &plat, &n), CL_SUCCESS);
    ck_assert_int_eq(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &cl.dev, &n), CL_SUCCESS);
    cl.ctx = clCreateContext(NULL, 1, &cl.dev, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl.q = clCreateCommandQueue(cl.ctx, cl.dev, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clGetDeviceInfo(cl.dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL);
    cl.fp64 = fp != 0;
    fp = 0;
    clGetDeviceInfo(cl.dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
    /* Float / and sqrt are IEEE only with this build option: the contract needs it. */
    cl.crdiv = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    cl.open = 1;
}

static cl_program built;
static const char *built_src;
static size_t built_es;

static cl_mem ocl_buffer(size_t bytes, void *host)
{
    cl_int err;
    cl_mem m = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, host, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return m;
}

/* The step on the device: pad[level][field] of g[field].size elements of es bytes each. */
static void ocl_exec(const run *r, long t, const char *source, void *pad[3][KGT_PROG_MAX_FIELDS],
                     const pad_geom *g, long lo[][3], long hi[][3], const void *par, size_t es)
{
    const kgt_prog *p = r->p;
    char opts[128], log[8192] = "", name[96];
    cl_mem mem[3][KGT_PROG_MAX_FIELDS], mb, pb;
    long m[8 + 12 * KGT_PROG_MAX_FIELDS];
    size_t gsz[3];
    cl_int err;
    cl_program prg;
    cl_kernel k;
    cl_uint arg = 0;
    memset(m, 0, sizeof m);
    m[3] = t;
    for (int d = 0; d < p->ndims; d++) {
        long u = 0, v = 0;
        int any = 0;
        for (int f = 0; f < p->nf; f++)
            if (!p->f[f].coef) {
                if (!any || lo[f][d] < u) u = lo[f][d];
                if (!any || hi[f][d] > v) v = hi[f][d];
                any = 1;
            }
        m[4 + d] = u;
        gsz[p->ndims - 1 - d] = (size_t)(v - u);
    }
    for (int f = 0; f < p->nf; f++) {
        long *mf = m + 8 + 12 * f;
        mf[0] = g[f].off;
        for (int d = 0; d + 1 < p->ndims; d++) mf[1 + d] = g[f].st[d];
        for (int d = 0; d < p->ndims; d++) mf[4 + d] = lo[f][d], mf[7 + d] = hi[f][d];
    }
    /* Built once per test (each test runs in a process of its own). */
    if (built_src != source || built_es != es) {
        if (built_src) clReleaseProgram(built);
        snprintf(opts, sizeof opts, "-DSTENCIL_DOUBLE=%d%s", es == sizeof(double),
                 cl.crdiv ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");
        prg = clCreateProgramWithSource(cl.ctx, 1, &source, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        if ((err = clBuildProgram(prg, 1, &cl.dev, opts, NULL, NULL)) != CL_SUCCESS)
            clGetProgramBuildInfo(prg, cl.dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        ck_assert_msg(err == CL_SUCCESS, "build failed: %s", log);
        built = prg;
        built_src = source;
        built_es = es;
    }
    prg = built;
    snprintf(name, sizeof name, "examples_%s", p->name);
    k = clCreateKernel(prg, name, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    for (int f = 0; f < p->nf; f++)
        for (int lv = 0; lv < 3; lv++) {
            if ((lv == 1 && !p->f[f].keeps) || (lv == 2 && p->f[f].coef)) continue;
            mem[lv][f] = ocl_buffer((size_t)g[f].size * es, pad[lv][f]);
            ck_assert_int_eq(clSetKernelArg(k, arg++, sizeof(cl_mem), &mem[lv][f]), CL_SUCCESS);
        }
    mb = ocl_buffer(sizeof m, m);
    pb = ocl_buffer(KGT_PROG_MAX_PARAMS * es, (void *)par);
    ck_assert_int_eq(clSetKernelArg(k, arg++, sizeof(cl_mem), &mb), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, arg++, sizeof(cl_mem), &pb), CL_SUCCESS);
    ck_assert_int_eq(
        clEnqueueNDRangeKernel(cl.q, k, (cl_uint)p->ndims, NULL, gsz, NULL, 0, NULL, NULL),
        CL_SUCCESS);
    for (int f = 0; f < p->nf; f++)
        if (!p->f[f].coef)
            ck_assert_int_eq(clEnqueueReadBuffer(cl.q, mem[2][f], CL_TRUE, 0,
                                                 (size_t)g[f].size * es, pad[2][f], 0, NULL, NULL),
                             CL_SUCCESS);
    for (int f = 0; f < p->nf; f++)
        for (int lv = 0; lv < 3; lv++)
            if (!((lv == 1 && !p->f[f].keeps) || (lv == 2 && p->f[f].coef)))
                clReleaseMemObject(mem[lv][f]);
    clReleaseMemObject(mb);
    clReleaseMemObject(pb);
    clReleaseKernel(k);
}
