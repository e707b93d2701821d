// device
int device() { return 0; }
