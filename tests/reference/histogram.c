#include "histogram.h"
