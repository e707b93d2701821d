int device_count() { return 1; }
