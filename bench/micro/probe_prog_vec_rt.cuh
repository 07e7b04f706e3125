/* kgt_add, kgt_sub, kgt_mul: arithmetic that no compiler flag contracts into fmas. */
#if defined(__HIPCC__)
#define KGT_RN(t, name, op, rn) static __device__ __forceinline__ __attribute__((unused)) \
    t kgt_##name(t a, t b) { _Pragma("clang fp contract(off)") return a op b; }
#else
#define KGT_RN(t, name, op, rn) static __device__ __forceinline__ __attribute__((unused)) \
    t kgt_##name(t a, t b) { return rn(a, b); }
#endif
KGT_RN(float, add, +, __fadd_rn)
KGT_RN(float, sub, -, __fsub_rn)
KGT_RN(float, mul, *, __fmul_rn)
KGT_RN(double, add, +, __dadd_rn)
KGT_RN(double, sub, -, __dsub_rn)
KGT_RN(double, mul, *, __dmul_rn)
#undef KGT_RN
#ifndef KGT_PROG_HELPERS_f
#define KGT_PROG_HELPERS_f
static __device__ __forceinline__ float kgt_pmin_f(float a, float b) { return b < a ? b : a; }
static __device__ __forceinline__ float kgt_pmax_f(float a, float b) { return a < b ? b : a; }
#if defined(__HIPCC__)
static __device__ __forceinline__ float kgt_pdiv_f(float a, float b) { return a / b; }
static __device__ __forceinline__ float kgt_psqrt_f(float a) { return sqrt(a); }
#else
static __device__ __forceinline__ float kgt_pdiv_f(float a, float b) { return __fdiv_rn(a, b); }
static __device__ __forceinline__ float kgt_psqrt_f(float a) { return __fsqrt_rn(a); }
#endif
#endif
#ifndef KGT_PROG_ARGS_f
#define KGT_PROG_ARGS_f
typedef struct kgt_prog_args_f {
    const float *in[16];   /* per field (declaration order): its local cell 0 */
    const float *prev[16]; /* fields that keep a previous level, else unused */
    float *out[16];        /* evolving fields: the new level, in's layout; NULL for coefficients */
    long stride[16][3]; /* dimensions 0 .. dims-2; the last is contiguous */
    long lo[16][3], hi[16][3]; /* evolving fields: the local cells to compute */
    long origin[3];     /* global index of local cell 0 */
    long t;             /* the step number */
    float par[64];         /* parameters, in declaration order */
} kgt_prog_args_f;
#endif
#ifndef KGT_LDG
#if defined(__HIPCC__)
#define KGT_LDG(p) (*(p))
#else
#define KGT_LDG(p) __ldg(p)
#endif
#endif
/* shape 64 x 4 threads, 8 cells a thread */
extern "C" __global__ void __launch_bounds__(256) rt_grayscott_cuda_kf(const kgt_prog_args_f a, long u0, long u1, long u2)
{
    const long t = a.t;
    (void)t;
    (void)u0;
    (void)u1;
    (void)u2;
    const int y1 = (int)u1 + (int)(blockIdx.x * 64u + threadIdx.x);
    const int y0 = (int)u0 + (int)(blockIdx.y * 4u + threadIdx.y) * 8;
    const int s0 = (int)a.stride[0][0];
    const int c = y0 * s0 + y1;
    (void)c;
    const float p_Du = a.par[0]; (void)p_Du;
    const float p_Dv = a.par[1]; (void)p_Dv;
    const float p_F = a.par[2]; (void)p_F;
    const float p_kk = a.par[3]; (void)p_kk;
    const float p_dt = a.par[4]; (void)p_dt;
    const float *const f_u = a.in[0]; (void)f_u;
    const int s_u_0 = (int)a.stride[0][0]; (void)s_u_0;
    const float *const f_v = a.in[1]; (void)f_v;
    const int s_v_0 = (int)a.stride[0][0]; (void)s_v_0;
    const bool e_0 = a.lo[0][0] >= a.hi[0][0] || a.lo[0][1] >= a.hi[0][1];
    const bool in_0 = y0 >= (int)a.lo[0][0] && y0 + 8 <= (int)a.hi[0][0] && y1 >= (int)a.lo[0][1] && y1 + 1 <= (int)a.hi[0][1];
    const bool e_1 = a.lo[1][0] >= a.hi[1][0] || a.lo[1][1] >= a.hi[1][1];
    const bool in_1 = y0 >= (int)a.lo[1][0] && y0 + 8 <= (int)a.hi[1][0] && y1 >= (int)a.lo[1][1] && y1 + 1 <= (int)a.hi[1][1];
    if ((e_0 || in_0) && (e_1 || in_1)) {
        const float *__restrict__ const b_u = f_u + c;
        float *__restrict__ const o_u = a.out[0] + c;
        (void)b_u;
        const float *__restrict__ const b_v = f_v + c;
        float *__restrict__ const o_v = a.out[1] + c;
        (void)b_v;
        const float r_u_m1_0 = KGT_LDG(b_u + -s0);
        const float r_u_0_m1 = KGT_LDG(b_u + -1);
        const float r_u_0_0 = KGT_LDG(b_u + 0);
        const float r_u_0_1 = KGT_LDG(b_u + 1);
        const float r_u_1_m1 = KGT_LDG(b_u + s0 - 1);
        const float r_u_1_0 = KGT_LDG(b_u + s0);
        const float r_u_1_1 = KGT_LDG(b_u + s0 + 1);
        const float r_u_2_m1 = KGT_LDG(b_u + 2 * s0 - 1);
        const float r_u_2_0 = KGT_LDG(b_u + 2 * s0);
        const float r_u_2_1 = KGT_LDG(b_u + 2 * s0 + 1);
        const float r_u_3_m1 = KGT_LDG(b_u + 3 * s0 - 1);
        const float r_u_3_0 = KGT_LDG(b_u + 3 * s0);
        const float r_u_3_1 = KGT_LDG(b_u + 3 * s0 + 1);
        const float r_u_4_m1 = KGT_LDG(b_u + 4 * s0 - 1);
        const float r_u_4_0 = KGT_LDG(b_u + 4 * s0);
        const float r_u_4_1 = KGT_LDG(b_u + 4 * s0 + 1);
        const float r_u_5_m1 = KGT_LDG(b_u + 5 * s0 - 1);
        const float r_u_5_0 = KGT_LDG(b_u + 5 * s0);
        const float r_u_5_1 = KGT_LDG(b_u + 5 * s0 + 1);
        const float r_u_6_m1 = KGT_LDG(b_u + 6 * s0 - 1);
        const float r_u_6_0 = KGT_LDG(b_u + 6 * s0);
        const float r_u_6_1 = KGT_LDG(b_u + 6 * s0 + 1);
        const float r_u_7_m1 = KGT_LDG(b_u + 7 * s0 - 1);
        const float r_u_7_0 = KGT_LDG(b_u + 7 * s0);
        const float r_u_7_1 = KGT_LDG(b_u + 7 * s0 + 1);
        const float r_u_8_0 = KGT_LDG(b_u + 8 * s0);
        const float r_v_m1_0 = KGT_LDG(b_v + -s0);
        const float r_v_0_m1 = KGT_LDG(b_v + -1);
        const float r_v_0_0 = KGT_LDG(b_v + 0);
        const float r_v_0_1 = KGT_LDG(b_v + 1);
        const float r_v_1_m1 = KGT_LDG(b_v + s0 - 1);
        const float r_v_1_0 = KGT_LDG(b_v + s0);
        const float r_v_1_1 = KGT_LDG(b_v + s0 + 1);
        const float r_v_2_m1 = KGT_LDG(b_v + 2 * s0 - 1);
        const float r_v_2_0 = KGT_LDG(b_v + 2 * s0);
        const float r_v_2_1 = KGT_LDG(b_v + 2 * s0 + 1);
        const float r_v_3_m1 = KGT_LDG(b_v + 3 * s0 - 1);
        const float r_v_3_0 = KGT_LDG(b_v + 3 * s0);
        const float r_v_3_1 = KGT_LDG(b_v + 3 * s0 + 1);
        const float r_v_4_m1 = KGT_LDG(b_v + 4 * s0 - 1);
        const float r_v_4_0 = KGT_LDG(b_v + 4 * s0);
        const float r_v_4_1 = KGT_LDG(b_v + 4 * s0 + 1);
        const float r_v_5_m1 = KGT_LDG(b_v + 5 * s0 - 1);
        const float r_v_5_0 = KGT_LDG(b_v + 5 * s0);
        const float r_v_5_1 = KGT_LDG(b_v + 5 * s0 + 1);
        const float r_v_6_m1 = KGT_LDG(b_v + 6 * s0 - 1);
        const float r_v_6_0 = KGT_LDG(b_v + 6 * s0);
        const float r_v_6_1 = KGT_LDG(b_v + 6 * s0 + 1);
        const float r_v_7_m1 = KGT_LDG(b_v + 7 * s0 - 1);
        const float r_v_7_0 = KGT_LDG(b_v + 7 * s0);
        const float r_v_7_1 = KGT_LDG(b_v + 7 * s0 + 1);
        const float r_v_8_0 = KGT_LDG(b_v + 8 * s0);
        { /* cell 0 */
            const int x0 = y0 + 0;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_0, r_v_0_0), r_v_0_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_0, r_u_1_0), r_u_0_m1), r_u_0_1), kgt_mul(0x1p+2f, r_u_0_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_0, r_v_1_0), r_v_0_m1), r_v_0_1), kgt_mul(0x1p+2f, r_v_0_0));
            (void)l_lv;
            if (!e_0) o_u[0] = kgt_add(r_u_0_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_0)))));
            if (!e_1) o_v[0] = kgt_add(r_v_0_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_0))));
        }
        { /* cell 1 */
            const int x0 = y0 + 1;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_1_0, r_v_1_0), r_v_1_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_0_0, r_u_2_0), r_u_1_m1), r_u_1_1), kgt_mul(0x1p+2f, r_u_1_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_0_0, r_v_2_0), r_v_1_m1), r_v_1_1), kgt_mul(0x1p+2f, r_v_1_0));
            (void)l_lv;
            if (!e_0) o_u[1 * s0] = kgt_add(r_u_1_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_1_0)))));
            if (!e_1) o_v[1 * s0] = kgt_add(r_v_1_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_1_0))));
        }
        { /* cell 2 */
            const int x0 = y0 + 2;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_2_0, r_v_2_0), r_v_2_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_1_0, r_u_3_0), r_u_2_m1), r_u_2_1), kgt_mul(0x1p+2f, r_u_2_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_1_0, r_v_3_0), r_v_2_m1), r_v_2_1), kgt_mul(0x1p+2f, r_v_2_0));
            (void)l_lv;
            if (!e_0) o_u[2 * s0] = kgt_add(r_u_2_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_2_0)))));
            if (!e_1) o_v[2 * s0] = kgt_add(r_v_2_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_2_0))));
        }
        { /* cell 3 */
            const int x0 = y0 + 3;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_3_0, r_v_3_0), r_v_3_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_2_0, r_u_4_0), r_u_3_m1), r_u_3_1), kgt_mul(0x1p+2f, r_u_3_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_2_0, r_v_4_0), r_v_3_m1), r_v_3_1), kgt_mul(0x1p+2f, r_v_3_0));
            (void)l_lv;
            if (!e_0) o_u[3 * s0] = kgt_add(r_u_3_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_3_0)))));
            if (!e_1) o_v[3 * s0] = kgt_add(r_v_3_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_3_0))));
        }
        { /* cell 4 */
            const int x0 = y0 + 4;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_4_0, r_v_4_0), r_v_4_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_3_0, r_u_5_0), r_u_4_m1), r_u_4_1), kgt_mul(0x1p+2f, r_u_4_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_3_0, r_v_5_0), r_v_4_m1), r_v_4_1), kgt_mul(0x1p+2f, r_v_4_0));
            (void)l_lv;
            if (!e_0) o_u[4 * s0] = kgt_add(r_u_4_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_4_0)))));
            if (!e_1) o_v[4 * s0] = kgt_add(r_v_4_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_4_0))));
        }
        { /* cell 5 */
            const int x0 = y0 + 5;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_5_0, r_v_5_0), r_v_5_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_4_0, r_u_6_0), r_u_5_m1), r_u_5_1), kgt_mul(0x1p+2f, r_u_5_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_4_0, r_v_6_0), r_v_5_m1), r_v_5_1), kgt_mul(0x1p+2f, r_v_5_0));
            (void)l_lv;
            if (!e_0) o_u[5 * s0] = kgt_add(r_u_5_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_5_0)))));
            if (!e_1) o_v[5 * s0] = kgt_add(r_v_5_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_5_0))));
        }
        { /* cell 6 */
            const int x0 = y0 + 6;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_6_0, r_v_6_0), r_v_6_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_5_0, r_u_7_0), r_u_6_m1), r_u_6_1), kgt_mul(0x1p+2f, r_u_6_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_5_0, r_v_7_0), r_v_6_m1), r_v_6_1), kgt_mul(0x1p+2f, r_v_6_0));
            (void)l_lv;
            if (!e_0) o_u[6 * s0] = kgt_add(r_u_6_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_6_0)))));
            if (!e_1) o_v[6 * s0] = kgt_add(r_v_6_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_6_0))));
        }
        { /* cell 7 */
            const int x0 = y0 + 7;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_7_0, r_v_7_0), r_v_7_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_6_0, r_u_8_0), r_u_7_m1), r_u_7_1), kgt_mul(0x1p+2f, r_u_7_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_6_0, r_v_8_0), r_v_7_m1), r_v_7_1), kgt_mul(0x1p+2f, r_v_7_0));
            (void)l_lv;
            if (!e_0) o_u[7 * s0] = kgt_add(r_u_7_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_7_0)))));
            if (!e_1) o_v[7 * s0] = kgt_add(r_v_7_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_7_0))));
        }
        return;
    }
