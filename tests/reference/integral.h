/* Plain-C reference for clintegral (placeholder until the element lands). */
#pragma once
#include <glib.h>
