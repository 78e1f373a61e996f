/* The avx512 backend: the shared kernels over lanes_avx512.h. */
#include "lanes_avx512.h"
#include "kernels.h"

PB_DEFINE_KERNEL_TABLE(PB_KERNEL_TABLE_NAME);
