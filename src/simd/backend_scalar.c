/* The scalar fallback: the shared kernels over the 1-lane layer. */
#include "lanes_scalar.h"
#include "kernels.h"

PB_DEFINE_KERNEL_TABLE(PB_KERNEL_TABLE_NAME);