#pragma unroll 1
    for (int r = 0; r < 8; r++) {
        const int x0 = y0 + r;
        (void)x0;
        const int x1 = y1;
        (void)x1;
        const long g0 = a.origin[0] + x0; (void)g0;
        const long g1 = a.origin[1] + x1; (void)g1;
        if (x0 >= (int)a.lo[0][0] && x0 < (int)a.hi[0][0] && x1 >= (int)a.lo[0][1] && x1 < (int)a.hi[0][1]) { /* update u */
            const int c_u = x0 * s_u_0 + x1;
            const int c_v = x0 * s_v_0 + x1;
            const float l_uvv = kgt_mul(kgt_mul(f_u[c_u], f_v[c_v]), f_v[c_v]);
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(f_u[c_u - s_u_0], f_u[c_u + s_u_0]), f_u[c_u - 1]), f_u[c_u + 1]), kgt_mul(0x1p+2f, f_u[c_u]));
            a.out[0][c_u] = kgt_add(f_u[c_u], kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, f_u[c_u])))));
        }
        if (x0 >= (int)a.lo[1][0] && x0 < (int)a.hi[1][0] && x1 >= (int)a.lo[1][1] && x1 < (int)a.hi[1][1]) { /* update v */
            const int c_u = x0 * s_u_0 + x1;
            const int c_v = x0 * s_v_0 + x1;
            const float l_uvv = kgt_mul(kgt_mul(f_u[c_u], f_v[c_v]), f_v[c_v]);
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(f_v[c_v - s_v_0], f_v[c_v + s_v_0]), f_v[c_v - 1]), f_v[c_v + 1]), kgt_mul(0x1p+2f, f_v[c_v]));
            a.out[1][c_v] = kgt_add(f_v[c_v], kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), f_v[c_v]))));
        }
    }
}

