// pristine copy.cpp
void copy_gpu() {}
