// rocm-aware
void copy_gpu() { /* hip */ }
