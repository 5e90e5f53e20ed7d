/* Plain-C reference for clhistogram (placeholder until the element lands). */
#pragma once
#include <glib.h>
