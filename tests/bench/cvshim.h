/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ABI between clbench and the optional OpenCV shim module
 * (libclbench-opencv.so, built only when opencv4 is found). clbench opens it
 * with GModule at run time, so the clbench binary itself never links OpenCV
 * and runs unchanged on machines without it (the GPU box). */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* frame layouts the shim knows; I420 = its w x h luma plane (chroma is
 * copied by the filters so the work matches the element's luma-only mode) */
enum { CLB_CV_GRAY8 = 0, CLB_CV_RGBA = 1, CLB_CV_I420 = 2 };

/* Sets cv::setNumThreads(@threads) and writes "OpenCV x.y.z, N threads" to
 * @info. Returns 0 on success. */
typedef int (*ClbCvInitFunc) (int threads, char *info, int len);
/* @op: "calcHist-rgb", "calcHist-luma", "filter2D", "sepFilter2D",
 * "GaussianBlur", "blur", "integral", "integral-sq". @kernel: ksize*ksize
 * coefficients for filter2D (row order), else unused; @sigma for the
 * gaussian ones. Returns NULL when the op or layout is unsupported. */
typedef void *(*ClbCvPrepareFunc) (const char *op, int layout, int width,
    int height, int ksize, double sigma, const float *kernel);
typedef void (*ClbCvRunFunc) (void *job);
typedef void (*ClbCvFreeFunc) (void *job);

#define CLB_CV_INIT "clbench_cv_init"
#define CLB_CV_PREPARE "clbench_cv_prepare"
#define CLB_CV_RUN "clbench_cv_run"
#define CLB_CV_FREE "clbench_cv_free"

#ifdef __cplusplus
}
#endif
