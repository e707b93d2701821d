// overlay copy.cpp: ROCm-aware
void copy_gpu() { /* rocm */ }
