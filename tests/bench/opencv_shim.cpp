/* SPDX-License-Identifier: LGPL-2.1-or-later */
// OpenCV yardsticks for clbench, loaded at run time (see cvshim.h).
// OpenCV runs its own thread pool: clbench sets it to the core count and
// reports that, so the comparison with PoCL (which also uses every core) is
// like for like.
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "cvshim.h"

namespace {

struct Job {
  std::string op;
  int layout = 0, ksize = 0;
  double sigma = 0;
  cv::Mat src, dst, gray, sum, sq, kernel, kx, chroma_src, chroma_dst;
  cv::Mat hist[3];
};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int
clbench_cv_init(int threads, char *info, int len)
{
  cv::setNumThreads(threads);
  std::snprintf(info, len, "OpenCV %s, %d threads", CV_VERSION,
      cv::getNumThreads());
  return 0;
}

__attribute__((visibility("default"))) void *
clbench_cv_prepare(const char *op, int layout, int width, int height,
    int ksize, double sigma, const float *kernel)
{
  Job *j = new Job;
  std::mt19937 rng(1234);

  j->op = op;
  j->layout = layout;
  j->ksize = ksize;
  j->sigma = sigma;
  j->src.create(height, width, layout == CLB_CV_RGBA ? CV_8UC4 : CV_8UC1);
  cv::randu(j->src, 0, 256);
  if (layout == CLB_CV_I420) {
    j->chroma_src.create((height + 1) / 2 * 2, (width + 1) / 2, CV_8UC1);
    cv::randu(j->chroma_src, 0, 256);
  }
  if (j->op == "filter2D") {
    if (!kernel) {
      delete j;
      return nullptr;
    }
    j->kernel = cv::Mat(ksize, ksize, CV_32F, (void *) kernel).clone();
  } else if (j->op == "sepFilter2D") {
    j->kx = cv::getGaussianKernel(ksize, sigma, CV_32F);
  } else if (j->op != "calcHist-rgb" && j->op != "calcHist-luma"
      && j->op != "cvtColor-calcHist-luma"
      && j->op != "GaussianBlur" && j->op != "blur" && j->op != "integral"
      && j->op != "integral-sq") {
    delete j;
    return nullptr;
  }
  if ((j->op == "calcHist-rgb" || j->op == "cvtColor-calcHist-luma")
      && layout != CLB_CV_RGBA) {
    delete j;
    return nullptr;
  }
  return j;
}

__attribute__((visibility("default"))) void
clbench_cv_run(void *job)
{
  Job *j = static_cast<Job *>(job);
  const int bins = 256;
  const float range[] = { 0, 256 };
  const float *ranges[] = { range };
  cv::Size ks(j->ksize, j->ksize);

  if (j->op == "calcHist-rgb" || j->op == "calcHist-luma") {
    int n = j->op == "calcHist-rgb" ? 3 : 1;
    for (int c = 0; c < n; c++)
      cv::calcHist(&j->src, 1, &c, cv::Mat(), j->hist[c], 1, &bins, ranges);
    return;
  }
  if (j->op == "cvtColor-calcHist-luma") {
    // what an application does for a luma histogram of RGBA frames (BT.601
    // weights in fixed point, as the element's default)
    const int c = 0;
    cv::cvtColor(j->src, j->gray, cv::COLOR_RGBA2GRAY);
    cv::calcHist(&j->gray, 1, &c, cv::Mat(), j->hist[0], 1, &bins, ranges);
    return;
  }
  if (j->op == "integral") {
    cv::integral(j->src, j->sum, CV_32S);
    return;
  }
  if (j->op == "integral-sq") {
    cv::integral(j->src, j->sum, j->sq, CV_32S, CV_64F);
    return;
  }
  // filters: RGBA is filtered on all 4 channels (OpenCV has no channel
  // mask); I420 filters luma and copies chroma, like the element's default
  if (j->op == "filter2D")
    cv::filter2D(j->src, j->dst, -1, j->kernel, cv::Point(-1, -1), 0,
        cv::BORDER_REPLICATE);
  else if (j->op == "sepFilter2D")
    cv::sepFilter2D(j->src, j->dst, -1, j->kx, j->kx, cv::Point(-1, -1), 0,
        cv::BORDER_REPLICATE);
  else if (j->op == "GaussianBlur")
    cv::GaussianBlur(j->src, j->dst, ks, j->sigma, j->sigma,
        cv::BORDER_REPLICATE);
  else if (j->op == "blur")
    cv::blur(j->src, j->dst, ks, cv::Point(-1, -1), cv::BORDER_REPLICATE);
  if (j->layout == CLB_CV_I420)
    j->chroma_src.copyTo(j->chroma_dst);
}

__attribute__((visibility("default"))) void
clbench_cv_free(void *job)
{
  delete static_cast<Job *>(job);
}

}  // extern "C"
