/* A stand-in for rocBLAS, which Debian 12 does not package: one entry point
 * of its real API, built as librocblas.so.4 in a fake prefix by the job
 * tests so a consumer's NEEDED and RUNPATH can be checked against it. */
int rocblas_create_handle(void **handle) {
  *handle = (void *)0;
  return 0; /* rocblas_status_success */
}
