/* A stand-in for hipBLASLt, which Debian 12 does not package: one entry
 * point of its real API, built as libhipblaslt.so.0 in a fake prefix by the
 * job tests. */
int hipblasLtCreate(void **handle) {
  *handle = (void *)0;
  return 0; /* HIPBLAS_STATUS_SUCCESS */
}