/* shape 64 x 4 threads, 4 cells a thread */
extern "C" __global__ void __launch_bounds__(256) rt4_grayscott_cuda_kf(const kgt_prog_args_f a, long u0, long u1, long u2)
{
    const long t = a.t;
    (void)t;
    (void)u0;
    (void)u1;
    (void)u2;
    const int y1 = (int)u1 + (int)(blockIdx.x * 64u + threadIdx.x);
    const int y0 = (int)u0 + (int)(blockIdx.y * 4u + threadIdx.y) * 4;
    const int s0 = (int)a.stride[0][0];
    const int c = y0 * s0 + y1;
    (void)c;
    const float p_Du = a.par[0]; (void)p_Du;
    const float p_Dv = a.par[1]; (void)p_Dv;
    const float p_F = a.par[2]; (void)p_F;
    const float p_kk = a.par[3]; (void)p_kk;
    const float p_dt = a.par[4]; (void)p_dt;
    const float *const f_u = a.in[0]; (void)f_u;
    const int s_u_0 = (int)a.stride[0][0]; (void)s_u_0;
    const float *const f_v = a.in[1]; (void)f_v;
    const int s_v_0 = (int)a.stride[0][0]; (void)s_v_0;
    const bool e_0 = a.lo[0][0] >= a.hi[0][0] || a.lo[0][1] >= a.hi[0][1];
    const bool in_0 = y0 >= (int)a.lo[0][0] && y0 + 4 <= (int)a.hi[0][0] && y1 >= (int)a.lo[0][1] && y1 + 1 <= (int)a.hi[0][1];
    const bool e_1 = a.lo[1][0] >= a.hi[1][0] || a.lo[1][1] >= a.hi[1][1];
    const bool in_1 = y0 >= (int)a.lo[1][0] && y0 + 4 <= (int)a.hi[1][0] && y1 >= (int)a.lo[1][1] && y1 + 1 <= (int)a.hi[1][1];
    if ((e_0 || in_0) && (e_1 || in_1)) {
        const float *__restrict__ const b_u = f_u + c;
        float *__restrict__ const o_u = a.out[0] + c;
        (void)b_u;
        const float *__restrict__ const b_v = f_v + c;
        float *__restrict__ const o_v = a.out[1] + c;
        (void)b_v;
        const float r_u_m1_0 = KGT_LDG(b_u + -s0);
        const float r_u_0_m1 = KGT_LDG(b_u + -1);
        const float r_u_0_0 = KGT_LDG(b_u + 0);
        const float r_u_0_1 = KGT_LDG(b_u + 1);
        const float r_u_1_m1 = KGT_LDG(b_u + s0 - 1);
        const float r_u_1_0 = KGT_LDG(b_u + s0);
        const float r_u_1_1 = KGT_LDG(b_u + s0 + 1);
        const float r_u_2_m1 = KGT_LDG(b_u + 2 * s0 - 1);
        const float r_u_2_0 = KGT_LDG(b_u + 2 * s0);
        const float r_u_2_1 = KGT_LDG(b_u + 2 * s0 + 1);
        const float r_u_3_m1 = KGT_LDG(b_u + 3 * s0 - 1);
        const float r_u_3_0 = KGT_LDG(b_u + 3 * s0);
        const float r_u_3_1 = KGT_LDG(b_u + 3 * s0 + 1);
        const float r_u_4_0 = KGT_LDG(b_u + 4 * s0);
        const float r_v_m1_0 = KGT_LDG(b_v + -s0);
        const float r_v_0_m1 = KGT_LDG(b_v + -1);
        const float r_v_0_0 = KGT_LDG(b_v + 0);
        const float r_v_0_1 = KGT_LDG(b_v + 1);
        const float r_v_1_m1 = KGT_LDG(b_v + s0 - 1);
        const float r_v_1_0 = KGT_LDG(b_v + s0);
        const float r_v_1_1 = KGT_LDG(b_v + s0 + 1);
        const float r_v_2_m1 = KGT_LDG(b_v + 2 * s0 - 1);
        const float r_v_2_0 = KGT_LDG(b_v + 2 * s0);
        const float r_v_2_1 = KGT_LDG(b_v + 2 * s0 + 1);
        const float r_v_3_m1 = KGT_LDG(b_v + 3 * s0 - 1);
        const float r_v_3_0 = KGT_LDG(b_v + 3 * s0);
        const float r_v_3_1 = KGT_LDG(b_v + 3 * s0 + 1);
        const float r_v_4_0 = KGT_LDG(b_v + 4 * s0);
        { /* cell 0 */
            const int x0 = y0 + 0;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_0, r_v_0_0), r_v_0_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_0, r_u_1_0), r_u_0_m1), r_u_0_1), kgt_mul(0x1p+2f, r_u_0_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_0, r_v_1_0), r_v_0_m1), r_v_0_1), kgt_mul(0x1p+2f, r_v_0_0));
            (void)l_lv;
            if (!e_0) o_u[0] = kgt_add(r_u_0_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_0)))));
            if (!e_1) o_v[0] = kgt_add(r_v_0_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_0))));
        }
        { /* cell 1 */
            const int x0 = y0 + 1;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_1_0, r_v_1_0), r_v_1_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_0_0, r_u_2_0), r_u_1_m1), r_u_1_1), kgt_mul(0x1p+2f, r_u_1_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_0_0, r_v_2_0), r_v_1_m1), r_v_1_1), kgt_mul(0x1p+2f, r_v_1_0));
            (void)l_lv;
            if (!e_0) o_u[1 * s0] = kgt_add(r_u_1_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_1_0)))));
            if (!e_1) o_v[1 * s0] = kgt_add(r_v_1_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_1_0))));
        }
        { /* cell 2 */
            const int x0 = y0 + 2;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_2_0, r_v_2_0), r_v_2_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_1_0, r_u_3_0), r_u_2_m1), r_u_2_1), kgt_mul(0x1p+2f, r_u_2_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_1_0, r_v_3_0), r_v_2_m1), r_v_2_1), kgt_mul(0x1p+2f, r_v_2_0));
            (void)l_lv;
            if (!e_0) o_u[2 * s0] = kgt_add(r_u_2_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_2_0)))));
            if (!e_1) o_v[2 * s0] = kgt_add(r_v_2_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_2_0))));
        }
        { /* cell 3 */
            const int x0 = y0 + 3;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_3_0, r_v_3_0), r_v_3_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_2_0, r_u_4_0), r_u_3_m1), r_u_3_1), kgt_mul(0x1p+2f, r_u_3_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_2_0, r_v_4_0), r_v_3_m1), r_v_3_1), kgt_mul(0x1p+2f, r_v_3_0));
            (void)l_lv;
            if (!e_0) o_u[3 * s0] = kgt_add(r_u_3_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_3_0)))));
            if (!e_1) o_v[3 * s0] = kgt_add(r_v_3_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_3_0))));
        }
        return;
    }
