/* The kernels of ilu-kernels.h for DoF 1..8, for the factor type FT defined by the includer */
#define SDOF 1
#include "ilu-kernels.h"
#undef SDOF
#define SDOF 2
#include "ilu-kernels.h"
#undef SDOF
#define SDOF 3
#include "ilu-kernels.h"
#undef SDOF
#define SDOF 4
#include "ilu-kernels.h"
#undef SDOF
#define SDOF 5
#include "ilu-kernels.h"
#undef SDOF
#define SDOF 6
#include "ilu-kernels.h"
#undef SDOF
#define SDOF 7
#include "ilu-kernels.h"
#undef SDOF
#define SDOF 8
#include "ilu-kernels.h"
#undef SDOF
