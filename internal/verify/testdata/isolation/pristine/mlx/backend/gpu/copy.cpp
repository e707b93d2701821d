// pristine
void copy_gpu() {}