#pragma unroll 1
    for (int r = 0; r < 4; r++) {
        const int x0 = y0 + r;
        (void)x0;
        const int x1 = y1;
        (void)x1;
        const long g0 = a.origin[0] + x0; (void)g0;
        const long g1 = a.origin[1] + x1; (void)g1;
        if (x0 >= (int)a.lo[0][0] && x0 < (int)a.hi[0][0] && x1 >= (int)a.lo[0][1] && x1 < (int)a.hi[0][1]) { /* update u */
            const int c_u = x0 * s_u_0 + x1;
            const int c_v = x0 * s_v_0 + x1;
            const float l_uvv = kgt_mul(kgt_mul(f_u[c_u], f_v[c_v]), f_v[c_v]);
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(f_u[c_u - s_u_0], f_u[c_u + s_u_0]), f_u[c_u - 1]), f_u[c_u + 1]), kgt_mul(0x1p+2f, f_u[c_u]));
            a.out[0][c_u] = kgt_add(f_u[c_u], kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, f_u[c_u])))));
        }
        if (x0 >= (int)a.lo[1][0] && x0 < (int)a.hi[1][0] && x1 >= (int)a.lo[1][1] && x1 < (int)a.hi[1][1]) { /* update v */
            const int c_u = x0 * s_u_0 + x1;
            const int c_v = x0 * s_v_0 + x1;
            const float l_uvv = kgt_mul(kgt_mul(f_u[c_u], f_v[c_v]), f_v[c_v]);
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(f_v[c_v - s_v_0], f_v[c_v + s_v_0]), f_v[c_v - 1]), f_v[c_v + 1]), kgt_mul(0x1p+2f, f_v[c_v]));
            a.out[1][c_v] = kgt_add(f_v[c_v], kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), f_v[c_v]))));
        }
    }
}

