/* The avx2 backend: the shared kernels over lanes_avx2.h. */
#include "lanes_avx2.h"
#include "kernels.h"

PB_DEFINE_KERNEL_TABLE(PB_KERNEL_TABLE_NAME);
