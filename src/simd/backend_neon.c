/* The neon backend: the shared kernels over lanes_neon.h. */
#include "lanes_neon.h"
#include "kernels.h"

PB_DEFINE_KERNEL_TABLE(PB_KERNEL_TABLE_NAME);