/* shape 32 x 8 threads, 8 cells a thread */
extern "C" __global__ void __launch_bounds__(256) rt32_grayscott_cuda_kf(const kgt_prog_args_f a, long u0, long u1, long u2)
{
    const long t = a.t;
    (void)t;
    (void)u0;
    (void)u1;
    (void)u2;
    const int y1 = (int)u1 + (int)(blockIdx.x * 32u + threadIdx.x);
    const int y0 = (int)u0 + (int)(blockIdx.y * 8u + threadIdx.y) * 8;
    const int s0 = (int)a.stride[0][0];
    const int c = y0 * s0 + y1;
    (void)c;
    const float p_Du = a.par[0]; (void)p_Du;
    const float p_Dv = a.par[1]; (void)p_Dv;
    const float p_F = a.par[2]; (void)p_F;
    const float p_kk = a.par[3]; (void)p_kk;
    const float p_dt = a.par[4]; (void)p_dt;
    const float *const f_u = a.in[0]; (void)f_u;
    const int s_u_0 = (int)a.stride[0][0]; (void)s_u_0;
    const float *const f_v = a.in[1]; (void)f_v;
    const int s_v_0 = (int)a.stride[0][0]; (void)s_v_0;
    const bool e_0 = a.lo[0][0] >= a.hi[0][0] || a.lo[0][1] >= a.hi[0][1];
    const bool in_0 = y0 >= (int)a.lo[0][0] && y0 + 8 <= (int)a.hi[0][0] && y1 >= (int)a.lo[0][1] && y1 + 1 <= (int)a.hi[0][1];
    const bool e_1 = a.lo[1][0] >= a.hi[1][0] || a.lo[1][1] >= a.hi[1][1];
    const bool in_1 = y0 >= (int)a.lo[1][0] && y0 + 8 <= (int)a.hi[1][0] && y1 >= (int)a.lo[1][1] && y1 + 1 <= (int)a.hi[1][1];
    if ((e_0 || in_0) && (e_1 || in_1)) {
        const float *__restrict__ const b_u = f_u + c;
        float *__restrict__ const o_u = a.out[0] + c;
        (void)b_u;
        const float *__restrict__ const b_v = f_v + c;
        float *__restrict__ const o_v = a.out[1] + c;
        (void)b_v;
        const float r_u_m1_0 = KGT_LDG(b_u + -s0);
        const float r_u_0_m1 = KGT_LDG(b_u + -1);
        const float r_u_0_0 = KGT_LDG(b_u + 0);
        const float r_u_0_1 = KGT_LDG(b_u + 1);
        const float r_u_1_m1 = KGT_LDG(b_u + s0 - 1);
        const float r_u_1_0 = KGT_LDG(b_u + s0);
        const float r_u_1_1 = KGT_LDG(b_u + s0 + 1);
        const float r_u_2_m1 = KGT_LDG(b_u + 2 * s0 - 1);
        const float r_u_2_0 = KGT_LDG(b_u + 2 * s0);
        const float r_u_2_1 = KGT_LDG(b_u + 2 * s0 + 1);
        const float r_u_3_m1 = KGT_LDG(b_u + 3 * s0 - 1);
        const float r_u_3_0 = KGT_LDG(b_u + 3 * s0);
        const float r_u_3_1 = KGT_LDG(b_u + 3 * s0 + 1);
        const float r_u_4_m1 = KGT_LDG(b_u + 4 * s0 - 1);
        const float r_u_4_0 = KGT_LDG(b_u + 4 * s0);
        const float r_u_4_1 = KGT_LDG(b_u + 4 * s0 + 1);
        const float r_u_5_m1 = KGT_LDG(b_u + 5 * s0 - 1);
        const float r_u_5_0 = KGT_LDG(b_u + 5 * s0);
        const float r_u_5_1 = KGT_LDG(b_u + 5 * s0 + 1);
        const float r_u_6_m1 = KGT_LDG(b_u + 6 * s0 - 1);
        const float r_u_6_0 = KGT_LDG(b_u + 6 * s0);
        const float r_u_6_1 = KGT_LDG(b_u + 6 * s0 + 1);
        const float r_u_7_m1 = KGT_LDG(b_u + 7 * s0 - 1);
        const float r_u_7_0 = KGT_LDG(b_u + 7 * s0);
        const float r_u_7_1 = KGT_LDG(b_u + 7 * s0 + 1);
        const float r_u_8_0 = KGT_LDG(b_u + 8 * s0);
        const float r_v_m1_0 = KGT_LDG(b_v + -s0);
        const float r_v_0_m1 = KGT_LDG(b_v + -1);
        const float r_v_0_0 = KGT_LDG(b_v + 0);
        const float r_v_0_1 = KGT_LDG(b_v + 1);
        const float r_v_1_m1 = KGT_LDG(b_v + s0 - 1);
        const float r_v_1_0 = KGT_LDG(b_v + s0);
        const float r_v_1_1 = KGT_LDG(b_v + s0 + 1);
        const float r_v_2_m1 = KGT_LDG(b_v + 2 * s0 - 1);
        const float r_v_2_0 = KGT_LDG(b_v + 2 * s0);
        const float r_v_2_1 = KGT_LDG(b_v + 2 * s0 + 1);
        const float r_v_3_m1 = KGT_LDG(b_v + 3 * s0 - 1);
        const float r_v_3_0 = KGT_LDG(b_v + 3 * s0);
        const float r_v_3_1 = KGT_LDG(b_v + 3 * s0 + 1);
        const float r_v_4_m1 = KGT_LDG(b_v + 4 * s0 - 1);
        const float r_v_4_0 = KGT_LDG(b_v + 4 * s0);
        const float r_v_4_1 = KGT_LDG(b_v + 4 * s0 + 1);
        const float r_v_5_m1 = KGT_LDG(b_v + 5 * s0 - 1);
        const float r_v_5_0 = KGT_LDG(b_v + 5 * s0);
        const float r_v_5_1 = KGT_LDG(b_v + 5 * s0 + 1);
        const float r_v_6_m1 = KGT_LDG(b_v + 6 * s0 - 1);
        const float r_v_6_0 = KGT_LDG(b_v + 6 * s0);
        const float r_v_6_1 = KGT_LDG(b_v + 6 * s0 + 1);
        const float r_v_7_m1 = KGT_LDG(b_v + 7 * s0 - 1);
        const float r_v_7_0 = KGT_LDG(b_v + 7 * s0);
        const float r_v_7_1 = KGT_LDG(b_v + 7 * s0 + 1);
        const float r_v_8_0 = KGT_LDG(b_v + 8 * s0);
        { /* cell 0 */
            const int x0 = y0 + 0;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_0_0, r_v_0_0), r_v_0_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_m1_0, r_u_1_0), r_u_0_m1), r_u_0_1), kgt_mul(0x1p+2f, r_u_0_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_m1_0, r_v_1_0), r_v_0_m1), r_v_0_1), kgt_mul(0x1p+2f, r_v_0_0));
            (void)l_lv;
            if (!e_0) o_u[0] = kgt_add(r_u_0_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_0_0)))));
            if (!e_1) o_v[0] = kgt_add(r_v_0_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_0_0))));
        }
        { /* cell 1 */
            const int x0 = y0 + 1;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_1_0, r_v_1_0), r_v_1_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_0_0, r_u_2_0), r_u_1_m1), r_u_1_1), kgt_mul(0x1p+2f, r_u_1_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_0_0, r_v_2_0), r_v_1_m1), r_v_1_1), kgt_mul(0x1p+2f, r_v_1_0));
            (void)l_lv;
            if (!e_0) o_u[1 * s0] = kgt_add(r_u_1_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_1_0)))));
            if (!e_1) o_v[1 * s0] = kgt_add(r_v_1_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_1_0))));
        }
        { /* cell 2 */
            const int x0 = y0 + 2;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_2_0, r_v_2_0), r_v_2_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_1_0, r_u_3_0), r_u_2_m1), r_u_2_1), kgt_mul(0x1p+2f, r_u_2_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_1_0, r_v_3_0), r_v_2_m1), r_v_2_1), kgt_mul(0x1p+2f, r_v_2_0));
            (void)l_lv;
            if (!e_0) o_u[2 * s0] = kgt_add(r_u_2_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_2_0)))));
            if (!e_1) o_v[2 * s0] = kgt_add(r_v_2_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_2_0))));
        }
        { /* cell 3 */
            const int x0 = y0 + 3;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_3_0, r_v_3_0), r_v_3_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_2_0, r_u_4_0), r_u_3_m1), r_u_3_1), kgt_mul(0x1p+2f, r_u_3_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_2_0, r_v_4_0), r_v_3_m1), r_v_3_1), kgt_mul(0x1p+2f, r_v_3_0));
            (void)l_lv;
            if (!e_0) o_u[3 * s0] = kgt_add(r_u_3_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_3_0)))));
            if (!e_1) o_v[3 * s0] = kgt_add(r_v_3_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_3_0))));
        }
        { /* cell 4 */
            const int x0 = y0 + 4;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_4_0, r_v_4_0), r_v_4_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_3_0, r_u_5_0), r_u_4_m1), r_u_4_1), kgt_mul(0x1p+2f, r_u_4_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_3_0, r_v_5_0), r_v_4_m1), r_v_4_1), kgt_mul(0x1p+2f, r_v_4_0));
            (void)l_lv;
            if (!e_0) o_u[4 * s0] = kgt_add(r_u_4_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_4_0)))));
            if (!e_1) o_v[4 * s0] = kgt_add(r_v_4_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_4_0))));
        }
        { /* cell 5 */
            const int x0 = y0 + 5;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_5_0, r_v_5_0), r_v_5_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_4_0, r_u_6_0), r_u_5_m1), r_u_5_1), kgt_mul(0x1p+2f, r_u_5_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_4_0, r_v_6_0), r_v_5_m1), r_v_5_1), kgt_mul(0x1p+2f, r_v_5_0));
            (void)l_lv;
            if (!e_0) o_u[5 * s0] = kgt_add(r_u_5_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_5_0)))));
            if (!e_1) o_v[5 * s0] = kgt_add(r_v_5_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_5_0))));
        }
        { /* cell 6 */
            const int x0 = y0 + 6;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_6_0, r_v_6_0), r_v_6_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_5_0, r_u_7_0), r_u_6_m1), r_u_6_1), kgt_mul(0x1p+2f, r_u_6_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_5_0, r_v_7_0), r_v_6_m1), r_v_6_1), kgt_mul(0x1p+2f, r_v_6_0));
            (void)l_lv;
            if (!e_0) o_u[6 * s0] = kgt_add(r_u_6_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_6_0)))));
            if (!e_1) o_v[6 * s0] = kgt_add(r_v_6_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_6_0))));
        }
        { /* cell 7 */
            const int x0 = y0 + 7;
            (void)x0;
            const int x1 = y1;
            (void)x1;
            const long g0 = a.origin[0] + x0; (void)g0;
            const long g1 = a.origin[1] + x1; (void)g1;
            const float l_uvv = kgt_mul(kgt_mul(r_u_7_0, r_v_7_0), r_v_7_0);
            (void)l_uvv;
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(r_u_6_0, r_u_8_0), r_u_7_m1), r_u_7_1), kgt_mul(0x1p+2f, r_u_7_0));
            (void)l_lu;
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(r_v_6_0, r_v_8_0), r_v_7_m1), r_v_7_1), kgt_mul(0x1p+2f, r_v_7_0));
            (void)l_lv;
            if (!e_0) o_u[7 * s0] = kgt_add(r_u_7_0, kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, r_u_7_0)))));
            if (!e_1) o_v[7 * s0] = kgt_add(r_v_7_0, kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), r_v_7_0))));
        }
        return;
    }
