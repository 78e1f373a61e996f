/* The scalar fallback: the shared kernels over the 1-lane layer. */
#include "lanes_scalar.h"
#include "kernels.h"

PB_DEFINE_KERNEL_TABLE(pb_kernels_scalar);
