__global__ void qmv() {}
