#include "integral.h"
