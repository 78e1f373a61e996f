/* The sse41 backend: the shared kernels over lanes_sse41.h. */
#include "lanes_sse41.h"
#include "kernels.h"

PB_DEFINE_KERNEL_TABLE(PB_KERNEL_TABLE_NAME);
