/* SPDX-License-Identifier: Apache-2.0
 * FreeDNN host cuBLAS: the header cuBLAS programs include.  It brings in
 * cublas_api.h and maps the plain names of the v2 API to the exported _v2
 * symbols, as cuBLAS's header does (cublasSgemm -> cublasSgemm_v2). */
#ifndef CUBLAS_V2_H_
#define CUBLAS_V2_H_

#if defined(CUBLAS_H_)
#error "cublas.h (the legacy API) and cublas_v2.h cannot both be included"
#endif

#include "cublas_api.h"

#define cublasCreate cublasCreate_v2
#define cublasDestroy cublasDestroy_v2
#define cublasGetVersion cublasGetVersion_v2
#define cublasSetWorkspace cublasSetWorkspace_v2
#define cublasSetStream cublasSetStream_v2
#define cublasGetStream cublasGetStream_v2
#define cublasGetPointerMode cublasGetPointerMode_v2
#define cublasSetPointerMode cublasSetPointerMode_v2

#define cublasSaxpy cublasSaxpy_v2
#define cublasDaxpy cublasDaxpy_v2
#define cublasSscal cublasSscal_v2
#define cublasDscal cublasDscal_v2
#define cublasSdot cublasSdot_v2
#define cublasDdot cublasDdot_v2
#define cublasSnrm2 cublasSnrm2_v2
#define cublasDnrm2 cublasDnrm2_v2
#define cublasSasum cublasSasum_v2
#define cublasDasum cublasDasum_v2
#define cublasIsamax cublasIsamax_v2
#define cublasIdamax cublasIdamax_v2
#define cublasIsamin cublasIsamin_v2
#define cublasIdamin cublasIdamin_v2
#define cublasScopy cublasScopy_v2
#define cublasDcopy cublasDcopy_v2
#define cublasSswap cublasSswap_v2
#define cublasDswap cublasDswap_v2

#define cublasSgemv cublasSgemv_v2
#define cublasDgemv cublasDgemv_v2
#define cublasSger cublasSger_v2
#define cublasDger cublasDger_v2

#define cublasSgemm cublasSgemm_v2
#define cublasDgemm cublasDgemm_v2
#define cublasStrsm cublasStrsm_v2
#define cublasDtrsm cublasDtrsm_v2

/* The 64-bit integer forms, likewise. */
#define cublasSaxpy_64 cublasSaxpy_v2_64
#define cublasDaxpy_64 cublasDaxpy_v2_64
#define cublasSscal_64 cublasSscal_v2_64
#define cublasDscal_64 cublasDscal_v2_64
#define cublasSdot_64 cublasSdot_v2_64
#define cublasDdot_64 cublasDdot_v2_64
#define cublasSnrm2_64 cublasSnrm2_v2_64
#define cublasDnrm2_64 cublasDnrm2_v2_64
#define cublasSasum_64 cublasSasum_v2_64
#define cublasDasum_64 cublasDasum_v2_64
#define cublasIsamax_64 cublasIsamax_v2_64
#define cublasIdamax_64 cublasIdamax_v2_64
#define cublasIsamin_64 cublasIsamin_v2_64
#define cublasIdamin_64 cublasIdamin_v2_64
#define cublasScopy_64 cublasScopy_v2_64
#define cublasDcopy_64 cublasDcopy_v2_64
#define cublasSswap_64 cublasSswap_v2_64
#define cublasDswap_64 cublasDswap_v2_64
#define cublasSgemv_64 cublasSgemv_v2_64
#define cublasDgemv_64 cublasDgemv_v2_64
#define cublasSger_64 cublasSger_v2_64
#define cublasDger_64 cublasDger_v2_64
#define cublasSgemm_64 cublasSgemm_v2_64
#define cublasDgemm_64 cublasDgemm_v2_64
#define cublasStrsm_64 cublasStrsm_v2_64
#define cublasDtrsm_64 cublasDtrsm_v2_64

#endif /* CUBLAS_V2_H_ */
