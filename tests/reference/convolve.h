/* Plain-C reference for clconvolve (placeholder until the element lands). */
#pragma once
#include <glib.h>
