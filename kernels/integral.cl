/* integral.cl: placeholder, replaced by the clintegral element's kernels. */
__kernel void placeholder (__global uchar * data)
{
}
