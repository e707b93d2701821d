__global__ void hadamard() {}
