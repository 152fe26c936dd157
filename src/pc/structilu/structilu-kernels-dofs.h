/* The kernels of structilu-kernels.h for DoF 1..8, for the factor type FT defined by the includer */
#define SDOF 1
#include "structilu-kernels.h"
#undef SDOF
#define SDOF 2
#include "structilu-kernels.h"
#undef SDOF
#define SDOF 3
#include "structilu-kernels.h"
#undef SDOF
#define SDOF 4
#include "structilu-kernels.h"
#undef SDOF
#define SDOF 5
#include "structilu-kernels.h"
#undef SDOF
#define SDOF 6
#include "structilu-kernels.h"
#undef SDOF
#define SDOF 7
#include "structilu-kernels.h"
#undef SDOF
#define SDOF 8
#include "structilu-kernels.h"
#undef SDOF
