/*
 * Copy kernels, built into the same program as the stencil kernel, with -Delem_t=uint or ulong
 * (the element's size), so no floating-point support is needed to move bits. Boxes arrive as
 * counts innermost first: c0 elements of unit stride, c1 rows of pitch p1, c2 slices of pitch p2,
 * from element start. 3D launch, one work-item per element, every id checked (the backend rounds
 * the launch up to its work-group shape); no integer division, which GPUs emulate for 64 bits.
 */
__kernel void sb_pack(__global const elem_t *restrict arr, __global elem_t *restrict buf,
                      long start, long c0, long c1, long c2, long p1, long p2)
{
    const long x = (long)get_global_id(0), y = (long)get_global_id(1), z = (long)get_global_id(2);
    if (x >= c0 || y >= c1 || z >= c2)
        return;
    buf[(z * c1 + y) * c0 + x] = arr[start + z * p2 + y * p1 + x];
}

__kernel void sb_unpack(__global elem_t *restrict arr, __global const elem_t *restrict buf,
                        long start, long c0, long c1, long c2, long p1, long p2)
{
    const long x = (long)get_global_id(0), y = (long)get_global_id(1), z = (long)get_global_id(2);
    if (x >= c0 || y >= c1 || z >= c2)
        return;
    arr[start + z * p2 + y * p1 + x] = buf[(z * c1 + y) * c0 + x];
}

/* Box to box between two arrays of different pitches (device-to-device halos). */
__kernel void sb_copy_box(__global elem_t *restrict dst, __global const elem_t *restrict src,
                          long dstart, long sstart, long c0, long c1, long c2, long dp1, long dp2,
                          long sp1, long sp2)
{
    const long x = (long)get_global_id(0), y = (long)get_global_id(1), z = (long)get_global_id(2);
    if (x >= c0 || y >= c1 || z >= c2)
        return;
    dst[dstart + z * dp2 + y * dp1 + x] = src[sstart + z * sp2 + y * sp1 + x];
}