#pragma unroll 1
    for (int r = 0; r < 8; r++) {
        const int x0 = y0 + r;
        (void)x0;
        const int x1 = y1;
        (void)x1;
        const long g0 = a.origin[0] + x0; (void)g0;
        const long g1 = a.origin[1] + x1; (void)g1;
        if (x0 >= (int)a.lo[0][0] && x0 < (int)a.hi[0][0] && x1 >= (int)a.lo[0][1] && x1 < (int)a.hi[0][1]) { /* update u */
            const int c_u = x0 * s_u_0 + x1;
            const int c_v = x0 * s_v_0 + x1;
            const float l_uvv = kgt_mul(kgt_mul(f_u[c_u], f_v[c_v]), f_v[c_v]);
            const float l_lu = kgt_sub(kgt_add(kgt_add(kgt_add(f_u[c_u - s_u_0], f_u[c_u + s_u_0]), f_u[c_u - 1]), f_u[c_u + 1]), kgt_mul(0x1p+2f, f_u[c_u]));
            a.out[0][c_u] = kgt_add(f_u[c_u], kgt_mul(p_dt, kgt_add(kgt_sub(kgt_mul(p_Du, l_lu), l_uvv), kgt_mul(p_F, kgt_sub(0x1p+0f, f_u[c_u])))));
        }
        if (x0 >= (int)a.lo[1][0] && x0 < (int)a.hi[1][0] && x1 >= (int)a.lo[1][1] && x1 < (int)a.hi[1][1]) { /* update v */
            const int c_u = x0 * s_u_0 + x1;
            const int c_v = x0 * s_v_0 + x1;
            const float l_uvv = kgt_mul(kgt_mul(f_u[c_u], f_v[c_v]), f_v[c_v]);
            const float l_lv = kgt_sub(kgt_add(kgt_add(kgt_add(f_v[c_v - s_v_0], f_v[c_v + s_v_0]), f_v[c_v - 1]), f_v[c_v + 1]), kgt_mul(0x1p+2f, f_v[c_v]));
            a.out[1][c_v] = kgt_add(f_v[c_v], kgt_mul(p_dt, kgt_sub(kgt_add(kgt_mul(p_Dv, l_lv), l_uvv), kgt_mul(kgt_add(p_F, p_kk), f_v[c_v]))));
        }
    }
}

