#include "convolve.h"
